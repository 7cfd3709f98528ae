"""Cost-structure operators: a linear cost made piecewise linear (tiers and discounts)."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    fresh_name,
    one_of,
    quantities,
    sum_over,
    with_changes,
    within_licence,
)
from ortrex.engine.operators.registry import operator
from ortrex.engine.operators.sanity import CONSTANT_TERM, NON_BINDING, min_form
from ortrex.ir.expr import Add, Idx, Neg, P, Param, V, expand
from ortrex.ir.semantic import ConstraintFamily, Parameter, SemanticModel, VariableFamily
from ortrex.render.telling import plain


def unit_costs(sm: SemanticModel, fam: VariableFamily) -> np.ndarray:
    """Each entry's objective coefficient as a cost to minimise, shaped like the family
    (read from the grounding, so a cost written as a sum of parameters counts whole)."""
    inst = sm.ground()
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    out = np.zeros(shape)
    cost = min_form(inst)
    pos = {n: k for k, n in enumerate(inst.var_names)}
    for idx in np.ndindex(shape):
        labels = ",".join(sm.set_map[s].elements[i] for (_, s), i in
                          zip(fam.dims, idx, strict=True))
        k = pos.get(f"{fam.name}[{labels}]")
        out[idx] = cost[k] if k is not None else np.nan
    return out


def caps(sm: SemanticModel, fam: VariableFamily) -> np.ndarray | None:
    """Each entry's finite upper bound (None where the family has none)."""
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    if isinstance(fam.ub, (int, float)):
        return np.full(shape, float(fam.ub)) if math.isfinite(fam.ub) else None
    own = sm.param_map.get(fam.ub.name) if isinstance(fam.ub, Param) else None
    if own is None or fam.ub.idx != tuple(Idx(i) for i, _ in fam.dims):
        return None
    vals = np.asarray(own.values, dtype=np.float64).reshape(shape)
    return vals if np.all(np.isfinite(vals)) else None


def cost_unit(sm: SemanticModel, fam: VariableFamily) -> str:
    """The unit the objective prices ``fam`` in (``USD per tonne``, else ``USD``), or ""."""
    units = [sm.param_map[c.name].unit for m in expand(sm.objective.expr)
             if fam.name in {v.name for v in m.vars}
             for c in m.coefs if isinstance(c, Param) and c.name in sm.param_map]
    units = [u for u in units if u]
    return next((u for u in units if "per" in u.split()), units[0] if units else "")


def _whole(values: np.ndarray) -> bool:
    return bool(np.all(np.abs(values - np.round(values)) < 1e-9))


# A tier is told and must change the optimum or the parent's plan (``non_binding``), and the
# added term must vary across plans (``constant_term``).
@operator('a linear cost made piecewise linear: a surcharge beyond a tier, or a quantity '
          'discount', postcheck=(NON_BINDING, CONSTANT_TERM))
