"""Reader for MPS files, free and fixed, with RANGES, integer markers, semi-continuous and
semi-integer bounds and quadratic sections.

Where a file has what the solvers read with a warning, the reader does what HiGHS and Gurobi
do and says so in one warning line per file (``ModelFileWarning``): a repeated entry keeps its
first value, an entry for an undeclared row is ignored, a repeated bound keeps the first. Where
they read a file differently, the reader takes the reading that keeps the file's meaning and
names the other: a Fortran exponent ``1.0D3`` is 1000 (as HiGHS reads it; Gurobi reads 1.0),
an integer column with an SC bound is semi-integer (as Gurobi reads it; HiGHS drops the
integrality), a negative UP bound on a column with the default lower bound makes that bound -inf
(the MPS convention, as Gurobi reads it; HiGHS keeps 0, and the column has no value). ``$`` starts
a comment (as Gurobi reads it).
"""

from __future__ import annotations

import math
import re

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder
from ortrex.ir.formats.errors import ModelFileError, Notes, UnsupportedFeatureError

INF = math.inf
BIG = 1e30

_SECTIONS = {
    "NAME", "OBJSENSE", "OBJSENCE", "OBJNAME", "ROWS", "COLUMNS", "RHS", "RANGES", "BOUNDS",
    "QUADOBJ", "QMATRIX", "QSECTION", "QCMATRIX", "ENDATA",
}
_UNSUPPORTED = {
    "SOS": "SOS constraints",
    "INDICATORS": "indicator constraints",
    "GENCONS": "general constraints",
    "PWLOBJ": "piecewise-linear objectives",
    "LAZYCONS": "lazy constraints",
    "USERCUTS": "user cuts",
    "CSECTION": "conic constraints",
    "OBJSENSE_MULTI": "multiple objectives",
    "SCENARIOS": "multiple scenarios",
}
# Fixed-format field columns (0-based, end exclusive): type, name1, name2, value1, name3, value2.
_FIXED = ((1, 3), (4, 12), (14, 22), (24, 36), (39, 47), (49, 61))
_FORTRAN = re.compile(r"^[-+]?(?:\d+\.?\d*|\.\d+)[dD][-+]?\d+$")
_DOLLAR = re.compile(r"\s\$.*$")  # an inline comment: a field starting with $


def _fixed_fields(line: str) -> list[str]:
    out = [line[a:b].strip() for a, b in _FIXED]
    while out and not out[-1]:
        out.pop()
    return out


