"""Inventory and planning over periods: lot sizing with backorders, workforce planning, a
two-echelon supply chain, and multi-stage production along a bill of materials."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, Idx, P, V, total
from ortrex.ir.semantic import SemanticModel


def _season(rng: np.random.Generator, n: int, swing: float) -> np.ndarray:
    """A demand pattern over ``n`` periods: one peak somewhere, troughs elsewhere (the
    reason to build ahead or to fall behind)."""
    peak = rng.uniform(0, n)
    width = max(1.0, n / 3.5)
    t = np.arange(n)
    return 1 - swing / 2 + swing * np.exp(-((t - peak) / width) ** 2)


# ---------------------------------------------------------------- backorder planning
@register
class BackorderPlanning(Family):
    """Capacitated lot sizing with backlogging: late delivery at a penalty per unit and
    period, set-ups before production, the backlog cleared by the last period."""

    name = "backorder_planning"
    classes = ("inventory/backorders", "inventory/lot_sizing")
    problem_class = "MILP"
    summary = "Set up and make {P}s over {T}s, holding stock or delivering late at a penalty."
    sizes = {"small": {"P": (2, 3), "T": (3, 4)}, "medium": {"P": (3, 4), "T": (5, 8)},
             "large": {"P": (4, 5), "T": (10, 12)}}
    vocabularies = (
        Vocabulary("manufacturing", "Electronics assembly",
                   "An electronics plant plans output of {P}s over the coming {T}s.",
                   {"P": ("product", "list:gadget"), "T": ("week", "week")},
                   {"qty": "units", "money": "USD", "time": "line hours", "org": "plant",
                    "line": "assembly line", "customers": "retailers"}),
        Vocabulary("agriculture", "Brewery bottling",
                   "A brewery plans bottling of {P}s over the {T}s of the season.",
                   {"P": ("beverage", "list:beverage"), "T": ("month", "month")},
                   {"qty": "hectolitres", "money": "EUR", "time": "bottling hours",
                    "org": "brewery", "line": "bottling line", "customers": "distributors"}),
        Vocabulary("healthcare", "Tablet production",
                   "A pharmaceutical plant plans batches of {P}s over the coming {T}s.",
                   {"P": ("medicine", "list:api"), "T": ("week", "week")},
                   {"qty": "kg", "money": "EUR", "time": "granulator hours",
                    "org": "pharmaceutical plant", "line": "granulation suite",
                    "customers": "hospital pharmacies"}),
        Vocabulary("retail", "Furniture workshop",
                   "A furniture maker plans output of {P}s for its stores over the {T}s.",
                   {"P": ("furniture line", "list:furniture_line"), "T": ("month", "month")},
                   {"qty": "pieces", "money": "USD", "time": "workshop hours",
                    "org": "furniture workshop", "line": "production line",
                    "customers": "stores"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("P")
        b.set("T")
        nP, nT = b.dims["P"], b.dims["T"]
        base = rng.uniform(20, 90, nP)
        season = _season(rng, nT, rng.uniform(0.6, 1.0))
        demand = np.maximum(5, rounded(base[:, None] * season[None, :] *
                                       rng.uniform(0.85, 1.15, (nP, nT)), 0))
        hours = rounded(rng.uniform(0.5, 2.5, nP), 1)
        initial = rounded(rng.uniform(0, 0.3, nP) * base, 0)
        need = float(hours @ demand.sum(axis=1) - hours @ initial)
        # A level capacity a little above the average need: enough over the whole horizon
        # (the backlog must be cleared), short in the peak, so stock or lateness is chosen.
        cap = np.ceil(need / nT * rng.uniform(1.04, 1.15) * rng.uniform(0.92, 1.08, nT))
        if cap.sum() < need * 1.03:
            cap += np.ceil((need * 1.03 - cap.sum()) / nT)
        unit_cost = rng.uniform(8, 40, nP)
        hold = rounded(unit_cost * rng.uniform(0.02, 0.06, nP), 2)
        hold = np.maximum(hold, 0.1)
        b.param("demand", ("P", "T"), demand, "orders for each {P} due in each {T}", "{qty}")
        b.param("hours", ("P",), hours, "{time} needed per unit of each {P}",
                "{time} per {qty}")
        b.param("capacity", ("T",), cap, "{time} available in each {T}", "{time}")
        b.param("initial", ("P",), initial, "stock of each {P} at the start", "{qty}")
        b.param("make_cost", ("P", "T"),
                rounded(unit_cost[:, None] * rng.uniform(0.92, 1.08, (nP, nT)), 2),
                "cost of making one unit of each {P} in each {T}", "{money} per {qty}")
        b.param("hold_cost", ("P",), hold, "cost of holding one unit of each {P} for one {T}",
                "{money} per {qty}")
        b.param("backorder_cost", ("P",), rounded(hold * rng.uniform(2, 5, nP), 2),
                "penalty per unit of each {P} delivered one {T} late", "{money} per {qty}")
        b.param("setup_cost", ("P",),
                np.maximum(40, rounded(hold * base * rng.uniform(1.5, 5, nP), 0)),
                "cost of setting up for each {P} in a {T}", "{money}")
        # Big-M: no more than a whole period's hours can make (the capacity row implies it).
        big_m = np.array([[float(cap[t]) / float(hours[p]) for t in range(nT)]
                          for p in range(nP)])
        b.param("big_m", ("P", "T"), big_m, "most {qty} of each {P} the {line} can make in a "
                "{T}", "{qty}")
        b.derive("big_m", "[[capacity[t] / hours[p] for t in range(len(T))] "
                          "for p in range(len(P))]")
        b.var("x", (("p", "P"), ("t", "T")), "{qty} of {P} p made in {T} t", unit="{qty}",
              role="quantity")
        b.var("s", (("p", "P"), ("t", "T")), "{qty} of {P} p in stock at the end of {T} t",
              unit="{qty}", role="inventory")
        b.var("u", (("p", "P"), ("t", "T")), "{qty} of {P} p owed to {customers} at the end "
              "of {T} t", unit="{qty}", role="inventory")
        b.var("y", (("p", "P"), ("t", "T")), "1 if the {line} is set up for {P} p in {T} t",
              vtype="B", role="indicator")
        b.con("capacity_limit", "Production in a {T} fits its {time}.", (("t", "T"),),
              total("p", "P", P("hours", "p") * V("x", "p", "t")), "<=", P("capacity", "t"),
              role="capacity")
        b.con("first_balance", "In the first {T}, start stock plus output serves the orders "
              "due; the rest is stocked or owed.", (("p", "P"), ("t", "T")),
              V("s", "p", "t") - V("u", "p", "t") - V("x", "p", "t"), "=",
              P("initial", "p") - P("demand", "p", "t"), where=(Cond("first", "t"),),
              role="balance")
        b.con("balance", "Stock carried in, less orders still owed, plus output serves the "
              "orders due; the rest is stocked or owed.", (("p", "P"), ("t", "T")),
              V("s", "p", "t") - V("u", "p", "t") - V("s", "p", Idx("t") - 1) +
              V("u", "p", Idx("t") - 1) - V("x", "p", "t"), "=", -P("demand", "p", "t"),
              where=(Cond("not_first", "t"),), role="balance")
        b.con("backlog_cleared", "Nothing is still owed at the end of the last {T}.",
              (("p", "P"), ("t", "T")), V("u", "p", "t"), "<=", 0.0,
              where=(Cond("last", "t"),), role="demand")
        b.con("setup_link", "A {P} is made in a {T} only after a setup.",
              (("p", "P"), ("t", "T")), V("x", "p", "t") - P("big_m", "p", "t") *
              V("y", "p", "t"), "<=", 0.0, role="linking")
        b.objective("min", total("p", "P", total("t", "T", P("make_cost", "p", "t") *
                                                 V("x", "p", "t") + P("hold_cost", "p") *
                                                 V("s", "p", "t") + P("backorder_cost", "p") *
                                                 V("u", "p", "t") + P("setup_cost", "p") *
                                                 V("y", "p", "t"))),
                    "production, holding, backorder and setup cost in {money}")


# ---------------------------------------------------------------- workforce planning
@register
class WorkforcePlanning(Family):
    """Aggregate workforce planning: whole workers hired and let go per period, overtime
    within a cap per worker, hours of work covered, hiring capacity shared by the teams."""

    name = "workforce_planning"
    classes = ("planning/workforce",)
    problem_class = "MILP"
    summary = "Hire, let go and pay overtime to the {staff} of each {K} over {T}s so that " \
              "the work of every {T} is covered."
    sizes = {"small": {"K": (2, 2), "T": (3, 4)}, "medium": {"K": (2, 3), "T": (5, 8)},
             "large": {"K": (4, 5), "T": (10, 12)}}
    vocabularies = (
        Vocabulary("workforce", "Contact centre staffing",
                   "A contact centre plans its {staff} over the coming {T}s.",
                   {"K": ("team", "list:contact_desk"), "T": ("month", "month")},
                   {"staff": "agents", "person": "agent", "money": "USD",
                    "org": "contact centre", "work": "call handling"}),
        Vocabulary("logistics", "Warehouse crews",
                   "A distribution warehouse plans its {staff} over the coming {T}s.",
                   {"K": ("section", "list:warehouse_section"), "T": ("month", "month")},
                   {"staff": "operatives", "person": "operative", "money": "EUR",
                    "org": "distribution warehouse", "work": "warehouse work"}),
        Vocabulary("healthcare", "Ward nursing",
                   "A hospital plans the nurses of its {K}s over the coming {T}s.",
                   {"K": ("ward", "list:ward"), "T": ("month", "month")},
                   {"staff": "nurses", "person": "nurse", "money": "EUR", "org": "hospital",
                    "work": "nursing care"}),
        Vocabulary("retail", "Store staffing",
                   "A department store plans the staff of its {K}s over the coming {T}s.",
                   {"K": ("department", "list:department"), "T": ("week", "week")},
                   {"staff": "shop assistants", "person": "shop assistant", "money": "USD",
                    "org": "department store", "work": "floor work"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("K")
        b.set("T")
        nK, nT = b.dims["K"], b.dims["T"]
        weekly = b.vocab.entities["T"][1] == "week"
        regular = float(rng.choice((36.0, 37.5, 38.0, 40.0) if weekly else
                                   (150.0, 152.0, 160.0, 168.0)))
        ot_max = float(rng.choice((4.0, 6.0, 8.0) if weekly else (16.0, 20.0, 24.0, 30.0)))
        heads = rng.uniform(6, 40, nK)  # workers a team needs in an average period
        season = _season(rng, nT, rng.uniform(0.4, 0.8))
        demand = rounded(heads[:, None] * regular * season[None, :] *
                         rng.uniform(0.9, 1.1, (nK, nT)), 0)
        initial = np.maximum(1, np.round(heads * rng.uniform(0.75, 1.0, nK)))
        wage = rounded(rng.uniform(2800, 5200, nK) / (4.3 if weekly else 1.0), 0)
        ot_cost = rounded(wage / regular * rng.uniform(1.35, 1.8, nK), 2)
        # Hires needed by each period if no one left (the fewest): the recruiting capacity is
        # kept just above their running total, so hiring early is sometimes forced.
        workers = np.ceil(demand / (regular + ot_max))
        peak = np.maximum.accumulate(workers, axis=1)
        least = np.maximum(0, peak - initial[:, None]).sum(axis=0)
        limit = np.full(nT, max(1.0, np.ceil(least[-1] / nT * rng.uniform(0.8, 1.3))))
        for t in range(nT):
            short = least[t] - limit[: t + 1].sum()
            if short > 0:
                limit[t] += short + 1
        b.param("demand", ("K", "T"), demand, "hours of {work} needed in each {K} in each {T}",
                "hours")
        b.param("initial", ("K",), initial, "{staff} in each {K} at the start", "{staff}",
                integer=True)
        b.param("regular", (), regular, "regular hours of one {person} in a {T}", "hours")
        b.param("ot_max", (), ot_max, "most overtime hours of one {person} in a {T}", "hours")
        b.param("wage", ("K",), wage, "wage of one {person} of each {K} for a {T}",
                "{money} per {person}")
        b.param("ot_cost", ("K",), ot_cost, "cost of one overtime hour in each {K}",
                "{money} per hour")
        b.param("hire_cost", ("K",), rounded(wage * rng.uniform(0.5, 1.3, nK), 0),
                "cost of hiring one {person} into each {K}", "{money} per {person}")
        b.param("fire_cost", ("K",), rounded(wage * rng.uniform(0.7, 1.8, nK), 0),
                "cost of letting one {person} of each {K} go", "{money} per {person}")
        b.param("hire_limit", ("T",), limit, "most new {staff} taken on in each {T}",
                "{staff}", integer=True)
        b.var("w", (("k", "K"), ("t", "T")), "{staff} employed in {K} k in {T} t", vtype="I",
              unit="{staff}", role="inventory")
        b.var("h", (("k", "K"), ("t", "T")), "{staff} hired into {K} k at the start of {T} t",
              vtype="I", unit="{staff}", role="quantity")
        b.var("f", (("k", "K"), ("t", "T")), "{staff} of {K} k let go at the start of {T} t",
              vtype="I", unit="{staff}", role="quantity")
        b.var("o", (("k", "K"), ("t", "T")), "overtime hours worked in {K} k in {T} t",
              unit="hours", role="quantity")
        b.con("first_balance", "In the first {T}, the {staff} of a {K} are those at the start, "
              "plus hires, less those let go.", (("k", "K"), ("t", "T")),
              V("w", "k", "t") - V("h", "k", "t") + V("f", "k", "t"), "=", P("initial", "k"),
              where=(Cond("first", "t"),), role="balance")
        b.con("balance", "The {staff} of a {K} are last {T}'s, plus hires, less those let go.",
              (("k", "K"), ("t", "T")),
              V("w", "k", "t") - V("w", "k", Idx("t") - 1) - V("h", "k", "t") +
              V("f", "k", "t"), "=", 0.0, where=(Cond("not_first", "t"),), role="balance")
        b.con("cover", "Regular and overtime hours cover the work of each {K} in each {T}.",
              (("k", "K"), ("t", "T")),
              P("regular") * V("w", "k", "t") + V("o", "k", "t"), ">=", P("demand", "k", "t"),
              role="demand")
        b.con("overtime_cap", "Overtime in a {K} stays within the cap per {person}.",
              (("k", "K"), ("t", "T")), V("o", "k", "t") - P("ot_max") * V("w", "k", "t"),
              "<=", 0.0, role="capacity")
        b.con("hiring_cap", "Hires in a {T} stay within the recruiting capacity.",
              (("t", "T"),), total("k", "K", V("h", "k", "t")), "<=", P("hire_limit", "t"),
              role="capacity")
        b.objective("min", total("k", "K", total("t", "T", P("wage", "k") * V("w", "k", "t") +
                                                 P("ot_cost", "k") * V("o", "k", "t") +
                                                 P("hire_cost", "k") * V("h", "k", "t") +
                                                 P("fire_cost", "k") * V("f", "k", "t"))),
                    "staff cost in {money}")


# ---------------------------------------------------------------- multi-echelon supply
def _carry(need: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Stock that has to be on hand at the end of each period when output comes as late as
    it can (the largest shortfall of the periods ahead)."""
    n = need.size
    return np.array([max([0.0] + [float(need[t + 1: u + 1].sum() - cap[t + 1: u + 1].sum())
                                  for u in range(t + 1, n)]) for t in range(n)])


