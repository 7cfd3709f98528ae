"""Twins of the nonlinear group: the risk-limited portfolio, pooling, lot sizes under a space
limit and the quadratic assignment problem (quadratic rows and objectives)."""

# ruff: noqa: E741  (the textbook's index names: I sources, l pools)

from __future__ import annotations

import gurobipy as gp
from gurobipy import GRB

from tests.engine.twins import Data, builder, r


@builder("risk_limited_portfolio")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    A, S = n["A"], n["S"]
    w = m.addVars(A, ub=[float(u) for u in p["limit"]])
    m.addConstr(w.sum() == 1)
    for s in r(S):
        m.addConstr(gp.quicksum(p["member"][s, a] * w[a] for a in r(A)) <= p["sector_cap"])
    m.addQConstr(gp.quicksum(p["cov"][a, c] * w[a] * w[c] for a in r(A) for c in r(A))
                 <= p["risk_cap"], name="risk")
    m.setObjective(gp.quicksum(p["mean"][a] * w[a] for a in r(A)), GRB.MAXIMIZE)


@builder("pooling")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    I, K, L, J = n["I"], n["K"], n["L"], n["J"]
    x = m.addVars(I, L)  # source into pool
    y = m.addVars(L, J)  # pool into product
    z = m.addVars(K, J)  # kept source straight into product
    quality = m.addVars(L, ub=float(p["quality"].max()))  # of each pool
    for i in r(I):
        for l in r(L):
            m.addConstr(x[i, l] <= p["pool_cap"][l] * p["pipe"][l, i])
    for l in r(L):
        m.addConstr(x.sum("*", l) - y.sum(l, "*") == 0)
        m.addConstr(y.sum(l, "*") <= p["pool_cap"][l])
        m.addQConstr(gp.quicksum(p["quality"][i] * x[i, l] for i in r(I))
                     - gp.quicksum(quality[l] * y[l, j] for j in r(J)) == 0, name=f"mix{l}")
    for j in r(J):
        made = y.sum("*", j) + z.sum("*", j)
        m.addQConstr(gp.quicksum(quality[l] * y[l, j] for l in r(L))
                     + gp.quicksum(p["quality_k"][k] * z[k, j] for k in r(K))
                     - p["limit"][j] * made <= 0, name=f"spec{j}")
        m.addConstr(made <= p["demand"][j])
    for k in r(K):
        m.addConstr(z.sum(k, "*") <= p["supply_k"][k])
    m.setObjective(gp.quicksum(p["price"][j] * (y.sum("*", j) + z.sum("*", j)) for j in r(J))
                   - gp.quicksum(p["cost"][i] * x.sum(i, "*") for i in r(I))
                   - gp.quicksum(p["cost_k"][k] * z.sum(k, "*") for k in r(K)), GRB.MAXIMIZE)


@builder("lot_size_space")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    items = n["I"]
    q = m.addVars(items, lb=[float(v) for v in p["min_lot"]])  # lot size
    orders = m.addVars(items)  # orders per year
    for i in r(items):
        m.addQConstr(orders[i] * q[i] >= p["demand"][i], name=f"cover{i}")
    m.addConstr(gp.quicksum(p["space"][i] * q[i] for i in r(items)) <= p["room"])
    m.setObjective(gp.quicksum(p["setup"][i] * orders[i] + 0.5 * p["hold"][i] * q[i]
                               for i in r(items)))


@builder("quadratic_assignment")
def _(m: gp.Model, p: Data, n: dict[str, int]) -> None:
    F, L = n["F"], n["L"]
    x = m.addVars(F, L, vtype=GRB.BINARY)
    for i in r(F):
        m.addConstr(x.sum(i, "*") == 1)
    for j in r(L):
        m.addConstr(x.sum("*", j) == 1)
    m.setObjective(gp.quicksum(p["flow"][i, k] * p["dist"][j, l] * x[i, j] * x[k, l]
                               for i in r(F) for k in r(F) for j in r(L) for l in r(L)
                               if i != k and j != l and p["flow"][i, k] and p["dist"][j, l]))
