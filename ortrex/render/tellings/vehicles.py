"""Tellings of vehicle routing: capacitated routes, time windows, pickup and delivery."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

# The depot is a word of the vocabulary ({home}), never an element: its distances are a fact
# of their own and its arcs (start, back) are reported by name.
_REPORT = {"x": "{i} to {j}", "start": "{home} to {i}", "back": "{i} to {home}"}

_ONCE = Rule(("enter_once", "leave_once"), (
    "Every {C} is served exactly once, by one {vehicle}: nobody is visited twice or split "
    "between two {vehicles}.",
    "Each {C} gets exactly one visit, from exactly one {vehicle}.",
    "A {C} is on exactly one route, and that route calls there once."),
    ("Every {C} is reached exactly once.", "Every {C} is left exactly once."))

_FLEET = Rule(("fleet_used",), (
    "We have {val_fleet} and all of them go out, each on one route from the {home}.",
    "Each of the {vehicles} we have ({val_fleet}) goes out and drives exactly one route "
    "from the {home}."),
    ("Every {vehicle} of the fleet leaves the {home} on one route.",))

_LOAD = Rule(("load_order", "own_load"), (
    "Every route starts at the {home}, calls at its {Cs} and comes back to the {home}; the "
    "{goods} of the {Cs} on one route together may not exceed {val_cap}.",
    "One {vehicle} can take at most {val_cap}: the {Cs} of one route cannot need more than "
    "that together. Each route begins and ends at the {home}.",
    "Each route is a round trip from the {home}, and what its {Cs} need in all cannot be "
    "more than one {vehicle} can take, {val_cap}."),
    ("Loads grow along a route and stay within capacity, so every route starts at the "
     "{home}.", "A route's load at a {C} includes that {C}'s own."))

def _home_fact(p: str, measures: str, label: str) -> Fact:
    """The depot's distances (or driving times) to each stop, the same both ways."""
    return Fact((f"{measures} between the {{home}} and each {{C}}, the same either way "
                 f"({{unit_{p}}}): {{items}}.",
                 f"From the {{home}} to each {{C}} (and back, it is the same) in "
                 f"{{unit_{p}}}: {{items}}."),
                ("{e} {v}", "{e} {V}"), label=label)


CVRP = Telling(
    openings=(
        "Our {org} has to {serve} {n_C} {Cs}{names_C}, all from one {home}, with a fleet of "
        "identical {vehicles}.",
        "Every day our {vehicles} leave the {home}, {serve} the {Cs} and come back.",
        "As the {org}, I plan the routes of our {vehicles}: each one starts at the {home}, "
        "takes a share of the {n_C} {Cs} and returns.",
        "We need routes for our {vehicles} so that all {n_C} {Cs} are covered from the "
        "{home}.",
    ),
    context=("The {vehicles} are all the same size.",
             "Last month the routes were planned by hand and the mileage crept up.",
             "Any {vehicle} can take any {C}."),
    facts={
        "dist": Fact(("Road distances between the {Cs} ({unit_dist}): {items}.",
                      "How far it is from one {C} to another ({unit_dist}): {items}."),
                     ("to {e} {v}", "{e} {v}"), ("from {e}: {items}", "leaving {e}: {items}"),
                     label="road distance"),
        "home_dist": _home_fact("home_dist", "Distances", "distance to the {home}"),
        "demand": Fact(("What each {C} needs ({unit_demand}): {items}.",
                        "The {need}: {items}.", "Load per {C}: {items}."),
                       ("{e} {V}", "{e} {v}"), label="load"),
        "cap": Fact(("Each {vehicle} can take at most {items}.",
                     "The capacity of one {vehicle} is {items}."), label="capacity per "
                    "{vehicle}"),
        "fleet": Fact(("We have {items}.", "The fleet: {items}, all alike."),
                      label="{vehicles} available"),
    },
    rules=(
        _ONCE, _FLEET, _LOAD,
        Rule((), ("Distances depend on the direction, because of one-way streets: each "
                  "figure between two {Cs} is for driving from the first to the second, and "
                  "the way back may differ.",
                  "The road network has one-way streets, so a distance between two {Cs} is "
                  "for one direction only, from the first named to the second; the other "
                  "way can be longer or shorter.")),
    ),
    goals=("We want the shortest total distance over all routes.",
           "Please keep the total distance driven as low as possible.",
           "The aim is the least total distance."),
    objective="total distance in {length}",
    asks=("How should the routes run, {C} by {C}, and what is the total distance?",
          "Which {vehicle} goes where, in what order, and how far do they drive in all?"),
    report=_REPORT,
    settled=("x", "start", "back"),
    auxiliaries=("u",),
)

