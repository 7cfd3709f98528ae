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
    entities_of,
    entity,
    fresh_name,
    objective_scale,
    pick,
    quantities,
    removable,
    sum_over,
    with_changes,
)
from ortrex.engine.operators.registry import operator
from ortrex.engine.operators.sanity import CONSTANT_TERM
from ortrex.ir.expr import Add, Idx, Neg, P, Param, V
from ortrex.ir.semantic import (
    ConstraintFamily,
    Parameter,
    VariableFamily,
)
from ortrex.render.telling import plain


@operator('continuous to integer for countable entities')
def integer_quantities(ctx: Context) -> Mutation:
    """A continuous family of countable things becomes integer."""
    sm = ctx.parent
    fam = pick(ctx, [v for v in quantities(sm) if countable(v)], "countable continuous family")
    new = replace(fam, vtype="I")
    return with_changes(sm, "integer_quantities", {"variable": fam.name},
                 variables=tuple(new if v.name == fam.name else v for v in sm.variables))


@operator('on/off binaries with big-M links', postcheck=CONSTANT_TERM)
def on_off_binaries(ctx: Context) -> Mutation:
    """An on/off binary per entry of a quantity family, linked by big-M, with a fixed cost."""
    sm = ctx.parent
    fam = pick(ctx, [v for v in quantities(sm) if v.dims], "quantity variable family")
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    vals = ctx.values.get(fam.name)
    own = sm.param_map.get(fam.ub.name) if isinstance(fam.ub, Param) else None
    if isinstance(fam.ub, (int, float)) and math.isfinite(fam.ub):
        big = np.full(shape, float(fam.ub))
    elif own is not None and fam.ub.idx == tuple(Idx(i) for i, _ in fam.dims) and \
            np.all(np.isfinite(own.values)):
        # Each entry's own bound (copies available, a link's capacity): a cap above it would
        # be told and never bind.
        big = np.array(own.values, dtype=np.float64).reshape(shape)
    elif vals is not None and np.any(np.isfinite(vals)) and np.nanmax(vals) > 0:
        big = np.full(shape, float(np.ceil(np.nanmax(vals) * 2)))
    else:
        raise NotApplicable("no finite bound for a big-M")
    idx = [i for i, _ in fam.dims]
    y, m, f = (fresh_name(sm, b) for b in ("use", "big_m_use", "fixed_use"))
    fixed = np.round(objective_scale(sm) * float(np.nanmax(big)) * ctx.rng.uniform(
        0.05, 0.3, shape), 2)
    what = plain(sm, fam.description, fam.dims)
    ents = entities_of(sm, fam.dims)
    # The cap is data a client states (the most one option can take), not a modeller's M.
    params = (*sm.params,
              Parameter(m, tuple(s for _, s in fam.dims), big, fam.unit,
                        f"cap on {what} when switched on"),
              Parameter(f, tuple(s for _, s in fam.dims), fixed, "",
                        f"fixed cost of switching on the option for each {ents}"))
    yv = VariableFamily(y, fam.dims, "B", 0.0, 1.0, fam.where,
                        "1 if the option for " + " and ".join(
                            f"{entity(sm, s)} {i}" for i, s in fam.dims) + " is switched on",
                        "0/1", "indicator")
    link = ConstraintFamily(fresh_name(sm, f"{fam.name}_on_off"),
                            f"Each {ents} has an option that is either switched on, at its "
                            f"fixed cost, or off; {what} can only be positive where it is on, "
                            "and then no more than the option can take.",
                            fam.dims, V(fam.name, *idx) - P(m, *idx) * V(y, *idx), "<=", 0.0,
                            fam.where, "linking")
    o = sm.objective
    term = sum_over(fam, P(f, *idx) * V(y, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    # The wording follows the sign: a cost is added to a cost, taken from a profit.
    desc = o.description + (" plus fixed costs" if o.sense == "min" else " net of fixed costs")
    settled = [*sm.descriptors.get("settled", []), y]  # the rule says on or off
    return with_changes(sm, "on_off_binaries", {"variable": fam.name},
                 descriptors={**sm.descriptors, "settled": settled},
                 params=params, variables=(*sm.variables, yv),
                 constraints=(*sm.constraints, link),
                 objective=replace(o, expr=expr, description=desc))


@operator('a hard family made soft at a penalty')
def slack_penalty(ctx: Context) -> Mutation:
    """A hard inequality family becomes soft: a slack variable per row at a penalty."""
    sm = ctx.parent
    # Only a business rule the statement tells may be broken at a price: never an
    # assignment, a balance, a link or a subtour row (a "soft" tour is no tour), never
    # symmetry breaking or a rule on a modeller's device (``removable``).
    cf = pick(ctx, [c for c in removable(sm) if c.sense in ("<=", ">=") and c.forall],
              "indexed inequality family whose role allows a penalty")
    s, pen = fresh_name(sm, f"{cf.name}_slack"), fresh_name(sm, "penalty")
    idx = [i for i, _ in cf.forall]
    rule = cf.meaning.rstrip(".")
    first = rule.split(" ", 1)[0]
    rule = rule if len(first) > 1 and first.isupper() else rule[:1].lower() + rule[1:]
    gap = "falls short of" if cf.sense == ">=" else "goes beyond"
    sv = VariableFamily(s, cf.forall, "C", 0.0, math.inf, cf.where,
                        f"amount by which the plan {gap} the rule that {rule}", "",
                        "auxiliary")
    lhs = cf.lhs + V(s, *idx) if cf.sense == ">=" else cf.lhs - V(s, *idx)
    new = replace(cf, lhs=lhs, meaning=cf.meaning.rstrip(".") + ", or a penalty is paid.")
    value = float(np.round(objective_scale(sm) * ctx.rng.uniform(5, 20), 2))
    miss = "short of" if cf.sense == ">=" else "beyond"
    p = Parameter(pen, (), np.array(value), "", f"penalty per unit {miss} the rule that {rule}")
    o = sm.objective
    term = sum_over(sv, P(pen) * V(s, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    return with_changes(sm, "slack_penalty", {"constraint": cf.name, "penalty": value},
                 params=(*sm.params, p), variables=(*sm.variables, sv),
                 constraints=tuple(new if c.name == cf.name else c for c in sm.constraints),
                 objective=replace(o, expr=expr, description=o.description + (
                     " plus penalties" if o.sense == "min" else " net of penalties")))
