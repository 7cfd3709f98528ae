"""Rostering and several objectives: a cyclic staff roster with days-off patterns, a production
plan judged by a weighted sum of objectives, and a plan judged by priorities (lexicographic).

A roster's patterns are the weekly working days of one person (five days on and two off, the
days off together; part-time patterns of four days): a pattern's rows are cyclic consecutive
ones, and with costs that charge weekend work its relaxation is fractional in most draws.
The lexicographic plan holds one objective, exactly lexicographic: the primary (a count of
orders served, a whole number) weighted by more than the secondary's whole range.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
from scipy.optimize import linprog

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total
from ortrex.ir.semantic import SemanticModel

WEEK = 7
WEEKEND = (5, 6)  # Sat and Sun in the weekday names (Mon first)
# What one order takes, by unit: least, most and the grain it is booked in.
_LOADS = {"hours": (3.0, 12.0, 0.5), "kg": (150.0, 900.0, 50.0), "minutes": (45.0, 180.0, 15.0),
          "node-hours": (4.0, 30.0, 2.0)}


def day_patterns(length: int, n_days: int = WEEK) -> np.ndarray:
    """Every cyclic rotation of ``length`` consecutive working days in a week (pattern x day,
    0/1): pattern ``k`` starts on day ``k``."""
    works = np.zeros((n_days, n_days))
    for k in range(n_days):
        works[k, (k + np.arange(length)) % n_days] = 1.0
    return works


# ------------------------------------------------------------------ nurse rostering
def _fractional_roster(charge: np.ndarray, works: np.ndarray, need: np.ndarray) -> bool:
    """Whether the relaxation of the named roster (each member of staff on at most one
    pattern, at ``charge`` (staff x pattern), every day's ``need`` covered) is fractional."""
    nS, nP = charge.shape
    a = np.vstack([np.kron(np.eye(nS), np.ones(nP)),  # one pattern each at most
                   -np.tile(works.T, nS)])  # cover: -sum works y <= -need
    res = linprog(charge.ravel(), A_ub=a, b_ub=np.concatenate([np.ones(nS), -need]),
                  bounds=(0.0, 1.0), method="highs")
    return res.status == 0 and bool(np.any(np.abs(res.x - np.round(res.x)) > 1e-6))


@register
class NurseRostering(Family):
    """Cyclic staff rostering with days-off patterns: how many staff work each weekly
    pattern on each shift (integer), every day's cover met; at the large band, named staff
    each given one pattern, with their requests for days off."""

    name = "nurse_rostering"
    classes = ("scheduling/rostering",)
    problem_class = "MILP"
    summary = "Roster {staff} on weekly {P}s so that every {D}'s minimum cover is met at the " \
              "least cost."
    # ``K``: shifts (counts per pattern and shift); ``S``: named staff (the large band, one
    # pattern each, with requests for days off). Measured over 60 draws a band: the relaxation
    # was fractional in 70-90% of the small and medium draws (weekend premiums make the LP
    # mix rotations by halves); the large band's cover is drawn again until it is.
    sizes = {"small": {"K": (2, 2)}, "medium": {"K": (3, 3)}, "large": {"S": (24, 40)}}
    vocabularies = (
        Vocabulary("healthcare", "Ward roster",
                   "A hospital ward rosters its nurses on weekly {P}s: working {D}s in a row, "
                   "the {D}s off together.",
                   {"D": ("day", "weekday"), "K": ("shift", "shift"),
                    "P": ("rota pattern", "code:Pattern"), "S": ("nurse", "person")},
                   {"staff": "nurses", "person": "nurse", "money": "EUR", "org": "ward",
                    "where": "on the ward"}),
        Vocabulary("retail", "Store rota",
                   "A supermarket rosters its shop assistants on weekly {P}s: working {D}s "
                   "in a row, the {D}s off together.",
                   {"D": ("day", "weekday"), "K": ("shift", "shift"),
                    "P": ("rota line", "code:Line"), "S": ("shop assistant", "person")},
                   {"staff": "shop assistants", "person": "shop assistant", "money": "EUR",
                    "org": "supermarket", "where": "in the store"}),
        Vocabulary("public_services", "Control room roster",
                   "An emergency call centre rosters its dispatchers on weekly {P}s: "
                   "working {D}s in a row, the {D}s off together.",
                   {"D": ("day", "weekday"), "K": ("watch", "shift"),
                    "P": ("duty pattern", "code:Duty"), "S": ("dispatcher", "person")},
                   {"staff": "dispatchers", "person": "dispatcher", "money": "USD",
                    "org": "emergency call centre", "where": "in the control room"}),
        Vocabulary("transport", "Depot rota",
                   "A bus company rosters its drivers on weekly {P}s: working {D}s in a row, "
                   "the {D}s off together.",
                   {"D": ("day", "weekday"), "K": ("shift", "shift"),
                    "P": ("rota line", "code:Rota"), "S": ("driver", "surname")},
                   {"staff": "drivers", "person": "driver", "money": "GBP",
                    "org": "bus depot", "where": "at the depot"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("D", WEEK)
        if "S" in b.dims:
            self._named(b, rng)
            return
        nK = b.dims["K"]
        full = day_patterns(5)
        # Part-time patterns (four days in a row) at the medium band.
        works = full if b.size == "small" else np.vstack([full, day_patterns(4)])
        nP = works.shape[0]
        b.set("P", nP)
        b.set("K", nK)
        pay = rng.uniform(90, 140) * np.array([1.0, 1.05, 1.15, 1.3][:nK])  # later shifts more
        weekend = works[:, list(WEEKEND)].sum(axis=1)
        premium = rng.uniform(0.3, 0.6)
        part = np.where(works.sum(axis=1) < 5, rng.uniform(1.05, 1.2), 1.0)  # agency rate
        cost = (works.sum(axis=1) + premium * weekend)[:, None] * part[:, None] * pay[None, :]
        cost = rounded(cost * rng.uniform(0.97, 1.03, (nP, nK)), 0)
        # A week's cover: busier on some days, fewer at the weekend, odd numbers everywhere
        # (an even, level need is met by whole rotations and rarely needs branching).
        base = rng.integers(4, 12, nK).astype(float)
        shape = rng.uniform(0.85, 1.15, WEEK)
        shape[list(WEEKEND)] *= rng.uniform(0.85, 1.1)
        need = np.maximum(1.0, np.round(base[None, :] * shape[:, None] +
                                        rng.integers(-1, 2, (WEEK, nK))))
        b.param("works", ("P", "D"), works, "1 if a {P} works on a {D}", "0/1", integer=True)
        b.param("need", ("D", "K"), need, "{staff} needed on each {D} in each {K}", "{staff}",
                integer=True)
        b.param("cost", ("P", "K"), cost, "weekly cost of one person on each {P} in each {K}",
                "{money}")
        b.var("x", (("p", "P"), ("k", "K")), "{staff} on {P} p in {K} k", vtype="I",
              unit="{staff}", role="quantity")
        b.con("cover", "Every {D} has enough {staff} in every {K}.", (("d", "D"), ("k", "K")),
              total("p", "P", P("works", "p", "d") * V("x", "p", "k")), ">=",
              P("need", "d", "k"), role="covering")
        b.objective("min", total("p", "P", total("k", "K", P("cost", "p", "k") *
                                                 V("x", "p", "k"))),
                    "weekly staffing cost in {money}")

    def _named(self, b: Builder, rng: np.random.Generator) -> None:
        """A pool of named staff, each rostered on one pattern (five days, or four at a
        higher day rate) or not at all this week, with their requests for days off.

        The part-time patterns are what keeps the search short: with five-day patterns only,
        the relaxation's fractional total of staff (the week's need over five) left a gap
        that Gurobi closed in some 10,000 nodes, 2-6 s a draw (HiGHS found the cut at the
        root); with both, 0.1 s typical and 2.5 s at most over 70 draws."""
        nS = b.dims["S"]
        works = np.vstack([day_patterns(5), day_patterns(4)])
        nP = works.shape[0]
        b.set("P", nP)
        b.set("S", nS)
        pay = rng.uniform(90, 140)
        weekend = works[:, list(WEEKEND)].sum(axis=1)
        part = np.where(works.sum(axis=1) < 5, rng.uniform(1.05, 1.2), 1.0)
        cost = rounded(pay * (works.sum(axis=1) + rng.uniform(0.3, 0.6) * weekend) * part *
                       rng.uniform(0.98, 1.02, nP), 0)
        # Every member of staff asks for one to three days off, weekends most often.
        odds = np.full(WEEK, 1.0)
        odds[list(WEEKEND)] = 2.5
        request = np.zeros((nS, WEEK))
        for s in range(nS):
            k = int(rng.choice([1, 2, 2, 3]))
            request[s, rng.choice(WEEK, size=k, replace=False, p=odds / odds.sum())] = 1.0
        refusal = float(rounded(pay * rng.uniform(0.4, 0.9), 0))
        # Cover that some plan meets: the cover of most of the pool on random patterns,
        # less a little (the rest of the pool need not be rostered: with a pool that must
        # all work the relaxation was integral in every draw), drawn again while the
        # relaxation is integral. (With three in four of the pool and fewer requests, the
        # staff free on every pattern's days were plenty, the requests decided nothing and
        # the relaxation gave the optimum in 12 of 30 draws, the triviality gate's
        # rejections.)
        charge = cost[None, :] + refusal * request @ works.T  # staff x pattern
        for _ in range(20):
            drawn = rng.integers(0, nP, int(np.ceil(nS * rng.uniform(0.85, 0.95))))
            need = np.maximum(1.0, works[drawn].sum(axis=0) - rng.integers(0, 3, WEEK))
            if _fractional_roster(charge, works, need):
                break
        b.param("works", ("P", "D"), works, "1 if a {P} works on a {D}", "0/1", integer=True)
        b.param("need", ("D",), need, "{staff} needed on each {D}", "{staff}", integer=True)
        b.param("cost", ("P",), cost, "weekly cost of one person on each {P}", "{money}")
        b.param("request", ("S", "D"), request, "1 if a {S} asked for a {D} off", "0/1",
                integer=True)
        b.param("refusal", (), refusal, "cost of each request for a day off that is refused",
                "{money}")
        b.var("y", (("s", "S"), ("p", "P")), "1 if {S} s works {P} p", vtype="B",
              role="assignment")
        b.con("one_pattern", "Every {S} works at most one {P}.", (("s", "S"),),
              total("p", "P", V("y", "s", "p")), "<=", 1.0, role="assignment")
        b.con("cover", "Every {D} has enough {staff}.", (("d", "D"),),
              total("s", "S", total("p", "P", P("works", "p", "d") * V("y", "s", "p"))),
              ">=", P("need", "d"), role="covering")
        refused = total("d", "D", P("refusal") * P("request", "s", "d") * P("works", "p", "d")
                        * V("y", "s", "p"))
        b.objective("min", total("s", "S", total("p", "P", P("cost", "p") * V("y", "s", "p")
                                                 + refused)),
                    "weekly staffing cost in {money}")


# ------------------------------------------------------------------ weighted objectives
def _relaxed_plan(hours: np.ndarray, value: np.ndarray, w_ot: float, demand: np.ndarray,
                  capacity: np.ndarray, max_ot: np.ndarray | None = None
                  ) -> tuple[np.ndarray, np.ndarray] | None:
    """The relaxation of the weighted plan (batches worth ``value`` points each, overtime at
    ``w_ot`` points an hour, at most ``max_ot``, machine x period; none: no limit): its
    batches (product x period) and overtime (machine x period). None where HiGHS finds no
    optimum."""
    nM, nP = hours.shape
    nT = demand.shape[1]
    # Columns: x[p, t] (p-major), then o[m, t] (m-major); a row per machine and period.
    a = np.zeros((nM * nT, nP * nT + nM * nT))
    for m in range(nM):
        for t in range(nT):
            a[m * nT + t, np.arange(nP) * nT + t] = hours[m]
            a[m * nT + t, nP * nT + m * nT + t] = -1.0
    c = np.concatenate([-np.repeat(value, nT), np.full(nM * nT, w_ot)])
    most = [None] * (nM * nT) if max_ot is None else [float(v) for v in max_ot.ravel()]
    bounds = [(0.0, float(d)) for d in demand.ravel()] + [(0.0, v) for v in most]
    res = linprog(c, A_ub=a, b_ub=capacity.ravel(), bounds=bounds, method="highs")
    if res.status != 0:
        return None
    return res.x[:nP * nT].reshape(nP, nT), res.x[nP * nT:].reshape(nM, nT)


def _settled_at_the_root(rng: np.random.Generator, hours: np.ndarray, value: np.ndarray,
                         w_ot: float, demand: np.ndarray, capacity: np.ndarray,
                         max_ot: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Regular hours and overtime limits that the relaxation's plan, rounded down, fills
    exactly, but for one machine in one period left a few hours looser: the relaxation is
    then fractional in that one place only, and the search settles it in a few nodes.

    Rounded down, the relaxation's plan keeps its dual prices optimal once every limit it
    filled is lowered to what the rounded plan uses (complementary slackness), so the
    relaxation of the lowered data is that whole plan. (With limits drawn independently the
    large band's relaxation was fractional in 20-30 machines and periods, each a knapsack of
    its own: the search multiplied their gaps, and 9 in 20 draws ran past 20 s in Gurobi at
    the 1e-9 gap verification proves.)"""
    got = _relaxed_plan(hours, value, w_ot, demand, capacity, max_ot)
    if got is None:
        return capacity, max_ot
    x, o = got
    used = hours @ x - o  # regular hours used, machine x period
    need = hours @ np.floor(x + 1e-7)  # what the rounded plan needs (hours are whole)
    full = used >= capacity - 1e-6
    capacity = np.where(full, np.minimum(capacity, need), capacity)
    extra = np.maximum(0.0, need - capacity)  # the rounded plan's overtime
    limited = o >= max_ot - 1e-6
    max_ot = np.where(limited, np.maximum(extra, 1.0), max_ot)
    # One machine and period a few hours looser, tried until the relaxation is fractional.
    spots = list(zip(*np.nonzero(full | limited), strict=True))
    for k in rng.permutation(len(spots)):
        m, t = spots[k]
        cap2, ot2 = capacity.copy(), max_ot.copy()
        if limited[m, t]:
            ot2[m, t] += float(rng.integers(1, 4))
        else:
            cap2[m, t] += float(rng.integers(1, 4))
        got = _relaxed_plan(hours, value, w_ot, demand, cap2, ot2)
        if got is not None and np.any(np.abs(got[0] - np.round(got[0])) > 1e-6):
            return cap2, ot2
    return capacity, max_ot


@register
class WeightedObjectives(Family):
    """A production plan judged by three objectives (profit, emissions, overtime) combined
    into one score with the weights the client gives them."""

    name = "weighted_objectives"
    classes = ("objective/multi_objective", "planning/production")
    problem_class = "MILP"
    summary = "Plan whole {P} batches per {T} within each {M}'s hours (overtime allowed), " \
              "for the best weighted score of profit, {emission} and overtime."
    sizes = {"small": {"P": (3, 4), "M": (2, 2), "T": (2, 3)},
             "medium": {"P": (5, 8), "M": (2, 4), "T": (3, 4)},
             "large": {"P": (14, 22), "M": (4, 6), "T": (8, 12)}}
    vocabularies = (
        Vocabulary("manufacturing", "Workshop plan",
                   "A workshop plans {P} batches per {T} on its {M}s, scoring a plan by "
                   "profit, {emission} and overtime.",
                   {"P": ("product", "list:product"), "M": ("machine", "list:machine_tool"),
                    "T": ("week", "week")},
                   {"money": "EUR", "batch": "batch", "batches": "batches",
                    "emission": "CO2 emissions", "em_unit": "kg CO2", "em_one": "kg CO2",
                    "org": "workshop", "make": "make", "made": "made", "sell": "sell"}),
        Vocabulary("food", "Bakery plan",
                   "A bakery plans {P} batches per {T} through its {M} stations, scoring a "
                   "plan by profit, {emission} and overtime.",
                   {"P": ("product", "list:bakery"), "M": ("station", "list:bakery_step"),
                    "T": ("day", "weekday")},
                   {"money": "EUR", "batch": "batch", "batches": "batches",
                    "emission": "CO2 emissions", "em_unit": "kg CO2", "em_one": "kg CO2",
                    "org": "bakery", "make": "bake", "made": "baked", "sell": "sell"}),
        Vocabulary("retail", "Furniture workshop",
                   "A furniture maker plans {P} lots per {T} through its {M} stations, "
                   "scoring a plan by profit, {emission} and overtime.",
                   {"P": ("furniture line", "list:furniture"), "M": ("station", "list:workstation"),
                    "T": ("month", "month")},
                   {"money": "USD", "batch": "lot", "batches": "lots",
                    "emission": "solvent emissions", "em_unit": "litres of solvent",
                    "em_one": "litre of solvent", "org": "furniture maker", "make": "build",
                    "made": "built", "sell": "sell"}),
        Vocabulary("energy", "Refinery campaign",
                   "A chemicals site plans {P} runs per {T} through its {M}s, scoring a plan "
                   "by profit, {emission} and overtime.",
                   {"P": ("product", "list:fuel_grade"), "M": ("unit", "list:plant_unit"),
                    "T": ("week", "week")},
                   {"money": "kUSD", "batch": "run", "batches": "runs",
                    "emission": "CO2 emissions", "em_unit": "tonnes of CO2",
                    "em_one": "tonne of CO2", "org": "chemicals site", "make": "schedule",
                    "made": "scheduled", "sell": "ship"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nP, nM, nT = b.dims["P"], b.dims["M"], b.dims["T"]
        b.set("P")
        b.set("M")
        b.set("T")
        big = b.vocab.words["money"] == "kUSD"
        # Each product visits one or two machines (a short routing: a dense hours matrix
        # made the large band a hard multi-knapsack, up to 100 s in HiGHS).
        hours = np.zeros((nM, nP))
        for p in range(nP):
            ms = rng.choice(nM, size=min(nM, int(rng.integers(1, 3))), replace=False)
            hours[ms, p] = np.round(rng.uniform(1, 6, len(ms)))  # whole hours
        margin = rounded(hours.sum(axis=0) * rng.uniform(40, 90, nP), 0)
        emis = rounded(rng.uniform(10, 80, nP), 0)
        if big:
            margin, emis = rounded(margin / 100, 1), rounded(emis / 40, 1)
        # Weights: a point a unit of profit; the others priced so that some batches are not
        # worth their emissions and overtime pays for the better batches only.
        w_profit = float(rng.choice([1.0, 1.0, 2.0]))
        ratio = np.median(margin / emis)
        w_emis = float(rounded(w_profit * ratio * rng.uniform(0.3, 0.7), 2))
        value = w_profit * margin - w_emis * emis  # points a batch scores on regular hours
        per_hour = value / hours.sum(axis=0)  # points per machine-hour a batch takes
        worth = value > 0
        # (In kUSD a batch's points are a hundredth: an overtime weight floored at a whole
        # point made overtime never worth it there.)
        w_ot = float(rounded(max(np.quantile(per_hour[worth] if worth.any() else per_hour,
                                             rng.uniform(0.1, 0.25)), 0.05 if big else 1.0),
                             2 if big else 1))
        demand = np.floor(rng.uniform(4, 16, (nP, nT)))
        # Regular hours cover a third to a half of the hours the batches worth making need.
        # The overtime allowed on a machine in a period is a share of what the plan would
        # take there with no limit (its relaxation, solved here), so the limits bind. (Sized
        # from the hours the batches worth overtime would take beyond capacity, over the
        # whole plan, they never did: those hours went to batches paid for on regular time,
        # and 4 of 5 small draws left every limit under half used, postcheck
        # slack_capacity.) Then both are trimmed to what the relaxation's plan, rounded
        # down, uses (see ``_settled_at_the_root``).
        need_hours = hours @ (demand * worth[:, None])
        capacity = np.maximum(1.0, np.ceil(need_hours * rng.uniform(0.35, 0.55, (nM, nT))))
        free = _relaxed_plan(hours, value, w_ot, demand, capacity)
        wanted = free[1] if free is not None else np.zeros((nM, nT))
        max_ot = np.maximum(1.0, np.floor(wanted * rng.uniform(0.35, 0.65, (nM, nT))))
        capacity, max_ot = _settled_at_the_root(rng, hours, value, w_ot, demand, capacity,
                                                max_ot)
        b.param("hours", ("M", "P"), hours, "hours on each {M} for one {batch} of each {P}",
                "hours", integer=True)
        b.param("margin", ("P",), margin, "profit of one {batch} of each {P}", "{money}")
        b.param("emis", ("P",), emis, "{emission} of one {batch} of each {P}", "{em_unit}")
        b.param("demand", ("P", "T"), demand, "most {batches} of each {P} we can {sell} in "
                "each {T}", "{batches}", integer=True)
        b.param("capacity", ("M", "T"), capacity, "regular hours of each {M} in each {T}",
                "hours", integer=True)
        b.param("max_ot", ("M", "T"), max_ot, "most overtime hours on each {M} in each {T}",
                "hours", integer=True)
        b.param("w_profit", (), w_profit, "score points per {money} of profit", "points")
        b.param("w_emis", (), w_emis, "score points lost per {em_one}", "points")
        b.param("w_ot", (), w_ot, "score points lost per overtime hour", "points")
        b.var("x", (("p", "P"), ("t", "T")), "{batches} of {P} p {made} in {T} t", vtype="I",
              ub=P("demand", "p", "t"), unit="{batches}", role="quantity")
        b.var("o", (("m", "M"), ("t", "T")), "overtime hours on {M} m in {T} t",
              unit="hours", role="quantity")
        b.con("machine_hours", "The hours used on each {M} in each {T} stay within its "
              "regular hours plus overtime.", (("m", "M"), ("t", "T")),
              total("p", "P", P("hours", "m", "p") * V("x", "p", "t")) - V("o", "m", "t"),
              "<=", P("capacity", "m", "t"), role="capacity")
        b.con("overtime_limit", "The overtime on each {M} in each {T} stays within its "
              "limit.", (("m", "M"), ("t", "T")), V("o", "m", "t"), "<=",
              P("max_ot", "m", "t"), role="capacity")
        profit = total("p", "P", total("t", "T", P("margin", "p") * V("x", "p", "t")))
        emitted = total("p", "P", total("t", "T", P("emis", "p") * V("x", "p", "t")))
        overtime = total("m", "M", total("t", "T", V("o", "m", "t")))
        b.objective("max", P("w_profit") * profit - P("w_emis") * emitted -
                    P("w_ot") * overtime, "weighted score in points")


# ------------------------------------------------------------------ lexicographic plan
@register
class LexicographicPlan(Family):
    """Priorities: first as many orders served as possible, then, among the plans that serve
    that many, the least cost. One objective, exactly lexicographic: the count weighted by
    more than the whole range the cost can take."""

    name = "lexicographic_plan"
    classes = ("objective/multi_objective",)
    problem_class = "BIP"
    summary = "Serve as many {O}s as possible on the {L}s within their capacity; among those " \
              "plans, the cheapest."
    sizes = {"small": {"O": (7, 9), "L": (2, 2)}, "medium": {"O": (13, 17), "L": (3, 4)},
             "large": {"O": (26, 32), "L": (6, 7)}}
    vocabularies = (
        Vocabulary("manufacturing", "Order intake",
                   "A plant fits as many {O}s as it can onto its {L}s, then makes them as "
                   "cheaply as possible.",
                   {"O": ("order", "code:Ord"), "L": ("production line", "code:Line")},
                   {"money": "EUR", "use": "hours", "cap_word": "hours available",
                    "org": "plant", "serve": "take on", "served": "taken on",
                    "on": "on"}),
        Vocabulary("logistics", "Truck loading",
                   "A carrier loads as many {O}s as it can onto its {L}s, then at the least "
                   "cost.",
                   {"O": ("shipment", "code:Shp"), "L": ("truck", "code:Truck")},
                   {"money": "USD", "use": "kg", "cap_word": "payload",
                    "org": "carrier", "serve": "carry", "served": "carried", "on": "on"}),
        Vocabulary("healthcare", "Theatre sessions",
                   "A hospital fits as many {O}s as it can into its {L}s, then at the least "
                   "cost.",
                   {"O": ("operation", "surname"), "L": ("theatre session", "code:Session")},
                   {"money": "EUR", "use": "minutes", "cap_word": "session minutes",
                    "org": "surgical unit", "serve": "schedule", "served": "scheduled",
                    "on": "in"}),
        Vocabulary("computing", "Batch window",
                   "A data team fits as many {O}s as it can onto its {L}s tonight, then at "
                   "the least cost.",
                   {"O": ("batch job", "list:service"), "L": ("cluster", "codename")},
                   {"money": "USD", "use": "node-hours", "cap_word": "node-hours tonight",
                    "org": "data team", "serve": "run", "served": "run", "on": "on"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every order is served: the first priority decides nothing."""
        cost = np.asarray(sm.param_map["cost"].values)
        x = np.asarray(values["x"]).reshape(cost.shape)
        if np.all(x.sum(axis=1) > 0.5):
            return "every order is served: the first priority decides nothing"
        return None

    @staticmethod
    def _fill(rng: np.random.Generator, nO: int, nL: int, low: float, high: float,
              grain: float) -> tuple[np.ndarray, np.ndarray]:
        """What each order takes, the same on any line (in the grain a planner books: a
        quarter hour, half an hour, 50 kg), and the lines' capacities.

        Room for a good share of the orders, never all: the ``keep`` smallest, shared out
        among the lines, fill them exactly. No plan serves one more (any keep + 1 orders
        take more than all the lines hold), and the relaxation knows it: its count is
        ``keep`` too, so the first priority is settled at the root and only the cost is
        searched. (The draft's capacities, a share of all the work with room to spare, left
        the relaxation a fraction of an order more, worth the whole weight: HiGHS took 207 s
        to prove the large band.) Every line holds any one order alone, drawn again until
        it does (the post-check refuses a choice no line could ever take)."""
        size, capacity = np.zeros(nO), np.zeros(nL)
        for _ in range(100):
            size = np.maximum(grain, np.round(rng.uniform(low, high, nO) / grain) * grain)
            keep = int(np.clip(round(nO * rng.uniform(0.6, 0.8)), 2, nO - 1))
            chosen = np.argsort(size, kind="stable")[:keep]
            for _ in range(50):
                line = rng.integers(0, nL, keep)
                capacity = np.bincount(line, weights=size[chosen], minlength=nL)
                if np.all(capacity >= size.max()):
                    return size, capacity
        raise AssertionError(f"lexicographic_plan: no {nL} lines hold every order alone")

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nO, nL = b.dims["O"], b.dims["L"]
        b.set("O")
        b.set("L")
        # Lines differ in rate; big orders cost more.
        low, high, grain = _LOADS[b.vocab.words["use"]]
        size, capacity = self._fill(rng, nO, nL, low, high, grain)
        rate = rng.uniform(0.7, 1.4, nL)
        cost = np.maximum(1.0, np.round(np.sqrt(size / grain)[:, None] * rate[None, :] *
                                        rng.uniform(3, 6) * rng.uniform(0.75, 1.25, (nO, nL))))
        # The weight of the first priority: more than any cost a plan can have (the sum of
        # each order's dearest cost), so one order more always wins over any saving.
        weight = float(cost.max(axis=1).sum() + 1)
        b.param("load", ("O",), size, "{use} each {O} takes, {on} any {L}", "{use}")
        b.param("cost", ("O", "L"), cost, "cost of each {O} {served} {on} each {L}",
                "{money}", integer=True)
        b.param("capacity", ("L",), capacity, "{cap_word} of each {L}", "{use}")
        b.param("weight", (), weight, "weight of one more {O} {served}, above any cost",
                "{money}", integer=True)
        b.derive("weight", "sum(max(row) for row in cost) + 1")
        b.var("x", (("o", "O"), ("l", "L")), "1 if {O} o is {served} {on} {L} l", vtype="B",
              role="assignment")
        b.con("at_most_once", "Every {O} is {served} {on} at most one {L}.", (("o", "O"),),
              total("l", "L", V("x", "o", "l")), "<=", 1.0, role="assignment")
        b.con("capacity_limit", "The {O}s {on} a {L} fit within its {cap_word}.",
              (("l", "L"),), total("o", "O", P("load", "o") * V("x", "o", "l")), "<=",
              P("capacity", "l"), role="capacity")
        served = total("o", "O", total("l", "L", V("x", "o", "l")))
        spent = total("o", "O", total("l", "L", P("cost", "o", "l") * V("x", "o", "l")))
        b.objective("max", P("weight") * served - spent, "priority score in {money}")
