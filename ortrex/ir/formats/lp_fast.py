"""Fast path of the LP reader: tokens cut at whitespace, each checked to be one token.

It reads files in the common dialect (ASCII; every line a section header, a comment starting in
the first column, or an indented line of its section; tokens apart as Gurobi and ortrex write
them, a sign joined to a right-hand side or bound allowed) into the same builder as the full
reader, with the same tokens in the same order, through the same bound and declaration rules, so
the model is the same one. A whitespace-separated chunk is taken only when the full reader's
tokeniser would cut it as the same token(s); anything else returns None and the full reader reads
the file, so every error and every warning (constants, dialect corners) is the full reader's.
"""

from __future__ import annotations

import re
from itertools import chain
from operator import itemgetter

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder
from ortrex.ir.formats.lp_syntax import (
    BIG,
    DECLARED,
    FLIPPED,
    HEADERS,
    INF,
    NAME_RE,
    SENSES,
    bounds_from,
    declare,
    set_bound,
)

_NAME = re.compile(f"(?![\\d.]){NAME_RE}")  # a name never starts where a number token would
_DIGITS = frozenset("0123456789.")
_NUMBER_CHARS = frozenset("0123456789.eE+-")
# Words the full reader may read as something else than a name: numbers, or a header in the
# middle of a line (its INLINE pattern; "subject to", "such that" by their first word).
_NOT_NAMES = frozenset(("inf", "infinity", "nan", "free", "subject", "such", "bounds", "generals",
                        "integers", "binaries", "semi-continuous", "semis", "end"))
_INF = frozenset(("inf", "infinity"))

# Token classes by first character, for the vectorised path: N number, V name, R comparison,
# the sign and bracket characters themselves; L (a label "name:") and M (a sign joined to a
# number or an infinity word) are set from the whole token.
_CLASS = np.full(128, ord("V"), dtype=np.uint8)
for _c in "0123456789.":
    _CLASS[ord(_c)] = ord("N")
for _c in "+-[]/*^:":
    _CLASS[ord(_c)] = ord(_c)
for _c in "<>=":
    _CLASS[ord(_c)] = ord("R")
_TERMS = r"(?:[-+]?N?V(?:[-+]N?V)*)?"
_OBJECTIVE = re.compile(f"L?{_TERMS}")
_ROWS = re.compile(f"(?:L?{_TERMS}R(?:[-+]?[NV]|M))*")
_PLUS, _MINUS, _N, _V, _R, _L, _M, _COLON, _UNDERSCORE = (ord(c) for c in "+-NVRLM:_")
_SPACE = np.zeros(256, dtype=np.int8)  # what str.split() splits at, in ASCII text
_SPACE[[9, 10, 11, 12, 13, 28, 29, 30, 31, 32]] = 1


_SENSE_CODE = {t: ("<=", ">=", "=").index(sense) for t, sense in SENSES.items()}
_NAMES = re.compile(f"(?:(?![\\d.]){NAME_RE}\n)*")


def _check_names(names: list[str]) -> None:
    """Each one name token that the full reader reads as a name (one regex pass for all)."""
    if _NAMES.fullmatch("\n".join(names) + "\n") is None \
            or not _NOT_NAMES.isdisjoint(map(str.lower, names)):
        raise _Fallback


def _pick(toks: list[str], at: np.ndarray) -> list[str]:
    """``toks`` at the positions ``at``."""
    if at.size > 1:
        return list(itemgetter(*at.tolist())(toks))
    return [toks[int(i)] for i in at]


class _Fallback(Exception):
    """The file needs the full reader."""


def _number(t: str) -> float:
    """A chunk that the tokeniser cuts as one number token (float() alone also takes "1_0")."""
    if t[0] not in _DIGITS or not _NUMBER_CHARS.issuperset(t):
        raise _Fallback
    try:
        return float(t)
    except ValueError:
        raise _Fallback from None


def _value(t: str) -> float:
    """A right-hand side or bound: a number or an infinity word, maybe with a sign joined."""
    sign = 1.0
    if t[0] in "+-" and len(t) > 1:
        sign, t = (-1.0 if t[0] == "-" else 1.0), t[1:]
    if t[0] in _DIGITS:
        return sign * _number(t)
    if t.lower() in _INF:
        return sign * INF
    raise _Fallback


