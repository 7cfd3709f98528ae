"""Hubs and connecting networks: a degree-limited spanning tree (single-commodity flow),
single-allocation hub location with fixed hub costs and capacities (Ernst-Krishnamoorthy
flows), and location-routing (open depots, routes that start and end at the same depot).

The spanning tree's candidate links are an edge set ``E`` with ``end_a``/``end_b`` (as the
pairing group's graphs); its flow from the first site is a modeller's device that proves
every site connected. Hub location keeps its candidate hub sites apart from the nodes that
send and receive, so every flow runs node, hub, (hub,) node. Location-routing indexes its
arcs by depot: a route entering a stop in one depot's layer leaves it in the same layer, so
it comes back to the depot it left.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.sparse.csgraph import shortest_path

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.engine.families.siting import packs_first_fit
from ortrex.engine.families.vehicles import euclid, fleet_first_fit, vehicle_capacity
from ortrex.ir.expr import Cond, Expr, P, V, total
from ortrex.ir.semantic import SemanticModel


# ------------------------------------------------------------------ spanning tree
def _links(b: Builder, pairs: list[tuple[int, int]]) -> None:
    """The link set ``E`` and the positions of each link's two end sites."""
    b.set("E", len(pairs))
    b.param("end_a", ("E",), np.array([p[0] for p in pairs], dtype=float),
            "position of the first {N} of each {E}", "{N} index", integer=True)
    b.param("end_b", ("E",), np.array([p[1] for p in pairs], dtype=float),
            "position of the second {N} of each {E}", "{N} index", integer=True)
    b.extra["edges"] = [[int(i), int(j)] for i, j in pairs]


def kruskal(n: int, pairs: list[tuple[int, int]], cost: np.ndarray,
            limit: np.ndarray | None = None) -> list[int]:
    """Edges (positions in ``pairs``) of Kruskal's tree, cheapest first; with ``limit``, an
    edge is passed over where it would give a node more edges than its limit (a greedy
    degree-limited tree, which may leave the graph in pieces)."""
    root = list(range(n))

    def find(v: int) -> int:
        while root[v] != v:
            root[v] = root[root[v]]
            v = root[v]
        return v

    degree = np.zeros(n)
    chosen: list[int] = []
    for e in np.argsort(cost, kind="stable"):
        i, j = pairs[int(e)]
        if limit is not None and (degree[i] >= limit[i] or degree[j] >= limit[j]):
            continue
        ri, rj = find(i), find(j)
        if ri != rj:
            root[ri] = rj
            degree[i] += 1
            degree[j] += 1
            chosen.append(int(e))
    return chosen


def tree_network(rng: np.random.Generator, n: int, near: int
                 ) -> tuple[np.ndarray, list[tuple[int, int]], np.ndarray]:
    """Sites over a region (km) and candidate links between them: each site's ``near``
    nearest neighbours and the straight-line spanning tree; the links and their lengths
    (straight lines times a detour each)."""
    from scipy.sparse.csgraph import minimum_spanning_tree

    xy = rng.uniform(0, 60.0, (n, 2))
    d = euclid(xy, xy)
    # The straight-line tree keeps the offer connected (near neighbours alone may not).
    pairs = {(min(int(i), int(j)), max(int(i), int(j)))
             for i, j in zip(*minimum_spanning_tree(d).nonzero(), strict=True)}
    for i in range(n):
        for j in np.argsort(d[i])[1:near + 1]:
            pairs.add((min(i, int(j)), max(i, int(j))))
    out = sorted(pairs)
    length = np.array([d[i, j] for i, j in out]) * rng.uniform(1.05, 1.35, len(out))
    return xy, out, length


