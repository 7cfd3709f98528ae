"""Tellings of word problems: product mixes with ratio rules, fleet mixes in whole units,
goal programmes and purchasing under quantity discounts."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible, whole

MIX = Telling(
    openings=(
        "We {make} {n_P} {Ps}{names_P}, and each {one} needs {res_unit} {at_R} {n_R} "
        "{Rs}{names_R}.",
        "Our {org} has to decide how many {unit} {of} each of its {n_P} {Ps}{names_P} to "
        "{make} this {period}.",
        "I run the planning at our {org}: this {period} we have {n_P} {Ps}{names_P} to "
        "plan for, and they all draw on the same {Rs}.",
        "This {period} our {n_R} {Rs}{names_R} are shared among {n_P} {Ps}, and we need a "
        "plan for how many {unit} {of} each to {make}.",
    ),
    context=("Every {P} competes for the same {res_unit}.",
             "Last {period} we simply repeated the old plan, and we suspect it left money on "
             "the table.",
             "The mix rules come from long-standing commitments, so they are not negotiable."),
    facts={
        "gain": Fact(("{gain} per {one} ({unit_gain}): {items}.",
                      "What one {one} brings in {gain} ({unit_gain}): {items}."),
                     ("{e} {v}",), label="{gain} per {one}"),
        "use": Fact(("{res_unit} needed per {one} ({unit_use}): {items}.",
                     "How many {res_unit} one {one} needs {at_R} each {R}: {items}."),
                    ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"),
                    label="{res_unit} per {one}"),
        "avail": Fact(("{res_unit} available this {period}: {items}.",
                       "This {period} we have {items}."),
                      ("{e} {V}",), label="{res_unit} available"),
        "cost": Fact(("{cost_noun} per {one} ({unit_cost}): {items}.",
                      "What one {one} costs us in {cost_word} ({unit_cost}): {items}."),
                     ("{e} {v}",), label="{cost_noun} per {one}"),
        "budget": Fact(("Our {budget_word} is {V}.", "We have {V} to spend on {cost_word}."),
                       label="{budget_word}"),
        "total_cap": Fact(("We have {total_what} for {V} at most.",),
                          label="most {unit} in total"),
        "min_first": Fact(("Minimum {unit} {of} {first_P}: {V}.",),
                          label="minimum {unit} {of} {first_P}"),
        "share": Fact(("Minimum share of {first_P}: {V}.",),
                      label="minimum share of {first_P}"),
        "ratio": Fact(("Largest ratio of {last_P} to {first_P}: {V}.",),
                      label="largest ratio of {last_P} to {first_P}"),
    },
    rules=(
        Rule(("resource_limit",), (
            "The {res_unit} used {at_R} each {R} cannot exceed what is available.",
            "No {R} can give more {res_unit} than it has this {period}.",
            "We cannot plan beyond the {res_unit} available {at_R} any {R}.")),
        Rule(("budget_limit",), (
            "The {cost_word} for the whole plan must stay within {val_budget}.",
            "We cannot spend more than {val_budget} on {cost_word}.")),
        Rule(("total_limit",), (
            "Altogether we cannot {make} more than {val_total_cap}.",
            "In total, at most {val_total_cap} can be {made}.")),
        Rule(("first_minimum",), (
            "The {unit} {of} {first_P} must reach at least {val_min_first}.",
            "{first_P} needs at least {val_min_first} in the plan.")),
        Rule(("min_share",), (
            "The share of {first_P} in all the {unit} we {make} must be at least "
            "{val_share}.",
            "Of all the {unit} we {make}, {first_P} must account for a share of at least "
            "{val_share}.")),
        Rule(("ratio_limit",), (
            "The ratio of {last_P} to {first_P}, counted in {unit}, cannot exceed "
            "{val_ratio}.",
            "Counted in {unit}, the ratio of {last_P} to {first_P} must stay at or below "
            "{val_ratio}.")),
        whole("x", "We can only {make} whole {unit}; part of a {one} is of no use.",
              "Only whole {unit} count, never fractions.",
              "Everything is counted in whole {unit}."),
        divisible("x", "Fractions of a {one} are fine; the plan need not be in whole {unit}.",
                  "Any amount can be {made}, including fractions of a {one}.",
                  "The amounts need not be whole {unit}."),
    ),
    goals=("We want the highest total {gain} we can get.",
           "The aim is to get the total {gain} as high as possible.",
           "Please find the plan with the largest total {gain}."),
    objective="total {gain} in {gain_unit}",
    asks=("How many {unit} {of} each {P} should we {make}, and what total {gain} does that "
          "give?",
          "What should the plan be for each {P}, and what is its total {gain}?"),
    report={"x": "{v} {unit} {of} {p}"},
    settled=("x",),
)

FLEET = Telling(
    openings=(
        "Our {org} has to decide how many {Ks} of each type to {hire}: {n_K} types are on "
        "offer{names_K}.",
        "We have a fixed requirement to meet, and {n_K} types of {K}{names_K} to meet it "
        "with.",
        "At our {org} I must choose a mix of {Ks} from {n_K} types{names_K}.",
        "The question is how many {Ks} of each of {n_K} types{names_K} we should {hire}.",
    ),
    context=("The types differ in what they handle and in what they cost.",
             "Bigger is not always better value for us.",
             "We have been asked to write down our reasoning for the mix."),
    facts={
        "capacity": Fact(("Capacity per {K} ({unit_capacity}): {items}.",
                          "What one {K} of each type handles ({unit_capacity}): {items}."),
                         ("{e} {v}",), label="capacity"),
        "cost": Fact(("Cost per {K} ({unit_cost}): {items}.",
                      "One {K} of each type costs ({unit_cost}): {items}."),
                     ("{e} {v}",), label="cost"),
        "demand": Fact(("We have to {cover} {V}.", "The requirement is {V}."),
                       label="{req} to cover"),
        "res_use": Fact(("{res} per {K} ({unit_res_use}): {items}.",
                         "Each type's {res} ({unit_res_use}): {items}."),
                        ("{e} {v}",), label="{res}"),
        "res_cap": Fact(("Our {res_cap_word} is {V}.", "The {res_cap_word} comes to {V}."),
                        label="{res_cap_word}"),
        "max_last": Fact(("We can get at most {V} of type {last_K}.",
                          "Only {V} of type {last_K} are available."),
                         label="most {Ks} of type {last_K}"),
        "budget": Fact(("Our {budget_word} is {V}.", "We can spend {V} at most."),
                       label="{budget_word}"),
    },
    rules=(
        Rule(("cover",), (
            "Together, the {Ks} must handle at least {val_demand}.",
            "The {Ks} we {hire} must cover the whole requirement of {val_demand}.")),
        Rule(("more_first",), (
            "We must {hire} more {first_K} {Ks} than {last_K} {Ks}; the same number of each "
            "is not enough.",
            "The number of {first_K} {Ks} has to be strictly greater than the number of "
            "{last_K} {Ks}.")),
        Rule(("last_limit",), (
            "The number of {last_K} {Ks} cannot exceed {val_max_last}.",
            "We can have no more {last_K} {Ks} than {val_max_last}.")),
        Rule(("res_limit",), (
            "The total {res} of the {Ks} must stay within {val_res_cap}.",
            "The {Ks} together must keep their {res} within {val_res_cap}.")),
        Rule(("budget_limit",), (
            "The {Ks} together must cost no more than {val_budget}.",
            "We cannot spend more than {val_budget} on the {Ks}.")),
        whole("x", "We can only {hire} whole {Ks}.",
              "{Ks} come in whole numbers, never fractions.",
              "Each type is counted in whole {Ks}."),
    ),
    goals=("We want the {goal_noun} as low as possible.",
           "Please keep the {goal_noun} to a minimum.",
           "The aim is the lowest possible {goal_noun}."),
    objective="{obj}",
    asks=("How many {Ks} of each type should we {hire}, and what is the {goal_noun}?",
          "Which mix of {Ks} do you recommend, and what {goal_noun} does it give?"),
    report={"x": "{v} of type {k}"},
    settled=("x",),
)

_DEVIATIONS = ("profit_short", "profit_extra", "volume_short", "volume_extra", "idle",
               "overtime")

GOALS = Telling(
    openings=(
        "Our {org} makes {n_P} {Ps}{names_P}, and this {period}'s plan has to balance "
        "several goals.",
        "We are planning the {period}'s output of {n_P} {Ps} at our {org}, and we cannot "
        "meet every goal at once.",
        "At our {org} I have to decide how much of each {P} to {make}; management has set "
        "goals for profit, output and hours.",
        "We {make} {n_P} {Ps}{names_P}, using our {Ds}{names_D} and {Rs}{names_R}, and we "
        "have targets we would like to hit.",
    ),
    context=("Management has weighed how much each missed goal hurts.",
             "Beating a target is welcome, but it earns no credit.",
             "The targets are ambitious on purpose."),
    facts={
        "profit": Fact(("Profit per {one} ({unit_profit}): {items}.",
                        "Each {one} earns ({unit_profit}): {items}."),
                       ("{e} {v}",), label="profit per {one}"),
        "hours": Fact(("Hours per {one} in each {D} ({unit_hours}): {items}.",
                       "How many hours one {one} needs in each {D}: {items}."),
                      ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"),
                      label="hours per {one}"),
        "use": Fact(("{Rs} per {one} ({unit_use}): {items}.",
                     "How much of each {R} one {one} uses ({unit_use}): {items}."),
                    ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"),
                    label="{R} per {one}"),
        "avail": Fact(("{Rs} in stock this {period}: {items}.",
                       "This {period} we have {items}."),
                      ("{e} {V}",), label="{R} available"),
        "profit_target": Fact(("The profit target is {V}.", "Management wants a profit of "
                               "{V}."), label="profit target"),
        "volume_target": Fact(("The output target is {V} in total.",
                               "To keep our market share we want {V} in total."),
                              label="output target"),
        "hours_target": Fact(("Regular hours this {period}: {items}.",
                              "Regular hours per {D}: {items}."),
                             ("{e} {V}",), label="regular hours"),
        "w_profit": Fact(("In our scoring, profit below target weighs {V}.",
                          "Profit short of the target costs {V}."),
                         label="penalty for missed profit"),
        "w_volume": Fact(("Output below target weighs {V}.",
                          "Output short of the target costs {V}."),
                         label="penalty for missed output"),
        "w_over": Fact(("Overtime weighs ({unit_w_over}): {items}.",
                        "Each hour beyond the regular hours is penalised ({unit_w_over}): "
                        "{items}."),
                       ("{e} {v}",), label="overtime penalty"),
    },
    rules=(
        Rule(("profit_goal",), (
            "We aim for a profit of at least {val_profit_target}; every {money} short of it "
            "counts against the plan, and going beyond it earns nothing extra.",
            "The profit target is a goal rather than a hard limit; falling short of "
            "{val_profit_target} is penalised per {money}, and beating it is not rewarded.")),
        Rule(("volume_goal",), (
            "Our output goal is {val_volume_target}; each {one} short of it is penalised, "
            "and more output earns nothing extra.",
            "Each {one} of output short of {val_volume_target} is penalised; there is no "
            "credit for exceeding it.")),
        Rule(("hours_goal",), (
            "Each {D} has its regular hours; hours beyond them are overtime and are "
            "penalised per hour, while regular hours left unused cost nothing.",
            "Going over a {D}'s regular hours is allowed but penalised per overtime hour; "
            "staying under them is free.")),
        Rule(("material_limit",), (
            "We cannot use more of any {R} than we have this {period}.",
            "The {Rs} in stock are a hard limit.")),
        divisible("x", "Quantities need not be whole {unit}.",
                  "Fractions of a {one} are fine in the plan."),
    ),
    goals=("We want the plan whose missed goals weigh the least, by our weights.",
           "Please minimise the total weighted penalty for missed goals.",
           "The aim is the smallest total penalty over all goals."),
    objective="weighted penalty for missed goals in points",
    asks=("How much of each {P} should we {make}, and what total penalty does that leave?",
          "What plan do you recommend, which goals does it miss, and by how much?"),
    report={"x": "{v} {unit} of {p}"},
    auxiliaries=_DEVIATIONS,
)

BUYING = Telling(
    openings=(
        "Our {org} buys {n_M} {Ms}{names_M} from {n_S} {Ss}{names_S}, and every {S} gives "
        "quantity discounts.",
        "We have to place this {period}'s orders for {n_M} {Ms}; {n_S} {Ss}{names_S} can "
        "supply them, each with its own price tiers.",
        "For our {org} I need to decide how much of each {M} to buy from each {S}; the "
        "price per {one} drops the more we buy.",
    ),
    context=("The discounts only apply to what is bought beyond each price break.",
             "Splitting an order over several {Ss} is allowed.",
             "Our {Ss} deliver everything at the start of the {period}."),
    facts={
        "demand": Fact(("This {period} we need {items}.", "Requirements: {items}."),
                       ("{e} {V}",), label="requirement"),
        "cap": Fact(("Most each {S} can deliver in total, all {Ms} together: {items}.",
                     "Delivery limits per {S}: {items}."),
                    ("{e} {V}",), label="delivery limit"),
        "size": Fact(("How many {unit} each price tier covers, in order, for every {M}: "
                      "{items}.",
                      "Size of each price tier ({unit_size}), {S} by {S}: {items}."),
                     ("{e} {V}",), ("{e}: {items}", "for {e}, {items}"),
                     label="tier size"),
        "price": Fact(("Prices per {one} in each tier ({unit_price}): {items}.",
                       "What each tier charges per {one} ({unit_price}): {items}."),
                      ("{e} {v}",), ("for {e}, {items}",), label="price per {one}"),
    },
    rules=(
        Rule(("meet_demand",), ("We must buy at least what we need of every {M}.",
                                "Every {M} requirement has to be covered.")),
        Rule(("supplier_cap",), ("No {S} can deliver more than its limit, all {Ms} together.",
                                 "Each {S}'s delivery limit covers everything we order from "
                                 "it.")),
        Rule(("tier_use", "tier_order"), (
            "The discounts are incremental, for each {M} at each {S}: the first {unit} are "
            "charged at the {first_T} price, and the next tier's lower price applies only to "
            "what is bought beyond the full {first_T} amount, and so on; no tier covers more "
            "than its size.",
            "Price breaks work tier by tier for each {M} and {S}: a tier is only reached once "
            "every tier before it is bought in full, each tier's {unit} are billed at its own "
            "price, and a tier holds no more than its size.")),
        divisible("q", "Orders need not be whole {unit}.",
                  "Fractions of a {one} can be ordered."),
    ),
    goals=("We want everything we need at the lowest total purchase cost.",
           "Please keep the purchase cost as low as possible.",
           "The aim is the cheapest set of orders."),
    objective="purchase cost in {money}",
    asks=("How much of each {M} should we buy from each {S}, and what does it cost?",
          "Which orders do you recommend, and what is their total cost?"),
    report={"q": "{v} {unit} of {m} from {s} in {t}"},
    auxiliaries=("y",),
)

TELLINGS = {"product_mix_ratio": MIX, "fleet_mix": FLEET, "goal_programming": GOALS,
            "piecewise_procurement": BUYING}
