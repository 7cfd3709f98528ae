"""Twins of the inventory and planning families (backorders to bill of materials)."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("backorder_planning")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    P, T = n["P"], n["T"]
    x, s, u = m.addVars(P, T), m.addVars(P, T), m.addVars(P, T)
    y = m.addVars(P, T, vtype=GRB.BINARY)
    for t in r(T):
        m.addConstr(gp.quicksum(p["hours"][i] * x[i, t] for i in r(P)) <= p["capacity"][t])
    for i in r(P):
        for t in r(T):
            # Net stock (on hand minus owed) carries over; none owed at the start.
            before = p["initial"][i] if t == 0 else s[i, t - 1] - u[i, t - 1]
            m.addConstr(before + x[i, t] - p["demand"][i, t] == s[i, t] - u[i, t])
            m.addConstr(x[i, t] <= p["big_m"][i, t] * y[i, t])
        m.addConstr(u[i, T - 1] <= 0)
    m.setObjective(gp.quicksum(p["make_cost"][i, t] * x[i, t] + p["hold_cost"][i] * s[i, t]
                               + p["backorder_cost"][i] * u[i, t] + p["setup_cost"][i] * y[i, t]
                               for i in r(P) for t in r(T)))


@builder("workforce_planning")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    K, T = n["K"], n["T"]
    w = m.addVars(K, T, vtype=GRB.INTEGER)
    h = m.addVars(K, T, vtype=GRB.INTEGER)
    f = m.addVars(K, T, vtype=GRB.INTEGER)
    o = m.addVars(K, T)
    regular, ot_max = float(p["regular"]), float(p["ot_max"])
    for k in r(K):
        for t in r(T):
            before = p["initial"][k] if t == 0 else w[k, t - 1]
            m.addConstr(w[k, t] == before + h[k, t] - f[k, t])
            m.addConstr(regular * w[k, t] + o[k, t] >= p["demand"][k, t])
            m.addConstr(o[k, t] <= ot_max * w[k, t])
    for t in r(T):
        m.addConstr(gp.quicksum(h[k, t] for k in r(K)) <= p["hire_limit"][t])
    m.setObjective(gp.quicksum(p["wage"][k] * w[k, t] + p["ot_cost"][k] * o[k, t] +
                               p["hire_cost"][k] * h[k, t] + p["fire_cost"][k] * f[k, t]
                               for k in r(K) for t in r(T)))


@builder("multi_echelon")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    W, R, T = n["W"], n["R"], n["T"]
    x, s = m.addVars(W, T), m.addVars(W, T)
    y = m.addVars(W, R, T)
    for t in r(T):
        m.addConstr(gp.quicksum(x[w, t] for w in r(W)) <= p["plant_cap"][t])
    for w in r(W):
        for t in r(T):
            sent = gp.quicksum(y[w, j, t] for j in r(R))
            before = p["initial"][w] if t == 0 else s[w, t - 1]
            m.addConstr(before + x[w, t] - sent == s[w, t])
            m.addConstr(s[w, t] <= p["storage"][w])
            m.addConstr(sent <= p["dispatch"][w])
    for j in r(R):
        for t in r(T):
            m.addConstr(gp.quicksum(y[w, j, t] for w in r(W)) >= p["demand"][j, t])
    m.setObjective(gp.quicksum(p["ship_in"][w] * x[w, t] + p["hold_cost"][w] * s[w, t]
                               for w in r(W) for t in r(T)) +
                   gp.quicksum(p["ship_out"][w, j] * y[w, j, t]
                               for w in r(W) for j in r(R) for t in r(T)))


@builder("bom_production")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    E, S, C, T = n["E"], n["S"], n["C"], n["T"]
    made, sold, stock = m.addVars(E, T), m.addVars(E, T), m.addVars(E, T)
    inhouse, bought, parts = m.addVars(S, T), m.addVars(S, T), m.addVars(C, T)
    for e in r(E):
        for t in r(T):
            before = p["initial"][e] if t == 0 else stock[e, t - 1]
            m.addConstr(before + made[e, t] - sold[e, t] == stock[e, t])
            m.addConstr(sold[e, t] <= p["demand"][e, t])
    for t in r(T):
        for j in r(S):
            m.addConstr(inhouse[j, t] + bought[j, t] ==
                        gp.quicksum(p["sub_use"][e, j] * made[e, t] for e in r(E)))
        for c in r(C):
            m.addConstr(parts[c, t] ==
                        gp.quicksum(p["part_use"][j, c] * inhouse[j, t] for j in r(S)))
            m.addConstr(parts[c, t] <= p["part_limit"][c])
        m.addConstr(gp.quicksum(p["mhours"][j] * inhouse[j, t] for j in r(S)) <= p["mcap"][t])
        m.addConstr(gp.quicksum(p["ahours"][e] * made[e, t] for e in r(E)) <= p["acap"][t])
    m.setObjective(gp.quicksum(p["price"][e] * sold[e, t] - p["hold_cost"][e] * stock[e, t]
                               for e in r(E) for t in r(T)) -
                   gp.quicksum(p["buy_price"][j] * bought[j, t] for j in r(S) for t in r(T)) -
                   gp.quicksum(p["part_price"][c] * parts[c, t] for c in r(C) for t in r(T)),
                   GRB.MAXIMIZE)
