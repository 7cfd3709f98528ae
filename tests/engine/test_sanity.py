"""Semantic sanity of mutated children: each check rejects a hand-built bad child with its
reason and accepts its good twin (real families, solved by HiGHS and Gurobi), and the
operators refuse what the statement does not tell."""

from __future__ import annotations

import zlib
from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.evolve import MutTask, Parent, _own_grounding, mutate_task
from ortrex.engine.generate.mutate import NotApplicable, apply, family_values
from ortrex.engine.generate.pipeline import verify
from ortrex.engine.generate.postchecks import checks_for
from ortrex.engine.operators.base import Context, removable, with_changes
from ortrex.engine.operators.constraints import _CATALOGUE
from ortrex.engine.operators.crossover import compatible
from ortrex.engine.operators.registry import Origin, made_from
from ortrex.engine.operators.sanity import over_delivery, profit_loop
from ortrex.ir.expr import Add, Neg, P, V, total
from ortrex.ir.semantic import ObjectiveSpec, Parameter, SemanticModel
from ortrex.store.records import pack_solution
from tests.samples import verified_parent


def _reason(child: SemanticModel, op: str | None = None, parent: tuple | None = None
            ) -> str | None:
    """The rejection reason of ``child`` verified as the mutate job does (knowing its parent
    when ``op`` made it from ``parent``: model, instance, values, x, objective)."""
    where = None if op is None or parent is None else \
        Origin(op, parent[0], parent[1], parent[3], parent[4])
    with made_from(where):
        out = verify(child.ground(), child, heuristics=False)
    return out.rejection.reason if out.rejection else None


def _profit(sm: SemanticModel, price: np.ndarray) -> SemanticModel:
    """``sm`` as a profit model by hand: ``price`` per unit of ``x`` minus the costs."""
    fam = sm.var_map["x"]
    idx = [i for i, _ in fam.dims]
    body = V("x", *idx) * P("price", *idx)
    for i, s in reversed(fam.dims):
        body = total(i, s, body)
    p = Parameter("price", tuple(s for _, s in fam.dims), price, "", "revenue per unit")
    o = sm.objective
    return with_changes(sm, "cost_to_profit", {}, params=(*sm.params, p),
                        objective=ObjectiveSpec("max", Add((body, Neg(o.expr))),
                                                f"profit from sales net of {o.description}")
                        ).child


def test_revenue_on_every_arc_of_a_flow_loops_and_is_refused() -> None:
    parent = verified_parent("multicommodity_flow")
    sm = parent[0]
    with pytest.raises(NotApplicable, match="not a flow on arcs"):
        apply("cost_to_profit", sm, parent[2], np.random.default_rng(0))
    cost = sm.param_map["cost"].values
    k, a = len(sm.set_map["K"]), len(sm.set_map["A"])
    # Revenue per unit on every lane: the optimum sends flow round and round the loops.
    bad = _profit(sm, np.full((k, a), 3.0 * float(cost.max())))
    assert _reason(bad) == "postcheck:profit_loop"
    out = verify(bad.ground(), bad)
    assert "circulates" in out.rejection.detail
    # Its twin earns at the sinks only: per unit delivered (in minus out) at the destination.
    head, tail = sm.param_map["head"].values, sm.param_map["tail"].values
    dest = sm.param_map["destination"].values
    unit = 2.0 * float(cost.max()) * len(sm.set_map["N"])
    price = unit * ((head[None, :] == dest[:, None]).astype(float) -
                    (tail[None, :] == dest[:, None]).astype(float))
    good = _profit(sm, price)
    assert _reason(good) is None
    inst = good.ground()
    x = verify(inst, good).results[0].x
    assert profit_loop(good, inst, x, 1.0) is None


def test_revenue_beyond_demand_is_rejected_and_sales_up_to_demand_accepted() -> None:
    parent = verified_parent("transportation")
    sm, _, values = parent[:3]
    good = apply("cost_to_profit", sm, values, np.random.default_rng(0)).child
    demand = next(c for c in good.constraints if c.name == "demand_met")
    # The requirement became a market: no more is sold than is asked for.
    assert demand.sense == "<=" and "within its demand" in demand.meaning
    assert _reason(good, "cost_to_profit", parent) is None
    # The same revenue on "every order filled, at least": every pallet there is is shipped.
    bad = replace(good, constraints=tuple(replace(c, sense=">=") if c.name == "demand_met"
                                          else c for c in good.constraints))
    assert _reason(bad) == "postcheck:over_delivery"
    inst = bad.ground()
    out = verify(inst, bad)
    assert "against a demand of" in (over_delivery(bad, inst, out.results[0].x,
                                                   out.results[0].objective) or "")
    # Revenue per unit made, where demand is met through stock: the plan makes more than is
    # ever sold and keeps it.
    plan = verified_parent("production_planning")
    made = apply("cost_to_profit", plan[0], plan[2], np.random.default_rng(0)).child
    out = verify(made.ground(), made)
    assert out.rejection is not None and out.rejection.reason == "postcheck:over_delivery"
    assert "left in stock at the end" in out.rejection.detail


def test_a_charge_constant_on_every_plan_is_rejected() -> None:
    parent = verified_parent("portfolio")
    sm, _, values = parent[:3]
    # A handling charge per share of the budget, when the shares sum to 1: parent + constant.
    bad = apply("objective_secondary", sm, values, np.random.default_rng(0)).child
    assert _reason(bad, "objective_secondary", parent) == "postcheck:constant_term"
    # Only the operator's own child is compared with its parent.
    assert _reason(bad) is None
    twin = verified_parent("transportation")
    good = apply("objective_secondary", twin[0], twin[2], np.random.default_rng(0)).child
    assert _reason(good, "objective_secondary", twin) is None


