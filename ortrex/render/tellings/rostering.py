"""Tellings of rostering and of plans judged by several objectives: a weekly staff roster on
days-off patterns (counts per pattern and shift, or named staff with requests for days off),
a production plan scored by weighted profit, emissions and overtime, and a plan that serves
as many orders as possible before it looks at cost.

A nurse roster has two shapes: counts of staff per pattern and shift (small and medium) and
named staff, one pattern each, with their requests (large). Wordings that name what only one
shape has (``{K}``, ``{S}``, the refusal cost) are passed over in the other; each shape keeps
its own rule for the cover, told from its own meaning."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible, whole

# ------------------------------------------------------------------ nurse rostering
NURSE = Telling(
    openings=(
        "Our {org} rosters its {staff} week by week on {n_P} {Ps}{names_P}; each one is a "
        "run of working {Ds} in a row, with the {Ds} off together.",
        "We need next week's roster for the {staff} of our {org}: every {person} follows "
        "one of our {n_P} {Ps}, and each {D} has to be covered.",
        "As the {org}, I have to decide how many {staff} go on each {P} in each {K}, so that "
        "there are enough of them {where} on every {D}.",
        "Every week we cover {n_D} {Ds} in {n_K} {Ks}{names_K} with {staff} on fixed weekly "
        "{Ps}, and I would like to do it for less.",
        "We have {n_S} {Ss} on our books, and each of them needs a {P} for next week, or "
        "the week off.",
        "Next week's roster {where} is mine to draw up: {n_S} {Ss}, {n_P} possible {Ps}, and "
        "a list of requests for {Ds} off.",
    ),
    context=(
        "A {P} is the same every week, so a {person} on it always has the same {Ds} off.",
        "Weekend work carries a premium, and that is already in the costs below.",
        "Cover is not negotiable: a {D} short of {staff} is not an option for us.",
        "Every {S} has asked for one or more {Ds} off next week; we grant what we can, but "
        "cover comes first.",
    ),
    facts={
        "works": Fact(("The {Ps} we work with, and the {Ds} each one works: {items}.",
                       "Which {Ds} each {P} works: {items}.",
                       "Here are our {Ps} with their working {Ds}: {items}."),
                      group=("{e} works {items}", "{e}: {items}", "{e} covers {items}"),
                      label="works on the {D}", members=0, empty="no day"),
        "need": Fact(("How many {staff} we need on duty at the very least: {items}.",
                      "Minimum cover ({unit_need}): {items}.",
                      "We need at least this many {staff} {where}: {items}."),
                     ("{e} {v}", "{e} {V}"), ("on {e}: {items}", "{e}: {items}",
                                              "for {e}, {items}"),
                     label="minimum cover"),
        "cost": Fact(("What one {person} on each {P} costs us for the week ({unit_cost}): "
                      "{items}.",
                      "Weekly cost of one {person}, by {P} ({unit_cost}): {items}.",
                      "A {person} on each {P} costs us this much a week ({unit_cost}): "
                      "{items}."),
                     ("{e} {v}", "{e} {V}"), ("for {e}, {items}", "{e}: {items}"),
                     label="weekly cost of one {person}"),
        "request": Fact(("The {Ds} each {S} has asked to have off: {items}.",
                         "Requests for {Ds} off: {items}.",
                         "Who has asked for which {Ds} off: {items}."),
                        group=("{e} asked for {items}", "{e}: {items}",
                               "{e} would like {items} off"),
                        label="asked for the {D} off", members=0, empty="no day"),
        "refusal": Fact(("Each request for a {D} off that we turn down costs us {V}, on top "
                         "of the pay.",
                         "We reckon {V} for every request for a {D} off that we cannot "
                         "grant.",
                         "Turning down a request for a {D} off costs {V} each time."),
                        label="cost of a refused request"),
    },
    rules=(
        # Counts per pattern and shift (small and medium).
        Rule(("cover",), (
            "On every {D}, each {K} needs at least the number of {staff} given; a {person} "
            "counts on each {D} their {P} works, in their own {K}.",
            "Each {D}, the {staff} on duty in a {K} must reach the minimum cover for that {D} "
            "and {K}.",
            "No {K} may be short on any {D}: counting everyone whose {P} works that {D} in "
            "that {K}, the {staff} on duty must reach the number needed."),
            ("Every {D} has enough {staff} in every {K}.",)),
        Rule((), ("A {person} works the same {K} on every working {D} of their {P}.",
                  "Whoever is on a {P} keeps one {K} all week.",
                  "Nobody changes {K} during the week: a {person} on a {P} works the same "
                  "{K} on each of its {Ds}.")),
        whole("x", "We roster whole {staff}: how many go on each {P} in each {K} is a whole "
                   "number.",
              "Only whole {staff} can go on a {P}, of course.",
              "The number of {staff} on each {P} and {K} has to be a whole number."),
        # Named staff with their requests (large).
        Rule(("cover",), (
            "Every {D} needs at least the number of {staff} given, counting each {S} whose "
            "{P} works that {D}.",
            "The {Ss} on duty on a {D}, those whose {P} works it, must be at least the "
            "minimum cover.",
            "No {D} may be short: enough {Ss} must be on a {P} that works it."),
            ("Every {D} has enough {staff}.",)),
        Rule(("one_pattern",), (
            "Each {S} gets at most one {P}; someone we do not need can have the week off.",
            "A {S} follows a single {P} for the whole week, or is not rostered at all.",
            "Nobody splits the week between two {Ps}: each {S} is on one {P} or off for "
            "the week."),
            ("Every {S} works at most one {P}.",)),
        Rule((), (
            "If a {S} is put on a {P} that works a {D} they asked to have off, that request "
            "is refused, and every refused {D} costs {val_refusal}.",
            "A {S} whose {P} works a {D} they asked for off has that request turned down, "
            "at {val_refusal} for each such {D}.",
            "Each {D} a {S} asked for off but still works under their {P} counts as a "
            "refused request, at {val_refusal}.")),
    ),
    goals=("We want the cheapest roster that covers every {D}.",
           "Please keep the weekly staffing cost as low as possible.",
           "The aim is to cover the whole week at the lowest staffing cost.",
           "We want the lowest weekly cost, pay and refused requests together, with every "
           "{D} covered by our {Ss}."),
    objective="weekly staffing cost in {money}",
    asks=("How many {staff} should go on each {P} in each {K}, and what does the week "
          "cost?",
          "Which {P} should each {S} work, who gets the week off, and what does the roster "
          "cost?",
          "What roster do you recommend, and at what weekly cost?"),
    report={"x": "{v} on {p} in {k}", "y": "{s} on {p}"},
    settled=("x", "y"),
)

# ------------------------------------------------------------------ weighted objectives
WEIGHTED = Telling(
    openings=(
        "Our {org} plans how many {batches} of each of {n_P} {Ps}{names_P} to {make} in "
        "each of the next {n_T} {Ts}, on {n_M} {Ms}{names_M}.",
        "We are drawing up the plan for the next {n_T} {Ts}{names_T}: {n_P} {Ps}, each "
        "needing hours on one or two of our {n_M} {Ms}.",
        "As the {org}, I judge a plan by more than its profit: {emission} and overtime count "
        "against it.",
        "Every {T} we decide how many {batches} of our {n_P} {Ps} to {make}, and how much "
        "overtime our {Ms} should work for them.",
    ),
    context=(
        "Management has agreed weights that turn profit, {emission} and overtime hours into "
        "one score.",
        "Some {Ps} earn well but emit a lot, so the most profitable plan is not "
        "necessarily the best one for us.",
        "Overtime is possible on every {M}, but only up to a limit in each {T}.",
    ),
    facts={
        "hours": Fact(("Hours one {batch} of each {P} takes on each {M} ({unit_hours}): "
                       "{items}.",
                       "Time on the {Ms} per {batch} ({unit_hours}): {items}.",
                       "How long one {batch} takes on each {M}: {items}."),
                      ("{e} {v}", "{e} {V}"), ("on {e}: {items}", "{e}: {items}"),
                      label="hours per {batch}"),
        "margin": Fact(("Profit per {batch} ({unit_margin}): {items}.",
                        "Each {batch} {made} brings in this profit: {items}.",
                        "What one {batch} of each {P} earns us: {items}."),
                       ("{e} {v}", "{e} {V}"), label="profit per {batch}"),
        "emis": Fact(("The {emission} of one {batch} ({unit_emis}): {items}.",
                      "Each {batch} {made} gives off: {items}.",
                      "{emission} per {batch} ({unit_emis}): {items}."),
                     ("{e} {v}", "{e} {V}"), label="{emission} per {batch}"),
        "demand": Fact(("The most {batches} of each {P} we can {sell} in each {T}: {items}.",
                        "What the market takes at most, by {P} and {T} ({unit_demand}): "
                        "{items}.",
                        "Sales limits ({unit_demand}): {items}."),
                       ("{e} {v}",), ("for {e}, {items}", "{e}: {items}"),
                       label="most {batches} we can {sell}"),
        "capacity": Fact(("Regular hours on each {M} ({unit_capacity}): {items}.",
                          "Without overtime, each {M} has these hours: {items}.",
                          "The regular hours of the {Ms}, {T} by {T}: {items}."),
                         ("{e} {v}", "{e} {V}"), ("on {e}: {items}", "{e}: {items}"),
                         label="regular hours"),
        "max_ot": Fact(("The most overtime each {M} may work ({unit_max_ot}): {items}.",
                        "Overtime limits, by {M} and {T} ({unit_max_ot}): {items}.",
                        "No {M} may work more overtime than this: {items}."),
                       ("{e} {v}", "{e} {V}"), ("on {e}: {items}", "{e}: {items}"),
                       label="most overtime hours"),
        "w_profit": Fact(("Every {money} of profit scores {V}.",
                          "Profit counts for {V} per {money}.",
                          "In the score, each {money} of profit is worth {V}."),
                         label="points per {money} of profit"),
        "w_emis": Fact(("Every {em_one} of {emission} takes {V} off the score.",
                        "{emission} count against a plan at {V} per {em_one}.",
                        "Each {em_one} emitted costs {V} of score."),
                       label="points lost per {em_one}"),
        "w_ot": Fact(("Every overtime hour takes {V} off the score.",
                      "Overtime counts against a plan at {V} per hour.",
                      "Each hour of overtime costs {V} of score."),
                     label="points lost per overtime hour"),
    },
    rules=(
        Rule(("machine_hours",), (
            "In each {T}, the hours a {M} spends on the {batches} we {make} must fit within "
            "its regular hours plus the overtime we book on it.",
            "The {batches} {made} in a {T} may keep a {M} busy beyond its regular hours only "
            "by the overtime worked there.",
            "A {M}'s work in a {T} cannot exceed its regular hours, plus whatever overtime "
            "it works in that {T}."),
            ("The hours used on each {M} in each {T} stay within its regular hours plus "
             "overtime.",)),
        Rule(("overtime_limit",), (
            "Overtime on a {M} in a {T} may not go beyond the limit for that {M} and {T}.",
            "Each {M} works no more overtime in a {T} than its limit allows.",
            "The overtime limits hold {M} by {M} and {T} by {T}."),
            ("The overtime on each {M} in each {T} stays within its limit.",)),
        Rule((), (
            "We never {make} more {batches} of a {P} in a {T} than we can {sell} in that "
            "{T}; nothing is kept for later.",
            "Nothing can be kept for a later {T}: in each {T} we {make} at most as many "
            "{batches} of a {P} as we can {sell} then.")),
        Rule((), (
            "A plan's score adds the points for its profit and takes off the points for its "
            "{emission} and for its overtime hours.",
            "The score is the profit points, minus the points lost to {emission}, minus the "
            "points lost to overtime.",
            "To score a plan we count its profit in points, then subtract the points for "
            "every unit of {emission} and every overtime hour.")),
        Rule((), (
            "Overtime has no price of its own in the profit figures: it only counts through "
            "its points.",
            "The profit of a {batch} is the same whether it is {made} in regular hours or in "
            "overtime; overtime only costs us its points.")),
        whole("x", "We {make} whole {batches} only.",
              "A {batch} is {made} whole or not at all: no fractions.",
              "Only whole {batches} count in the plan."),
        divisible("o", "Overtime need not come in whole hours.",
                  "Overtime can be booked in fractions of an hour.",
                  "Fractions of an overtime hour are fine."),
    ),
    goals=("We want the plan with the highest score.",
           "The aim is the best weighted score: profit counts for us, {emission} and overtime "
           "against.",
           "Please find the plan that scores highest, with the weights as given."),
    objective="weighted score in points",
    asks=("How many {batches} of each {P} should we {make} in each {T}, how much overtime "
          "should each {M} work, and what score does the plan reach?",
          "What plan do you recommend, {T} by {T}, and what is its score?"),
    report={"x": "{v} {batches} of {p} in {t}", "o": "{v} overtime hours on {m} in {t}"},
    settled=("x",),
)

# ------------------------------------------------------------------ lexicographic plan
LEXICOGRAPHIC = Telling(
    openings=(
        "Our {org} has {n_O} {Os}{names_O} waiting and {n_L} {Ls}{names_L} to put them {on}.",
        "We have more {Os} than our {n_L} {Ls} can take: {n_O} of them, and we must decide "
        "which to {serve} and where.",
        "As the {org}, I must choose which of {n_O} {Os} to {serve}, and {on} which of our "
        "{n_L} {Ls}.",
        "There are {n_O} {Os}{names_O} to fit {on} {n_L} {Ls}, and not all of them will fit.",
    ),
    context=(
        "Turning a {O} away hurts us far more than any difference in cost.",
        "The {Ls} differ in how much they charge, so where a {O} goes matters too.",
        "Last time we chose the cheapest plan and sent {Os} away that we could have "
        "{served}.",
    ),
    facts={
        "load": Fact(("What each {O} takes ({unit_load}), the same {on} any {L}: {items}.",
                      "Each {O} needs this much, whichever {L} it goes {on}: {items}.",
                      "How much each {O} takes, whichever {L} it goes {on}: {items}."),
                     ("{e} {v}", "{e} {V}"), label="what each {O} takes"),
        "capacity": Fact(("The {cap_word} of each {L}: {items}.",
                          "What each {L} can take ({unit_capacity}): {items}.",
                          "How much each {L} can take: {items}."),
                         ("{e} {V}", "{e} {v}"), label="{cap_word}"),
        "cost": Fact(("What it costs to {serve} each {O} {on} each {L} ({unit_cost}): "
                      "{items}.",
                      "Costs by {O} and {L} ({unit_cost}): {items}.",
                      "Each {O} would cost us, depending on the {L} ({unit_cost}): {items}."),
                     ("{e} {v}",), ("for {e}, {items}", "{e}: {items}"),
                     label="cost to {serve}"),
    },
    rules=(
        Rule(("at_most_once",), (
            "A {O} goes {on} at most one {L}, and whole: we never split one.",
            "Each {O} goes whole {on} a single {L}, or is not {served} at all.",
            "No {O} may be shared between two {Ls}; each is {served} once or left out."),
            ("Every {O} is {served} {on} at most one {L}.",)),
        Rule(("capacity_limit",), (
            "The {Os} {on} one {L} together may not take more than its {cap_word}.",
            "What the {Os} {on} a {L} take must fit within that {L}'s {cap_word}.",
            "No {L} may be given more {Os} than its {cap_word} can hold."),
            ("The {O}s {on} a {L} fit within its {cap_word}.",)),
        Rule((), (
            "The number of {Os} {served} comes first: no saving is worth turning away a {O} "
            "we could fit. Only among plans that {serve} as many {Os} does the cost decide.",
            "Our first priority is to {serve} as many {Os} as the {Ls} allow; the cost comes "
            "second, between plans that {serve} the same number.",
            "Cost only breaks ties: of two plans, the one with more {Os} {served} wins, "
            "whatever it costs, and between plans that {serve} equally many the cheaper "
            "one wins.")),
        Rule((), (
            "We put both priorities into one priority score in {money}. Every {O} {served} "
            "earns the same bonus: the dearest cost of each {O} on any {L}, added up over all "
            "{Os}, plus 1. The score is the bonuses less the cost of the plan.",
            "To compare plans in one figure we use a priority score: each {O} {served} is "
            "worth the sum, over all {Os}, of their highest cost on any {L}, plus 1 {money}, "
            "and the cost of the plan is taken off.",
            "The priority score gives every {O} {served} a bonus of 1 {money} more than the "
            "dearest costs of all the {Os} on any {L} put together, and subtracts the cost of "
            "the plan; as no plan costs that much, one more {O} always wins.")),
    ),
    # The cost only settles ties, so no goal uses a word that keeps something low: the
    # sense of what is asked for (the score, the count) stays unmistakable.
    goals=("First and foremost we want the most {Os} {served} that the {Ls} allow; between "
           "plans that manage that, the one that spends less wins.",
           "The aim is the highest priority score: the most {Os} {served} first, with the "
           "cost settling only ties.",
           "Please maximise the priority score: {serve} as many {Os} as we can, and only then "
           "save on the cost."),
    objective="priority score in {money}",
    asks=("Which {Os} should we {serve}, {on} which {L}, and what priority score does that "
          "give?",
          "What plan do you recommend, how many {Os} does it {serve}, and what are its cost "
          "and priority score?"),
    report={"x": "{o} {on} {l}"},
    settled=("x",),
)

TELLINGS = {"nurse_rostering": NURSE, "weighted_objectives": WEIGHTED,
            "lexicographic_plan": LEXICOGRAPHIC}
