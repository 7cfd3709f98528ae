"""Objective operators: a secondary term, min-max form, cost to profit, each with the
post-checks its children must pass."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    entity,
    fresh_name,
    objective_at,
    objective_scale,
    pick,
    priceable,
    quantities,
    sum_over,
    with_changes,
)
from ortrex.engine.operators.registry import PostCheck, operator
from ortrex.engine.operators.sanity import (
    CONSTANT_TERM,
    DELIVERY_ROLES,
    OVER_DELIVERY,
    PROFIT_LOOP,
    arc_columns,
    family_rows,
)
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.expr import Add, Const, Neg, P, Sum, V, Var, expand
from ortrex.ir.semantic import (
    ConstraintFamily,
    ObjectiveSpec,
    Parameter,
    SemanticModel,
    VariableFamily,
)
from ortrex.render.telling import per_unit

TOL = 1e-6  # an objective this close to 0 is 0 (the post-checks' tolerance)


def zero_worst_case(sm: SemanticModel, model: CanonicalModel, x: np.ndarray,
                    objective: float) -> str | None:
    """A min-max child's worst case is not 0."""
    if abs(objective) <= TOL:
        return "the worst case is 0 at the optimum: the min-max objective decides nothing"
    return None


def unprofitable(sm: SemanticModel, model: CanonicalModel, x: np.ndarray, objective: float
                 ) -> str | None:
    """A profit that is not positive at the optimum is no profit."""
    if objective <= TOL:
        return f"the best profit is {objective:g}: no plan makes money"
    return None


# A charge per share when the shares sum to 1 is the same on every plan: rejected as
# ``constant_term`` (compared with the parent's objective, so on this operator's children).
@operator('an added weighted secondary term', postcheck=CONSTANT_TERM)
def objective_secondary(ctx: Context) -> Mutation:
    """A weighted secondary term: a per-unit handling charge on one variable family."""
    sm = ctx.parent
    fam = pick(ctx, [v for v in quantities(sm) if v.dims] or
                [v for v in priceable(sm) if v.dims], "indexed quantity or selection family")
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


@operator('min-max / makespan form', postcheck=PostCheck('zero_worst_case', zero_worst_case))
def objective_minmax(ctx: Context) -> Mutation:
    """Min-max (makespan) form: the objective's sum over a set becomes its largest term."""
    sm = ctx.parent
    o = sm.objective
    if not isinstance(o.expr, Sum) or o.expr.where:
        raise NotApplicable("the objective is not a plain sum over a set")
    if any(len(m.vars) == 2 for m in expand(o.expr)):
        raise NotApplicable("the objective is quadratic")
    s = o.expr
    # Each term must be an amount of the same kind (a cost or flow per entity), not a count
    # of yes/no choices: a max-min over selections is 0 whenever one entity is left out.
    kinds = {v.name: v for v in sm.variables}
    inside = {e.name for e in s.body.walk() if isinstance(e, Var)}
    if not inside or any(kinds[n].role not in ("quantity", "") or kinds[n].vtype == "B"
                         for n in inside):
        raise NotApplicable("the objective's terms are not comparable quantities")
    z = fresh_name(sm, "worst")
    con = fresh_name(sm, "worst_term")
    noun = entity(sm, s.over)
    if o.sense == "min":
        cf = ConstraintFamily(con, f"No {noun} contributes more than the worst case.",
                              ((s.index, s.over),), s.body - V(z), "<=", 0.0,
                              role="definition")
        desc = f"largest {o.description} of any {noun}"
    else:
        cf = ConstraintFamily(con, f"Every {noun} contributes at least the worst case.",
                              ((s.index, s.over),), s.body - V(z), ">=", 0.0,
                              role="definition")
        desc = f"smallest {o.description} of any {noun}"
    zv = VariableFamily(z, (), "C", -math.inf, math.inf, (), f"the {desc}", role="auxiliary")
    # The worst-case rows and their bound are how a modeller linearises the objective: never
    # told, never priced or made whole by a later mutation.
    devices = [*sm.descriptors.get("devices", []), con]
    aux = [*sm.descriptors.get("auxiliaries", []), z]
    return with_changes(sm, "objective_minmax", {"over": s.over},
                 descriptors={**sm.descriptors, "devices": devices, "auxiliaries": aux},
                 variables=(*sm.variables, zv), constraints=(*sm.constraints, cf),
                 objective=ObjectiveSpec(o.sense, V(z), desc))


def _arc_flows(sm: SemanticModel) -> set[str]:
    """Variable families that flow along arcs of a balance (out of one row, into another)."""
    inst = sm.ground()
    rows = family_rows(inst, {c.name for c in sm.constraints if c.role == "balance"})
    if rows.size:
        rows = rows[inst.row_lower[rows] == inst.row_upper[rows]]
    cols = arc_columns(inst, rows)[0]
    return {inst.var_names[int(j)].split("[", 1)[0] for j in cols}


