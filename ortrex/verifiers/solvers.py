"""Solving canonical models with HiGHS and Gurobi, with one precise status vocabulary."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field
from enum import StrEnum
from typing import Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import UnsupportedModelError, to_gurobi, to_highs


class SolveStatus(StrEnum):
    """Outcome of one solver run (the verification contract's vocabulary)."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    UNSUPPORTED = "unsupported"
    ERROR = "error"
    TIMEOUT = "timeout"
    SKIPPED_LICENSE = "skipped_license"


@dataclass(frozen=True)
class SolveResult:
    """Status, objective (None unless optimal), wall time and a one-line message."""

    solver: str
    status: SolveStatus
    objective: float | None
    runtime_s: float
    message: str = ""
    solver_version: str = ""
    x: np.ndarray | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict without the solution vector."""
        d = asdict(self)
        d.pop("x")
        d["status"] = self.status.value
        return d


def objectives_agree(a: float, b: float, rel: float = 1e-6, abs_tol: float = 1e-6) -> bool:
    """|a - b| <= max(abs_tol, rel * |b|), the agreement rule of the verification contract."""
    return abs(a - b) <= max(abs_tol, rel * abs(b))


def hessian_is_convex(model: CanonicalModel, tol: float = 1e-9) -> bool | None:
    """Whether the quadratic objective is convex in the optimisation direction (None: too big)."""
    qi, qj, qv = model.qobj
    if not qi.size:
        return True
    idx = np.unique(np.concatenate([qi, qj]))
    if idx.size > 3000:
        return None
    pos = np.searchsorted(idx, qi), np.searchsorted(idx, qj)
    H = np.zeros((idx.size, idx.size))
    np.add.at(H, pos, qv)
    H = H + H.T  # x'Hx / 2 equals the sum of the terms
    if model.sense.value == "max":
        H = -H
    eig = np.linalg.eigvalsh(H)
    return bool(eig.min() >= -tol * max(1.0, float(np.abs(eig).max())))


def solve_highs(model: CanonicalModel, time_limit: float | None = None,
                keep_solution: bool = False) -> SolveResult:
    """Solve with HiGHS; quadratic rows, MIQP and non-convex QP are ``unsupported``."""
    import highspy

    version = f"{highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}." \
              f"{highspy.HIGHS_VERSION_PATCH}" if hasattr(highspy, "HIGHS_VERSION_MAJOR") else ""

    def result(status: SolveStatus, objective: float | None, start: float, message: str = "",
               x: np.ndarray | None = None) -> SolveResult:
        return SolveResult("highs", status, objective, time.perf_counter() - start, message,
                           version, x)

    start = time.perf_counter()
    if model.has_quadratic_rows:
        return result(SolveStatus.UNSUPPORTED, None, start, "HiGHS has no quadratic constraints")
    if model.has_quadratic_objective:
        if model.is_mip:
            return result(SolveStatus.UNSUPPORTED, None, start, "HiGHS has no MIQP solver")
        if hessian_is_convex(model) is False:
            return result(SolveStatus.UNSUPPORTED, None, start,
                          "HiGHS needs a convex quadratic objective")
    try:
        h = to_highs(model)
    except UnsupportedModelError as exc:
        return result(SolveStatus.UNSUPPORTED, None, start, str(exc))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    h.run()
    st = h.getModelStatus()
    MS = highspy.HighsModelStatus
    if st == MS.kUnboundedOrInfeasible:
        # Settle "infeasible or unbounded": the same constraints with a zero objective are
        # either feasible (so the model is unbounded) or infeasible.
        probe = to_highs(model.replace(obj=np.zeros(model.num_vars), qobj=None))
        probe.run()
        pst = probe.getModelStatus()
        if pst == MS.kOptimal:
            st = MS.kUnbounded
        elif pst == MS.kInfeasible:
            st = MS.kInfeasible
    if st == MS.kOptimal:
        x = np.array(h.getSolution().col_value) if keep_solution else None
        return result(SolveStatus.OPTIMAL, float(h.getInfo().objective_function_value), start,
                      x=x)
    if st == MS.kInfeasible:
        return result(SolveStatus.INFEASIBLE, None, start)
    if st == MS.kUnbounded:
        return result(SolveStatus.UNBOUNDED, None, start)
    if st == MS.kTimeLimit:
        return result(SolveStatus.TIMEOUT, None, start, f"time limit {time_limit}s")
    return result(SolveStatus.ERROR, None, start, h.modelStatusToString(st))


_env_lock = threading.Lock()
_env: Any = None


def _gurobi_env() -> Any:
    global _env
    with _env_lock:
        if _env is None:
            from ortrex.ir.formats.gurobi import quiet_env

            _env = quiet_env()
        return _env


def solve_gurobi(model: CanonicalModel, time_limit: float | None = None,
                 keep_solution: bool = False) -> SolveResult:
    """Solve with Gurobi; models over the licence's size limit are ``skipped_license``."""
    try:
        import gurobipy as gp
        from gurobipy import GRB
    except ImportError:
        return SolveResult("gurobi", SolveStatus.ERROR, None, 0.0, "gurobipy is not installed")
    version = ".".join(map(str, gp.gurobi.version()))
    start = time.perf_counter()

    def result(status: SolveStatus, objective: float | None = None, message: str = "",
               x: np.ndarray | None = None) -> SolveResult:
        return SolveResult("gurobi", status, objective, time.perf_counter() - start, message,
                           version, x)

    try:
        gm = to_gurobi(model, _gurobi_env())
    except UnsupportedModelError as exc:
        return result(SolveStatus.UNSUPPORTED, message=str(exc))
    try:
        if time_limit is not None:
            gm.Params.TimeLimit = float(time_limit)
        gm.optimize()
        if gm.Status == GRB.INF_OR_UNBD:
            gm.Params.DualReductions = 0
            gm.optimize()
    except gp.GurobiError as exc:
        if exc.errno == GRB.Error.SIZE_LIMIT_EXCEEDED:
            return result(SolveStatus.SKIPPED_LICENSE,
                          message=f"model too large for the Gurobi licence ({model.num_vars} vars,"
                                  f" {model.num_rows} rows)")
        return result(SolveStatus.ERROR, message=f"Gurobi error {exc.errno}: {exc}")
    status = gm.Status
    if status == GRB.OPTIMAL:
        x = np.array(gm.getAttr("X", gm.getVars()[: model.num_vars])) if keep_solution else None
        obj = float(gm.ObjVal)
        gm.dispose()
        return result(SolveStatus.OPTIMAL, obj, x=x)
    gm.dispose()
    if status == GRB.INFEASIBLE:
        return result(SolveStatus.INFEASIBLE)
    if status == GRB.UNBOUNDED:
        return result(SolveStatus.UNBOUNDED)
    if status == GRB.TIME_LIMIT:
        return result(SolveStatus.TIMEOUT, message=f"time limit {time_limit}s")
    return result(SolveStatus.ERROR, message=f"Gurobi status {status}")


SOLVERS = {"highs": solve_highs, "gurobi": solve_gurobi}


def solve(model: CanonicalModel, solver: str = "highs", time_limit: float | None = None,
          keep_solution: bool = False) -> SolveResult:
    """Solve with the named solver (``highs`` or ``gurobi``)."""
    try:
        fn = SOLVERS[solver]
    except KeyError:
        raise ValueError(f"unknown solver {solver!r}; expected one of {sorted(SOLVERS)}") from None
    return fn(model, time_limit=time_limit, keep_solution=keep_solution)

