"""Tellings of siting problems: p-median, p-centre, maximal covering, network design."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible

_N_OPEN = Fact(("How many {Fs} we will open: {v}.", "We have the means for {V}.",
                "The number of {Fs} to open is {v}."),
               label="number of {Fs} to open")

_OPEN_COUNT = Rule(("open_count",), (
    "We open exactly {val_n_open}, no more and no fewer.",
    "Exactly {val_n_open} will be opened.",
    "The plan must open exactly {val_n_open}."),
    ("Exactly the agreed number of {F}s is opened.",))

_OPEN_OR_NOT = Rule((), (
    "Each {F} is either opened or not; there is no half-open {facility}.",
    "Opening is a yes-or-no decision for each {F}.",
    "We cannot open part of {a_F}: it is all or nothing."))

P_MEDIAN = Telling(
    openings=(
        "We are a {org} planning a new network: {n_F} candidate {Fs}{names_F} and {n_C} "
        "{Cs}{names_C} to {serve}.",
        "As a {org}, we can choose among {n_F} sites for a {facility}{names_F}; {n_C} "
        "{Cs}{names_C} each need to be {served} from one of them.",
        "I am looking at {n_F} sites where we could open a {facility}{names_F}, to {serve} "
        "{n_C} {Cs}{names_C}.",
        "Our {n_C} {Cs}{names_C} will be {served} from new {Fs}; there are {n_F} "
        "candidates{names_F}.",
    ),
    context=("Distances are by road, so they do not always follow the map.",
             "Every {facility} we open has the same capacity.",
             "Long trips are what we want to avoid, above all for the large {Cs}.",
             "Any {facility} could {serve} any {C}, as far as the roads go."),
    facts={
        "demand": Fact(("How much each {C} needs ({unit_demand}): {items}.",
                        "Demand by {C}: {items}.",
                        "Expected demand per {C}: {items}."),
                       ("{e} {V}", "{e} needs {V}"), label="demand"),
        "dist": Fact(("Road distances from each {F} to each {C} ({unit_dist}): {items}.",
                      "How far each {C} is from each {F} ({unit_dist}): {items}."),
                     ("{e} {v}", "to {e} {v}"),
                     ("from {e}: {items}", "for {e}, {items}"),
                     label="road distance"),
        "capacity": Fact(("Each {facility} we open can handle at most {V}.",
                          "The capacity of any {facility} is {V}.",
                          "A {facility} can take on {V} at most."),
                         label="capacity of a {facility}"),
        "n_open": _N_OPEN,
    },
    rules=(
        Rule(("served",), (
            "Every {C} is {served} by exactly one {facility}; its demand is never split.",
            "Each {C} goes to a single {facility}, all of it.",
            "No {C} is split between two {Fs}: each is {served} by exactly one."),
            ("Every {C} is served by exactly one {F}.",)),
        Rule(("open_only",), (
            "Only a {facility} we open can {serve} anyone.",
            "A {C} can only be {served} by a {facility} that is opened.",
            "{Fs} we do not open {serve} nobody."),
            ("Only an opened {F} serves.",)),
        Rule(("capacity_limit",), (
            "What one {facility} serves in total may not exceed {val_capacity}.",
            "The {Cs} given to one {facility} may not need more than {val_capacity} "
            "together.",
            "No {facility} may take on more than {val_capacity}."),
            ("An opened {F} serves no more than its capacity; a closed one serves nothing.",)),
        _OPEN_COUNT,
        _OPEN_OR_NOT,
    ),
    goals=("We want the total travel, weighted by demand, as low as possible.",
           "The aim is the least total {load}: each {C}'s demand times its distance to its "
           "{facility}, summed over all {Cs}.",
           "Please keep the total {load} to a minimum."),
    objective="total travel weighted by demand in {load}",
    asks=("Which {Fs} should we open, which {facility} should serve each {C}, and what is "
          "the total {load}?",
          "What network do you recommend, and how many {load} does it add up to?"),
    report={"x": "open {f}", "y": "{c} served by {f}"},
    settled=("x", "y"),
)

P_CENTER = Telling(
    openings=(
        "As a {org}, we will open {facilities} at some of {n_F} candidate sites{names_F}; "
        "each of our {n_C} {Cs}{names_C} will be covered by one of them.",
        "Our {org} has {n_C} {Cs}{names_C} to {serve} and {n_F} possible {Fs}{names_F}.",
        "I need to decide where to put our {facilities}: there are {n_F} candidate {Fs} and "
        "{n_C} {Cs} that depend on them.",
        "We are a {org} choosing among {n_F} {Fs}{names_F} for the {n_C} {Cs}{names_C} we "
        "look after.",
    ),
    context=("What worries us is the {C} that is worst off, not the average.",
             "The figures are by road, so they do not always follow the map.",
             "Any {facility} could {serve} any {C}."),
    facts={
        "dist": Fact(("The {measure} from each {F} to each {C} ({unit_dist}): {items}.",
                      "How far each {C} is from each {F} ({unit_dist}): {items}."),
                     ("{e} {v}", "to {e} {v}"),
                     ("from {e}: {items}", "for {e}, {items}"),
                     label="{measure}"),
        "n_open": _N_OPEN,
    },
    rules=(
        Rule(("served",), (
            "Every {C} is assigned to exactly one {facility}.",
            "Each {C} is served by a single {facility}, never by two.",
            "Each {C} gets one {facility} of its own to rely on."),
            ("Every {C} is served by exactly one {F}.",)),
        Rule(("open_only",), (
            "A {C} can only be assigned to a {facility} we actually open.",
            "Only the {facilities} we open serve anyone.",
            "{Fs} we do not open serve nobody."),
            ("Only an opened {F} serves.",)),
        _OPEN_COUNT,
        Rule(("worst_case",), (
            "What counts for each {C} is the {measure} to the {facility} that serves it.",
            "For every {C} we look at the {measure} to its own {facility}, and the plan is "
            "judged by the longest of these.",
            "The {measure} we judge a {C} by is the one to the {facility} it is assigned "
            "to."),
            ("No {C} is farther from its {F} than the longest {measure}.",)),
        _OPEN_OR_NOT,
    ),
    goals=("We want the farthest {C} to be as close as possible to its {facility}: the "
           "smallest worst-case {measure}.",
           "The aim is to keep the longest {measure} from any {C} to its {facility} as low "
           "as possible.",
           "Please minimise the worst {measure}: the longest one from a {C} to its "
           "{facility}."),
    objective="{measure} to the farthest {C} in {length}",
    asks=("Which {Fs} should we open, which {facility} should serve each {C}, and what is "
          "the worst {measure}?",
          "Where should the {facilities} go, and what is the longest {measure} left?"),
    report={"x": "open {f}", "y": "{c} served by {f}", "w": "longest {measure}: {v}"},
    settled=("x", "y"),
    auxiliaries=("w",),
)

MAX_COVERING = Telling(
    openings=(
        "As a {org}, we can afford only some of {n_F} candidate {Fs}{names_F}, and we want "
        "them to {cover} as many of our {n_C} {Cs}{names_C} as they can.",
        "Our {org} is choosing among {n_F} {Fs}{names_F}; a {C} counts as covered when a "
        "chosen {facility} is {reach}.",
        "There are {n_C} {Cs}{names_C} in our area and {n_F} places where we could put a "
        "{facility}{names_F}.",
        "We are a {org} with a fixed budget and {n_F} possible {Fs}{names_F} for {n_C} "
        "{Cs}.",
    ),
    context=("We cannot afford every site, so some {Cs} will be left out.",
             "A {C} gains nothing from a second {facility} in reach.",
             "Several {Fs} reach the same {Cs}, so the choice is not obvious."),
    facts={
        "covers": Fact(("Which {Cs} each {F} reaches {reach}: {items}.",
                        "Who is in reach of each {F}: {items}.",
                        "Reach, site by site: {items}."),
                       group=("{e} reaches {items}", "{e}: {items}",
                              "from {e} we reach {items}"),
                       label="{Cs} in reach", members=1),
        "demand": Fact(("How many {people} each {C} accounts for: {items}.",
                        "The {Cs} count {items}.",
                        "Size of each {C} ({unit_demand}): {items}."),
                       ("{e} {V}", "{e} {v}"), label="{C} size"),
        "cost": Fact(("What each {F} would cost ({unit_cost}): {items}.",
                      "Costs per {F}: {items}.",
                      "Setting up each {F} costs {items}."),
                     ("{e} {v}", "{e} {V}"), label="cost"),
        "budget": Fact(("Our budget is {V}.", "We can spend at most {V} in all.",
                        "The money available for new {facilities} is {V}."),
                       label="budget"),
    },
    rules=(
        Rule(("covered_only",), (
            "A {C} only counts as covered if at least one chosen {facility} is {reach}.",
            "We only count the {people} of a {C} that some chosen {facility} reaches.",
            "{a_C} with no chosen {facility} {reach} does not count."),
            ("A {C} counts as covered only if a chosen {F} reaches it.",)),
        Rule(("within_budget",), (
            "The chosen {Fs} together may cost no more than {val_budget}.",
            "We cannot spend more than {val_budget} in total.",
            "Everything we choose must fit the budget of {val_budget}."),
            ("The chosen {F}s cost no more than the budget.",)),
        Rule((), ("Each {F} is either chosen or not.",
                  "Each {F} is a yes-or-no choice: we cannot build part of one.",
                  "A {facility} comes whole or not at all.")),
    ),
    goals=("We want the most {people} covered that the budget allows.",
           "The aim is to cover the most {people}.",
           "Please maximise the {people} in reach of a chosen {facility}."),
    objective="number of {people} covered",
    asks=("Which {Fs} should we choose, and how many {people} will they cover?",
          "What selection do you recommend, and what does it cover?"),
    report={"x": "choose {f}", "z": "{c} covered"},
    settled=("x", "z"),
)

NETWORK_DESIGN = Telling(
    openings=(
        "Our {org} is planning a network of {n_N} {Ns}{names_N}; there are {n_A} possible "
        "one-way {As} between them, and each costs a fixed sum to {build}.",
        "We have {n_N} {Ns}{names_N}. Some have {goods} to send, others need {goods}, and we "
        "must decide which of {n_A} possible {As} to {build}.",
        "I am planning which {As} to {build} between our {n_N} {Ns}, and how much to {move} "
        "along each.",
    ),
    context=("{As} run one way only.",
             "{a_A} costs its fixed sum once, however much it carries.",
             "Not every {A} is worth its fixed cost."),
    facts={
        "tail": Fact(("Where each possible {A} starts and ends: {items}.",
                      "The candidate {As}, each from one {N} to another: {items}.",
                      "{As} we could {build}, with their ends: {items}."),
                     ("{e} from {v} to {at_head}", "{e} runs from {v} to {at_head}",
                      "{e} ({v} to {at_head})"),
                     label="start {N}"),
        "head": Fact((), label="end {N}"),
        "supply": Fact(("Net supply at each {N} (a negative number is a demand), in "
                        "{unit_supply}: {items}.",
                        "What each {N} puts in (negative: takes out): {items}."),
                       ("{e} {V}", "{e} {v}"), label="net supply"),
        "capacity": Fact(("Capacities once {built}: {items}.",
                          "How much each {A} could carry: {items}."),
                         ("{e} {V}", "{e} up to {V}"), label="capacity"),
        "fixed": Fact(("What it costs to {build} each {A} ({unit_fixed}): {items}.",
                       "Fixed costs of the {As}: {items}."),
                      ("{e} {v}", "{e} {V}"), label="cost to {build}"),
        "cost": Fact(("Cost per unit sent ({unit_cost}): {items}.",
                      "Sending one unit along each {A} costs {items}."),
                     ("{e} {v}", "{e} at {v}"), label="cost per unit sent"),
    },
    rules=(
        Rule(("balance",), (
            "At every {N}, what leaves minus what arrives must equal its net supply.",
            "Every {N} sends out exactly its supply, or takes in exactly its demand, and "
            "passes on everything else."),
            ("Flow out of a {N} minus flow in equals its net supply.",)),
        Rule(("built_only",), (
            "Only {As} we {build} can carry anything, and no more than their capacity.",
            "{a_A} that is not {built} carries nothing; one that is {built} carries at most "
            "its capacity."),
            ("Only {A}s that are {built} carry flow, each up to its capacity.",)),
        Rule((), ("Each {A} is a yes-or-no decision: {built} or not, never in part.",
                  "We cannot {build} part of {a_A}: it is all or nothing.")),
        divisible("x", "Flows need not be whole numbers; any amount can be sent.",
                  "The amounts sent along the {As} may be fractional."),
    ),
    goals=("We want the total of {charge} and flow costs as low as possible.",
           "The aim is the cheapest network, counting what the {As} cost to {build} and what "
           "the flows cost.",
           "Please minimise {charge} costs plus flow costs."),
    objective="{charge} and flow cost in {money}",
    asks=("Which {As} should we {build}, how much should go on each, and what is the total "
          "cost?",
          "What network do you recommend, and what does it cost in total?"),
    report={"y": "{build} {e}", "x": "{v} {qty} on {e}"},
    settled=("y",),
)

TELLINGS = {"p_median": P_MEDIAN, "p_center": P_CENTER, "max_covering": MAX_COVERING,
            "network_design": NETWORK_DESIGN}
