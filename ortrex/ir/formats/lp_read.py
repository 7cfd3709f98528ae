"""Reader for the LP format as Gurobi (and CPLEX) write it: bracketed names, quadratic terms,
semi-continuous sections, a section's first line on its header's line.

Names are read as Gurobi reads the ones it writes: one name runs to whitespace, "*" and "/"
inside it too (FLAV*1, B/A.GPBA), whatever it starts with (5C0ST, .ETHSD, rows named ``...`` or
``001``); in a term, what follows a coefficient is the name ("2 12"). A sign, a comparison, ":",
"^" or a bracket glued to a name still ends it ("x+y>=1" is read as HiGHS and CPLEX read it;
Gurobi takes "x+y" for one name).

Where HiGHS and Gurobi read a file differently, the reader says so in one warning line
(``ModelFileWarning``): a constant on a row's left-hand side is dropped, as HiGHS drops it (Gurobi
reads a variable named by the number, with the same optimum as a rule); a constant in the
objective is its constant, as HiGHS reads it (Gurobi again reads a variable); a name that starts
with a number is one name, as Gurobi reads it (HiGHS reads 21st_shift as 21 st_shift); a fraction
p/1 is p, as Gurobi reads it (HiGHS refuses it; other fractions are refused, Gurobi reading only
their numerator).
"""

from __future__ import annotations

import math
import re

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder
from ortrex.ir.formats.errors import ModelFileError, Notes, UnsupportedFeatureError
from ortrex.ir.formats.lp_fast import read_fast
from ortrex.ir.formats.lp_syntax import (
    DECLARED,
    FLIPPED,
    FRACTION,
    HEAD_WORDS,
    HEADERS,
    INF,
    INF_WORDS,
    INLINE,
    NUMBER,
    NUMBER_START,
    OPS,
    SENSES,
    TOKEN,
    UNSUPPORTED,
    bounds_from,
    declare,
    set_bound,
)


def _number(t: str) -> float | None:
    """The value of a token that starts like a number, None for a word (5C0ST, 53/1)."""
    # float() equals the tokeniser's number pattern here, less the "_" and non-ASCII digits
    # it also takes (a word keeps them: "1_0" is no number).
    if "_" in t or not t.isascii():
        return None
    try:
        return float(t)
    except ValueError:
        return None


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
            head = None
            if not line[0].isspace():
                # Before the headers: "General Constraints" is no "General" section.
                key = " ".join(line.split()).lower()
                if key in UNSUPPORTED:
                    raise UnsupportedFeatureError(path, f"{UNSUPPORTED[key]} are not "
                                                  "supported", lineno, UNSUPPORTED[key])
                head = _header(line)
            if head is not None:
                kind, rest = head
                if kind == "end":
                    return _check(sections, path), name
                current = _Section(kind, lineno)
                sections.append(current)
                if not rest.strip():
                    continue
                line = " " + rest  # the section's first line, on its header's line
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


_GUROBI_HEAD = re.compile(r"\A\s*\\ (?:Model |LP format - for model browsing)")