def port_limits(rng: np.random.Generator, n: int, pairs: list[tuple[int, int]],
                cost: np.ndarray) -> np.ndarray:
    """Most links each site can take: the cheapest tree breaks the limit of a few of its
    busiest sites (one link fewer there), every other site has room for its links in that
    tree and often one or two more; raised where a greedy degree-limited tree finds no way
    to connect everyone (feasible)."""
    free = kruskal(n, pairs, cost)
    degree = np.zeros(n)
    for e in free:
        degree[list(pairs[e])] += 1
    limit = np.maximum(degree, rng.choice([2.0, 3.0, 3.0, 4.0], n))
    busy = [int(v) for v in np.argsort(-(degree + rng.uniform(0, 0.5, n)))[:1 + n // 5]
            if degree[v] >= 2]
    limit[busy] = degree[busy] - 1
    while len(kruskal(n, pairs, cost, limit)) < n - 1:
        # A site fed by few links may be the only way through (a busy one too, then).
        spare = np.flatnonzero((limit < 4) & ~np.isin(np.arange(n), busy))
        if not spare.size:
            spare = np.flatnonzero(limit < n - 1)
        limit[int(rng.choice(spare))] += 1.0
    return limit


@register
class SpanningTree(Family):
    """Degree-constrained minimum spanning tree: build links so that every site is
    connected, n - 1 of them, no site over its port limit (single-commodity flow)."""

    name = "spanning_tree"
    classes = ("network/spanning_tree",)
    problem_class = "MILP"
    summary = "Choose which {E}s to {build} so that every {N} is connected, at least cost, " \
              "no {N} taking more {E}s than its {port}s allow."
    # ``near``: candidate links per site (its nearest neighbours). Small draws often have an
    # integral relaxation (directed, the formulation is tight on a few sites): 7-8 sites
    # are fractional in about 45% of draws, 5-6 sites on every link in 20%.
    sizes = {"small": {"N": (7, 8), "near": (3, 3)}, "medium": {"N": (9, 12), "near": (4, 4)},
             "large": {"N": (26, 32), "near": (4, 5)}}
    vocabularies = (
        Vocabulary("telecom", "Fibre backbone",
                   "A fibre operator links its {N}s with {E}s; every {N} has few free "
                   "{port}s.",
                   {"N": ("exchange", "town"), "E": ("fibre route", "code:Fibre")},
                   {"org": "fibre operator", "build": "lay", "built": "laid",
                    "port": "free port", "money": "kEUR", "length": "km",
                    "connect": "reach each other", "why": "each fibre route ends on a port "
                    "of the exchange's switch"}),
        Vocabulary("energy", "Grid connection",
                   "A grid operator connects its {N}s by {E}s; every {N} has only so many "
                   "{port}s.",
                   {"N": ("substation", "town"), "E": ("power line", "code:Line")},
                   {"org": "grid operator", "build": "build", "built": "built",
                    "port": "line bay", "money": "kUSD", "length": "km",
                    "connect": "be fed from each other", "why": "every line needs a bay "
                    "with its own breaker at each end"}),
        Vocabulary("utilities", "Water mains",
                   "A water company joins its {N}s with {E}s; every {N}'s manifold takes "
                   "only a few {port}s.",
                   {"N": ("pumping station", "town"), "E": ("water main", "code:Main")},
                   {"org": "water company", "build": "lay", "built": "laid",
                    "port": "pipe connection", "money": "kEUR", "length": "km",
                    "connect": "be supplied from each other", "why": "the manifold of a "
                    "station has a fixed number of outlets"}),
        Vocabulary("agriculture", "Irrigation pipes",
                   "An irrigation cooperative joins its {N}s with buried {E}s; every {N}'s "
                   "valve box has few {port}s.",
                   {"N": ("field", "town"), "E": ("pipe", "code:Pipe")},
                   {"org": "irrigation cooperative", "build": "bury", "built": "buried",
                    "port": "valve outlet", "money": "kEUR", "length": "km",
                    "connect": "share water", "why": "each pipe ends on an outlet of "
                    "the field's valve box"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """The cheapest tree ignoring the limits keeps them: they decide nothing."""
        a, b_ = sm.param_map["end_a"].values, sm.param_map["end_b"].values
        cost = np.asarray(sm.param_map["cost"].values, dtype=float)
        pairs = [(int(i), int(j)) for i, j in zip(a, b_, strict=True)]
        free = kruskal(len(sm.set_map["N"]), pairs, cost)
        y = np.round(np.asarray(values["y"], dtype=float))
        if float(cost @ y) <= float(cost[free].sum()) + 1e-6:
            return "the cheapest tree keeps every port limit: the limits decide nothing"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["N"]
        b.set("N")
        _, pairs, length = tree_network(rng, n, b.dims["near"])
        # A link costs its length at a rate of its own (terrain, crossings) and a fixed sum
        # for its two ends.
        cost = rounded(length * rng.uniform(6.0, 11.0, len(pairs)) + rng.uniform(8, 20), 1)
        limit = port_limits(rng, n, pairs, cost)
        _links(b, pairs)
        b.param("cost", ("E",), cost, "cost to {build} each {E}", "{money}")
        b.param("ports", ("N",), limit, "most {E}s each {N} can take ({port}s)", "{E}s",
                integer=True)
        b.param("n_links", (), float(n - 1), "number of {E}s a tree of all {N}s has "
                "(one fewer than the {N}s)", "{E}s", integer=True)
        b.derive("n_links", "len(N) - 1")
        b.var("y", (("e", "E"),), "1 if {E} e is {built}", vtype="B", role="selection")
        # The tree hangs from the first site: every other site is fed by one link on its way
        # there (the link's direction), and one unit of a test flow leaves the first site for
        # every other, only along links in their direction, so every site is connected (a
        # modeller's devices; directed, the relaxation is far tighter than with flows on
        # undirected links: HiGHS took up to 40 s on 30 sites, now under one).
        b.var("xa", (("e", "E"),), "1 if {E} e feeds its second {N} from its first",
              vtype="B", role="auxiliary")
        b.var("xb", (("e", "E"),), "1 if {E} e feeds its first {N} from its second",
              vtype="B", role="auxiliary")
        b.var("fa", (("e", "E"),), "flow on {E} e from its first {N} to its second",
              unit="units", role="auxiliary")
        b.var("fb", (("e", "E"),), "flow on {E} e from its second {N} to its first",
              unit="units", role="auxiliary")
        at_a, at_b = Cond("link", "e", "n", param="end_a"), Cond("link", "e", "n", param="end_b")
        inflow = total("e", "E", V("fa", "e"), at_b) + total("e", "E", V("fb", "e"), at_a)
        outflow = total("e", "E", V("fa", "e"), at_a) + total("e", "E", V("fb", "e"), at_b)
        rest = (Cond("not_first", "n"),)
        b.con("reached", "Every {N} but the first keeps one unit of the flow sent out from "
              "the first {N}, so every {N} is connected to it.", (("n", "N"),),
              inflow - outflow, "=", 1.0, where=rest, role="balance")
        b.con("one_feed", "Every {N} but the first is fed by exactly one {E}.", (("n", "N"),),
              total("e", "E", V("xa", "e"), at_b) + total("e", "E", V("xb", "e"), at_a), "=",
              1.0, where=rest, role="definition")
        b.con("feed_built", "A {E} feeds one of its ends if and only if it is {built}.",
              (("e", "E"),), V("xa", "e") + V("xb", "e") - V("y", "e"), "=", 0.0,
              role="definition")
        b.con("flow_ab", "Flow runs from the first {N} of a {E} to its second only if the "
              "{E} feeds that way.", (("e", "E"),),
              V("fa", "e") - P("n_links") * V("xa", "e"), "<=", 0.0, role="linking")
        b.con("flow_ba", "Flow runs from the second {N} of a {E} to its first only if the "
              "{E} feeds that way.", (("e", "E"),),
              V("fb", "e") - P("n_links") * V("xb", "e"), "<=", 0.0, role="linking")
        b.con("tree_size", "Exactly one {E} fewer than there are {N}s is {built}.", (),
              total("e", "E", V("y", "e")), "=", P("n_links"), role="definition")
        ends = total("e", "E", V("y", "e"), at_a) + total("e", "E", V("y", "e"), at_b)
        b.con("port_limit", "No {N} has more {E}s than its {port}s.", (("n", "N"),), ends,
              "<=", P("ports", "n"), role="capacity")
        b.objective("min", total("e", "E", P("cost", "e") * V("y", "e")),
                    "cost of the {E}s in {money}")


# ------------------------------------------------------------------ hub location
def gravity_flows(rng: np.random.Generator, n: int, xy: np.ndarray, low: float,
                  high: float) -> np.ndarray:
    """Origin-destination flows between ``n`` places (whole numbers, none to itself):
    weights of each place's size times each other's, thinning with distance."""
    size = rng.lognormal(0.0, 0.5, n)
    d = euclid(xy, xy)
    pull = np.outer(size, size) / (1.0 + d / 40.0)
    np.fill_diagonal(pull, 0.0)
    flows = low + (high - low) * pull / pull.max() * rng.uniform(0.7, 1.3, (n, n))
    flows = np.round(flows)
    np.fill_diagonal(flows, 0.0)
    return flows


@register
class HubLocation(Family):
    """Capacitated single-allocation hub location with fixed hub costs: open hubs, give
    every node to one open hub, route every flow node-hub-hub-node with the hub-to-hub leg
    at a discount (Ernst-Krishnamoorthy flows of each origin between the hubs)."""

    name = "hub_location"
    classes = ("network/hub_location", "cost/fixed_charge")
    problem_class = "MILP"
    summary = "Open {H}s and give every {N} to one of them, so that all flows between " \
              "{N}s run through the {H}s at the least hub and transport cost."
    sizes = {"small": {"N": (5, 6), "H": (3, 3)}, "medium": {"N": (8, 10), "H": (4, 4)},
             "large": {"N": (12, 14), "H": (4, 5)}}
    vocabularies = (
        Vocabulary("logistics", "Parcel hubs",
                   "A parcel carrier sends every {N}'s parcels through the {H}s it opens; "
                   "trunk lorries between {H}s run at a discount.",
                   {"N": ("depot", "town"), "H": ("sorting hub site", "town")},
                   {"org": "parcel carrier", "goods": "parcels", "qty": "parcels per day",
                    "unit": "parcel", "money": "EUR", "term": "day", "hub": "sorting hub",
                    "hubs": "sorting hubs", "trunk": "trunk lorries", "feed": "vans"}),
        Vocabulary("transport", "Cargo hubs",
                   "A cargo airline flies every {N}'s freight through the {H}s it opens; "
                   "wide-body flights between {H}s cost less per tonne.",
                   {"N": ("city", "town"), "H": ("hub airport", "town")},
                   {"org": "cargo airline", "goods": "cargo", "qty": "tonnes per week",
                    "unit": "tonne", "money": "USD", "term": "week", "hub": "hub",
                    "hubs": "hubs", "trunk": "wide-body flights",
                    "feed": "feeder flights"}),
        Vocabulary("public_services", "Mail centres",
                   "A postal service sorts every {N}'s mail at the {H}s it opens; night "
                   "trains between {H}s cost less per bag.",
                   {"N": ("delivery office", "town"), "H": ("mail centre site", "town")},
                   {"org": "postal service", "goods": "mail", "qty": "bags per night",
                    "unit": "bag", "money": "EUR", "term": "night", "hub": "mail centre",
                    "hubs": "mail centres", "trunk": "night trains",
                    "feed": "collection vans"}),
        Vocabulary("telecom", "Core switches",
                   "A network operator carries every {N}'s traffic through the {H}s it "
                   "opens; the backbone between {H}s costs less per unit.",
                   {"N": ("access site", "town"), "H": ("core switch site", "town")},
                   {"org": "network operator", "goods": "traffic", "qty": "Gbit/s",
                    "unit": "Gbit/s", "money": "kUSD", "term": "year", "hub": "core switch",
                    "hubs": "core switches", "trunk": "backbone links",
                    "feed": "access links"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every hub site is opened, or one hub takes everyone (the discount idle)."""
        y = np.round(np.asarray(values["y"], dtype=float))
        if all_at(y):
            return "every candidate hub is opened"
        if y.sum() <= 1:
            return "a single hub serves every node: no flow runs between hubs"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nN, nH = b.dims["N"], b.dims["H"]
        b.set("N")
        b.set("H")
        side = 100.0
        xy = rng.uniform(0, side, (nN, 2))
        # Hub sites spread over the region, a little towards its middle.
        hub_xy = side * (0.5 + 0.7 * (rng.uniform(0, 1, (nH, 2)) - 0.5))
        flows = gravity_flows(rng, nN, xy, 2.0, 40.0)
        rate = rng.uniform(0.04, 0.07)  # per unit and km
        # Feeder legs wind a little (a detour each); trunk legs run straight, and after
        # rounding each is cut to the cheapest chain of legs (which rounding can make a
        # cent cheaper), so a flow never gains by passing through a third hub.
        cost = rounded(euclid(xy, hub_xy) * rng.uniform(1.05, 1.3, (nN, nH)) * rate + 0.2, 2)
        trunk = np.round(shortest_path(rounded(euclid(hub_xy, hub_xy) * rate, 2),
                                       directed=False), 2)
        discount = float(np.round(rng.uniform(0.55, 0.8), 2))
        out = flows.sum(axis=1)
        total_out = float(out.sum())
        # Hubs each take about 40-70% of what is sent (two at least are needed), and
        # together room for a plan that first-fit finds (feasible).
        cap = np.ceil(total_out * rng.uniform(0.4, 0.7, nH) / 10) * 10
        while not packs_first_fit(out, cap):
            cap = cap + 10.0
        # A hub's fixed cost is of the order of what it saves: about the transport of a
        # fifth to a third of all flows over a typical feeder leg.
        typical = float(np.median(cost)) * total_out
        fixed = rounded(typical * rng.uniform(0.15, 0.35, nH), -1)
        b.param("flow", ("N", "N"), flows, "{goods} from each {N} to each {N}", "{qty}",
                integer=True)
        b.param("cost", ("N", "H"), cost, "cost of moving one {unit} between each {N} and "
                "each {H}", "{money} per {unit}")
        b.param("trunk", ("H", "H"), trunk, "full cost of moving one {unit} between each "
                "two {H}s", "{money} per {unit}")
        b.param("discount", (), discount, "share of the full cost paid between {H}s", "")
        b.param("fixed", ("H",), fixed, "cost of opening each {H}", "{money} per {term}")
        b.param("capacity", ("H",), cap, "most {goods} each {H} handles from its {N}s",
                "{qty}", integer=True)
        b.var("y", (("h", "H"),), "1 if {H} h is opened", vtype="B", role="selection")
        b.var("z", (("i", "N"), ("h", "H")), "1 if {N} i is served by {H} h", vtype="B",
              role="assignment")
        b.var("w", (("i", "N"), ("h", "H"), ("l", "H")), "{goods} from {N} i carried from "
              "{H} h to {H} l", where=(Cond("ne", "h", "l"),), unit="{qty}", role="quantity")
        sent = total("j", "N", P("flow", "i", "j"))
        b.con("one_hub", "Every {N} is served by exactly one {H}.", (("i", "N"),),
              total("h", "H", V("z", "i", "h")), "=", 1.0, role="assignment")
        b.con("open_only", "Only an opened {H} serves {N}s.", (("i", "N"), ("h", "H")),
              V("z", "i", "h") - V("y", "h"), "<=", 0.0, role="linking")
        # What leaves node i reaches its hub; at every hub it is passed on to other hubs or
        # handed to the nodes that hub serves.
        b.con("hub_balance", "At each {H}, the {goods} of a {N} that arrive (from that {N} "
              "or from other {H}s) are sent on to other {H}s or to the {N}s it serves.",
              (("i", "N"), ("h", "H")),
              sent * V("z", "i", "h") +
              total("l", "H", V("w", "i", "l", "h"), Cond("ne", "l", "h")) -
              total("l", "H", V("w", "i", "h", "l"), Cond("ne", "h", "l")) -
              total("j", "N", P("flow", "i", "j") * V("z", "j", "h")), "=", 0.0,
              role="balance")
        b.con("hub_capacity", "An opened {H} handles no more than its capacity from the "
              "{N}s it serves; a closed one takes nothing.", (("h", "H"),),
              total("i", "N", total("j", "N", P("flow", "i", "j")) * V("z", "i", "h")) -
              P("capacity", "h") * V("y", "h"), "<=", 0.0, role="capacity")
        feeder = total("i", "N", total("h", "H", total(
            "j", "N", P("flow", "i", "j") + P("flow", "j", "i")) * P("cost", "i", "h") *
            V("z", "i", "h")))
        transfer = total("i", "N", total("h", "H", total(
            "l", "H", P("discount") * P("trunk", "h", "l") * V("w", "i", "h", "l"),
            Cond("ne", "h", "l"))))
        b.objective("min", total("h", "H", P("fixed", "h") * V("y", "h")) + feeder + transfer,
                    "hub and transport cost in {money} per {term}")


# ------------------------------------------------------------------ location-routing
# Demand per stop (low, high) and the area's width (km), per domain.
_LRP_SCALE = {"logistics": (5, 30, 60.0), "healthcare": (3, 15, 40.0),
              "retail": (6, 30, 30.0), "public_services": (4, 20, 40.0)}

_OFF = (Cond("ne", "i", "j"),)


def _served_in(layer: str, j: str) -> Expr:
    """Arcs into stop ``j`` in depot ``layer``'s routes: from another stop or the depot."""
    return total("i", "C", V("x", "i", j, layer), Cond("ne", "i", j)) + V("start", layer, j)


def route_loads(demand: np.ndarray, cap: float) -> np.ndarray:
    """Loads of the routes first-fit decreasing packs ``demand`` into (vehicles of ``cap``)."""
    loads: list[float] = []
    for q in sorted(demand, reverse=True):
        k = next((k for k, load in enumerate(loads) if load + q <= cap), None)
        if k is None:
            loads.append(float(q))
        else:
            loads[k] += float(q)
    return np.array(loads)


@register
class LocationRouting(Family):
    """Capacitated location-routing: open depots (fixed cost, capacity), route capacitated
    vehicles from them, each stop served once, every route back at its own depot (arcs in
    one layer per depot, lifted cumulative loads against sub-tours)."""

    name = "location_routing"
    classes = ("routing/location_routing", "location/facility")
    problem_class = "MILP"
    summary = "Open {D}s and route {vehicles} from them so that every {C} is served once, " \
              "at the least depot and driving cost."
    # Three depots and eight stops took HiGHS 7 s a verification (median), two and eight
    # about one: the large band has the two.
    sizes = {"small": {"D": (2, 2), "C": (4, 5)}, "medium": {"D": (3, 3), "C": (5, 6)},
             "large": {"D": (2, 2), "C": (8, 8)}}
    vocabularies = (
        Vocabulary("logistics", "Depots and rounds",
                   "A courier opens {D}s and sends its vans from them to every {C}.",
                   {"D": ("depot site", "town"), "C": ("customer", "surname")},
                   {"org": "courier", "vehicle": "van", "vehicles": "vans",
                    "goods": "parcels", "money": "EUR", "length": "km", "depot": "depot",
                    "serve": "deliver to", "need": "parcels to deliver"}),
        Vocabulary("healthcare", "Supply hubs",
                   "A health board opens {D}s and restocks every {C} by van from them.",
                   {"D": ("supply hub site", "town"), "C": ("clinic", "town")},
                   {"org": "health board", "vehicle": "van", "vehicles": "vans",
                    "goods": "boxes of supplies", "money": "EUR", "length": "km",
                    "depot": "supply hub", "serve": "restock",
                    "need": "boxes of supplies ordered"}),
        Vocabulary("retail", "Dark stores",
                   "A grocery app opens {D}s and delivers every {C}'s order from them by "
                   "cargo bike.",
                   {"D": ("dark store site", "town"), "C": ("household", "surname")},
                   {"org": "grocery app", "vehicle": "cargo bike",
                    "vehicles": "cargo bikes", "goods": "crates", "money": "EUR",
                    "length": "km", "depot": "dark store", "serve": "deliver to",
                    "need": "crates ordered"}),
        Vocabulary("public_services", "Gritting depots",
                   "A county opens {D}s and sends its gritters from them to treat every "
                   "{C}.",
                   {"D": ("salt depot site", "town"), "C": ("village", "town")},
                   {"org": "county council", "vehicle": "gritter", "vehicles": "gritters",
                    "goods": "tonnes of salt", "money": "GBP", "length": "km",
                    "depot": "salt depot", "serve": "grit the roads of",
                    "need": "tonnes of salt needed"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every depot offered is opened, or one route serves everyone."""
        if int(np.round(values["start"]).sum()) <= 1:
            return "a single route serves everyone: the vehicle capacity is no limit"
        if len(sm.set_map["D"]) > 2 and all_at(np.round(values["y"])):
            return "every candidate depot is opened"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nD, nC = b.dims["D"], b.dims["C"]
        lo, hi, span = _LRP_SCALE.get(b.vocab.domain, (5, 30, 50.0))
        b.set("D")
        b.set("C")
        xy = rng.uniform(0, span, (nC, 2))
        depot_xy = span * (0.5 + 0.8 * (rng.uniform(0, 1, (nD, 2)) - 0.5))
        # Distances between stops depend on the direction (one-way streets): the mirror
        # image of a route is another route, and the optimum is not a pair of twins.
        dist = rounded(euclid(xy, xy) * rng.uniform(1.0, 1.3, (nC, nC)), 1)
        depot_dist = np.maximum(rounded(euclid(depot_xy, xy) * 1.15, 1), 0.5)
        demand = rng.integers(lo, hi + 1, nC).astype(float)
        total_demand = float(demand.sum())
        # Several routes, each with room to spare (a capacity packed tight is a bin-packing
        # puzzle inside the routing, and slow; see vehicles.vehicle_capacity), and a fleet of the
        # fewest vehicles the load needs, all of which go out (as in cvrp: with "at most",
        # HiGHS took 10-25 s on 8 stops and 3 depots, with "exactly" under 3).
        cap = vehicle_capacity(demand, rng, lambda q: fleet_first_fit(demand, q))
        fleet = float(-(-total_demand // cap))
        routes = route_loads(demand, cap)
        # Depots each hold a little more than half of the demand (two of three are
        # needed) or all of it (two depots: which one to open), and all but the smallest
        # hold the routes of a plan with that fleet (feasible).
        share = (1.0, 1.25) if nD <= 2 else (0.55, 0.8)
        depot_cap = np.ceil(total_demand * rng.uniform(*share, nD) / 5) * 5
        while not packs_first_fit(routes, np.sort(depot_cap)[::-1][:max(1, nD - 1)]):
            depot_cap += 5.0
        rate = float(np.round(rng.uniform(0.8, 1.6), 2))  # per km
        # A depot costs about what one to two of its routes cost to drive.
        route_length = float(np.median(depot_dist)) * 2 + float(np.median(dist)) * 2
        fixed = rounded(rate * route_length * rng.uniform(1.0, 2.0, nD), -1)
        b.param("dist", ("C", "C"), dist, "distance between {C}s", "{length}")
        b.param("depot_dist", ("D", "C"), depot_dist, "distance between each {D} and each {C}",
                "{length}")
        b.param("demand", ("C",), demand, "{goods} for each {C}", "{goods}", integer=True)
        b.param("cap", (), cap, "capacity of one {vehicle}", "{goods}", integer=True)
        b.param("fleet", (), fleet, "number of {vehicles}", "{vehicles}", integer=True)
        b.param("depot_cap", ("D",), depot_cap, "most {goods} each {D} can send out",
                "{goods}", integer=True)
        b.param("fixed", ("D",), fixed, "cost of opening each {D}", "{money}")
        b.param("rate", (), rate, "driving cost per {length}", "{money} per {length}")
        b.var("y", (("d", "D"),), "1 if {D} d is opened", vtype="B", role="selection")
        b.var("x", (("i", "C"), ("j", "C"), ("d", "D")), "1 if a {vehicle} from {D} d drives "
              "from {C} i straight to {C} j", vtype="B", where=_OFF, role="routing")
        b.var("start", (("d", "D"), ("j", "C")), "1 if a {vehicle} drives from {D} d straight "
              "to {C} j", vtype="B", role="routing")
        b.var("back", (("i", "C"), ("d", "D")), "1 if a {vehicle} drives from {C} i straight "
              "back to {D} d", vtype="B", role="routing")
        b.var("u", (("i", "C"),), "{goods} of the route up to and including {C} i",
              ub=P("cap"), unit="{goods}", role="position")
        # Role "assignment", not "degree": the one_tour post-check reads degree rows as one
        # closed tour through every node, and routes here are several, closed at depots.
        b.con("served_once", "Every {C} is reached exactly once, by a {vehicle} of one {D}.",
              (("j", "C"),), total("d", "D", _served_in("d", "j")), "=", 1.0,
              role="assignment")
        b.con("same_depot", "A {vehicle} that reaches a {C} leaves it again on a route of the "
              "same {D}, towards another {C} or back to that {D}.", (("j", "C"), ("d", "D")),
              _served_in("d", "j") -
              total("k", "C", V("x", "j", "k", "d"), Cond("ne", "j", "k")) -
              V("back", "j", "d"), "=", 0.0, role="balance")
        b.con("open_only", "Only an opened {D} serves {C}s.", (("d", "D"), ("j", "C")),
              _served_in("d", "j") - V("y", "d"), "<=", 0.0, role="linking")
        b.con("fleet_used", "Every {vehicle} of the fleet leaves a {D} on one route.", (),
              total("d", "D", total("j", "C", V("start", "d", "j"))), "=", P("fleet"),
              role="capacity")
        # The vehicles out of a depot carry what it serves: implied for whole routes by the
        # loads below, and what the relaxation needs to see (without it HiGHS took up to
        # twice as long).
        b.con("fleet_room", "The {vehicles} leaving a {D} have room for everything it "
              "serves.", (("d", "D"),),
              total("j", "C", P("demand", "j") * _served_in("d", "j")) -
              P("cap") * total("j", "C", V("start", "d", "j")), "<=", 0.0, role="capacity")
        b.con("depot_capacity", "An opened {D} sends out no more than its capacity; a "
              "closed one sends nothing.", (("d", "D"),),
              total("j", "C", P("demand", "j") * _served_in("d", "j")) -
              P("depot_cap", "d") * V("y", "d"), "<=", 0.0, role="capacity")
        arc = total("d", "D", V("x", "i", "j", "d"))
        back_arc = total("d", "D", V("x", "j", "i", "d"))
        # Lifted cumulative loads (Desrochers-Laporte), over the arcs of every depot.
        b.con("load_order", "Loads grow along a route and stay within a {vehicle}'s "
              "capacity, so every route starts at a {D}.", (("i", "C"), ("j", "C")),
              V("u", "i") - V("u", "j") + P("cap") * arc +
              (P("cap") - P("demand", "i") - P("demand", "j")) * back_arc, "<=",
              P("cap") - P("demand", "j"), where=_OFF, role="subtour")
        # Lifted bounds on the loads (Kara, Laporte and Bektas): a stop's load counts the
        # stop before it, and leaves room for the stop after it. Valid on every route, they
        # hold the relaxation's loads up; "definition", not "capacity": routes keep room to
        # spare by design, so no row of theirs need come near the limit.
        b.con("own_load", "A route's load at a {C} includes that {C}'s own and that of the "
              "{C} the {vehicle} came from.", (("j", "C"),),
              V("u", "j") - total("i", "C", P("demand", "i") * total(
                  "d", "D", V("x", "i", "j", "d")), Cond("ne", "i", "j")), ">=",
              P("demand", "j"), role="definition")
        b.con("room_left", "A {vehicle} that drives on from a {C} to another still has room "
              "for the next {C}'s {goods}.", (("i", "C"),),
              V("u", "i") + total("j", "C", P("demand", "j") * total(
                  "d", "D", V("x", "i", "j", "d")), Cond("ne", "i", "j")), "<=",
              P("cap"), role="definition")
        driving = (total("d", "D", total("i", "C", total(
            "j", "C", P("dist", "i", "j") * V("x", "i", "j", "d"), Cond("ne", "i", "j")))) +
            total("d", "D", total("j", "C", P("depot_dist", "d", "j") *
                                  (V("start", "d", "j") + V("back", "j", "d")))))
        b.objective("min", total("d", "D", P("fixed", "d") * V("y", "d")) + P("rate") * driving,
                    "depot and driving cost in {money}")