@register
class MultiEchelon(Family):
    """Two-echelon distribution over periods: a plant ships to warehouses that hold stock and
    serve retailers, within plant, storage and dispatch capacities."""

    name = "multi_echelon"
    classes = ("inventory/multi_echelon",)
    problem_class = "LP"
    summary = "Ship {goods} from the {plant} to {W}s and on to {R}s over {T}s, holding stock " \
              "at the {W}s."
    sizes = {"small": {"W": (2, 2), "R": (2, 3), "T": (3, 3)},
             "medium": {"W": (2, 3), "R": (3, 5), "T": (4, 6)},
             "large": {"W": (3, 4), "R": (5, 7), "T": (8, 10)}}
    vocabularies = (
        Vocabulary("retail", "Store replenishment",
                   "A retailer moves {goods} from its {plant} to {W}s and on to {R}s.",
                   {"W": ("distribution centre", "town"), "R": ("store", "town"),
                    "T": ("week", "week")},
                   {"goods": "cartons of goods", "qty": "cartons", "money": "USD",
                    "plant": "central factory", "org": "retail chain"}),
        Vocabulary("agriculture", "Beverage distribution",
                   "A brewery moves {goods} from its {plant} to {W}s and on to {R}s.",
                   {"W": ("depot", "town"), "R": ("wholesaler", "town"),
                    "T": ("week", "week")},
                   {"goods": "crates of beer", "qty": "crates", "money": "EUR",
                    "plant": "brewery", "org": "brewery"}),
        Vocabulary("healthcare", "Medicine distribution",
                   "A drug maker moves {goods} from its {plant} to {W}s and on to {R}s.",
                   {"W": ("regional warehouse", "town"), "R": ("hospital pharmacy", "town"),
                    "T": ("week", "week")},
                   {"goods": "cases of medicine", "qty": "cases", "money": "EUR",
                    "plant": "plant", "org": "pharmaceutical company"}),
        Vocabulary("energy", "Fuel distribution",
                   "A fuel supplier moves {goods} from its {plant} to {W}s and on to {R}s.",
                   {"W": ("terminal", "town"), "R": ("filling station", "town"),
                    "T": ("month", "month")},
                   {"goods": "fuel", "qty": "kilolitres", "money": "USD",
                    "plant": "refinery", "org": "fuel supplier"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("W")
        b.set("R")
        b.set("T")
        nW, nR, nT = b.dims["W"], b.dims["R"], b.dims["T"]
        plant = rng.uniform(0, 100, 2)
        wx, rx = rng.uniform(0, 100, (nW, 2)), rng.uniform(0, 100, (nR, 2))
        d_in = np.linalg.norm(wx - plant[None, :], axis=1)
        d_out = np.linalg.norm(wx[:, None, :] - rx[None, :, :], axis=2)
        base = rng.uniform(40, 200, nR)
        season = _season(rng, nT, rng.uniform(0.5, 0.9))
        demand = np.maximum(5, rounded(base[:, None] * season[None, :] *
                                       rng.uniform(0.85, 1.15, (nR, nT)), 0))
        total_d = demand.sum(axis=0)
        mean = float(total_d.mean())
        initial = rounded(rng.uniform(0.02, 0.1, nW) * mean / nW, 0)
        # Plant output about level at the average need: short in the peak, so stock is built
        # ahead at the warehouses.
        cap = np.ceil(mean * rng.uniform(0.98, 1.08) * rng.uniform(0.96, 1.04, nT))
        for t in range(nT):  # every run of periods from the start can be served in time
            short = total_d[: t + 1].sum() - initial.sum() - cap[: t + 1].sum()
            if short > 0:
                cap[t] += np.ceil(short) + 1
        if _carry(total_d, cap).max() < 0.05 * mean and nT > 1:
            # No shortfall drawn: the busiest period after the first gets less output and the
            # one before it more (every run from the start stays served), so stock has to be
            # carried into it.
            t = 1 + int(np.argmax(total_d[1:]))
            cut = np.ceil(cap[t] - total_d[t] + 0.15 * mean)
            cap[t] -= cut
            cap[t - 1] += cut
        carry = _carry(total_d, cap)
        # Storage and dispatch just above what the plan needs in all (within a ninth): some
        # warehouse is then full, and some sends out all it can, in the tightest period.
        share = rng.uniform(0.7, 1.3, nW)
        share /= share.sum()
        room = carry.max() * rng.uniform(1.02, 1.1) + 0.02 * mean
        storage = np.maximum(initial + 1, np.ceil(room * share))
        dispatch = np.ceil(total_d.max() * rng.uniform(1.02, 1.1) * share)
        b.param("demand", ("R", "T"), demand, "{qty} each {R} needs in each {T}", "{qty}")
        b.param("plant_cap", ("T",), cap, "{qty} the {plant} can ship in each {T}", "{qty}")
        b.param("initial", ("W",), initial, "{qty} in stock at each {W} at the start", "{qty}")
        b.param("storage", ("W",), storage, "most {qty} each {W} can hold at the end of a {T}",
                "{qty}")
        b.param("dispatch", ("W",), dispatch, "most {qty} each {W} can send out in a {T}",
                "{qty}")
        b.param("ship_in", ("W",), rounded(0.6 + d_in * rng.uniform(0.02, 0.04), 2),
                "cost of shipping one unit from the {plant} to each {W}", "{money} per {qty}")
        b.param("ship_out", ("W", "R"),
                rounded(0.4 + d_out * rng.uniform(0.03, 0.06, (nW, nR)), 2),
                "cost of shipping one unit from each {W} to each {R}", "{money} per {qty}")
        b.param("hold_cost", ("W",), rounded(rng.uniform(0.15, 0.9, nW), 2),
                "cost of holding one unit at each {W} for one {T}", "{money} per {qty}")
        b.var("x", (("w", "W"), ("t", "T")), "{qty} shipped from the {plant} to {W} w in {T} t",
              unit="{qty}", role="quantity")
        b.var("y", (("w", "W"), ("r", "R"), ("t", "T")),
              "{qty} shipped from {W} w to {R} r in {T} t", unit="{qty}", role="quantity")
        b.var("s", (("w", "W"), ("t", "T")), "{qty} in stock at {W} w at the end of {T} t",
              unit="{qty}", role="inventory")
        b.con("plant_limit", "The {plant} ships no more than it can in a {T}.", (("t", "T"),),
              total("w", "W", V("x", "w", "t")), "<=", P("plant_cap", "t"), role="capacity")
        out = total("r", "R", V("y", "w", "r", "t"))
        b.con("first_balance", "In the first {T}, a {W}'s start stock plus arrivals, less what "
              "it sends out, is its stock.", (("w", "W"), ("t", "T")),
              V("s", "w", "t") - V("x", "w", "t") + out, "=", P("initial", "w"),
              where=(Cond("first", "t"),), role="balance")
        b.con("balance", "A {W}'s stock carried in plus arrivals, less what it sends out, is "
              "its stock.", (("w", "W"), ("t", "T")),
              V("s", "w", "t") - V("s", "w", Idx("t") - 1) - V("x", "w", "t") + out, "=", 0.0,
              where=(Cond("not_first", "t"),), role="balance")
        b.con("storage_limit", "A {W} holds no more than its storage space.",
              (("w", "W"), ("t", "T")), V("s", "w", "t"), "<=", P("storage", "w"),
              role="capacity")
        b.con("dispatch_limit", "A {W} sends out no more than it can handle in a {T}.",
              (("w", "W"), ("t", "T")), out, "<=", P("dispatch", "w"), role="capacity")
        b.con("demand_met", "Each {R} receives what it needs in each {T}.",
              (("r", "R"), ("t", "T")), total("w", "W", V("y", "w", "r", "t")), ">=",
              P("demand", "r", "t"), role="demand")
        b.objective("min", total("t", "T", total("w", "W", P("ship_in", "w") * V("x", "w", "t")
                                                 + P("hold_cost", "w") * V("s", "w", "t") +
                                                 total("r", "R", P("ship_out", "w", "r") *
                                                       V("y", "w", "r", "t")))),
                    "shipping and holding cost in {money}")


# ---------------------------------------------------------------- bill of materials
def _recipe(rng: np.random.Generator, n_in: int, n_out: int, most: int) -> np.ndarray:
    """A bill-of-materials block in amounts per amount of output: each output takes 1..``most``
    distinct inputs adding up to a little more than one (what is lost in processing), and
    every input goes into some output."""
    uses = np.zeros((n_in, n_out))
    for j in range(n_out):
        k = int(rng.integers(1, min(most, n_in) + 1))
        uses[rng.choice(n_in, k, replace=False), j] = rng.uniform(0.3, 1.0, k)
    for i in range(n_in):
        if not uses[i].any():
            uses[i, int(rng.integers(n_out))] = rng.uniform(0.3, 1.0)
    return rounded(uses / uses.sum(axis=0) * rng.uniform(1.0, 1.08, n_out), 2)


@register
class BomProduction(Family):
    """Multi-stage production along a bill of materials: products made from intermediates,
    which are processed in-house from raw materials or bought ready-made; profit from sales
    within demand, stock of products carried between periods."""

    name = "bom_production"
    classes = ("planning/bill_of_materials",)
    problem_class = "LP"
    summary = "Make {E}s from {S}s processed in-house from {C}s or bought, over {T}s, for " \
              "the most profit."
    sizes = {"small": {"E": (2, 2), "S": (2, 2), "C": (2, 3), "T": (2, 2)},
             "medium": {"E": (2, 3), "S": (2, 3), "C": (3, 4), "T": (3, 5)},
             "large": {"E": (4, 5), "S": (4, 5), "C": (4, 6), "T": (8, 9)}}
    vocabularies = (
        Vocabulary("manufacturing", "Paint making",
                   "A paint maker blends {E}s from {S}s over the coming {T}s.",
                   {"E": ("paint", "list:paint"), "S": ("paint base", "list:paint_base"),
                    "C": ("raw material", "list:paint_raw"), "T": ("month", "month")},
                   {"qty": "tonnes", "money": "USD", "org": "paint factory",
                    "shop": "base plant", "assembly": "blending and filling line",
                    "supplier": "a contract manufacturer", "buyers": "our trade customers",
                    "scale": "100"}),
        Vocabulary("agriculture", "Ready meals",
                   "A food processor cooks {E}s from {S}s over the coming {T}s.",
                   {"E": ("ready meal", "list:dish"), "S": ("sauce", "list:sauce"),
                    "C": ("ingredient", "list:meal_ingredient"), "T": ("week", "week")},
                   {"qty": "tonnes", "money": "EUR", "org": "food factory",
                    "shop": "kitchen", "assembly": "packing line",
                    "supplier": "an outside caterer", "buyers": "the supermarkets",
                    "scale": "100"}),
        Vocabulary("healthcare", "Tablet manufacturing",
                   "A drug maker presses {E}s from {S}s over the coming {T}s.",
                   {"E": ("medicine", "list:api"), "S": ("granulate", "list:granulate"),
                    "C": ("excipient", "list:excipient"), "T": ("week", "week")},
                   {"qty": "kg", "money": "EUR", "org": "pharmaceutical plant",
                    "shop": "granulation suite", "assembly": "tablet press",
                    "supplier": "a contract manufacturer", "buyers": "the wholesalers",
                    "scale": "10"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        for s in ("E", "S", "C", "T"):
            b.set(s)
        nE, nS, nC, nT = (b.dims[s] for s in ("E", "S", "C", "T"))
        scale = float(b.vocab.words.get("scale", "1"))
        sub = _recipe(rng, nS, nE, 3)  # intermediates (rows) per unit of product (columns)
        part = _recipe(rng, nC, nS, 3)  # raw materials per unit of intermediate made in-house
        part_price = rounded(rng.uniform(0.8, 15, nC) * scale, 2)
        mhours = rounded(rng.uniform(0.2, 1.5, nS), 2)
        material = part_price @ part
        # Buying ready-made costs the materials, the processing and the supplier's margin:
        # in-house is cheaper while the shop has hours.
        buy_price = rounded((material + mhours * rng.uniform(2, 4) * scale) *
                            rng.uniform(1.15, 1.5, nS), 2)
        ahours = rounded(rng.uniform(0.5, 2.5, nE), 1)
        worst = buy_price @ sub + ahours * rng.uniform(1.5, 3) * scale
        price = rounded(worst * rng.uniform(1.15, 1.6, nE), 2)
        base = rng.uniform(20, 80, nE)
        season = _season(rng, nT, rng.uniform(0.4, 0.8))
        demand = np.maximum(3, rounded(base[:, None] * season[None, :] *
                                       rng.uniform(0.85, 1.15, (nE, nT)), 0))
        need_a = ahours @ demand
        # The line falls short of the full demand (sales are chosen), the shop can process
        # part of the intermediates (the rest bought), and raw materials are allotted.
        acap = np.ceil(need_a.mean() * rng.uniform(0.72, 0.9) * rng.uniform(0.95, 1.05, nT))
        subs = sub @ demand.mean(axis=1)
        mcap = np.ceil(float(mhours @ subs) * rng.uniform(0.4, 0.75) *
                       rng.uniform(0.95, 1.05, nT))
        # Allotments about what the shop's share of the work takes: some run short, steering
        # the shop to the intermediates that need other materials.
        share = float(mcap.mean()) / float(mhours @ subs)
        plimit = np.ceil(part @ subs * share * rng.uniform(0.8, 1.3, nC))
        b.param("demand", ("E", "T"), demand, "most {qty} of each {E} {buyers} will take in "
                "each {T}", "{qty}")
        b.param("price", ("E",), price, "selling price of each {E}", "{money} per {qty}")
        b.param("hold_cost", ("E",), rounded(price * rng.uniform(0.01, 0.03, nE), 2),
                "cost of holding one unit of each {E} for one {T}", "{money} per {qty}")
        b.param("initial", ("E",), rounded(rng.uniform(0, 0.2, nE) * base, 0),
                "{qty} of each {E} in stock at the start", "{qty}")
        b.param("ahours", ("E",), ahours, "{assembly} hours per unit of each {E}",
                "hours per {qty}")
        b.param("acap", ("T",), acap, "{assembly} hours available in each {T}", "hours")
        # A recipe is read product by product: its index runs over products first.
        b.param("sub_use", ("E", "S"), sub.T, "{qty} of each {S} in one unit of each {E}",
                "{qty} per {qty}")
        b.param("mhours", ("S",), mhours, "{shop} hours per unit of each {S} made in-house",
                "hours per {qty}")
        b.param("mcap", ("T",), mcap, "{shop} hours available in each {T}", "hours")
        b.param("buy_price", ("S",), buy_price, "price of each {S} bought ready-made",
                "{money} per {qty}")
        b.param("part_use", ("S", "C"), part.T, "{qty} of each {C} in one unit of each {S} "
                "made in-house", "{qty} per {qty}")
        b.param("part_price", ("C",), part_price, "price of each {C}", "{money} per {qty}")
        b.param("part_limit", ("C",), plimit, "most {qty} of each {C} delivered in a {T}",
                "{qty}")
        b.var("a", (("e", "E"), ("t", "T")), "{qty} of {E} e made in {T} t", unit="{qty}",
              role="quantity")
        b.var("q", (("e", "E"), ("t", "T")), "{qty} of {E} e sold in {T} t", unit="{qty}",
              role="quantity")
        b.var("s", (("e", "E"), ("t", "T")), "{qty} of {E} e in stock at the end of {T} t",
              unit="{qty}", role="inventory")
        b.var("m", (("j", "S"), ("t", "T")), "{qty} of {S} j made in-house in {T} t",
              unit="{qty}", role="quantity")
        b.var("b", (("j", "S"), ("t", "T")), "{qty} of {S} j bought ready-made in {T} t",
              unit="{qty}", role="quantity")
        b.var("z", (("c", "C"), ("t", "T")), "{qty} of {C} c bought in {T} t", unit="{qty}",
              role="quantity")
        b.con("first_stock", "In the first {T}, start stock plus output, less sales, is the "
              "stock of a {E}.", (("e", "E"), ("t", "T")),
              V("s", "e", "t") - V("a", "e", "t") + V("q", "e", "t"), "=", P("initial", "e"),
              where=(Cond("first", "t"),), role="balance")
        b.con("stock", "Stock carried in plus output, less sales, is the stock of a {E}.",
              (("e", "E"), ("t", "T")),
              V("s", "e", "t") - V("s", "e", Idx("t") - 1) - V("a", "e", "t") + V("q", "e", "t"),
              "=", 0.0, where=(Cond("not_first", "t"),), role="balance")
        b.con("sales_limit", "Sales of a {E} stay within what {buyers} will take.",
              (("e", "E"), ("t", "T")), V("q", "e", "t"), "<=", P("demand", "e", "t"),
              role="demand")
        b.con("sub_balance", "The {S} used in a {T} is made in-house or bought in that {T}.",
              (("j", "S"), ("t", "T")),
              V("m", "j", "t") + V("b", "j", "t") - total("e", "E", P("sub_use", "e", "j") *
                                                        V("a", "e", "t")), "=", 0.0,
              role="balance")
        b.con("part_balance", "The {C} bought in a {T} is what the {shop} uses then.",
              (("c", "C"), ("t", "T")),
              V("z", "c", "t") - total("j", "S", P("part_use", "j", "c") * V("m", "j", "t")),
              "=", 0.0, role="balance")
        b.con("part_supply", "Purchases of a {C} stay within its allotment.",
              (("c", "C"), ("t", "T")), V("z", "c", "t"), "<=", P("part_limit", "c"),
              role="capacity")
        b.con("shop_hours", "Work in the {shop} fits its hours in a {T}.", (("t", "T"),),
              total("j", "S", P("mhours", "j") * V("m", "j", "t")), "<=", P("mcap", "t"),
              role="capacity")
        b.con("assembly_hours", "Output fits the {assembly} hours in a {T}.", (("t", "T"),),
              total("e", "E", P("ahours", "e") * V("a", "e", "t")), "<=", P("acap", "t"),
              role="capacity")
        b.objective("max", total("t", "T", total("e", "E", P("price", "e") * V("q", "e", "t") -
                                                 P("hold_cost", "e") * V("s", "e", "t")) -
                                 total("j", "S", P("buy_price", "j") * V("b", "j", "t")) -
                                 total("c", "C", P("part_price", "c") * V("z", "c", "t"))),
                    "profit in {money}")

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every order sold in full: the capacities never chose what to sell."""
        if "demand" not in sm.param_map:
            return None
        sold = np.asarray(values["q"], dtype=float)
        demand = np.asarray(sm.param_map["demand"].values, dtype=float).reshape(-1)
        if sold.size and sold.size == demand.size and np.all(sold >= demand - 1e-6):
            return "every order is sold in full"
        return None