class _Parser:
    """Token-level parser of one LP file."""

    def __init__(self, path: str) -> None:
        self.path = path
        self.b = ModelBuilder()
        self.toks: list[str] = []
        self.lines: list[int] = []
        self.section_line = 0
        self.notes = Notes(path)
        self.after_rhs: tuple[str, int] | None = None  # (right-hand side, where a row follows)
        # Written by Gurobi (its header): a word that starts with a number is one name, as
        # Gurobi reads it (5C0ST, 1st_shift). Elsewhere "2y" is 2 times y, as CPLEX, HiGHS
        # and people writing LP by hand mean it.
        self.gurobi = True

    def error(self, pos: int, message: str) -> ModelFileError:
        return ModelFileError(self.path, message, self.line_at(pos))

    def indicator(self, pos: int) -> UnsupportedFeatureError:
        """The error for ``->``: the IR holds no indicator constraints."""
        return UnsupportedFeatureError(self.path, "indicator constraints (->) are not supported",
                                       self.line_at(pos), "indicator constraints")

    def tok(self, pos: int, what: str) -> str:
        if pos >= len(self.toks):
            raise self.error(pos, f"unexpected end of section: expected {what}")
        return self.toks[pos]

    def line_at(self, pos: int) -> int:
        """The line of token ``pos`` (the last token's past the end)."""
        if pos < len(self.lines):
            return self.lines[pos]
        return self.lines[-1] if self.lines else self.section_line

    def to_float(self, pos: int, t: str, what: str = "a number") -> float:
        """The value of a number token, or of a fraction ``p/1``; anything else is refused."""
        v = _number(t)
        if v is not None:
            return v
        m = FRACTION.fullmatch(t)
        if m is None:
            raise self.error(pos, f"{t!r} is not a number (expected {what})")
        if float(m.group(2)) != 1.0:
            raise self.error(pos, f"{t!r} is a fraction: write it as a decimal number (Gurobi "
                                  f"reads only its numerator, {m.group(1)}; HiGHS refuses it)")
        self.notes.add("fractions p/1 read as p, as Gurobi reads them (HiGHS refuses them)",
                       self.line_at(pos), t)
        return float(m.group(1))

    def is_value(self, t: str) -> bool:
        """A number token or a fraction (a word that starts with a digit is neither)."""
        return t[0] in NUMBER_START and (_number(t) is not None
                                         or FRACTION.fullmatch(t) is not None)

    def numeric_name(self, pos: int, t: str) -> None:
        """Note a variable whose name starts with a number (5C0ST, 1st_shift, 12)."""
        if t[0] in NUMBER_START and NUMBER.match(t):
            self.notes.add("names that start with a number read whole, as Gurobi reads them "
                           "(HiGHS reads the number as a coefficient, or refuses the name)",
                           self.line_at(pos), t)

    def term_follows(self, pos: int) -> bool:
        """Token ``pos`` is a term's name: no operator, no next row's label."""
        toks = self.toks
        return pos < len(toks) and toks[pos] not in OPS and not (
            pos + 1 < len(toks) and toks[pos + 1] == ":")

    def no_comparison(self, pos: int) -> ModelFileError:
        """The error for a row that ends without a comparison."""
        if self.after_rhs is not None:
            # Terms after a right-hand side start a row of their own, which has none.
            rhs, at = self.after_rhs
            return self.error(at, f"{self.toks[at]!r} after the right-hand side {rhs!r}: a "
                                  "right-hand side is one number (Gurobi and HiGHS take no "
                                  "variables there); move the terms to the left-hand side")
        return self.error(pos, "constraint has no comparison (<=, >= or =)")

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
            v = self.to_float(pos, t, what)
        elif t.lower() in INF_WORDS:
            v = INF
        elif t.lower() == "nan":
            raise self.error(pos, f"NaN where {what} was expected")
        elif what == "a right-hand side" and self.is_name(t):
            raise self.error(pos, f"variable {t!r} on the right-hand side: Gurobi and HiGHS "
                                  "take one number there; move it to the left-hand side")
        else:
            raise self.error(pos, f"expected {what}, got {t!r}")
        return sign * v, pos + 1

    def is_name(self, t: str) -> bool:
        # A word starting with a digit is a name (5C0ST), a number token is not.
        return t not in OPS and (t[0] not in NUMBER_START or _number(t) is None)

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
                raise self.indicator(pos)
            elif not first:
                if mode == "open":
                    return pos, constant
                if mode == "row":
                    raise self.no_comparison(pos)
                if self.is_name(t) and pos + 1 < n and toks[pos + 1] == ":":
                    raise self.error(pos, f"unexpected label {t!r}: only one objective is allowed")
                raise self.error(pos, f"expected '+' or '-' before {t!r}")
            first = False
            if t == "[":
                pos = self.quadratic(pos + 1, sign, row)
                continue
            v = None
            if t[0] in NUMBER_START:
                v = _number(t)
                if v is None and FRACTION.fullmatch(t) and self.term_follows(pos + 1):
                    v = self.to_float(pos, t, "a coefficient")  # p/1, or an error
            if v is not None:
                coef = sign * v
                pos += 1
                nxt = toks[pos] if pos < n else ""
                if nxt and nxt not in OPS and not (pos + 1 < n and toks[pos + 1] == ":"):
                    # Whatever follows a coefficient is the name, as Gurobi reads it: "2 12",
                    # "2 1st_shift" (HiGHS refuses both).
                    t, pos = nxt, pos + 1
                    if t[0] in NUMBER_START:
                        self.numeric_name(pos - 1, t)
                elif nxt == "[":
                    raise self.error(pos, "a coefficient cannot multiply a quadratic bracket")
                else:
                    constant += coef
                    continue
            elif t == "->":
                raise self.indicator(pos)
            elif t in OPS:
                raise self.error(pos, f"expected a term, got {t!r}")
            else:
                if t[0] in NUMBER_START:
                    if self.term_follows(pos + 1):
                        raise self.error(pos, f"coefficient {t!r} of {toks[pos + 1]!r} is not "
                                              "a number")
                    glued = NUMBER.match(t)
                    rest = t[glued.end():] if glued else ""
                    if not self.gurobi and glued and rest and self.is_name(rest) and \
                            rest[0] not in NUMBER_START and rest[0] != "/":
                        self.notes.add("a number glued to a name read as its coefficient, as "
                                       "CPLEX and HiGHS read it (Gurobi reads one name; files "
                                       "Gurobi writes keep that reading)", self.line_at(pos), t)
                        sign, t = sign * float(glued.group()), rest
                    else:
                        self.numeric_name(pos, t)  # one word: 5C0ST, 3e2x, as Gurobi reads
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
            raise self.no_comparison(pos)
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
            if self.is_value(t):
                coef = sign * self.to_float(pos, t, "a coefficient")
                pos += 1
                t = self.tok(pos, "a variable name")
            if not self.is_name(t):
                raise self.error(pos, f"expected a variable name, got {t!r}")
            op = self.tok(pos + 1, "'^' or '*'")
            if "*" in t and op not in ("^", "*"):
                pos = self.glued_product(pos, t, op, coef, terms)
                continue
            self.numeric_name(pos, t)
            i = b.var(t)
            if op == "^":
                if self.tok(pos + 2, "2") != "2":
                    raise self.error(pos + 2, "only squares (^2) are supported")
                terms.append((i, i, coef))
                pos += 3
            elif op == "*":
                other = self.tok(pos + 2, "a variable name")
                if not self.is_name(other):
                    raise self.error(pos + 2, f"expected a variable name, got {other!r}")
                self.numeric_name(pos + 2, other)
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

    def glued_product(self, pos: int, t: str, op: str, coef: float,
                      terms: list[tuple[int, int, float]]) -> int:
        """``x*y`` or ``x* y`` in a bracket: the product; returns the next position."""
        # A name with "*" (FLAV*1) is one only before "^2" or "* name": a word left alone in a
        # bracket is no term for any reader, so it is read as the product it was before.
        a, _, c = t.partition("*")
        step = 1
        if not c:
            c, step = op, 2  # "x* y"
        if not (a and self.is_name(c) and "*" not in c):
            raise self.error(pos, f"expected '^2' or '* name' after {t!r}, got {op!r}")
        self.numeric_name(pos, a)
        self.numeric_name(pos + step - 1, c)
        terms.append((self.b.var(a), self.b.var(c), coef))
        return pos + step

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
        rhs: str | None = None  # the previous row's right-hand side, if it ended one
        while pos < n:
            name = None
            if pos + 1 < n and toks[pos + 1] == ":":
                # Any word labels a row, as in Gurobi and HiGHS: 001, 2, ..., 5C0ST.
                name = toks[pos]
                if name in OPS:
                    raise self.error(pos, f"invalid constraint name {name!r}")
                pos += 2
            self.after_rhs = (rhs, pos) if name is None and rhs is not None else None
            lower: tuple[float, str] | None = None
            self.tok(pos, "a constraint")  # a label must be followed by its row
            p = pos
            while p < n and toks[p] in ("+", "-"):
                p += 1
            if p + 1 < n and toks[p + 1] in SENSES and (
                    self.is_value(toks[p]) or toks[p].lower() in INF_WORDS):
                # The bound written first: "lo <= expr" or "lo <= expr <= hi".
                value, probe = self.number(pos, "a number")
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
            rhs = None
            if lower is None:
                sense = SENSES[toks[pos]]
                value, pos = self.number(pos + 1, "a right-hand side")
                rhs = toks[pos - 1]
                lo, hi = bounds_from(sense, value - constant, flipped=False)
            else:
                lo, hi = bounds_from(lower[1], lower[0] - constant, flipped=True)
                if pos < n and toks[pos] in SENSES:
                    sense = SENSES[toks[pos]]
                    value, pos = self.number(pos + 1, "a right-hand side")
                    rhs = toks[pos - 1]
                    lo2, hi2 = bounds_from(sense, value - constant, flipped=False)
                    lo, hi = max(lo, lo2), min(hi, hi2)
            b.row_lo[r], b.row_hi[r] = lo, hi
        self.after_rhs = None

    def bounds(self, sec: _Section) -> None:
        self.toks, self.lines = sec.toks, sec.lines
        toks, n, b = self.toks, len(self.toks), self.b
        pos = 0
        while pos < n:
            t = toks[pos]
            if self.is_name(t) and t.lower() not in INF_WORDS and not FRACTION.fullmatch(t):
                self.numeric_name(pos, t)
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
            self.numeric_name(pos + 1, name)
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
            if t[0] in NUMBER_START:
                self.numeric_name(pos, t)
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
    p.gurobi = _GUROBI_HEAD.match(text) is not None
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
