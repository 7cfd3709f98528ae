"""Tellings of pairing and partitioning problems: generalized assignment, graph colouring,
weighted matching and crew pairing."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

GENERALIZED = Telling(
    openings=(
        "Our {org} has {n_T} {Ts}{names_T} to {give} to {n_A} {As}{names_A}.",
        "We must {give} each of {n_T} {Ts} to one of our {n_A} {As}, and none of them has "
        "unlimited {cap_word}.",
        "As the {org}, I have to decide which {A} takes each {T}; there are {n_T} {Ts} and "
        "{n_A} {As}.",
        "This week {n_T} {Ts}{names_T} have to be shared out among {n_A} {As}.",
    ),
    context=("What a {T} takes in {use} depends on which {A} takes it: some {As} are "
             "quicker than others, and the quicker ones tend to cost more.",
             "Each {A} has a fixed number of {cap_word}.",
             "Last time we shared the work out by hand and some {As} ended up overbooked."),
    facts={
        "use": Fact(("The {use} each {A} would need for each {T}: {items}.",
                     "How much each {T} takes, by {A} (in {use}): {items}.",
                     "Workload by {A} and {T} ({unit_use}): {items}."),
                    ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"),
                    label="workload"),
        "cost": Fact(("What each {T} costs when {did} by each {A} ({unit_cost}): {items}.",
                      "Costs by {A} and {T} ({unit_cost}): {items}.",
                      "The cost of each {A} doing each {T} ({unit_cost}): {items}."),
                     ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"), label="cost"),
        "capacity": Fact(("The {cap_word} each {A} has available: {items}.",
                          "{cap_word} available: {items}.",
                          "The {cap_word} of each {A}: {items}."),
                         ("{e} {V}", "{e} has {V}"), label="{cap_word} available"),
    },
    rules=(
        Rule(("each_task",), ("Every {T} goes to exactly one {A}; a {T} cannot be split or "
                              "left out.",
                              "Each {T} must be given whole to one {A}, and only one.",
                              "No {T} may be left unassigned or split between two {As}."),
             ("Every {T} goes to exactly one {A}.",)),
        Rule(("capacity_limit",), ("The {Ts} given to {a_A} must fit within the {cap_word} "
                                   "of that {A}.",
                                   "No {A} may be given more work than the {cap_word} "
                                   "of that {A} allow.",
                                   "Whatever {a_A} takes on has to fit in the {cap_word} "
                                   "of that {A}."),
             ("The {T}s of a {A} fit within its {cap_word}.",)),
    ),
    goals=("We want the lowest total cost.", "The aim is to keep the total cost as low as "
           "possible.", "Please find the cheapest way to share out the work."),
    objective="total cost in {money}",
    asks=("Which {A} should take each {T}, and what is the total cost?",
          "Who should do what, and what will it cost us in total?"),
    report={"x": "{a} takes {t}"},
    settled=("x",),
)

# Clauses, never noun phrases: a data file's key is described by a lead's noun phrase, and
# "the pairs that clash" is not what the first of each pair is.
_CLASHES = {
    "end_a": Fact(("These pairs {clash}: {items}.", "These {Es} we know of: {items}.",
                   "Here is every {E}: {items}."),
                  ("{e} between {v} and {at_end_b}", "{e} ({v} and {at_end_b})",
                   "{e} links {v} and {at_end_b}"),
                  label="first {V}"),
    "end_b": Fact((), label="second {V}"),
}

COLOURING = Telling(
    openings=(
        "Our {org} has to {put} {n_V} {Vs}{names_V}, and some of them {clash}.",
        "We need to give each of our {n_V} {Vs} {a_C}, but {Vs} that {clash} cannot share "
        "one.",
        "As the {org}, I must find {a_C} for every one of our {n_V} {Vs}.",
        "There are {n_V} {Vs} to place in {Cs}, and {n_E} pairs of them {clash}.",
    ),
    context=("Two {Vs} that {clash} cannot be in the same {C}: {why}.",
             "Every extra {C} we open up costs us."),
    facts=_CLASHES,
    rules=(
        Rule(("each_node",), ("Every {V} gets exactly one {C}.",
                              "Each {V} must be placed in exactly one {C}.",
                              "Every {V} is placed in exactly one {C}, never in two."),
             ("Every {V} gets exactly one {C}.",)),
        Rule(("no_clash",), ("Two {Vs} that {clash} can never be in the same {C}.",
                             "{Vs} that {clash} must go into different {Cs}.",
                             "No {C} may hold two {Vs} that {clash}."),
             ("The two {V}s of a {E} never share a {C}, and only a used {C} is given.",)),
        Rule((), ("We have {n_C} {Cs} at most ({list_C}).",
                  "No more than {n_C} {Cs} are available: {list_C}.",
                  "There are {n_C} {Cs} to choose from: {list_C}.")),
    ),
    goals=("We want to use as few {Cs} as possible.", "The fewer {Cs} we need, the better.",
           "Please use the smallest number of {Cs}."),
    objective="number of {C}s used",
    asks=("Which {C} should each {V} get, and how many {Cs} do we need?",
          "How few {Cs} can we get away with, and what goes where?"),
    report={"x": "{i} in {c}", "w": "use {c}"},
    settled=("x", "w"),
    devices=("in_order",),
)

MATCHING = Telling(
    openings=(
        "Our {org} has {n_V} {Vs}{names_V} and wants to arrange {deals} among them.",
        "We are arranging {deals} for {n_V} {Vs}; only some pairings are possible, {n_E} in "
        "all.",
        "As the {org}, I need to decide which of {n_E} {Es} to go ahead with among our {n_V} "
        "{Vs}.",
        "{n_V} {Vs}{names_V} are waiting to be paired up, and not everybody can pair with "
        "everybody.",
    ),
    context=("Each {E} has a {score} score of its own.",
             "A {V} that is not paired this round simply waits for the next."),
    facts={
        **_CLASHES,
        # Clauses, never noun phrases: a data file's key is described by a lead's noun
        # phrase, and "the teams" is not what the first member of each team is.
        "end_a": Fact(("Here are the {Es}: {items}.", "These pairings are possible: {items}.",
                       "We allow these pairings: {items}."),
                      ("{e} between {v} and {at_end_b}", "{e} ({v} with {at_end_b})",
                       "{e}, in which {v} would {pair_up} {at_end_b}"),
                      label="first {V}"),
        "score": Fact(("The {score} of each {E} ({unit_score}): {items}.",
                       "{score} by {E} ({unit_score}): {items}.",
                       "How good each {E} is ({unit_score}): {items}."),
                      ("{e} {v}", "{e} {V}"), label="{score}"),
    },
    rules=(
        Rule(("once",), ("No {V} may be in two chosen {Es}.",
                         "Each {V} can {join} at most one chosen {E}.",
                         "A {V} is paired at most once: two chosen {Es} never share a {V}."),
             ("No {V} is in two chosen {E}s.",)),
        Rule((), ("Each {E} either goes ahead or not; there is no halfway.",
                  "A {E} is chosen as a whole or not at all.")),
    ),
    goals=("We want the greatest total {score}.",
           "The aim is the highest total {score} over the chosen {Es}.",
           "Please get as much {score} as possible out of the pairings."),
    objective="total {score}",
    asks=("Which {Es} should we choose, and what total {score} do they give?",
          "Which pairings do you recommend, and how much {score} do they add up to?"),
    report={"x": "{e}"},
    settled=("x",),
)

CREW = Telling(
    openings=(
        "Our {org} has {n_F} {Fs}{names_F} to cover, all starting and ending at our {base}.",
        "Every one of our {n_F} {Fs} needs a {crew}, and we have drawn up {n_D} possible "
        "{Ds}.",
        "As the {org}, I must choose which {Ds} to staff so that each {F} is {worked} exactly "
        "once; {n_D} {Ds} are on the table.",
        "We have {n_D} candidate {Ds}, each a legal day of work made of a few {Fs}, and "
        "{n_F} {Fs} to cover.",
    ),
    context=("Each {D} is one {crew}'s working day: two to four {Fs} in a row, with a break "
             "at the {base} between them.",
             "The cost of a {D} already includes pay, waiting time between {Fs} and any "
             "long-day premium.",
             "Every {D} on the list is legal; we only need to pick the right ones."),
    facts={
        "covers": Fact(("Which {Fs} each {D} includes: {items}.",
                        "The {Ds} and their {Fs}: {items}.",
                        "Here is what each {D} covers: {items}."),
                       group=("{e} covers {items}", "{e}: {items}", "{e} has {items}"),
                       label="{Fs} included", members=0),
        "cost": Fact(("Costs ({unit_cost}): {items}.",
                      "What each {D} costs ({unit_cost}): {items}.",
                      "Staffing each {D} costs ({unit_cost}): {items}."),
                     ("{e} {v}", "{e} {V}"), label="cost"),
    },
    rules=(
        Rule(("each_task",), ("Every {F} must be {worked} by exactly one chosen {D}: never "
                              "left out and never by two {crew}s.",
                              "Each {F} belongs to exactly one of the {Ds} we pick.",
                              "No {F} may be left uncovered, and none may be covered more "
                              "than once."),
             ("Every {F} is {worked} by exactly one chosen {D}.",)),
        Rule((), ("A {D} is either staffed as it stands or not at all.",
                  "We staff a {D} as a whole or not at all; {Ds} cannot be cut or merged.")),
    ),
    goals=("We want the cheapest set of {Ds}.", "The aim is the lowest total cost.",
           "Please keep the total cost down as far as possible."),
    objective="total cost in {money}",
    asks=("Which {Ds} should we staff, and what will they cost in total?",
          "Which {Ds} do you recommend, and at what total cost?"),
    report={"y": "{d}"},
    settled=("y",),
)

TELLINGS = {"generalized_assignment": GENERALIZED, "graph_colouring": COLOURING,
            "weighted_matching": MATCHING, "crew_pairing": CREW}
