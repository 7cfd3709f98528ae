"""Incremental model assembly shared by the file readers, plus the Gurobi file idioms."""

from __future__ import annotations

import math
from itertools import islice

import numpy as np

from ortrex.ir.canonical import CSR, CanonicalModel, canonical_csr, checked_names

INF = math.inf
_NO_Q, _NO_QR = np.zeros((0, 3)), np.zeros((0, 4))


def _next_free(name: str, taken: set[str]) -> str:
    k = 1
    while f"{name}#{k}" in taken:
        k += 1
    return f"{name}#{k}"


def dedupe_names(names: list[str]) -> list[str]:
    """Names made unique the way the readers do it: a repeat of ``c`` becomes ``c#1``, ..."""
    taken: set[str] = set()
    out = []
    for nm in names:
        if nm in taken:
            nm = _next_free(nm, taken)
        taken.add(nm)
        out.append(nm)
    return out


def _width(base: float, target: float, sign: float) -> float | None:
    """A width ``w >= 0`` with ``base + sign * w == target`` exactly, if one is near."""
    w = abs(target - base)
    for _ in range(16):
        got = base + sign * w
        if got == target:
            return w
        w = math.nextafter(w, math.inf if (got - target) * sign < 0 else -math.inf)
    return None


def range_anchor(lo: float, hi: float) -> tuple[float, float, float]:
    """How to write ``lo <= a.x <= hi`` as one end plus a width, exactly when possible.

    Returns (anchor, sign, width): the row is ``a.x - sign * s = anchor`` with
    ``0 <= s <= width``, so ``a.x`` spans [anchor, anchor + width] for sign +1 and
    [anchor - width, anchor] for sign -1. Writers that express ranges this way (Gurobi's range
    variables, MPS RANGES) use it so that reading the file back gives ``lo`` and ``hi`` bit for
    bit: floating-point subtraction cannot always land on ``lo`` from ``hi``, but then the
    addition from ``lo`` usually lands on ``hi``.
    """
    w = _width(hi, lo, -1.0)
    if w is not None:
        return hi, -1.0, w
    w = _width(lo, hi, 1.0)
    if w is not None:
        return lo, 1.0, w
    return hi, -1.0, hi - lo


class ModelBuilder:
    """Collects variables (by first appearance), rows and terms; :meth:`build` validates."""

    def __init__(self, default_lb: float = 0.0, default_ub: float = INF) -> None:
        self.default_lb = default_lb
        self.default_ub = default_ub
        self.index: dict[str, int] = {}
        self.names: list[str] = []
        self.lb: list[float] = []
        self.ub: list[float] = []
        self.types: list[str] = []
        self.obj: dict[int, float] = {}
        self.constant = 0.0
        self.sense = "min"
        self.name = ""
        self.a_rows: list[int] = []
        self.a_cols: list[int] = []
        self.a_vals: list[float] = []
        self.row_names: list[str] = []
        self._row_set: set[str] = set()
        self.renamed_rows = 0
        self.row_lo: list[float] = []
        self.row_hi: list[float] = []
        self.qobj: list[tuple[int, int, float]] = []
        self.qrows: list[tuple[int, int, int, float]] = []
        # Set by a reader whose names are non-empty, free of NUL and newline characters and
        # unique by construction (row names are made unique here): they are not checked again.
        self.names_checked = False

    def var(self, name: str) -> int:
        """Index of variable ``name``, created with default bounds on first use."""
        k = self.index.get(name)
        if k is None:
            k = self.index[name] = len(self.names)
            self.names.append(name)
            self.lb.append(self.default_lb)
            self.ub.append(self.default_ub)
            self.types.append("C")
        return k

    def sync(self) -> None:
        """Give the names a reader's inner loop added straight to :attr:`index` (the next
        number each) what :meth:`var` gives a new variable."""
        new = len(self.index) - len(self.names)
        if new:
            self.names.extend(islice(self.index, len(self.names), None))
            self.lb.extend([self.default_lb] * new)
            self.ub.extend([self.default_ub] * new)
            self.types.extend(["C"] * new)

    def add_rows(self, names: list[str | None], lo: list[float], hi: list[float]) -> None:
        """Append rows as :meth:`add_row` would, all at once when every row is named and no
        name repeats."""
        if None in names or len(set(names)) < len(names) or not self._row_set.isdisjoint(names):
            for name, a, b in zip(names, lo, hi, strict=True):
                self.add_row(name, a, b)
            return
        self._row_set.update(names)  # type: ignore[arg-type]
        self.row_names.extend(names)  # type: ignore[arg-type]
        self.row_lo.extend(lo)
        self.row_hi.extend(hi)

    def add_row(self, name: str | None, lo: float, hi: float) -> int:
        """Append a row with bounds (lo, hi).

        Unnamed rows get Gurobi's ``R<k>`` names. Files may repeat a row name (Gurobi writes
        what it was given); a repeated name gets a ``#<k>`` suffix so every row stays addressable.
        """
        r = len(self.row_names)
        if name is None:
            name = f"R{r}"
        if name in self._row_set:
            name = _next_free(name, self._row_set)
            self.renamed_rows += 1
        self._row_set.add(name)
        self.row_names.append(name)
        self.row_lo.append(lo)
        self.row_hi.append(hi)
        return r

    def add_quad(self, terms: list[tuple[int, int, float]], scale: float,
                 row: int | None) -> None:
        """Quadratic terms ``(i, j, c)`` times ``scale``: of the objective, or of ``row``."""
        if row is None:
            self.qobj.extend((i, j, c * scale) for i, j, c in terms)
        else:
            self.qrows.extend((row, i, j, c * scale) for i, j, c in terms)

    def build(self, fold_idioms: bool = True) -> CanonicalModel:
        """The validated model (``ValueError`` names the offending item)."""
        n, m = len(self.names), len(self.row_names)
        obj = np.zeros(n)
        if self.obj:
            keys = np.fromiter(self.obj.keys(), dtype=np.int64, count=len(self.obj))
            obj[keys] = np.fromiter(self.obj.values(), dtype=np.float64, count=len(self.obj))
        A = canonical_csr(np.asarray(self.a_rows, dtype=np.int64),
                          np.asarray(self.a_cols, dtype=np.int64),
                          np.asarray(self.a_vals, dtype=np.float64), (m, n))
        q = np.asarray(self.qobj, dtype=np.float64).reshape(-1, 3) if self.qobj else _NO_Q
        qr = np.asarray(self.qrows, dtype=np.float64).reshape(-1, 4) if self.qrows else _NO_QR
        checked = checked_names if self.names_checked else list
        model = CanonicalModel(
            var_names=checked(self.names),
            var_types=self.types,
            lb=self.lb,
            ub=self.ub,
            obj=obj,
            obj_constant=self.constant,
            sense=self.sense,
            A=A,
            row_names=checked(self.row_names),
            row_lower=self.row_lo,
            row_upper=self.row_hi,
            qobj=(q[:, 0].astype(np.int64), q[:, 1].astype(np.int64), q[:, 2]),
            qrows=(qr[:, 0].astype(np.int64), qr[:, 1].astype(np.int64),
                   qr[:, 2].astype(np.int64), qr[:, 3]),
            name=self.name,
        )
        return fold_gurobi_idioms(model) if fold_idioms else model


