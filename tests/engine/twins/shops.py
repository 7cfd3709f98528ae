"""Twins of the shop-scheduling families: parallel machines, flow shop, job shop, project."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("parallel_machines")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    J, M = n["J"], n["M"]
    x = m.addVars(J, M, vtype=GRB.BINARY)
    cmax = m.addVar()
    for j in r(J):
        m.addConstr(x.sum(j, "*") == 1)
    for k in r(M):
        m.addConstr(gp.quicksum(p["proc"][j, k] * x[j, k] for j in r(J)) - cmax <= 0)
    m.setObjective(cmax)


@builder("flow_shop")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    J, M = n["J"], n["M"]
    z = m.addVars(J, J, vtype=GRB.BINARY)  # z[j, k]: job j in the k-th place
    c = m.addVars(J, M)  # c[k, s]: when the k-th job leaves station s
    for j in r(J):
        m.addConstr(z.sum(j, "*") == 1)
    for k in r(J):
        m.addConstr(z.sum("*", k) == 1)
    for k in r(J):
        for s in r(M):
            work = gp.quicksum(p["proc"][j, s] * z[j, k] for j in r(J))
            m.addConstr(c[k, s] - (c[k, s - 1] if s else 0) - work >= 0)
    for k in range(1, J):
        for s in r(M):
            work = gp.quicksum(p["proc"][j, s] * z[j, k] for j in r(J))
            m.addConstr(c[k, s] - c[k - 1, s] - work >= 0)
    m.setObjective(c[J - 1, M - 1])


@builder("job_shop")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    J, M = n["J"], n["M"]
    proc = p["proc"]
    big = float(proc.sum())
    s = m.addVars(J, M)
    y = {(i, j, k): m.addVar(vtype=GRB.BINARY) for i in r(J) for j in range(i + 1, J)
         for k in r(M)}
    cmax = m.addVar()
    # Each leg: its job starts on the machine reached only after it is done on the one left.
    for job, a, b in zip(p["leg_job"], p["leg_from"], p["leg_to"], strict=True):
        j, a, b = int(job), int(a), int(b)
        m.addConstr(s[j, b] - s[j, a] >= proc[j, a])
    for (i, j, k), v in y.items():
        m.addConstr(s[i, k] + proc[i, k] - s[j, k] - big * (1 - v) <= 0)
        m.addConstr(s[j, k] + proc[j, k] - s[i, k] - big * v <= 0)
    for j in r(J):
        for k in r(M):
            m.addConstr(s[j, k] + proc[j, k] - cmax <= 0)
    m.setObjective(cmax)


@builder("project_scheduling")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    A, R, T = n["A"], n["R"], n["T"]
    dur, pred, use, cap, w = p["dur"], p["pred"], p["use"], p["cap"], p["weight"]
    x = m.addVars(A, T, vtype=GRB.BINARY)  # x[a, t]: a starts at the beginning of period t
    end = m.addVars(A)  # when a is finished
    for a in r(A):
        m.addConstr(gp.quicksum(x[a, t] for t in r(T)) == 1)
        m.addConstr(end[a] - gp.quicksum((t + dur[a]) * x[a, t] for t in r(T)) == 0)
        m.addConstr(end[a] <= T)
    for a in r(A):
        for b in r(A):
            if pred[a, b]:
                m.addConstr(gp.quicksum(t * x[b, t] for t in range(1, T)) - end[a] >= 0)
    for k in r(R):
        for t in r(T):
            m.addConstr(gp.quicksum(use[k, a] * x[a, q] for a in r(A) for q in r(T)
                                    if use[k, a] and q <= t < q + dur[a]) <= cap[k])
    m.setObjective(gp.quicksum(w[a] * end[a] for a in r(A)))
