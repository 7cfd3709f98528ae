"""Twins of the rostering and several-objectives group: cyclic days-off rostering (staff per
pattern and shift covering each day's need; named staff, one pattern each, with refused
requests charged), a production plan scored by a weighted sum of profit, emissions and
overtime, and a lexicographic plan (most orders served, then least cost) as one weighted
objective whose weight exceeds any cost a plan can have."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("nurse_rostering")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    P, D = n["P"], n["D"]
    works, need, cost = p["works"], p["need"], p["cost"]
    if "S" not in n:  # staff counts per pattern and shift
        K = n["K"]
        x = m.addVars(P, K, vtype=GRB.INTEGER)
        for d in r(D):
            for k in r(K):
                m.addConstr(gp.quicksum(works[q, d] * x[q, k] for q in r(P)) >= need[d, k])
        m.setObjective(gp.quicksum(cost[q, k] * x[q, k] for q in r(P) for k in r(K)))
        return
    S = n["S"]  # named staff: a pattern each or the week off; a refused day off costs
    y = m.addVars(S, P, vtype=GRB.BINARY)
    for s in r(S):
        m.addConstr(gp.quicksum(y[s, q] for q in r(P)) <= 1)
    for d in r(D):
        m.addConstr(gp.quicksum(works[q, d] * y[s, q] for s in r(S) for q in r(P)) >= need[d])
    refused = {(s, q): sum(p["request"][s, d] * works[q, d] for d in r(D))
               for s in r(S) for q in r(P)}
    m.setObjective(gp.quicksum((cost[q] + float(p["refusal"]) * refused[s, q]) * y[s, q]
                               for s in r(S) for q in r(P)))


@builder("weighted_objectives")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    nP, M, T = n["P"], n["M"], n["T"]
    x = m.addVars(nP, T, vtype=GRB.INTEGER,
                  ub=[p["demand"][j, t] for j in r(nP) for t in r(T)])
    o = m.addVars(M, T)
    for i in r(M):
        for t in r(T):
            m.addConstr(gp.quicksum(p["hours"][i, j] * x[j, t] for j in r(nP)) - o[i, t]
                        <= p["capacity"][i, t])
    for i in r(M):
        for t in r(T):
            m.addConstr(o[i, t] <= p["max_ot"][i, t])
    profit = gp.quicksum(p["margin"][j] * x[j, t] for j in r(nP) for t in r(T))
    emitted = gp.quicksum(p["emis"][j] * x[j, t] for j in r(nP) for t in r(T))
    overtime = gp.quicksum(o[i, t] for i in r(M) for t in r(T))
    m.setObjective(float(p["w_profit"]) * profit - float(p["w_emis"]) * emitted -
                   float(p["w_ot"]) * overtime, GRB.MAXIMIZE)


@builder("lexicographic_plan")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    nO, L = n["O"], n["L"]
    cost = p["cost"]
    # max  W * (orders served) - cost, with W above any cost a plan can have: every order
    # at its dearest line, plus one (computed here from the costs, not read from the data).
    W = sum(max(cost[o, k] for k in r(L)) for o in r(nO)) + 1
    x = m.addVars(nO, L, vtype=GRB.BINARY)
    for o in r(nO):
        m.addConstr(gp.quicksum(x[o, k] for k in r(L)) <= 1)
    for k in r(L):
        m.addConstr(gp.quicksum(p["load"][o] * x[o, k] for o in r(nO)) <= p["capacity"][k])
    m.setObjective(gp.quicksum((W - cost[o, k]) * x[o, k] for o in r(nO) for k in r(L)),
                   GRB.MAXIMIZE)
