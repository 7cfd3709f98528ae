"""Tellings of supply problems: transportation, facility location, blending, diet."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible

_DIVISIBLE = Rule((), (
    "Amounts do not have to be whole numbers.",
    "Fractions of a unit are fine.",
    "Any amount can be sent, whole or not.",
    "Quantities can be fractional.",
), types={"x": "C"})

TRANSPORTATION = Telling(
    openings=(
        "We supply {n_D} {Ds}{names_D} from {n_S} {Ss}{names_S}, and every {period} we "
        "decide how many {qty} go from which {S} to which {D}.",
        "Every {period}, {goods} leave our {n_S} {Ss}{names_S} for {n_D} {Ds}{names_D}.",
        "I plan deliveries for a network of {n_S} {Ss} and {n_D} {Ds}: the {Ds}{names_D} "
        "are restocked from the {Ss}{names_S}.",
        "Our {n_S} {Ss}{names_S} hold the {goods} that {n_D} {Ds} need this {period}.",
        "This {period} we have to move {goods} from {n_S} {Ss} to {n_D} {Ds}, and the "
        "shipping bill has become a real concern.",
        "Picture {n_S} {Ss}{names_S} on one side and {n_D} {Ds}{names_D} on the other; the "
        "{goods} have to get from the first to the second.",
        "As the {org}, we move {goods} between {n_S} {Ss} and {n_D} {Ds}.",
    ),
    context=(
        "Freight rates differ a lot from one route to another.",
        "Last {period} we simply shipped from the nearest {S}, and it turned out expensive.",
        "Any {S} can serve any {D}.",
        "Every route is open, but none of them is cheap.",
    ),
    facts={
        "supply": Fact(("The {Ss} have this much to send: {items}.",
                        "Available this {period}: {items}.",
                        "On hand at the {Ss}: {items}.",
                        "What each {S} can ship: {items}."),
                       ("{e} {V}", "{e} has {V}", "{e} can send up to {V}"),
                       label="stock available"),
        "demand": Fact(("What the {Ds} need: {items}.", "Orders for this {period}: {items}.",
                        "Each {D} has its own requirement: {items}.",
                        "Required deliveries: {items}."),
                       ("{e} {V}", "{e} needs {V}", "{e} has ordered {V}"),
                       label="requirement"),
        "cost": Fact(("Shipping costs by route ({unit_cost}): {items}.",
                      "What one unit costs to ship, in {unit_cost}: {items}.",
                      "Freight rates ({unit_cost}): {items}."),
                     ("{e} {v}", "to {e} {v}"),
                     ("from {e}, {items}", "{e} ships {items}", "out of {e}: {items}"),
                     label="shipping cost"),
    },
    rules=(
        Rule(("supply_limit",), (
            "No {S} can send more than it has.", "{a_S} cannot ship more than its stock.",
            "We cannot take more out of {a_S} than is there.",
            "What leaves {a_S} has to stay within what it holds."),
            ("Each {S} ships no more than it has.",)),
        Rule(("demand_met",), (
            "Every {D} must get at least what it needs.",
            "Each {D}'s requirement has to be covered in full; more is fine.",
            "No {D} may end up short.", "All orders must be filled."),
            ("Each {D} receives at least what it needs.",)),
        _DIVISIBLE,
    ),
    goals=("We want the total shipping cost as low as possible.",
           "The aim is the cheapest shipping plan.",
           "We would like to spend as little as possible on freight.",
           "Please keep what we pay for shipping to a minimum."),
    objective="total shipping cost in {money}",
    asks=("How much should go from each {S} to each {D}, and what will it cost in total?",
          "What is the cheapest plan, route by route?",
          "Which routes should we use, with how many {qty} on each, and at what total cost?"),
    presumes={"Our {n_S} {Ss}{names_S} hold the {goods} that {n_D} {Ds} need this {period}.":
              ("supply_limit", "demand_met")},
    report={"x": "{v} {qty} from {s} to {d}"},
)

_OPEN_COST = Fact(("Opening {a_F} costs {items}.", "The fixed cost of opening each {F}: {items}.",
                   "Running costs if opened, per {F}: {items}.",
                   "To open {a_F} we would pay {items}."),
                  ("{e} {V}", "{e} costs {V}", "{e} would cost {V}"),
                  label="opening cost")

_FACILITY_OPENINGS = (
    "We are a {org} deciding which of {n_F} candidate {Fs}{names_F} to open, and from where "
    "to {serve} our {n_C} {Cs}{names_C}.",
    "Our {n_C} {Cs}{names_C} have to be served from {Fs} we have yet to open; there are "
    "{n_F} candidates{names_F}.",
    "As a {org}, we are rethinking our network: {n_F} possible {Fs} and {n_C} {Cs} to serve.",
    "I am looking at {n_F} locations where we could open {a_F}{names_F}, to serve {n_C} "
    "{Cs}.",
    "Before next year we must settle which {Fs} to open. The candidates are {n_F} "
    "sites{names_F}, and they will serve {n_C} {Cs}.",
)

_SERVED = Rule(("served",), (
    "Every {C} must be served in full.", "No {C} can be left without service.",
    "Each {C}'s demand has to be covered completely, possibly by several {Fs}.",
    "All of every {C}'s demand must be met."),
    ("Every {C} is fully served.",))

# Single sourcing is the other plausible reading: a customer's demand may be split.
_SPLIT = divisible("x", "Each {C}'s demand may be split between several {Fs}, in any shares.",
                   "One {C} can be served partly from one {F} and partly from another.",
                   "Nothing forces a single supplier: {a_C} may be served by several {Fs}.")

FACILITY = Telling(
    openings=_FACILITY_OPENINGS,
    context=("{a_C} can be split between several {Fs} if that is cheaper.",
             "Opening {a_F} is expensive, so we would rather open few.",
             "Every open {F} can reach every {C}."),
    facts={
        "fixed": _OPEN_COST,
        "serve": Fact(("Serving a whole {C} from each {F} would cost ({unit_serve}): {items}.",
                       "The cost of serving all of {a_C}'s demand, by {F}: {items}.",
                       "Service costs, for {a_C} served entirely from one {F}: {items}."),
                      ("{e} {v}", "{e} at {v}"),
                      ("from {e}: {items}", "{e} would charge {items}"),
                      label="cost of serving a whole {C}"),
    },
    rules=(
        _SERVED,
        Rule(("open_only",), (
            "Only {a_F} we open can serve anyone.", "A closed {F} serves nobody.",
            "Service can only come from {Fs} that are opened.",
            "{a_F} must be open before any {C} is served from it."),
            ("Only open {F}s serve.",)),
        Rule((), ("{a_F} is either opened or not; there is no half-open site.",
                  "Each {F} is a yes-or-no decision.",
                  "We cannot open part of {a_F}.")),
        _SPLIT,
    ),
    goals=("We want the total of opening and service costs as low as possible.",
           "The aim is to minimise what we spend on opening {Fs} plus serving {Cs}.",
           "Please find the cheapest network, counting both opening and service costs.",
           "Together, opening and service costs should be as small as they can be."),
    objective="opening and service cost in {money}",
    asks=("Which {Fs} should we open, who should serve each {C}, and what is the total cost?",
          "Which sites would you open, and at what total cost?",
          "What network do you recommend, and what does it cost in total?"),
    report={"y": "open {f}", "x": "{v} of {c} served from {f}"},
    settled=("y",),
)

FACILITY_CAP = Telling(
    openings=_FACILITY_OPENINGS,
    context=("Each {F} has a limited capacity, so a large {C} may need more than one.",
             "Capacity is the real bottleneck in our network.",
             "{a_C} may be split between several open {Fs}."),
    facts={
        "demand": Fact(("Demand per {C}: {items}.", "The {Cs} need {items}.",
                        "Expected demand: {items}."),
                       ("{e} {V}", "{e} needs {V}", "{e} at {V}"),
                       label="demand"),
        "capacity": Fact(("Capacity if opened: {items}.", "Each {F} could handle {items}.",
                          "Capacities of the candidate {Fs}: {items}."),
                         ("{e} {V}", "{e} up to {V}", "{e} could take {V}"),
                         label="capacity"),
        "fixed": _OPEN_COST,
        "unit_cost": Fact(("Serving one unit of demand costs ({unit_unit_cost}): {items}.",
                           "Cost per unit served, by {F}: {items}.",
                           "Unit service costs: {items}."),
                          ("{e} {v}", "to {e} {v}"),
                          ("from {e}: {items}", "{e} charges {items}"),
                          label="cost per unit served"),
    },
    rules=(
        _SERVED,
        Rule(("capacity_limit",), (
            "An open {F} cannot serve more than its capacity, and a closed one serves "
            "nothing.",
            "{a_F} we do not open serves no one; one we open stays within its capacity.",
            "What {a_F} serves must fit its capacity, and only open {Fs} serve at all."),
            ("An open {F} serves no more than its capacity; a closed one serves nothing.",)),
        Rule((), ("{a_F} is either opened or not.", "Each {F} is a yes-or-no decision.",
                  "We cannot open part of {a_F}.")),
        _SPLIT,
    ),
    goals=FACILITY.goals,
    objective="opening and service cost in {money}",
    asks=FACILITY.asks,
    report=FACILITY.report,
    settled=("y",),
)

BLENDING = Telling(
    openings=(
        "Our {maker} has to prepare {val_amount} of {product} from {n_I} {Is}{names_I}.",
        "We are a {maker}. The next {batch} is {val_amount} of {product}, blended from "
        "{n_I} {Is}.",
        "I need to blend {val_amount} of {product}; {n_I} {Is}{names_I} are available and "
        "the mix must respect limits on {n_A} {As}{names_A}.",
        "For the coming {batch} of {product} ({val_amount}) we can draw on {n_I} {Is}.",
    ),
    context=("The {As} of the mix are averages, weighted by how much of each {I} goes in.",
             "Cheaper {Is} tend to push the {As} out of specification.",
             "The {batch} must be exactly the agreed size."),
    facts={
        "amount": Fact(("The {batch} is {V}.", "We need exactly {V} in total.",
                        "Total to produce: {V}."), label="amount to blend"),
        "cost": Fact(("Prices ({unit_cost}): {items}.", "What each {I} costs: {items}.",
                      "The {Is} cost {items}."),
                     ("{e} {V}", "{e} at {V}"), label="price"),
        "available": Fact(("Stock available: {items}.", "We hold {items}.",
                           "At most this much of each {I} is on hand: {items}."),
                          ("{e} {V}", "{e} has {V}"),
                          label="stock on hand"),
        "content": Fact(("Each {I} brings these {As} ({unit_content}): {items}.",
                         "{A} content of the {Is} ({unit_content}): {items}.",
                         "Lab values ({unit_content}): {items}."),
                        ("{e} {v}",),
                        ("for {e}, {items}", "{e}: {items}"),
                        label="content"),
        "low": Fact(("The blend must average at least these levels: {items}.",
                     "Minimum averages in the finished {product}: {items}.",
                     "Lower limits: {items}."),
                    ("{e} {V}", "{e} at {V}"), label="lowest average"),
        "high": Fact(("Maximum averages: {items}.", "Maximum averages allowed: {items}.",
                      "Upper limits: {items}."),
                     ("{e} {V}", "{e} at {V}"), label="highest average"),
    },
    rules=(
        Rule(("total_amount",), ("The {batch} has to come out at exactly the agreed amount.",
                                 "We must blend exactly the ordered quantity.",
                                 "Nothing more and nothing less than the ordered amount."),
             ("The blend makes exactly the required amount.",)),
        Rule(("at_least", "at_most"), (
            "For every {A}, the average over the whole {batch} has to lie between its lower "
            "and upper limit.",
            "Each {A} of the finished {product} must stay within its limits, measured as "
            "the average of the mix.",
            "The mix is only acceptable if every {A}'s average falls inside its range."),
            ("Each {A} reaches its lowest average.", "Each {A} stays below its highest average.")),
        Rule((), ("We cannot use more of any {I} than we have in stock.",
                  "No {I} can be used beyond what is on hand.",
                  "Stock limits apply to every {I}.")),
        divisible("x", "Any amount of {a_I} can go in; it need not be whole {amount}.",
                  "The {Is} are measured out freely, in fractions of {amount} too.",
                  "Amounts of the {Is} do not have to be whole {amount}."),
    ),
    goals=("We want the cheapest blend that meets the specification.",
           "The blend should cost as little as possible.",
           "Please minimise the cost of the {batch}."),
    objective="cost of the blend in {money}",
    asks=("How much of each {I} should go in, and what does the {batch} cost?",
          "What recipe do you suggest, and at what cost?"),
    presumes={"The {batch} must be exactly the agreed size.": ("total_amount",),
              "We need exactly {V} in total.": ("total_amount",)},
    report={"x": "{v} {amount} of {i}"},
)

DIET = Telling(
    openings=(
        "As the {planner}, I have to put together a daily menu from {n_F} {Fs}{names_F}.",
        "We plan what each {who} gets every day, choosing among {n_F} {Fs}, so that "
        "{n_N} {N} targets{names_N} are met.",
        "Our {planner} needs a daily plan: how much of each of {n_F} {Fs} should each {who} "
        "{eat}?",
        "Every day a {who} must get enough of {n_N} {Ns}{names_N}, from {n_F} {Fs}.",
    ),
    context=("Budgets are tight this year.", "Variety matters less than cost, within limits.",
             "Portions can be fractional."),
    facts={
        "cost": Fact(("Prices ({unit_cost}): {items}.", "One unit of each {F} costs {items}.",
                      "Cost per unit: {items}."), ("{e} {V}", "{e} at {V}"), label="price"),
        "content": Fact(("What one unit of each {F} provides ({unit_content}): {items}.",
                         "{N} content per unit ({unit_content}): {items}."),
                        ("{e} {v}",), ("for {e}, {items}", "{e}: {items}"),
                        label="content per unit"),
        "need": Fact(("Daily targets: {items}.",
                      "Each day a {who} needs at least this much: {items}.",
                      "Minimum daily intake: {items}."),
                     ("{e} {V}",), label="daily requirement"),
        "limit": Fact(("No more than this per day: {items}.",
                       "Daily caps per {F}: {items}.",
                       "Daily limits, not to be exceeded: {items}."),
                      ("{e} {V}", "{e} up to {V}"), label="daily maximum"),
    },
    rules=(
        Rule(("requirement",), ("Every {N} target has to be reached.",
                                "Each {N} requirement must be met every day.",
                                "The menu has to cover all {N} targets."),
             ("Each {N} requirement is met.",)),
        Rule((), ("Daily caps per {F} must be respected; amounts need not be whole {unit}.",
                  "No {F} beyond its daily cap, though fractions of {unit} are fine.",
                  "Amounts can be fractional but never above the cap."), types={"x": "C"}),
    ),
    goals=("We want the cheapest daily menu that meets the targets.",
           "The plan should cost as little as possible per day.",
           "Please keep the daily cost to a minimum."),
    objective="daily cost in {money}",
    asks=("How much of each {F} per day, and what does that cost?",
          "What daily menu do you recommend, and at what cost?"),
    report={"x": "{v} {unit} of {f}"},
)

TELLINGS = {"transportation": TRANSPORTATION, "facility_location": FACILITY,
            "facility_location_cap": FACILITY_CAP, "blending": BLENDING, "diet": DIET}
