"""Twins of the hubs group: a degree-limited spanning tree (directed single-commodity flow
from the first site), capacitated single-allocation hub location (Ernst-Krishnamoorthy) and
location-routing (arcs by depot, lifted cumulative loads)."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("spanning_tree")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    N, E = n["N"], n["E"]
    a, b = p["end_a"].astype(int), p["end_b"].astype(int)
    y = m.addVars(E, vtype=GRB.BINARY)  # the link is built
    xa = m.addVars(E, vtype=GRB.BINARY)  # it feeds b from a (away from the root)
    xb = m.addVars(E, vtype=GRB.BINARY)  # it feeds a from b
    fa = m.addVars(E)  # flow a -> b
    fb = m.addVars(E)  # flow b -> a
    for k in range(1, N):  # every site but the root keeps one unit, and has one feed
        inflow = gp.quicksum(fa[e] for e in r(E) if b[e] == k) + \
            gp.quicksum(fb[e] for e in r(E) if a[e] == k)
        outflow = gp.quicksum(fa[e] for e in r(E) if a[e] == k) + \
            gp.quicksum(fb[e] for e in r(E) if b[e] == k)
        m.addConstr(inflow - outflow == 1)
        m.addConstr(gp.quicksum(xa[e] for e in r(E) if b[e] == k) +
                    gp.quicksum(xb[e] for e in r(E) if a[e] == k) == 1)
    for e in r(E):
        m.addConstr(xa[e] + xb[e] == y[e])
        m.addConstr(fa[e] <= (N - 1) * xa[e])
        m.addConstr(fb[e] <= (N - 1) * xb[e])
    m.addConstr(y.sum() == N - 1)
    for k in r(N):
        m.addConstr(gp.quicksum(y[e] for e in r(E) if k in (a[e], b[e])) <= p["ports"][k])
    m.setObjective(gp.quicksum(p["cost"][e] * y[e] for e in r(E)))


@builder("hub_location")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    N, H = n["N"], n["H"]
    W, c, t = p["flow"], p["cost"], p["trunk"]
    alpha = float(p["discount"])
    out = [sum(W[i, j] for j in r(N)) for i in r(N)]
    back = [sum(W[j, i] for j in r(N)) for i in r(N)]
    pairs = [(h, k) for h in r(H) for k in r(H) if h != k]
    y = m.addVars(H, vtype=GRB.BINARY)
    z = m.addVars(N, H, vtype=GRB.BINARY)
    w = m.addVars([(i, h, k) for i in r(N) for h, k in pairs])  # origin i's flow h -> k
    for i in r(N):
        m.addConstr(z.sum(i, "*") == 1)
    for i in r(N):
        for h in r(H):
            m.addConstr(z[i, h] <= y[h])
    for i in r(N):
        for h in r(H):
            m.addConstr(out[i] * z[i, h] +
                        gp.quicksum(w[i, k, h] for k in r(H) if k != h) -
                        gp.quicksum(w[i, h, k] for k in r(H) if k != h) -
                        gp.quicksum(W[i, j] * z[j, h] for j in r(N)) == 0)
    for h in r(H):
        m.addConstr(gp.quicksum(out[i] * z[i, h] for i in r(N)) <= p["capacity"][h] * y[h])
    m.setObjective(gp.quicksum(p["fixed"][h] * y[h] for h in r(H)) +
                   gp.quicksum((out[i] + back[i]) * c[i, h] * z[i, h]
                               for i in r(N) for h in r(H)) +
                   gp.quicksum(alpha * t[h, k] * w[i, h, k] for i in r(N) for h, k in pairs))


@builder("location_routing")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    D, C = n["D"], n["C"]
    q, cap = p["demand"], float(p["cap"])
    pairs = [(i, j) for i in r(C) for j in r(C) if i != j]
    y = m.addVars(D, vtype=GRB.BINARY)
    x = m.addVars([(i, j, d) for i, j in pairs for d in r(D)], vtype=GRB.BINARY)
    start = m.addVars(D, C, vtype=GRB.BINARY)
    back = m.addVars(C, D, vtype=GRB.BINARY)
    u = m.addVars(C, ub=cap)

    def served(d: int, j: int) -> gp.LinExpr:
        return gp.quicksum(x[i, j, d] for i in r(C) if i != j) + start[d, j]

    for j in r(C):  # every stop entered once, in one depot's routes
        m.addConstr(gp.quicksum(served(d, j) for d in r(D)) == 1)
    for j in r(C):  # and left in the same depot's routes
        for d in r(D):
            m.addConstr(served(d, j) - gp.quicksum(x[j, k, d] for k in r(C) if k != j) -
                        back[j, d] == 0)
    for d in r(D):
        for j in r(C):
            m.addConstr(served(d, j) <= y[d])
    m.addConstr(start.sum() == float(p["fleet"]))
    for d in r(D):
        load = gp.quicksum(q[j] * served(d, j) for j in r(C))
        m.addConstr(load <= cap * start.sum(d, "*"))
        m.addConstr(load <= p["depot_cap"][d] * y[d])
    for i, j in pairs:  # lifted cumulative loads over every depot's arcs
        lifted = cap - q[i] - q[j]
        m.addConstr(u[i] - u[j] + cap * x.sum(i, j, "*") +
                    (lifted * x.sum(j, i, "*") if lifted else 0) <= cap - q[j])
    for j in r(C):
        m.addConstr(u[j] - gp.quicksum(q[i] * x.sum(i, j, "*") for i in r(C) if i != j) >= q[j])
    for i in r(C):
        m.addConstr(u[i] + gp.quicksum(q[j] * x.sum(i, j, "*") for j in r(C) if j != i) <= cap)
    driving = gp.quicksum(p["dist"][i, j] * x[i, j, d] for i, j in pairs for d in r(D)) + \
        gp.quicksum(p["depot_dist"][d, j] * (start[d, j] + back[j, d])
                    for d in r(D) for j in r(C))
    m.setObjective(gp.quicksum(p["fixed"][d] * y[d] for d in r(D)) + float(p["rate"]) * driving)
