"""Objective operators: a secondary term, min-max form, cost to profit, each with the
post-checks its children must pass."""

from __future__ import annotations

import math
import re
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    entities_of,
    entity,
    fresh_name,
    objective_at,
    objective_scale,
    one_of,
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
    arc_flows,
)
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.expr import (
    Add,
    Const,
    Expr,
    Idx,
    Monomial,
    Mul,
    Neg,
    P,
    Param,
    Sum,
    V,
    Var,
    as_expr,
    expand,
)
from ortrex.ir.semantic import (
    ConstraintFamily,
    ObjectiveSpec,
    Parameter,
    SemanticModel,
    VariableFamily,
)
from ortrex.render.language import article
from ortrex.render.telling import per_unit, plain

TOL = 1e-6  # an objective this close to 0 is 0 (the post-checks' tolerance)


def rate(sm: SemanticModel, fam: VariableFamily) -> str:
    """What a charge or a price is paid on: ``per box shipped from each depot to each
    clinic``; for a yes/no choice ``when a shipment is chosen`` (never "per unit of each
    shipment is chosen")."""
    if fam.vtype != "B":
        return per_unit(sm, fam.description, fam.unit, fam.dims)
    what = plain(sm, fam.description, fam.dims)
    for noun in dict.fromkeys(entity(sm, s) for _, s in fam.dims):
        what = re.sub(rf"\beach {re.escape(noun)}\b", article(noun), what)
    return f"when {what}"


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
    raw = objective_scale(sm) * ctx.rng.uniform(0.05, 0.3)
    # Written as money is (cents), a small charge with the digits that tell it apart.
    w = float(np.round(raw, 2 if raw >= 1 else 4)) or 0.01
    term = sum_over(fam, P(name) * V(fam.name, *(i for i, _ in fam.dims)))
    o = sm.objective
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    money = str(dict(sm.descriptors.get("words") or {}).get("money", ""))
    p = Parameter(name, (), np.array(w), money if money and money in o.description else "",
                  f"handling charge {rate(sm, fam)}")
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


def _enablers(sm: SemanticModel) -> set[str]:
    """Selections that switch other decisions on through a linking row (a site opened so that
    customers can be served from it): revenue per one opened would pay for opening as such."""
    out = set()
    for c in sm.constraints:
        if c.role != "linking":
            continue
        names = {e.name for e in c.lhs.walk() if isinstance(e, Var)}
        out |= {n for n in names if len(names) > 1 and sm.var_map[n].role == "selection"}
    return out


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
    # One total (a blend of so many kg) is an amount the market takes, not a demand per
    # entity.
    meaning = f"Sales for each {noun} stay within its demand." if noun else \
        "What is sold stays within the amount asked for."
    return replace(c, sense="<=", meaning=meaning)


def _outflow(sm: SemanticModel, c: ConstraintFamily) -> str | None:
    """The demand a balance row takes out on its right-hand side (``stock - output =
    -demand``): a parameter subtracted, indexed by the row's own indices; None if none."""
    if c.role != "balance" or c.sense != "=" or not c.forall:
        return None
    terms = expand(as_expr(c.rhs))
    if any(m.vars or m.sums for m in terms):  # a side that is not plain data
        return None
    own = tuple(Idx(i) for i, _ in c.forall)
    for m in terms:
        if m.sign < 0 and len(m.coefs) == 1 and isinstance(m.coefs[0], Param) and \
                m.coefs[0].idx == own and \
                sm.param_map[m.coefs[0].name].index == tuple(s for _, s in c.forall):
            return m.coefs[0].name
    return None


def _rebuilt(monomials: list[Monomial]) -> Expr | float:
    """A sum-free expression of constants and parameters from its monomials (0 if none)."""
    terms: list[Expr] = []
    for m in monomials:
        t: Expr = m.coefs[0] if len(m.coefs) == 1 else Mul(m.coefs)
        terms.append(t if m.sign > 0 else Neg(t))
    return 0.0 if not terms else terms[0] if len(terms) == 1 else Add(tuple(terms))


def _markets_of(sm: SemanticModel) -> tuple[str, list[ConstraintFamily]] | None:
    """The demand that balance rows deliver from stock and output (production planning), and
    those rows; None when no balance delivers one, or they deliver different ones."""
    rows = [(c, _outflow(sm, c)) for c in sm.constraints]
    found = {d for _, d in rows if d}
    if len(found) != 1:
        return None
    return found.pop(), [c for c, d in rows if d]


