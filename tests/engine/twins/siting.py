"""Twins of the siting families: p-median, p-centre, maximal covering, network design."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("p_median")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    F, C = n["F"], n["C"]
    x = m.addVars(F, vtype=GRB.BINARY)
    y = m.addVars(F, C, vtype=GRB.BINARY)
    for c in r(C):
        m.addConstr(y.sum("*", c) == 1)
    for f in r(F):
        for c in r(C):
            m.addConstr(y[f, c] <= x[f])
    for f in r(F):
        m.addConstr(gp.quicksum(p["demand"][c] * y[f, c] for c in r(C)) <=
                    float(p["capacity"]) * x[f])
    m.addConstr(x.sum() == float(p["n_open"]))
    m.setObjective(gp.quicksum(p["demand"][c] * p["dist"][f, c] * y[f, c]
                               for f in r(F) for c in r(C)))


@builder("p_center")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    F, C = n["F"], n["C"]
    x = m.addVars(F, vtype=GRB.BINARY)
    y = m.addVars(F, C, vtype=GRB.BINARY)
    w = m.addVar()
    for c in r(C):
        m.addConstr(y.sum("*", c) == 1)
    for f in r(F):
        for c in r(C):
            m.addConstr(y[f, c] <= x[f])
    m.addConstr(x.sum() == float(p["n_open"]))
    for c in r(C):
        m.addConstr(gp.quicksum(p["dist"][f, c] * y[f, c] for f in r(F)) <= w)
    m.setObjective(w)


@builder("max_covering")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    F, C = n["F"], n["C"]
    x = m.addVars(F, vtype=GRB.BINARY)
    z = m.addVars(C, vtype=GRB.BINARY)
    for c in r(C):
        m.addConstr(gp.quicksum(x[f] for f in r(F) if p["covers"][c, f]) >= z[c])
    m.addConstr(gp.quicksum(p["cost"][f] * x[f] for f in r(F)) <= float(p["budget"]))
    m.setObjective(gp.quicksum(p["demand"][c] * z[c] for c in r(C)), GRB.MAXIMIZE)


@builder("network_design")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    N, A = n["N"], n["A"]
    tail, head = p["tail"].astype(int), p["head"].astype(int)
    y = m.addVars(A, vtype=GRB.BINARY)
    x = m.addVars(A)
    for k in r(N):
        m.addConstr(gp.quicksum(x[e] for e in r(A) if tail[e] == k) -
                    gp.quicksum(x[e] for e in r(A) if head[e] == k) == p["supply"][k])
    for e in r(A):
        m.addConstr(x[e] <= p["capacity"][e] * y[e])
    m.setObjective(gp.quicksum(p["fixed"][e] * y[e] + p["cost"][e] * x[e] for e in r(A)))
