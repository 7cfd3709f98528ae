"""Vehicle routing: capacitated routes from one depot, time windows, pickup and delivery.

The depot is no element of a set: it is the vocabulary's ``{home}``, with its own distances
(``home_dist``) and its own arcs (``start``: depot to a stop, ``back``: a stop to the depot),
so that every stop of the data is a real stop with a real demand. Sub-tours are cut by
cumulative loads (capacitated routes) or by tour positions (one vehicle), Miller-Tucker-Zemlin
style.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, Expr, P, V, total
from ortrex.ir.semantic import SemanticModel

_OFF = (Cond("ne", "i", "j"),)


def _points(rng: np.random.Generator, n: int, span: float) -> tuple[np.ndarray, np.ndarray]:
    """A depot near the middle of the area and ``n`` stops spread over it."""
    home = span * (0.5 + rng.uniform(-0.1, 0.1, 2))
    return home, rng.uniform(0, span, (n, 2))


def euclid(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Straight-line distances from every point of ``a`` to every point of ``b``."""
    return np.linalg.norm(a[:, None, :] - b[None, :, :], axis=2)


def fleet_first_fit(demand: np.ndarray, cap: float) -> int:
    """Vehicles first-fit decreasing needs for ``demand`` (a feasible fleet size)."""
    loads: list[float] = []
    for d in sorted(demand, reverse=True):
        for k, load in enumerate(loads):
            if load + d <= cap:
                loads[k] += d
                break
        else:
            loads.append(float(d))
    return len(loads)


def _sweep(home: np.ndarray, xy: np.ndarray, demand: np.ndarray, cap: float,
           turn: float) -> list[list[int]]:
    """Routes of a sweep around the depot from angle ``turn``, cut where the next stop would
    overload the vehicle (a feasible reference plan)."""
    angle = np.arctan2(xy[:, 1] - home[1], xy[:, 0] - home[0])
    angle = (angle - turn) % (2 * math.pi)
    routes: list[list[int]] = [[]]
    load = 0.0
    for c in np.argsort(angle):
        if load + demand[c] > cap:
            routes.append([])
            load = 0.0
        routes[-1].append(int(c))
        load += demand[c]
    return routes