def _sales(sm: SemanticModel, demand: str, rows: list[ConstraintFamily]
           ) -> tuple[VariableFamily, tuple[ConstraintFamily, ...]]:
    """A demand delivered through balance rows becomes a market: a sales variable takes the
    demand's place in them, and a rule keeps sales within the demand (the rule a client
    states: a variable's bound is never told)."""
    p = sm.param_map[demand]
    dims = rows[0].forall
    idx = [i for i, _ in dims]
    u = p.unit or "amount"
    # "units of product p sold in week t": the family's own wording of what is made.
    where = " ".join(f"{'of' if k == 0 else 'in'} {entity(sm, s)} {i}{' sold' * (k == 0)}"
                     for k, (i, s) in enumerate(dims))
    sold = VariableFamily(fresh_name(sm, "sold"), dims, "C", 0.0, math.inf, (),
                          f"{u} {where}", p.unit, role="quantity")
    new = {}
    for c in rows:
        rest = [m for m in expand(as_expr(c.rhs)) if not (
            m.sign < 0 and not m.vars and len(m.coefs) == 1 and
            isinstance(m.coefs[0], Param) and m.coefs[0].name == demand)]
        # What is sold now leaves the balance where the demand did; told as sales, since the
        # family's wording ("covers demand") no longer holds. A new name too: the family's
        # telling tells its balance rows by name ("demand must be met on time").
        meaning = re.sub(r"\bdemand\b", "sales", c.meaning) if re.search(
            r"\bdemand\b", c.meaning) else f"{c.meaning.rstrip('.')}, sales taken out."
        new[c.name] = replace(c, name=fresh_name(sm, f"{c.name}_sold"), meaning=meaning,
                              lhs=c.lhs + V(sold.name, *idx),
                              rhs=_rebuilt(rest))
    limit = ConstraintFamily(fresh_name(sm, "sales_limit"),
                             f"Sales stay within the {p.description}.", dims,
                             V(sold.name, *idx), "<=", P(demand, *idx), role="demand")
    cons = tuple(new.get(c.name, c) for c in sm.constraints)
    return sold, (*cons, limit)


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
    become a market ("sell up to demand"): a requirement on a plain amount becomes an upper
    limit, and a demand that balance rows deliver from stock and output (production planning)
    becomes a sales variable within the demand, which earns the revenue. A flow along arcs, or a
    quantity that requirements ask for in a mix (nutrients, coverage), earns no revenue per
    unit."""
    sm = ctx.parent
    o = sm.objective
    if o.sense != "min":
        raise NotApplicable("the objective is not a cost to minimise")
    money = str(dict(sm.descriptors.get("words") or {}).get("money", ""))
    if not money or money not in o.description:
        raise NotApplicable(f"the objective ({o.description}) is not a cost in money")
    variables, cons = sm.variables, sm.constraints
    delivered = _markets_of(sm)
    if delivered is not None:
        # Revenue on output would pay for stock that no one buys: it is earned on sales,
        # which the parent's plan makes equal to the demand.
        demand, rows = delivered
        fam, cons = _sales(sm, demand, rows)
        variables = (*variables, fam)
        sold = np.asarray(sm.param_map[demand].values, dtype=np.float64)
        markets = {c.name for c in cons[-1:]}
    else:
        # Revenue is earned on what is sold or chosen, never on a position or an indicator;
        # a flow earns at its sinks, where the balance fixes what is delivered, never per arc.
        # A site or option that others need switched on earns nothing by being on.
        arcs = arc_flows(sm) | _enablers(sm)
        cands = [v for v in priceable(sm) if v.dims and v.name not in arcs
                 and not _deliveries(sm, v)[1]]
        fam = pick(ctx, cands, "quantity or selection family sold by the unit (not a flow "
                               "on arcs, not a mix of requirements, not a site others need "
                               "open)")
        sold = np.nan_to_num(np.asarray(ctx.values.get(fam.name, np.nan), dtype=np.float64))
        # Revenue per unit on a requirement "at least the demand" ships all there is: the
        # demand becomes what the market takes at most.
        markets = {c.name for c in _deliveries(sm, fam)[0]}
        cons = tuple(_sell_up_to(sm, c) if c.name in markets else c for c in cons)
    # One market row prices what it sells: per buyer (a clinic pays per box it receives,
    # whichever depot ships it), per hour, or one price for a blend made of its parts; never
    # a price per route or per ingredient.
    rows = [c for c in cons if c.name in markets]
    market = rows[0] if len(rows) == 1 and {e.name for e in rows[0].lhs.walk()
                                             if isinstance(e, Var)} == {fam.name} else None
    dims = market.forall if market is not None else fam.dims
    shape = tuple(len(sm.set_map[s]) for _, s in dims)
    name = fresh_name(sm, "price")
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
    if market is None or market.forall == fam.dims:
        what = rate(sm, fam)
    else:
        u = one_of(fam.unit) if fam.unit else "unit"
        what = f"per {u} sold" + (f", by {entities_of(sm, market.forall)}" if market.forall
                                  else "")
    p = Parameter(name, tuple(s for _, s in dims), price, unit, f"revenue {what}")
    if market is None:
        revenue: Expr = sum_over(fam, P(name, *idx) * V(fam.name, *idx))
    else:
        revenue = P(name, *(i for i, _ in market.forall)) * market.lhs
        for k, (i, s_) in enumerate(reversed(market.forall)):
            revenue = Sum(i, s_, revenue, market.where if k == 0 else ())
    expr = Add((revenue, Neg(o.expr)))
    return with_changes(sm, "cost_to_profit", {"variable": fam.name, "markets": sorted(markets)},
                 params=(*sm.params, p), variables=variables, constraints=cons,
                 objective=ObjectiveSpec("max", expr, f"profit from sales net of {o.description}"))
