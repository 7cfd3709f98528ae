"""Writer for MPS files: free format (exact) and fixed columns (names <= 8 characters)."""

from __future__ import annotations

import math

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import range_anchor
from ortrex.ir.formats.errors import UnsupportedModelError
from ortrex.ir.formats.lp_write import fmt

BIG = 1e30  # MPS's infinity


def _fixed_num(x: float) -> str:
    """The most precise text of ``x`` that fits the 12-character fixed field."""
    text = fmt(x)
    digits = 17
    while len(text) > 12 and digits > 1:
        digits -= 1
        text = f"{x:.{digits}g}"
    return text


class _Out:
    """Data lines in free format (space separated) or in the fixed MPS columns."""

    def __init__(self, fixed: bool) -> None:
        self.fixed = fixed
        self.lines: list[str] = []

    def data(self, kind: str, n1: str, n2: str = "", value: float | None = None,
             n3: str = "", value2: float | None = None) -> None:
        if self.fixed:
            text = f" {kind:<2} {n1:<8}  {n2:<8}"
            if value is not None:
                text += f"  {_fixed_num(value):>12}"
            if value2 is not None:
                text += f"   {n3:<8}  {_fixed_num(value2):>12}"
            self.lines.append(text.rstrip())
            return
        parts = [n1, n2] if n2 else [n1]
        if value is not None:
            parts.append(fmt(value))
        if value2 is not None:
            parts += [n3, fmt(value2)]
        self.lines.append((f" {kind:<2} " if kind else "    ") + "  ".join(parts))


