"""Independent checks of a solution vector against the canonical model (never trust a solver)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ortrex.ir.canonical import CanonicalModel

FEAS_TOL = 1e-6  # scaled constraint and bound violation
INT_TOL = 1e-5  # distance to the nearest integer (the solvers' own integrality tolerance)


@dataclass(frozen=True)
class SolutionCheck:
    """Whether ``x`` is feasible; the objective recomputed from ``x``; the worst violation."""

    ok: bool
    objective: float
    max_violation: float
    worst: str = ""


def row_activity(model: CanonicalModel, x: np.ndarray) -> np.ndarray:
    """``A x`` plus each row's quadratic terms."""
    act = model.A @ x
    rr, ri, rj, rv = model.qrows
    if rr.size:
        np.add.at(act, rr, rv * x[ri] * x[rj])
    return act


def objective_value(model: CanonicalModel, x: np.ndarray) -> float:
    """``c x + quadratic terms + constant`` at ``x``."""
    qi, qj, qv = model.qobj
    return float(model.obj @ x + (qv * x[qi] * x[qj]).sum() + model.obj_constant)


def _row_scale(model: CanonicalModel) -> np.ndarray:
    """Largest absolute coefficient per row (at least 1), to scale violations."""
    A = model.A
    scale = np.ones(model.num_rows)
    nz = np.diff(A.indptr) > 0
    if A.nnz:
        scale[nz] = np.maximum(1.0, np.maximum.reduceat(np.abs(A.data), A.indptr[:-1][nz]))
    return scale


def check_solution(model: CanonicalModel, x: np.ndarray, tol: float = FEAS_TOL,
                   int_tol: float = INT_TOL) -> SolutionCheck:
    """Bounds, integrality and rows at ``x``, each violation scaled by the size of its data."""
    x = np.asarray(x, dtype=np.float64)
    if x.shape != (model.num_vars,) or not np.isfinite(x).all():
        return SolutionCheck(False, float("nan"), float("inf"), "solution vector malformed")
    worst, where = 0.0, ""

    def consider(viol: np.ndarray, label: str, names: tuple[str, ...]) -> None:
        nonlocal worst, where
        if viol.size and viol.max() > worst:
            k = int(viol.argmax())
            worst, where = float(viol[k]), f"{label} {names[k]!r}"

    with np.errstate(invalid="ignore"):
        lb_v = np.where(np.isfinite(model.lb), (model.lb - x) / np.maximum(1, abs(model.lb)), 0)
        ub_v = np.where(np.isfinite(model.ub), (x - model.ub) / np.maximum(1, abs(model.ub)), 0)
    # A semi-continuous or semi-integer variable may also be 0 (whatever its bounds say).
    off = model.semi & (np.abs(x) <= tol)
    lb_v, ub_v = np.where(off, 0.0, lb_v), np.where(off, 0.0, ub_v)
    consider(np.maximum(np.maximum(lb_v, ub_v), 0.0), "bound of", model.var_names)
    is_int = model.integral
    frac = np.where(is_int, np.abs(x - np.round(x)), 0.0)
    int_bad = frac > int_tol
    act = row_activity(model, x)
    lo, hi = model.row_lower, model.row_upper
    scale = _row_scale(model)
    with np.errstate(invalid="ignore"):
        lo_v = np.where(np.isfinite(lo), (lo - act) / np.maximum(scale, abs(lo)), 0.0)
        hi_v = np.where(np.isfinite(hi), (act - hi) / np.maximum(scale, abs(hi)), 0.0)
    consider(np.maximum(np.maximum(lo_v, hi_v), 0.0), "row", model.row_names)
    ok = worst <= tol and not int_bad.any()
    if int_bad.any() and not where:
        where = f"integrality of {model.var_names[int(np.argmax(frac))]!r}"
    elif int_bad.any():
        where += f"; integrality of {model.var_names[int(np.argmax(frac))]!r}"
    return SolutionCheck(ok, objective_value(model, x), worst, where if not ok else "")


def active_rows(model: CanonicalModel, x: np.ndarray, tol: float = FEAS_TOL) -> np.ndarray:
    """Rows whose activity at ``x`` sits on one of their finite bounds."""
    act = row_activity(model, x)
    scale = _row_scale(model)
    lo, hi = model.row_lower, model.row_upper
    with np.errstate(invalid="ignore"):
        at_lo = np.isfinite(lo) & (np.abs(act - lo) <= tol * np.maximum(scale, abs(lo)))
        at_hi = np.isfinite(hi) & (np.abs(act - hi) <= tol * np.maximum(scale, abs(hi)))
    return at_lo | at_hi
