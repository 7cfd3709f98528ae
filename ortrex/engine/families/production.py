"""Multi-period production planning with inventory, and capacitated lot sizing with setups."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, Idx, P, V, total

VOCABS = (
    Vocabulary("manufacturing", "Factory planning",
               "A factory plans weekly output of {P}s over the coming {T}s on one assembly line.",
               {"P": ("product", "list:product"), "T": ("week", "week")},
               {"qty": "units", "money": "USD", "time": "machine hours", "org": "factory",
                "line": "assembly line"}),
    Vocabulary("agriculture", "Food processing",
               "A food processor schedules batches of {P}s over the {T}s of the season.",
               {"P": ("canned good", "list:canned_good"), "T": ("month", "month")},
               {"qty": "cases", "money": "EUR", "time": "line hours", "org": "cannery",
                "line": "canning line"}),
    Vocabulary("energy", "Biofuel production",
               "A biorefinery plans how much of each {P} to make in each {T}.",
               {"P": ("fuel grade", "list:fuel_grade"), "T": ("quarter", "quarter")},
               {"qty": "kilolitres", "money": "USD", "time": "reactor hours",
                "org": "biorefinery", "line": "reactor"}),
)


def _plan_data(b: Builder, rng: np.random.Generator) -> tuple[int, int]:
    """Demand, hours and a capacity under which a plan exists (every prefix can be met)."""
    nP, nT = b.dims["P"], b.dims["T"]
    demand = rounded(rng.uniform(10, 80, (nP, nT)), 0)
    hours = rounded(rng.uniform(0.5, 3.0, nP), 1)
    initial = rounded(rng.uniform(0, 20, nP), 0)
    need = hours @ demand
    cap = np.ceil(need * rng.uniform(0.75, 1.3, nT))
    # Raise capacity until every prefix of periods can be produced in time.
    short = np.cumsum(need) - hours @ initial - np.cumsum(cap)
    for t in range(nT):
        if short[t] > 0:
            cap[t] += np.ceil(short[t]) + 1
            short = np.cumsum(need) - hours @ initial - np.cumsum(cap)
    b.param("demand", ("P", "T"), demand, "demand for each {P} in each {T}", "{qty}")
    b.param("hours", ("P",), hours, "{time} needed per unit of each {P}", "{time}")
    b.param("capacity", ("T",), cap, "{time} available in each {T}", "{time}")
    b.param("initial", ("P",), initial, "stock of each {P} at the start", "{qty}")
    b.param("make_cost", ("P", "T"), rounded(rng.uniform(5, 25, (nP, nT))),
            "cost of making one unit of each {P} in each {T}", "{money}")
    b.param("hold_cost", ("P",), rounded(rng.uniform(0.5, 3, nP)),
            "cost of holding one unit of each {P} for one {T}", "{money}")
    return nP, nT


def _balance(b: Builder) -> None:
    b.var("x", (("p", "P"), ("t", "T")), "{qty} of {P} p made in {T} t", unit="{qty}",
          role="quantity")
    b.var("s", (("p", "P"), ("t", "T")), "{qty} of {P} p in stock at the end of {T} t",
          unit="{qty}", role="inventory")
    b.con("capacity_limit", "Production in a {T} fits its {time}.", (("t", "T"),),
          total("p", "P", P("hours", "p") * V("x", "p", "t")), "<=", P("capacity", "t"),
          role="capacity")
    b.con("first_balance", "In the first {T}, start stock plus output covers demand; the rest "
          "is stocked.", (("p", "P"), ("t", "T")),
          V("s", "p", "t") - V("x", "p", "t"), "=", P("initial", "p") - P("demand", "p", "t"),
          where=(Cond("first", "t"),), role="balance")
    b.con("balance", "Stock carried in plus output covers demand; the rest is stocked.",
          (("p", "P"), ("t", "T")),
          V("s", "p", "t") - V("s", "p", Idx("t") - 1) - V("x", "p", "t"), "=",
          -P("demand", "p", "t"), where=(Cond("not_first", "t"),), role="balance")


@register
class ProductionPlanning(Family):
    """Multi-period production planning LP with inventory balance."""

    name = "production_planning"
    classes = ("planning/production",)
    problem_class = "LP"
    summary = "Plan production of {P}s over {T}s, trading making costs against holding stock."
    sizes = {"small": {"P": (2, 4), "T": (3, 5)}, "medium": {"P": (3, 8), "T": (6, 12)},
             "large": {"P": (10, 30), "T": (12, 30)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("P")
        b.set("T")
        _plan_data(b, rng)
        _balance(b)
        b.objective("min", total("p", "P", total("t", "T", P("make_cost", "p", "t") *
                                                 V("x", "p", "t") + P("hold_cost", "p") *
                                                 V("s", "p", "t"))),
                    "production and holding cost in {money}")


@register
class LotSizing(Family):
    """Capacitated lot sizing: a setup (binary) before any production, big-M linking."""

    name = "lot_sizing"
    classes = ("inventory/lot_sizing", "cost/fixed_charge")
    problem_class = "MILP"
    summary = "Decide in which {T}s to set up for each {P}, and how much to make."
    sizes = {"small": {"P": (2, 3), "T": (3, 4)}, "medium": {"P": (3, 5), "T": (5, 8)},
             "large": {"P": (3, 4), "T": (6, 8)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("P")
        b.set("T")
        nP, _ = _plan_data(b, rng)
        demand = b.params[0].values
        # Tight big-M: no more than everything still to be delivered from t on.
        remaining = np.cumsum(demand[:, ::-1], axis=1)[:, ::-1]
        b.param("big_m", ("P", "T"), remaining, "most {qty} of each {P} worth making in a {T}",
                "{qty}")
        b.derive("big_m", "[[sum(demand[p][t:]) for t in range(len(T))] "
                          "for p in range(len(P))]")
        b.param("setup_cost", ("P",), rounded(rng.uniform(50, 300, nP)),
                "cost of setting up for each {P}", "{money}")
        _balance(b)
        b.var("y", (("p", "P"), ("t", "T")), "1 if the line is set up for {P} p in {T} t",
              vtype="B", role="indicator")
        b.con("setup_link", "A {P} is made in a {T} only after a setup.",
              (("p", "P"), ("t", "T")), V("x", "p", "t") - P("big_m", "p", "t") *
              V("y", "p", "t"), "<=", 0.0, role="linking")
        b.objective("min", total("p", "P", total("t", "T", P("make_cost", "p", "t") *
                                                 V("x", "p", "t") + P("hold_cost", "p") *
                                                 V("s", "p", "t") + P("setup_cost", "p") *
                                                 V("y", "p", "t"))),
                    "production, holding and setup cost in {money}")
