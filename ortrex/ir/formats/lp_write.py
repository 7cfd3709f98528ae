"""Writer for the LP format in Gurobi's dialect, so Gurobi reads back exactly what was written."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import range_anchor
from ortrex.ir.formats.errors import UnsupportedModelError

_NAME_OK = re.compile(r"[^\s<>=+\-*/^:\[\]\\0-9.][^\s<>=+\-*/^:\\]*")
_RESERVED = {"free", "inf", "infinity", "nan", "constant"}
_WRAP = 78


def fmt(x: float) -> str:
    """Shortest text that reads back to exactly ``x`` (integers without a decimal point)."""
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    return repr(float(x))


def check_name(name: str, what: str) -> None:
    """Raise when ``name`` could not be read back from an LP file unchanged."""
    if (not _NAME_OK.fullmatch(name) or name.count("[") != name.count("]")
            or name.lower() in _RESERVED):
        raise UnsupportedModelError(
            f"{what} name {name!r} cannot be written in LP format; use MPS or JSON"
        )


class _Lines:
    """Accumulates terms into wrapped lines."""

    def __init__(self, out: list[str], head: str) -> None:
        self.out = out
        self.line = head
        self.first = True

    def add(self, piece: str) -> None:
        if len(self.line) + len(piece) > _WRAP and self.line.strip():
            self.out.append(self.line.rstrip())
            self.line = "  "
        self.line += piece

    def term(self, coef: float, name: str) -> None:
        mag = abs(coef)
        text = name if mag == 1.0 else f"{fmt(mag)} {name}"  # a zero coefficient stays: "0 x"
        if self.first:
            self.add(("- " if coef < 0 else "") + text + " ")
        else:
            self.add(("- " if coef < 0 else "+ ") + text + " ")
        self.first = False

    def quad(self, terms: Iterable[tuple[str, str, float]], halve: bool) -> None:
        terms = list(terms)
        if not terms:
            return
        self.add(("" if self.first else "+ ") + "[ ")
        inner_first = True
        for a, b, c in terms:
            c = 2.0 * c if halve else c
            body = f"{a} ^2" if a == b else f"{a} * {b}"
            mag = abs(c)
            text = body if mag == 1.0 else f"{fmt(mag)} {body}"
            if inner_first:
                self.add(("- " if c < 0 else "") + text + " ")
            else:
                self.add(("- " if c < 0 else "+ ") + text + " ")
            inner_first = False
        self.add("] / 2 " if halve else "] ")
        self.first = False

    def close(self, tail: str = "") -> None:
        self.line += tail
        self.out.append(self.line.rstrip())


def _first_appearance(model: CanonicalModel) -> list[int]:
    """Order in which variables first appear in the written file (the reader's order)."""
    seen = np.zeros(model.num_vars, dtype=bool)
    order: list[int] = []

    def visit(cols: Iterable[int]) -> None:
        for c in cols:
            if not seen[c]:
                seen[c] = True
                order.append(int(c))

    qi, qj, _ = model.qobj
    visit(np.flatnonzero(model.obj))
    visit(np.ravel(np.column_stack([qi, qj])))
    A = model.A
    rr, ri, rj, _ = model.qrows
    qstart = np.searchsorted(rr, np.arange(model.num_rows + 1))
    for r in range(model.num_rows):
        visit(A.indices[A.indptr[r]:A.indptr[r + 1]])
        visit(np.ravel(np.column_stack([ri[qstart[r]:qstart[r + 1]], rj[qstart[r]:qstart[r + 1]]])))
    visit(np.flatnonzero(_has_bounds_entry(model)))
    visit(np.flatnonzero(np.isin(model.var_types, ("I", "N"))))  # Generals come first,
    visit(np.flatnonzero(model.var_types == "B"))  # then the Binaries,
    visit(np.flatnonzero(model.semi))  # then the Semi-continuous section
    return order


def _has_bounds_entry(model: CanonicalModel) -> np.ndarray:
    cont = model.var_types != "B"
    default = np.where(cont, (model.lb == 0) & (model.ub == math.inf),
                       (model.lb == 0) & (model.ub == 1))
    return ~default


def write_lp(model: CanonicalModel) -> str:
    """LP text of ``model`` that Gurobi and :func:`parse_lp` read back to the same model.

    An objective constant is written as Gurobi's fixed ``Constant`` variable and a ranged row
    as ``a.x + Rg<row> = hi`` with ``0 <= Rg<row> <= hi - lo`` (both idioms are read back as
    what they stand for). When the natural order of first appearance would change the variable
    order, every variable is listed in the objective (zero coefficients) to pin it.
    """
    names = model.var_names
    for nm in names:
        check_name(nm, "variable")
    for nm in model.row_names:
        check_name(nm, "constraint")
    if model.obj_constant != 0.0 and "Constant" in names:
        raise UnsupportedModelError("a variable named 'Constant' clashes with the LP constant")
    order = _first_appearance(model)
    padded = order != list(range(model.num_vars))

    out = [f"\\ Model {model.name}" if model.name else "\\ Model",
           "\\ written by ortrex (Gurobi LP dialect)",
           "Maximize" if model.sense.value == "max" else "Minimize"]
    obj = _Lines(out, " ")
    for j in range(model.num_vars) if padded else np.flatnonzero(model.obj):
        obj.term(float(model.obj[j]), names[j])
    qi, qj, qv = model.qobj
    obj.quad(((names[i], names[j], float(v)) for i, j, v in zip(qi, qj, qv, strict=True)),
             halve=True)
    if model.obj_constant != 0.0:
        obj.term(model.obj_constant, "Constant")
    obj.close()

    out.append("Subject To")
    A, lo, hi = model.A, model.row_lower, model.row_upper
    rr, ri, rj, rv = model.qrows
    qstart = np.searchsorted(rr, np.arange(model.num_rows + 1))
    range_vars: list[tuple[str, float]] = []
    for r, rname in enumerate(model.row_names):
        row = _Lines(out, f" {rname}: ")
        s, e = A.indptr[r], A.indptr[r + 1]
        for c, v in zip(A.indices[s:e], A.data[s:e], strict=True):
            row.term(float(v), names[c])
        a, b = qstart[r], qstart[r + 1]
        row.quad(((names[i], names[j], float(v))
                  for i, j, v in zip(ri[a:b], rj[a:b], rv[a:b], strict=True)), halve=False)
        low, h = float(lo[r]), float(hi[r])
        if low == h:
            row.close(f"= {fmt(low)}")
        elif low == -math.inf:
            row.close(f"<= {fmt(h)}" if h != math.inf else ">= -infinity")
        elif h == math.inf:
            row.close(f">= {fmt(low)}")
        else:
            if a != b:
                raise UnsupportedModelError(
                    f"the LP format has no ranged quadratic rows ({rname!r}); use MPS or JSON")
            rg = f"Rg{rname}"
            if rg in names:
                raise UnsupportedModelError(f"ranged row {rname!r}: variable {rg!r} exists")
            anchor, sign, width = range_anchor(low, h)
            row.term(-sign, rg)  # a.x - sign * Rg = anchor
            row.close(f"= {fmt(anchor)}")
            range_vars.append((rg, width))

    out.append("Bounds")
    lb, ub, types = model.lb, model.ub, model.var_types
    for j in np.flatnonzero(_has_bounds_entry(model)):
        nm, low, h = names[j], float(lb[j]), float(ub[j])
        if low == h:
            out.append(f" {nm} = {fmt(low)}")
        elif low == -math.inf and h == math.inf:
            out.append(f" {nm} free")
        elif low == -math.inf:
            out.append(f" -infinity <= {nm} <= {fmt(h)}")
        elif types[j] == "B":
            out.append(f" {fmt(low)} <= {nm} <= {fmt(h)}")
        elif h == math.inf:
            out.append(f" {nm} >= {fmt(low)}")
        elif low == 0.0:
            out.append(f" {nm} <= {fmt(h)}")
        else:
            out.append(f" {fmt(low)} <= {nm} <= {fmt(h)}")
    for rg, width in range_vars:
        out.append(f" {rg} <= {fmt(width)}")
    if model.obj_constant != 0.0:
        out.append(" Constant = 1")
    # A semi-integer variable is in both Generals and Semi-continuous (as Gurobi writes it).
    for header, codes in (("Generals", ("I", "N")), ("Binaries", ("B",)),
                          ("Semi-continuous", ("S", "N"))):
        idx = np.flatnonzero(np.isin(types, codes))
        if idx.size:
            out.append(header)
            line = _Lines(out, " ")
            for j in idx:
                line.add(names[j] + " ")
            line.close()
    out.append("End")
    return "\n".join(out) + "\n"
