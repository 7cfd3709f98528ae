"""Normal form of a canonical model: min objective, singleton rows as bounds, scaled rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ortrex.ir.rows import RowMatrix

if TYPE_CHECKING:
    from ortrex.ir.canonical import CanonicalModel

INF = np.inf

# Row kinds after normalisation.
GE = 0  # a.x >= rlo (every one-sided inequality, <= rows negated); scaled to max|coef| = 1
EQ1 = 1  # a.x = 1 (equality with a non-zero right-hand side, divided by it: sign and scale fixed)
EQ0 = 2  # a.x = 0, scaled to max|coef| = 1; its sign is not determined by the row alone
RANGE = 3  # rlo <= a.x <= rhi, scaled to max|coef| = 1; its sign is not determined either


@dataclass(frozen=True)
class NormalizedModel:
    """The normal form; ``scale[k] * original row origin[k]`` gives normalised row ``k``."""

    is_int: np.ndarray
    semi: np.ndarray  # semi-continuous or semi-integer: 0, or a value in [lb, ub]
    lb: np.ndarray
    ub: np.ndarray
    c: np.ndarray
    constant: float
    qobj: tuple[np.ndarray, np.ndarray, np.ndarray]
    A: RowMatrix
    kind: np.ndarray
    rlo: np.ndarray
    rhi: np.ndarray
    scale: np.ndarray
    origin: np.ndarray
    qrows: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    bound_rows: np.ndarray
    infeasible_empty_rows: np.ndarray

    @property
    def num_vars(self) -> int:
        """Number of variables (normalisation keeps every variable)."""
        return int(self.lb.size)

    @property
    def num_rows(self) -> int:
        """Number of rows left after normalisation."""
        return int(self.kind.size)


def normalize(model: CanonicalModel, int_tol: float = 1e-9) -> NormalizedModel:
    """Bring ``model`` to the normal form used by fingerprints and the equivalence checker.

    Objective to min form (constant kept separately); binary as integer in [0, 1]; linear rows
    with one variable folded into that variable's bounds (dividing by the coefficient, flipping for
    a negative one, intersecting with the declared bounds); integer bounds rounded inward; empty
    and free rows dropped (infeasible empty rows are reported); every other row oriented and
    scaled by a rule that depends only on the row itself, so it is invariant under permutations.
    """
    flip = -1.0 if model.sense.value == "max" else 1.0
    c = model.obj * flip + 0.0
    qi, qj, qv = model.qobj
    qobj = (qi.copy(), qj.copy(), qv * flip + 0.0)
    is_int = model.integral.copy()
    semi = model.semi.copy()
    lb, ub = model.lb.copy(), model.ub.copy()
    binary = model.var_types == "B"
    lb[binary] = np.maximum(lb[binary], 0.0)
    ub[binary] = np.minimum(ub[binary], 1.0)

    A = model.A
    lo, hi = model.row_lower, model.row_upper
    row_nnz = np.diff(A.indptr)
    rr, ri, rj, rv = model.qrows
    has_q = np.zeros(model.num_rows, dtype=bool)
    has_q[rr] = True
    empty = (row_nnz == 0) & ~has_q
    infeasible = np.flatnonzero(empty & ((lo > 0) | (hi < 0)))
    single = (row_nnz == 1) & ~has_q
    if semi.any() and A.nnz:
        # A row on a semi-continuous variable is no bound: x >= 3 excludes the 0 that a semi
        # lower bound of 3 allows. It stays a row.
        single &= ~semi[A.indices[np.minimum(A.indptr[:-1], A.nnz - 1)]]
    s_idx = np.flatnonzero(single)
    if s_idx.size:
        p = A.indptr[s_idx]
        j, a = A.indices[p], A.data[p]
        l1, h1 = lo[s_idx] / a, hi[s_idx] / a
        neg = a < 0
        np.maximum.at(lb, j, np.where(neg, h1, l1))
        np.minimum.at(ub, j, np.where(neg, l1, h1))
    if is_int.any():
        li, ui = lb[is_int], ub[is_int]
        with np.errstate(invalid="ignore"):
            lb[is_int] = np.ceil(li - int_tol * np.maximum(1.0, np.abs(li)))
            ub[is_int] = np.floor(ui + int_tol * np.maximum(1.0, np.abs(ui)))
    # A semi variable whose range already holds 0 is an ordinary one (0 or [lb, ub] is
    # [lb, ub]): "semi-continuous in [-1, 5]" and "continuous in [-1, 5]" are one model.
    plain = semi & (lb <= 0) & (ub >= 0)
    semi &= ~plain
    lb += 0.0
    ub += 0.0

    free = (lo == -INF) & (hi == INF)
    rows = np.flatnonzero(~(empty | single | free))
    # The canonical matrix keeps column indices sorted within rows, so the slice does too.
    sub = RowMatrix(A.indptr, A.indices, A.data, model.num_vars)
    if rows.size < model.num_rows:
        sub = sub.take(rows)
    k_nnz = sub.lengths()
    s = np.zeros(rows.size)
    nz = k_nnz > 0
    if sub.nnz:
        s[nz] = np.maximum.reduceat(np.abs(sub.data), sub.indptr[:-1][nz])
    new_index = np.full(model.num_rows, -1, dtype=np.int64)
    new_index[rows] = np.arange(rows.size)
    keep_q = new_index[rr] >= 0
    nr = new_index[rr[keep_q]]
    if nr.size:
        np.maximum.at(s, nr, np.abs(rv[keep_q]))

    lo_k, hi_k = lo[rows], hi[rows]
    eq = lo_k == hi_k
    kind = np.full(rows.size, GE, dtype=np.int8)
    kind[eq & (lo_k != 0)] = EQ1
    kind[eq & (lo_k == 0)] = EQ0
    kind[~eq & np.isfinite(lo_k) & np.isfinite(hi_k)] = RANGE
    # Divisor per row: dividing (not multiplying by a reciprocal) keeps one rounding per value.
    d = s.copy()
    d[kind == EQ1] = lo_k[kind == EQ1]
    d[(kind == GE) & (lo_k == -INF)] *= -1.0
    with np.errstate(invalid="ignore"):
        a_lo, a_hi = lo_k / d, hi_k / d
    pos = d > 0
    rlo = np.where(pos, a_lo, a_hi) + 0.0
    rhi = np.where(pos, a_hi, a_lo) + 0.0
    rlo[kind == EQ1] = 1.0
    rhi[kind == EQ1] = 1.0
    data = sub.data / np.repeat(d, k_nnz) + 0.0
    A_norm = RowMatrix(sub.indptr, sub.indices, data, model.num_vars)
    qrows = (nr, ri[keep_q].copy(), rj[keep_q].copy(), rv[keep_q] / d[nr] + 0.0)
    return NormalizedModel(
        is_int=is_int,
        semi=semi,
        lb=lb,
        ub=ub,
        c=c,
        constant=model.obj_constant * flip + 0.0,
        qobj=qobj,
        A=A_norm,
        kind=kind,
        rlo=rlo,
        rhi=rhi,
        scale=1.0 / d,
        origin=rows,
        qrows=qrows,
        bound_rows=s_idx,
        infeasible_empty_rows=infeasible,
    )