class _Reader:
    """One file's tokens into a builder."""

    def __init__(self) -> None:
        self.b = ModelBuilder()
        self.index = self.b.index

    def var(self, t: str) -> int:
        """The index of a new name (checked to be one name token the full reader reads so)."""
        if _NAME.fullmatch(t) is None or t.lower() in _NOT_NAMES:
            raise _Fallback
        return self.b.var(t)

    def label(self, t: str) -> str:
        name = t[:-1]
        if _NAME.fullmatch(name) is None or name.lower() in _NOT_NAMES:
            raise _Fallback
        return name

    def linear(self, text: str, toks: list[str], objective: bool) -> bool:
        """An objective or Subject To section without quadratic brackets, read in bulk: token
        classes from their characters, the section's grammar checked by one regular expression
        over the classes, terms gathered with numpy. False: brackets, for :meth:`expression`."""
        if not toks:
            return True
        chars = np.frombuffer(text.encode("ascii"), dtype=np.uint8)
        edge = np.diff(_SPACE[chars], prepend=1, append=1)  # -1 where a token starts, 1 after
        starts, ends = np.flatnonzero(edge == -1), np.flatnonzero(edge == 1)
        n = len(toks)
        cls = _CLASS[chars[starts]]
        long = ends - starts > 1
        cls[long & ((cls == _PLUS) | (cls == _MINUS))] = _M
        cls[long & (chars[ends - 1] == _COLON)] = _L
        shape = cls.tobytes().decode("ascii")
        if "[" in shape or "]" in shape or "^" in shape or "*" in shape or "/" in shape:
            return False
        if (_OBJECTIVE if objective else _ROWS).fullmatch(shape) is None:
            raise _Fallback
        b, index = self.b, self.index
        is_term = cls == _V
        rhs_at = np.zeros(n + 2, dtype=bool)  # shifted by two, as ``pad`` below
        if not objective:
            rp = np.flatnonzero(cls == _R)
            signed = (cls[rp + 1] == _PLUS) | (cls[rp + 1] == _MINUS)
            value_at = rp + 1 + signed
            is_term[value_at] = False  # an infinity word on the right-hand side
            rhs_at[value_at + 2] = True
        tp = np.flatnonzero(is_term)
        pad = np.concatenate([np.zeros(2, dtype=np.uint8), cls])
        coef = (pad[tp + 1] == _N) & ~rhs_at[tp + 1]  # a number right before the name
        negative = np.where(coef, pad[tp], pad[tp + 1]) == _MINUS
        vals = np.ones(tp.size)
        cpos = tp[coef] - 1
        if cpos.size:
            underscores = np.concatenate([[0], np.cumsum(chars == _UNDERSCORE)])
            if (underscores[ends[cpos]] != underscores[starts[cpos]]).any():
                raise _Fallback  # float() takes "1_0", the tokeniser cuts it in two
            try:
                vals[coef] = list(map(float, _pick(toks, cpos)))
            except ValueError:
                raise _Fallback from None
        vals = np.where(negative, -vals, vals)  # sign * value, sign being -1.0 or 1.0
        names = _pick(toks, tp)
        new = [name for name in dict.fromkeys(names) if name not in index]
        if new:
            _check_names(new)
            b.add_vars(new)
        cols = list(map(index.__getitem__, names))
        if objective:
            if toks[0][-1] == ":":
                _check_names([toks[0][:-1]])
            obj = b.obj
            for k, v in zip(cols, vals.tolist(), strict=True):
                obj[k] = obj.get(k, 0.0) + v
            return True
        labels: list[str | None] = [None] * rp.size
        lp = np.flatnonzero(cls == _L)
        if lp.size:
            named = [t[:-1] for t in _pick(toks, lp)]
            _check_names(named)
            for r, name in zip(np.searchsorted(rp, lp).tolist(), named, strict=True):
                labels[r] = name
        senses = _pick(toks, rp)
        if not _SENSE_CODE.keys() >= set(senses):
            raise _Fallback
        # The right-hand sides, each a number or an infinity word with at most one sign: as
        # the full reader's sign times value, float() of the joined text.
        rhs = _pick(toks, value_at)
        for k in np.flatnonzero(signed).tolist():
            rhs[k] = toks[value_at[k] - 1] + rhs[k]
        joined = "\n".join(rhs).lower()
        if "_" in joined or "nan" in joined or "+-" in joined or "-+" in joined \
                or "--" in joined or "++" in joined:
            raise _Fallback
        try:
            v = np.array(list(map(float, rhs)), dtype=np.float64)
        except ValueError:
            raise _Fallback from None
        code = np.array(list(map(_SENSE_CODE.__getitem__, senses)), dtype=np.int8)
        le, ge = code == 0, code == 1
        # bounds_from, element-wise
        lo = np.where(le, -INF, np.where(ge & (v <= -BIG), -INF, v))
        hi = np.where(ge, INF, np.where(le & (v >= BIG), INF, v))
        base = len(b.row_names)
        b.add_rows(labels, lo.tolist(), hi.tolist())
        b.a_rows.extend((np.searchsorted(rp, tp) + base).tolist())
        b.a_cols.extend(cols)
        b.a_vals.extend(vals.tolist())
        return True

    def expression(self, toks: list[str], objective: bool) -> None:
        """An objective, or a Subject To section: rows of terms, each ended by a comparison."""
        b, index = self.b, self.index
        a_rows, a_cols, a_vals, obj = b.a_rows, b.a_cols, b.a_vals, b.obj
        n, i = len(toks), 0
        if objective and n and toks[0][-1] == ":":
            self.label(toks[0])
            i = 1
        while i < n:
            row = -1
            if not objective:
                label = self.label(toks[i]) if toks[i][-1] == ":" else None
                i += label is not None
                row = b.add_row(label, -INF, INF)
            first = True
            while i < n:
                t = toks[i]
                if t in SENSES:
                    break
                if t == "-" or t == "+":
                    sign = -1.0 if t == "-" else 1.0
                    i += 1
                    if i == n:
                        raise _Fallback
                    t = toks[i]
                elif first:
                    sign = 1.0
                else:
                    raise _Fallback
                first = False
                if t[0] in _DIGITS:
                    coef = sign * _number(t)
                    i += 1
                    if i == n:
                        raise _Fallback
                    t = toks[i]
                elif t == "[":
                    i = self.quadratic(toks, i + 1, sign, None if objective else row)
                    continue
                else:
                    coef = sign
                k = index.get(t)
                if k is None:
                    k = self.var(t)
                if objective:
                    obj[k] = obj.get(k, 0.0) + coef
                else:
                    a_rows.append(row)
                    a_cols.append(k)
                    a_vals.append(coef)
                i += 1
            if objective:
                if i < n:
                    raise _Fallback  # a comparison in the objective
                return
            if i + 1 >= n:
                raise _Fallback
            sense, t = SENSES[toks[i]], toks[i + 1]
            i += 2
            if t == "-" or t == "+":
                if i == n:
                    raise _Fallback
                t, i = t + toks[i], i + 1
                if t[1] in "+-":
                    raise _Fallback
            b.row_lo[row], b.row_hi[row] = bounds_from(sense, _value(t), flipped=False)

    def quadratic(self, toks: list[str], i: int, outer: float, row: int | None) -> int:
        """``[ ... ]`` (maybe ``/ d``) after the opening bracket; returns the next position."""
        b, index, n = self.b, self.index, len(toks)
        terms: list[tuple[int, int, float]] = []
        first = True
        while True:
            if i >= n:
                raise _Fallback
            t = toks[i]
            if t == "]":
                i += 1
                break
            if t == "-" or t == "+":
                coef = -1.0 if t == "-" else 1.0
                i += 1
                t = toks[i] if i < n else "]"
            elif first:
                coef = 1.0
            else:
                raise _Fallback
            first = False
            if t[0] in _DIGITS:
                coef = coef * _number(t)
                i += 1
                t = toks[i] if i < n else "]"
            a = index.get(t)
            if a is None:
                a = self.var(t)
            op = toks[i + 1] if i + 1 < n else ""
            if op == "^2":
                terms.append((a, a, coef))
                i += 2
            elif op == "^" and i + 2 < n and toks[i + 2] == "2":
                terms.append((a, a, coef))
                i += 3
            elif op == "*" and i + 2 < n:
                other = toks[i + 2]
                j = index.get(other)
                if j is None:
                    j = self.var(other)
                terms.append((a, j, coef))
                i += 3
            else:
                raise _Fallback
        divisor = 1.0
        if i < n and toks[i] == "/":
            if i + 1 >= n:
                raise _Fallback
            divisor = _number(toks[i + 1])
            if divisor == 0 or divisor == INF:
                raise _Fallback
            i += 2
        scale = outer / divisor
        if row is None:
            b.qobj.extend((x, y, c * scale) for x, y, c in terms)
        else:
            b.qrows.extend((row, x, y, c * scale) for x, y, c in terms)
        return i

    def bounds(self, toks: list[str]) -> None:
        """``x <= v``, ``x >= v``, ``x = v``, ``x free``, ``v <= x [<= w]``."""
        b, index = self.b, self.index
        items: list[tuple[str, object]] = []
        sign = ""
        for t in toks:
            if sign:
                t, sign = sign + t, ""
                if t[1] in "+-":
                    raise _Fallback
            if t in SENSES:
                items.append(("S", SENSES[t]))
            elif t == "-" or t == "+":
                sign = t
            elif t[0] in _DIGITS or t[0] in "+-" or t.lower() in _INF:
                items.append(("V", _value(t)))
            else:
                items.append(("N", t))
        if sign:
            raise _Fallback
        n, pos = len(items), 0

        def var(t: object) -> int:
            k = index.get(t)  # type: ignore[call-overload]
            return self.var(t) if k is None else k  # type: ignore[arg-type]

        while pos < n:
            kind, x = items[pos]
            nxt = items[pos + 1] if pos + 1 < n else ("", "")
            if kind == "N":
                k = var(x)
                if nxt[0] == "N" and str(nxt[1]).lower() == "free":
                    b.lb[k], b.ub[k] = -INF, INF
                    pos += 2
                    continue
                if pos + 2 >= n or nxt[0] != "S" or items[pos + 2][0] != "V" \
                        or not set_bound(b, k, nxt[1], items[pos + 2][1]):  # type: ignore[arg-type]
                    raise _Fallback
                pos += 3
                continue
            if kind != "V" or pos + 2 >= n or nxt[0] != "S" or items[pos + 2][0] != "N":
                raise _Fallback
            k = var(items[pos + 2][1])
            if not set_bound(b, k, FLIPPED[nxt[1]], x):  # type: ignore[index,arg-type]
                raise _Fallback
            pos += 3
            if pos < n and items[pos][0] == "S":
                if pos + 1 >= n or items[pos + 1][0] != "V" \
                        or not set_bound(b, k, items[pos][1], items[pos + 1][1]):  # type: ignore[arg-type]
                    raise _Fallback
                pos += 2

    def declarations(self, toks: list[str], vtype: str) -> None:
        b, index = self.b, self.index
        for t in toks:
            k = index.get(t)
            declare(b, self.var(t) if k is None else k, vtype)


