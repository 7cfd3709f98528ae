"""Objective operators: a secondary term, min-max form, cost to profit."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    decisions,
    entity,
    fresh_name,
    objective_scale,
    pick,
    sum_over,
    with_changes,
)
from ortrex.ir.expr import Add, Neg, P, Sum, V, expand
from ortrex.ir.semantic import (
    ConstraintFamily,
    ObjectiveSpec,
    Parameter,
    VariableFamily,
)
from ortrex.render.telling import per_unit


def objective_secondary(ctx: Context) -> Mutation:
    """A weighted secondary term: a per-unit handling charge on one variable family."""
    sm = ctx.parent
    fam = pick(ctx, [v for v in decisions(sm) if v.dims and v.vtype != "B"] or
                [v for v in decisions(sm) if v.dims], "indexed variable family")
    name = fresh_name(sm, "handling")
    w = float(np.round(objective_scale(sm) * ctx.rng.uniform(0.05, 0.3), 4)) or 0.01
    term = sum_over(fam, P(name) * V(fam.name, *(i for i, _ in fam.dims)))
    o = sm.objective
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    p = Parameter(name, (), np.array(w), "",
                  f"handling charge {per_unit(sm, fam.description, fam.unit, fam.dims)}")
    return with_changes(sm, "objective_secondary", {"variable": fam.name, "weight": w},
                 params=(*sm.params, p),
                 objective=replace(o, expr=expr, description=o.description + (
                     " plus handling charges" if o.sense == "min" else
                     " net of handling charges")))  # the wording follows the sign


def objective_minmax(ctx: Context) -> Mutation:
    """Min-max (makespan) form: the objective's sum over a set becomes its largest term."""
    sm = ctx.parent
    o = sm.objective
    if not isinstance(o.expr, Sum) or o.expr.where:
        raise NotApplicable("the objective is not a plain sum over a set")
    if any(len(m.vars) == 2 for m in expand(o.expr)):
        raise NotApplicable("the objective is quadratic")
    s = o.expr
    z = fresh_name(sm, "worst")
    con = fresh_name(sm, "worst_term")
    noun = entity(sm, s.over)
    if o.sense == "min":
        cf = ConstraintFamily(con, f"No {noun} contributes more than the worst case.",
                              ((s.index, s.over),), s.body - V(z), "<=", 0.0)
        desc = f"largest {o.description} of any {noun}"
    else:
        cf = ConstraintFamily(con, f"Every {noun} contributes at least the worst case.",
                              ((s.index, s.over),), s.body - V(z), ">=", 0.0)
        desc = f"smallest {o.description} of any {noun}"
    zv = VariableFamily(z, (), "C", -math.inf, math.inf, (), f"the {desc}")
    # The worst-case rows and their bound are how a modeller linearises the objective: never
    # told, never priced or made whole by a later mutation.
    devices = [*sm.descriptors.get("devices", []), con]
    aux = [*sm.descriptors.get("auxiliaries", []), z]
    return with_changes(sm, "objective_minmax", {"over": s.over},
                 descriptors={**sm.descriptors, "devices": devices, "auxiliaries": aux},
                 variables=(*sm.variables, zv), constraints=(*sm.constraints, cf),
                 objective=ObjectiveSpec(o.sense, V(z), desc))


def cost_to_profit(ctx: Context) -> Mutation:
    """A cost-minimising model becomes profit-maximising: revenue per unit minus the costs."""
    sm = ctx.parent
    o = sm.objective
    if o.sense != "min":
        raise NotApplicable("the objective is not a cost to minimise")
    fam = pick(ctx, [v for v in decisions(sm) if v.dims and v.vtype != "B"],
                "quantity variable family")
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    base = objective_scale(sm)
    name = fresh_name(sm, "price")
    price = np.round(base * ctx.rng.uniform(1.2, 2.5, shape), 2)
    idx = [i for i, _ in fam.dims]
    p = Parameter(name, tuple(s for _, s in fam.dims), price, "",
                  f"revenue {per_unit(sm, fam.description, fam.unit, fam.dims)}")
    expr = Add((sum_over(fam, P(name, *idx) * V(fam.name, *idx)), Neg(o.expr)))
    return with_changes(sm, "cost_to_profit", {"variable": fam.name},
                 params=(*sm.params, p),
                 objective=ObjectiveSpec("max", expr, f"profit from sales net of {o.description}"))
