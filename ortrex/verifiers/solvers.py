"""Solving canonical models with HiGHS and Gurobi, with one precise status vocabulary."""

from __future__ import annotations

import threading
import time
from dataclasses import asdict, dataclass, field, replace
from enum import StrEnum
from typing import Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import UnsupportedModelError, to_gurobi, to_highs

MIP_GAP = 1e-9  # relative gap at which a MIP counts as solved to optimality
# What ``heuristics=False`` turns off in HiGHS: the root heuristics (RENS, RINS, reduced-cost
# fixing; ZI rounding and shifting are off by default, the feasibility jump for every run) and
# the root restart (a re-presolve once the heuristics and reduced costs have fixed columns).
# None can change a proven optimum. Measured over the 640 MIPs of 1,000 default-mix tasks,
# CPU time interleaved: the heuristics cost a quarter of HiGHS's time, the restart 14% of
# the rest (more nodes, each cheaper). Effort counts (difficulty) are those of this setting.
HIGHS_LEAN = {"mip_heuristic_run_rens": False, "mip_heuristic_run_rins": False,
              "mip_heuristic_run_root_reduced_cost": False, "mip_allow_restart": False}


class SolveStatus(StrEnum):
    """Outcome of one solver run (the verification contract's vocabulary)."""

    OPTIMAL = "optimal"
    INFEASIBLE = "infeasible"
    UNBOUNDED = "unbounded"
    INFEASIBLE_OR_UNBOUNDED = "infeasible_or_unbounded"
    UNSUPPORTED = "unsupported"
    TIME_LIMIT = "time_limit"
    ERROR = "error"
    SKIPPED_LICENSE = "skipped_license"