def test_rows_the_statement_does_not_tell_are_never_softened_or_removed() -> None:
    sm, _, values = verified_parent("bin_packing")[:3]
    # Hosts used in order (symmetry), each VM placed once, the capacity link: none is a rule
    # a client tells, so none may be bought off or dropped.
    assert [c.role for c in sm.constraints] == ["assignment", "linking", "symmetry"]
    assert removable(sm) == []
    for op in ("slack_penalty", "remove_constraint"):
        with pytest.raises(NotApplicable):
            apply(op, sm, values, np.random.default_rng(0))
    # A modelling device named by the model is refused as well; the told rules are not.
    t = verified_parent("transportation")[:3]
    told = {c.name for c in removable(t[0])}
    assert told == {"supply_limit", "demand_met"}
    hidden = replace(t[0], descriptors={**t[0].descriptors, "devices": ["supply_limit"]})
    assert {c.name for c in removable(hidden)} == {"demand_met"}
    for seed in range(4):
        m = apply("slack_penalty", hidden, t[2], np.random.default_rng(seed))
        assert m.params["constraint"] == "demand_met"
    # A min-max child's worst-case rows bound a modeller's variable: never a business rule.
    mm = apply("objective_minmax", t[0], t[2], np.random.default_rng(0)).child
    assert {c.name for c in removable(mm)} == told


def _chooses_both_ends(family: str) -> tuple:
    for seed in range(7, 40):
        parent = verified_parent(family, seed)
        x = parent[2]["x"]
        if x[0] > 0.5 and x[-1] > 0.5:
            return parent
    raise AssertionError(f"no {family} parent chooses both ends")


def test_a_rule_that_does_not_bind_is_rejected() -> None:
    parent = _chooses_both_ends("knapsack_01")
    sm, _, values = parent[:3]
    ctx = Context(sm, values, np.random.default_rng(0))
    good = _CATALOGUE["either_or"](ctx).child
    assert _reason(good, "add_constraint", parent) is None
    # The same rule with room for both: the parent's plan and optimum stand.
    rule = good.constraints[-1]
    bad = replace(good, constraints=(*good.constraints[:-1], replace(rule, rhs=2.0)))
    assert _reason(bad, "add_constraint", parent) == "postcheck:non_binding"
    # The operator itself never places an either-or its parent's plan already keeps.
    values = {**values, "x": np.where(np.arange(values["x"].size) == 0, 0.0, values["x"])}
    with pytest.raises(NotApplicable, match="does not choose both"):
        _CATALOGUE["either_or"](Context(sm, values, np.random.default_rng(0)))
    # A fresh instance has no parent to compare with: the check does not apply.
    assert "non_binding" not in dict(checks_for(bad))


def _draw(family: str, domain: str) -> SemanticModel:
    for seed in range(60):
        sm = REGISTRY[family].sample(np.random.default_rng(seed), "small")
        if sm.domain == domain:
            return sm
    raise AssertionError(f"no {family} in {domain}")


def test_crossover_only_where_units_and_stories_agree() -> None:
    parent = verified_parent("knapsack_01")
    sm, _, values = parent[:3]
    other = next(d for d in ("finance", "logistics", "computing") if d != sm.domain)
    alien = _draw("knapsack_multidim", other)
    # Truck dimensions on investment projects: another story, another unit.
    assert not compatible(sm, alien)
    with pytest.raises(NotApplicable, match="stories differ"):
        apply("crossover", sm, values, np.random.default_rng(0), alien)
    mate = _draw("knapsack_multidim", sm.domain)
    assert compatible(sm, mate)
    child = apply("crossover", sm, values, np.random.default_rng(0), mate).child
    assert child.set_map["R"].entity == mate.set_map["R"].entity
    assert child.domain == mate.domain and child.param_map["use"].unit == \
        mate.param_map["use"].unit
    # Fixed costs join a transportation plan only in its own money.
    t = verified_parent("transportation")
    money = t[0].descriptors["words"]["money"]
    foreign = next(f for f in (_draw("facility_location", d) for d in
                               ("logistics", "healthcare", "telecom"))
                   if f.descriptors["words"]["money"] != money)
    with pytest.raises(NotApplicable, match="units differ"):
        apply("crossover", t[0], t[2], np.random.default_rng(0), foreign)


@pytest.mark.parametrize("telling", [False, True])
def test_the_mutate_job_stores_the_sanity_rejection(telling: bool) -> None:
    """The job verifies a child knowing its parent, also a new telling of a stored instance
    (its own names over the instance's columns)."""
    sm, inst, values, x, _ = verified_parent("portfolio")
    if telling:
        sm = apply("rename_entities", sm, values, np.random.default_rng(0)).child
        own, plan = _own_grounding(sm, inst, x)
        assert own.var_names != inst.var_names and plan is not None
        assert np.all(np.isfinite(family_values(sm, list(own.var_names), plan)["w"]))
    task = MutTask("r1:test:0", 1, Parent("s", "i", sm.family, None), "objective_secondary",
                   3, sm.dumps(), zlib.compress(inst.to_bytes()), pack_solution(x), None, None,
                   10.0)
    rec = mutate_task(task).record
    assert rec is not None and not rec.accepted
    assert rec.reason == "postcheck:constant_term" and "every feasible plan" in rec.detail
