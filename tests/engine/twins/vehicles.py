"""Twins of the vehicle routing families (capacitated routes, time windows, pickup and
delivery): the depot outside the stops, with arcs of its own out (start) and back."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


def _routes(m: gp.Model, p: Data, C: int) -> tuple[gp.tupledict, gp.tupledict, gp.tupledict]:
    """Arcs between stops, from and to the depot, cumulative loads, and their rows."""
    pairs = [(i, j) for i in r(C) for j in r(C) if i != j]
    q, cap = p["demand"], float(p["cap"])
    x = m.addVars(pairs, vtype=GRB.BINARY)
    start = m.addVars(C, vtype=GRB.BINARY)
    back = m.addVars(C, vtype=GRB.BINARY)
    u = m.addVars(C, ub=cap)
    for j in r(C):  # every stop entered once (from a stop or from the depot)
        m.addConstr(gp.quicksum(x[i, j] for i in r(C) if i != j) + start[j] == 1)
    for i in r(C):  # and left once (to a stop or back to the depot)
        m.addConstr(gp.quicksum(x[i, j] for j in r(C) if j != i) + back[i] == 1)
    m.addConstr(start.sum() == float(p["fleet"]))  # every vehicle goes out
    for i, j in pairs:  # lifted cumulative-load rows (Desrochers-Laporte)
        lifted = cap - q[i] - q[j]
        m.addConstr(u[i] - u[j] + cap * x[i, j] + (lifted * x[j, i] if lifted else 0)
                    <= cap - q[j])
    for i in r(C):  # a route's load at a stop includes the stop's own
        m.addConstr(u[i] >= q[i])
    return x, start, back


def _length(p: Data, x: gp.tupledict, start: gp.tupledict, back: gp.tupledict,
            arc: str, home: str, C: int) -> gp.LinExpr:
    return (gp.quicksum(p[arc][i, j] * x[i, j] for i in r(C) for j in r(C) if i != j) +
            gp.quicksum(p[home][i] * (start[i] + back[i]) for i in r(C)))


@builder("cvrp")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    C = n["C"]
    x, start, back = _routes(m, p, C)
    m.setObjective(_length(p, x, start, back, "dist", "home_dist", C))


@builder("vrptw")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    C = n["C"]
    x, start, back = _routes(m, p, C)
    early, late, service, travel = p["earliest"], p["latest"], p["service"], p["travel"]
    t = m.addVars(C, lb=list(early))
    for i in r(C):  # the window closes at the latest start
        m.addConstr(t[i] <= late[i])
    for i in r(C):  # the day starts at 0 at the depot
        m.addConstr(t[i] - p["home_time"][i] * start[i] >= 0)
    for i in r(C):
        for j in r(C):
            if i != j:  # precedence along a used arc, waiting allowed; M from the windows
                big = late[i] + service[i] + travel[i, j] - early[j]
                m.addConstr(t[i] + service[i] + travel[i, j] - t[j] <= big * (1 - x[i, j]))
    m.setObjective(_length(p, x, start, back, "travel", "home_time", C))


@builder("pickup_delivery")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    R, N = n["R"], n["N"]
    pick = [int(v) for v in p["pickup"]]
    drop = [int(v) for v in p["dropoff"]]
    size, cap = p["size"], float(p["cap"])
    change = [0.0] * N  # what a stop puts on board (+) or takes off (-)
    for k in r(R):
        change[pick[k]] += size[k]
        change[drop[k]] -= size[k]
    pairs = [(i, j) for i in r(N) for j in r(N) if i != j]
    x = m.addVars(pairs, vtype=GRB.BINARY)
    start = m.addVars(N, vtype=GRB.BINARY)
    back = m.addVars(N, vtype=GRB.BINARY)
    u = m.addVars(N, lb=1.0, ub=float(N))
    load = m.addVars(N, ub=cap)
    for j in r(N):
        m.addConstr(gp.quicksum(x[i, j] for i in r(N) if i != j) + start[j] == 1)
    for i in r(N):
        m.addConstr(gp.quicksum(x[i, j] for j in r(N) if j != i) + back[i] == 1)
    m.addConstr(start.sum() <= 1)  # one vehicle, one round
    for i, j in pairs:  # lifted Miller-Tucker-Zemlin positions
        m.addConstr(u[i] - u[j] + N * x[i, j] + (N - 2) * x[j, i] <= N - 1)
    for k in r(R):
        m.addConstr(u[drop[k]] - u[pick[k]] >= 1)
    for i, j in pairs:
        m.addConstr(load[i] - load[j] + cap * x[i, j] + change[j] <= cap)
    for k in r(R):
        m.addConstr(load[pick[k]] >= size[k])
    m.setObjective(_length(p, x, start, back, "dist", "home_dist", N))
