"""Tellings of planning problems: production planning and lot sizing."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible

_OPENINGS = (
    "Our {org} makes {n_P} products{names_P} on one {line}, and we plan {n_T} {Ts} ahead.",
    "We have to plan production of {n_P} products over the next {n_T} {Ts}.",
    "As the {org}, I need a production plan for {n_T} {Ts}{names_T}.",
    "Demand for our {n_P} products changes from {T} to {T}, and the {line} has limited "
    "hours.",
)
_FACTS = {
    "demand": Fact(("Demand ({unit_demand}): {items}.", "Customers expect {items}."),
                   ("{e} {v}",), ("for {e}, {items}", "{e} in {items}"), label="demand"),
    "hours": Fact(("Each unit needs {items}.", "Time per unit: {items}."),
                  ("{e} {V}",), label="{time} per unit"),
    "capacity": Fact(("{time} available: {items}.", "The {line} is free for {items}."),
                     ("{e} {V}", "in {e} {V}"), label="{time} available"),
    "initial": Fact(("Stock today: {items}.", "We start with {items}."),
                    ("{e} {V}",), label="starting stock"),
    "make_cost": Fact(("Making one unit costs ({unit_make_cost}): {items}.",
                       "Unit production costs: {items}."),
                      ("{e} {v}",), ("for {e}, {items}", "{e}: {items}"), label="unit cost"),
    "hold_cost": Fact(("Holding a unit for one {T} costs {items}.",
                       "Storage cost per unit and {T}: {items}."),
                      ("{e} {V}",), label="holding cost"),
}
_RULES = (
    Rule(("capacity_limit",), ("In each {T}, production must fit the {line}'s hours.",
                               "We cannot use more {time} than are available in a {T}."),
         ("Production in a {T} fits its {time}.",)),
    Rule(("first_balance", "balance"), (
        "Demand must be met on time, from stock or from production; whatever is left over "
        "stays in stock for the next {T}.",
        "Each {T}, stock carried over plus what we make covers demand, and the rest is "
        "carried forward.",
        "No backorders: every {T}'s demand is served from stock or new output, and leftovers "
        "are stored."),
        # The rows' own meanings: a mutation that rewrites them is told from its new wording.
        ("In the first {T}, start stock plus output covers demand; the rest is stocked.",
         "Stock carried in plus output covers demand; the rest is stocked.")),
)

PRODUCTION = Telling(
    openings=_OPENINGS,
    context=("Making early saves nothing unless a later {T} is short of hours.",
             "Storage is not free."),
    facts=_FACTS,
    rules=(*_RULES, Rule((), ("Production and stock can be fractional.",),
                                 types={"x": "C", "s": "C"})),
    goals=("We want the lowest total of production and holding costs.",
           "Please minimise production plus storage costs."),
    objective="production and holding cost in {money}",
    asks=("How much of each product should we make in each {T}, and at what cost?",),
    presumes={"Making early saves nothing unless a later {T} is short of hours.":
              ("capacity_limit",)},
    report={"x": "{v} {qty} of {p} in {t}"},
)

LOT_SIZING = Telling(
    openings=_OPENINGS,
    context=("Before the {line} makes a product in a {T}, it has to be set up for it, and "
             "that costs money.",),
    facts={**_FACTS,
           "setup_cost": Fact(("Setting up for a product costs {items}.",
                               "Set-up costs: {items}."),
                              ("{e} {V}",), label="set-up cost")},
    rules=(*_RULES,
           Rule(("setup_link",), ("We can only make a product in a {T} if the {line} is set "
                                  "up for it in that {T}.",
                                  "No production without a set-up in the same {T}."),
                ("A {P} is made in a {T} only after a setup.",)),
           Rule((), ("A set-up either happens in a {T} or not.",)),
           divisible(("x", "s"), "Quantities made and stored need not be whole {qty}.",
                     "Production and stock can be fractional; whole {qty} are not required.",
                     "We may make and keep fractions of {qty}, not only whole ones.")),
    goals=("We want the lowest total cost, set-ups included.",
           "Please minimise production, storage and set-up costs together."),
    objective="production, holding and setup cost in {money}",
    asks=("In which {Ts} should we set up for each product, how much should we make, and "
          "what does it cost?",),
    report={"x": "{v} {qty} of {p} in {t}", "y": "set up for {p} in {t}"},
    settled=("y",),
)

TELLINGS = {"production_planning": PRODUCTION, "lot_sizing": LOT_SIZING}
