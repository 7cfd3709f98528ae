"""Solver statuses of HiGHS and Gurobi on models built to produce each of them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp

from ortrex.ir import CanonicalModel, Constraint, Objective, Variable
from ortrex.verifiers.solvers import (
    SolveStatus,
    hessian_is_convex,
    objectives_agree,
    solve,
    solve_gurobi,
    solve_highs,
)

BOTH = [solve_highs, solve_gurobi]


def lp(sense: str = "max", rows: list[Constraint] | None = None) -> CanonicalModel:
    return CanonicalModel.from_items(
        [Variable("x"), Variable("y", "I", 0, 10)],
        Objective(sense, {"x": 3, "y": 2}, 1.0),
        rows if rows is not None else [Constraint.from_sense("c", {"x": 1, "y": 1}, "<=", 4.5),
                                       Constraint("r", {"x": 1, "y": -1}, -1.0, 1.0)])


@pytest.mark.parametrize("fn", BOTH)
def test_optimal(fn) -> None:  # type: ignore[no-untyped-def]
    r = fn(lp(), keep_solution=True)
    assert r.status is SolveStatus.OPTIMAL
    # x <= y + 1, x + y <= 4.5, y integer: y = 2, x = 2.5 gives 3*2.5 + 2*2 + 1 = 12.5
    assert r.objective == pytest.approx(12.5)
    assert r.x is not None and r.x[:2] == pytest.approx([2.5, 2.0])


@pytest.mark.parametrize("fn", BOTH)
def test_infeasible(fn) -> None:  # type: ignore[no-untyped-def]
    m = lp(rows=[Constraint.from_sense("a", {"x": 1, "y": 1}, ">=", 30),
                 Constraint.from_sense("b", {"x": 2}, "<=", 10)])
    assert fn(m).status is SolveStatus.INFEASIBLE


@pytest.mark.parametrize("fn", BOTH)
def test_unbounded(fn) -> None:  # type: ignore[no-untyped-def]
    m = lp(rows=[Constraint.from_sense("a", {"x": 1, "y": -1}, ">=", 0)])
    assert fn(m).status is SolveStatus.UNBOUNDED


@pytest.mark.parametrize("fn", BOTH)
def test_free_integer_ray_is_unbounded_not_ambiguous(fn) -> None:  # type: ignore[no-untyped-def]
    m = CanonicalModel(var_names=["a", "b"], var_types="II", lb=[-math.inf] * 2,
                       ub=[math.inf] * 2, obj=[1.0, 1.0], sense="max",
                       A=sp.csr_matrix([[1.0, -1.0]]), row_lower=[0.0], row_upper=[0.0])
    assert fn(m).status is SolveStatus.UNBOUNDED


def test_highs_refuses_what_it_cannot_certify() -> None:
    qc = lp(rows=[Constraint.from_sense("q", {"x": 1}, "<=", 4, quad={("y", "y"): 1.0})])
    assert solve_highs(qc).status is SolveStatus.UNSUPPORTED
    assert solve_gurobi(qc).status is SolveStatus.OPTIMAL
    miqp = lp().replace(qobj=([0], [1], [-1.0]))
    assert solve_highs(miqp).status is SolveStatus.UNSUPPORTED
    nonconvex = CanonicalModel(var_names=["a", "b"], ub=[1.0, 1.0], qobj=([0], [1], [-1.0]))
    assert hessian_is_convex(nonconvex) is False
    assert solve_highs(nonconvex).status is SolveStatus.UNSUPPORTED
    g = solve_gurobi(nonconvex)
    assert g.status is SolveStatus.OPTIMAL and g.objective == pytest.approx(-1.0)


def test_convex_qp_agrees() -> None:
    m = CanonicalModel(var_names=["a", "b"], lb=[-5, -5], ub=[5, 5], obj=[-1.0, -2.0],
                       qobj=([0, 1, 0], [0, 1, 1], [1.0, 1.0, 0.5]))
    assert hessian_is_convex(m) is True
    h, g = solve_highs(m), solve_gurobi(m)
    assert h.status is g.status is SolveStatus.OPTIMAL
    assert objectives_agree(h.objective, g.objective)


def test_gurobi_licence_limit_is_explicit() -> None:
    n = 2001
    big = CanonicalModel(var_names=[f"x{j}" for j in range(n)], obj=np.ones(n),
                         A=sp.csr_matrix(np.ones((1, n))), row_lower=[1.0])
    r = solve_gurobi(big)
    assert r.status is SolveStatus.SKIPPED_LICENSE and "licence" in r.message
    assert solve_highs(big).status is SolveStatus.OPTIMAL


@pytest.mark.parametrize("fn", BOTH)
def test_timeout(fn) -> None:  # type: ignore[no-untyped-def]
    rng = np.random.default_rng(1)
    n, m = 60, 30
    A = sp.csr_matrix(rng.integers(1, 100, (m, n)).astype(float))
    knap = CanonicalModel(var_names=[f"x{j}" for j in range(n)], var_types="B" * n,
                          obj=rng.integers(1, 100, n).astype(float), sense="max", A=A,
                          row_upper=A.sum(axis=1).A1 / 3)
    assert fn(knap, time_limit=0.0).status is SolveStatus.TIME_LIMIT


def test_agreement_rule() -> None:
    assert objectives_agree(1e9, 1e9 + 900)
    assert not objectives_agree(1e9, 1e9 + 1100)
    assert objectives_agree(0.0, 9e-7) and not objectives_agree(0.0, 2e-6)


def test_unknown_solver() -> None:
    with pytest.raises(ValueError, match="unknown solver"):
        solve(lp(), "cplex")


@pytest.mark.parametrize(("start", "why"), [
    ([1.0, 1.0], "feasible but worse: HiGHS's own tree beats it"),
    ([4.5, 4.0], "infeasible (x + y > 4.5): HiGHS drops it"),
    ([2.5, 2.0], "the optimum itself: HiGHS proves it"),
])
def test_a_highs_start_never_decides_the_optimum(start: list[float], why: str) -> None:
    # verify() hands Gurobi's plan to HiGHS as a start; the optimum stays HiGHS's to prove.
    r = solve_highs(lp(), keep_solution=True, incumbent=np.array(start))
    assert r.status is SolveStatus.OPTIMAL, why
    assert r.objective == pytest.approx(12.5), why
    assert r.x is not None and r.x[:2] == pytest.approx([2.5, 2.0]), why


def test_gurobi_values_a_hair_outside_their_bounds_are_snapped_and_rechecked() -> None:
    # hub_location (seed 46/6, medium): Gurobi's unscaled solution had a flow 8.5e-6 below
    # its bound of 0, which the independent check refused as a solver disagreement.
    from ortrex.engine.families import REGISTRY
    from ortrex.engine.generate.pipeline import task_seed
    from ortrex.verifiers.solution import check_solution
    from ortrex.verifiers.solvers import _snapped

    inst = REGISTRY["hub_location"].sample(task_seed(46, 6), "medium").ground()
    res = solve_gurobi(inst, keep_solution=True)
    assert res.x is not None and check_solution(inst, res.x).ok
    assert np.all(res.x >= inst.lb) and np.all(res.x <= inst.ub)
    # Further out than a hair, a value stays where it is (and fails the check).
    x = np.clip(res.x.copy(), inst.lb, inst.ub)
    x[0] = inst.lb[0] - 0.5
    assert _snapped(inst, x)[0] == inst.lb[0] - 0.5
    assert not check_solution(inst, _snapped(inst, x)).ok