def write_mps(model: CanonicalModel, fixed: bool = False) -> str:
    """MPS text of ``model``; free format reads back bit for bit.

    Fixed format keeps names within 8 characters and numbers within 12, so it is lossy for
    numbers that need more digits; free format is the exact interchange format.
    """
    names, rnames = model.var_names, model.row_names
    for nm, what in [(v, "variable") for v in names] + [(r, "constraint") for r in rnames]:
        if any(ch.isspace() for ch in nm) or nm.startswith(("*", "$")):
            raise UnsupportedModelError(f"{what} name {nm!r} cannot be written in MPS")
        if fixed and len(nm) > 8:
            raise UnsupportedModelError(
                f"{what} name {nm!r} is longer than 8 characters: use free MPS")
    taken = set(rnames)
    obj = "OBJ"
    while obj in taken:
        obj += "_"
    out = _Out(fixed)
    line = out.lines
    line.append(f"NAME          {model.name}" if fixed else f"NAME {model.name}".rstrip())
    if model.sense.value == "max":
        line += ["OBJSENSE", "    MAX"]
    line.append("ROWS")
    line.append(f" N  {obj}")
    lo, hi = model.row_lower, model.row_upper
    rhs: list[tuple[str, float]] = []
    ranges: list[tuple[str, float]] = []
    for r, nm in enumerate(rnames):
        lo_r, hi_r = float(lo[r]), float(hi[r])
        if lo_r == hi_r:
            kind, value = "E", lo_r
        elif lo_r == -math.inf and hi_r == math.inf:
            kind, value = "G", -1e30  # a free row: readers take 1e30 as infinite
        elif lo_r == -math.inf:
            kind, value = "L", hi_r
        elif hi_r == math.inf:
            kind, value = "G", lo_r
        else:
            # An L row with range R spans [rhs - |R|, rhs] and a G row [rhs, rhs + |R|]. Pick
            # the end from which the other is reached exactly: readers (Gurobi's too) anchor
            # an L row at its rhs and a G row at its rhs, so both ends come back bit for bit.
            value, sign, width = range_anchor(lo_r, hi_r)
            kind = "G" if sign > 0 else "L"
            ranges.append((nm, width))
        line.append(f" {kind}  {nm}")
        if value != 0.0:
            rhs.append((nm, value))
    if model.obj_constant != 0.0:
        rhs.append((obj, -model.obj_constant))

    line.append("COLUMNS")
    csc = model.A.tocsc()
    types = model.var_types
    in_marker = False
    marker = 0
    for j, nm in enumerate(names):
        integer = types[j] in ("I", "B", "N")
        if integer != in_marker:
            tag = "'INTORG'" if integer else "'INTEND'"
            line.append(f"    MARKER{marker:<4}  'MARKER'                 {tag}" if not fixed
                        else f"    M{marker:<7}  'MARKER'                 {tag}")
            marker += integer
            in_marker = integer
        entries: list[tuple[str, float]] = []
        if model.obj[j] != 0.0:
            entries.append((obj, float(model.obj[j])))
        s, e = csc.indptr[j], csc.indptr[j + 1]
        entries += [(rnames[r], float(v)) for r, v in zip(csc.indices[s:e], csc.data[s:e],
                                                          strict=True)]
        if not entries:
            entries.append((obj, 0.0))  # every column appears, so the order survives
        step = 1 if fixed else 2
        for k in range(0, len(entries), step):
            (r1, v1), *more = entries[k:k + step]
            if more:
                out.data("", nm, r1, v1, more[0][0], more[0][1])
            else:
                out.data("", nm, r1, v1)
    if in_marker:
        line.append(f"    MARKER{marker:<4}  'MARKER'                 'INTEND'" if not fixed
                    else f"    M{marker:<7}  'MARKER'                 'INTEND'")

    line.append("RHS")
    for nm, v in rhs:
        out.data("", "RHS", nm, v)
    if ranges:
        line.append("RANGES")
        for nm, v in ranges:
            out.data("", "RNG", nm, v)

    line.append("BOUNDS")
    lb, ub = model.lb, model.ub
    for j, nm in enumerate(names):
        low, h = float(lb[j]), float(ub[j])
        if types[j] == "B":
            # As Gurobi writes it: the bounds first, then BV (which keeps them within [0, 1]).
            if low == h:
                out.data("FX", "BND", nm, low)
            out.data("BV", "BND", nm)
            continue
        if types[j] in ("S", "N"):
            # SC / SI carry the upper bound (none: infinite), LO after it the lower one (the
            # order both HiGHS and Gurobi read); SI sits inside the integer markers too.
            out.data("SC" if types[j] == "S" else "SI", "BND", nm,
                     h if h != math.inf else BIG)
            if low != 0.0:
                out.data("LO", "BND", nm, low if low != -math.inf else -BIG)
            continue
        if low == h:
            out.data("FX", "BND", nm, low)
        elif low == -math.inf and h == math.inf:
            out.data("FR", "BND", nm)
        else:
            if low == -math.inf:
                out.data("MI", "BND", nm)
            elif low != 0.0:
                out.data("LO", "BND", nm, low)
            if h != math.inf:
                out.data("UP", "BND", nm, h)
            elif types[j] == "I" and low == 0.0:
                # Readers disagree on an integer column with no bounds ([0, 1] or [0, inf)).
                out.data("PL", "BND", nm)

    qi, qj, qv = model.qobj
    if qi.size:
        line.append("QUADOBJ")
        for i, j, v in zip(qi, qj, qv, strict=True):
            out.data("", names[i], names[j], float(v) * (2.0 if i == j else 1.0))
    rr, ri, rj, rv = model.qrows
    if rr.size:
        starts = np.searchsorted(rr, np.arange(model.num_rows + 1))
        for r in np.unique(rr):
            line.append(f"QCMATRIX   {rnames[r]}")
            for k in range(starts[r], starts[r + 1]):
                i, j, v = ri[k], rj[k], float(rv[k])
                if i == j:
                    out.data("", names[i], names[j], v)
                else:
                    out.data("", names[i], names[j], v / 2.0)
                    out.data("", names[j], names[i], v / 2.0)
    line.append("ENDATA")
    return "\n".join(line) + "\n"
