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
from ortrex.ir.expr import Add, Neg, P, Param, V, Var, as_expr, total
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


@pytest.mark.parametrize("family", ["production_planning", "lot_sizing"])
def test_a_demand_met_from_stock_becomes_sales_within_it(family: str) -> None:
    parent = verified_parent(family)
    sm, _, values = parent[:3]
    good = apply("cost_to_profit", sm, values, np.random.default_rng(0)).child
    # Sales take the demand's place in the stock balance and earn the revenue; a rule (which
    # the statement tells, unlike a bound) keeps them within the demand.
    assert good.var_map["sold"].role == "quantity"
    limit = next(c for c in good.constraints if c.name == "sales_limit")
    assert limit.sense == "<=" and limit.rhs == P("demand", "p", "t")
    assert limit.meaning.startswith("Sales stay within the demand")
    balances = [c for c in good.constraints if c.role == "balance"]
    assert len(balances) == 2
    for c in balances:
        assert "sold" in {e.name for e in c.lhs.walk() if isinstance(e, Var)}
        assert "demand" not in {e.name for e in as_expr(c.rhs).walk() if isinstance(e, Param)}
        assert "sales" in c.meaning and "demand" not in c.meaning
    objective = {e.name for e in good.objective.expr.walk() if isinstance(e, Var)}
    assert "sold" in objective
    with made_from(Origin("cost_to_profit", sm, parent[1], parent[3], parent[4])):
        out = verify(good.ground(), good, heuristics=False)
    assert out.accepted, out.rejection
    got = family_values(good, list(good.ground().var_names), out.results[0].x)
    demand = good.param_map["demand"].values
    # It sells what pays, no more than is asked for, and keeps nothing at the end.
    assert (got["sold"] <= demand + 1e-6).all() and got["sold"].sum() < demand.sum()
    assert np.allclose(got["s"][:, -1], 0.0, atol=1e-6)
    # The same prices per unit made, the demand still to be met: the plan makes more than is
    # ever sold and keeps it.
    bad = _profit(sm, good.param_map["price"].values)
    out = verify(bad.ground(), bad)
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


def _in_domain(family: str, domain: str, size: str = "small") -> SemanticModel:
    """The first sample of ``family`` told in ``domain``."""
    return next(sm for k in range(200)
                if (sm := REGISTRY[family].sample(np.random.default_rng(k), size)).domain == domain)


def test_a_crossover_never_limits_what_the_knapsack_already_limits() -> None:
    a = _in_domain("knapsack_01", "computing")
    b = _in_domain("knapsack_multidim", "computing")
    r = b.set_map["R"]
    # The second parent's resources: the cache's own storage among them.
    clash = replace(b, sets=tuple(replace(s, elements=("Storage", "Bandwidth", "Memory")[:len(s)])
                                  if s.name == "R" else s for s in b.sets))
    assert len(r) >= 2 and a.descriptors["words"]["cap_word"] == "storage"
    child = apply("crossover", a, {}, np.random.default_rng(0), clash).child
    kept = child.set_map["R"].elements
    assert "Storage" not in kept and kept == ("Bandwidth", "Memory")[:len(r) - 1]
    assert child.param_map["use"].values.shape == (len(kept), len(a.set_map["I"]))
    # Its twin without the clash keeps every resource.
    twin = replace(b, sets=tuple(replace(s, elements=("Bandwidth", "Memory", "Compute")[:len(s)])
                                 if s.name == "R" else s for s in b.sets))
    child = apply("crossover", a, {}, np.random.default_rng(0), twin).child
    assert child.set_map["R"].elements == twin.set_map["R"].elements


def test_revenue_is_never_earned_on_opening_a_site() -> None:
    # Facility location's only priceable family is the sites opened, which switch service
    # on: revenue per site opened pays for opening everything.
    for family in ("facility_location", "facility_location_cap"):
        sm, _, values = verified_parent(family)[:3]
        with pytest.raises(NotApplicable, match="not a site others need open"):
            apply("cost_to_profit", sm, values, np.random.default_rng(0))
    # A choice that switches nothing on still earns (a handling charge reads as a choice).
    sm, _, values = verified_parent("knapsack_01")[:3]
    made = apply("objective_secondary", sm, values, np.random.default_rng(0)).child
    assert made.params[-1].description.startswith("handling charge when a")


def test_a_blend_sold_is_priced_per_unit_of_the_blend() -> None:
    parent = verified_parent("blending")
    sm, _, values = parent[:3]
    child = apply("cost_to_profit", sm, values, np.random.default_rng(0)).child
    price = child.params[-1]
    # One product made of its parts: one price, on the whole amount blended, within the
    # amount the market takes.
    assert price.index == () and price.description.startswith("revenue per ")
    total_amount = next(c for c in child.constraints if c.name == "total_amount")
    assert total_amount.sense == "<="
    with made_from(Origin("cost_to_profit", sm, parent[1], parent[3], parent[4])):
        out = verify(child.ground(), child, heuristics=False)
    assert out.accepted, out.rejection
    inst, cost = child.ground(), parent[1]
    assert inst.var_names == cost.var_names
    x = out.results[0].x
    blended = float(x.sum())
    assert blended <= float(sm.param_map["amount"].values) + 1e-6
    # The profit is the one price on all of it, less what the parent paid for the plan.
    assert out.objective == pytest.approx(float(price.values) * blended - float(cost.obj @ x),
                                          rel=1e-6)


def test_moved_data_is_written_as_the_parent_writes_it() -> None:
    # Demands in whole boxes stay whole boxes (never 37.9863 boxes); costs keep their cents.
    sm, _, values = verified_parent("transportation")[:3]
    for seed in range(4):
        child = apply("shift_requirements", sm, values, np.random.default_rng(seed)).child
        demand = child.param_map["demand"].values
        assert np.array_equal(demand, np.round(demand))
        assert not np.array_equal(demand, sm.param_map["demand"].values)
        scaled = apply("scale_data", sm, values, np.random.default_rng(seed))
        p = scaled.child.param_map[scaled.params["parameter"]].values
        assert np.array_equal(p, np.round(p, 2))


def test_an_option_caps_each_entry_at_its_own_bound() -> None:
    # Copies of a project are capped by those available: the option's cap is the same per
    # project, never one figure above every bound that could never bind.
    sm, _, values = verified_parent("knapsack_bounded")[:3]
    child = apply("on_off_binaries", sm, values, np.random.default_rng(0)).child
    cap = next(p for p in child.params if p.name.startswith("big_m_use"))
    assert np.array_equal(cap.values, sm.param_map["copies"].values)


def test_no_minimum_or_share_of_a_flow_summed_over_its_arcs() -> None:
    # Summed over the lanes a route takes, a flow counts once per lane: a minimum of it asks
    # for detours. Capacities per lane, summed over the commodities, stay.
    sm, _, values = verified_parent("multicommodity_flow")[:3]
    for kind in ("minimum_service", "ratio"):
        with pytest.raises(NotApplicable, match="quantity family"):
            _CATALOGUE[kind](Context(sm, values, np.random.default_rng(0)))
    cap = _CATALOGUE["capacity"](Context(sm, values, np.random.default_rng(0))).child
    assert cap.constraints[-1].forall[0][1] == "A"
