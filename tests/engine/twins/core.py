"""Twins of the first 25 families (transportation to cutting stock)."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("transportation")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["S"], n["D"])
    for s in r(n["S"]):
        m.addConstr(gp.quicksum(x[s, d] for d in r(n["D"])) <= p["supply"][s])
    for d in r(n["D"]):
        m.addConstr(gp.quicksum(x[s, d] for s in r(n["S"])) >= p["demand"][d])
    m.setObjective(gp.quicksum(p["cost"][s, d] * x[s, d] for s in r(n["S"]) for d in r(n["D"])))


@builder("assignment")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["W"], n["T"], vtype=GRB.BINARY)
    for t in r(n["T"]):
        m.addConstr(x.sum("*", t) == 1)
    for w in r(n["W"]):
        m.addConstr(x.sum(w, "*") <= 1)
    m.setObjective(gp.quicksum(p["cost"][w, t] * x[w, t] for w in r(n["W"]) for t in r(n["T"])))


@builder("knapsack_01")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["I"], vtype=GRB.BINARY)
    m.addConstr(gp.quicksum(p["weight"][i] * x[i] for i in r(n["I"])) <= float(p["capacity"]))
    m.setObjective(gp.quicksum(p["value"][i] * x[i] for i in r(n["I"])), GRB.MAXIMIZE)


@builder("knapsack_bounded")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["I"], vtype=GRB.INTEGER, ub=list(p["copies"]))
    m.addConstr(gp.quicksum(p["weight"][i] * x[i] for i in r(n["I"])) <= float(p["capacity"]))
    m.setObjective(gp.quicksum(p["value"][i] * x[i] for i in r(n["I"])), GRB.MAXIMIZE)


@builder("knapsack_multidim")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["I"], vtype=GRB.BINARY)
    for k in r(n["R"]):
        m.addConstr(gp.quicksum(p["use"][k, i] * x[i] for i in r(n["I"])) <= p["limit"][k])
    m.setObjective(gp.quicksum(p["value"][i] * x[i] for i in r(n["I"])), GRB.MAXIMIZE)


@builder("blending")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["I"], ub=list(p["available"]))
    m.addConstr(x.sum() == float(p["amount"]))
    for a in r(n["A"]):
        q = gp.quicksum(p["content"][a, i] * x[i] for i in r(n["I"]))
        m.addConstr(q >= p["low"][a] * x.sum())
        m.addConstr(q <= p["high"][a] * x.sum())
    m.setObjective(gp.quicksum(p["cost"][i] * x[i] for i in r(n["I"])))


@builder("diet")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["F"], ub=list(p["limit"]))
    for k in r(n["N"]):
        m.addConstr(gp.quicksum(p["content"][k, f] * x[f] for f in r(n["F"])) >= p["need"][k])
    m.setObjective(gp.quicksum(p["cost"][f] * x[f] for f in r(n["F"])))


def _production(m: gp.Model, p: Data, n: dict[str, int]) -> tuple[gp.tupledict, gp.tupledict]:
    P, T = n["P"], n["T"]
    x, s = m.addVars(P, T), m.addVars(P, T)
    for t in r(T):
        m.addConstr(gp.quicksum(p["hours"][i] * x[i, t] for i in r(P)) <= p["capacity"][t])
    for i in r(P):
        for t in r(T):
            before = p["initial"][i] if t == 0 else s[i, t - 1]
            m.addConstr(before + x[i, t] - p["demand"][i, t] == s[i, t])
    return x, s


@builder("production_planning")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x, s = _production(m, p, n)
    m.setObjective(gp.quicksum(p["make_cost"][i, t] * x[i, t] + p["hold_cost"][i] * s[i, t]
                               for i in r(n["P"]) for t in r(n["T"])))


@builder("lot_sizing")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x, s = _production(m, p, n)
    y = m.addVars(n["P"], n["T"], vtype=GRB.BINARY)
    for i in r(n["P"]):
        for t in r(n["T"]):
            m.addConstr(x[i, t] <= p["big_m"][i, t] * y[i, t])
    m.setObjective(gp.quicksum(p["make_cost"][i, t] * x[i, t] + p["hold_cost"][i] * s[i, t]
                               + p["setup_cost"][i] * y[i, t]
                               for i in r(n["P"]) for t in r(n["T"])))


@builder("facility_location")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    F, C = n["F"], n["C"]
    y = m.addVars(F, vtype=GRB.BINARY)
    x = m.addVars(F, C, ub=1.0)
    for c in r(C):
        m.addConstr(x.sum("*", c) == 1)
    for f in r(F):
        for c in r(C):
            m.addConstr(x[f, c] <= y[f])
    m.setObjective(gp.quicksum(p["fixed"][f] * y[f] for f in r(F)) +
                   gp.quicksum(p["serve"][f, c] * x[f, c] for f in r(F) for c in r(C)))


@builder("facility_location_cap")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    F, C = n["F"], n["C"]
    y = m.addVars(F, vtype=GRB.BINARY)
    x = m.addVars(F, C, ub=1.0)
    for c in r(C):
        m.addConstr(x.sum("*", c) == 1)
    for f in r(F):
        m.addConstr(gp.quicksum(p["demand"][c] * x[f, c] for c in r(C)) <=
                    p["capacity"][f] * y[f])
    m.setObjective(gp.quicksum(p["fixed"][f] * y[f] for f in r(F)) +
                   gp.quicksum(p["unit_cost"][f, c] * p["demand"][c] * x[f, c]
                               for f in r(F) for c in r(C)))


@builder("set_cover")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    y = m.addVars(n["S"], vtype=GRB.BINARY)
    for u in r(n["U"]):
        m.addConstr(gp.quicksum(y[s] for s in r(n["S"]) if p["covers"][u, s]) >= 1)
    m.setObjective(gp.quicksum(p["cost"][s] * y[s] for s in r(n["S"])))


@builder("set_packing")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    y = m.addVars(n["S"], vtype=GRB.BINARY)
    for u in r(n["U"]):
        m.addConstr(gp.quicksum(y[s] for s in r(n["S"]) if p["uses"][u, s]) <= 1)
    m.setObjective(gp.quicksum(p["benefit"][s] * y[s] for s in r(n["S"])), GRB.MAXIMIZE)


@builder("bin_packing")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    n_items, n_bins = n["I"], n["B"]
    x = m.addVars(n_items, n_bins, vtype=GRB.BINARY)
    y = m.addVars(n_bins, vtype=GRB.BINARY)
    for i in r(n_items):
        m.addConstr(x.sum(i, "*") == 1)
    for k in r(n_bins):
        m.addConstr(gp.quicksum(p["size"][i] * x[i, k] for i in r(n_items)) <=
                    p["capacity"] * y[k])
        if k:
            m.addConstr(y[k] <= y[k - 1])
    m.setObjective(y.sum())


def _arcs(p: Data) -> list[tuple[int, int]]:
    return [(int(t), int(h)) for t, h in zip(p["tail"], p["head"], strict=True)]


def _balance(m: gp.Model, x: gp.tupledict, arcs: list[tuple[int, int]], node: int) -> gp.LinExpr:
    out = gp.quicksum(x[a] for a, (t, _) in enumerate(arcs) if t == node)
    inn = gp.quicksum(x[a] for a, (_, h) in enumerate(arcs) if h == node)
    return out - inn


@builder("min_cost_flow")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    arcs = _arcs(p)
    x = m.addVars(len(arcs), ub=list(p["capacity"]))
    for v in r(n["N"]):
        m.addConstr(_balance(m, x, arcs, v) == p["supply"][v])
    m.setObjective(gp.quicksum(p["cost"][a] * x[a] for a in r(len(arcs))))


@builder("max_flow")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    arcs = _arcs(p)
    x = m.addVars(len(arcs), ub=list(p["capacity"]))
    v = m.addVar()
    m.addConstr(_balance(m, x, arcs, 0) == v)
    for k in range(1, n["N"] - 1):
        m.addConstr(_balance(m, x, arcs, k) == 0)
    m.setObjective(v, GRB.MAXIMIZE)


@builder("shortest_path")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    arcs = _arcs(p)
    x = m.addVars(len(arcs))
    for v in r(n["N"]):
        m.addConstr(_balance(m, x, arcs, v) == (1 if v == 0 else -1 if v == n["N"] - 1 else 0))
    m.setObjective(gp.quicksum(p["length"][a] * x[a] for a in r(len(arcs))))


@builder("multicommodity_flow")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    arcs = _arcs(p)
    A = len(arcs)
    x = m.addVars(n["K"], A)
    for k in r(n["K"]):
        xk = {a: x[k, a] for a in r(A)}
        for v in r(n["N"]):
            m.addConstr(_balance(m, xk, arcs, v) == p["supply"][k, v])
    for a in r(A):
        m.addConstr(x.sum("*", a) <= p["capacity"][a])
    m.setObjective(gp.quicksum(p["cost"][a] * x[k, a] for k in r(n["K"]) for a in r(A)))


@builder("machine_scheduling")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    J = n["J"]
    s = m.addVars(J, lb=list(p["release"]))
    M = float(p["big_m"])
    for i in r(J):
        for j in range(i + 1, J):
            y = m.addVar(vtype=GRB.BINARY)
            m.addConstr(s[i] + p["proc"][i] <= s[j] + M * (1 - y))
            m.addConstr(s[j] + p["proc"][j] <= s[i] + M * y)
    m.setObjective(gp.quicksum(p["weight"][j] * (s[j] + p["proc"][j]) for j in r(J)))


@builder("shift_scheduling")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["S"], vtype=GRB.INTEGER)
    for t in r(n["T"]):
        m.addConstr(gp.quicksum(x[s] for s in r(n["S"]) if p["covers"][t, s]) >= p["need"][t])
    m.setObjective(gp.quicksum(p["cost"][s] * x[s] for s in r(n["S"])))


@builder("capital_budgeting")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    y = m.addVars(n["J"], vtype=GRB.BINARY)
    for t in r(n["Y"]):
        m.addConstr(gp.quicksum(p["spend"][j, t] * y[j] for j in r(n["J"])) <= p["budget"][t])
    for req, dep in zip(p["required"], p["dependent"], strict=True):
        m.addConstr(y[int(dep)] <= y[int(req)])
    m.setObjective(gp.quicksum(p["value"][j] * y[j] for j in r(n["J"])), GRB.MAXIMIZE)


@builder("portfolio")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    A = n["A"]
    w = m.addVars(A, ub=float(p["cap"]))
    m.addConstr(w.sum() == 1)
    m.addConstr(gp.quicksum(p["mean"][a] * w[a] for a in r(A)) >= float(p["target"]))
    m.setObjective(gp.quicksum(p["cov"][a, c] * w[a] * w[c] for a in r(A) for c in r(A)))


@builder("tsp_mtz")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    N = n["N"]
    pairs = [(i, j) for i in r(N) for j in r(N) if i != j]
    x = m.addVars(pairs, vtype=GRB.BINARY)
    u = m.addVars(range(1, N), lb=1.0, ub=N - 1)
    for i in r(N):
        m.addConstr(x.sum(i, "*") == 1)
        m.addConstr(x.sum("*", i) == 1)
    for i, j in pairs:
        if i and j:
            m.addConstr(u[i] - u[j] + N * x[i, j] <= N - 1)
    m.setObjective(gp.quicksum(p["dist"][i, j] * x[i, j] for i, j in pairs))


@builder("unit_commitment")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    G, T = n["G"], n["T"]
    on = m.addVars(G, T, vtype=GRB.BINARY)
    out = m.addVars(G, T)
    start = m.addVars(G, T, ub=1.0)
    for t in r(T):
        m.addConstr(out.sum("*", t) == p["demand"][t])
    for g in r(G):
        for t in r(T):
            m.addConstr(out[g, t] <= p["pmax"][g] * on[g, t])
            m.addConstr(out[g, t] >= p["pmin"][g] * on[g, t])
            m.addConstr(start[g, t] >= on[g, t] - (on[g, t - 1] if t else 0))
    m.setObjective(gp.quicksum(p["cost"][g] * out[g, t] + p["fixed"][g] * on[g, t] +
                               p["startup"][g] * start[g, t] for g in r(G) for t in r(T)))


@builder("cutting_stock")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    x = m.addVars(n["P"], vtype=GRB.INTEGER)
    for i in r(n["I"]):
        m.addConstr(gp.quicksum(p["pieces"][i, q] * x[q] for q in r(n["P"])) >= p["demand"][i])
    m.setObjective(x.sum())