def piecewise_cost(ctx: Context) -> Mutation:
    """A quantity's linear cost becomes piecewise linear at a breakpoint per entry: beyond it
    each further unit costs more (overtime, spot purchases: convex, an LP) or, where the
    quantity has a cap, less (a quantity discount: concave, with a 0/1 tier choice)."""
    sm = ctx.parent
    cands = []
    for v in quantities(sm):
        x = ctx.values.get(v.name)
        if v.dims and x is not None and np.nanmax(np.nan_to_num(x)) > 1e-6:
            c = unit_costs(sm, v)
            if np.any(np.nan_to_num(c) > 1e-9):
                cands.append((v, np.nan_to_num(x), np.nan_to_num(c)))
    if not cands:
        raise NotApplicable("no costed quantity family with a positive solution")
    fam, x, cost = cands[int(ctx.rng.integers(len(cands)))]
    top = caps(sm, fam)
    kind = "discount" if top is not None and ctx.rng.random() < 0.5 else "surcharge"
    used = x > 1e-6
    # The breakpoint sits inside what the parent plan uses (so the tier is reached), or at a
    # share of a typical entry where the parent uses none.
    typical = float(np.mean(x[used]))
    share = ctx.rng.uniform(0.35, 0.75, x.shape)
    tier = np.where(used, x, typical) * share
    tier = np.maximum(np.round(tier) if _whole(x) or tier.max() > 20 else np.round(tier, 1),
                      1.0)
    if kind == "discount":
        assert top is not None
        tier = np.minimum(tier, np.floor(top * 0.8))
        if np.any(tier < 1):
            raise NotApplicable("a cap too small for a discount tier")
    positive = cost > 1e-9
    if not positive.any():
        raise NotApplicable("no entry with a cost")
    scale = float(np.median(cost[positive]))
    # Rates relative to each entry's own cost: a surcharge of a fifth to three fifths, a
    # discount of a tenth to three tenths (never as much as the cost: no unit earns money).
    lo, hi = (0.2, 0.6) if kind == "surcharge" else (0.1, 0.3)
    rate = np.where(positive, cost, scale) * ctx.rng.uniform(lo, hi, x.shape)
    decimals = 2 if scale < 100 else 0
    rate = np.maximum(np.round(rate, decimals), 10.0 ** -decimals)
    if kind == "discount":
        rate = np.where(positive, np.minimum(rate, np.round(cost * 0.5, decimals)), 0.0)
        if not np.any(rate > 0):
            raise NotApplicable("no cost large enough for a discount")
    dims = tuple(s for _, s in fam.dims)
    idx = [i for i, _ in fam.dims]
    what = plain(sm, fam.description, fam.dims)
    unit = fam.unit or "units"
    one = one_of(unit) if fam.unit else "unit"
    money = cost_unit(sm, fam)
    t, r, e = (fresh_name(sm, f"{fam.name}_{b}") for b in ("tier", kind, "beyond"))
    extra = "extra cost" if kind == "surcharge" else "discount"
    params = [Parameter(t, dims, tier, fam.unit,
                        f"{'normal-price allowance' if kind == 'surcharge' else 'discount tier'}"
                        f" of {what}"),
              Parameter(r, dims, rate, money,
                        f"{extra} beyond the "
                        f"{'allowance' if kind == 'surcharge' else 'tier'}")]
    ev = VariableFamily(e, fam.dims, "C", 0.0, math.inf, fam.where,
                        f"{unit} of {what} beyond the "
                        f"{'allowance' if kind == 'surcharge' else 'tier'}", fam.unit,
                        "auxiliary")
    variables = [ev]
    o = sm.objective
    if kind == "surcharge":
        cons = [ConstraintFamily(
            fresh_name(sm, f"{fam.name}_tiers"),
            f"Only up to the normal-price allowance is the usual cost paid for {what}; each "
            f"{one} beyond it costs the extra cost on top.",
            fam.dims, V(fam.name, *idx) - V(e, *idx), "<=", P(t, *idx), fam.where,
            "definition")]
    else:
        assert top is not None
        z, room = fresh_name(sm, f"{fam.name}_discounted"), fresh_name(sm, f"{fam.name}_room")
        params.append(Parameter(room, dims, np.maximum(top - tier, 0.0), fam.unit,
                                f"most {what} beyond the discount tier"))
        variables.append(VariableFamily(
            z, fam.dims, "B", 0.0, 1.0, fam.where,
            f"1 if {what} reaches the discount tier", "0/1", "indicator"))
        cons = [ConstraintFamily(
            fresh_name(sm, f"{fam.name}_discount_reached"),
            f"The discount applies only to the {unit} beyond the discount tier, and only "
            f"once {what} reaches the tier.",
            fam.dims, V(e, *idx) + P(t, *idx) * V(z, *idx) - V(fam.name, *idx), "<=", 0.0,
            fam.where, "definition"),
            ConstraintFamily(
            fresh_name(sm, f"{fam.name}_discount_room"),
            "No more is discounted than the cap leaves beyond the tier.",
            fam.dims, V(e, *idx) - P(room, *idx) * V(z, *idx), "<=", 0.0, fam.where,
            "definition")]
    term = sum_over(ev, P(r, *idx) * V(e, *idx))
    adds = (o.sense == "min") == (kind == "surcharge")
    expr = Add((o.expr, term)) if adds else Add((o.expr, Neg(term)))
    desc = o.description + (" with tiered prices" if kind == "surcharge"
                            else " after quantity discounts")
    info = {"variable": fam.name, "kind": kind}
    return within_licence(with_changes(sm, "piecewise_cost", info,
                        params=(*sm.params, *params), variables=(*sm.variables, *variables),
                        constraints=(*sm.constraints, *cons),
                        objective=replace(o, expr=expr, description=desc)))
