"""Uncertainty operators: a demand that is known becomes a set of scenarios with recourse."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    entities_of,
    fresh_name,
    one_of,
    pick,
    referenced,
    round_like,
    sum_over,
    with_changes,
    within_licence,
)
from ortrex.engine.operators.costs import cost_unit, unit_costs
from ortrex.engine.operators.registry import operator
from ortrex.engine.operators.sanity import NON_BINDING
from ortrex.ir.expr import Add, Idx, Neg, P, Param, Sum, V, Var
from ortrex.ir.semantic import (
    ConstraintFamily,
    IndexSet,
    Parameter,
    SemanticModel,
    VariableFamily,
)

# Scenario names by count, from the lowest demand to the highest.
SCENARIOS = {3: (("low", "expected", "high"), ("slow", "normal", "busy"),
                 ("weak", "typical", "strong")),
             4: (("low", "moderate", "high", "peak"), ("slow", "normal", "busy", "rush"))}


def _demand_rows(sm: SemanticModel) -> list[tuple[ConstraintFamily, Parameter]]:
    """Demand families ``lhs >= d[i, ...]`` whose right-hand side is one parameter indexed
    exactly by the family's own indices (the demand of each entity)."""
    out = []
    for c in sm.constraints:
        rhs = c.rhs
        if c.role != "demand" or c.sense != ">=" or not c.forall or not isinstance(rhs, Param):
            continue
        if rhs.idx != tuple(Idx(i) for i, _ in c.forall) or rhs.name not in sm.param_map:
            continue
        p = sm.param_map[rhs.name]
        if np.all(np.asarray(p.values) > 0):
            out.append((c, p))
    return out


def _probabilities(rng: np.random.Generator, n: int) -> np.ndarray:
    """Scenario probabilities in twentieths, the middle ones likeliest, summing to 1."""
    weights = rng.uniform(0.6, 1.4, n) * (1.6 - np.abs(np.linspace(-1, 1, n)) * 0.8)
    twentieths = np.maximum(np.round(weights / weights.sum() * 20), 1)
    twentieths[int(np.argmax(twentieths))] += 20 - twentieths.sum()
    if twentieths.min() < 1:
        raise NotApplicable("no probabilities in twentieths")
    return twentieths / 20


# The scenarios must change the plan or its value (``non_binding``): a spread of demand that
# the parent's plan already covers at no penalty decides nothing.
@operator('a known demand made uncertain: scenarios with probabilities, the shortfall bought '
          'in at a premium (two-stage recourse)', postcheck=NON_BINDING)
def scenario_demand(ctx: Context) -> Mutation:
    """The demand of a demand family becomes a set of scenarios with probabilities: the
    plan (the first stage) is made before the demand is known, and in each scenario the
    shortfall is bought in at a premium (the recourse), at its expected cost."""
    sm = ctx.parent
    cf, d = pick(ctx, _demand_rows(sm), "demand family with a demand parameter")
    n = 3 if ctx.rng.random() < 0.65 else 4
    names = SCENARIOS[n][int(ctx.rng.integers(len(SCENARIOS[n])))]
    taken = {e for s in sm.sets for e in s.elements}
    if set(names) & taken:
        raise NotApplicable("scenario names clash with the model's elements")
    S = fresh_name(sm, "S")
    taken_idx = {i for i, _ in cf.forall} | {e.index for e in cf.lhs.walk()
                                             if isinstance(e, Sum)}
    w = next(i for i in ("s", "w", "sc", "omega") if i not in taken_idx)
    prob = _probabilities(ctx.rng, n)
    factors = np.sort(np.concatenate([ctx.rng.uniform(0.65, 0.9, 1),
                                      ctx.rng.uniform(0.92, 1.25, n - 2),
                                      ctx.rng.uniform(1.3, 1.6, 1)]))
    base = np.asarray(d.values, dtype=np.float64)
    noise = ctx.rng.uniform(0.95, 1.05, (n, *base.shape))
    scen = round_like(d, factors.reshape((n,) + (1,) * base.ndim) * base * noise)
    scen = np.maximum(scen, 0.0)
    # The premium per unit short: above what supplying a unit costs (so the expected demand
    # is planned for), as an expedited purchase or lost sale is.
    mine = {e.name for e in cf.lhs.walk() if isinstance(e, Var)}
    costed = [v for v in sm.variables if v.name in mine and v.dims]
    costs = [c for v in costed for c in np.ravel(np.nan_to_num(unit_costs(sm, v))) if c > 1e-9]
    money = next((u for u in (cost_unit(sm, v) for v in costed) if u), "").split(" per ")[0]
    if money and d.unit:
        money = f"{money} per {one_of(d.unit)}"  # per unit short, not per unit supplied
    scale = float(np.median(costs)) if costs else 1.0
    premium = float(np.round(scale * ctx.rng.uniform(1.5, 3.5), 2 if scale < 100 else 0))
    if not math.isfinite(premium) or premium <= 0:
        raise NotApplicable("no premium for a shortfall")
    ents = entities_of(sm, cf.forall)
    dems, pr, pen = (fresh_name(sm, b) for b in (f"{d.name}_scenario", "probability",
                                                 "shortfall_premium"))
    short = fresh_name(sm, "short")
    dims = ((w, S), *cf.forall)
    idx = [i for i, _ in cf.forall]
    sets = (*sm.sets, IndexSet(S, names, "scenario"))
    params = (*sm.params,
              Parameter(pr, (S,), prob, "", "probability of each scenario"),
              Parameter(dems, (S, *d.index), scen, d.unit,
                        f"{d.description} in each scenario"),
              Parameter(pen, (), np.array(premium), money,
                        f"premium paid per {one_of(d.unit) if d.unit else 'unit'} of demand "
                        "not covered by the plan"))
    sv = VariableFamily(short, dims, "C", 0.0, math.inf, cf.where,
                        f"demand of {ents} not covered in the scenario", d.unit, "auxiliary")
    met = ConstraintFamily(
        fresh_name(sm, f"{cf.name}_scenarios"),
        f"The plan is fixed before the demand is known; in each scenario, what it leaves "
        f"short of each {ents}'s demand is bought in at the premium.",
        dims, cf.lhs + V(short, w, *idx), ">=", P(dems, w, *idx), cf.where, "demand")
    o = sm.objective
    term = sum_over(sv, P(pr, w) * P(pen) * V(short, w, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    desc = o.description + (" plus expected shortfall premiums" if o.sense == "min"
                            else " net of expected shortfall premiums")
    child = replace(sm, sets=sets, params=params, variables=(*sm.variables, sv),
                    constraints=tuple(met if c.name == cf.name else c
                                      for c in sm.constraints))
    if d.name not in referenced(child):
        # The demand the plan was made for is no longer a number anyone plans with: told
        # beside the scenarios, it would read as a fourth one.
        params = tuple(p for p in params if p.name != d.name)
    info = {"constraint": cf.name, "scenarios": n}
    return within_licence(with_changes(sm, "scenario_demand", info,
                        sets=sets, params=params, variables=(*sm.variables, sv),
                        constraints=tuple(met if c.name == cf.name else c
                                          for c in sm.constraints),
                        objective=replace(o, expr=expr, description=desc)))