VRPTW = Telling(
    openings=(
        "Our {org} has {n_C} {Cs}{names_C} to {visit} today, each within a time window we "
        "agreed with them.",
        "Tomorrow our {vehicles} leave the {home} to {visit} {n_C} {Cs}; every {job} has a "
        "window in which it must start.",
        "As the {org}, I plan the day of our {vehicles}: who goes where, in what order, "
        "and at what time.",
        "We have to {visit} {n_C} {Cs} from the {home}, each at a time that suits them.",
    ),
    context=("The windows were promised to the {Cs}, so they are firm.",
             "The {vehicles} are all alike.",
             "Travel between two {Cs} takes the same time either way."),
    facts={
        "travel": Fact(("Driving times between the {Cs} ({unit_travel}): {items}.",
                        "How long it takes from one {C} to another ({unit_travel}): "
                        "{items}."),
                       ("to {e} {v}", "{e} {v}"), ("from {e}: {items}", "leaving {e}: {items}"),
                       label="driving time"),
        "home_time": _home_fact("home_time", "Driving times", "driving time to the {home}"),
        "service": Fact(("How long each {job} takes ({unit_service}): {items}.",
                         "Time spent at each {C}: {items}."),
                        ("{e} {V}", "{e} {v}"), label="{job} duration"),
        "earliest": Fact(("Earliest start of each {job} ({unit_earliest} after the "
                          "{vehicles} leave the {home}): {items}.",
                          "No {job} may start before these times ({unit_earliest} from the "
                          "start of the day): {items}."),
                         ("{e} {V}", "{e} at {V}"), label="earliest start"),
        "latest": Fact(("Latest start of each {job} ({unit_latest} after the {vehicles} "
                        "leave the {home}): {items}.",
                        "Each {job} must have started by these times ({unit_latest} from "
                        "the start of the day): {items}."),
                       ("{e} {V}", "{e} by {V}"), label="latest start"),
        "demand": Fact(("What each {C} needs ({unit_demand}): {items}.",
                        "The {need}: {items}."),
                       ("{e} {V}", "{e} {v}"), label="load"),
        "cap": Fact(("Each {vehicle} can take at most {items}.",
                     "The capacity of one {vehicle} is {items}."),
                    label="capacity per {vehicle}"),
        "fleet": Fact(("We have {items}.", "Available today: {items}, all alike."),
                      label="{vehicles} available"),
    },
    rules=(
        _ONCE, _FLEET, _LOAD,
        Rule(("first_visit", "time_order"), (
            "All {vehicles} leave the {home} at minute 0. A {job} can only start once the "
            "{vehicle} is there: after the drive from the {home}, or after the previous {job} "
            "is finished and the drive from there is done.",
            "Everyone sets off from the {home} at time 0; a {vehicle} reaches a {C} after "
            "finishing the previous {job} and driving over, and only then can the {job} "
            "start."),
            ("A {C} reached from the {home} starts no earlier than the drive from it.",
             "If a {vehicle} drives from {C} i to {C} j, the {job} at j starts after the one "
             "at i ends and the drive.")),
        Rule(("window_close",), (
            "Each {job} must start inside its window, between its earliest and its latest "
            "start; a {vehicle} that arrives early waits.",
            "Arriving early is allowed (the {vehicle} waits), but every {job} has to start no "
            "earlier than its earliest and no later than its latest start."),
            ("The {job} at each {C} starts no later than its latest start.",)),
    ),
    goals=("We want the least total driving time over all routes.",
           "Please keep the total time on the road as low as possible.",
           "The aim is the shortest total driving time."),
    objective="total driving time in {time}",
    asks=("Which {vehicle} takes which {Cs}, in what order, when does each {job} start, and "
          "what is the total driving time?",),
    report={**_REPORT, "t": "{i} at {v}"},
    settled=("x", "start", "back"),
    auxiliaries=("u",),
)

