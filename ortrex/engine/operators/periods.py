"""Multi-period operators: demand met late from a backlog, at a cost per period late."""

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
    objective_scale,
    one_of,
    pick,
    sum_over,
    with_changes,
    within_licence,
)
from ortrex.engine.operators.costs import cost_unit, unit_costs
from ortrex.engine.operators.registry import operator
from ortrex.engine.operators.sanity import NON_BINDING
from ortrex.ir.expr import Add, Cond, Expr, Mul, Neg, P, Param, Sum, V, Var, as_expr
from ortrex.ir.semantic import ConstraintFamily, Parameter, SemanticModel, VariableFamily


def substitute(e: Expr, name: str, make: callable) -> Expr:  # type: ignore[valid-type]
    """``e`` with every ``Var(name, idx)`` replaced by ``make(idx)``."""
    if isinstance(e, Var):
        return make(e.idx) if e.name == name else e
    if isinstance(e, Add):
        return Add(tuple(substitute(t, name, make) for t in e.terms))
    if isinstance(e, Mul):
        return Mul(tuple(substitute(f, name, make) for f in e.factors))
    if isinstance(e, Neg):
        return Neg(substitute(e.arg, name, make))
    if isinstance(e, Sum):
        return replace(e, body=substitute(e.body, name, make))
    return e


def carried_stocks(sm: SemanticModel) -> list[tuple[VariableFamily, list[ConstraintFamily]]]:
    """Stock families carried from period to period: an inventory family that a balance
    family reads one period back (``s[p, t-1]``), with the balance families it is in."""
    out = []
    inventory = {v.name for v in sm.variables if v.role == "inventory"}
    for v in sm.variables:
        if v.role != "inventory" or not v.dims:
            continue
        rows = [c for c in sm.constraints if c.role == "balance" and c.sense == "=" and
                any(isinstance(e, Var) and e.name == v.name for e in c.lhs.walk())]
        lagged = [c for c in rows for e in c.lhs.walk() if isinstance(e, Var) and
                  e.name == v.name and e.idx and e.idx[-1].offset == -1]
        # Demand drawn from the stock each period (a parameter on the right: ``-demand``),
        # so what is short is a customer's order met late; a head count or a depot's stock
        # that only feeds shipments owes no one. A balance already carrying a second stock
        # (a backlog of its own) is left alone.
        owed = any(isinstance(e, Param) for c in lagged for e in as_expr(c.rhs).walk())
        stocks = {e.name for c in rows for e in c.lhs.walk() if isinstance(e, Var)
                  and e.name in inventory}
        if lagged and owed and stocks == {v.name}:
            out.append((v, rows))
    return out


# A backlog the optimum never uses decides nothing (``non_binding``).
@operator('demand met late: a backlog carried between periods at a cost, cleared by the end',
          postcheck=NON_BINDING)
def backorders(ctx: Context) -> Mutation:
    """Stock may go negative as a backlog: demand not met in its period is met in a later
    one at a cost per unit and period late, and nothing is owed after the last period."""
    sm = ctx.parent
    stock, rows = pick(ctx, carried_stocks(sm), "stock carried between periods by a balance")
    idx = [i for i, _ in stock.dims]
    t, T = stock.dims[-1]
    period = entity(sm, T)
    late = fresh_name(sm, "backlog")
    cost = fresh_name(sm, "backlog_cost")
    # Per entry of the stock's other indices (each product), a cost above holding it.
    head = stock.dims[:-1]
    hold = np.nan_to_num(unit_costs(sm, stock))
    per = hold.mean(axis=-1) if hold.ndim > 1 else np.full((), float(hold.mean()))
    scale = objective_scale(sm)
    base = np.where(per > 1e-9, per, scale) if np.ndim(per) else \
        np.array(per if per > 1e-9 else scale)
    value = np.round(base * ctx.rng.uniform(1.5, 4.0, np.shape(base)), 2)
    value = np.maximum(value, 0.01)
    params = (*sm.params, Parameter(
        cost, tuple(s for _, s in head), value, cost_unit(sm, stock),
        f"cost of each {one_of(stock.unit) if stock.unit else 'unit'} of demand met one "
        f"{period} late"))
    lv = VariableFamily(late, stock.dims, "C", 0.0, math.inf, stock.where,
                        f"{stock.unit or 'units'} of demand owed at the end of each {period}",
                        stock.unit, "auxiliary")

    def net(i: tuple) -> Expr:
        return V(stock.name, *i) - V(late, *i)

    changed = {c.name: replace(
        c, lhs=substitute(c.lhs, stock.name, net),
        meaning=c.meaning.rstrip(".") + f", or, where it falls short, the shortfall is owed "
                f"as a backlog and met in a later {period}.") for c in rows}
    cons = tuple(changed.get(c.name, c) for c in sm.constraints)
    clear = ConstraintFamily(
        fresh_name(sm, f"{late}_cleared"),
        f"Every backlog is made up by the last {period}: nothing is owed at the end.",
        stock.dims, V(late, *idx), "<=", 0.0, (*stock.where, Cond("last", t)), "demand")
    o = sm.objective
    coef = P(cost, *[i for i, _ in head])
    term = sum_over(lv, coef * V(late, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    desc = o.description + (" plus backlog costs" if o.sense == "min"
                            else " net of backlog costs")
    if not np.all(np.isfinite(value)):
        raise NotApplicable("no finite backlog cost")
    info = {"variable": stock.name}
    return within_licence(with_changes(
        sm, "backorders", info, params=params, variables=(*sm.variables, lv),
        constraints=(*cons, clear), objective=replace(o, expr=expr, description=desc)))