def vehicle_capacity(demand: np.ndarray, rng: np.random.Generator,
              vehicles: Callable[[float], int]) -> float:
    """A vehicle capacity of two to four routes' worth of demand, raised until a plan with
    as few routes as the total load needs exists (``vehicles``: the routes of a plan at that
    capacity): the fleet of that many then binds, and no vehicle carries everything. Routes
    keep 15-35% room: packed to 5% (a bin-packing puzzle inside the routing) HiGHS took up to
    14 s on a dozen stops, with the room never over 2 s."""
    total = float(demand.sum())
    routes = int(rng.integers(2, max(3, len(demand) // 3) + 1))
    cap = float(max(demand.max(), math.ceil(total / routes * rng.uniform(1.15, 1.35))))
    while cap < total - 1 and vehicles(cap) > -(-total // cap):
        cap += 1.0
    return min(cap, total - 1)


def _routing(b: Builder) -> None:
    """The arcs of capacitated routes from the depot over the stops ``C`` (x, start, back),
    each stop entered and left once, the fleet limit and the cumulative loads (``u``)."""
    b.var("x", (("i", "C"), ("j", "C")), "1 if a {vehicle} drives from {C} i straight to {C} j",
          vtype="B", where=_OFF, role="routing")
    b.var("start", (("i", "C"),), "1 if a {vehicle} drives from the {home} straight to {C} i",
          vtype="B", role="routing")
    b.var("back", (("i", "C"),), "1 if a {vehicle} drives from {C} i straight back to the "
          "{home}", vtype="B", role="routing")
    b.var("u", (("i", "C"),), "{goods} of the route up to and including {C} i", ub=P("cap"),
          unit="{goods}", role="position")
    # Each stop taken by one arc in and one out: role "assignment", not "degree", since the
    # one_tour post-check reads degree rows as one closed tour through every node of the set,
    # and routes here are several, closed at a depot outside the set.
    b.con("enter_once", "Every {C} is reached exactly once.", (("j", "C"),),
          total("i", "C", V("x", "i", "j"), Cond("ne", "i", "j")) + V("start", "j"), "=", 1.0,
          role="assignment")
    b.con("leave_once", "Every {C} is left exactly once.", (("i", "C"),),
          total("j", "C", V("x", "i", "j"), Cond("ne", "i", "j")) + V("back", "i"), "=", 1.0,
          role="assignment")
    # Every vehicle goes out: the fleet is the fewest routes the total load needs (see
    # _capacity), so "at most" would choose the same plans; said as "exactly", the relaxation
    # can no longer spread a fraction of one route over the fleet (HiGHS took 10-30 s on a
    # dozen stops with "at most", under a second with "exactly").
    b.con("fleet_used", "Every {vehicle} of the fleet leaves the {home} on one route.", (),
          total("i", "C", V("start", "i")), "=", P("fleet"), role="capacity")
    b.con("load_order", "Loads grow along a route and stay within capacity, so every route "
          "starts at the {home}.", (("i", "C"), ("j", "C")),
          V("u", "i") - V("u", "j") + P("cap") * V("x", "i", "j") +
          (P("cap") - P("demand", "i") - P("demand", "j")) * V("x", "j", "i"), "<=",
          P("cap") - P("demand", "j"), where=_OFF, role="subtour")
    # A row, not a lower bound: a mutation that scales the demands past the capacity then
    # makes an infeasible model, never one whose bounds cross.
    b.con("own_load", "A route's load at a {C} includes that {C}'s own.", (("i", "C"),),
          V("u", "i"), ">=", P("demand", "i"), role="definition")


def _distance(b: Builder, set_name: str) -> Expr:
    """Total distance of the arcs, the depot's included."""
    S = set_name
    return (total("i", S, total("j", S, P("dist", "i", "j") * V("x", "i", "j"),
                                Cond("ne", "i", "j"))) +
            total("i", S, P("home_dist", "i") * (V("start", "i") + V("back", "i"))))


def _one_route(sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
    starts = int(np.round(values["start"]).sum())
    return "a single route serves everyone: the capacity is no limit" if starts <= 1 else None


# Demand per stop (low, high), the area's width and the stop's word, per domain.
# Loads of at least a handful: a 10% move of the data (a mutation) always changes some.
_CVRP_SCALE = {"logistics": (5, 40, 60.0), "healthcare": (4, 30, 40.0),
               "retail": (6, 30, 50.0), "public_services": (5, 18, 30.0)}


@register
class CVRP(Family):
    """Capacitated vehicle routing from one depot (two-index arcs, cumulative loads)."""

    name = "cvrp"
    classes = ("routing/vrp",)
    problem_class = "MILP"
    summary = "Serve every {C} from the {home} with capacitated {vehicles}, least total distance."
    sizes = {"small": {"C": (4, 6)}, "medium": {"C": (7, 9)}, "large": {"C": (11, 12)}}
    vocabularies = (
        Vocabulary("logistics", "Parcel rounds",
                   "A courier's vans leave the depot and deliver parcels to every {C}.",
                   {"C": ("town", "town")},
                   {"vehicle": "van", "vehicles": "vans", "home": "depot", "goods": "parcels",
                    "length": "km", "org": "courier", "serve": "deliver to",
                    "need": "parcels to deliver"}),
        Vocabulary("healthcare", "Pharmacy runs",
                   "A hospital pharmacy restocks every {C} of its district by van.",
                   {"C": ("clinic", "town")},
                   {"vehicle": "van", "vehicles": "vans", "home": "central pharmacy",
                    "goods": "boxes of supplies", "length": "km", "org": "hospital pharmacy",
                    "serve": "restock", "need": "boxes of supplies ordered"}),
        Vocabulary("retail", "Store deliveries",
                   "A grocery chain supplies every {C} from its warehouse by truck.",
                   {"C": ("store", "town")},
                   {"vehicle": "truck", "vehicles": "trucks", "home": "warehouse",
                    "goods": "crates", "length": "km", "org": "grocery chain",
                    "serve": "supply", "need": "crates ordered"}),
        Vocabulary("public_services", "School buses",
                   "A school district runs buses that collect pupils from every {C}.",
                   {"C": ("village", "town")},
                   {"vehicle": "bus", "vehicles": "buses", "home": "school",
                    "goods": "pupils", "length": "km", "org": "school district",
                    "serve": "pick up pupils in", "need": "pupils waiting"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """One route for everyone: a travelling salesman tour, the capacity idle."""
        return _one_route(sm, values)

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["C"]
        lo, hi, span = _CVRP_SCALE.get(b.vocab.domain, (5, 40, 60.0))
        b.set("C")
        home, xy = _points(rng, n, span)
        # Road distances, longer than the straight line by a detour of its own each way
        # (one-way streets): with the same distance both ways each route had its mirror
        # image, and HiGHS took up to 12 s on a dozen towns; now at most 3.
        dist = rounded(euclid(xy, xy) * rng.uniform(1.0, 1.3, (n, n)), 1)
        home_dist = rounded(euclid(home[None, :], xy)[0], 1)
        demand = rng.integers(lo, hi + 1, n).astype(float)
        # The fleet is the fewest vehicles the total load needs, and first-fit packs the
        # demands into that many: it binds, and no single vehicle carries everything.
        cap = vehicle_capacity(demand, rng, lambda q: fleet_first_fit(demand, q))
        fleet = float(-(-demand.sum() // cap))
        b.param("dist", ("C", "C"), dist, "distance between {C}s", "{length}")
        b.param("home_dist", ("C",), home_dist, "distance from the {home} to each {C}",
                "{length}")
        b.param("demand", ("C",), demand, "{goods} for each {C}", "{goods}", integer=True)
        b.param("cap", (), cap, "capacity of one {vehicle}", "{goods}", integer=True)
        b.param("fleet", (), fleet, "number of {vehicles} available", "{vehicles}",
                integer=True)
        _routing(b)
        b.objective("min", _distance(b, "C"), "total distance in {length}")


# Demand per stop (low, high), the area (minutes across), service minutes (low, high).
_TW_SCALE = {"healthcare": (3, 15, 40, 15, 45), "utilities": (5, 30, 50, 20, 60),
             "logistics": (4, 14, 40, 3, 10), "retail": (4, 12, 40, 5, 15)}


@register
class VRPTW(Family):
    """Vehicle routing with time windows: capacitated routes, start times within windows."""

    name = "vrptw"
    classes = ("routing/vrptw",)
    problem_class = "MILP"
    summary = "Serve every {C} within its time window with capacitated {vehicles}, least " \
              "driving time."
    sizes = {"small": {"C": (4, 6)}, "medium": {"C": (7, 9)}, "large": {"C": (12, 13)}}
    vocabularies = (
        Vocabulary("healthcare", "Home care visits",
                   "Nurses leave the clinic and visit every {C} within the agreed window.",
                   {"C": ("patient", "surname")},
                   {"vehicle": "nurse", "vehicles": "nurses", "home": "clinic",
                    "goods": "kg of supplies", "time": "minutes", "org": "home-care service",
                    "visit": "visit", "job": "visit", "need": "kg of supplies to bring"}),
        Vocabulary("utilities", "Field service",
                   "Technicians leave the depot and call at every {C} in its booked slot.",
                   {"C": ("customer", "surname")},
                   {"vehicle": "technician", "vehicles": "technicians", "home": "depot",
                    "goods": "kg of parts", "time": "minutes", "org": "water utility",
                    "visit": "call at", "job": "job", "need": "kg of parts needed"}),
        Vocabulary("logistics", "Slot deliveries",
                   "Vans leave the depot and deliver to every {C} within its delivery slot.",
                   {"C": ("shop", "town")},
                   {"vehicle": "van", "vehicles": "vans", "home": "depot",
                    "goods": "roll cages", "time": "minutes", "org": "wholesaler",
                    "visit": "deliver to", "job": "drop-off", "need": "roll cages ordered"}),
        Vocabulary("retail", "Grocery slots",
                   "Vans leave the store and bring every {C} its order within the chosen "
                   "slot.",
                   {"C": ("household", "surname")},
                   {"vehicle": "van", "vehicles": "vans", "home": "store", "goods": "crates",
                    "time": "minutes", "org": "online grocer", "visit": "deliver to",
                    "job": "drop-off", "need": "crates ordered"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """One route for everyone: the capacity and the windows are idle."""
        return _one_route(sm, values)

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["C"]
        lo, hi, span, s_lo, s_hi = _TW_SCALE.get(b.vocab.domain, (2, 12, 40, 5, 15))
        b.set("C")
        home, xy = _points(rng, n, span)
        # Whole minutes, never zero between two places: whole data keep the earliest
        # schedule in whole minutes (whether times are whole never matters).
        travel = np.maximum(np.round(euclid(xy, xy)), 1.0)
        np.fill_diagonal(travel, 0.0)
        home_time = np.maximum(np.round(euclid(home[None, :], xy)[0]), 1.0)
        service = rng.integers(s_lo, s_hi + 1, n).astype(float)
        demand = rng.integers(lo, hi + 1, n).astype(float)
        # A reference plan (a sweep cut by capacity, as few routes as the load needs) sets the
        # windows round its arrival times: it meets them, so the instance is feasible, and the
        # windows are narrow enough that the shortest routes ignoring them usually break one.
        turn = rng.uniform(-math.pi, math.pi)
        cap = vehicle_capacity(demand, rng, lambda q: len(_sweep(home, xy, demand, q, turn)))
        plan = _sweep(home, xy, demand, cap, turn)
        arrive = np.zeros(n)
        for route in plan:
            t, prev = 0.0, -1
            for c in route:
                t += home_time[c] if prev < 0 else service[prev] + travel[prev, c]
                arrive[c] = t
                prev = c
        early = np.floor(np.maximum(arrive - rng.integers(5, 40, n), 0) / 5) * 5
        late = np.ceil((arrive + rng.integers(5, 40, n)) / 5) * 5
        fleet = float(len(plan))  # the fewest the load needs: the fleet binds
        b.param("travel", ("C", "C"), travel, "driving time between {C}s", "{time}",
                integer=True)
        b.param("home_time", ("C",), home_time, "driving time from the {home} to each {C}",
                "{time}", integer=True)
        b.param("service", ("C",), service, "time spent at each {C}", "{time}", integer=True)
        b.param("earliest", ("C",), early, "earliest start of the {job} at each {C}",
                "{time}", integer=True)
        b.param("latest", ("C",), late, "latest start of the {job} at each {C}", "{time}",
                integer=True)
        b.param("demand", ("C",), demand, "{goods} for each {C}", "{goods}", integer=True)
        b.param("cap", (), cap, "capacity of one {vehicle}", "{goods}", integer=True)
        b.param("fleet", (), fleet, "number of {vehicles} available", "{vehicles}",
                integer=True)
        _routing(b)
        b.var("t", (("i", "C"),), "start time of the {job} at {C} i", lb=P("earliest", "i"),
              unit="{time}", role="timing")
        # The window's close a row, not an upper bound: a mutation that scales one end of the
        # windows makes an infeasible model, never one whose bounds cross. Protected (role
        # "definition"): the big-M of time_order below holds only while starts stay in it.
        b.con("window_close", "The {job} at each {C} starts no later than its latest start.",
              (("i", "C"),), V("t", "i"), "<=", P("latest", "i"), role="definition")
        b.con("first_visit", "A {C} reached from the {home} starts no earlier than the drive "
              "from it.", (("i", "C"),),
              V("t", "i") - P("home_time", "i") * V("start", "i"), ">=", 0.0,
              role="definition")
        # t_i + service_i + travel_ij - t_j <= M_ij (1 - x_ij) with the least M_ij that holds
        # whatever the windows allow, latest_i + service_i + travel_ij - earliest_j: a big-M
        # of the data at each pair (no derived figure), as tight as the windows make it.
        reach = P("latest", "i") + P("service", "i") + P("travel", "i", "j") - P("earliest", "j")
        b.con("time_order", "If a {vehicle} drives from {C} i to {C} j, the {job} at j starts "
              "after the one at i ends and the drive.", (("i", "C"), ("j", "C")),
              V("t", "i") - V("t", "j") + reach * V("x", "i", "j"), "<=",
              P("latest", "i") - P("earliest", "j"), where=_OFF, role="definition")
        b.objective("min", total("i", "C", total("j", "C", P("travel", "i", "j") *
                                                 V("x", "i", "j"), Cond("ne", "i", "j"))) +
                    total("i", "C", P("home_time", "i") * (V("start", "i") + V("back", "i"))),
                    "total driving time in {time}")


# Load per request (low, high) and the area's width, per domain.
_PD_SCALE = {"logistics": (5, 30, 50.0), "healthcare": (4, 16, 30.0),
             "retail": (10, 60, 60.0), "public_services": (5, 30, 40.0)}


@register
class PickupDelivery(Family):
    """One vehicle serving pickup-and-delivery requests: each pickup before its delivery,
    the load within capacity (tour positions and cumulative loads)."""

    name = "pickup_delivery"
    classes = ("routing/pickup_delivery",)
    problem_class = "MILP"
    summary = "One {vehicle} collects and delivers every {R} in one round from the {home}, " \
              "least distance."
    sizes = {"small": {"R": (2, 3)}, "medium": {"R": (4, 4)}, "large": {"R": (5, 5)}}
    vocabularies = (
        Vocabulary("logistics", "Courier jobs",
                   "A courier van collects each {R} at one {N} and delivers it to another.",
                   {"R": ("consignment", "code:CN"), "N": ("stop", "town")},
                   {"vehicle": "van", "home": "depot", "goods": "parcels", "length": "km",
                    "org": "courier", "collect": "collected", "bring": "delivered"}),
        Vocabulary("healthcare", "Medical courier",
                   "A courier car takes each {R} from one {N} to another.",
                   {"R": ("sample batch", "code:SB"), "N": ("clinic", "town")},
                   {"vehicle": "courier car", "home": "hospital", "goods": "cool boxes",
                    "length": "km", "org": "hospital courier service",
                    "collect": "picked up", "bring": "dropped off"}),
        Vocabulary("retail", "Store transfers",
                   "A truck moves each {R} of stock from one {N} to another.",
                   {"R": ("transfer", "code:TR"), "N": ("store", "town")},
                   {"vehicle": "truck", "home": "warehouse", "goods": "cases",
                    "length": "km", "org": "retail chain", "collect": "loaded",
                    "bring": "unloaded"}),
        Vocabulary("public_services", "Food bank run",
                   "A food-bank van collects each {R} at one {N} and brings it to another.",
                   {"R": ("donation", "codename"), "N": ("site", "town")},
                   {"vehicle": "van", "home": "food bank", "goods": "crates",
                    "length": "km", "org": "food bank", "collect": "collected",
                    "bring": "delivered"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["R"]
        lo, hi, span = _PD_SCALE.get(b.vocab.domain, (2, 12, 50.0))
        b.set("R")
        b.set("N", 2 * n)
        home, xy = _points(rng, 2 * n, span)
        order = rng.permutation(2 * n)  # stops in no telling order: pickups and drops mixed
        pickup, dropoff = order[:n].astype(float), order[n:].astype(float)
        size = rng.integers(lo, hi + 1, n).astype(float)
        # Room for the largest request and about half of all of them: carrying everything at
        # once is out, one request after another always fits.
        cap = float(max(size.max(), math.ceil(size.sum() * rng.uniform(0.4, 0.6))))
        b.param("dist", ("N", "N"), rounded(euclid(xy, xy), 1), "distance between {N}s",
                "{length}")
        b.param("home_dist", ("N",), rounded(euclid(home[None, :], xy)[0], 1),
                "distance from the {home} to each {N}", "{length}")
        b.param("pickup", ("R",), pickup, "the {N} where each {R} is {collect}", "{N}",
                integer=True, position_in="N")
        b.param("dropoff", ("R",), dropoff, "the {N} where each {R} is {bring}", "{N}",
                integer=True, position_in="N")
        b.param("size", ("R",), size, "{goods} each {R} takes up", "{goods}", integer=True)
        b.param("cap", (), cap, "capacity of the {vehicle}", "{goods}", integer=True)
        b.param("n_stops", (), float(2 * n), "number of {N}s", "{N}s", integer=True)
        b.derive("n_stops", "len(N)")
        b.var("x", (("i", "N"), ("j", "N")), "1 if the {vehicle} drives from {N} i straight to "
              "{N} j", vtype="B", where=_OFF, role="routing")
        b.var("start", (("i", "N"),), "1 if the {vehicle} drives from the {home} straight to "
              "{N} i", vtype="B", role="routing")
        b.var("back", (("i", "N"),), "1 if the {vehicle} drives from {N} i straight back to "
              "the {home}", vtype="B", role="routing")
        b.var("u", (("i", "N"),), "place of {N} i in the round", lb=1.0, ub=P("n_stops"),
              unit="stops", role="position")
        b.var("load", (("i", "N"),), "{goods} on board on leaving {N} i", ub=P("cap"),
              unit="{goods}", role="position")
        b.con("enter_once", "Every {N} is reached exactly once.", (("j", "N"),),
              total("i", "N", V("x", "i", "j"), Cond("ne", "i", "j")) + V("start", "j"), "=",
              1.0, role="assignment")
        b.con("leave_once", "Every {N} is left exactly once.", (("i", "N"),),
              total("j", "N", V("x", "i", "j"), Cond("ne", "i", "j")) + V("back", "i"), "=",
              1.0, role="assignment")
        b.con("one_round", "There is one {vehicle}: at most one round leaves the {home}.", (),
              total("i", "N", V("start", "i")), "<=", 1.0, role="capacity")
        # Lifted (Desrochers-Laporte): the x[j,i] term costs nothing on a tour and cut HiGHS's
        # worst case on ten stops by a third; cuts that fix arcs to 0 (no round opening with a
        # delivery) helped a little more, but the unusable_item post-check refuses them.
        b.con("no_subtour", "Places increase along the round, so it is one round from the "
              "{home}.", (("i", "N"), ("j", "N")),
              V("u", "i") - V("u", "j") + P("n_stops") * V("x", "i", "j") +
              (P("n_stops") - 2) * V("x", "j", "i"), "<=", P("n_stops") - 1, where=_OFF,
              role="subtour")
        b.con("pickup_first", "Each {R} is {collect} before it is {bring}.", (("r", "R"),),
              total("j", "N", V("u", "j"), Cond("link", "r", "j", param="dropoff")) -
              total("i", "N", V("u", "i"), Cond("link", "r", "i", param="pickup")), ">=", 1.0,
              role="logic")
        # What a stop changes on board: a request's size at its pickup, less at its drop.
        change = (total("r", "R", P("size", "r"), Cond("link", "r", "j", param="pickup")) -
                  total("r", "R", P("size", "r"), Cond("link", "r", "j", param="dropoff")))
        b.con("load_flow", "The load changes by what is {collect} or {bring} at each {N} and "
              "stays within capacity.", (("i", "N"), ("j", "N")),
              V("load", "i") - V("load", "j") + P("cap") * V("x", "i", "j") + change, "<=",
              P("cap"), where=_OFF, role="capacity")
        b.con("load_pickup", "Leaving the {N} where a {R} is {collect}, the {vehicle} carries "
              "at least that {R}.", (("r", "R"),),
              total("j", "N", V("load", "j"), Cond("link", "r", "j", param="pickup")), ">=",
              P("size", "r"), role="capacity")
        b.objective("min", _distance(b, "N"), "total distance in {length}")
