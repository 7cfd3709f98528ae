"""Operators that carry a model into another problem class: a piecewise-linear cost, demand
scenarios with recourse, backorders between periods and time windows on routes. Each child is
solved for real and read back: the new structure holds in the optimum and means what the
statement says; each refuses a model it does not fit, and one that decides nothing is
rejected by its post-check."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.generate.mutate import NotApplicable, apply, family_values
from ortrex.engine.generate.pipeline import verify
from ortrex.engine.operators.registry import OPERATORS, Origin, made_from
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.solvers import objectives_agree, solve_highs
from tests.samples import verified_parent

CROSS = ("piecewise_cost", "scenario_demand", "backorders", "time_windows")


def _child(op: str, family: str, seed: int = 0, parent: tuple | None = None
           ) -> tuple[SemanticModel, dict]:
    parent = parent or verified_parent(family)
    m = apply(op, parent[0], parent[2], np.random.default_rng(seed))
    return m.child, m.params


def _solved(sm: SemanticModel) -> tuple[dict[str, np.ndarray], float]:
    inst = sm.ground()
    res = solve_highs(inst, keep_solution=True)
    assert res.x is not None and res.objective is not None, res.message
    return family_values(sm, list(inst.var_names), res.x), float(res.objective)


def _verdict(child: SemanticModel, op: str, parent: tuple) -> str | None:
    """The mutate job's verdict on ``child`` (None: accepted), knowing its parent."""
    with made_from(Origin(op, parent[0], parent[1], parent[3], parent[4])):
        out = verify(child.ground(), child, heuristics=False)
    return out.rejection.reason if out.rejection else None


def test_the_operators_are_registered_with_their_post_checks() -> None:
    for op in CROSS:
        assert op in OPERATORS and OPERATORS[op].summary
    assert {c.name for c in OPERATORS["piecewise_cost"].postchecks} == {"non_binding",
                                                                         "constant_term"}
    assert OPERATORS["backorders"].postcheck.name == "non_binding"


@pytest.mark.parametrize("seed", range(6))
def test_a_tiered_cost_charges_exactly_what_lies_beyond_each_tier(seed: int) -> None:
    parent = verified_parent("transportation")
    child, info = _child("piecewise_cost", "transportation", seed, parent)
    values, objective = _solved(child)
    x = values[info["variable"]]
    names = {p.name for p in child.params} - {p.name for p in parent[0].params}
    tier = next(child.param_map[n].values for n in names if n.endswith("_tier"))
    rate = next(child.param_map[n].values for n in names if n.endswith(("_surcharge",
                                                                          "_discount")))
    beyond = values[next(v.name for v in child.variables if v.name.endswith("_beyond"))]
    base = float((parent[0].param_map["cost"].values * x).sum())
    if info["kind"] == "surcharge":
        # What is paid beyond a tier is exactly the excess (never more: it is minimised).
        assert np.allclose(beyond, np.maximum(x - tier, 0.0), atol=1e-6)
        assert objectives_agree(base + float((rate * beyond).sum()), objective)
        assert objective >= parent[4] - 1e-6
    else:
        on = values[next(v.name for v in child.variables if v.name.endswith("_discounted"))]
        # A discount only on the units past a tier that is reached, never more than them.
        assert np.all(beyond <= np.maximum(x - tier, 0.0) + 1e-6)
        assert np.all((np.round(on) == 1) <= (x >= tier - 1e-6))
        assert objectives_agree(base - float((rate * beyond).sum()), objective)
        assert objective <= parent[4] + 1e-6
    assert np.all(rate > 0) and np.all(tier >= 1)


def test_both_kinds_of_piecewise_cost_are_made() -> None:
    parent = verified_parent("diet")  # a cost per dish and a cap per dish: both kinds fit
    kinds = {_child("piecewise_cost", "diet", seed, parent)[1]["kind"] for seed in range(12)}
    assert kinds == {"surcharge", "discount"}