def _sections(text: str) -> tuple[list[tuple[str, str]], str]:
    """(kind, text) per section up to End, and the model name of a leading comment."""
    name = ""
    lines = text.split("\n")
    heads = [i for i, line in enumerate(lines) if line and not line[0].isspace()]
    out: list[tuple[str, list[list[str]]]] = []
    body: list[list[str]] | None = None
    after = 0
    for i in (*heads, len(lines)):
        if after < i:  # indented or blank lines
            if body is not None:
                body.append(lines[after:i])
            elif "".join(lines[after:i]).strip():
                raise _Fallback
        if i == len(lines):
            break
        line, after = lines[i], i + 1
        if line[0] == "\\":
            if not out and not name and line[1:].strip().startswith("Model "):
                name = line[1:].strip()[6:].strip()
            continue
        kind = HEADERS.get(" ".join(line.split()).lower())
        if kind is None or kind == "semi":
            raise _Fallback
        if kind == "end":
            break
        body = []
        out.append((kind, body))
    if not out or out[0][0] not in ("min", "max") or any(
            kind in ("min", "max") for kind, _ in out[1:]):
        raise _Fallback  # no objective first, or a second one: the full reader says so
    sections = []
    for kind, chunks in out:
        section = "\n".join(chain.from_iterable(chunks))
        if "\\" in section:
            raise _Fallback  # a comment after something: the full reader cuts it
        sections.append((kind, section))
    return sections, name


def read_fast(text: str, path: str) -> CanonicalModel | None:
    """The model, or None when the file needs the full reader (see the module docstring)."""
    if not text.isascii() or any(c in text for c in "\r\x0b\x0c\x1c\x1d\x1e"):
        return None  # other line breaks than "\n" (str.splitlines'), non-ASCII digits or spaces
    try:
        sections, name = _sections(text)
        r = _Reader()
        r.b.name = name
        for kind, section in sections:
            toks = section.split()
            if kind in ("min", "max"):
                r.b.sense = kind
                if not r.linear(section, toks, objective=True):
                    r.expression(toks, objective=True)
            elif kind == "rows":
                if not r.linear(section, toks, objective=False):
                    r.expression(toks, objective=False)
            elif kind == "bounds":
                r.bounds(toks)
            else:
                r.declarations(toks, DECLARED[kind])
        return r.b.build()
    except (_Fallback, ValueError):
        return None
