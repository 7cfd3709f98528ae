"""Tellings of covering problems: set cover and set packing."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

COVER = Telling(
    openings=(
        "Our {org} must make sure that each of {n_U} {Us} is covered, choosing among "
        "{n_S} candidate {Ss}{names_S}.",
        "We can pick from {n_S} {Ss}, and between them they should {cover} all {n_U} {Us}.",
        "As the {org}, I want every {U} covered at the lowest cost; {n_S} {Ss} are possible.",
        "There are {n_U} {Us}{names_U} to cover and {n_S} {Ss} that could do it.",
    ),
    context=("Most {Us} can be covered by more than one {S}.",
             "Some {Ss} cover a lot, but they are expensive."),
    facts={
        "covers": Fact(("Which {Us} each {S} can {cover}: {items}.",
                        "Coverage by {S}: {items}.", "Here is who covers what: {items}."),
                       group=("{e} covers {items}", "{e}: {items}",
                              "{e} can {cover} {items}"),
                       label="coverage", members=1),
        "cost": Fact(("Costs ({unit_cost}): {items}.", "Each {S} costs {items}.",
                      "Selecting {a_S} costs {items}."),
                     ("{e} {v}", "{e} {V}"), label="cost"),
    },
    rules=(
        Rule(("covered",), ("Every {U} must be covered by at least one chosen {S}.",
                            "No {U} may be left uncovered.",
                            "Each {U} needs at least one selected {S} that covers it."),
             ("Every {U} is covered by a chosen {S}.",)),
        Rule((), ("{a_S} is either selected or not.", "Each {S} is a yes-or-no choice.")),
    ),
    goals=("We want to spend as little as possible.", "The aim is the cheapest selection.",
           "Please keep the total cost to a minimum."),
    objective="total cost in {money}",
    asks=("Which {Ss} should we choose, and what will it cost?",
          "What is the cheapest selection, and which {Ss} are in it?"),
    report={"y": "{s}"},
    settled=("y",),
)

PACKING = Telling(
    openings=(
        "Our {org} is choosing among {n_S} {Ss}{names_S}, but some of them compete for the "
        "same {Us}.",
        "We can run several of {n_S} {Ss}, as long as no two chosen ones {use} the same {U}.",
        "There are {n_S} candidate {Ss}; each would {use} some of our {n_U} {Us}.",
    ),
    context=("Each {U} can go to one {S} at most.",),
    facts={
        "uses": Fact(("Each {S} would {use} these {Us}: {items}.",
                      "The {Us} each {S} needs: {items}."),
                     group=("{e} needs {items}", "{e}: {items}"),
                     label="{U}s used", members=1),
        "benefit": Fact(("What each {S} is worth ({unit_benefit}): {items}.",
                         "{benefit} by {S}: {items}."),
                        ("{e} {v}",), label="{benefit}"),
    },
    rules=(
        Rule(("conflict",), ("No {U} may be used by two chosen {Ss}.",
                             "Two selected {Ss} can never share {a_U}.",
                             "Each {U} serves at most one of the chosen {Ss}."),
             ("No {U} is used by two chosen {S}s.",)),
        Rule((), ("Each {S} is either chosen or not.",)),
    ),
    goals=("We want the largest total {benefit}.", "The aim is to maximise the {benefit}.",
           "Please get the most {benefit} out of the selection."),
    objective="total {benefit}",
    asks=("Which {Ss} should we choose, and what is the total {benefit}?",),
    report={"y": "{s}"},
    settled=("y",),
)

TELLINGS = {"set_cover": COVER, "set_packing": PACKING}
