"""Transformations of canonical models with a known effect on equivalence.

The first group changes how a model is written but not what it means (renaming, permuting,
scaling rows, min <-> max, bounds <-> one-variable rows, binary <-> integer in [0, 1]); the second
changes what it means (a coefficient, a sense, a row, a type, the objective sense, a quadratic
term). Used to build labelled equivalence suites and in tests.
"""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from ortrex.ir.canonical import CanonicalModel

INF = math.inf


# ---------------------------------------------------------------- meaning-preserving
def rename(m: CanonicalModel, tag: str = "v") -> CanonicalModel:
    """Every variable and row renamed."""
    return m.replace(var_names=[f"{tag}_{k}" for k in range(m.num_vars)],
                     row_names=[f"{tag}r_{k}" for k in range(m.num_rows)])


def permute(m: CanonicalModel, var_perm: list[int] | np.ndarray,
            row_perm: list[int] | np.ndarray) -> CanonicalModel:
    """Variables and rows reordered: new position k holds old variable ``var_perm[k]``."""
    vp, rp = np.asarray(var_perm, dtype=int), np.asarray(row_perm, dtype=int)
    inv_v = np.argsort(vp)
    inv_r = np.argsort(rp) if rp.size else rp
    qi, qj, qv = m.qobj
    rr, ri, rj, rv = m.qrows
    return m.replace(
        var_names=[m.var_names[k] for k in vp], var_types=m.var_types[vp], lb=m.lb[vp],
        ub=m.ub[vp], obj=m.obj[vp], A=m.A[rp][:, vp],
        row_names=[m.row_names[k] for k in rp], row_lower=m.row_lower[rp],
        row_upper=m.row_upper[rp], qobj=(inv_v[qi], inv_v[qj], qv),
        qrows=(inv_r[rr] if rr.size else rr, inv_v[ri], inv_v[rj], rv))


def shuffle(m: CanonicalModel, rng: np.random.Generator) -> CanonicalModel:
    """A random permutation of the variables and of the rows."""
    return permute(m, rng.permutation(m.num_vars), rng.permutation(m.num_rows))


def scale_rows(m: CanonicalModel, factors: list[float] | np.ndarray) -> CanonicalModel:
    """Row r multiplied by ``factors[r]`` (a negative factor swaps and negates its bounds)."""
    f = np.asarray(factors, dtype=float)
    lo, hi = m.row_lower * f, m.row_upper * f
    neg = f < 0
    rr, ri, rj, rv = m.qrows
    return m.replace(A=sp.diags(f) @ m.A, row_lower=np.where(neg, hi, lo),
                     row_upper=np.where(neg, lo, hi), qrows=(rr, ri, rj, rv * f[rr]))


def flip_sense(m: CanonicalModel) -> CanonicalModel:
    """min <-> max with the objective negated (the same problem)."""
    qi, qj, qv = m.qobj
    return m.replace(sense="max" if m.sense.value == "min" else "min", obj=-m.obj,
                     obj_constant=-m.obj_constant, qobj=(qi, qj, -qv))


def bounds_as_rows(m: CanonicalModel, factor: float = 1.0) -> CanonicalModel:
    """Finite bounds of continuous and integer variables moved into one-variable rows."""
    cols, lo_r, hi_r, names = [], [], [], []
    lb, ub = m.lb.copy(), m.ub.copy()
    for j in range(m.num_vars):
        if m.var_types[j] == "B":
            continue
        for end, value in (("lb", lb[j]), ("ub", ub[j])):
            if not math.isfinite(value):
                continue
            cols.append(j)
            v = factor * value
            # x >= L is a.x >= a.L for a > 0 and a.x <= a.L for a < 0 (and the reverse for <=).
            lo, hi = (v, INF) if (end == "lb") == (factor > 0) else (-INF, v)
            lo_r.append(lo)
            hi_r.append(hi)
            names.append(f"bound_{end}_{j}")
        lb[j], ub[j] = -INF, INF
    k = len(cols)
    extra = sp.csr_matrix(([factor] * k, (list(range(k)), cols)), shape=(k, m.num_vars))
    return m.replace(lb=lb, ub=ub, A=sp.vstack([m.A, extra], format="csr"),
                     row_names=[*m.row_names, *names],
                     row_lower=np.concatenate([m.row_lower, lo_r]),
                     row_upper=np.concatenate([m.row_upper, hi_r]))


