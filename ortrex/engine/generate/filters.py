"""Acceptance filters; each rejection has a recorded reason (rejects stay in the store)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass
from itertools import pairwise

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.solution import SolutionCheck, active_rows
from ortrex.verifiers.solvers import (
    SolveResult,
    SolveStatus,
    objectives_agree,
    solve_gurobi,
    solve_highs,
)

REASONS = ("infeasible", "unbounded", "infeasible_or_unbounded", "time_limit", "solver_error",
           "unsupported", "solver_disagreement", "degenerate", "numerically_unstable",
           "duplicate", "trivial")
COEF_RANGE = 1e9
PERTURBATION = 1e-9
SENSITIVITY = 1e-4


@dataclass(frozen=True)
class Rejection:
    """Why an instance was rejected: a reason from ``REASONS`` and a one-line detail."""

    reason: str
    detail: str


_SINGLE = (SolveStatus.SKIPPED_LICENSE, SolveStatus.UNSUPPORTED)


def status_filter(results: list[SolveResult]) -> Rejection | None:
    """Reject models no solver could solve to optimality (infeasible, unbounded, ...)."""
    usable = [r for r in results if r.status not in _SINGLE]
    if not usable:
        return Rejection("unsupported", "; ".join(f"{r.solver}: {r.message}" for r in results))
    for r in usable:
        if r.status is not SolveStatus.OPTIMAL:
            reason = {SolveStatus.ERROR: "solver_error"}.get(r.status, r.status.value)
            return Rejection(reason, f"{r.solver}: {r.status.value} {r.message}".strip())
    return None


def agreement_filter(results: list[SolveResult], checks: dict[str, SolutionCheck]
                     ) -> Rejection | None:
    """Reject when optimal solvers disagree, or a returned solution fails the model."""
    usable = [r for r in results if r.status is SolveStatus.OPTIMAL]
    for r in usable:
        chk = checks.get(r.solver)
        if chk is None or not chk.ok:
            where = chk.worst if chk else "no solution vector"
            return Rejection("solver_disagreement", f"{r.solver}'s solution fails the "
                             f"independent check ({where})")
        if not objectives_agree(chk.objective, r.objective):  # type: ignore[arg-type]
            return Rejection("solver_disagreement", f"{r.solver} reports {r.objective!r} but its "
                             f"solution evaluates to {chk.objective!r}")
    for a, b in pairwise(usable):
        if not objectives_agree(a.objective, b.objective):  # type: ignore[arg-type]
            return Rejection("solver_disagreement", f"{a.solver} {a.objective!r} vs "
                             f"{b.solver} {b.objective!r}")
    return None


def degenerate_filter(model: CanonicalModel, x: np.ndarray,
                      relaxed_x: np.ndarray | None = None) -> Rejection | None:
    """Constant objective, every variable zero at the optimum, or no row active there.

    For a MILP the activity test uses the optimum of the LP relaxation (``relaxed_x``): an
    integer optimum routinely leaves slack in a row that still decides it (a knapsack's
    capacity), whereas a relaxation with no active row is decided by the bounds alone.
    """
    if not model.obj.any() and not model.has_quadratic_objective:
        return Rejection("degenerate", "the objective is constant")
    if not np.any(np.abs(x) > 1e-9):
        return Rejection("degenerate", "every variable is zero at the optimum")
    at = relaxed_x if relaxed_x is not None else x
    if model.num_rows and not active_rows(model, at).any():
        return Rejection("degenerate", "no constraint is active at the optimum")
    return None


class FamilyValues(dict[str, np.ndarray]):
    """A solution split by variable family (``x[i,k]`` -> family ``x``), computed on demand."""

    def __init__(self, model: CanonicalModel, x: np.ndarray) -> None:
        super().__init__()
        self.model, self.x = model, x

    def __missing__(self, name: str) -> np.ndarray:
        prefix = name + "["
        mask = np.fromiter((n == name or n.startswith(prefix) for n in self.model.var_names),
                           bool, self.model.num_vars)
        self[name] = self.x[mask]
        return self[name]


def triviality_filter(model: CanonicalModel, semantic: SemanticModel, x: np.ndarray,
                      relaxation_integral: bool = False) -> Rejection | None:
    """An optimum that only attains a trivial bound: one nonzero decision, the family's own
    trivial bound (all bins used, every item taken, one set covering all...), or an LP
    relaxation that is already integral at the optimum, unless the family is totally
    unimodular (where that is its nature)."""
    nonzero = np.flatnonzero(np.abs(x) > 1e-9)
    if nonzero.size == 1 and model.num_vars > 1:
        return Rejection("trivial", f"a single decision ({model.var_names[nonzero[0]]}) "
                         "attains the optimum")
    family = REGISTRY.get(semantic.family)
    if family is not None:
        values: Mapping[str, np.ndarray] = FamilyValues(model, x)
        detail = family.trivial(semantic, values)
        if detail:
            return Rejection("trivial", detail)
    natural = family is not None and bool(family.natural_integrality)
    # At every size: an integer model whose relaxation already gives the integer optimum
    # teaches nothing about its integer part (small ones were 6% of the non-unimodular
    # integer instances); the job draws again until it has its count.
    if relaxation_integral and not natural:
        return Rejection("trivial", "the LP relaxation is integral and attains the optimum")
    return None


def coefficient_range(model: CanonicalModel) -> float:
    """max |a| / min |a| over the non-zero constraint and objective coefficients."""
    vals = np.abs(np.concatenate([model.A.data, model.obj[model.obj != 0], model.qobj[2],
                                  model.qrows[3]]))
    return float(vals.max() / vals.min()) if vals.size else 1.0


def _jiggle(values: np.ndarray, signs: np.ndarray, rel: float) -> np.ndarray:
    """Move every non-integral finite value by +-rel (relative); integral values stay."""
    move = np.isfinite(values) & (values != np.round(values))
    return np.where(move, values * (1.0 + rel * signs), values)


def perturbed(model: CanonicalModel, rel: float = PERTURBATION) -> CanonicalModel:
    """The instance with its data moved by +-``rel`` (relative; signs derived from content).

    Only non-integral numbers move: integral ones are structure (incidence +-1, 0/1 coverage,
    unit coefficients, counts, integer demands), and moving them independently would break
    identities such as flow conservation or exactly fitting integer packings. Both ends of a
    row (and of a variable's bounds) move by one factor, so equalities stay equalities.
    """
    seed = int.from_bytes(hashlib.sha256(model.content_hash.encode()).digest()[:8], "little")
    rng = np.random.default_rng(seed)

    def signs(n: int) -> np.ndarray:
        return rng.choice([-1.0, 1.0], n)

    A = model.A.copy()
    A.data = _jiggle(A.data, signs(A.data.size), rel)
    A._ortrex_canonical = True  # same sparsity pattern, no zeros introduced
    row, col = signs(model.num_rows), signs(model.num_vars)
    qi, qj, qv = model.qobj
    # Factors of 1 +- 1e-9 keep every bound order and every value finite: no re-validation.
    return model.replace(
        validate=False, A=A, obj=_jiggle(model.obj, signs(model.num_vars), rel),
        row_lower=_jiggle(model.row_lower, row, rel), row_upper=_jiggle(model.row_upper, row, rel),
        lb=_jiggle(model.lb, col, rel), ub=_jiggle(model.ub, col, rel),
        qobj=(qi, qj, _jiggle(qv, signs(qv.size), rel)))


def _same_data(a: CanonicalModel, b: CanonicalModel) -> bool:
    """Whether two models with one sparsity pattern hold the same numbers."""
    return all(np.array_equal(x, y) for x, y in (
        (a.A.data, b.A.data), (a.obj, b.obj), (a.row_lower, b.row_lower),
        (a.row_upper, b.row_upper), (a.lb, b.lb), (a.ub, b.ub), (a.qobj[2], b.qobj[2])))


def _moves(values: np.ndarray) -> bool:
    """Whether ``perturbed`` moves any of ``values`` (a finite non-integral one)."""
    fin = values[np.isfinite(values)]
    return bool(np.any(fin != np.round(fin)))


def objective_move_bound(model: CanonicalModel, objective: float) -> float | None:
    """A proven bound on how far the optimum can move under ``perturbed`` when only linear
    objective coefficients move (None when other data move too, or no bound is known).

    Then the feasible set is exactly the same, and every point's objective moves by at most
    ``PERTURBATION * sum |c_j x_j|`` over the moved coefficients, so the optimum moves by at
    most that at the worse of the two optima. Two bounds hold without knowing the perturbed
    optimum: (1) every term ``c_j x_j`` has one sign over the bounds (costs on non-negative
    quantities): each point's objective moves by at most ``PERTURBATION * |f(x) - constant|``,
    a positive multiple of the objective, so the optimum moves by at most
    ``PERTURBATION * |f* - constant|``; (2) every moved coefficient's variable is bounded:
    ``PERTURBATION * sum |c_j| max(|lb_j|, |ub_j|)``. In both the moved model is neither
    infeasible nor unbounded.
    """
    if model.has_quadratic_objective or model.has_quadratic_rows:
        return None
    if any(_moves(v) for v in (model.A.data, model.row_lower, model.row_upper, model.lb,
                               model.ub)):
        return None
    c, lb, ub = model.obj, model.lb, model.ub
    pos = ((c > 0) & (lb >= 0)) | ((c < 0) & (ub <= 0)) | (c == 0)  # c_j x_j >= 0
    neg = ((c > 0) & (ub <= 0)) | ((c < 0) & (lb >= 0)) | (c == 0)  # c_j x_j <= 0
    if pos.all() or neg.all():
        return PERTURBATION * abs(objective - model.obj_constant)
    moved = (c != np.round(c))
    reach = np.maximum(np.abs(lb[moved]), np.abs(ub[moved]))
    if np.all(np.isfinite(reach)):
        return PERTURBATION * float(np.sum(np.abs(c[moved]) * reach))
    return None


def stability_filter(model: CanonicalModel, objective: float, threads: int | None = None,
                     time_limit: float | None = None, x: np.ndarray | None = None,
                     heuristics: bool = True) -> tuple[Rejection | None, float]:
    """Coefficient range above 1e9, or an optimum that moves more than 1e-4 (relative) when
    the data move by 1e-9. Returns the rejection (if any) and the seconds spent solving.

    ``x`` (the optimum already found) seeds a MILP re-solve as its MIP start: it only gives the
    search an incumbent (feasible within the solver's tolerances, since the data moved by
    1e-9), and the moved model's optimum is still proven by the search. ``heuristics`` is
    passed on to the solver."""
    spread = coefficient_range(model)
    if spread > COEF_RANGE:
        return Rejection("numerically_unstable", f"coefficient range {spread:.3g}"), 0.0
    if model.has_quadratic_rows or (model.has_quadratic_objective and model.is_mip):
        return None, 0.0  # HiGHS cannot re-solve these; the range check is all we do
    # Only objective coefficients move and the optimum provably moves by less than the
    # threshold (see ``objective_move_bound``): the re-solve could not change the verdict.
    # This skips ~60% of re-solves of the default mix (costs on flows, assignments, tours).
    bound = objective_move_bound(model, objective)
    if bound is not None and bound <= SENSITIVITY * max(1.0, abs(objective)):
        return None, 0.0
    moved_model = perturbed(model)
    if _same_data(moved_model, model):
        return None, 0.0  # all data integral: nothing moves, so nothing can move the optimum
    # Re-solved by Gurobi where its licence allows (3-5x faster than HiGHS on the families'
    # MILPs, about 3x on their LPs and QPs, build included; measured); HiGHS takes the rest.
    r: SolveResult | None = solve_gurobi(moved_model, time_limit=time_limit, threads=threads,
                                         heuristics=heuristics, start=x)
    if r.status in (SolveStatus.SKIPPED_LICENSE, SolveStatus.UNSUPPORTED, SolveStatus.ERROR):
        r = None
    if r is None:
        r = solve_highs(moved_model, time_limit=time_limit, threads=threads,
                        heuristics=heuristics)
    if r.status is SolveStatus.TIME_LIMIT:  # not evidence of instability: say what it is
        return Rejection("time_limit", f"the stability re-solve ({r.solver}, data moved by "
                         f"1e-9) hit the time limit of {time_limit}s"), r.runtime_s
    if r.status is not SolveStatus.OPTIMAL:
        return Rejection("numerically_unstable", f"a 1e-9 perturbation makes it "
                         f"{r.status.value}"), r.runtime_s
    moved = abs(r.objective - objective) / max(1.0, abs(objective))  # type: ignore[operator]
    if moved > SENSITIVITY:
        return Rejection("numerically_unstable", f"a 1e-9 perturbation moves the optimum by "
                         f"{moved:.2e} (relative)"), r.runtime_s
    return None, r.runtime_s


def lp_relaxation(model: CanonicalModel, objective: float, threads: int | None = None,
                  time_limit: float | None = None, solved: SolveResult | None = None
                  ) -> tuple[bool, np.ndarray | None, float]:
    """Solve the LP relaxation of a MILP: (integral with the same optimum?, its x, seconds).

    ``solved``: the relaxation already solved by Gurobi on the model of its MIP solve (see
    ``solve_gurobi``). Its optimum settles a relaxation that is weaker than the MIP (the
    verdict is then "not integral" whatever vertex an LP solver returns). When the two optima
    agree, which optimal vertex comes back decides "integral", and LP solvers break such ties
    differently, so HiGHS decides as it always has (also when Gurobi gave no optimum).
    """
    spent = 0.0
    if solved is not None:
        spent = solved.runtime_s
        if solved.status is SolveStatus.OPTIMAL and solved.x is not None and \
                not objectives_agree(solved.objective, objective):  # type: ignore[arg-type]
            return False, solved.x, spent
    # Semi variables relax to [min(lb, 0), max(ub, 0)] (their 0 joins the range).
    relaxed = model.replace(validate=False, var_types=np.full(model.num_vars, "C"),
                            lb=np.where(model.semi, np.minimum(model.lb, 0.0), model.lb),
                            ub=np.where(model.semi, np.maximum(model.ub, 0.0), model.ub))
    r = solve_highs(relaxed, time_limit=time_limit, keep_solution=True, threads=threads)
    spent += r.runtime_s
    if r.status is not SolveStatus.OPTIMAL or r.x is None:
        return False, None, spent
    ints = model.integral
    integral = bool(np.all(np.abs(r.x[ints] - np.round(r.x[ints])) <= 1e-6))
    same = objectives_agree(r.objective, objective)  # type: ignore[arg-type]
    return integral and same, r.x, spent