class _MpsParser:
    def __init__(self, path: str, fixed: bool) -> None:
        self.path = path
        self.fixed = fixed
        self.b = ModelBuilder()
        self.row_kind: dict[str, str] = {}
        self.row_index: dict[str, int] = {}
        self.obj_row: str | None = None
        self.free_rows: set[str] = set()
        self.explicit_lb: set[int] = set()
        self.bounded: set[int] = set()
        self.marker_int: set[int] = set()
        self.range_values: dict[str, float] = {}
        self.integer = False
        self.line = 0
        self.notes = Notes(path)
        self.entries: set[tuple[int, int]] = set()  # (column, row) pairs given so far
        self.obj_given: set[int] = set()
        self.rhs_given: set[str] = set()
        self.bound_given: set[tuple[int, str]] = set()  # (column, "lb" | "ub")
        self.neg_up: dict[int, tuple[int, str]] = {}  # column -> (line, bound) made lb -inf
        self.full: dict[tuple[str, str], list[tuple[int, int, float, int]]] = {}

    def error(self, message: str) -> ModelFileError:
        return ModelFileError(self.path, message, self.line)

    def num(self, text: str, what: str) -> float:
        try:
            v = float(text)
        except ValueError:
            if not _FORTRAN.match(text):
                raise self.error(f"expected a number for {what}, got {text!r}") from None
            v = float(text.replace("D", "E").replace("d", "e"))
            self.notes.add("Fortran exponents read as powers of ten, as HiGHS reads them "
                           "(Gurobi reads only the digits before the D)", self.line, text)
        if math.isnan(v):
            raise self.error(f"{what} is NaN")
        return v

    def fields(self, line: str, section: str = "") -> list[str]:
        line = _DOLLAR.sub("", line)
        if "*" in line:  # "*Comment" after a line's fields (a row may be named *OBJ*)
            words = line.split()
            for k in range(2, len(words)):
                if words[k].startswith("*") and (section == "ROWS" or _is_number(words[k - 1])):
                    line = line[:line.index(words[k], len(" ".join(words[:k])))]
                    break
        if not self.fixed or "'MARKER'" in line:
            return line.split()
        f = _fixed_fields(line)
        return f[1:] if f and not f[0] else f

    def parse(self, text: str) -> CanonicalModel:
        try:
            return self._parse(text)
        except (ModelFileError, UnsupportedFeatureError):
            raise
        except (IndexError, KeyError, ValueError, TypeError, OverflowError) as exc:
            # Whatever the bytes are, the reader names a line; it never raises anything else.
            raise self.error(f"unreadable line ({type(exc).__name__}: {exc})"[:200]) from None

    def _parse(self, text: str) -> CanonicalModel:
        section = None
        q_row: str | None = None
        b = self.b
        for lineno, raw in enumerate(text.splitlines(), start=1):
            self.line = lineno
            if not raw.strip() or raw.startswith("*"):
                continue
            if not raw[0].isspace():
                words = _DOLLAR.sub("", raw).split()
                head = words[0].upper()
                if head in _UNSUPPORTED:
                    raise UnsupportedFeatureError(self.path, f"{_UNSUPPORTED[head]} are not "
                                                  "supported", self.line,
                                                  feature=_UNSUPPORTED[head])
                if head not in _SECTIONS:
                    raise self.error(f"unknown MPS section {words[0]!r}")
                section = head
                if head == "ENDATA":
                    break
                if head == "NAME":
                    b.name = raw[4:].strip() if self.fixed else " ".join(words[1:])
                elif head in ("OBJSENSE", "OBJSENCE") and len(words) > 1:
                    self.sense(words[1])
                elif head in ("QCMATRIX", "QSECTION"):
                    if len(words) < 2:
                        raise self.error(f"{head} needs a row name")
                    q_row = words[1]
                    if q_row not in self.row_kind:
                        raise self.error(f"{head} refers to unknown row {q_row!r}")
                    if head == "QSECTION" and q_row != self.obj_row:
                        # HiGHS reads no quadratic rows, Gurobi's reading of QSECTION on a
                        # row matches no documented convention: refused, never guessed.
                        raise self.error(f"QSECTION on constraint row {q_row!r}: write it as "
                                         "QCMATRIX (the full symmetric matrix)")
                continue
            if section is None:
                raise self.error("data before the first section: not an MPS file")
            f = self.fields(raw, section)
            if not f:  # a line of nothing but a comment ("$..."), or one cut by it
                raise self.error(f"a {section} line holds no field")
            if section in ("OBJSENSE", "OBJSENCE"):
                self.sense(f[0])
            elif section == "OBJNAME":
                continue
            elif section == "ROWS":
                self.rows(f)
            elif section == "COLUMNS":
                self.columns(f)
            elif section == "RHS":
                self.rhs(f)
            elif section == "RANGES":
                self.ranges(f)
            elif section == "BOUNDS":
                self.bounds(f)
            elif section in ("QUADOBJ", "QMATRIX", "QSECTION", "QCMATRIX"):
                self.quadratic(f, section, q_row)
        if section != "ENDATA":
            if section is None:
                raise ModelFileError(self.path, "no MPS sections found: not an MPS file")
            raise ModelFileError(self.path, "missing ENDATA: the file is truncated")
        self.finish()
        self.symmetric()
        try:
            return b.build()  # the caller issues the notes of the reading it keeps
        except ValueError as exc:
            raise ModelFileError(self.path, str(exc)) from None

    def sense(self, word: str) -> None:
        w = word.upper()
        if w in ("MAX", "MAXIMIZE", "MAXIMISE"):
            self.b.sense = "max"
        elif w in ("MIN", "MINIMIZE", "MINIMISE"):
            self.b.sense = "min"
        else:
            raise self.error(f"unknown objective sense {word!r}")

    def rows(self, f: list[str]) -> None:
        if len(f) > 2 and f[0].upper() == "N":
            # Gurobi's multi-objective rows: N, name, priority, weight, tolerances.
            raise UnsupportedFeatureError(self.path, "multiple objectives are not supported",
                                          self.line, feature="multiple objectives")
        if len(f) != 2:
            raise self.error("ROWS lines need a type (N, L, G, E) and a name")
        kind, name = f[0].upper(), f[1]
        if kind not in ("N", "L", "G", "E"):
            raise self.error(f"unknown row type {f[0]!r}")
        if name in self.row_kind:
            raise self.error(f"duplicate row name {name!r}")
        self.row_kind[name] = kind
        if kind == "N":
            if self.obj_row is None:
                self.obj_row = name
            else:
                self.free_rows.add(name)  # extra free rows carry no constraint
            return
        lo, hi = {"L": (-INF, 0.0), "G": (0.0, INF), "E": (0.0, 0.0)}[kind]
        self.row_index[name] = self.b.add_row(name, lo, hi)

    def _pairs(self, f: list[str], start: int, what: str) -> list[tuple[str, float]]:
        rest = f[start:]
        if len(rest) not in (2, 4):
            raise self.error(f"{what} lines need one or two (row, value) pairs")
        return [(rest[k], self.num(rest[k + 1], f"{what} value")) for k in (0, 2)[: len(rest) // 2]]

    def columns(self, f: list[str]) -> None:
        if len(f) >= 3 and f[1].strip("'\"").upper() == "MARKER":
            tag = f[2].strip("'\"").upper()
            if tag not in ("INTORG", "INTEND"):
                raise self.error(f"unknown marker {f[2]!r}")
            self.integer = tag == "INTORG"
            return
        if len(f) < 3:
            raise self.error("COLUMNS lines need a column, a row and a value")
        b = self.b
        k = b.var(f[0])
        if self.integer and b.types[k] == "C":
            b.types[k] = "I"
            self.marker_int.add(k)
        for row, v in self._pairs(f, 1, "COLUMNS"):
            if row == self.obj_row:
                if k in self.obj_given:
                    self.repeated(f"{f[0]} {row}")
                    continue
                self.obj_given.add(k)
                b.obj[k] = v
            elif row in self.row_index:
                r = self.row_index[row]
                if (k, r) in self.entries:
                    self.repeated(f"{f[0]} {row}")
                    continue
                self.entries.add((k, r))
                b.a_rows.append(r)
                b.a_cols.append(k)
                b.a_vals.append(v)
            elif row not in self.free_rows:
                self.notes.add("entries for undeclared rows ignored, as Gurobi does (HiGHS "
                               "refuses the file)", self.line, f"{f[0]} {row}")

    def repeated(self, what: str) -> None:
        self.notes.add("repeated entries: the first value kept, as HiGHS and Gurobi keep it",
                       self.line, what)

    def _set_start(self, f: list[str]) -> int:
        # The set name is optional in free MPS: an even field count means it is present.
        return 1 if len(f) in (3, 5) else 0

    def rhs(self, f: list[str]) -> None:
        b = self.b
        for row, v in self._pairs(f, self._set_start(f), "RHS"):
            if row in self.rhs_given:
                self.repeated(f"RHS {row}")
                continue
            if row == self.obj_row:
                self.rhs_given.add(row)
                b.constant = -v
                continue
            if row in self.free_rows:
                continue
            r = self.row_index.get(row)
            if r is None:
                self.notes.add("right-hand sides of undeclared rows ignored, as HiGHS and "
                               "Gurobi do", self.line, row)
                continue
            self.rhs_given.add(row)
            kind = self.row_kind[row]
            value = v if abs(v) < BIG else math.copysign(INF, v)
            if kind == "L":
                b.row_hi[r] = value
            elif kind == "G":
                b.row_lo[r] = value
            else:
                b.row_lo[r] = b.row_hi[r] = v

    def ranges(self, f: list[str]) -> None:
        for row, v in self._pairs(f, self._set_start(f), "RANGES"):
            if row not in self.row_index:
                self.notes.add("ranges of undeclared or free rows ignored, as HiGHS does "
                               "(Gurobi refuses the file)", self.line, row)
                continue
            if row in self.range_values:
                self.repeated(f"RANGES {row}")
                continue
            self.range_values[row] = v

    def bounds(self, f: list[str]) -> None:
        if len(f) < 2:
            raise self.error("BOUNDS lines need a type and a column")
        kind = f[0].upper()
        no_value = kind in ("FR", "MI", "PL", "BV")
        if kind not in ("UP", "LO", "FX", "FR", "MI", "PL", "BV", "LI", "UI", "SC", "SI"):
            raise self.error(f"unknown bound type {f[0]!r}")
        # With a set name: type set column [value]; without: type column [value].
        if no_value:
            # "BV col 1" (no set name, optional value) vs "BV set col [1]".
            has_set = len(f) >= 3 and not (len(f) == 3 and _is_number(f[2]))
            col = f[2] if has_set else f[1]
            value = 0.0
        else:
            if len(f) == 4:
                col, text = f[2], f[3]
            elif len(f) == 3:
                col, text = f[1], f[2]
            else:
                raise self.error(f"bound {kind} needs a column and a value")
            value = self.num(text, f"bound {kind}")
        b = self.b
        k = b.var(col)
        self.bounded.add(k)
        sides = {"UP": ("ub",), "UI": ("ub",), "SC": ("ub",), "SI": ("ub",), "LO": ("lb",),
                 "LI": ("lb",), "FX": ("lb", "ub"), "FR": ("lb", "ub"), "MI": ("lb",),
                 "PL": ("ub",), "BV": ()}[kind]
        if kind in ("SC", "SI"):
            self.semi(k, kind, col)
        if kind == "BV" and ((k, "lb") in self.bound_given or (k, "ub") in self.bound_given) \
                and not (self.b.lb[k] >= 0.0 and self.b.ub[k] <= 1.0):
            self.notes.add("BV after other bounds of the column read as binary, as Gurobi "
                           "reads it (HiGHS keeps the earlier bounds)", self.line, col)
        if any((k, side) in self.bound_given for side in sides):
            # HiGHS and Gurobi keep a column's first bound on a side (an SC value is an
            # upper bound too).
            self.notes.add("repeated bounds: the first kept, as HiGHS and Gurobi keep it",
                           self.line, f"{kind} {col}")
            return
        self.bound_given.update((k, side) for side in sides)
        if kind in ("UP", "UI", "SC", "SI"):
            if kind in ("SC", "SI") and not (0 < value < BIG):
                raise self.error(f"{kind} bound of {col!r} must be a positive finite upper "
                                 f"bound (HiGHS and Gurobi read {value:g} differently)")
            b.ub[k] = INF if value >= BIG else value
            if value < 0 and b.lb[k] == 0.0 and k not in self.explicit_lb:
                b.lb[k] = -INF  # the MPS convention for a negative upper bound
                self.neg_up[k] = (self.line, f"{kind} {col} {value:g}")
            if kind == "UI":
                b.types[k] = "I"
        elif kind in ("LO", "LI"):
            b.lb[k] = -INF if value <= -BIG else value
            self.explicit_lb.add(k)
            self.neg_up.pop(k, None)  # a lower bound given after it: both solvers take it
            if kind == "LI":
                b.types[k] = "I"
        elif kind == "FX":
            b.lb[k] = b.ub[k] = value
            self.explicit_lb.add(k)
        elif kind == "FR":
            b.lb[k], b.ub[k] = -INF, INF
        elif kind == "MI":
            b.lb[k] = -INF
            self.neg_up.pop(k, None)  # -inf given: what both solvers read
        elif kind == "PL":
            b.ub[k] = INF
        elif kind == "BV":
            b.types[k] = "B"
            b.lb[k], b.ub[k] = max(b.lb[k], 0.0), min(b.ub[k], 1.0)

    def semi(self, k: int, kind: str, col: str) -> None:
        """Make column ``k`` semi-continuous (SC) or semi-integer (SI)."""
        b = self.b
        if kind == "SI" or b.types[k] in ("I", "N"):
            if kind == "SC":
                self.notes.add("integer columns with an SC bound read as semi-integer, as "
                               "Gurobi reads them (HiGHS reads them semi-continuous)",
                               self.line, col)
            b.types[k] = "N"
        else:
            b.types[k] = "S"
        self.marker_int.discard(k)  # its SC / SI value is its upper bound

    def quadratic(self, f: list[str], section: str, q_row: str | None) -> None:
        if len(f) != 3:
            raise self.error(f"{section} lines need two columns and a value")
        b = self.b
        if f[0] not in b.index or f[1] not in b.index:
            missing = f[0] if f[0] not in b.index else f[1]
            raise self.error(f"{section} refers to unknown column {missing!r}")
        i, j, v = b.index[f[0]], b.index[f[1]], self.num(f[2], f"{section} value")
        if section in ("QUADOBJ", "QSECTION"):
            # One triangle of Q in 1/2 x'Qx: an off-diagonal entry stands for both halves (a
            # QSECTION on the objective is read so by HiGHS and Gurobi alike).
            b.qobj.append((i, j, v if i != j else v / 2.0))
        elif section == "QMATRIX":
            b.qobj.append((i, j, v / 2.0))  # full symmetric Q in 1/2 x'Qx
            self.full.setdefault(("QMATRIX", ""), []).append((i, j, v, self.line))
        else:
            r = self.row_index.get(q_row or "")
            if r is None:
                raise self.error(f"quadratic terms for unknown row {q_row!r}")
            b.qrows.append((r, i, j, v))  # full symmetric Q in x'Qx
            self.full.setdefault(("QCMATRIX", q_row or ""), []).append((i, j, v, self.line))

    def symmetric(self) -> None:
        """QMATRIX and QCMATRIX hold full symmetric matrices (both solvers refuse others)."""
        names = self.b.names
        for (section, row), entries in self.full.items():
            seen = {(i, j): v for i, j, v, _ in entries}
            for i, j, v, line in entries:
                if i != j and seen.get((j, i)) != v:
                    self.line = line
                    where = f" of row {row!r}" if row else ""
                    raise self.error(f"{section}{where} is not symmetric: ({names[i]}, "
                                     f"{names[j]}) is {v:g}, ({names[j]}, {names[i]}) is "
                                     f"{seen.get((j, i), 0):g}")

    def finish(self) -> None:
        b = self.b
        for row, v in self.range_values.items():
            r = self.row_index[row]
            kind = self.row_kind[row]
            if kind == "L":
                b.row_lo[r] = b.row_hi[r] - abs(v)
            elif kind == "G":
                b.row_hi[r] = b.row_lo[r] + abs(v)
            elif v > 0:
                b.row_hi[r] = b.row_lo[r] + v
            else:
                b.row_lo[r] = b.row_hi[r] + v
        for line, bound in sorted(self.neg_up.values()):
            self.notes.add("negative UP bounds on columns with the default lower bound 0 made "
                           "it -inf, as Gurobi reads them (HiGHS keeps 0, and no value fits)",
                           line, bound)
        for k in self.marker_int - self.bounded:
            b.ub[k] = 1.0  # Gurobi's reading: a marker integer with no BOUNDS entry is in [0, 1]
        for k, t in enumerate(b.types):
            if t == "B":
                b.lb[k], b.ub[k] = max(b.lb[k], 0.0), min(b.ub[k], 1.0)


def _read(parser: _MpsParser, text: str) -> CanonicalModel:
    """The model of one reading, then its one warning line."""
    model = parser.parse(text)
    parser.notes.issue()
    return model


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_mps(text: str, path: str = "<string>", fixed: bool | None = None) -> CanonicalModel:
    """Parse MPS text; ``fixed=None`` tries free format first, then fixed columns."""
    # Only the reading returned issues its warning line: one per file, never both readings'.
    if fixed is not None:
        return _read(_MpsParser(path, fixed), text)
    try:
        return _read(_MpsParser(path, fixed=False), text)
    except UnsupportedFeatureError:
        raise  # a section header, found at the same line in either format
    except ModelFileError as free_error:
        try:
            return _read(_MpsParser(path, fixed=True), text)
        except ModelFileError as fixed_error:
            # Report the reading that got further into the file.
            def reach(e: ModelFileError) -> float:
                return math.inf if e.line is None else e.line  # no line: the end of the file

            later = reach(fixed_error) > reach(free_error)
            raise (fixed_error if later else free_error) from None
