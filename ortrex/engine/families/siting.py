"""Siting: p-median (with site capacities), p-centre, maximal covering, fixed-charge network
design."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.ir.expr import Cond, P, V, total
from ortrex.ir.semantic import SemanticModel


def _road_distances(rng: np.random.Generator, n_sites: int, n_points: int, side: float,
                    scale: float = 1.0) -> np.ndarray:
    """Site-to-point distances (sites x points) over a square region of ``side``: straight
    lines times a detour factor per pair (roads wind), times ``scale`` (minutes per km),
    rounded to a tenth and never under half a unit."""
    sites, points = rng.uniform(0, side, (n_sites, 2)), rng.uniform(0, side, (n_points, 2))
    straight = np.linalg.norm(sites[:, None, :] - points[None, :, :], axis=2)
    return np.maximum(rounded(straight * rng.uniform(1.15, 1.45, straight.shape) * scale, 1),
                      0.5)


def _open_count(rng: np.random.Generator, n_sites: int) -> int:
    """How many sites to open: at least two, fewer than all, at most about half."""
    return int(rng.integers(2, min(n_sites - 1, max(3, n_sites // 2)) + 1))


def packs_first_fit(sizes: np.ndarray, capacities: np.ndarray) -> bool:
    """Whether first-fit decreasing packs ``sizes`` into bins of ``capacities``."""
    loads = np.zeros(capacities.size)
    for s in sorted(sizes, reverse=True):
        room = np.flatnonzero(loads + s <= capacities + 1e-9)
        if not room.size:
            return False
        loads[room[0]] += s
    return True


def _nearest_everywhere(sm: SemanticModel, values: Mapping[str, np.ndarray],
                        dist: str = "dist") -> str | None:
    """Every customer is served by its nearest candidate site: the count of sites to open
    never bound, and the answer reads straight off the distances."""
    d = np.asarray(sm.param_map[dist].values, dtype=float)
    y = np.asarray(values["y"], dtype=float).reshape(d.shape)
    chosen = np.argmax(y, axis=0)
    reach = d[chosen, np.arange(d.shape[1])]
    if np.all(reach <= d.min(axis=0) + 1e-9):
        return "every customer is served by its nearest candidate site"
    return None


P_MEDIAN_VOCABS = (
    Vocabulary("logistics", "Regional depots",
               "A wholesaler opens exactly the agreed number of {F}s and supplies every {C} "
               "from one of them.",
               {"F": ("depot site", "town"), "C": ("store", "town")},
               {"org": "grocery wholesaler", "qty": "pallets per week", "length": "km",
                "load": "pallet-km", "serve": "supply", "served": "supplied",
                "facility": "depot"}),
    Vocabulary("healthcare", "Clinic network",
               "A health board opens exactly the agreed number of {F}s and sends every {C} "
               "to one of them.",
               {"F": ("clinic site", "town"), "C": ("district", "town")},
               {"org": "regional health board", "qty": "patient visits per week",
                "length": "km", "load": "visit-km", "serve": "care for", "served": "served",
                "facility": "clinic"}),
    Vocabulary("public_services", "Branch libraries",
               "A city council opens exactly the agreed number of {F}s and serves every {C} "
               "from one of them.",
               {"F": ("library site", "town"), "C": ("neighbourhood", "town")},
               {"org": "city council", "qty": "loans per week", "length": "km",
                "load": "loan-km", "serve": "serve", "served": "served",
                "facility": "library"}),
    Vocabulary("education", "Secondary schools",
               "A school district opens exactly the agreed number of {F}s and sends every "
               "{C}'s pupils to one of them.",
               {"F": ("school site", "town"), "C": ("village", "town")},
               {"org": "school district", "qty": "pupils", "length": "km",
                "load": "pupil-km", "serve": "serve", "served": "served",
                "facility": "school"}),
)


@register
class PMedian(Family):
    """Capacitated p-median: open exactly p sites of limited capacity, each customer served
    whole by one open site, least demand-weighted distance.

    The capacities are what make it a problem: without them the strong relaxation (each
    assignment held below its site) was integral in 95-100% of draws at every size
    (measured, 60 draws a band, plain and detoured distances, clustered customers too); with
    every site able to take 1.0-1.1 of an even share of the demand it is fractional in about
    90%."""

    name = "p_median"
    classes = ("location/p_median",)
    problem_class = "BIP"
    summary = "Open exactly the agreed number of {F}s and serve every {C} from one of them, " \
              "least total demand-weighted distance."
    sizes = {"small": {"F": (4, 5), "C": (7, 9)}, "medium": {"F": (5, 7), "C": (10, 15)},
             "large": {"F": (8, 10), "C": (18, 24)}}
    vocabularies = P_MEDIAN_VOCABS

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every customer is served by its nearest site."""
        return _nearest_everywhere(sm, values)

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nF, nC = b.dims["F"], b.dims["C"]
        b.set("F")
        b.set("C")
        dist = _road_distances(rng, nF, nC, 40.0)
        demand = rounded(rng.uniform(5, 60, nC), 0)
        p = _open_count(rng, nF)
        # Every site can take only a little more than an even share of the demand: tight
        # enough that the relaxation splits customers, loose enough (first-fit decreasing
        # checks it) that p sites can serve everyone whole.
        cap = float(np.ceil(demand.sum() / p * rng.uniform(1.0, 1.1) / 5) * 5)
        while not packs_first_fit(demand, np.full(p, cap)):
            cap += 5.0
        b.param("demand", ("C",), demand, "demand of each {C}", "{qty}", integer=True)
        b.param("dist", ("F", "C"), dist, "distance from each {F} to each {C}", "{length}")
        b.param("capacity", (), cap, "most demand an opened {F} can serve", "{qty}",
                integer=True)
        b.param("n_open", (), float(p), "number of {F}s to open", "sites", integer=True)
        b.var("x", (("f", "F"),), "1 if {F} f is opened", vtype="B", role="selection")
        b.var("y", (("f", "F"), ("c", "C")), "1 if {C} c is served by {F} f", vtype="B",
              role="assignment")
        b.con("served", "Every {C} is served by exactly one {F}.", (("c", "C"),),
              total("f", "F", V("y", "f", "c")), "=", 1.0, role="assignment")
        b.con("open_only", "Only an opened {F} serves.", (("f", "F"), ("c", "C")),
              V("y", "f", "c") - V("x", "f"), "<=", 0.0, role="linking")
        b.con("capacity_limit", "An opened {F} serves no more than its capacity; a closed "
              "one serves nothing.", (("f", "F"),),
              total("c", "C", P("demand", "c") * V("y", "f", "c")) -
              P("capacity") * V("x", "f"), "<=", 0.0, role="linking")
        b.con("open_count", "Exactly the agreed number of {F}s is opened.", (),
              total("f", "F", V("x", "f")), "=", P("n_open"), role="budget")
        b.objective("min", total("f", "F", total("c", "C", P("demand", "c") *
                                                 P("dist", "f", "c") * V("y", "f", "c"))),
                    "total travel weighted by demand in {load}")


