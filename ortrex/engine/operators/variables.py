"""Variable-family operators: integer quantities, on/off binaries, slack penalties."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    countable,
    fresh_name,
    objective_scale,
    pick,
    sum_over,
    with_changes,
)
from ortrex.ir.expr import Add, Neg, P, V
from ortrex.ir.semantic import (
    ConstraintFamily,
    Parameter,
    VariableFamily,
)


def integer_quantities(ctx: Context) -> Mutation:
    """A continuous family of countable things becomes integer."""
    sm = ctx.parent
    fam = pick(ctx, [v for v in sm.variables if countable(v)], "countable continuous family")
    new = replace(fam, vtype="I")
    return with_changes(sm, "integer_quantities", {"variable": fam.name},
                 variables=tuple(new if v.name == fam.name else v for v in sm.variables))


def on_off_binaries(ctx: Context) -> Mutation:
    """An on/off binary per entry of a quantity family, linked by big-M, with a fixed cost."""
    sm = ctx.parent
    cands = [v for v in sm.variables if v.dims and v.vtype != "B"]
    fam = pick(ctx, cands, "quantity variable family")
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    vals = ctx.values.get(fam.name)
    if isinstance(fam.ub, (int, float)) and math.isfinite(fam.ub):
        big = np.full(shape, float(fam.ub))
    elif vals is not None and np.any(np.isfinite(vals)) and np.nanmax(vals) > 0:
        big = np.full(shape, float(np.ceil(np.nanmax(vals) * 2)))
    else:
        raise NotApplicable("no finite bound for a big-M")
    idx = [i for i, _ in fam.dims]
    y, m, f = (fresh_name(sm, b) for b in ("use", "big_m_use", "fixed_use"))
    fixed = np.round(objective_scale(sm) * float(np.nanmax(big)) * ctx.rng.uniform(
        0.05, 0.3, shape), 2)
    params = (*sm.params,
              Parameter(m, tuple(s for _, s in fam.dims), big, "",
                        f"largest {fam.description}"),
              Parameter(f, tuple(s for _, s in fam.dims), fixed, "",
                        f"fixed cost of using {fam.description}"))
    yv = VariableFamily(y, fam.dims, "B", 0.0, 1.0, fam.where,
                        f"1 if {fam.description} is used", "0/1")
    link = ConstraintFamily(fresh_name(sm, f"{fam.name}_on_off"),
                            "A quantity can be positive only when its option is switched on.",
                            fam.dims, V(fam.name, *idx) - P(m, *idx) * V(y, *idx), "<=", 0.0,
                            fam.where)
    o = sm.objective
    term = sum_over(fam, P(f, *idx) * V(y, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    return with_changes(sm, "on_off_binaries", {"variable": fam.name},
                 params=params, variables=(*sm.variables, yv),
                 constraints=(*sm.constraints, link),
                 objective=replace(o, expr=expr, description=o.description + " plus fixed costs"))


def slack_penalty(ctx: Context) -> Mutation:
    """A hard inequality family becomes soft: a slack variable per row at a penalty."""
    sm = ctx.parent
    cf = pick(ctx, [c for c in sm.constraints if c.sense in ("<=", ">=") and c.forall],
               "indexed inequality family")
    s, pen = fresh_name(sm, f"{cf.name}_slack"), fresh_name(sm, "penalty")
    idx = [i for i, _ in cf.forall]
    sv = VariableFamily(s, cf.forall, "C", 0.0, math.inf, cf.where,
                        f"shortfall of: {cf.meaning.rstrip('.').lower()}")
    lhs = cf.lhs + V(s, *idx) if cf.sense == ">=" else cf.lhs - V(s, *idx)
    new = replace(cf, lhs=lhs, meaning=cf.meaning.rstrip(".") + ", or a penalty is paid.")
    value = float(np.round(objective_scale(sm) * ctx.rng.uniform(5, 20), 2))
    p = Parameter(pen, (), np.array(value), "", f"penalty per unit of {s}")
    o = sm.objective
    term = sum_over(sv, P(pen) * V(s, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    return with_changes(sm, "slack_penalty", {"constraint": cf.name, "penalty": value},
                 params=(*sm.params, p), variables=(*sm.variables, sv),
                 constraints=tuple(new if c.name == cf.name else c for c in sm.constraints),
                 objective=replace(o, expr=expr, description=o.description + " plus penalties"))
