"""Tellings of network flows: min-cost flow, max flow, shortest path, multi-commodity."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible

_ARCS = {
    "tail": Fact(("Our network has these {As}: {items}.", "The {As}: {items}.",
                  "{As} and where they run: {items}."),
                 ("{e} from {v} to {at_head}", "{e} runs from {v} to {at_head}",
                  "{e} ({v} to {at_head})"),
                 label="start {N}"),
    "head": Fact((), label="end {N}"),
}
_CAPACITY = Fact(("Capacities: {items}.", "Each {A} carries only so much: {items}.",
                  "How much each {A} can take: {items}."),
                 ("{e} {V}", "{e} up to {V}"), label="capacity")
_COST = Fact(("Costs per unit ({unit_cost}): {items}.", "Using {a_A} costs, per unit, {items}."),
             ("{e} {v}", "{e} at {v}"), label="cost per unit")
_CONSERVE = ("Whatever enters a {N} on the way has to leave it again.",
             "Nothing is stored or lost at the {Ns} along the way.")

MIN_COST = Telling(
    openings=(
        "Our {org} has to {move} {goods} through a network of {n_N} {Ns}{names_N} linked by "
        "{n_A} {As}.",
        "Some {Ns} have {goods} to send and others need it; we have {n_N} {Ns} and {n_A} "
        "{As} between them.",
        "I plan the flows in our network: {n_N} {Ns}, {n_A} one-way {As}.",
    ),
    context=("{As} are one-way.", "Every {A} has its own cost and limit."),
    facts={**_ARCS,
           "supply": Fact(("Net supply at each {N} (a negative number is a demand): {items}.",
                           "What each {N} puts in (negative: takes out): {items}."),
                          ("{e} {V}", "{e} {v}"), label="net supply"),
           "capacity": _CAPACITY, "cost": _COST},
    rules=(
        Rule(("balance",), ("At every {N}, what leaves minus what arrives equals its net "
                            "supply.", "Every {N} sends out exactly its supply, or takes in "
                            "exactly its demand, and passes on the rest."),
             ("Flow out of a {N} minus flow in equals its net supply.",)),
        Rule((), ("No {A} can carry more than its capacity, and flows are never negative.",
                  "{As} have limits, and flow only goes in their direction.")),
    ),
    goals=("We want the cheapest way to move everything.", "The aim is the least total "
           "cost.", "Please minimise what the flows cost us."),
    objective="total flow cost in {money}",
    asks=("How much should go along each {A}, and what does it cost in total?",),
    report={"x": "{v} {qty} on {e}"},
)

MAX_FLOW = Telling(
    openings=(
        "We want to know how much {goods} our network can carry from {first_N} to {last_N}.",
        "Our {org} runs {n_N} {Ns}{names_N} connected by {n_A} one-way {As}; the question is "
        "the most we can send from {first_N} to {last_N}.",
        "How much can get through from {first_N} to {last_N}? We have {n_A} {As} to use.",
    ),
    context=("Each {A} has a limit.", "Only {first_N} sends and only {last_N} receives."),
    facts={**_ARCS, "capacity": _CAPACITY},
    rules=(
        Rule(("source",), ("What leaves {first_N} is what we count as sent.",
                           "The amount sent is the net outflow at {first_N}."),
             ("The first {N} sends out the total flow.",)),
        Rule(("conservation",), _CONSERVE,
             ("Every other intermediate {N} passes on what it receives.",)),
        Rule((), ("No {A} can carry more than its capacity, and flows are never negative.",)),
    ),
    goals=("We want the largest possible flow.", "The aim is to maximise what gets through.",
           "Please push as much as possible from {first_N} to {last_N}."),
    objective="total flow in {qty}",
    asks=("What is the maximum we can send, and how should it be routed?",),
    report={"x": "{v} {qty} on {e}", "v": "{v} {qty} in total"},
)

SHORTEST = Telling(
    openings=(
        "We need the shortest way from {first_N} to {last_N} through our network of {n_N} "
        "{Ns}.",
        "Our {org} must get from {first_N} to {last_N}; there are {n_A} one-way {As} to "
        "choose from.",
        "What is the quickest route from {first_N} to {last_N}? The network has {n_N} {Ns}"
        "{names_N}.",
    ),
    context=("{As} can only be used in one direction.",),
    facts={**_ARCS,
           "length": Fact(("Lengths ({unit_length}): {items}.", "Each {A} is {items} long."),
                          ("{e} {v}", "{e} {V}"), label="length"),
           "supply": Fact((), label="net supply")},
    rules=(
        Rule(("route",), ("The route starts at {first_N}, ends at {last_N}, and leaves every "
                          "{N} it enters on the way.",
                          "One route, from {first_N} to {last_N}, without breaks."),
             ("The route leaves the start, reaches the end and passes through every other "
              "{N} it enters.",)),
    ),
    goals=("We want the shortest route.", "The aim is the least total length.",
           "Please minimise the route length."),
    objective="route length in {length}",
    asks=("Which {As} make up the shortest route, and how long is it?",),
    report={"x": "{e}"},
)

MULTI = Telling(
    openings=(
        "Our {org} must carry {n_K} {Ks}{names_K} across a network of {n_N} {Ns} that they "
        "all share.",
        "We have {n_K} {Ks} to route through {n_A} {As}, and they compete for the same "
        "capacity.",
        "Each of our {n_K} {Ks} goes from one {N} to another; the {As} are shared.",
    ),
    context=("A {K} may be split over several routes.",),
    facts={**_ARCS,
           "origin": Fact(("Where each {K} starts: {items}.", "Origins: {items}."),
                          ("{e} at {v}", "{e} {v}"), label="origin"),
           "destination": Fact(("Where each {K} must arrive: {items}.", "Destinations: {items}."),
                               ("{e} at {v}", "{e} {v}"), label="destination"),
           "amount": Fact(("Sizes: {items}.", "Each {K} needs {items}."),
                          ("{e} {V}",), label="size"),
           "supply": Fact((), label="net supply"),
           "capacity": _CAPACITY, "cost": _COST},
    rules=(
        Rule(("balance",), ("Each {K} must leave its origin in full and reach its destination "
                            "in full, and nothing of it is lost on the way.",
                            "All of each {K} gets from its origin to its destination."),
             ("Each {K} leaves its origin, reaches its destination and is conserved "
              "elsewhere.",)),
        Rule(("shared_capacity",), ("Together, the {Ks} may not exceed any {A}'s capacity.",
                                    "Capacity is shared: the sum over all {Ks} on {a_A} "
                                    "stays within its limit."),
             ("All {K}s together respect each {A}'s capacity.",)),
        divisible("x", "A {K} may be split over several routes, in any amounts, fractions "
                  "included.",
                  "Flows may be fractional: any part of a {K} may take any route."),
    ),
    goals=("We want the least total routing cost.", "Please minimise the total cost.",),
    objective="total routing cost in {money}",
    asks=("How should each {K} be routed, and what is the total cost?",),
    presumes={"We have {n_K} {Ks} to route through {n_A} {As}, and they compete for the "
              "same capacity.": ("shared_capacity",),
              "Each of our {n_K} {Ks} goes from one {N} to another; the {As} are shared.":
              ("shared_capacity",)},
    report={"x": "{v} {qty} of {k} on {e}"},
)

TELLINGS = {"min_cost_flow": MIN_COST, "max_flow": MAX_FLOW, "shortest_path": SHORTEST,
            "multicommodity_flow": MULTI}
