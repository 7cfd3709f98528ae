"""One generation task: sample, ground, solve with both solvers, check, filter, score.

Runs in a worker process; returns plain rows for the single writer. Everything but the
duplicate check (which needs the store) happens here.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.difficulty import difficulty
from ortrex.engine.generate.filters import (
    Rejection,
    agreement_filter,
    degenerate_filter,
    lp_relaxation,
    stability_filter,
    status_filter,
    triviality_filter,
)
from ortrex.engine.generate.postchecks import postcheck
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.solution import SolutionCheck, check_solution
from ortrex.verifiers.solvers import SolveResult, SolveStatus, solve_gurobi, solve_highs


@dataclass
class Outcome:
    """What verifying one instance found."""

    accepted: bool
    rejection: Rejection | None
    results: list[SolveResult]
    checks: dict[str, SolutionCheck]
    objective: float | None
    flags: list[str]
    score: float
    band: str
    solver_seconds: float


def verification_rows(subject_id: str, o: Outcome) -> list[dict[str, Any]]:
    """The ``verifications`` rows of an instance's solver runs (without run stamps): status,
    objective, effort, the independent solution check, and at a time limit the best bound
    and incumbent."""
    from ortrex.store.ids import verification_id
    from ortrex.store.records import pack_solution

    rows = []
    for res in o.results:
        chk = o.checks.get(res.solver)
        details: dict[str, Any] = {
            "message": res.message, "nodes": res.nodes, "iterations": res.iterations,
            "solution_check": None if chk is None else
            {"ok": chk.ok, "max_violation": chk.max_violation, "objective": chk.objective,
             "worst": chk.worst}}
        if res.status is SolveStatus.TIME_LIMIT:
            details.update(bound=res.bound, incumbent=res.incumbent)
        rows.append({
            "id": verification_id(subject_id, res.solver), "subject_id": subject_id,
            "subject_kind": "instance", "verifier": res.solver, "status": res.status.value,
            "objective": res.objective, "runtime_s": res.runtime_s,
            "details": json.dumps(details, sort_keys=True), "solution": pack_solution(res.x),
            "solver_version": res.solver_version})
    return rows


def verify(model: CanonicalModel, semantic: SemanticModel | None = None,
           time_limit: float = 10.0, threads: int | None = 1,
           solvers: tuple[str, ...] = ("highs", "gurobi"), heuristics: bool = True) -> Outcome:
    """Solve independently with each solver, check every solution, then run the filters.

    ``heuristics=False`` (generated and mutated instances: small models proven to a 1e-9 gap)
    turns the solvers' MIP heuristics off; they find incumbents sooner, never another optimum.
    """
    linear_mip = model.is_mip and not model.has_quadratic_objective and \
        not model.has_quadratic_rows
    results: list[SolveResult] = []
    for s in sorted(solvers, key=lambda s: s != "gurobi"):
        if s == "gurobi":
            results.append(solve_gurobi(model, time_limit=time_limit, keep_solution=True,
                                        threads=threads, heuristics=heuristics,
                                        relaxation=linear_mip))
            continue
        # HiGHS starts from Gurobi's incumbent where that one checks out: it finds the plan
        # again for free, and still proves the bound itself (a wrong optimum either fails its
        # feasibility check or is beaten), at a fraction of the tree (flow_shop's large band:
        # 3.1 s -> 0.13 s).
        prior = next((r for r in results if r.x is not None and
                      r.status is SolveStatus.OPTIMAL), None)
        start = prior.x if linear_mip and prior is not None and \
            check_solution(model, prior.x).ok else None
        results.append(solve_highs(model, time_limit=time_limit, keep_solution=True,
                                   threads=threads, heuristics=heuristics, incumbent=start))
    results.sort(key=lambda r: solvers.index(r.solver))  # the callers' order, as before
    solver_s = sum(r.runtime_s for r in results)
    checks = {r.solver: check_solution(model, r.x) for r in results if r.x is not None}
    optimal = [r for r in results if r.status is SolveStatus.OPTIMAL]
    # Effort by HiGHS's counts (it always runs; one thread, so the counts are the same on any
    # machine); Gurobi's when HiGHS could not take the model.
    effort = next((r for r in results if r.solver == "highs" and r.status not in (
        SolveStatus.UNSUPPORTED, SolveStatus.ERROR)), results[-1])
    diff = difficulty(model, effort.nodes, effort.iterations)
    flags: list[str] = []
    if any(r.status in (SolveStatus.SKIPPED_LICENSE, SolveStatus.UNSUPPORTED) for r in results):
        flags.append("single_solver")
    rejection = status_filter(results) or agreement_filter(results, checks)
    objective = optimal[0].objective if optimal else None
    if rejection is None:
        x = optimal[0].x
        assert x is not None and objective is not None
        relaxed_x, integral = None, False
        if linear_mip:
            # Gurobi solved the relaxation on its own model after its MIP solve (a third of
            # the cost of building and solving it anew in HiGHS); HiGHS solves it again only
            # where that cannot settle the verdict (see ``lp_relaxation``).
            solved = next((r.relaxation for r in results if r.relaxation is not None), None)
            integral, relaxed_x, spent = lp_relaxation(model, objective, threads, time_limit,
                                                       solved)
            solver_s += spent
            if integral:
                flags.append("lp_relaxation_integral")
        rejection = degenerate_filter(model, x, relaxed_x) or postcheck(semantic, model, x,
                                                                        objective)
        if rejection is None and semantic is not None:  # generated: the triviality gate
            rejection = triviality_filter(model, semantic, x, integral)
    if rejection is None:
        rejection, spent = stability_filter(model, objective, threads,  # type: ignore[arg-type]
                                            time_limit, x=optimal[0].x, heuristics=heuristics)
        solver_s += spent
    return Outcome(rejection is None, rejection, results, checks, objective, flags, diff.score,
                   diff.band, solver_s)


@dataclass
class TaskResult:
    """Everything the writer needs about one task (picklable, no live objects)."""

    task: int
    family: str
    semantic: SemanticModel
    model: CanonicalModel
    outcome: Outcome
    seconds: float
    timings: dict[str, float] = field(default_factory=dict)


def task_seed(seed: int, task: int) -> np.random.Generator:
    """The random generator of one task: independent of every other task and of the order."""
    return np.random.default_rng(np.random.SeedSequence([seed, task]))


def run_task(family: str, size: str, seed: int, task: int, time_limit: float,
             threads: int | None = 1) -> TaskResult:
    """Sample one instance of ``family`` and verify it."""
    t0 = time.perf_counter()
    sm = REGISTRY[family].sample(task_seed(seed, task), size)
    t1 = time.perf_counter()
    model = sm.ground()
    t2 = time.perf_counter()
    _ = model.structural_fingerprint  # computed here, in the worker
    t3 = time.perf_counter()
    outcome = verify(model, sm, time_limit=time_limit, threads=threads, heuristics=False)
    t4 = time.perf_counter()
    return TaskResult(task, family, sm, model, outcome, t4 - t0,
                      {"sample": t1 - t0, "ground": t2 - t1, "fingerprint": t3 - t2,
                       "verify": t4 - t3, "solvers": outcome.solver_seconds})


def describe(result: TaskResult) -> dict[str, Any]:
    """A short JSON-friendly summary of a task (for logs and tests)."""
    o = result.outcome
    return {"task": result.task, "family": result.family, "accepted": o.accepted,
            "reason": o.rejection.reason if o.rejection else None, "objective": o.objective,
            "band": o.band, "flags": o.flags}
