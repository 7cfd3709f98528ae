"""Reader for MPS files, free and fixed, with RANGES, integer markers and quadratic sections."""

from __future__ import annotations

import math

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder
from ortrex.ir.formats.errors import ModelFileError

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
}
# Fixed-format field columns (0-based, end exclusive): type, name1, name2, value1, name3, value2.
_FIXED = ((1, 3), (4, 12), (14, 22), (24, 36), (39, 47), (49, 61))


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

    def error(self, message: str) -> ModelFileError:
        return ModelFileError(self.path, message, self.line)

    def num(self, text: str, what: str) -> float:
        try:
            v = float(text)
        except ValueError:
            raise self.error(f"expected a number for {what}, got {text!r}") from None
        if math.isnan(v):
            raise self.error(f"{what} is NaN")
        return v

    def fields(self, line: str) -> list[str]:
        if not self.fixed or "'MARKER'" in line:
            return line.split()
        f = _fixed_fields(line)
        return f[1:] if f and not f[0] else f

    def parse(self, text: str) -> CanonicalModel:
        section = None
        q_row: str | None = None
        b = self.b
        for lineno, raw in enumerate(text.splitlines(), start=1):
            self.line = lineno
            if not raw.strip() or raw.startswith("*"):
                continue
            if not raw[0].isspace():
                words = raw.split()
                head = words[0].upper()
                if head in _UNSUPPORTED:
                    raise self.error(f"{_UNSUPPORTED[head]} are not supported")
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
                continue
            if section is None:
                raise self.error("data before the first section: not an MPS file")
            f = self.fields(raw)
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
        try:
            return b.build()
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
                b.obj[k] = b.obj.get(k, 0.0) + v
            elif row in self.row_index:
                b.a_rows.append(self.row_index[row])
                b.a_cols.append(k)
                b.a_vals.append(v)
            elif row not in self.free_rows:
                raise self.error(f"column {f[0]!r} refers to unknown row {row!r}")

    def _set_start(self, f: list[str]) -> int:
        # The set name is optional in free MPS: an even field count means it is present.
        return 1 if len(f) in (3, 5) else 0

    def rhs(self, f: list[str]) -> None:
        b = self.b
        for row, v in self._pairs(f, self._set_start(f), "RHS"):
            if row == self.obj_row:
                b.constant = -v
                continue
            if row in self.free_rows:
                continue
            r = self.row_index.get(row)
            if r is None:
                raise self.error(f"RHS for unknown row {row!r}")
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
                raise self.error(f"RANGES for unknown or free row {row!r}")
            self.range_values[row] = v

    def bounds(self, f: list[str]) -> None:
        if len(f) < 2:
            raise self.error("BOUNDS lines need a type and a column")
        kind = f[0].upper()
        no_value = kind in ("FR", "MI", "PL", "BV")
        if kind not in ("UP", "LO", "FX", "FR", "MI", "PL", "BV", "LI", "UI", "SC"):
            raise self.error(f"unknown bound type {f[0]!r}")
        if kind == "SC":
            raise self.error("semi-continuous bounds (SC) are not supported")
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
        if kind in ("UP", "UI"):
            b.ub[k] = INF if value >= BIG else value
            if value < 0 and b.lb[k] == 0.0 and k not in self.explicit_lb:
                b.lb[k] = -INF  # the MPS convention for a negative upper bound
            if kind == "UI":
                b.types[k] = "I"
        elif kind in ("LO", "LI"):
            b.lb[k] = -INF if value <= -BIG else value
            self.explicit_lb.add(k)
            if kind == "LI":
                b.types[k] = "I"
        elif kind == "FX":
            b.lb[k] = b.ub[k] = value
            self.explicit_lb.add(k)
        elif kind == "FR":
            b.lb[k], b.ub[k] = -INF, INF
        elif kind == "MI":
            b.lb[k] = -INF
        elif kind == "PL":
            b.ub[k] = INF
        elif kind == "BV":
            b.types[k] = "B"
            b.lb[k], b.ub[k] = max(b.lb[k], 0.0), min(b.ub[k], 1.0)

    def quadratic(self, f: list[str], section: str, q_row: str | None) -> None:
        if len(f) != 3:
            raise self.error(f"{section} lines need two columns and a value")
        b = self.b
        if f[0] not in b.index or f[1] not in b.index:
            missing = f[0] if f[0] not in b.index else f[1]
            raise self.error(f"{section} refers to unknown column {missing!r}")
        i, j, v = b.index[f[0]], b.index[f[1]], self.num(f[2], f"{section} value")
        if section == "QUADOBJ":
            # Upper triangle of Q in 1/2 x'Qx: an off-diagonal entry stands for both halves.
            b.qobj.append((i, j, v if i != j else v / 2.0))
        elif section == "QMATRIX" or (section == "QSECTION" and q_row == self.obj_row):
            b.qobj.append((i, j, v / 2.0))  # full symmetric Q in 1/2 x'Qx
        else:
            r = self.row_index.get(q_row or "")
            if r is None:
                raise self.error(f"quadratic terms for unknown row {q_row!r}")
            b.qrows.append((r, i, j, v))  # full symmetric Q in x'Qx

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
        for k in self.marker_int - self.bounded:
            b.ub[k] = 1.0  # Gurobi's reading: a marker integer with no BOUNDS entry is in [0, 1]
        for k, t in enumerate(b.types):
            if t == "B":
                b.lb[k], b.ub[k] = max(b.lb[k], 0.0), min(b.ub[k], 1.0)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def parse_mps(text: str, path: str = "<string>", fixed: bool | None = None) -> CanonicalModel:
    """Parse MPS text; ``fixed=None`` tries free format first, then fixed columns."""
    if fixed is not None:
        return _MpsParser(path, fixed).parse(text)
    try:
        return _MpsParser(path, fixed=False).parse(text)
    except ModelFileError as free_error:
        try:
            return _MpsParser(path, fixed=True).parse(text)
        except ModelFileError as fixed_error:
            # Report the reading that got further into the file.
            def reach(e: ModelFileError) -> float:
                return math.inf if e.line is None else e.line  # no line: the end of the file

            later = reach(fixed_error) > reach(free_error)
            raise (fixed_error if later else free_error) from None
