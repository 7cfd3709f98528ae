"""Semantic post-checks: each rejects a hand-built bad child, with its reason, and accepts its
good twin (real models, solved by HiGHS and Gurobi); an operator's own check runs on its
children only, at its declared place."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.generate.mutate import apply
from ortrex.engine.generate.postchecks import MODEL_CHECKS, checks_for, one_tour
from ortrex.engine.operators.objective import zero_worst_case
from ortrex.engine.operators.registry import Origin, made_from
from tests.engine.family_checks import rejection_reason, with_param
from tests.samples import verified_parent


def test_a_tour_without_subtour_rows_is_rejected_and_the_whole_tsp_accepted() -> None:
    sm, inst, _, x, obj = verified_parent("tsp_mtz")
    assert one_tour(sm, inst, x, obj) is None and rejection_reason(sm) is None
    # Two cycles through all the homes: degree rows hold, the story's "closed tour" does not.
    n = len(sm.set_map["N"])
    pos = {name: k for k, name in enumerate(inst.var_names)}
    homes = sm.set_map["N"].elements
    split = np.zeros_like(x)
    for cycle in (list(range(0, 2)), list(range(2, n))):
        for a, b in zip(cycle, cycle[1:] + cycle[:1], strict=True):
            split[pos[f"x[{homes[a]},{homes[b]}]"]] = 1.0
    assert "no single tour" in (one_tour(sm, inst, split, obj) or "")
    # What remove_constraint once did: the subtour rows gone, the optimum falls apart.
    child = replace(sm, constraints=tuple(c for c in sm.constraints if c.role != "subtour"))
    assert rejection_reason(child) == "postcheck:one_tour"


def test_a_profit_that_loses_money_is_rejected() -> None:
    sm, _, values, _, _ = verified_parent("transportation")
    good = apply("cost_to_profit", sm, values, np.random.default_rng(0)).child
    assert good.objective.sense == "max" and rejection_reason(good) is None
    price = next(p for p in good.params if p.name.startswith("price"))
    # Sales up to demand at a give-away price: nothing is sold (a zero plan, degenerate).
    assert rejection_reason(with_param(good, price.name, np.full_like(price.values, 0.01))) == \
        "degenerate"
    # Orders that must all be filled at that price lose money.
    filled = replace(good, constraints=tuple(replace(c, sense=">=") if c.name == "demand_met"
                                             else c for c in good.constraints))
    bad = with_param(filled, price.name, np.full_like(price.values, 0.01))
    assert rejection_reason(bad) == "postcheck:unprofitable"


def test_fractional_start_ups_are_rejected() -> None:
    sm = verified_parent("unit_commitment")[0]
    assert rejection_reason(sm) is None
    # The on/off decisions relaxed: output follows demand with fractional commitments.
    bad = replace(sm, variables=tuple(replace(v, vtype="C") if v.name == "on" else v
                                      for v in sm.variables))
    assert rejection_reason(bad) == "postcheck:fractional_indicator"


def test_a_capacity_nowhere_near_used_is_rejected() -> None:
    sm = verified_parent("transportation")[0]
    assert rejection_reason(sm) is None
    supply = sm.param_map["supply"].values
    assert rejection_reason(with_param(sm, "supply", supply * 20)) == "postcheck:slack_capacity"


def test_an_item_that_can_never_fit_is_rejected() -> None:
    sm = verified_parent("knapsack_01")[0]
    assert rejection_reason(sm) is None
    weight = sm.param_map["weight"].values.copy()
    weight[0] = float(sm.param_map["capacity"].values) + 1
    assert rejection_reason(with_param(sm, "weight", weight)) == "postcheck:unusable_item"


@pytest.mark.parametrize(("objective", "rejected"), [(0.0, True), (12.5, False)])
def test_a_min_max_worst_case_of_zero_decides_nothing(objective: float, rejected: bool) -> None:
    sm, inst, values, x, _ = verified_parent("transportation")
    child = apply("objective_minmax", sm, values, np.random.default_rng(0)).child
    assert bool(zero_worst_case(child, inst, x, objective)) is rejected
    # Only a min-max child is judged so: the parent is not.
    assert "zero_worst_case" in dict(checks_for(child))
    assert "zero_worst_case" not in dict(checks_for(sm))


def test_operator_checks_run_where_they_always_ran() -> None:
    """The order decides the reason when several checks fail: a loss before its idle
    capacity, a zero worst case last."""
    sm = verified_parent("transportation")[0]
    assert [n for n, _ in checks_for(sm)] == list(MODEL_CHECKS) == [
        "one_tour", "fractional_indicator", "slack_capacity", "unusable_item"]
    # A lineage through both operators (in either order) brings both checks, in one order.
    for made in (["objective_minmax", "cost_to_profit"], ["cost_to_profit", "objective_minmax"]):
        both = replace(sm, descriptors={**sm.descriptors, "mutations": made})
        assert [n for n, _ in checks_for(both)] == [
            "one_tour", "unprofitable", "profit_loop", "over_delivery", "fractional_indicator",
            "slack_capacity", "unusable_item", "zero_worst_case"]


def test_checks_against_the_parent_run_on_the_operators_own_children() -> None:
    """``constant_term`` and ``non_binding`` compare a child with its parent: they run while
    the mutate job verifies a child of their operator, never on a descendant or a fresh
    instance."""
    sm, inst, _, x, obj = verified_parent("transportation")
    made = replace(sm, descriptors={**sm.descriptors,
                                    "mutations": ["add_constraint", "cost_to_profit"]})
    names = [n for n, _ in checks_for(made)]
    assert "non_binding" not in names and "constant_term" not in names
    with made_from(Origin("cost_to_profit", sm, inst, x, obj)):
        names = [n for n, _ in checks_for(made)]
    assert names[-1] == "constant_term" and "non_binding" not in names
    with made_from(Origin("add_constraint", sm, inst, x, obj)):
        assert [n for n, _ in checks_for(made)][-1] == "non_binding"
