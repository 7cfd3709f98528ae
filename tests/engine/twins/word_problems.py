"""Twins of the word-problem families: product mix with ratio rules, fleet mix, goal
programming and purchasing under incremental quantity discounts."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("product_mix_ratio")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    # The whole-unit stories (furniture pieces, ads) are the ones that buy from a budget.
    nP = n["P"]
    x = m.addVars(nP, vtype=GRB.INTEGER if "budget" in p else GRB.CONTINUOUS)
    first, last = 0, nP - 1
    for k in r(n["R"]):
        m.addConstr(gp.quicksum(p["use"][k, j] * x[j] for j in r(nP)) <= p["avail"][k])
    if "budget" in p:
        m.addConstr(gp.quicksum(p["cost"][j] * x[j] for j in r(nP)) <= float(p["budget"]))
    if "total_cap" in p:
        m.addConstr(x.sum() <= float(p["total_cap"]))
    if "min_first" in p:
        m.addConstr(x[first] >= float(p["min_first"]))
    if "share" in p:  # at least share % of everything made is the first product
        m.addConstr(100 * x[first] >= float(p["share"]) * x.sum())
    if "ratio" in p:
        m.addConstr(x[last] <= float(p["ratio"]) * x[first])
    m.setObjective(gp.quicksum(p["gain"][j] * x[j] for j in r(nP)), GRB.MAXIMIZE)


@builder("fleet_mix")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    nK = n["K"]
    x = m.addVars(nK, vtype=GRB.INTEGER)
    m.addConstr(gp.quicksum(p["capacity"][k] * x[k] for k in r(nK)) >= float(p["demand"]))
    m.addConstr(x[0] >= x[nK - 1] + 1)  # strictly more of the first type, in whole units
    if "max_last" in p:
        m.addConstr(x[nK - 1] <= float(p["max_last"]))
    if "res_cap" in p:
        m.addConstr(gp.quicksum(p["res_use"][k] * x[k] for k in r(nK)) <= float(p["res_cap"]))
    if "budget" in p:  # the stories with a budget count units instead of cost
        m.addConstr(gp.quicksum(p["cost"][k] * x[k] for k in r(nK)) <= float(p["budget"]))
        m.setObjective(x.sum())
    else:
        m.setObjective(gp.quicksum(p["cost"][k] * x[k] for k in r(nK)))


@builder("goal_programming")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    nP, nD = n["P"], n["D"]
    x = m.addVars(nP)
    p_short, p_extra, v_short, v_extra = m.addVar(), m.addVar(), m.addVar(), m.addVar()
    idle, over = m.addVars(nD), m.addVars(nD)
    m.addConstr(gp.quicksum(p["profit"][j] * x[j] for j in r(nP)) + p_short - p_extra
                == float(p["profit_target"]))
    m.addConstr(x.sum() + v_short - v_extra == float(p["volume_target"]))
    for d in r(nD):
        m.addConstr(gp.quicksum(p["hours"][d, j] * x[j] for j in r(nP)) + idle[d] - over[d]
                    == p["hours_target"][d])
    for k in r(n["R"]):
        m.addConstr(gp.quicksum(p["use"][k, j] * x[j] for j in r(nP)) <= p["avail"][k])
    m.setObjective(float(p["w_profit"]) * p_short + float(p["w_volume"]) * v_short
                   + gp.quicksum(p["w_over"][d] * over[d] for d in r(nD)))


@builder("piecewise_procurement")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    M, S, T = n["M"], n["S"], n["T"]
    q = m.addVars(M, S, T)
    y = m.addVars(M, S, T, vtype=GRB.BINARY)
    for i in r(M):
        m.addConstr(q.sum(i, "*", "*") >= p["demand"][i])
    for s in r(S):
        m.addConstr(q.sum("*", s, "*") <= p["cap"][s])
    for i in r(M):
        for s in r(S):
            for t in r(T):
                m.addConstr(q[i, s, t] <= p["size"][s, t] * y[i, s, t])
                if t + 1 < T:  # the next tier only once this one is full
                    m.addConstr(q[i, s, t] >= p["size"][s, t] * y[i, s, t + 1])
    m.setObjective(gp.quicksum(p["price"][i, s, t] * q[i, s, t]
                               for i in r(M) for s in r(S) for t in r(T)))
