"""Decisions under uncertainty: two-stage capacity planning over demand scenarios (the
extensive form), a product mix protected against uncertain resource use with a
Bertsimas-Sim budget of uncertainty, and safety stocks under a service rule over demand
scenarios (a chance constraint with a yes/no "covered" per item and scenario)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.ir.expr import P, V, total
from ortrex.ir.semantic import SemanticModel


def scenario_weights(rng: np.random.Generator, n: int) -> np.ndarray:
    """Probabilities of ``n`` scenarios in steps of 0.05, each at least 0.05, summing to 1
    exactly (as a planner would write them)."""
    steps = 20 - n  # twenty twentieths, one of them given to each scenario first
    extra = rng.multinomial(steps, rng.dirichlet(np.full(n, 2.0)))
    return (1 + extra) / 20.0


# ------------------------------------------------------------------ two-stage capacity
@register
class TwoStageCapacity(Family):
    """Two-stage capacity planning: whole capacity modules now at every site; per demand
    scenario, what each site makes for each customer and what demand goes unmet at a
    penalty; the module cost plus the expected recourse cost is least (the extensive
    form)."""

    name = "two_stage_capacity"
    classes = ("uncertain/two_stage", "planning/production")
    problem_class = "MILP"
    summary = "Choose how many {modules} to install at each {P} before demand is known, then " \
              "in each {S} serve the {C}s from them or leave demand unmet at a penalty, at " \
              "least {module} cost plus expected operating cost."
    sizes = {"small": {"P": (2, 3), "C": (3, 4), "S": (3, 4)},
             "medium": {"P": (3, 4), "C": (4, 7), "S": (4, 5)},
             "large": {"P": (5, 7), "C": (8, 14), "S": (5, 6)}}
    vocabularies = (
        Vocabulary("manufacturing", "Launch capacity",
                   "A maker decides how many {modules} to install at each {P} before it "
                   "knows how well a new product will sell in each {C}.",
                   {"P": ("plant", "town"), "C": ("region", "town"),
                    "S": ("demand scenario", "codename")},
                   {"org": "appliance maker", "module": "assembly line",
                    "modules": "assembly lines", "qty": "units", "money": "USD",
                    "make": "make and ship", "unmet": "lost sales",
                    "season": "launch year", "lost": "lost"}),
        Vocabulary("energy", "Winter generation",
                   "A utility decides how many {modules} to install at each {P} before it "
                   "knows how cold the winter will be in each {C}.",
                   {"P": ("power site", "town"), "C": ("load zone", "town"),
                    "S": ("weather scenario", "codename")},
                   {"org": "regional utility", "module": "gas turbine",
                    "modules": "gas turbines", "qty": "MWh", "money": "EUR",
                    "make": "generate and deliver", "unmet": "unserved energy",
                    "season": "winter", "lost": "not served"}),
        Vocabulary("computing", "Data-centre racks",
                   "A cloud provider decides how many {modules} to install at each {P} "
                   "before it knows how much traffic each {C} will send.",
                   {"P": ("data centre", "town"), "C": ("client region", "town"),
                    "S": ("traffic scenario", "codename")},
                   {"org": "cloud provider", "module": "server rack",
                    "modules": "server racks", "qty": "million requests", "money": "USD",
                    "make": "serve", "unmet": "turned-away requests",
                    "season": "coming quarter", "lost": "turned away"}),
        Vocabulary("logistics", "Seasonal warehouse bays",
                   "A distributor decides how many {modules} to rent at each {P} before it "
                   "knows the season's orders from each {C}.",
                   {"P": ("warehouse", "town"), "C": ("store", "town"),
                    "S": ("order scenario", "codename")},
                   {"org": "distributor", "module": "handling bay",
                    "modules": "handling bays", "qty": "pallets", "money": "EUR",
                    "make": "handle and deliver", "unmet": "unfilled orders",
                    "season": "peak season", "lost": "left unfilled"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Nothing is built, or what is built serves every scenario in full (the plan
        ignores the uncertainty: it is sized for the worst case)."""
        if not np.any(np.asarray(values["y"]) > 0.5):
            return "no capacity is installed: every scenario goes unserved"
        if np.all(np.asarray(values["u"]) <= 1e-6):
            return "the capacity serves every scenario in full: the worst case decides"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nP, nC, nS = b.dims["P"], b.dims["C"], b.dims["S"]
        b.set("P")
        b.set("C")
        b.set("S")
        prob = scenario_weights(rng, nS)
        # Scenario levels from a slump to a boom, each customer's demand around its base at
        # that level (with noise of its own: regions move together, but not in lockstep).
        levels = np.sort(rng.uniform(0.55, 1.5, nS))[rng.permutation(nS)]
        base = rng.uniform(20, 90, nC)
        demand = np.maximum(4, np.round(base[:, None] * levels[None, :] *
                                        rng.uniform(0.85, 1.15, (nC, nS))))
        peak = float(demand.sum(axis=0).max())
        size = np.round(rng.uniform(0.12, 0.3, nP) * peak / nP * 2 / 5) * 5
        size = np.maximum(size, 10.0)
        # Enough modules everywhere to serve the peak scenario with room to spare.
        most = np.ceil(peak * rng.uniform(0.5, 0.8, nP) / size)
        while float(most @ size) < 1.2 * peak:
            most += 1
        # Sites and customers on a map: delivering from a far site costs more.
        sites, points = rng.uniform(0, 100, (nP, 2)), rng.uniform(0, 100, (nC, 2))
        dist = np.linalg.norm(sites[:, None, :] - points[None, :, :], axis=2)
        make = rng.uniform(2, 6, nP)
        ship = rounded(make[:, None] + dist * rng.uniform(0.03, 0.08) *
                       rng.uniform(0.9, 1.1, (nP, nC)), 2)
        penalty = rounded(rng.uniform(2.5, 4.5, nC) * ship.mean(), 1)
        # A module costs, per unit of capacity, a share of the penalty: enough to leave the
        # rare high scenarios partly unmet, little enough to build for the common ones.
        per_unit = penalty.mean() * rng.uniform(0.25, 0.5, nP)
        module_cost = rounded(per_unit * size, -1)
        b.param("prob", ("S",), prob, "probability of each {S}", "")
        b.param("demand", ("C", "S"), demand, "demand of each {C} in each {S}", "{qty}",
                integer=True)
        b.param("size", ("P",), size, "capacity of one {module} at each {P}", "{qty}",
                integer=True)
        b.param("most", ("P",), most, "most {modules} that fit at each {P}", "{modules}",
                integer=True)
        b.param("module_cost", ("P",), module_cost, "cost of one {module} at each {P}",
                "{money}")
        b.param("ship_cost", ("P", "C"), ship, "cost to {make} one unit from each {P} to "
                "each {C}", "{money} per {qty}")
        b.param("penalty", ("C",), penalty, "penalty per unit of {unmet} in each {C}",
                "{money} per {qty}")
        b.var("y", (("p", "P"),), "{modules} installed at {P} p", vtype="I",
              ub=P("most", "p"), unit="{modules}", role="quantity")
        b.var("x", (("p", "P"), ("c", "C"), ("s", "S")),
              "{qty} from {P} p to {C} c in {S} s", unit="{qty}", role="quantity")
        b.var("u", (("c", "C"), ("s", "S")), "{qty} of {unmet} in {C} c in {S} s",
              unit="{qty}", role="quantity")
        b.con("capacity_limit", "In every {S}, a {P} delivers no more than its {modules} "
              "can handle.", (("p", "P"), ("s", "S")),
              total("c", "C", V("x", "p", "c", "s")) - P("size", "p") * V("y", "p"), "<=",
              0.0, role="capacity")
        b.con("demand_met", "In every {S}, each {C}'s demand is delivered or counted as "
              "{unmet}.", (("c", "C"), ("s", "S")),
              total("p", "P", V("x", "p", "c", "s")) + V("u", "c", "s"), ">=",
              P("demand", "c", "s"), role="demand")
        recourse = total("p", "P", total("c", "C", P("ship_cost", "p", "c") *
                                         V("x", "p", "c", "s"))) + \
            total("c", "C", P("penalty", "c") * V("u", "c", "s"))
        b.objective("min", total("p", "P", P("module_cost", "p") * V("y", "p")) +
                    total("s", "S", P("prob", "s") * recourse),
                    "{module} cost plus expected delivery and penalty cost in {money}")