def _quad_vars(model: CanonicalModel) -> np.ndarray:
    qi, qj, _ = model.qobj
    _, ri, rj, _ = model.qrows
    return np.unique(np.concatenate([qi, qj, ri, rj]))


def _keep_columns(csr: CSR, keep: np.ndarray, renum: np.ndarray) -> CSR:
    """The columns ``keep`` says (renumbered by ``renum``), still canonical."""
    mask = keep[csr.indices]
    kept = np.zeros(mask.size + 1, dtype=np.int64)
    np.cumsum(mask, out=kept[1:])
    return CSR(kept[csr.indptr].astype(csr.indptr.dtype),
               renum[csr.indices[mask]].astype(csr.indices.dtype), csr.data[mask],
               (csr.shape[0], int(keep.sum())))


def drop_columns(model: CanonicalModel, drop: np.ndarray, **changes: object) -> CanonicalModel:
    """``model`` without the given columns (which must not occur in quadratic terms)."""
    n = model.num_vars
    keep = np.ones(n, dtype=bool)
    keep[drop] = False
    renum = np.cumsum(keep) - 1
    qi, qj, qv = model.qobj
    rr, ri, rj, rv = model.qrows
    fields: dict[str, object] = {
        "var_names": [nm for nm, k in zip(model.var_names, keep, strict=True) if k],
        "var_types": model.var_types[keep],
        "lb": model.lb[keep],
        "ub": model.ub[keep],
        "obj": model.obj[keep],
        "A": _keep_columns(model.csr, keep, renum),
        "qobj": (renum[qi], renum[qj], qv),
        "qrows": (rr, renum[ri], renum[rj], rv),
    }
    fields.update(changes)
    return model.replace(**fields)


def fold_gurobi_idioms(model: CanonicalModel) -> CanonicalModel:
    """Undo Gurobi's file idioms: the ``Constant`` variable and ``Rg<row>`` range variables.

    Gurobi writes an objective constant as a variable ``Constant`` fixed at 1 (and reads it back
    as the constant), and a ranged row ``lo <= a.x <= hi`` as ``a.x + Rg<row> = hi`` with
    ``0 <= Rg<row> <= hi - lo``. Only variables with exactly that shape are folded.
    """
    names = "\n" + "\n".join(model.var_names)  # one search in C instead of a loop
    if "\nConstant" not in names and "\nRg" not in names and "\nMPS_Rg" not in names:
        return model
    in_quad = set(_quad_vars(model).tolist())
    csr = model.csr
    col_nnz = np.bincount(csr.indices, minlength=model.num_vars)
    drop: list[int] = []
    constant = model.obj_constant
    lo, hi = model.row_lower.copy(), model.row_upper.copy()
    row_index = {nm: r for r, nm in enumerate(model.row_names)}
    for k, nm in enumerate(model.var_names):
        if k in in_quad or model.var_types[k] != "C":
            continue
        if nm == "Constant":
            if model.lb[k] == 1.0 and model.ub[k] == 1.0 and col_nnz[k] == 0:
                constant += float(model.obj[k])
                drop.append(k)
            continue
        row = nm[2:] if nm.startswith("Rg") else nm[6:] if nm.startswith("MPS_Rg") else None
        r = row_index.get(row) if row else None
        if r is None or col_nnz[k] != 1 or model.obj[k] != 0.0:
            continue
        p = int((csr.indices == k).nonzero()[0][0])  # the column's one entry
        if np.searchsorted(csr.indptr, p, side="right") - 1 != r or lo[r] != hi[r] \
                or model.lb[k] != 0.0:
            continue
        width, coef = float(model.ub[k]), float(csr.data[p])
        if not (math.isfinite(width) and abs(coef) == 1.0):
            continue
        rhs = lo[r]
        # a.x + coef * s = rhs with s in [0, width]
        lo[r], hi[r] = (rhs - width, rhs) if coef > 0 else (rhs, rhs + width)
        drop.append(k)
    if not drop:
        return model
    return drop_columns(model, np.array(drop, dtype=np.int64), obj_constant=constant,
                        row_lower=lo, row_upper=hi)
