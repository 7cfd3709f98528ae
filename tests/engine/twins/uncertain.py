"""Twins of the decisions-under-uncertainty group: two-stage capacity (the extensive form),
a robust product mix (the Bertsimas-Sim counterpart) and safety stocks under a service rule
(a chance constraint over equally likely scenarios)."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("two_stage_capacity")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    P, C, S = n["P"], n["C"], n["S"]
    # First stage: whole modules per site; second stage, per scenario: deliveries and unmet.
    y = m.addVars(P, vtype=GRB.INTEGER, ub=list(p["most"]))
    x = m.addVars(P, C, S)
    u = m.addVars(C, S)
    for s in r(S):
        for i in r(P):
            m.addConstr(gp.quicksum(x[i, c, s] for c in r(C)) <= p["size"][i] * y[i])
        for c in r(C):
            m.addConstr(gp.quicksum(x[i, c, s] for i in r(P)) + u[c, s] >= p["demand"][c, s])
    recourse = {s: gp.quicksum(p["ship_cost"][i, c] * x[i, c, s] for i in r(P) for c in r(C))
                + gp.quicksum(p["penalty"][c] * u[c, s] for c in r(C)) for s in r(S)}
    m.setObjective(gp.quicksum(p["module_cost"][i] * y[i] for i in r(P)) +
                   gp.quicksum(p["prob"][s] * recourse[s] for s in r(S)))


@builder("robust_mix")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    J, R = n["J"], n["R"]
    x = m.addVars(J, vtype=GRB.INTEGER, ub=list(p["market"]))
    # max over |S| <= Gamma of sum_{j in S} dev x_j, dualised: Gamma z + sum_j w_j with
    # z + w_j >= dev_j x_j (x >= 0, so |x_j| = x_j).
    z = m.addVars(R)
    w = m.addVars(R, J)
    for k in r(R):
        m.addConstr(gp.quicksum(p["use"][k, j] * x[j] for j in r(J)) + p["gamma"][k] * z[k]
                    + gp.quicksum(w[k, j] for j in r(J)) <= p["capacity"][k])
        for j in r(J):
            m.addConstr(z[k] + w[k, j] >= p["dev"][k, j] * x[j])
    m.setObjective(gp.quicksum(p["profit"][j] * x[j] for j in r(J)), GRB.MAXIMIZE)


@builder("safety_stock")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    nI, S = n["I"], n["S"]
    stock = m.addVars(nI, vtype=GRB.INTEGER)
    sales = m.addVars(nI, S, ub=[p["demand"][i, s] for i in r(nI) for s in r(S)])
    covered = m.addVars(nI, S, vtype=GRB.BINARY)
    for i in r(nI):
        for s in r(S):
            m.addConstr(sales[i, s] <= stock[i])
            m.addConstr(p["demand"][i, s] * covered[i, s] <= stock[i])
        m.addConstr(gp.quicksum(covered[i, s] for s in r(S)) >= p["need"][i])
    m.addConstr(gp.quicksum(p["space"][i] * stock[i] for i in r(nI)) <= float(p["limit"]))
    m.setObjective(gp.quicksum(p["price"][i] * sales[i, s] / S for i in r(nI) for s in r(S)) -
                   gp.quicksum(p["cost"][i] * stock[i] for i in r(nI)), GRB.MAXIMIZE)