# ------------------------------------------------------------------ robust product mix
@register
class RobustMix(Family):
    """A product mix whose resource use is uncertain, each use within a deviation of its
    nominal value, protected with a Bertsimas-Sim budget: on each resource, the plan fits
    whichever of at most Gamma uses run over at once (the robust counterpart with its dual
    variables z and w)."""

    name = "robust_mix"
    classes = ("uncertain/robust", "planning/production")
    problem_class = "MILP"
    summary = "Choose whole numbers of {J}s to {make} for the most {gain}, so that the plan " \
              "still fits every {R} when up to the agreed number of {uses} run over at once."
    sizes = {"small": {"J": (3, 4), "R": (2, 3)}, "medium": {"J": (6, 9), "R": (3, 4)},
             "large": {"J": (30, 34), "R": (4, 5)}}
    vocabularies = (
        Vocabulary("manufacturing", "Machine shop mix",
                   "A machine shop chooses how many {J}s to make; their times on each {R} "
                   "are uncertain.",
                   {"J": ("product", "list:product"), "R": ("machine", "list:machine_tool")},
                   {"org": "machine shop", "make": "make", "made": "made", "qty": "units",
                    "money": "USD", "time": "machine hours", "gain": "profit",
                    "uses": "machining times", "use": "machining time",
                    "market": "customers take", "week": "week"}),
        Vocabulary("retail", "Furniture workshop",
                   "A furniture workshop chooses how many {J}s to build; the time they take "
                   "at each {R} varies.",
                   {"J": ("furniture item", "list:furniture"),
                    "R": ("workstation", "list:workstation")},
                   {"org": "furniture workshop", "make": "build", "made": "built",
                    "qty": "pieces", "money": "EUR", "time": "hours", "gain": "profit",
                    "uses": "working times", "use": "working time",
                    "market": "our shops can sell", "week": "month"}),
        Vocabulary("hospitality", "Banquet menu",
                   "A caterer chooses how many portions of each {J} to prepare; the time "
                   "they take at each {R} varies.",
                   {"J": ("dish", "list:dish"), "R": ("kitchen station", "list:kitchen_station")},
                   {"org": "catering kitchen", "make": "prepare", "made": "prepared",
                    "qty": "portions", "money": "EUR", "time": "minutes", "gain": "margin",
                    "uses": "preparation times", "use": "preparation time",
                    "market": "the client has ordered", "week": "banquet"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Everything the market takes is made: no resource decides anything."""
        market = np.asarray(sm.param_map["market"].values)
        return "every product is made up to its market" if all_at(values["x"], market) \
            else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nJ, nR = b.dims["J"], b.dims["R"]
        b.set("J")
        b.set("R")
        minutes = b.vocab.words["time"] == "minutes"
        scale = 6.0 if minutes else 1.0
        # Nominal uses (some products never pass some resources), deviations 10-40% of them.
        use = rounded(rng.uniform(0.3, 4.0, (nR, nJ)) * scale, 0 if minutes else 1)
        use[rng.uniform(size=(nR, nJ)) < 0.2] = 0.0
        for j in np.flatnonzero(use.sum(axis=0) == 0):
            use[int(rng.integers(nR)), j] = round(2.0 * scale, 1)
        dev = rounded(use * rng.uniform(0.1, 0.4, (nR, nJ)), 0 if minutes else 1)
        dev = np.where(use > 0, np.maximum(dev, 1.0 if minutes else 0.1), 0.0)
        market = np.round(rng.uniform(8, 40, nJ))
        # Profit about in proportion to the work a product takes, so no product is the
        # obvious choice.
        work = (use / use.sum(axis=1, keepdims=True)).sum(axis=0)
        profit = np.maximum(5.0, np.round((work / work.mean() * rng.uniform(0.4, 1.4, nJ) +
                                            rng.uniform(0.2, 0.6, nJ)) *
                                           rng.uniform(20, 40) / 5) * 5)
        # Capacity: 40-70% of what the whole market would need nominally.
        capacity = np.ceil(use @ market * rng.uniform(0.4, 0.7, nR))
        gamma = rng.integers(1, max(1, min(3, nJ - 1)) + 1, nR).astype(float)
        b.param("profit", ("J",), profit, "{gain} per unit of each {J}", "{money} per {qty}")
        b.param("market", ("J",), market, "most {qty} of each {J} that {market}", "{qty}",
                integer=True)
        b.param("use", ("R", "J"), use, "nominal {use} on each {R} per unit of each {J}",
                "{time} per {qty}")
        b.param("dev", ("R", "J"), dev, "most the {use} on each {R} per unit of each {J} can "
                "run over", "{time} per {qty}")
        b.param("capacity", ("R",), capacity, "{time} available on each {R}", "{time}")
        b.param("gamma", ("R",), gamma, "most {uses} on each {R} that run over at once",
                "{J}s", integer=True)
        b.var("x", (("j", "J"),), "{qty} of {J} j {made}", vtype="I", ub=P("market", "j"),
              unit="{qty}", role="quantity")
        b.var("z", (("r", "R"),), "price of protection on {R} r", unit="{time} per {J}",
              role="auxiliary")
        b.var("w", (("r", "R"), ("j", "J")), "protection for {J} j on {R} r",
              unit="{time}", role="auxiliary")
        b.con("robust_capacity", "On every {R}, the nominal {time} plus the protection "
              "against overruns fit the {time} available.", (("r", "R"),),
              total("j", "J", P("use", "r", "j") * V("x", "j")) +
              P("gamma", "r") * V("z", "r") + total("j", "J", V("w", "r", "j")), "<=",
              P("capacity", "r"), role="capacity")
        b.con("protection", "The protection of a {J} on a {R} covers its overrun beyond "
              "the price of protection.", (("r", "R"), ("j", "J")),
              V("z", "r") + V("w", "r", "j") - P("dev", "r", "j") * V("x", "j"), ">=", 0.0,
              role="definition")
        b.objective("max", total("j", "J", P("profit", "j") * V("x", "j")),
                    "total {gain} in {money}")


# ------------------------------------------------------------------ safety stock
@register
class SafetyStock(Family):
    """Stock levels chosen before demand is known, judged over equally likely demand
    scenarios (past periods): sales are the lesser of stock and demand, each item must cover
    its demand in at least the agreed number of scenarios (a chance constraint: a yes/no
    "covered" per item and scenario, ``demand * covered <= stock``), and the items share a
    space limit; the expected margin is greatest."""

    name = "safety_stock"
    classes = ("inventory/safety_stock", "uncertain/two_stage")
    problem_class = "MILP"
    summary = "Choose how much of each {I} to stock before demand is known so that each {I} " \
              "covers demand in at least the agreed number of {S}s, within the {space}, for " \
              "the greatest expected margin."
    sizes = {"small": {"I": (3, 4), "S": (5, 6)}, "medium": {"I": (5, 7), "S": (8, 10)},
             "large": {"I": (9, 12), "S": (18, 24)}}
    vocabularies = (
        Vocabulary("retail", "Season stock",
                   "A shop stocks {I}s for the coming week and judges each level against "
                   "the demand of comparable {S}s.",
                   {"I": ("product line", "list:gadget"), "S": ("past week", "week")},
                   {"org": "electronics shop", "qty": "units", "money": "USD",
                    "space": "shelf space", "room": "shelf metres",
                    "period": "week", "buy": "stock", "stocked": "stocked"}),
        Vocabulary("healthcare", "Pharmacy buffer",
                   "A hospital pharmacy stocks {I}s for the coming month and judges each "
                   "level against the use in comparable {S}s.",
                   {"I": ("medicine", "list:api"), "S": ("past month", "month")},
                   {"org": "hospital pharmacy", "qty": "packs", "money": "EUR",
                    "space": "cold-store space", "room": "shelf slots",
                    "period": "month", "buy": "order", "stocked": "ordered"}),
        Vocabulary("food", "Bakery dough",
                   "A bakery prepares dough for {I}s the evening before and judges each "
                   "amount against the sales of comparable {S}s.",
                   {"I": ("bread", "list:bakery"), "S": ("past day", "weekday")},
                   {"org": "bakery", "qty": "batches", "money": "EUR",
                    "space": "proving-room space", "room": "rack places",
                    "period": "day", "buy": "prepare", "stocked": "prepared"}),
        Vocabulary("manufacturing", "Spare parts",
                   "A maintenance depot stocks {I}s for the coming quarter and judges each "
                   "level against the demand of comparable {S}s.",
                   {"I": ("spare part", "list:product"), "S": ("past quarter", "quarter")},
                   {"org": "maintenance depot", "qty": "parts", "money": "USD",
                    "space": "store space", "room": "bin places",
                    "period": "quarter", "buy": "order", "stocked": "ordered"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every item covers every scenario: the service rule decides nothing."""
        demand = np.asarray(sm.param_map["demand"].values)
        stock = np.asarray(values["stock"])
        if np.all(stock >= demand.max(axis=1) - 1e-6):
            return "every item covers its highest demand: the service rule decides nothing"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nI, nS = b.dims["I"], b.dims["S"]
        b.set("I")
        b.set("S")
        # Demand per item and past period: a level of the period shared by all items, an
        # item's own base and noise.
        base = rng.uniform(15, 80, nI)
        level = rng.uniform(0.7, 1.3, nS)
        demand = np.maximum(1, np.round(base[:, None] * level[None, :] *
                                        rng.lognormal(0, 0.25, (nI, nS))))
        price = rounded(rng.uniform(8, 60, nI), 2)
        # Margins: some items worth stocking generously, others not.
        share = rng.uniform(0.15, 0.55, nI)
        need = np.clip(np.round(nS * rng.uniform(0.55, 0.85, nI)), 1, nS - 1)
        space = rounded(rng.uniform(0.2, 1.5, nI), 1)
        srt = np.sort(demand, axis=1)
        floor = srt[np.arange(nI), need.astype(int) - 1]  # least stock meeting the rule

        def unlimited(cost: np.ndarray) -> np.ndarray:
            """Each item's best stock under the rule alone (no space limit): a level of
            its own demand, expected sales being concave in the stock."""
            out = np.zeros(nI)
            for i in range(nI):
                levels = srt[i, int(need[i]) - 1:]
                value = [price[i] * np.minimum(q, demand[i]).mean() - cost[i] * q
                         for q in levels]
                out[i] = levels[int(np.argmax(value))]
            return out

        cost = rounded(price * share, 2)
        best = unlimited(cost)
        # The margin must want more room than the rule needs, else the space decides
        # nothing: cheapen the items one by one until it does.
        for i in rng.permutation(nI):
            if float(space @ best) >= float(space @ floor) * 1.12:
                break
            cost[i] = rounded(price[i] * rng.uniform(0.1, 0.2), 2)
            best = unlimited(cost)
        lo, hi = float(space @ floor), float(space @ best)
        limit = float(np.floor(lo + (hi - lo) * rng.uniform(0.35, 0.7)))
        limit = max(limit, float(np.ceil(lo)))
        b.param("demand", ("I", "S"), demand, "demand for each {I} in each {S}", "{qty}",
                integer=True)
        b.param("price", ("I",), price, "selling price of each {I}", "{money} per {qty}")
        b.param("cost", ("I",), cost, "cost of each {I} {stocked}", "{money} per {qty}")
        b.param("need", ("I",), need, "least number of {S}s whose demand each {I}'s stock "
                "must cover", "{S}s", integer=True)
        b.param("space", ("I",), space, "{space} one unit of each {I} takes", "{room} per "
                "{qty}")
        b.param("limit", (), limit, "{space} available", "{room}")
        b.param("weight", (), 1.0 / nS, "weight of each {S} in the expected margin", "")
        b.derive("weight", "1 / len(S)")
        b.var("stock", (("i", "I"),), "{qty} of {I} i {stocked}", vtype="I", unit="{qty}",
              role="quantity")
        b.var("sales", (("i", "I"), ("s", "S")), "{qty} of {I} i sold if demand is as in "
              "{S} s", ub=P("demand", "i", "s"), unit="{qty}", role="quantity")
        b.var("covered", (("i", "I"), ("s", "S")), "1 if the stock of {I} i covers the "
              "demand of {S} s", vtype="B", role="indicator")
        b.con("sell_from_stock", "No more of a {I} is sold than is in stock.",
              (("i", "I"), ("s", "S")), V("sales", "i", "s") - V("stock", "i"), "<=", 0.0,
              role="linking")
        b.con("covered_only", "A {S} counts as covered for a {I} only if its stock meets "
              "that demand.", (("i", "I"), ("s", "S")),
              P("demand", "i", "s") * V("covered", "i", "s") - V("stock", "i"), "<=", 0.0,
              role="linking")
        b.con("service", "Each {I}'s stock covers the demand of at least the agreed number "
              "of {S}s.", (("i", "I"),), total("s", "S", V("covered", "i", "s")), ">=",
              P("need", "i"), role="target")
        b.con("space_limit", "The stock fits the {space}.", (),
              total("i", "I", P("space", "i") * V("stock", "i")), "<=", P("limit"),
              role="capacity")
        b.objective("max", total("i", "I", total("s", "S", P("weight") * P("price", "i") *
                                                 V("sales", "i", "s")) -
                                 P("cost", "i") * V("stock", "i")),
                    "expected margin in {money}")