def rows_as_bounds(m: CanonicalModel) -> CanonicalModel:
    """Linear one-variable rows folded into bounds (the inverse of :func:`bounds_as_rows`)."""
    nnz = np.diff(m.A.indptr)
    has_q = np.zeros(m.num_rows, dtype=bool)
    has_q[m.qrows[0]] = True
    single = np.flatnonzero((nnz == 1) & ~has_q)
    if not single.size:
        return m
    lb, ub = m.lb.copy(), m.ub.copy()
    for r in single:
        p = m.A.indptr[r]
        j, a = m.A.indices[p], m.A.data[p]
        lo, hi = m.row_lower[r] / a, m.row_upper[r] / a
        if a < 0:
            lo, hi = hi, lo
        lb[j], ub[j] = max(lb[j], lo), min(ub[j], hi)
    keep = np.setdiff1d(np.arange(m.num_rows), single)
    remap = np.full(m.num_rows, -1)
    remap[keep] = np.arange(keep.size)
    rr, ri, rj, rv = m.qrows
    return m.replace(lb=lb, ub=ub, A=m.A[keep],
                     row_names=[m.row_names[k] for k in keep], row_lower=m.row_lower[keep],
                     row_upper=m.row_upper[keep], qrows=(remap[rr], ri, rj, rv))


def binary_as_integer(m: CanonicalModel) -> CanonicalModel:
    """Binary variables written as integers in [0, 1]."""
    return m.replace(var_types=np.where(m.var_types == "B", "I", m.var_types))


def integer_as_binary(m: CanonicalModel) -> CanonicalModel:
    """Integer variables with bounds inside [0, 1] written as binaries."""
    as_bin = (m.var_types == "I") & (m.lb >= 0) & (m.ub <= 1)
    return m.replace(var_types=np.where(as_bin, "B", m.var_types))


# ---------------------------------------------------------------- meaning-changing
def change_coefficient(m: CanonicalModel, position: int, rel: float = 1e-4) -> CanonicalModel:
    """One constraint coefficient (``A.data[position]``) moved by ``rel`` (relative)."""
    A = m.A.copy()
    A.data[position] *= 1.0 + rel
    return m.replace(A=A)


def flip_row_sense(m: CanonicalModel, row: int) -> CanonicalModel:
    """A one-sided row turned around (``a.x <= b`` becomes ``a.x >= b``)."""
    lo, hi = m.row_lower.copy(), m.row_upper.copy()
    if math.isinf(lo[row]) == math.isinf(hi[row]):
        raise ValueError(f"row {m.row_names[row]!r} is not one-sided")
    lo[row], hi[row] = (hi[row], INF) if math.isinf(lo[row]) else (-INF, lo[row])
    return m.replace(row_lower=lo, row_upper=hi)


def drop_row(m: CanonicalModel, row: int) -> CanonicalModel:
    """One row removed."""
    keep = np.delete(np.arange(m.num_rows), row)
    remap = np.full(m.num_rows, -1)
    remap[keep] = np.arange(keep.size)
    rr, ri, rj, rv = m.qrows
    q = rr != row
    return m.replace(A=m.A[keep], row_names=[m.row_names[k] for k in keep],
                     row_lower=m.row_lower[keep], row_upper=m.row_upper[keep],
                     qrows=(remap[rr[q]], ri[q], rj[q], rv[q]))


def change_type(m: CanonicalModel, var: int) -> CanonicalModel:
    """One variable's integrality toggled (continuous <-> integer)."""
    types = m.var_types.copy()
    types[var] = "C" if types[var] != "C" else "I"
    lb, ub = m.lb.copy(), m.ub.copy()
    if types[var] == "I":  # keep integral bounds so only the type changes
        lb[var], ub[var] = np.ceil(lb[var]), np.floor(ub[var])
        if lb[var] > ub[var]:
            ub[var] = lb[var]
    return m.replace(var_types=types, lb=lb, ub=ub)


def flip_objective_sense(m: CanonicalModel) -> CanonicalModel:
    """min <-> max with the objective left as it is (a different problem)."""
    return m.replace(sense="max" if m.sense.value == "min" else "min")


def add_quadratic_term(m: CanonicalModel, i: int, j: int, value: float) -> CanonicalModel:
    """A quadratic objective term ``value * x_i * x_j`` added."""
    qi, qj, qv = m.qobj
    return m.replace(qobj=(np.append(qi, i), np.append(qj, j), np.append(qv, value)))


def remove_quadratic_term(m: CanonicalModel, k: int) -> CanonicalModel:
    """Quadratic objective term ``k`` removed."""
    qi, qj, qv = m.qobj
    keep = np.arange(qi.size) != k
    return m.replace(qobj=(qi[keep], qj[keep], qv[keep]))
