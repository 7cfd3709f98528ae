"""Tellings of routing problems: the travelling salesman tour."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

TSP = Telling(
    openings=(
        "Our {vehicle} starts at {first_N}, has to call at every other {N} once and come "
        "back.",
        "We run a {org}: every day the {vehicle} leaves {first_N}, visits {n_N} {Ns} in "
        "all{names_N} and returns.",
        "I need the best order for a round of {n_N} {Ns}, starting and ending at {first_N}.",
        "As the {org}, we want the shortest round trip through {n_N} {Ns}.",
    ),
    context=("Travel between two {Ns} takes the same either way.",),
    facts={
        "dist": Fact(("Travel between {Ns} ({unit_dist}): {items}.",
                      "Distances ({unit_dist}): {items}."),
                     ("{e} {v}", "to {e} {v}"), ("from {e}: {items}", "leaving {e}: {items}"),
                     label="travel"),
        "n_nodes": Fact((), label="number of {N}s"),
    },
    rules=(
        Rule(("leave_once", "enter_once"), (
            "Every {N} is visited exactly once: arrived at once and left once.",
            "The {vehicle} calls at each {N} exactly one time.")),
        Rule(("no_subtour",), ("It has to be one single round trip from {first_N}, not "
                               "several separate loops.",
                               "The round must be one closed tour through all {Ns}, without "
                               "breaking into smaller circuits.")),
    ),
    goals=("We want the shortest round trip.", "Please minimise the total travel.",
           "The aim is the least {measure} in total."),
    objective="total tour {measure} in {length}",
    asks=("In what order should the {Ns} be visited, and how long is the round?",),
    report={"x": "{i} to {j}"},
    settled=("x",),
    auxiliaries=("u",),
)

TELLINGS = {"tsp_mtz": TSP}
