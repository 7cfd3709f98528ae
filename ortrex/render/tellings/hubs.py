"""Tellings of hubs and connecting networks: a degree-limited spanning tree, hub location
with fixed hub costs and capacities, and location-routing."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

# ------------------------------------------------------------------ spanning tree
SPANNING_TREE = Telling(
    openings=(
        "Our {org} has to connect {n_N} {Ns}{names_N}, and there are {n_E} possible {Es} "
        "between them.",
        "We want all of our {n_N} {Ns} to {connect}, and must decide which {Es} to {build}.",
        "As the {org}, I am choosing which of {n_E} candidate {Es} to {build} so that none "
        "of our {n_N} {Ns}{names_N} is cut off.",
        "{n_N} {Ns}{names_N} have to be joined into one network; {n_E} {Es} are on the "
        "table.",
    ),
    context=("A {N} can only take so many {Es}: {why}.",
             "Two {Ns} do not need a direct {E}: a path over other {Ns} is just as good.",
             "The {Es} not listed are ruled out by the terrain or by permits."),
    facts={
        # Clauses, never noun phrases: a data file's key is described by a lead's noun
        # phrase, and "the candidate links" is not what the first end of each link is.
        "end_a": Fact(("These are the {Es} we could {build}: {items}.",
                       "Here is every possible {E}: {items}.",
                       "We can {build} these {Es}: {items}."),
                      ("{e} between {v} and {at_end_b}", "{e} ({v} to {at_end_b})",
                       "{e} joins {v} and {at_end_b}"),
                      label="first {N}"),
        "end_b": Fact((), label="second {N}"),
        "cost": Fact(("What it costs to {build} each {E} ({unit_cost}): {items}.",
                      "Costs of the {Es}, in {unit_cost}: {items}.",
                      "Each {E} would cost ({unit_cost}): {items}."),
                     ("{e} {v}", "{e} {V}"), label="cost to {build}"),
        "ports": Fact(("How many {Es} each {N} can take ({port}s): {items}.",
                       "The {port}s at each {N}, that is, the most {Es} it can take: "
                       "{items}.",
                       "Each {N} has room for only so many {Es}: {items}."),
                      ("{e} {V}", "{e} up to {V}"), label="{port}s"),
    },
    rules=(
        Rule(("reached", "one_feed", "feed_built", "flow_ab", "flow_ba", "tree_size"), (
            "Every {N} must be connected to every other over {Es} we {build}, directly or "
            "through other {Ns}, and no {E} may be redundant: the network is a tree, with "
            "exactly one {E} fewer than there are {Ns}.",
            "All {Ns} have to {connect} through the {Es} we {build}; we build a tree, so "
            "there is exactly one way between any two {Ns} and one {E} fewer than {Ns}.",
            "The {Es} we {build} must join all the {Ns} into one network without any loop: "
            "a tree, which has one {E} fewer than there are {Ns}."),
            ("Every {N} but the first keeps one unit of the flow sent out from the first "
             "{N}, so every {N} is connected to it.",
             "Every {N} but the first is fed by exactly one {E}.",
             "A {E} feeds one of its ends if and only if it is {built}.",
             "Flow runs from the first {N} of a {E} to its second only if the {E} feeds "
             "that way.",
             "Flow runs from the second {N} of a {E} to its first only if the {E} feeds "
             "that way.",
             "Exactly one {E} fewer than there are {N}s is {built}.")),
        Rule(("port_limit",), (
            "No {N} may end up with more {Es} than its {port}s allow.",
            "The {Es} we {build} at a {N} cannot outnumber its {port}s.",
            "Each {N} takes at most as many {Es} as it has {port}s."),
            ("No {N} has more {E}s than its {port}s.",)),
        Rule((), ("Each {E} is {built} whole or not at all.",
                  "A {E} is a yes-or-no decision: we cannot {build} part of one.")),
    ),
    goals=("We want the cheapest network that connects everyone.",
           "The aim is the lowest total cost of the {Es} we {build}.",
           "Please keep the cost of the {Es} as low as possible."),
    objective="cost of the {E}s in {money}",
    asks=("Which {Es} should we {build}, and what does the network cost?",
          "What network do you recommend, {E} by {E}, and at what total cost?"),
    report={"y": "{build} {e}"},
    settled=("y",),
    auxiliaries=("xa", "xb", "fa", "fb"),
)

# ------------------------------------------------------------------ hub location
HUB_LOCATION = Telling(
    openings=(
        "Our {org} moves {goods} between {n_N} {Ns}{names_N}, and every consignment goes "
        "through {hubs}; {n_H} sites could take one{names_H}.",
        "We send {goods} from every one of our {n_N} {Ns} to the others, always through a "
        "{hub}, and must decide which of {n_H} {Hs} to open.",
        "As the {org}, I am redesigning our hub network: {n_N} {Ns}{names_N} and {n_H} "
        "possible {Hs}{names_H}.",
        "Every {N} of ours hands its {goods} to one {hub}, which passes them on; we have "
        "{n_H} {Hs} to choose from and {n_N} {Ns} to serve.",
    ),
    context=("{feed} bring a {N}'s {goods} to its {hub} and take the {goods} for that {N} "
             "back from it.",
             "The {trunk} between {hubs} carry large volumes, which is why they cost less "
             "per {unit}.",
             "We would rather not run more {hubs} than we need: each costs a fixed sum."),
    facts={
        "flow": Fact(("{goods} sent from each {N} to each other ({unit_flow}): {items}.",
                      "How much each {N} sends to each other {N} ({unit_flow}): {items}."),
                     ("to {e} {v}", "{e} {v}"), ("from {e}: {items}", "{e} sends {items}"),
                     label="{goods} sent"),
        "cost": Fact(("Moving one {unit} between a {N} and a {H} costs, either way "
                      "({unit_cost}): {items}.",
                      "The cost per {unit} between each {N} and each {H}, the same in both "
                      "directions ({unit_cost}): {items}."),
                     ("{e} {v}", "to {e} {v}"), ("from {e}: {items}", "for {e}, {items}"),
                     label="cost per {unit} to a {H}"),
        "trunk": Fact(("The full cost per {unit} between two {Hs}, either way "
                       "({unit_trunk}): {items}.",
                       "Between {Hs}, at the full rate and the same both ways "
                       "({unit_trunk}): {items}."),
                      ("{e} {v}", "to {e} {v}"), ("from {e}: {items}", "for {e}, {items}"),
                      label="full cost per {unit} between {Hs}"),
        "discount": Fact(("On the {trunk} between two {Hs} we pay only part of the full "
                          "cost: {items}.",
                          "The {trunk} between {Hs} cost {items}."),
                         label="share paid between {Hs}"),
        "fixed": Fact(("Running each {H} as a {hub} costs ({unit_fixed}): {items}.",
                       "Fixed cost of each {H} ({unit_fixed}): {items}."),
                      ("{e} {v}", "{e} {V}"), label="cost to open"),
        "capacity": Fact(("What each {hub} can handle from the {Ns} it serves "
                          "({unit_capacity}): {items}.",
                          "Capacities of the {Hs}, counting what their {Ns} send out "
                          "({unit_capacity}): {items}."),
                         ("{e} {V}", "{e} up to {V}"), label="capacity"),
    },
    rules=(
        Rule(("one_hub",), (
            "Every {N} is served by exactly one {hub}: all it sends and all it receives go "
            "through that one.",
            "Each {N} is given to a single {hub}, for everything it sends and receives.",
            "A {N} is never split between two {hubs}."),
            ("Every {N} is served by exactly one {H}.",)),
        Rule(("open_only",), (
            "Only a {H} we open can serve {Ns}.",
            "{Ns} can only be given to {Hs} that are opened.",
            "A {H} we do not open serves nobody."),
            ("Only an opened {H} serves {N}s.",)),
        Rule(("hub_balance",), (
            "Whatever one {N} sends to another goes first to the sender's {hub}, then, if the "
            "receiver has another {hub}, by {trunk} to that {hub}, and from there to the "
            "receiver.",
            "Each consignment travels from its {N} to that {N}'s {hub}, across to the "
            "receiver's {hub} where the two differ, and on to the receiving {N}."),
            ("At each {H}, the {goods} of a {N} that arrive (from that {N} or from other "
             "{H}s) are sent on to other {H}s or to the {N}s it serves.",)),
        Rule(("hub_capacity",), (
            "An open {hub} can handle no more than its capacity from the {Ns} it serves, "
            "counting everything they send out.",
            "What the {Ns} of one {hub} send out together may not exceed that {hub}'s "
            "capacity."),
            ("An opened {H} handles no more than its capacity from the {N}s it serves; a "
             "closed one takes nothing.",)),
        Rule((), ("A {H} is either opened or not; there is no half-open {hub}.",
                  "Each {H} is a yes-or-no decision.")),
    ),
    goals=("We want the lowest total of {hub} costs and transport costs.",
           "The aim is the cheapest network: fixed costs of the {hubs} plus the cost of "
           "moving everything.",
           "Please keep fixed and transport costs together as low as possible."),
    objective="hub and transport cost in {money} per {term}",
    asks=("Which {Hs} should we open, which {hub} should serve each {N}, and what does it "
          "cost per {term}?",
          "What hub network do you recommend, and at what total cost per {term}?"),
    report={"y": "open {h}", "z": "{i} served by {h}",
            "w": "{v} {qty} of {i}'s {goods} from {h} to {l}"},
    settled=("y", "z"),
)

# ------------------------------------------------------------------ location-routing
LOCATION_ROUTING = Telling(
    openings=(
        "Our {org} has to {serve} {n_C} {Cs}{names_C} and can open {Ds} at {n_D} places"
        "{names_D}.",
        "We are choosing where to open {Ds} ({n_D} candidates) and how our {vehicles} "
        "should run from them to {serve} {n_C} {Cs}.",
        "As the {org}, I plan both the {Ds} and the routes: every {vehicle} leaves a {D}, "
        "calls at some of our {n_C} {Cs} and returns to the same {D}.",
        "{n_C} {Cs}{names_C} need a visit, and we have {n_D} possible {Ds}{names_D} to "
        "send {vehicles} from.",
    ),
    context=("The {vehicles} are all the same size.",
             "A {D} costs a fixed sum to open, whatever it sends out.",
             "Any {vehicle} can work from any {D} we open."),
    facts={
        "dist": Fact(("Road distances between the {Cs} ({unit_dist}): {items}.",
                      "How far it is from one {C} to another ({unit_dist}): {items}."),
                     ("to {e} {v}", "{e} {v}"), ("from {e}: {items}", "leaving {e}: {items}"),
                     label="road distance"),
        "depot_dist": Fact(("Distances between each {D} and each {C}, the same either way "
                            "({unit_depot_dist}): {items}.",
                            "From each {D} to each {C} (and back, it is the same) in "
                            "{unit_depot_dist}: {items}."),
                           ("to {e} {v}", "{e} {v}"), ("from {e}: {items}", "for {e}, {items}"),
                           label="distance to the {Ds}"),
        "demand": Fact(("What each {C} needs ({unit_demand}): {items}.",
                        "The {need}: {items}.", "Load per {C}: {items}."),
                       ("{e} {V}", "{e} {v}"), label="load"),
        "cap": Fact(("Each {vehicle} can take at most {items}.",
                     "The capacity of one {vehicle} is {items}."),
                    label="capacity per {vehicle}"),
        "fleet": Fact(("We have {items}.", "The fleet: {items}, all alike."),
                      label="{vehicles} available"),
        "depot_cap": Fact(("What each {D} could send out at most ({unit_depot_cap}): "
                           "{items}.",
                           "Capacities of the {Ds} ({unit_depot_cap}): {items}."),
                          ("{e} {V}", "{e} up to {V}"), label="{depot} capacity"),
        "fixed": Fact(("Opening each {D} costs ({unit_fixed}): {items}.",
                       "Fixed costs of the {Ds} ({unit_fixed}): {items}."),
                      ("{e} {v}", "{e} {V}"), label="cost to open"),
        "rate": Fact(("Driving costs {items}.", "The driving cost is {items}."),
                     label="driving cost"),
    },
    rules=(
        Rule(("served_once", "same_depot"), (
            "Every {C} is served exactly once, by one {vehicle}, and every route ends at "
            "the {depot} it started from.",
            "Each {C} gets exactly one visit; a {vehicle} always returns to its own {depot}.",
            "A {C} is on exactly one route, which calls there once, and each route is a "
            "round trip from one {depot}."),
            ("Every {C} is reached exactly once, by a {vehicle} of one {D}.",
             "A {vehicle} that reaches a {C} leaves it again on a route of the same {D}, "
             "towards another {C} or back to that {D}.")),
        Rule(("open_only",), (
            "Only a {depot} we open can serve {Cs}.",
            "{vehicles} can only start from {Ds} we open.",
            "A {D} we do not open sends nothing."),
            ("Only an opened {D} serves {C}s.",)),
        Rule(("fleet_used",), (
            "We have {val_fleet} and all of them go out, each on one route from a {depot}.",
            "Each of our {vehicles} ({val_fleet}) drives exactly one route from one of the "
            "{Ds} we open."),
            ("Every {vehicle} of the fleet leaves a {D} on one route.",)),
        Rule(("depot_capacity",), (
            "An open {depot} can send out no more than its capacity.",
            "What the {Cs} of one {depot} need together may not exceed that {depot}'s "
            "capacity."),
            ("An opened {D} sends out no more than its capacity; a closed one sends "
             "nothing.",)),
        Rule(("fleet_room", "load_order", "own_load", "room_left"), (
            "One {vehicle} can take at most {val_cap}: the {Cs} of one route cannot need "
            "more than that together.",
            "The {goods} of the {Cs} on one route together may not exceed {val_cap}, what "
            "one {vehicle} holds."),
            ("The {vehicles} leaving a {D} have room for everything it serves.",
             "Loads grow along a route and stay within a {vehicle}'s capacity, so every "
             "route starts at a {D}.",
             "A route's load at a {C} includes that {C}'s own and that of the {C} the "
             "{vehicle} came from.",
             "A {vehicle} that drives on from a {C} to another still has room for the next "
             "{C}'s {goods}.")),
        Rule((), (
            "Distances between {Cs} depend on the direction, because of one-way streets: "
            "each figure is for driving from the first {C} to the second.",
            "Between two {Cs} a distance holds for one direction only, from the first named "
            "to the second; the way back may differ.")),
        Rule((), ("A {D} is opened or not; there is no halfway.",
                  "Each {D} is a yes-or-no decision.")),
    ),
    goals=("We want the lowest total of {depot} costs and driving costs.",
           "The aim is the cheapest plan, counting the {Ds} we open and every {length} "
           "driven.",
           "Please keep the cost of the {Ds} plus the driving as low as possible."),
    objective="depot and driving cost in {money}",
    asks=("Which {Ds} should we open, how should each route run, and what is the total "
          "cost?",
          "Where do you recommend opening {Ds}, which {vehicle} goes where, and at what "
          "cost?"),
    report={"y": "open {d}", "x": "{i} to {j} (from {d})", "start": "{d} to {j}",
            "back": "{i} to {d}"},
    settled=("y", "x", "start", "back"),
    auxiliaries=("u",),
)

TELLINGS = {"spanning_tree": SPANNING_TREE, "hub_location": HUB_LOCATION,
            "location_routing": LOCATION_ROUTING}