def _deliveries(sm: SemanticModel, fam: VariableFamily
                ) -> tuple[list[ConstraintFamily], list[ConstraintFamily]]:
    """The requirements on ``fam``: (rows that ask for a plain amount of it, which revenue
    turns into "sell up to demand"; rows that ask for a mix of it, nutrients or coverage,
    where revenue per unit would buy more than is asked)."""
    plain, mixed = [], []
    for c in sm.constraints:
        if c.role not in DELIVERY_ROLES or c.sense not in (">=", "="):
            continue
        terms = expand(c.lhs)
        if not any(v.name == fam.name for m in terms for v in m.vars):
            continue
        amount = all(len(m.vars) == 1 and m.vars[0].name == fam.name and m.sign > 0 and
                     all(isinstance(k, Const) and k.value == 1 for k in m.coefs)
                     for m in terms)
        (plain if amount else mixed).append(c)
    return plain, mixed


def _sell_up_to(sm: SemanticModel, c: ConstraintFamily) -> ConstraintFamily:
    """A requirement told as a market: what is sold stays within the demand."""
    noun = entity(sm, c.forall[-1][1]) if c.forall else ""
    meaning = f"Sales for each {noun} stay within its demand." if noun else \
        "Sales stay within the demand."
    return replace(c, sense="<=", meaning=meaning)


# A plan that makes no money leaves capacity idle too: it is rejected for the loss, checked
# right after the tour, before the model checks its consequences would fail; then whether
# revenue is earned on flow going round in loops or on more than is demanded.
@operator('cost minimisation to profit',
          postcheck=(PostCheck('unprofitable', unprofitable, after='one_tour'), PROFIT_LOOP,
                     OVER_DELIVERY, CONSTANT_TERM))
def cost_to_profit(ctx: Context) -> Mutation:
    """A cost-minimising model becomes profit-maximising: revenue per unit sold minus the
    costs. Only a cost in money becomes a profit (not a count of bins, not a variance), and the
    prices are sized so that the parent's own plan makes money. Requirements on what is sold
    become a market ("sell up to demand"); a flow along arcs, or a quantity that requirements
    ask for in a mix (nutrients, coverage), earns no revenue per unit."""
    sm = ctx.parent
    o = sm.objective
    if o.sense != "min":
        raise NotApplicable("the objective is not a cost to minimise")
    money = str(dict(sm.descriptors.get("words") or {}).get("money", ""))
    if not money or money not in o.description:
        raise NotApplicable(f"the objective ({o.description}) is not a cost in money")
    # Revenue is earned on what is sold or chosen, never on a position or an indicator; a
    # flow earns at its sinks, where the balance fixes what is delivered, never per arc.
    arcs = _arc_flows(sm)
    cands = [v for v in priceable(sm) if v.dims and v.name not in arcs
             and not _deliveries(sm, v)[1]]
    fam = pick(ctx, cands, "quantity or selection family sold by the unit (not a flow on "
                           "arcs, not a mix of requirements)")
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    name = fresh_name(sm, "price")
    sold = np.nan_to_num(np.asarray(ctx.values.get(fam.name, np.nan), dtype=np.float64))
    cost = objective_at(sm, ctx.values)
    if cost is not None and cost > 0 and sold.sum() > 0:
        # At these prices the parent's plan earns 1.3-1.8 times its cost: a profit exists.
        unit = cost * ctx.rng.uniform(1.3, 1.8) / float(sold.sum())
        price = np.round(unit * ctx.rng.uniform(0.85, 1.15, shape), 2)
    else:
        price = np.round(objective_scale(sm) * ctx.rng.uniform(1.2, 2.5, shape), 2)
    idx = [i for i, _ in fam.dims]
    # The price is money per unit of what is sold (a selection's unit is the choice itself).
    unit = money if fam.vtype == "B" or not fam.unit or fam.unit == "0/1" else \
        f"{money} per {fam.unit}"
    p = Parameter(name, tuple(s for _, s in fam.dims), price, unit,
                  f"revenue {per_unit(sm, fam.description, fam.unit, fam.dims)}")
    expr = Add((sum_over(fam, P(name, *idx) * V(fam.name, *idx)), Neg(o.expr)))
    # Revenue per unit on a requirement "at least the demand" ships all there is: the demand
    # becomes what the market takes at most.
    markets = {c.name for c in _deliveries(sm, fam)[0]}
    cons = tuple(_sell_up_to(sm, c) if c.name in markets else c for c in sm.constraints)
    return with_changes(sm, "cost_to_profit", {"variable": fam.name, "markets": sorted(markets)},
                 params=(*sm.params, p), constraints=cons,
                 objective=ObjectiveSpec("max", expr, f"profit from sales net of {o.description}"))
