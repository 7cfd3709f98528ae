"""The generation rate's shortcuts keep every verdict: the stability re-solve skipped only where
a proven bound decides it, Gurobi's LP relaxation, lean solver settings, MIP starts."""

from __future__ import annotations

import math

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.filters import (
    PERTURBATION,
    SENSITIVITY,
    lp_relaxation,
    objective_move_bound,
    perturbed,
    stability_filter,
)
from ortrex.engine.generate.pipeline import task_seed
from ortrex.ir import CanonicalModel, Constraint, Objective, Variable
from ortrex.verifiers.solution import objective_value
from ortrex.verifiers.solvers import SolveStatus, solve_gurobi, solve_highs

# Families whose data moves only in the objective (costs on flows, assignments, tours) and
# ones whose rows move too; (family, size, seeds).
OBJECTIVE_ONLY = [("min_cost_flow", "medium", 3), ("transportation", "medium", 3),
                  ("facility_location", "small", 3), ("tsp_mtz", "small", 2)]
MIPS = [("knapsack_01", "medium"), ("set_cover", "medium"), ("facility_location_cap", "small"),
        ("lot_sizing", "small"), ("machine_scheduling", "small"), ("cutting_stock", "small"),
        ("capital_budgeting", "medium"), ("bin_packing", "small")]


def model(family: str, size: str, k: int) -> CanonicalModel:
    return REGISTRY[family].sample(task_seed(14, k), size).ground()


@pytest.mark.parametrize(("family", "size", "seeds"), OBJECTIVE_ONLY)
def test_the_objective_bound_holds_against_the_resolve_it_skips(family: str, size: str,
                                                               seeds: int) -> None:
    for k in range(seeds):
        m = model(family, size, k)
        f = solve_highs(m, threads=1).objective
        assert f is not None
        bound = objective_move_bound(m, f)
        assert bound is not None and bound <= 2 * PERTURBATION * abs(f) + 1e-12
        rej, spent = stability_filter(m, f, threads=1)
        assert rej is None and spent == 0.0  # decided by the bound, nothing solved
        # The re-solve it skipped: the optimum moves by no more than the bound (and solver
        # noise), so it would have said the same.
        moved = solve_highs(perturbed(m), threads=1).objective
        assert moved is not None
        assert abs(moved - f) <= bound + 1e-9 * max(1.0, abs(f)), (family, k, moved, f, bound)
        assert abs(moved - f) / max(1.0, abs(f)) <= SENSITIVITY


def lp(obj: dict[str, float], rows: list[Constraint], ub: float = math.inf,
       sense: str = "max", lb: float = 0.0) -> CanonicalModel:
    return CanonicalModel.from_items(
        [Variable("x", lb=lb, ub=ub), Variable("y", lb=lb, ub=ub)], Objective(sense, obj), rows)


def test_no_bound_without_one_sign_or_bounded_moves() -> None:
    rows = [Constraint.from_sense("a", {"x": 1, "y": -1}, "<=", 1),
            Constraint.from_sense("b", {"x": 1}, "<=", 5)]
    # A revenue and a cost on unbounded quantities: terms of both signs, nothing bounds y.
    mixed = lp({"x": 1.5, "y": -0.7}, rows)
    f = solve_highs(mixed).objective
    assert objective_move_bound(mixed, f) is None
    rej, spent = stability_filter(mixed, f)
    assert rej is None and spent > 0.0  # re-solved
    # The same with every moved variable bounded: sum |c_j| max(|lb_j|, |ub_j|) * 1e-9.
    boxed = lp({"x": 1.5, "y": -0.7}, rows, ub=10.0)
    assert objective_move_bound(boxed, 5.0) == pytest.approx(PERTURBATION * (15 + 7))
    # Row data that moves: no bound (the feasible set moves).
    moving_rows = lp({"x": 1.5, "y": 1.0}, [Constraint.from_sense("a", {"x": 1.25, "y": 1}, "<=",
                                                                   4)])
    assert objective_move_bound(moving_rows, 4.0) is None
    # One sign: costs on non-negative quantities, minimised.
    costs = lp({"x": 1.5, "y": 0.7}, [Constraint.from_sense("a", {"x": 1, "y": 1}, ">=", 3)],
               sense="min")
    assert objective_move_bound(costs, 2.1) == pytest.approx(PERTURBATION * 2.1)


def test_gurobis_relaxation_is_the_models_relaxation() -> None:
    # Gurobi rounds an integer variable's bounds (y <= 2.5 becomes 2) and a semi-continuous
    # variable relaxes to [0, ub]: the relaxation must use the model's own data.
    m = CanonicalModel.from_items(
        [Variable("x", "C", 0, 10), Variable("y", "I", 0, 2.5), Variable("s", "S", 2, 4)],
        Objective("max", {"x": 1.0, "y": 3.0, "s": 1.0}),
        [Constraint.from_sense("cap", {"x": 2, "y": 1, "s": 1}, "<=", 6.2),
         Constraint.from_sense("link", {"x": 1, "y": -1}, ">=", -0.5)])
    g = solve_gurobi(m, keep_solution=True, relaxation=True)
    assert g.status is SolveStatus.OPTIMAL and g.relaxation is not None
    rel = g.relaxation
    _, hx, _ = lp_relaxation(m, math.inf)  # HiGHS's relaxation (no Gurobi result given)
    assert hx is not None
    assert rel.objective == pytest.approx(objective_value(m, hx), abs=1e-7)
    assert rel.x is not None and rel.x[1] > 2.0 + 1e-6  # the fractional bound 2.5 is used
    assert g.to_dict().keys() == solve_highs(m).to_dict().keys()  # no relaxation in the row


@pytest.mark.parametrize(("family", "size"), MIPS)
def test_lp_relaxation_verdicts_are_those_of_highs(family: str, size: str) -> None:
    for k in range(3):
        m = model(family, size, k)
        g = solve_gurobi(m, keep_solution=True, threads=1, relaxation=True)
        assert g.status is SolveStatus.OPTIMAL and g.relaxation is not None, family
        mine = lp_relaxation(m, g.objective, threads=1, solved=g.relaxation)  # type: ignore[arg-type]
        highs = lp_relaxation(m, g.objective, threads=1)  # type: ignore[arg-type]
        assert mine[0] == highs[0], (family, k)
        assert mine[1] is not None and highs[1] is not None
        # Whichever LP solver gave the vertex, it is an optimum of the same relaxation.
        assert objective_value(m, mine[1]) == pytest.approx(objective_value(m, highs[1]),
                                                             rel=1e-7, abs=1e-7)


@pytest.mark.parametrize(("family", "size"), MIPS)
def test_lean_settings_and_a_start_prove_the_same_optima(family: str, size: str) -> None:
    m = model(family, size, 7)
    full_h = solve_highs(m, threads=1, keep_solution=True)
    lean_h = solve_highs(m, threads=1, heuristics=False)
    full_g = solve_gurobi(m, threads=1)
    lean_g = solve_gurobi(m, threads=1, heuristics=False, start=full_h.x)
    values = [r.objective for r in (full_h, lean_h, full_g, lean_g)]
    assert all(r.status is SolveStatus.OPTIMAL for r in (full_h, lean_h, full_g, lean_g))
    assert np.allclose(values, values[0], rtol=1e-9, atol=1e-9), (family, values)
