"""Tellings of decisions under uncertainty: two-stage capacity over demand scenarios, a
product mix protected against overrunning times (a budget of uncertainty), and safety stocks
under a service rule over past periods."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible, whole

TWO_STAGE = Telling(
    openings=(
        "Our {org} must decide how many {modules} to install at each of {n_P} "
        "{Ps}{names_P} before we know what the {season} will bring for our {n_C} "
        "{Cs}{names_C}.",
        "We are getting ready for the {season}: {n_P} {Ps}{names_P} can take {modules}, and "
        "{n_C} {Cs}{names_C} will want amounts we cannot know yet.",
        "As the {org}, I have to fix the number of {modules} at each {P} now; what each {C} "
        "will want depends on how the {season} turns out, and our planners have drawn up "
        "{n_S} {Ss}{names_S} for that.",
        "Before the {season} starts we commit to {modules} at {n_P} {Ps}{names_P}; {n_S} "
        "{Ss}{names_S} describe what our {n_C} {Cs} might want.",
    ),
    context=("Once the {season} has started, the {modules} are fixed; all we can still choose "
             "is which {P} serves which {C}.",
             "Building for the best case would leave {modules} idle in most {Ss}, and "
             "building too little means {unmet}.",
             "Demand we cannot serve is {lost}, and that has a price."),
    facts={
        "prob": Fact(("How likely each {S} is: {items}.",
                      "The planners put these probabilities on the {Ss}: {items}.",
                      "Probabilities of the {Ss}: {items}."),
                     ("{e} {v}", "{e} has probability {v}"), label="probability"),
        "demand": Fact(("What each {C} would want in each {S} ({unit_demand}): {items}.",
                        "Demand by {C} and {S} ({unit_demand}): {items}.",
                        "The {Ss} in figures, {C} by {C} ({unit_demand}): {items}."),
                       ("{e} {v}", "in {e} {v}"), ("for {e}, {items}", "{e}: {items}"),
                       label="demand"),
        "size": Fact(("One {module} handles, by {P}: {items}.",
                      "The capacity of a single {module} at each {P}: {items}.",
                      "Each {module} we install adds this much capacity: {items}."),
                     ("{e} {V}", "at {e} {V}"), label="capacity of one {module}"),
        "most": Fact(("The most {modules} each {P} has room for: {items}.",
                      "Room for {modules}: {items}.",
                      "No {P} can take more {modules} than this: {items}."),
                     ("{e} {v}", "{e} {V}"), label="room for {modules}"),
        "module_cost": Fact(("Installing one {module} costs ({unit_module_cost}): {items}.",
                             "What a {module} costs at each {P} ({unit_module_cost}): "
                             "{items}.",
                             "Cost of one {module}, by {P}: {items}."),
                            ("{e} {v}", "{e} {V}"), label="cost of one {module}"),
        "ship_cost": Fact(("What it costs to {make} one unit from each {P} to each {C} "
                           "({unit_ship_cost}): {items}.",
                           "Operating cost per unit, by {P} and {C} ({unit_ship_cost}): "
                           "{items}.",
                           "Unit costs from each {P} to each {C} ({unit_ship_cost}): "
                           "{items}."),
                          ("{e} {v}", "to {e} {v}"), ("from {e}: {items}", "for {e}, {items}"),
                          label="cost per unit"),
        "penalty": Fact(("The penalty for {unmet}, per unit, by {C} ({unit_penalty}): "
                         "{items}.",
                         "Every unit {lost} costs us ({unit_penalty}): {items}.",
                         "Penalties for {unmet} ({unit_penalty}): {items}."),
                        ("{e} {v}", "{e} {V}"), label="penalty per unit {lost}"),
    },
    rules=(
        Rule(("capacity_limit",), (
            "In any {S}, what a {P} delivers cannot exceed the capacity of the {modules} "
            "installed there.",
            "Whichever {S} comes true, a {P} can deliver no more than its {modules} handle: "
            "the number installed times the capacity of one.",
            "A {P} delivers at most what its {modules} can handle, in every {S}."),
            ("In every {S}, a {P} delivers no more than its {modules} can handle.",)),
        Rule(("demand_met",), (
            "In each {S}, every {C}'s demand is either delivered from the {Ps} or counted as "
            "{unmet}, at the penalty.",
            "Whatever demand a {C} has in a {S} is served from some {P}s or else {lost}, and "
            "each unit {lost} costs its penalty.",
            "In every {S}, demand that no {P} delivers to a {C} is {lost} and paid for at "
            "the penalty."),
            ("In every {S}, each {C}'s demand is delivered or counted as {unmet}.",)),
        Rule((), (
            "The {modules} are installed once, before we know which {S} comes true; the "
            "deliveries are then planned {S} by {S}.",
            "We choose the {modules} now, the same for every {S}; how to serve the {Cs} can "
            "wait until we see which {S} we are in.",
            "The number of {modules} is settled up front for all {Ss}; only the deliveries "
            "may differ from one {S} to the next.")),
        whole("y", "{modules} come whole: we install a whole number at each {P}, within the "
                   "room there.",
              "We install whole {modules} only, and never more than a {P} has room for.",
              "Only whole {modules} can be installed, up to the room at each {P}."),
        divisible(("x", "u"), "Deliveries and {unmet} need not be whole units.",
                  "Amounts delivered or {lost} can be fractional.",
                  "Delivered and {lost} amounts may be fractions; they need not be whole "
                  "units."),
    ),
    goals=("We want the lowest total: the {modules} we install plus the expected delivery "
           "and penalty cost, each {S} weighted by its probability.",
           "The aim is the least {module} cost plus expected operating and penalty cost over "
           "the {Ss}.",
           "Please keep the cost of the {modules} plus the probability-weighted cost of "
           "deliveries and {unmet} as low as possible."),
    objective="{module} cost plus expected delivery and penalty cost in {money}",
    asks=("How many {modules} should we install at each {P}, how would we serve each {C} in "
          "each {S}, and what is the expected total cost?",
          "What should we install where, and what does the plan cost on average over the "
          "{Ss}?"),
    report={"y": "{v} {modules} at {p}", "x": "{v} from {p} to {c} in {s}",
            "u": "{v} {lost} in {c} in {s}"},
    settled=("y",),
)

ROBUST_MIX = Telling(
    openings=(
        "Our {org} decides how many {qty} of each of {n_J} {Js}{names_J} to {make} this "
        "{week}, on {n_R} {Rs}{names_R}.",
        "We are planning this {week}: {n_J} {Js}{names_J}, each needing {use} on some of "
        "our {n_R} {Rs}{names_R}.",
        "As the {org}, I want a plan for the {week} that still works when some {uses} run "
        "long; we have {n_J} {Js} and {n_R} {Rs}.",
        "This {week} we can {make} {n_J} {Js}{names_J}; each takes {use} on some of our "
        "{n_R} {Rs}, and those times are never quite what the book says.",
    ),
    context=("Last time a few {uses} ran long together and the plan fell apart.",
             "The figures we plan with are typical times; each can run over by up to a known "
             "amount.",
             "It is very unlikely that everything runs over at once, so we only guard "
             "against a few overruns on each {R}."),
    facts={
        "profit": Fact(("What each {J} earns ({unit_profit}): {items}.",
                        "{gain} per unit ({unit_profit}): {items}.",
                        "Each unit {made} brings in ({unit_profit}): {items}."),
                       ("{e} {v}", "{e} {V}"), label="{gain} per unit"),
        "market": Fact(("The most {qty} that {market}: {items}.",
                        "Upper limits, set by what {market} ({unit_market}): {items}.",
                        "At most this many of each {J}: {items}."),
                       ("{e} {v}", "{e} {V}"), label="limit on {qty}"),
        "use": Fact(("Typical {use} per unit, by {R} ({unit_use}): {items}.",
                     "The usual {use} one unit needs on each {R} ({unit_use}): {items}.",
                     "Nominal {uses} per unit ({unit_use}): {items}."),
                    ("{e} {v}",), ("on {e}: {items}", "{e}: {items}"),
                    label="typical {use} per unit"),
        "dev": Fact(("How far each {use} per unit can run over, by {R} ({unit_dev}): {items}.",
                     "The most a unit's {use} can overrun on each {R} ({unit_dev}): {items}.",
                     "Worst overruns per unit ({unit_dev}): {items}."),
                    ("{e} {v}",), ("on {e}: {items}", "{e}: {items}"),
                    label="most overrun per unit"),
        "capacity": Fact(("{time} available this {week}: {items}.",
                          "Each {R} is free for {items}.",
                          "Available {time}: {items}."),
                         ("{e} {V}", "{e} has {V}"), label="capacity in {time}"),
        "gamma": Fact(("How many {Js} on each {R} we guard against overrunning at once: "
                       "{items}.",
                       "The number of overruns each {R} must absorb together: {items}.",
                       "Overruns to guard against, by {R}: {items}."),
                      ("{e} {v}",), label="number of overruns guarded against"),
    },
    rules=(
        Rule(("robust_capacity", "protection"), (
            "On every {R}, the plan must fit the {time} available even if the {uses} of up "
            "to the agreed number of {Js} run over by their full amount at once, whichever "
            "{Js} those turn out to be.",
            "Each {R}'s {time} must cover the typical {use} of the whole plan plus the "
            "overruns of the agreed number of {Js} whose overruns would hurt most there.",
            "For each {R}: typical {use} of everything {made}, plus the full overrun of "
            "whichever {Js} (up to the agreed number) overrun the most, must stay within "
            "the {time} available."),
            ("On every {R}, the nominal {time} plus the protection against overruns fit the "
             "{time} available.",
             "The protection of a {J} on a {R} covers its overrun beyond the price of "
             "protection.")),
        Rule((), ("We never {make} more of a {J} than {market}.",
                  "No {J} is {made} beyond what {market}.")),
        whole("x", "We only {make} whole {qty}.", "{qty} are {made} whole; fractions are of "
              "no use."),
    ),
    goals=("We want the most {gain} from a plan that is safe in this sense.",
           "The aim is the highest total {gain} among plans that survive the overruns.",
           "Please find the protected plan with the greatest {gain}."),
    objective="total {gain} in {money}",
    asks=("How many {qty} of each {J} should we {make}, and what {gain} does the plan give?",
          "What is the best protected plan, and how much {gain} does it make?"),
    report={"x": "{v} {qty} of {j}"},
    settled=("x",),
    auxiliaries=("z", "w"),
)

SAFETY_STOCK = Telling(
    openings=(
        "Our {org} has to decide how much of each of {n_I} {Is}{names_I} to {buy} for the "
        "coming {period}.",
        "We {buy} {n_I} {Is}{names_I} before we know the demand, and we judge each amount "
        "against {n_S} comparable {Ss}.",
        "As the {org}, I set the stock of our {n_I} {Is} for the next {period}; the demand "
        "of {n_S} comparable {Ss} shows what it might be.",
        "Before the {period} starts we must {buy} {n_I} {Is}{names_I}; {n_S} {Ss} tell us "
        "what demand can look like.",
    ),
    context=("Whatever is not sold in the {period} is of no value to us afterwards.",
             "Running out annoys customers, so management wants a service target for every "
             "{I}.",
             "We treat each of the {Ss} as one equally likely picture of the coming "
             "{period}."),
    facts={
        "demand": Fact(("Demand in each {S} ({unit_demand}): {items}.",
                        "What each {I} sold in the {Ss} ({unit_demand}): {items}.",
                        "Demand by {I} and {S} ({unit_demand}): {items}."),
                       ("{e} {v}", "in {e} {v}"), ("for {e}, {items}", "{e}: {items}"),
                       label="demand"),
        "price": Fact(("Selling prices ({unit_price}): {items}.",
                       "We sell at ({unit_price}): {items}.",
                       "Each unit sold brings ({unit_price}): {items}."),
                      ("{e} {v}",), label="selling price"),
        "cost": Fact(("What each unit {stocked} costs us ({unit_cost}): {items}.",
                      "Unit costs ({unit_cost}): {items}.",
                      "Each {I} costs us ({unit_cost}): {items}."),
                     ("{e} {v}",), label="unit cost"),
        "need": Fact(("Service targets, as a number of {Ss} covered: {items}.",
                      "The number of {Ss} each {I} has to cover: {items}.",
                      "How many of the {n_S} {Ss} each {I} must cover: {items}."),
                     ("{e} {v}",), label="number of {Ss} to cover"),
        "space": Fact(("{space} one unit takes ({unit_space}): {items}.",
                       "Each unit needs ({unit_space}): {items}.",
                       "Room per unit ({unit_space}): {items}."),
                      ("{e} {v}",), label="{space} per unit"),
        "limit": Fact(("We have {V} of {space} in all.",
                       "The {space} comes to {V}.",
                       "There is room for {V}."),
                      label="{space} available"),
    },
    rules=(
        Rule(("sell_from_stock",), (
            "We cannot sell more of a {I} than we have in stock, nor more than the demand.",
            "What we sell in a {S} is the smaller of the stock and that {S}'s demand.",
            "Sales of a {I} are limited both by its stock and by the demand."),
            ("No more of a {I} is sold than is in stock.",)),
        Rule(("covered_only", "service"), (
            "A {I} counts as covered in a {S} only if its stock reaches that {S}'s demand, "
            "and each {I} must be covered in at least its agreed number of {Ss}.",
            "Each {I}'s stock must reach the demand of at least the agreed number of {Ss}.",
            "The service target: for each {I}, the stock must be at least the demand in at "
            "least the agreed number of {Ss}."),
            ("A {S} counts as covered for a {I} only if its stock meets that demand.",
             "Each {I}'s stock covers the demand of at least the agreed number of {S}s.")),
        Rule(("space_limit",), (
            "Everything we {buy} must fit the {space}: {val_limit} in all.",
            "The stock together may not take more than {val_limit} of {space}.",
            "All the stock has to fit in {val_limit}."),
            ("The stock fits the {space}.",)),
        Rule((), ("Each of the {n_S} {Ss} counts as equally likely.",
                  "We weigh the {n_S} {Ss} equally: each is as likely as the others.",
                  "All {n_S} {Ss} are taken as equally likely.")),
        whole("stock", "We {buy} whole {qty} only.", "Stock comes in whole {qty}."),
    ),
    goals=("We want the greatest expected margin: sales at the selling price, averaged over "
           "the {Ss} as equally likely, less the cost of everything {stocked}.",
           "The aim is the highest expected margin, with each {S} counted as equally likely: "
           "average sales revenue minus the cost of the stock.",
           "Please maximise the average over the {Ss} of what we sell, at the selling "
           "price, less what the stock costs."),
    objective="expected margin in {money}",
    asks=("How much of each {I} should we {buy}, and what margin do we expect?",
          "What stock do you recommend for each {I}, and what is the expected margin?"),
    report={"stock": "{v} {qty} of {i}"},
    settled=("stock",),
    auxiliaries=("covered",),
)

TELLINGS = {"two_stage_capacity": TWO_STAGE, "robust_mix": ROBUST_MIX,
            "safety_stock": SAFETY_STOCK}
