"""Network flows over arc sets: min-cost flow, max flow, shortest path, multi-commodity flow.

Arcs are a set of their own; integer parameters ``tail`` and ``head`` give each arc's end nodes
and flow balance sums over arcs linked to a node (``link`` conditions).
"""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, P, V, total

NET_VOCABS = (
    Vocabulary("logistics", "Freight network",
               "A freight operator routes {goods} across {N}s along {A}s.",
               {"N": ("terminal", "town"), "A": ("lane", "code:Lane"),
                "K": ("customer order", "surname")},
               {"goods": "containers", "qty": "containers", "money": "USD",
                "length": "km", "org": "freight operator", "move": "ship"}),
    Vocabulary("energy", "Gas pipelines",
               "A gas transmission company moves {goods} between {N}s through {A}s.",
               {"N": ("compressor station", "town"), "A": ("pipeline", "code:Pipe"),
                "K": ("shipper contract", "codename")},
               {"goods": "gas", "qty": "MMcf/day", "money": "USD", "length": "miles",
                "org": "gas transmission company", "move": "move"}),
    Vocabulary("telecom", "Data routing",
               "A network operator routes {goods} between {N}s over {A}s.",
               {"N": ("router", "town"), "A": ("fibre link", "code:Link"),
                "K": ("traffic demand", "codename")},
               {"goods": "traffic", "qty": "Gbit/s", "money": "cost units",
                "length": "ms", "org": "network operator", "move": "route"}),
)


def random_network(rng: np.random.Generator, n: int, extra: int, acyclic_chain: bool = True,
                   direct: bool = True) -> tuple[np.ndarray, np.ndarray]:
    """Arcs (tail, head): a chain 0 -> 1 -> ... -> n-1 plus ``extra`` distinct random arcs
    (``direct=False``: never the arc from the first node straight to the last)."""
    arcs = {(k, k + 1) for k in range(n - 1)} if acyclic_chain else set()
    tries = 0
    while len(arcs) < n - 1 + extra and tries < 50 * (extra + 1):
        i, j = (int(v) for v in rng.integers(0, n, 2))
        tries += 1
        if i != j and i != n - 1 and j != 0 and (direct or (i, j) != (0, n - 1)):
            arcs.add((i, j))
    tail, head = zip(*sorted(arcs), strict=True)
    return np.array(tail, dtype=float), np.array(head, dtype=float)


def _arcs(b: Builder, tail: np.ndarray, head: np.ndarray) -> None:
    b.set("A", tail.size)
    b.param("tail", ("A",), tail, "position of the {N} each {A} leaves", "{N} index",
            integer=True)
    b.param("head", ("A",), head, "position of the {N} each {A} enters", "{N} index",
            integer=True)
    b.extra["arcs"] = [[int(t), int(h)] for t, h in zip(tail, head, strict=True)]


def _out_minus_in(var: str, *prefix: str) -> object:
    out = total("e", "A", V(var, *prefix, "e"), Cond("link", "e", "n", param="tail"))
    inn = total("e", "A", V(var, *prefix, "e"), Cond("link", "e", "n", param="head"))
    return out - inn


@register
class MinCostFlow(Family):
    """Min-cost flow with arc capacities and node supplies."""

    name = "min_cost_flow"
    classes = ("network/min_cost_flow",)
    problem_class = "LP"
    summary = "Send {goods} from supply {N}s to demand {N}s at least cost within {A} capacities."
    sizes = {"small": {"N": (5, 7), "extra": (3, 6)}, "medium": {"N": (8, 20), "extra": (10, 40)},
             "large": {"N": (40, 100), "extra": (100, 400)}}
    vocabularies = NET_VOCABS
    natural_integrality = "totally unimodular: a node-arc incidence matrix"

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["N"]
        b.set("N")
        tail, head = random_network(rng, n, b.dims["extra"])
        _arcs(b, tail, head)
        m = tail.size
        flow = rounded(rng.uniform(5, 30, m) * (rng.random(m) < 0.7), 0)
        flow[0] = max(flow[0], 10.0)  # something always moves
        supply = np.zeros(n)
        np.add.at(supply, tail.astype(int), flow)
        np.subtract.at(supply, head.astype(int), flow)
        b.param("supply", ("N",), supply, "net supply of each {N} (negative: demand)", "{qty}",
                integer=True)
        b.param("capacity", ("A",), flow + rounded(rng.uniform(5, 25, m), 0),
                "capacity of each {A}", "{qty}")
        b.param("cost", ("A",), rounded(rng.uniform(1, 10, m)), "cost per unit on each {A}",
                "{money} per {qty}")
        b.var("x", (("e", "A"),), "flow on {A} e", ub=P("capacity", "e"), unit="{qty}",
              role="quantity")
        b.con("balance", "Flow out of a {N} minus flow in equals its net supply.",
              (("n", "N"),), _out_minus_in("x"), "=", P("supply", "n"), role="balance")
        b.objective("min", total("e", "A", P("cost", "e") * V("x", "e")),
                    "total flow cost in {money}")


