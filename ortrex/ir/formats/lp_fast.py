"""Fast path of the LP reader: tokens cut at whitespace, each checked to be one token.

It reads files in the common dialect (ASCII; every line a section header, a comment starting in
the first column, or an indented line of its section; tokens apart as Gurobi and ortrex write
them, a sign joined to a right-hand side or bound allowed) into the same builder as the full
reader, with the same tokens in the same order, through the same bound and declaration rules, so
the model is the same one. A whitespace-separated chunk is taken only when the full reader's
tokeniser would cut it as the same token(s); anything else returns None and the full reader reads
the file, so every error and every warning (constants, dialect corners) is the full reader's.
Where the compiled scanner is built (``_lpscan``), it reads the strictest common files whole
in C first, to canonical arrays; it refuses the rest, which the Python path below reads.
"""

from __future__ import annotations

import re
from itertools import repeat

from ortrex.ir.canonical import CSR, CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder, dedupe_names, fold_gurobi_idioms
from ortrex.ir.formats.lp_syntax import (
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


try:  # the compiled scanner, built on install where a C compiler is at hand
    from ortrex.ir.formats._lpscan import scan as _scan
except ImportError:  # pragma: no cover - the pure-Python path reads the same files
    _scan = None


class _Fallback(Exception):
    """The file needs the full reader."""


_NAMES = re.compile(f"(?:(?![\\d.]){NAME_RE}\n)*")
# The usual names (letters, digits, "_", ".", bracketed parts), a subset of _NAMES that the
# regular-expression engine checks three times faster.
_PLAIN_NAMES = re.compile(r"(?:[A-Za-z_][\w.]*(?:\[[^\s\]]*\][\w.]*)*\n)*", re.ASCII)


def _check_names(names: list[str]) -> None:
    """Each one name token that the full reader reads as a name (one regex pass for all)."""
    if not names:
        return
    joined = "\n".join(names) + "\n"
    if (_PLAIN_NAMES.fullmatch(joined) is None and _NAMES.fullmatch(joined) is None) \
            or not _NOT_NAMES.isdisjoint(map(str.lower, names)):
        raise _Fallback


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
        self.labels: list[str] = []  # checked at the end, with the variables' names

    def var(self, t: str) -> int:
        """The index of a new name (checked to be one name token the full reader reads so)."""
        if _NAME.fullmatch(t) is None or t.lower() in _NOT_NAMES:
            raise _Fallback
        return self.b.var(t)

    def objective(self, toks: list[str]) -> None:
        """The objective's terms (a label first, maybe)."""
        obj, index = self.b.obj, self.index
        get = index.get
        n, i = len(toks), 0
        if n and toks[0][-1] == ":":
            self.labels.append(toks[0][:-1])
            i = 1
        first = True
        while i < n:
            t = toks[i]
            if t == "-" or t == "+":
                neg = t == "-"
                i += 1
                t = toks[i]
            elif first:
                neg = False
            else:
                raise _Fallback
            first = False
            if t < ":":  # a number ("0"-"9", "."): float() refuses what starts so but is not one
                if "_" in t:
                    raise _Fallback  # float() takes "1_0", the tokeniser cuts it in two
                coef = -float(t) if neg else float(t)  # the full reader's sign * value
                i += 1
                t = toks[i]
            elif t == "[":
                self.b.sync()
                i = self.quadratic(toks, i + 1, -1.0 if neg else 1.0, None)
                continue
            else:
                coef = -1.0 if neg else 1.0
            k = get(t)
            if k is None:  # a new variable (named with the others, and checked, at the end)
                k = index[t] = len(index)
            obj[k] = obj.get(k, 0.0) + coef
            i += 1
        self.b.sync()

    def constraints(self, toks: list[str]) -> None:
        """Rows of terms, each ended by a comparison and its right-hand side."""
        b = self.b
        index = self.index
        get, add_col, add_val = index.get, b.a_cols.append, b.a_vals.append
        names: list[str | None] = []
        senses: list[str] = []
        rhs: list[str] = []
        ends: list[int] = []
        row, k = len(b.row_names), len(b.a_cols)  # k: terms so far
        n, i = len(toks), 0
        while i < n:
            t = toks[i]
            if t[-1] == ":":
                names.append(t[:-1])
                i += 1
                t = toks[i]
            else:
                names.append(None)
            if t in SENSES:  # a row without terms
                pass
            else:
                if t == "-" or t == "+":
                    neg = t == "-"
                    i += 1
                    t = toks[i]
                else:
                    neg = False
                while True:  # one term per turn; t is its first token after the sign
                    if t < ":":
                        if "_" in t:
                            raise _Fallback
                        coef = -float(t) if neg else float(t)
                        i += 1
                        t = toks[i]
                    elif t == "[":
                        b.sync()
                        i = self.quadratic(toks, i + 1, -1.0 if neg else 1.0, row)
                        t = toks[i]
                        if t == "-" or t == "+":
                            neg = t == "-"
                            i += 1
                            t = toks[i]
                            continue
                        break
                    else:
                        coef = -1.0 if neg else 1.0
                    c = get(t)
                    if c is None:
                        c = index[t] = len(index)
                    add_col(c)
                    add_val(coef)
                    k += 1
                    t = toks[i + 1]
                    i += 2
                    if t == "-":
                        neg = True
                    elif t == "+":
                        neg = False
                    else:
                        i -= 1
                        break
                    t = toks[i]
            if t not in SENSES:
                raise _Fallback
            senses.append(t)
            t = toks[i + 1]
            i += 2
            if t == "-" or t == "+":
                t += toks[i]
                i += 1
            rhs.append(t)
            ends.append(k)
            row += 1
        b.sync()
        # The right-hand sides: a number or an infinity word, one sign at most. float() of the
        # joined sign and value is the full reader's sign * value; it would also take "1_0"
        # and "nan", which the full reader refuses.
        joined = "\n".join(rhs).lower()
        if "_" in joined or "nan" in joined:
            raise _Fallback
        lows, highs = [], []
        for sense, v in zip(map(SENSES.__getitem__, senses), map(float, rhs), strict=True):
            lo, hi = bounds_from(sense, v, flipped=False)
            lows.append(lo)
            highs.append(hi)
        self.labels.extend(nm for nm in names if nm is not None)
        base, start = len(b.row_names), len(b.a_rows)
        b.add_rows(names, lows, highs)
        for r, end in enumerate(ends, start=base):
            b.a_rows.extend(repeat(r, end - start))
            start = end

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
        b.add_quad(terms, outer / divisor, row)
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


# Where a line starts at the first column (a header or a comment): read_fast has refused the
# other line breaks, and "\x1f" is whitespace to str.isspace, as to the full reader.
_HEAD = re.compile(r"\n[^ \t\n\x1f]")


def _sections(text: str) -> tuple[list[tuple[str, str]], str]:
    """(kind, text) per section up to End, and the model name of a leading comment."""
    name = ""
    # Found in C, without a list of every line: the starts of the first-column lines.
    heads = [m.start() + 1 for m in _HEAD.finditer(text)]
    if text and text[0] not in " \t\n\x1f":
        heads.insert(0, 0)
    out: list[tuple[str, list[str]]] = []
    body: list[str] | None = None
    after, n = 0, len(text)
    for i in (*heads, n + 1):
        if after < i:  # indented or blank lines, up to the "\n" before line i
            if body is not None:
                body.append(text[after:i - 1])
            elif text[after:i - 1].strip():
                raise _Fallback
        if i > n:
            break
        end = text.find("\n", i)
        end = n if end < 0 else end
        line, after = text[i:end], end + 1
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
        section = "\n".join(chunks)
        if "\\" in section:
            raise _Fallback  # a comment after something: the full reader cuts it
        sections.append((kind, section))
    return sections, name


def read_fast(text: str, path: str) -> CanonicalModel | None:
    """The model, or None when the file needs the full reader (see the module docstring)."""
    if not text.isascii() or any(c in text for c in "\r\x0b\x0c\x1c\x1d\x1e"):
        return None  # other line breaks than "\n" (str.splitlines'), non-ASCII digits or spaces
    scanned = _scan(text) if _scan is not None else None
    return read_python(text) if scanned is None else _from_scan(scanned)


def read_python(text: str) -> CanonicalModel | None:
    """The fast path in Python alone (what the compiled scanner must agree with)."""
    try:
        sections, name = _sections(text)
        r = _Reader()
        r.b.name = name
        for kind, section in sections:
            toks = section.split()
            if kind in ("min", "max"):
                r.b.sense = kind
                r.objective(toks)
            elif kind == "rows":
                r.constraints(toks)
            elif kind == "bounds":
                r.bounds(toks)
            else:
                r.declarations(toks, DECLARED[kind])
        _check_names(r.b.names)
        _check_names(r.labels)
        r.b.names_checked = True  # each one name token, unique by the builder's index
        return r.b.build()
    except (_Fallback, ValueError, IndexError):  # IndexError: a section ends mid-row
        return None


def _from_scan(scanned: tuple) -> CanonicalModel:
    """The model of a file the compiled scanner read."""
    (name, sense, names, types, lb, ub, obj, row_names, lo, hi, indptr, indices,
     data) = scanned
    if len(set(row_names)) < len(row_names):  # repeats get "#1", ... as the builder names them
        row_names = dedupe_names(row_names)
    model = CanonicalModel.trusted(
        var_names=names, var_types=types, lb=lb, ub=ub, obj=obj, sense=sense,
        csr=CSR(indptr, indices, data, (len(row_names), len(names))), row_names=row_names,
        row_lower=lo, row_upper=hi, name=name)
    return fold_gurobi_idioms(model)