P_CENTER_VOCABS = (
    Vocabulary("healthcare", "Ambulance stations",
               "An ambulance service bases its crews at exactly the agreed number of {F}s so "
               "that the worst response time to any {C} is as short as possible.",
               {"F": ("station site", "town"), "C": ("village", "town")},
               {"org": "ambulance service", "length": "minutes", "measure": "drive time",
                "serve": "answer calls from", "facility": "station",
                "facilities": "stations"}),
    Vocabulary("public_services", "Fire stations",
               "A fire brigade opens exactly the agreed number of {F}s so that no {C} is "
               "far from its station.",
               {"F": ("fire station site", "town"), "C": ("district", "town")},
               {"org": "fire and rescue service", "length": "minutes",
                "measure": "drive time", "serve": "cover", "facility": "fire station",
                "facilities": "fire stations"}),
    Vocabulary("energy", "Fast chargers",
               "A charging network installs exactly the agreed number of {F}s so that no "
               "{C} is far from its charger.",
               {"F": ("charging hub site", "town"), "C": ("town", "town")},
               {"org": "charging network", "length": "km", "measure": "distance",
                "serve": "serve", "facility": "charging hub",
                "facilities": "charging hubs"}),
    Vocabulary("retail", "Repair centres",
               "An appliance retailer opens exactly the agreed number of {F}s so that no "
               "{C} is far from its repair centre.",
               {"F": ("repair centre site", "town"), "C": ("service area", "town")},
               {"org": "appliance retailer", "length": "km", "measure": "distance",
                "serve": "send technicians to", "facility": "repair centre",
                "facilities": "repair centres"}),
)