@register
class MaxFlow(Family):
    """Maximum flow from the first node to the last."""

    name = "max_flow"
    classes = ("network/max_flow",)
    problem_class = "LP"
    summary = "Push as much {goods} as possible from the first {N} to the last."
    sizes = {"small": {"N": (5, 7), "extra": (3, 6)}, "medium": {"N": (8, 20), "extra": (10, 40)},
             "large": {"N": (40, 100), "extra": (100, 400)}}
    vocabularies = NET_VOCABS
    natural_integrality = "totally unimodular: a node-arc incidence matrix"

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["N"]
        b.set("N")
        tail, head = random_network(rng, n, b.dims["extra"])
        _arcs(b, tail, head)
        b.param("capacity", ("A",), rounded(rng.uniform(5, 40, tail.size), 0),
                "capacity of each {A}", "{qty}")
        b.var("x", (("e", "A"),), "flow on {A} e", ub=P("capacity", "e"), unit="{qty}",
              role="quantity")
        b.var("v", (), "total flow from the first to the last {N}", unit="{qty}", role="quantity")
        b.con("source", "The first {N} sends out the total flow.", (("n", "N"),),
              _out_minus_in("x") - V("v"), "=", 0.0, where=(Cond("first", "n"),), role="balance")
        b.con("conservation", "Every other intermediate {N} passes on what it receives.",
              (("n", "N"),), _out_minus_in("x"), "=", 0.0,
              where=(Cond("not_first", "n"), Cond("not_last", "n")), role="balance")
        b.objective("max", V("v"), "total flow in {qty}")


@register
class ShortestPath(Family):
    """Shortest path as an LP: one unit from the first node to the last."""

    name = "shortest_path"
    classes = ("routing/shortest_path",)
    problem_class = "LP"
    summary = "Find the shortest route from the first {N} to the last along {A}s."
    sizes = {"small": {"N": (5, 8), "extra": (4, 8)}, "medium": {"N": (10, 30), "extra": (20, 60)},
             "large": {"N": (60, 150), "extra": (200, 600)}}
    vocabularies = NET_VOCABS
    natural_integrality = "totally unimodular: a node-arc incidence matrix"

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["N"]
        b.set("N")
        # No direct arc from start to end: a one-arc route is a trivial answer.
        tail, head = random_network(rng, n, b.dims["extra"], direct=False)
        _arcs(b, tail, head)
        supply = np.zeros(n)
        supply[0], supply[-1] = 1.0, -1.0
        b.param("length", ("A",), rounded(rng.uniform(1, 20, tail.size), 1),
                "length of each {A}", "{length}")
        b.param("supply", ("N",), supply, "1 at the start {N}, -1 at the end {N}, else 0",
                "trips", integer=True)
        b.derive("supply", "[1 if n == 0 else (-1 if n == len(N) - 1 else 0) "
                           "for n in range(len(N))]")
        b.var("x", (("e", "A"),), "1 if {A} e is on the route", unit="trips", role="routing")
        b.con("route", "The route leaves the start, reaches the end and passes through "
              "every other {N} it enters.", (("n", "N"),), _out_minus_in("x"), "=",
              P("supply", "n"), role="balance")
        b.objective("min", total("e", "A", P("length", "e") * V("x", "e")),
                    "route length in {length}")