@pytest.mark.parametrize("family", ["transportation", "diet"])
def test_scenarios_replace_the_demand_and_the_shortfall_is_bought_at_the_premium(
        family: str) -> None:
    parent = verified_parent(family)
    child, info = _child("scenario_demand", family, 1, parent)
    old = info["constraint"]
    names = {c.name for c in child.constraints}
    assert old not in names and f"{old}_scenarios" in names
    S = next(s for s in child.sets if s.entity == "scenario")
    assert len(S) == info["scenarios"] in (3, 4)
    prob = next(p for p in child.params if p.index == (S.name,)).values
    assert np.isclose(prob.sum(), 1.0) and np.all(prob > 0)
    # The demand the parent planned for is gone (the scenarios are the only demand told).
    rhs = next(c.rhs.name for c in parent[0].constraints if c.name == old)
    assert rhs not in child.param_map
    scen = child.param_map[f"{rhs}_scenario"].values
    assert scen.shape == (len(S), *parent[0].param_map[rhs].values.shape)
    assert np.all(np.diff(scen.sum(axis=tuple(range(1, scen.ndim)))) > 0)  # low to high
    values, objective = _solved(child)
    short = values["short"]
    premium = float(child.param_map["shortfall_premium"].values)
    first_stage = objective - premium * float(np.tensordot(prob, short, axes=(0, 0)).sum())
    assert first_stage > 0 and short.min() >= -1e-9
    assert _verdict(child, "scenario_demand", parent) is None


def test_backorders_carry_the_shortfall_and_clear_it_by_the_end() -> None:
    parent = verified_parent("lot_sizing")
    accepted = 0
    for seed in range(6):
        child, _ = _child("backorders", "lot_sizing", seed, parent)
        if _verdict(child, "backorders", parent) is not None:
            continue
        accepted += 1
        values, objective = _solved(child)
        late, stock = values["backlog"], values["s"]
        assert late.max() > 1e-6, "an accepted child uses its backlog"
        assert np.all(late[:, -1] <= 1e-6)  # nothing owed after the last period
        assert objective < parent[4] - 1e-6  # owing is cheaper than setting up at once
        # Net stock is what the balance carries: never stock and backlog of one product at
        # once at the optimum (both cost).
        assert np.all(np.minimum(late, stock) <= 1e-6)
    assert accepted >= 2


def test_a_backlog_nobody_uses_is_rejected_as_non_binding() -> None:
    parent = verified_parent("lot_sizing")
    child, _ = _child("backorders", "lot_sizing", 0, parent)
    cost = child.param_map["backlog_cost"]
    dear = replace(cost, values=cost.values * 1e4)
    child = replace(child, params=tuple(dear if p.name == cost.name else p
                                        for p in child.params))
    assert _verdict(child, "backorders", parent) == "postcheck:non_binding"


@pytest.mark.parametrize("family", ["workforce_planning", "multi_echelon",
                                    "backorder_planning"])
def test_backorders_refuse_stock_that_owes_no_customer(family: str) -> None:
    parent = verified_parent(family)
    with pytest.raises(NotApplicable, match="stock carried"):
        apply("backorders", parent[0], parent[2], np.random.default_rng(0))


@pytest.mark.parametrize("seed", range(4))
def test_routes_keep_the_windows_the_parent_broke(seed: int) -> None:
    parent = verified_parent("cvrp", seed=seed)
    child, info = _child("time_windows", "cvrp", seed, parent)
    assert info["stops_broken"] >= 1
    values, objective = _solved(child)
    arrive = values["arrive"]
    opens, closes = child.param_map["opens"].values, child.param_map["closes"].values
    assert np.all(arrive >= opens - 1e-6) and np.all(arrive <= closes + 1e-6)
    # Along every used arc the later stop is reached no sooner than the drive allows.
    pace = float(child.param_map["pace"].values) if "pace" in child.param_map else 1.0
    dist = child.param_map["dist"].values
    x = np.round(values["x"])
    for i, j in zip(*np.nonzero(x == 1), strict=True):
        assert arrive[j] >= arrive[i] + pace * dist[i, j] - 1e-6
    assert objective >= parent[4] - 1e-6  # the windows cost distance, never save it
    assert _verdict(child, "time_windows", parent) is None


@pytest.mark.parametrize(("family", "why"), [("vrptw", "no tour"),
                                             ("pickup_delivery", "no tour")])
def test_time_windows_refuse_routes_already_timed_or_ordered(family: str, why: str) -> None:
    parent = verified_parent(family)
    with pytest.raises(NotApplicable, match=why):
        apply("time_windows", parent[0], parent[2], np.random.default_rng(0))