@register
class PCenter(Family):
    """p-centre: open exactly p sites and serve every customer from one, so that the longest
    distance from a customer to its site is as short as possible (a min-max bound)."""

    name = "p_center"
    classes = ("location/p_center", "logic/min_max")
    problem_class = "MILP"
    summary = "Open exactly the agreed number of {F}s and serve every {C} from one of them, " \
              "so that the farthest {C} is as close as possible to its {F}."
    sizes = {"small": {"F": (4, 5), "C": (6, 8)}, "medium": {"F": (5, 8), "C": (10, 16)},
             "large": {"F": (8, 10), "C": (18, 24)}}
    vocabularies = P_CENTER_VOCABS

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """The worst case is the customer farthest from every site: the count to open never
        bounds it."""
        d = np.asarray(sm.param_map["dist"].values, dtype=float)
        worst = float(np.max(values["w"])) if np.size(values["w"]) else 0.0
        floor = float(d.min(axis=0).max())
        if worst <= floor + 1e-6:
            return "the worst case is the customer farthest from every candidate site"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nF, nC = b.dims["F"], b.dims["C"]
        b.set("F")
        b.set("C")
        # Customers lie around the candidate sites (towns grow where the roads are), so
        # each has a site close by: with customers anywhere, the one farthest from every
        # site set the worst case in 2 draws of 3 whatever was opened (measured).
        sites = rng.uniform(0, 40.0, (nF, 2))
        points = np.clip(sites[rng.integers(0, nF, nC)] + rng.normal(0, 3.0, (nC, 2)), 0, 40)
        straight = np.linalg.norm(sites[:, None, :] - points[None, :, :], axis=2)
        # Drive times at about 1.4 minutes a km on country roads.
        scale = 1.4 if b.vocab.words["length"] == "minutes" else 1.0
        dist = np.maximum(rounded(straight * rng.uniform(1.15, 1.45, straight.shape) * scale,
                                  1), 0.5)
        p = int(rng.integers(2, max(2, nF // 2) + 1))
        b.param("dist", ("F", "C"), dist, "{measure} from each {F} to each {C}", "{length}")
        b.param("n_open", (), float(p), "number of {F}s to open", "sites", integer=True)
        b.var("x", (("f", "F"),), "1 if {F} f is opened", vtype="B", role="selection")
        b.var("y", (("f", "F"), ("c", "C")), "1 if {C} c is served by {F} f", vtype="B",
              role="assignment")
        b.var("w", (), "longest {measure} from a {C} to its {F}", unit="{length}",
              role="auxiliary")
        b.con("served", "Every {C} is served by exactly one {F}.", (("c", "C"),),
              total("f", "F", V("y", "f", "c")), "=", 1.0, role="assignment")
        b.con("open_only", "Only an opened {F} serves.", (("f", "F"), ("c", "C")),
              V("y", "f", "c") - V("x", "f"), "<=", 0.0, role="linking")
        b.con("open_count", "Exactly the agreed number of {F}s is opened.", (),
              total("f", "F", V("x", "f")), "=", P("n_open"), role="budget")
        b.con("worst_case", "No {C} is farther from its {F} than the longest {measure}.",
              (("c", "C"),),
              total("f", "F", P("dist", "f", "c") * V("y", "f", "c")) - V("w"), "<=", 0.0,
              role="definition")
        b.objective("min", V("w"), "{measure} to the farthest {C} in {length}")


COVER_VOCABS = (
    Vocabulary("healthcare", "Ambulance posts",
               "An ambulance service chooses {F}s within its budget so that as many calls "
               "as possible come from a {C} reached in time.",
               {"F": ("ambulance post", "town"), "C": ("village", "town")},
               {"org": "ambulance service", "people": "emergency calls",
                "tally": "calls per year", "money": "kEUR",
                "reach": "within eight minutes' drive", "cover": "reach", "facility": "post",
                "facilities": "posts"}),
    Vocabulary("telecom", "Rural masts",
               "A mobile operator builds {F}s within its budget so that as many subscribers "
               "as possible live in a {C} with signal.",
               {"F": ("mast site", "town"), "C": ("hamlet", "town")},
               {"org": "mobile operator", "people": "subscribers", "tally": "subscribers",
                "money": "kUSD", "reach": "within signal range", "cover": "cover",
                "facility": "mast", "facilities": "masts"}),
    Vocabulary("retail", "Convenience stores",
               "A retailer opens {F}s within its budget so that as many households as "
               "possible live in a {C} with a store close by.",
               {"F": ("store site", "town"), "C": ("neighbourhood", "town")},
               {"org": "convenience-store chain", "people": "households",
                "tally": "households", "money": "kEUR", "reach": "within a ten-minute walk",
                "cover": "serve", "facility": "store", "facilities": "stores"}),
    Vocabulary("energy", "Public chargers",
               "A city installs {F}s within its budget so that as many electric-car owners "
               "as possible live in a {C} with a charger close by.",
               {"F": ("charger site", "town"), "C": ("block", "town")},
               {"org": "city energy office", "people": "electric-car owners",
                "tally": "car owners", "money": "kUSD", "reach": "within a five-minute walk",
                "cover": "serve", "facility": "charger", "facilities": "chargers"}),
)


@register
class MaxCovering(Family):
    """Maximal covering location: sites within a money budget, the most demand covered
    within a service distance (a point counts only if a chosen site reaches it)."""

    name = "max_covering"
    classes = ("location/covering",)
    problem_class = "BIP"
    summary = "Choose {F}s within the budget so that the most demand lives in a {C} some " \
              "chosen {F} reaches."
    sizes = {"small": {"F": (5, 7), "C": (8, 12)}, "medium": {"F": (8, 14), "C": (20, 40)},
             "large": {"F": (35, 40), "C": (115, 140)}}
    vocabularies = COVER_VOCABS

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every point is covered, or every site is chosen."""
        if all_at(values["z"]):
            return "every demand point is covered: the budget does not bind"
        if all_at(values["x"]):
            return "every candidate site is chosen"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nF, nC = b.dims["F"], b.dims["C"]
        b.set("F")
        b.set("C")
        dist = _road_distances(rng, nF, nC, 40.0)
        # A service distance that lets a site reach a handful of points (about 2 to 4 of
        # them at every size): coverage overlaps, and no site reaches most of the map (with
        # 3 to 6, one small draw in eight could cover everyone within the budget).
        share = float(np.clip(rng.uniform(2.0, 4.5) / nC, 0.03, 0.35))
        radius = float(np.quantile(dist, share))
        covers = (dist <= radius).astype(float).T  # points x sites
        for c in np.flatnonzero(covers.sum(axis=1) == 0):
            covers[c, int(np.argmin(dist[:, c]))] = 1.0  # every point has some site in reach
        for f in np.flatnonzero(covers.sum(axis=0) == 0):
            covers[int(np.argmin(dist[f])), f] = 1.0  # every site reaches someone
        scale = {"households": 40.0, "subscribers": 60.0}.get(b.vocab.words["tally"], 10.0)
        demand = rounded(rng.uniform(5, 60, nC) * scale, 0)
        # Sites cost about in proportion to what they could reach plus a base: no site is
        # the obvious bargain.
        reach = covers.T @ demand
        cost = rounded((reach / reach.mean() * rng.uniform(0.4, 0.8, nF) +
                        rng.uniform(0.4, 0.8, nF)) * 100, 0)
        budget = float(np.round(cost.sum() * rng.uniform(0.25, 0.4) / 10) * 10)
        budget = max(budget, float(np.ceil(cost.max() * 1.2 / 10) * 10))
        b.param("covers", ("C", "F"), covers, "1 if a {F} reaches a {C} {reach}", "0/1",
                integer=True)
        b.param("demand", ("C",), demand, "{people} in each {C}", "{tally}", integer=True)
        b.param("cost", ("F",), cost, "cost of each {F}", "{money}")
        b.param("budget", (), budget, "budget for {F}s", "{money}")
        b.var("x", (("f", "F"),), "1 if {F} f is chosen", vtype="B", role="selection")
        b.var("z", (("c", "C"),), "1 if {C} c counts as covered", vtype="B",
              role="indicator")
        b.con("covered_only", "A {C} counts as covered only if a chosen {F} reaches it.",
              (("c", "C"),),
              total("f", "F", P("covers", "c", "f") * V("x", "f")) - V("z", "c"), ">=", 0.0,
              role="covering")
        b.con("within_budget", "The chosen {F}s cost no more than the budget.", (),
              total("f", "F", P("cost", "f") * V("x", "f")), "<=", P("budget"),
              role="budget")
        b.objective("max", total("c", "C", P("demand", "c") * V("z", "c")),
                    "number of {people} covered")


DESIGN_VOCABS = (
    Vocabulary("logistics", "Freight lanes",
               "A freight operator decides which one-way {A}s to open between its {N}s and "
               "how much to send on each.",
               {"N": ("terminal", "town"), "A": ("lane", "code:Lane")},
               {"org": "freight operator", "goods": "containers", "qty": "containers per week",
                "money": "USD", "build": "open", "built": "opened", "move": "ship",
                "unit": "container", "charge": "set-up"}),
    Vocabulary("energy", "Gas gathering",
               "A gas company decides which {A}s to lay between its {N}s and how much gas "
               "to send through each.",
               {"N": ("station", "town"), "A": ("pipeline", "code:Pipe")},
               {"org": "gas gathering company", "goods": "gas", "qty": "MMcf/day",
                "money": "kUSD", "build": "lay", "built": "laid", "move": "send",
                "unit": "MMcf/day", "charge": "construction"}),
    Vocabulary("agriculture", "Irrigation channels",
               "An irrigation board decides which {A}s to dig between its {N}s and how "
               "much water to let through each.",
               {"N": ("sluice", "town"), "A": ("channel", "code:Ch")},
               {"org": "irrigation board", "goods": "water", "qty": "megalitres per day",
                "money": "kEUR", "build": "dig", "built": "dug", "move": "carry",
                "unit": "megalitre", "charge": "construction"}),
    Vocabulary("telecom", "Backhaul links",
               "A network operator decides which one-way {A}s to lease between its {N}s and "
               "how much traffic to route on each.",
               {"N": ("exchange", "town"), "A": ("link", "code:Link")},
               {"org": "network operator", "goods": "traffic", "qty": "Gbit/s",
                "money": "kUSD", "build": "lease", "built": "leased", "move": "route",
                "unit": "Gbit/s", "charge": "leasing"}),
)


def _design_network(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray,
                                                               np.ndarray]:
    """Arcs (tail, head) of a plane network over ``n`` sites and their lengths: a spanning
    tree plus each node's two nearest neighbours, every link in both directions."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    xy = rng.uniform(0, 100, (n, 2))
    d = np.linalg.norm(xy[:, None] - xy[None, :], axis=2)
    edges = {tuple(sorted((int(i), int(j))))
             for i, j in zip(*minimum_spanning_tree(d).nonzero(), strict=True)}
    for i in range(n):
        for j in np.argsort(d[i])[1:3]:
            edges.add(tuple(sorted((i, int(j)))))
    arcs = sorted({(i, j) for i, j in edges} | {(j, i) for i, j in edges})
    tail = np.array([a[0] for a in arcs], dtype=float)
    head = np.array([a[1] for a in arcs], dtype=float)
    length = d[tail.astype(int), head.astype(int)] * rng.uniform(1.05, 1.3, tail.size)
    return tail, head, length


def _shortest_path(tail: np.ndarray, head: np.ndarray, length: np.ndarray, n: int, o: int,
                   d: int) -> list[int]:
    """The arcs of a shortest path from ``o`` to ``d``."""
    from scipy.sparse import csr_matrix
    from scipy.sparse.csgraph import dijkstra

    t, h = tail.astype(int), head.astype(int)
    _, pred = dijkstra(csr_matrix((length, (t, h)), shape=(n, n)), indices=o,
                       return_predecessors=True)
    arc = {(int(i), int(j)): a for a, (i, j) in enumerate(zip(t, h, strict=True))}
    path, node = [], d
    while node != o:
        prev = int(pred[node])
        path.append(arc[prev, node])
        node = prev
    return path


@register
class NetworkDesign(Family):
    """Single-commodity fixed-charge network design: build arcs (a fixed charge each) and
    send flow within the capacities of the arcs built, meeting every node's net supply."""

    name = "network_design"
    classes = ("network/design", "cost/fixed_charge")
    problem_class = "MILP"
    summary = "Choose which {A}s to {build} and how much to {move} on each, so that every " \
              "{N}'s supply or demand is balanced at the least {charge} plus flow cost."
    sizes = {"small": {"N": (5, 6)}, "medium": {"N": (8, 12)}, "large": {"N": (30, 36)}}
    vocabularies = DESIGN_VOCABS

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every arc offered is built."""
        return "every arc offered is built" if all_at(values["y"]) else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["N"]
        b.set("N")
        tail, head, length = _design_network(rng, n)
        m = tail.size
        b.set("A", m)
        order = rng.permutation(n)
        n_src = int(rng.integers(1, max(2, n // 5) + 1))
        n_snk = int(rng.integers(2, max(3, n // 3) + 1))
        sources, sinks = order[:n_src], order[n_src:n_src + n_snk]
        need = rounded(rng.uniform(10, 40, n_snk), 0)
        share = rng.dirichlet(np.ones(n_src) * 2)
        give = np.floor(share * need.sum())
        give[0] += need.sum() - give.sum()
        supply = np.zeros(n)
        supply[sources], supply[sinks] = give, -need
        # One feasible plan: each sink drawn from the sources in turn along shortest paths;
        # an arc's capacity is one of a few standard sizes, raised where that plan needs more.
        load = np.zeros(m)
        left = give.copy()
        for k, s in enumerate(sinks):
            rest = need[k]
            for q in range(n_src):
                amount = min(rest, left[q])
                if amount <= 0:
                    continue
                for a in _shortest_path(tail, head, length, n, int(sources[q]), int(s)):
                    load[a] += amount
                left[q] -= amount
                rest -= amount
        sizes = np.array([20.0, 30.0, 40.0, 60.0])
        capacity = np.maximum(rng.choice(sizes, m), np.ceil(load / 5) * 5)
        b.param("tail", ("A",), tail, "position of the {N} each {A} leaves", "{N} index",
                integer=True)
        b.param("head", ("A",), head, "position of the {N} each {A} enters", "{N} index",
                integer=True)
        b.extra["arcs"] = [[int(t), int(h)] for t, h in zip(tail, head, strict=True)]
        b.param("supply", ("N",), supply, "net supply of each {N} (negative: demand)", "{qty}",
                integer=True)
        b.param("capacity", ("A",), capacity, "capacity of each {A} once built", "{qty}",
                integer=True)
        b.param("fixed", ("A",), rounded(length * rng.uniform(8, 14, m), -1) + 10,
                "{charge} cost of each {A}", "{money}")
        b.param("cost", ("A",), rounded(length * rng.uniform(0.04, 0.12, m) + 0.1, 2),
                "cost per unit sent on each {A}", "{money} per {unit}")
        b.var("y", (("e", "A"),), "1 if {A} e is {built}", vtype="B", role="selection")
        b.var("x", (("e", "A"),), "flow on {A} e", unit="{qty}", role="quantity")
        out = total("e", "A", V("x", "e"), Cond("link", "e", "n", param="tail"))
        inn = total("e", "A", V("x", "e"), Cond("link", "e", "n", param="head"))
        b.con("balance", "Flow out of a {N} minus flow in equals its net supply.",
              (("n", "N"),), out - inn, "=", P("supply", "n"), role="balance")
        b.con("built_only", "Only {A}s that are {built} carry flow, each up to its capacity.",
              (("e", "A"),), V("x", "e") - P("capacity", "e") * V("y", "e"), "<=", 0.0,
              role="linking")
        b.objective("min", total("e", "A", P("fixed", "e") * V("y", "e") +
                                 P("cost", "e") * V("x", "e")),
                    "{charge} and flow cost in {money}")