@register
class MultiCommodityFlow(Family):
    """Multi-commodity flow sharing arc capacities."""

    name = "multicommodity_flow"
    classes = ("network/multicommodity",)
    problem_class = "LP"
    summary = "Route several {K}s through shared {A}s at least cost."
    sizes = {"small": {"N": (4, 6), "extra": (3, 6), "K": (2, 3)},
             "medium": {"N": (6, 12), "extra": (8, 20), "K": (3, 6)},
             "large": {"N": (15, 30), "extra": (30, 80), "K": (6, 12)}}
    vocabularies = NET_VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n, k = b.dims["N"], b.dims["K"]
        b.set("N")
        b.set("K")
        tail, head = random_network(rng, n, b.dims["extra"], acyclic_chain=True)
        # Make the network strongly connected with a reverse chain, so any pair is routable.
        rev = [(j + 1, j) for j in range(n - 1) if (j + 1, j) not in
               set(zip(tail.astype(int), head.astype(int), strict=True))]
        if rev:
            tail = np.concatenate([tail, [float(r[0]) for r in rev]])
            head = np.concatenate([head, [float(r[1]) for r in rev]])
        _arcs(b, tail, head)
        m = tail.size
        adj: dict[int, list[tuple[int, int]]] = {}
        for a, (t, h) in enumerate(zip(tail.astype(int), head.astype(int), strict=True)):
            adj.setdefault(t, []).append((h, a))
        supply = np.zeros((k, n))
        load = np.zeros(m)
        ends, amounts = np.zeros((2, k)), np.zeros(k)
        for c in range(k):
            o, d = rng.choice(n, size=2, replace=False)
            amount = float(rng.integers(5, 30))
            supply[c, o], supply[c, d] = amount, -amount
            ends[:, c], amounts[c] = (o, d), amount
            for a in _bfs_path(adj, int(o), int(d)):
                load[a] += amount
        b.param("origin", ("K",), ends[0], "where each {K} starts", "{N}", integer=True,
                position_in="N")
        b.param("destination", ("K",), ends[1], "where each {K} must arrive", "{N}",
                integer=True, position_in="N")
        b.param("amount", ("K",), amounts, "size of each {K}", "{qty}", integer=True)
        b.param("supply", ("K", "N"), supply, "net supply of each {K} at each {N}", "{qty}",
                integer=True)
        b.derive("supply", "[[amount[k] if n == origin[k] else (-amount[k] if n == "
                           "destination[k] else 0) for n in range(len(N))] "
                           "for k in range(len(K))]")
        cost = rounded(rng.uniform(1, 10, m))
        # Capacities bind where the cheapest routes crowd: an arc on them carries at most
        # about 3/4 of what they would send (never less than the breadth-first routing
        # needs, so the plan stays feasible); other arcs get slack as before. With slack
        # everywhere the limits were decoration (postcheck slack_capacity: 1 in 3 rejected).
        cheap = np.zeros(m)
        for c in range(k):
            for a in _cheapest_path(tail, head, cost, n, int(ends[0, c]), int(ends[1, c])):
                cheap[a] += amounts[c]
        on = cheap > 0
        capacity = np.where(on, np.maximum(load, np.floor(0.75 * cheap)) +
                            rng.integers(0, 2, m), load + rounded(rng.uniform(3, 20, m), 0))
        b.param("capacity", ("A",), capacity, "capacity of each {A}", "{qty}")
        b.param("cost", ("A",), cost, "cost per unit on each {A}", "{money} per {qty}")
        b.var("x", (("k", "K"), ("e", "A")), "flow of {K} k on {A} e", unit="{qty}",
              role="quantity")
        b.con("balance", "Each {K} leaves its origin, reaches its destination and is "
              "conserved elsewhere.", (("k", "K"), ("n", "N")), _out_minus_in("x", "k"), "=",
              P("supply", "k", "n"), role="balance")
        b.con("shared_capacity", "All {K}s together respect each {A}'s capacity.", (("e", "A"),),
              total("k", "K", V("x", "k", "e")), "<=", P("capacity", "e"), role="capacity")
        b.objective("min", total("k", "K", total("e", "A", P("cost", "e") * V("x", "k", "e"))),
                    "total routing cost in {money}")


def _cheapest_path(tail: np.ndarray, head: np.ndarray, cost: np.ndarray, n: int, o: int,
                   d: int) -> list[int]:
    """The arcs of a cheapest path from ``o`` to ``d`` (arcs are distinct node pairs)."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    t, h = tail.astype(int), head.astype(int)
    graph = csr_matrix((cost, (t, h)), shape=(n, n))
    _, pred = dijkstra(graph, indices=o, return_predecessors=True)
    arc = {(int(i), int(j)): a for a, (i, j) in enumerate(zip(t, h, strict=True))}
    path, node = [], d
    while node != o:
        prev = int(pred[node])
        path.append(arc[prev, node])
        node = prev
    return path


def _bfs_path(adj: dict[int, list[tuple[int, int]]], o: int, d: int) -> list[int]:
    prev: dict[int, tuple[int, int]] = {o: (-1, -1)}
    frontier = [o]
    while frontier and d not in prev:
        nxt = []
        for u in frontier:
            for v, a in adj.get(u, []):
                if v not in prev:
                    prev[v] = (u, a)
                    nxt.append(v)
        frontier = nxt
    path, node = [], d
    while node != o:
        node, a = prev[node]
        path.append(a)
    return path