PICKUP_DELIVERY = Telling(
    openings=(
        "Our {vehicle} has {n_R} {Rs}{names_R} to move today: each is {collect} at one {N} "
        "and {bring} at another.",
        "As the {org}, I have one {vehicle} and {n_R} {Rs} to take from where they are to "
        "where they need to go.",
        "We plan the round of our only {vehicle}, which starts and ends at the {home} and "
        "handles {n_R} {Rs}.",
        "Every {R} on today's list{names_R} has a pickup and a drop-off {N}, and one "
        "{vehicle} does them all.",
    ),
    context=("Distances between two {Ns} are the same either way.",
             "The {vehicle} may carry several {Rs} at once, as long as they fit.",
             "The list changes every day, so we need a method, not a fixed route."),
    facts={
        "dist": Fact(("Distances between the {Ns} ({unit_dist}): {items}.",
                      "How far it is from one {N} to another ({unit_dist}): {items}."),
                     ("to {e} {v}", "{e} {v}"), ("from {e}: {items}", "{e}: {items}"),
                     label="distance"),
        "home_dist": Fact(("Distances between the {home} and each {N}, the same either way "
                           "({unit_home_dist}): {items}.",
                           "From the {home} to each {N} (and back) in {unit_home_dist}: "
                           "{items}."),
                          ("{e} {v}", "{e} {V}"), label="distance to the {home}"),
        "pickup": Fact(("The {Rs}: {items}.", "What has to be moved: {items}."),
                       ("{e} from {v} to {at_dropoff}",
                        "{e} is {collect} at {v} and {bring} at {at_dropoff}"),
                       label="pickup {N}"),
        "dropoff": Fact((), label="drop-off {N}"),
        "size": Fact(("Room each {R} takes ({unit_size}): {items}.",
                      "How much each {R} takes up: {items}."),
                     ("{e} {V}", "{e} {v}"), label="{goods} taken"),
        "cap": Fact(("The {vehicle} holds at most {items}.",
                     "The capacity of the {vehicle} is {items}."), label="capacity"),
        "n_stops": Fact((), label="number of {N}s"),
    },
    rules=(
        Rule(("enter_once", "leave_once"), (
            "The {vehicle} calls at every {N} exactly once.",
            "Each {N} is visited exactly one time."),
            ("Every {N} is reached exactly once.", "Every {N} is left exactly once.")),
        Rule(("one_round", "no_subtour"), (
            "There is one {vehicle} and it makes one single round: out of the {home}, "
            "through all the {Ns}, and back, never in separate loops.",
            "It is a single round trip from the {home} through every {N}, not several "
            "separate loops."),
            ("There is one {vehicle}: at most one round leaves the {home}.",
             "Places increase along the round, so it is one round from the {home}.")),
        Rule(("pickup_first",), (
            "Every {R} has to be {collect} before it can be {bring}.",
            "A {R} is {bring} only after it has been {collect}."),
            ("Each {R} is {collect} before it is {bring}.",)),
        Rule(("load_flow", "load_pickup"), (
            "The {vehicle} leaves the {home} empty; a {R} is on board from its pickup until "
            "its drop-off, and what is on board may never exceed {val_cap}.",
            "What the {vehicle} carries grows at each pickup and shrinks at each drop-off; "
            "it starts empty and must never hold more than {val_cap}."),
            ("The load changes by what is {collect} or {bring} at each {N} and stays within "
             "capacity.",
             "Leaving the {N} where a {R} is {collect}, the {vehicle} carries at least that "
             "{R}.")),
    ),
    goals=("We want the shortest round.", "Please keep the total distance as low as possible.",
           "The aim is the least distance driven."),
    objective="total distance in {length}",
    asks=("In what order should the {vehicle} call at the {Ns}, and how long is the round?",),
    report=_REPORT,
    settled=("x", "start", "back"),
    auxiliaries=("u", "load"),
)

TELLINGS = {"cvrp": CVRP, "vrptw": VRPTW, "pickup_delivery": PICKUP_DELIVERY}
