"""Twins of the pairing group: generalized assignment, graph colouring, weighted matching and
crew pairing."""

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("generalized_assignment")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    A, T = n["A"], n["T"]
    x = m.addVars(A, T, vtype=GRB.BINARY)
    for t in r(T):
        m.addConstr(x.sum("*", t) == 1)
    for a in r(A):
        m.addConstr(gp.quicksum(p["use"][a, t] * x[a, t] for t in r(T)) <= p["capacity"][a])
    m.setObjective(gp.quicksum(p["cost"][a, t] * x[a, t] for a in r(A) for t in r(T)))


def _edges(p: Data) -> list[tuple[int, int]]:
    return [(int(i), int(j)) for i, j in zip(p["end_a"], p["end_b"], strict=True)]


@builder("graph_colouring")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    nodes, colours = n["V"], n["C"]
    x = m.addVars(nodes, colours, vtype=GRB.BINARY)
    w = m.addVars(colours, vtype=GRB.BINARY)
    for v in r(nodes):
        m.addConstr(x.sum(v, "*") == 1)
    for i, j in _edges(p):
        for c in r(colours):
            m.addConstr(x[i, c] + x[j, c] <= w[c])
    for c in range(1, colours):
        m.addConstr(w[c] <= w[c - 1])
    m.setObjective(w.sum())


@builder("weighted_matching")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    edges = _edges(p)
    x = m.addVars(len(edges), vtype=GRB.BINARY)
    for v in r(n["V"]):
        m.addConstr(gp.quicksum(x[e] for e, (i, j) in enumerate(edges) if v in (i, j)) <= 1)
    m.setObjective(gp.quicksum(p["score"][e] * x[e] for e in r(len(edges))), GRB.MAXIMIZE)


@builder("crew_pairing")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    duties, tasks = n["D"], n["F"]
    y = m.addVars(duties, vtype=GRB.BINARY)
    for f in r(tasks):
        m.addConstr(gp.quicksum(y[d] for d in r(duties) if p["covers"][d, f]) == 1)
    m.setObjective(gp.quicksum(p["cost"][d] * y[d] for d in r(duties)))
