"""Normal form of a canonical model: min objective, singleton rows as bounds, scaled rows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ortrex.ir.lazy import lazy
from ortrex.ir.rows import RowMatrix

if TYPE_CHECKING:
    from ortrex.ir.canonical import CanonicalModel

INF = np.inf
# Variable types by character code: integral (I, B, N), semi-continuous or semi-integer (S, N).
_INTEGRAL = np.zeros(128, dtype=bool)
_INTEGRAL[[ord("I"), ord("B"), ord("N")]] = True
_SEMI = np.zeros(128, dtype=bool)
_SEMI[[ord("S"), ord("N")]] = True
_BINARY = ord("B")
_NO_ROWS = np.zeros(0, dtype=np.int64)
_NO_VALUES = np.zeros(0)
_ZERO = np.zeros(1)
_NO_ROWS.flags.writeable = _NO_VALUES.flags.writeable = _ZERO.flags.writeable = False

# Row kinds after normalisation.
GE = 0  # a.x >= rlo (every one-sided inequality, <= rows negated); scaled to max|coef| = 1
EQ1 = 1  # a.x = 1 (equality with a non-zero right-hand side, divided by it: sign and scale fixed)
EQ0 = 2  # a.x = 0, scaled to max|coef| = 1; its sign is not determined by the row alone
RANGE = 3  # rlo <= a.x <= rhi, scaled to max|coef| = 1; its sign is not determined either
_K8 = [np.int8(k) for k in range(4)]  # the kinds as int8 scalars: np.where then makes int8


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

    @lazy
    def numbers(self) -> tuple[np.ndarray, dict[str, tuple[int, int]]]:
        """Every number the model graph uses (and its negation where a row's sign may flip),
        in one array, and where each role's numbers lie in it."""
        parts = {"lb": self.lb, "ub": self.ub, "c": self.c, "rlo": self.rlo, "rhi": self.rhi,
                 "-rlo": -self.rlo, "-rhi": -self.rhi, "a": self.A.data, "-a": -self.A.data,
                 "qo": self.qobj[2], "qr": self.qrows[3], "-qr": -self.qrows[3]}
        spans, start = {}, 0
        for key, arr in parts.items():
            spans[key] = (start, start + arr.size)
            start += arr.size
        return np.concatenate(list(parts.values())), spans

    @lazy
    def values(self) -> np.ndarray:
        """The distinct numbers of :attr:`numbers` and zero, sorted."""
        pool = np.concatenate([self.numbers[0], _ZERO])
        pool.sort()
        # Sorting and dropping repeats by hand: np.unique costs twice as much on these sizes.
        keep = np.empty(pool.size, dtype=bool)
        keep[0] = True
        np.not_equal(pool[1:], pool[:-1], out=keep[1:])
        return pool[keep]


def normalize(model: CanonicalModel, int_tol: float = 1e-9) -> NormalizedModel:
    """Bring ``model`` to the normal form used by fingerprints and the equivalence checker.

    Objective to min form (constant kept separately); binary as integer in [0, 1]; linear rows
    with one variable folded into that variable's bounds (dividing by the coefficient, flipping for
    a negative one, intersecting with the declared bounds); integer bounds rounded inward; empty
    and free rows dropped (infeasible empty rows are reported); every other row oriented and
    scaled by a rule that depends only on the row itself, so it is invariant under permutations.
    """
    # Written for small models: numpy's cost there is per call, so every step that most
    # models do not need (quadratic rows, semi-continuous variables...) is skipped.
    maximise = model.sense.value == "max"
    flip = -1.0 if maximise else 1.0
    c = (-model.obj if maximise else model.obj) + 0.0
    qi, qj, qv = model.qobj
    qobj = (qi, qj, (-qv if maximise else qv) + 0.0) if qv.size else (qi, qj, qv)
    codes = model.var_types.view(np.uint32)
    is_int, semi = _INTEGRAL[codes], _SEMI[codes]
    lb, ub = model.lb.copy(), model.ub.copy()
    # count_nonzero, not any(): a tenth of the cost on small arrays
    any_int, any_semi = np.count_nonzero(is_int) > 0, np.count_nonzero(semi) > 0
    if any_int:
        binary = codes == _BINARY
        lb[binary] = np.maximum(lb[binary], 0.0)
        ub[binary] = np.minimum(ub[binary], 1.0)

    A = model.csr
    indptr = A.indptr
    lo, hi = model.row_lower, model.row_upper
    m = lo.size
    row_nnz = indptr[1:] - indptr[:-1]
    rr, ri, rj, rv = model.qrows
    empty, single = row_nnz == 0, row_nnz == 1
    if rr.size:
        has_q = np.zeros(m, dtype=bool)
        has_q[rr] = True
        empty &= ~has_q
        single &= ~has_q
    any_empty = np.count_nonzero(empty) > 0
    infeasible = (empty & ((lo > 0) | (hi < 0))).nonzero()[0] if any_empty else _NO_ROWS
    nnz = A.data.size
    if any_semi and nnz:
        # A row on a semi-continuous variable is no bound: x >= 3 excludes the 0 that a semi
        # lower bound of 3 allows. It stays a row.
        single &= ~semi[A.indices[np.minimum(indptr[:-1], nnz - 1)]]
    s_idx = single.nonzero()[0]
    if s_idx.size:
        p = indptr[s_idx]
        j, a = A.indices[p], A.data[p]
        l1, h1 = lo[s_idx] / a, hi[s_idx] / a
        neg = a < 0
        np.maximum.at(lb, j, np.where(neg, h1, l1))
        np.minimum.at(ub, j, np.where(neg, l1, h1))
    if any_int:
        li, ui = lb[is_int], ub[is_int]
        with np.errstate(invalid="ignore"):
            lb[is_int] = np.ceil(li - int_tol * np.maximum(1.0, np.abs(li)))
            ub[is_int] = np.floor(ui + int_tol * np.maximum(1.0, np.abs(ui)))
    if any_semi:
        # A semi variable whose range already holds 0 is an ordinary one (0 or [lb, ub] is
        # [lb, ub]): "semi-continuous in [-1, 5]" and "continuous in [-1, 5]" are one model.
        semi &= ~((lb <= 0) & (ub >= 0))
    lb += 0.0
    ub += 0.0

    drop = single | ((lo == -INF) & (hi == INF))  # bounds, free rows
    if any_empty:
        drop |= empty
    # The canonical matrix keeps column indices sorted within rows, so the slice does too.
    ptr, ind, dat = indptr, A.indices, A.data
    if np.count_nonzero(drop):
        keep = ~drop
        rows = keep.nonzero()[0]
        # The kept rows in order: one mask over the entries does what RowMatrix.take's
        # gather does, in fewer numpy calls.
        entries = np.repeat(keep, row_nnz)
        k_nnz = row_nnz[rows]
        ptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(k_nnz, out=ptr[1:])
        ind, dat = ind[entries], dat[entries]
        lo_k, hi_k = lo[rows], hi[rows]
    else:
        rows = np.arange(m)
        k_nnz = row_nnz
        lo_k, hi_k = lo, hi
    R = rows.size
    if not rr.size:  # every kept row has two entries or more
        s = np.maximum.reduceat(np.abs(dat), ptr[:-1]) if R else np.zeros(0)
        nr = keep_q = _NO_ROWS
    else:
        s = np.zeros(R)
        nz = k_nnz > 0
        if dat.size:
            s[nz] = np.maximum.reduceat(np.abs(dat), ptr[:-1][nz])
        new_index = np.full(m, -1, dtype=np.int64)
        new_index[rows] = np.arange(R)
        keep_q = new_index[rr] >= 0
        nr = new_index[rr[keep_q]]
        if nr.size:
            np.maximum.at(s, nr, np.abs(rv[keep_q]))

    eq = lo_k == hi_k
    nonzero_rhs = lo_k != 0
    both = (lo_k > -INF) & (hi_k < INF)
    kind = np.where(eq, np.where(nonzero_rhs, _K8[EQ1], _K8[EQ0]),
                    np.where(both, _K8[RANGE], _K8[GE]))
    # Divisor per row: dividing (not multiplying by a reciprocal) keeps one rounding per value.
    # An equality with a right-hand side is divided by it (x / x is exactly 1: its bounds come
    # out as 1); a "<=" row (lower end -inf) by minus its largest coefficient.
    d = np.where(eq & nonzero_rhs, lo_k, np.where(lo_k == -INF, -s, s))
    a_lo, a_hi = lo_k / d, hi_k / d
    pos = d > 0
    rlo = np.where(pos, a_lo, a_hi) + 0.0
    rhi = np.where(pos, a_hi, a_lo) + 0.0
    data = dat / np.repeat(d, k_nnz) + 0.0
    A_norm = RowMatrix(ptr, ind, data, model.num_vars)
    if rr.size:
        qrows = (nr, ri[keep_q], rj[keep_q], rv[keep_q] / d[nr] + 0.0)
    else:
        qrows = (_NO_ROWS, _NO_ROWS, _NO_ROWS, _NO_VALUES)
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
