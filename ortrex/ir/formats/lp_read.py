"""Reader for the LP format as Gurobi (and CPLEX) write it: bracketed names, quadratic terms,
semi-continuous sections, a section's first line on its header's line.

Where HiGHS and Gurobi read a file differently, the reader says so in one warning line
(``ModelFileWarning``): a constant on a row's left-hand side is dropped, as HiGHS drops it (Gurobi
reads a variable named by the number, with the same optimum as a rule); a constant in the
objective is its constant, as HiGHS reads it (Gurobi again reads a variable).
"""

from __future__ import annotations

import math

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder
from ortrex.ir.formats.errors import ModelFileError, Notes, UnsupportedFeatureError
from ortrex.ir.formats.lp_fast import read_fast
from ortrex.ir.formats.lp_syntax import (
    DECLARED,
    FLIPPED,
    HEAD_WORDS,
    HEADERS,
    INF,
    INF_WORDS,
    INLINE,
    NUMBER_START,
    OPS,
    SENSES,
    TOKEN,
    UNSUPPORTED,
    bounds_from,
    declare,
    set_bound,
)


class _Section:
    __slots__ = ("kind", "line", "lines", "toks")

    def __init__(self, kind: str, line: int) -> None:
        self.kind = kind
        self.line = line
        self.toks: list[str] = []
        self.lines: list[int] = []


def _split_sections(text: str, path: str) -> tuple[list[_Section], str]:
    """Sections with their tokens, and the model name of a leading ``\\ Model <name>`` comment."""
    sections: list[_Section] = []
    current: _Section | None = None
    findall = TOKEN.findall
    name = ""
    for lineno, raw in enumerate(text.splitlines(), start=1):
        cut = raw.find("\\")
        if cut == 0 and current is None and not name and raw[1:].strip().startswith("Model "):
            name = raw[1:].strip()[6:].strip()
        whole = raw if cut < 0 else raw[:cut]
        if not whole.strip():
            continue
        for piece in _pieces(whole):
            if piece is None:  # "End"
                return _check(sections, path), name
            line = piece
            head = _header(line) if not line[0].isspace() else None
            if head is not None:
                kind, rest = head
                if kind == "end":
                    return _check(sections, path), name
                current = _Section(kind, lineno)
                sections.append(current)
                if not rest.strip():
                    continue
                line = " " + rest  # the section's first line, on its header's line
            elif not line[0].isspace():
                key = " ".join(line.split()).lower()
                if key in UNSUPPORTED:
                    raise UnsupportedFeatureError(path, f"{UNSUPPORTED[key]} are not "
                                                  "supported", lineno)
            if current is None:
                raise ModelFileError(
                    path, f"expected Minimize or Maximize before {line.strip()[:40]!r}", lineno
                )
            toks = findall(line)
            current.toks.extend(toks)
            current.lines.extend([lineno] * len(toks))
    return _check(sections, path), name


def _check(sections: list[_Section], path: str) -> list[_Section]:
    if not sections or sections[0].kind not in ("min", "max"):
        raise ModelFileError(path, "no Minimize or Maximize section: not an LP file")
    return sections


def _header(line: str) -> tuple[str, str] | None:
    """(section kind, the rest of the line) if ``line`` starts with a section header."""
    low = " ".join(line.split()).lower()
    for key in HEAD_WORDS:
        if low == key:
            return HEADERS[key], ""
        if low.startswith(key + " ") and not low[len(key) + 1:].lstrip().startswith(":"):
            # "Minimize -24 a + 5 b": the objective starts on the header's line. The rest is
            # cut from the line itself, so its spacing (and names) stay as written.
            words = len(key.split())
            rest = line.lstrip()
            for _ in range(words):
                rest = rest.lstrip()
                rest = rest[len(rest.split(None, 1)[0]):]
            return HEADERS[key], rest
    return None


def _pieces(line: str) -> list[str | None]:
    """A line cut where another section starts on it (None for a final ``End``)."""
    out: list[str | None] = []
    start = 0
    for m in INLINE.finditer(line):
        out.append(line[start:m.start()])
        if m.group(2):  # End
            out.append(None)
            return [p for p in out if p is None or p.strip()]
        start = m.start() + 1
    out.append(line[start:])
    return [p for p in out if p is None or p.strip()]


