"""Hypothesis strategies for canonical models and the transformations the fingerprints face."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.transforms import (  # noqa: F401 - re-exported for the tests
    binary_as_integer,
    bounds_as_rows,
    flip_sense,
    permute,
    rename,
    scale_rows,
)

INF = math.inf
NICE = [1.0, -1.0, 2.0, -3.0, 0.5, 4.25, -7.5, 10.0, 0.125, 100.0]


def coefficient() -> st.SearchStrategy[float]:
    """Non-zero coefficients: small integers, nice fractions and arbitrary floats."""
    return st.one_of(
        st.sampled_from(NICE),
        st.floats(min_value=-1e3, max_value=1e3, allow_nan=False).filter(lambda x: abs(x) > 1e-2),
    )


@st.composite
def models(draw: st.DrawFn, max_vars: int = 6, max_rows: int = 6, quadratic: bool = True,
           generic: bool = False, short_names: bool = False) -> CanonicalModel:
    """Random models; ``generic`` makes every objective coefficient distinct (no symmetry)."""
    n = draw(st.integers(1, max_vars))
    m = draw(st.integers(0 if not generic else 1, max_rows))
    types = draw(st.lists(st.sampled_from("CCIB"), min_size=n, max_size=n))
    lb, ub = [], []
    for t in types:
        if t == "B":
            lo, hi = draw(st.sampled_from([(0.0, 1.0), (0.0, 1.0), (1.0, 1.0), (0.0, 0.0)]))
        elif t == "I":
            # Integral bounds: Gurobi rounds an integer's fractional bounds on input.
            lo = draw(st.sampled_from([0.0, 0.0, -INF, -5.0, 2.0]))
            hi = draw(st.sampled_from([INF, INF, 10.0, 40.0, 3.0]))
            if lo > hi:
                lo, hi = hi, lo
        else:
            lo = draw(st.sampled_from([0.0, 0.0, -INF, -5.0, 2.5, -1.75]))
            hi = draw(st.sampled_from([INF, INF, 10.0, 40.5, 3.0]))
            if lo > hi:
                lo, hi = hi, lo
        lb.append(lo)
        ub.append(hi)
    if generic:
        base = draw(st.permutations(list(range(1, n + 1))))
        obj = [float(b) + 0.37 * draw(st.sampled_from([1, -1])) for b in base]
    else:
        obj = draw(st.lists(st.one_of(st.just(0.0), coefficient()), min_size=n, max_size=n))
    rows, cols, vals, lo_r, hi_r = [], [], [], [], []
    for r in range(m):
        k = draw(st.integers(2 if generic else 1, n)) if n >= 2 else 1
        members = draw(st.permutations(list(range(n))))[:k]
        for j in members:
            rows.append(r)
            cols.append(j)
            vals.append(draw(coefficient()))
        sense = draw(st.sampled_from(["<=", ">=", "=", "range", "<=", ">="]))
        rhs = draw(st.one_of(st.just(0.0), coefficient()))
        if sense == "<=":
            lo_r.append(-INF)
            hi_r.append(rhs)
        elif sense == ">=":
            lo_r.append(rhs)
            hi_r.append(INF)
        elif sense == "=":
            lo_r.append(rhs)
            hi_r.append(rhs)
        else:
            width = draw(st.sampled_from([1.0, 2.5, 30.0]))
            lo_r.append(rhs)
            hi_r.append(rhs + width)
    qobj = (np.zeros(0, int), np.zeros(0, int), np.zeros(0))
    qrows = (np.zeros(0, int), np.zeros(0, int), np.zeros(0, int), np.zeros(0))
    if quadratic and draw(st.booleans()):
        k = draw(st.integers(1, 3))
        qi = [draw(st.integers(0, n - 1)) for _ in range(k)]
        qj = [draw(st.integers(0, n - 1)) for _ in range(k)]
        qobj = (np.array(qi), np.array(qj), np.array([draw(coefficient()) for _ in range(k)]))
    if quadratic and m and draw(st.booleans()):
        r = draw(st.integers(0, m - 1))
        i, j = draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1))
        if not (math.isfinite(lo_r[r]) and math.isfinite(hi_r[r]) and lo_r[r] < hi_r[r]):
            qrows = (np.array([r]), np.array([i]), np.array([j]),
                     np.array([draw(coefficient())]))
    prefix = "" if short_names else "x["
    return CanonicalModel(
        var_names=[f"{prefix}{j}]" if not short_names else f"x{j}" for j in range(n)],
        var_types=types, lb=lb, ub=ub, obj=obj,
        obj_constant=draw(st.sampled_from([0.0, 0.0, 12.5, -3.0])),
        sense=draw(st.sampled_from(["min", "max"])),
        A=sp.csr_matrix((vals, (rows, cols)), shape=(m, n)),
        row_names=[f"c{r}" for r in range(m)], row_lower=lo_r, row_upper=hi_r,
        qobj=qobj, qrows=qrows, name="random",
    )


def model_diff(a: CanonicalModel, b: CanonicalModel) -> list[str]:
    """Which fields of two models differ (for readable assertion messages)."""
    out = []
    for f in ("var_names", "row_names", "sense", "obj_constant"):
        if getattr(a, f) != getattr(b, f):
            out.append(f"{f}: {getattr(a, f)!r} != {getattr(b, f)!r}")
    for f in ("var_types", "lb", "ub", "obj", "row_lower", "row_upper"):
        x, y = getattr(a, f), getattr(b, f)
        if x.shape != y.shape or not np.array_equal(x, y):
            out.append(f"{f}: {x!r} != {y!r}")
    if a.A.shape != b.A.shape or (a.A != b.A).nnz:
        out.append(f"A: {a.A.toarray()!r} != {b.A.toarray()!r}")
    for f in ("qobj", "qrows"):
        x, y = getattr(a, f), getattr(b, f)
        if any(p.shape != q.shape or not np.array_equal(p, q) for p, q in zip(x, y, strict=True)):
            out.append(f"{f}: {x!r} != {y!r}")
    return out


def quadratic_rows_last(m: CanonicalModel) -> CanonicalModel:
    """``m`` with its quadratic rows moved after the linear ones (Gurobi keeps two lists)."""
    is_q = np.zeros(m.num_rows, dtype=bool)
    is_q[m.qrows[0]] = True
    order = list(np.flatnonzero(~is_q)) + list(np.flatnonzero(is_q))
    return permute(m, list(range(m.num_vars)), order)