@dataclass(frozen=True)
class SolveResult:
    """Status, objective (None unless optimal), wall time, effort and a one-line message."""

    solver: str
    status: SolveStatus
    objective: float | None
    runtime_s: float
    message: str = ""
    solver_version: str = ""
    nodes: int = 0
    iterations: int = 0
    x: np.ndarray | None = field(default=None, repr=False, compare=False)
    # At a time limit: the best proven bound and the best solution's objective found so far.
    bound: float | None = None
    incumbent: float | None = None
    # A MIP's LP relaxation when the caller asked for it (see ``solve_gurobi``).
    relaxation: SolveResult | None = field(default=None, repr=False, compare=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict without the solution vector (nor the relaxation)."""
        d = asdict(replace(self, x=None, relaxation=None))
        d.pop("x")
        d.pop("relaxation")
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


def highs_version() -> str:
    """The installed HiGHS version, ``major.minor.patch``."""
    import highspy

    return (f"{highspy.HIGHS_VERSION_MAJOR}.{highspy.HIGHS_VERSION_MINOR}."
            f"{highspy.HIGHS_VERSION_PATCH}")


def solve_highs(model: CanonicalModel, time_limit: float | None = None,
                keep_solution: bool = False, threads: int | None = None,
                heuristics: bool = True, incumbent: np.ndarray | None = None) -> SolveResult:
    """Solve with HiGHS in process; quadratic rows, MIQP and non-convex QP are ``unsupported``.

    ``threads`` defaults to one (see ``HIGHS_THREADS``). ``heuristics=False`` turns off the
    MIP root heuristics (for small models solved to a proven optimum, see ``verify``).
    ``incumbent`` is a MIP start HiGHS checks itself and may improve; the proof of optimality
    (the dual bound) stays HiGHS's own."""
    import highspy

    version = highs_version()
    start = time.perf_counter()

    def result(status: SolveStatus, objective: float | None = None, message: str = "",
               x: np.ndarray | None = None, nodes: int = 0, iterations: int = 0) -> SolveResult:
        return SolveResult("highs", status, objective, time.perf_counter() - start, message,
                           version, nodes, iterations, x)

    if model.has_quadratic_rows:
        return result(SolveStatus.UNSUPPORTED, message="HiGHS has no quadratic constraints")
    if model.has_quadratic_objective:
        if model.is_mip:
            return result(SolveStatus.UNSUPPORTED, message="HiGHS has no MIQP solver")
        if hessian_is_convex(model) is False:
            # HiGHS would return a local optimum it cannot certify as global.
            return result(SolveStatus.UNSUPPORTED,
                          message="HiGHS needs a convex quadratic objective")
    try:
        h = to_highs(model, names=False)
    except UnsupportedModelError as exc:
        return result(SolveStatus.UNSUPPORTED, message=str(exc))
    if time_limit is not None:
        h.setOptionValue("time_limit", float(time_limit))
    if model.is_mip:
        # Verification needs proven optima, not the default 1e-4 relative gap.
        h.setOptionValue("mip_rel_gap", MIP_GAP)
        # The feasibility-jump heuristic costs ~4.5 ms per run on small MIPs (measured: 5.7 ms
        # vs 1.2 ms on the small instances of every family) and cannot change a proven optimum.
        h.setOptionValue("mip_heuristic_run_feasibility_jump", False)
        if not heuristics:
            # Heuristics only find incumbents sooner; at a 1e-9 gap the tree proves the same
            # optimum without them. On a model that needs its time limit they are what finds
            # an incumbent, so only callers with small models turn them off (HIGHS_LEAN).
            for option, value in HIGHS_LEAN.items():
                h.setOptionValue(option, value)
    if incumbent is not None and model.is_mip:
        sol = highspy.HighsSolution()
        sol.col_value = np.asarray(incumbent, dtype=np.float64).tolist()
        sol.value_valid = True
        h.setSolution(sol)
    _run_highs(h, threads)
    MS = highspy.HighsModelStatus
    st = h.getModelStatus()
    info = h.getInfo()
    effort = {"nodes": max(0, int(info.mip_node_count)),
              "iterations": max(0, int(info.simplex_iteration_count))}
    if st == MS.kUnboundedOrInfeasible:
        st = _settle_highs(model, time_limit)
    if st == MS.kOptimal:
        x = np.array(h.getSolution().col_value) if keep_solution else None
        return result(SolveStatus.OPTIMAL, float(info.objective_function_value), x=x, **effort)
    if st == MS.kInfeasible:
        return result(SolveStatus.INFEASIBLE, **effort)
    if st == MS.kUnbounded:
        return result(SolveStatus.UNBOUNDED, **effort)
    if st == MS.kUnboundedOrInfeasible:
        return result(SolveStatus.INFEASIBLE_OR_UNBOUNDED, **effort)
    if st == MS.kTimeLimit:
        found = int(info.primal_solution_status) == 2  # a feasible point
        bound = float(info.mip_dual_bound) if model.is_mip else None
        r = result(SolveStatus.TIME_LIMIT, message=f"time limit {time_limit}s", **effort)
        return replace(r, bound=bound if bound is not None and np.isfinite(bound) else None,
                       incumbent=float(info.objective_function_value) if found else None)
    return result(SolveStatus.ERROR, message=h.modelStatusToString(st), **effort)


HIGHS_THREADS = 1


def _run_highs(h: Any, threads: int | None) -> None:
    """Run with a thread count; HiGHS keeps one scheduler per process and refuses a run that
    asks for another count than the scheduler was started with, so then it is restarted."""
    import highspy

    # One thread by default: HiGHS's default pool spins a second thread that doubles the CPU
    # time of a small solve without shortening it (and batch jobs run one solve per core).
    h.setOptionValue("threads", HIGHS_THREADS if threads is None else int(threads))
    if h.run() == highspy.HighsStatus.kError and \
            h.getModelStatus() == highspy.HighsModelStatus.kNotset:
        highspy.Highs.resetGlobalScheduler(True)
        h.run()


def _settle_highs(model: CanonicalModel, time_limit: float | None) -> Any:
    """Settle "infeasible or unbounded": the rows with a zero objective are either feasible
    (so the model is unbounded) or infeasible."""
    import highspy

    MS = highspy.HighsModelStatus
    probe = to_highs(model.replace(obj=np.zeros(model.num_vars), qobj=None), names=False)
    if time_limit is not None:
        probe.setOptionValue("time_limit", float(time_limit))
    _run_highs(probe, None)
    pst = probe.getModelStatus()
    if pst == MS.kOptimal:
        return MS.kUnbounded
    if pst == MS.kInfeasible:
        return MS.kInfeasible
    return MS.kUnboundedOrInfeasible


_env_lock = threading.Lock()
_envs: dict[int | None, Any] = {}


def _gurobi_env(threads: int | None) -> Any:
    with _env_lock:
        if threads not in _envs:
            from ortrex.ir.formats.gurobi import quiet_env

            env = quiet_env()
            if threads is not None:
                env.setParam("Threads", int(threads))
            _envs[threads] = env
        return _envs[threads]


def _snapped(model: CanonicalModel, x: np.ndarray) -> np.ndarray:
    """``x`` with values a hair outside their bounds moved onto them.

    Gurobi meets its tolerances on the presolved, scaled model: unscaled, a flow on
    hub_location sat 8.5e-6 below its bound of 0 (measured), which the independent check
    refuses. A value within 1e-4 of its bound is moved onto it; anything further stays as
    it is and fails the check, and the rows are checked at the snapped values either way."""
    near = 1e-4 * np.maximum(1.0, np.abs(x))
    lb, ub = model.lb, model.ub
    x = np.where((x < lb) & (lb - x <= near), lb, x)
    return np.where((x > ub) & (x - ub <= near), ub, x)


def solve_gurobi(model: CanonicalModel, time_limit: float | None = None,
                 keep_solution: bool = False, threads: int | None = None,
                 heuristics: bool = True, start: np.ndarray | None = None,
                 relaxation: bool = False) -> SolveResult:
    """Solve with Gurobi in process; models over the licence's size limit are
    ``skipped_license`` (an explicit status, never a failure and never a pass).

    ``heuristics=False`` sets Gurobi's heuristic effort to zero; ``start`` is a MIP start
    (values of the model's variables), which only seeds the incumbent: the optimum is still
    proven by the search. ``relaxation``: once a linear MIP is solved to optimality, its LP
    relaxation is solved too, on the same Gurobi model with every variable made continuous
    (``SolveResult.relaxation``, with its solution), which saves building a second model."""
    try:
        import gurobipy as gp
        from gurobipy import GRB
    except ImportError:
        return SolveResult("gurobi", SolveStatus.ERROR, None, 0.0, "gurobipy is not installed")
    version = ".".join(map(str, gp.gurobi.version()))
    start = time.perf_counter()

    def result(status: SolveStatus, objective: float | None = None, message: str = "",
               x: np.ndarray | None = None, nodes: int = 0, iterations: int = 0) -> SolveResult:
        return SolveResult("gurobi", status, objective, time.perf_counter() - start, message,
                           version, nodes, iterations, x)

    try:
        gm = to_gurobi(model, _gurobi_env(threads), names=False)
    except UnsupportedModelError as exc:
        return result(SolveStatus.UNSUPPORTED, message=str(exc))
    try:
        if time_limit is not None:
            gm.Params.TimeLimit = float(time_limit)
        if model.has_quadratic_rows:  # barrier's default 1e-6 left rows 1.7e-6 over (measured)
            gm.Params.BarQCPConvTol = 1e-8
        if model.is_mip:
            gm.Params.MIPGap = MIP_GAP
            if not heuristics:  # as for HiGHS: 13% of Gurobi's time on the families' MIPs
                gm.Params.Heuristics = 0.0
            if start is not None:
                gm.setAttr("Start", gm.getVars()[: model.num_vars], np.asarray(start).tolist())
        gm.optimize()
        if gm.Status == GRB.INF_OR_UNBD:
            gm.Params.DualReductions = 0
            gm.optimize()
        # At 1e-8 the barrier sometimes stalls short of its tolerance (status SUBOPTIMAL on 2
        # of 8 lot_size_space draws, measured): careful numerics reach it, else the next
        # tolerance; the independent check judges the plan either way.
        for param, value in (("NumericFocus", 2), ("BarQCPConvTol", 1e-7)):
            if gm.Status != GRB.SUBOPTIMAL or not model.has_quadratic_rows:
                break
            gm.setParam(param, value)
            gm.optimize()
    except gp.GurobiError as exc:
        gm.dispose()
        if exc.errno == GRB.Error.SIZE_LIMIT_EXCEEDED:
            return result(SolveStatus.SKIPPED_LICENSE,
                          message=f"model too large for the Gurobi licence ({model.num_vars} vars,"
                                  f" {model.num_rows} rows)")
        return result(SolveStatus.ERROR, message=f"Gurobi error {exc.errno}: {exc}")
    status = gm.Status
    effort = {"nodes": int(gm.NodeCount) if model.is_mip else 0, "iterations": int(gm.IterCount)}
    try:
        if status == GRB.OPTIMAL:
            x = _snapped(model, np.array(gm.getAttr("X", gm.getVars()[: model.num_vars]))) \
                if keep_solution else None
            done = result(SolveStatus.OPTIMAL, float(gm.ObjVal), x=x, **effort)
            if relaxation and model.is_mip and not (model.has_quadratic_objective or
                                                    model.has_quadratic_rows):
                done = replace(done, relaxation=_gurobi_relaxation(gm, model, version))
            return done
        statuses = {GRB.INFEASIBLE: SolveStatus.INFEASIBLE, GRB.UNBOUNDED: SolveStatus.UNBOUNDED,
                    GRB.INF_OR_UNBD: SolveStatus.INFEASIBLE_OR_UNBOUNDED,
                    GRB.TIME_LIMIT: SolveStatus.TIME_LIMIT}
        if status == GRB.TIME_LIMIT:
            r = result(SolveStatus.TIME_LIMIT, message=f"time limit {time_limit}s", **effort)
            bound = float(gm.ObjBound) if model.is_mip else None
            return replace(r, bound=bound if bound is not None and np.isfinite(bound) else None,
                           incumbent=float(gm.ObjVal) if gm.SolCount > 0 else None)
        if status in statuses:
            return result(statuses[status], **effort)
        return result(SolveStatus.ERROR, message=f"Gurobi status {status}", **effort)
    finally:
        gm.dispose()


def _gurobi_relaxation(gm: Any, model: CanonicalModel, version: str) -> SolveResult:
    """The LP relaxation of a solved linear MIP, on its own Gurobi model: every variable
    continuous, bounds reset to the model's (Gurobi rounded those of integer variables) and a
    semi variable's range widened to take its 0."""
    from gurobipy import GRB

    start = time.perf_counter()
    n = model.num_vars
    vars_ = gm.getVars()[:n]
    lb = np.where(model.semi, np.minimum(model.lb, 0.0), model.lb)
    ub = np.where(model.semi, np.maximum(model.ub, 0.0), model.ub)
    gm.setAttr("VType", vars_, ["C"] * n)
    gm.setAttr("LB", vars_, np.clip(lb, -GRB.INFINITY, GRB.INFINITY).tolist())
    gm.setAttr("UB", vars_, np.clip(ub, -GRB.INFINITY, GRB.INFINITY).tolist())
    gm.optimize()
    if gm.Status == GRB.OPTIMAL:
        return SolveResult("gurobi", SolveStatus.OPTIMAL, float(gm.ObjVal),
                           time.perf_counter() - start, "LP relaxation", version,
                           iterations=int(gm.IterCount),
                           x=np.array(gm.getAttr("X", vars_)))
    return SolveResult("gurobi", SolveStatus.ERROR, None, time.perf_counter() - start,
                       f"LP relaxation: Gurobi status {gm.Status}", version)


SOLVERS = {"highs": solve_highs, "gurobi": solve_gurobi}


def solve(model: CanonicalModel, solver: str = "highs", time_limit: float | None = None,
          keep_solution: bool = False, threads: int | None = None) -> SolveResult:
    """Solve with the named solver (``highs`` or ``gurobi``)."""
    try:
        fn = SOLVERS[solver]
    except KeyError:
        raise ValueError(f"unknown solver {solver!r}; expected one of {sorted(SOLVERS)}") from None
    return fn(model, time_limit=time_limit, keep_solution=keep_solution, threads=threads)