class _Parser:
    """Token-level parser of one LP file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.b = ModelBuilder()
        self.toks: list[str] = []
        self.lines: list[int] = []
        self.section_line = 0
        self.notes = Notes(path)

    def error(self, pos: int, message: str,
              cls: type[ModelFileError] = ModelFileError) -> ModelFileError:
        if pos < len(self.lines):
            line = self.lines[pos]
        else:
            line = self.lines[-1] if self.lines else self.section_line
        return cls(self.path, message, line)

    def tok(self, pos: int, what: str) -> str:
        if pos >= len(self.toks):
            raise self.error(pos, f"unexpected end of section: expected {what}")
        return self.toks[pos]

    def to_float(self, pos: int, t: str) -> float:
        """The value of a token that starts like a number (".x" does, and is neither)."""
        try:
            return float(t)
        except ValueError:
            raise self.error(pos, f"{t!r} is neither a number nor a name (a name cannot start "
                                  "with a digit or '.')") from None

    def number(self, pos: int, what: str) -> tuple[float, int]:
        """A signed number or infinity at ``pos``; returns (value, next position)."""
        sign = 1.0
        t = self.tok(pos, what)
        while t in ("+", "-"):
            if t == "-":
                sign = -sign
            pos += 1
            t = self.tok(pos, what)
        if t[0] in NUMBER_START:
            v = self.to_float(pos, t)
        elif t.lower() in INF_WORDS:
            v = INF
        elif t.lower() == "nan":
            raise self.error(pos, f"NaN where {what} was expected")
        else:
            raise self.error(pos, f"expected {what}, got {t!r}")
        return sign * v, pos + 1

    def is_name(self, t: str) -> bool:
        return t not in OPS and t[0] not in NUMBER_START

    def expression(self, pos: int, mode: str, row: int | None) -> tuple[int, float]:
        """Parse terms; returns (position after the expression, constant part).

        ``mode`` says where the expression ends: ``objective`` at the section end, ``row`` at a
        comparison (required), ``open`` at a comparison or at anything that cannot continue it.
        """
        toks, n, b = self.toks, len(self.toks), self.b
        var = b.var
        constant = 0.0
        first = True
        if row is None:
            obj = b.obj
        else:
            a_rows, a_cols, a_vals = b.a_rows, b.a_cols, b.a_vals
        while pos < n:
            t = toks[pos]
            if t in SENSES:
                if mode != "objective":
                    return pos, constant
                raise self.error(pos, f"unexpected {t!r} in the objective")
            sign = 1.0
            if t == "+" or t == "-":
                while t == "+" or t == "-":
                    if t == "-":
                        sign = -sign
                    pos += 1
                    t = self.tok(pos, "a term")
            elif t == "->":
                raise self.error(pos, "indicator constraints (->) are not supported",
                                 UnsupportedFeatureError)
            elif not first:
                if mode == "open":
                    return pos, constant
                if mode == "row":
                    raise self.error(pos, "constraint has no comparison (<=, >= or =)")
                if self.is_name(t) and pos + 1 < n and toks[pos + 1] == ":":
                    raise self.error(pos, f"unexpected label {t!r}: only one objective is allowed")
                raise self.error(pos, f"expected '+' or '-' before {t!r}")
            first = False
            if t == "[":
                pos = self.quadratic(pos + 1, sign, row)
                continue
            if t[0] in NUMBER_START:
                coef = sign * self.to_float(pos, t)
                pos += 1
                nxt = toks[pos] if pos < n else ""
                if nxt and self.is_name(nxt) and not (pos + 1 < n and toks[pos + 1] == ":"):
                    t, pos = nxt, pos + 1
                elif nxt == "[":
                    raise self.error(pos, "a coefficient cannot multiply a quadratic bracket")
                else:
                    constant += coef
                    continue
            elif t == "->":
                raise self.error(pos, "indicator constraints (->) are not supported",
                                 UnsupportedFeatureError)
            elif t in OPS:
                raise self.error(pos, f"expected a term, got {t!r}")
            else:
                low = t.lower()
                if (low in ("nan", "inf", "infinity") and pos + 1 < n
                        and self.is_name(toks[pos + 1])):
                    what = "NaN" if low == "nan" else "infinite"
                    raise self.error(pos, f"{what} coefficient of {toks[pos + 1]!r}")
                coef = sign
                pos += 1
            if pos < n and toks[pos] in ("*", "^"):
                raise self.error(pos, "quadratic terms must be written inside [ ]")
            k = var(t)
            if row is None:
                obj[k] = obj.get(k, 0.0) + coef
            else:
                a_rows.append(row)
                a_cols.append(k)
                a_vals.append(coef)
        if mode == "row":
            raise self.error(pos, "constraint has no comparison (<=, >= or =)")
        return pos, constant

    def quadratic(self, pos: int, outer: float, row: int | None) -> int:
        """Parse ``[ ... ]`` (optionally ``/ 2``) after the opening bracket."""
        toks, b = self.toks, self.b
        terms: list[tuple[int, int, float]] = []
        first = True
        while True:
            t = self.tok(pos, "']'")
            if t == "]":
                pos += 1
                break
            sign = 1.0
            if t in ("+", "-"):
                while t in ("+", "-"):
                    if t == "-":
                        sign = -sign
                    pos += 1
                    t = self.tok(pos, "a quadratic term")
            elif not first:
                raise self.error(pos, f"expected '+' or '-' before {t!r} in a quadratic bracket")
            first = False
            coef = sign
            if t[0] in NUMBER_START:
                coef = sign * self.to_float(pos, t)
                pos += 1
                t = self.tok(pos, "a variable name")
            if not self.is_name(t):
                raise self.error(pos, f"expected a variable name, got {t!r}")
            i = b.var(t)
            op = self.tok(pos + 1, "'^' or '*'")
            if op == "^":
                if self.tok(pos + 2, "2") != "2":
                    raise self.error(pos + 2, "only squares (^2) are supported")
                terms.append((i, i, coef))
                pos += 3
            elif op == "*":
                other = self.tok(pos + 2, "a variable name")
                if not self.is_name(other):
                    raise self.error(pos + 2, f"expected a variable name, got {other!r}")
                terms.append((i, b.var(other), coef))
                pos += 3
            else:
                raise self.error(pos + 1, f"expected '^2' or '* name' after {t!r}, got {op!r}")
        divisor = 1.0
        if pos < len(toks) and toks[pos] == "/":
            divisor, pos = self.number(pos + 1, "a divisor")
            if divisor == 0 or not math.isfinite(divisor):
                raise self.error(pos - 1, f"invalid divisor {divisor}")
        b.add_quad(terms, outer / divisor, row)
        return pos

    def objective(self, sec: _Section) -> None:
        self.toks, self.lines = sec.toks, sec.lines
        self.b.sense = sec.kind
        pos = 0
        if len(self.toks) > 1 and self.toks[1] == ":":
            pos = 2
        _, constant = self.expression(pos, "objective", row=None)
        if constant:
            self.notes.add("a constant in the objective read as its constant, as HiGHS reads "
                           "it (Gurobi reads a variable named by the number)",
                           self.lines[0] if self.lines else sec.line, f"{constant:g}")
        self.b.constant += constant

    def constraints(self, sec: _Section) -> None:
        self.toks, self.lines = sec.toks, sec.lines
        toks, n, b = self.toks, len(self.toks), self.b
        pos = 0
        while pos < n:
            name = None
            if pos + 1 < n and toks[pos + 1] == ":":
                name = toks[pos]
                if not self.is_name(name):
                    raise self.error(pos, f"invalid constraint name {name!r}")
                pos += 2
            lower: tuple[float, str] | None = None
            t = self.tok(pos, "a constraint")
            if t[0] in NUMBER_START or t in ("+", "-") or t.lower() in INF_WORDS:
                # The bound written first: "lo <= expr" or "lo <= expr <= hi".
                try:
                    value, probe = self.number(pos, "a number")
                except ModelFileError:
                    probe = pos
                if probe > pos and probe < n and toks[probe] in SENSES:
                    lower = (value, SENSES[toks[probe]])
                    pos = probe + 1
            r = b.add_row(name, -INF, INF)
            at = self.lines[min(pos, len(self.lines) - 1)]
            pos, constant = self.expression(pos, "row" if lower is None else "open", row=r)
            if constant:
                # Not moved to the right-hand side: HiGHS drops it, Gurobi reads a variable
                # named by the number (free to cancel it), so both solve as if it were not
                # there.
                self.notes.add("constants on a row's left-hand side dropped, as HiGHS drops "
                               "them (Gurobi reads a variable named by the number); write "
                               "them on the right-hand side", at, f"{name or 'row'}: "
                               f"{constant:+g}")
                constant = 0.0
            if lower is None:
                sense = SENSES[toks[pos]]
                value, pos = self.number(pos + 1, "a right-hand side")
                lo, hi = bounds_from(sense, value - constant, flipped=False)
            else:
                lo, hi = bounds_from(lower[1], lower[0] - constant, flipped=True)
                if pos < n and toks[pos] in SENSES:
                    sense = SENSES[toks[pos]]
                    value, pos = self.number(pos + 1, "a right-hand side")
                    lo2, hi2 = bounds_from(sense, value - constant, flipped=False)
                    lo, hi = max(lo, lo2), min(hi, hi2)
            b.row_lo[r], b.row_hi[r] = lo, hi

    def bounds(self, sec: _Section) -> None:
        self.toks, self.lines = sec.toks, sec.lines
        toks, n, b = self.toks, len(self.toks), self.b
        pos = 0
        while pos < n:
            t = toks[pos]
            if self.is_name(t) and t.lower() not in INF_WORDS:
                k = b.var(t)
                if pos + 1 < n and toks[pos + 1].lower() == "free":
                    b.lb[k], b.ub[k] = -INF, INF
                    pos += 2
                    continue
                op = self.tok(pos + 1, "a comparison or 'free'")
                if op not in SENSES:
                    raise self.error(pos + 1, f"expected a comparison or 'free' after {t!r}")
                value, pos = self.number(pos + 2, "a bound")
                self._set_bound(k, SENSES[op], value, pos - 1)
                continue
            value, pos = self.number(pos, "a bound or a variable name")
            op = self.tok(pos, "a comparison")
            if op not in SENSES:
                raise self.error(pos, f"expected a comparison, got {op!r}")
            name = self.tok(pos + 1, "a variable name")
            if not self.is_name(name):
                raise self.error(pos + 1, f"expected a variable name, got {name!r}")
            k = b.var(name)
            flipped = FLIPPED[SENSES[op]]
            self._set_bound(k, flipped, value, pos)
            pos += 2
            if pos < n and toks[pos] in SENSES:
                op2 = SENSES[toks[pos]]
                value, pos = self.number(pos + 1, "a bound")
                self._set_bound(k, op2, value, pos - 1)

    def _set_bound(self, k: int, sense: str, value: float, pos: int) -> None:
        if not set_bound(self.b, k, sense, value):
            raise self.error(pos, f"cannot fix {self.b.names[k]!r} at an infinite value")

    def declarations(self, sec: _Section, vtype: str) -> None:
        self.toks, self.lines = sec.toks, sec.lines
        b = self.b
        for pos, t in enumerate(self.toks):
            if not self.is_name(t):
                raise self.error(pos, f"expected a variable name, got {t!r}")
            declare(b, b.var(t), vtype)


def parse_lp(text: str, path: str = "<string>") -> CanonicalModel:
    """Parse LP text; errors raise :class:`ModelFileError` with the line.

    Files in the common dialect go through the fast path; it hands every other file (and
    every file with an error or a warning to report) to :func:`parse_lp_full`.
    """
    model = read_fast(text, path)
    return parse_lp_full(text, path) if model is None else model


def parse_lp_full(text: str, path: str = "<string>") -> CanonicalModel:
    """The full LP reader: every dialect corner, errors and warnings naming the line."""
    sections, name = _split_sections(text, path)
    p = _Parser(path)
    p.b.name = name
    seen: set[str] = set()
    for sec in sections:
        p.section_line = sec.line
        if sec.kind in ("min", "max"):
            if seen & {"min", "max"}:
                raise ModelFileError(path, "a second objective section", sec.line)
            p.objective(sec)
        elif sec.kind == "rows":
            p.constraints(sec)
        elif sec.kind == "bounds":
            p.bounds(sec)
        else:
            p.declarations(sec, DECLARED[sec.kind])
        seen.add(sec.kind)
    for k, t in enumerate(p.b.types):
        if t in ("S", "N") and not p.b.ub[k] < INF:
            # HiGHS calls it unbounded, Gurobi takes a default: no reading agrees.
            raise ModelFileError(path, f"semi-continuous variable {p.b.names[k]!r} has no "
                                 "finite upper bound")
    p.notes.issue()
    try:
        return p.b.build()
    except ValueError as exc:
        raise ModelFileError(path, str(exc)) from None
