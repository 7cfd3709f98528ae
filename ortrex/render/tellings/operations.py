"""Tellings of operations problems: single-machine scheduling, shifts, unit commitment."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, whole

MACHINE = Telling(
    openings=(
        "Our {org} has one {machine} and {n_J} {Js}{names_J} waiting for it.",
        "We have to sequence {n_J} {Js} on a single {machine}.",
        "As the {org}, I must decide in which order to {do} {n_J} {Js}; we only have one "
        "{machine}.",
        "{n_J} {Js} need the same {machine}, one at a time.",
    ),
    context=("Some {Js} matter more than others.", "Once started, a {J} runs to the end.",
             "The {machine} can only handle one {J} at a time."),
    facts={
        "proc": Fact(("How long each {J} takes: {items}.", "Durations: {items}.",
                      "Processing times: {items}."), ("{e} {V}", "{e} takes {V}"),
                     label="duration"),
        "release": Fact(("Earliest start, counted from now: {items}.",
                         "Each {J} can start no earlier than {items}.",
                         "Release times: {items}."), ("{e} {V}", "{e} at {V}"),
                        label="earliest start"),
        "weight": Fact(("{weight} weights: {items}.", "How much each {J} matters: {items}."),
                       ("{e} {v}", "{e} {V}"), label="{weight}"),
    },
    rules=(
        Rule(("i_before_j", "j_before_i"), (
            "The {machine} handles one {J} at a time: of any two {Js}, one must finish "
            "before the other starts.",
            "No two {Js} can overlap on the {machine}; whichever goes first has to end before "
            "the next one begins.",
            "{Js} run one after another, never at the same time.")),
        Rule((), ("No {J} starts before its earliest start.",
                  "Nothing can begin before its release time.")),
    ),
    goals=("We want the weighted sum of completion times as small as possible.",
           "The aim is to minimise the total weighted completion time.",
           "Important {Js} should finish early: please minimise the weighted completion "
           "time."),
    objective="weighted completion time in {time}",
    asks=("In what order should the {Js} run, when does each start, and what is the "
          "weighted completion time?",),
    report={"s": "{j} starts at {v}"},
    auxiliaries=("y",),
)

SHIFTS = Telling(
    openings=(
        "Our {org} needs enough {staff} in every {T}; {n_S} shift patterns are possible.",
        "We are planning the {staff} roster of the {org} over {n_T} {Ts}.",
        "As the {org}, I must decide how many {staff} start on each shift.",
    ),
    context=("A shift runs over several consecutive {Ts}, wrapping round from {last_T} to "
             "{first_T}.", "Some shifts pay a premium."),
    facts={
        "covers": Fact(("Which {Ts} each shift works: {items}.", "Shift patterns: {items}."),
                       group=("{e} works {items}", "{e}: {items}", "{e} covers {items}"),
                       label="works", members=1),
        "need": Fact(("{staff} needed: {items}.", "In each {T} we need {items}.",
                      "Minimum staffing: {items}."),
                     ("{e} {V}", "at {e} {V}"), label="{staff} needed"),
        "cost": Fact(("Cost per {person} ({unit_cost}): {items}.",
                      "One {person} on each shift costs {items}."),
                     ("{e} {v}", "{e} {V}"), label="cost per {person}"),
    },
    rules=(
        Rule(("coverage",), ("Every {T} must have at least the required number of {staff}.",
                             "No {T} may be understaffed.",
                             "In each {T}, the {staff} on duty must meet the need."),
             ("Every {T} has enough {staff}.",)),
        whole("x", "We can only roster whole {staff}.", "{staff} come in whole numbers."),
        # Shifts are cyclic (the last block is followed by the first): a roster such as
        # "6am, 9am and 10am" is a shift wrapping round, which the statement has to say.
        Rule((), ("The {Ts} repeat in a cycle: after {last_T} comes {first_T} again, so a "
                  "shift that starts late runs on into {first_T}.",
                  "Our roster is cyclic, with {first_T} following {last_T}; a shift that "
                  "starts near the end carries on from {first_T}.",
                  "Shifts wrap round: the {T} after {last_T} is {first_T} again.")),
    ),
    goals=("We want the cheapest roster that covers every {T}.",
           "Please keep the staffing cost as low as possible.",
           "The aim is the lowest staffing cost."),
    objective="staffing cost in {money}",
    asks=("How many {staff} should start on each shift, and what does the roster cost?",),
    report={"x": "{v} on {s}"},
    settled=("x",),
)

COMMITMENT = Telling(
    openings=(
        "Our {org} has {n_G} {Gs}{names_G} and must meet the demand for {output} in each of "
        "{n_T} {Ts}.",
        "We plan which {Gs} to run in each {T}, and how hard, to cover demand for {output}.",
        "As the {org}, I need a schedule for {n_G} {Gs} over {n_T} {Ts}.",
    ),
    context=("Starting a {G} costs money, and so does keeping it running.",
             "A running {G} cannot go below its minimum output."),
    facts={
        "demand": Fact(("Demand per {T}: {items}.", "We must supply {items}."),
                       ("{e} {V}", "in {e} {V}"), label="demand"),
        "pmax": Fact(("Maximum output: {items}.", "At full load the {Gs} give {items}."),
                     ("{e} {V}",), label="maximum output"),
        "pmin": Fact(("When running, each {G} has a minimum output: {items}.",
                      "Minimum output while on: {items}."),
                     ("{e} {V}",), label="minimum output"),
        "cost": Fact(("Running cost per unit of output ({unit_cost}): {items}.",
                      "Each unit produced costs {items}."),
                     ("{e} {v}",), label="cost per unit of output"),
        "fixed": Fact(("Keeping a {G} on for one {T} costs {items}.",
                       "Fixed cost per {T} of running: {items}."),
                      ("{e} {V}",), label="running cost per {T}"),
        "startup": Fact(("Each start costs {items}.", "Start-up costs: {items}."),
                        ("{e} {V}",), label="start-up cost"),
    },
    rules=(
        Rule(("meet_demand",), ("Total output must match demand exactly in every {T}.",
                                "In each {T}, supply equals demand."),
             ("Output meets demand in every {T}.",)),
        Rule(("max_output", "min_output"), (
            "A {G} that is off produces nothing; one that is on runs between its minimum "
            "and maximum output.",
            "Output is zero for a {G} that is off, and within its range when it is on.")),
        Rule(("first_start", "start_up"), (
            "All {Gs} are off before the first {T}, and every switch-on counts as a start.",
            "A {G} that is on in a {T} but was off in the one before has been started; "
            "everything is off at the beginning.")),
        Rule((), ("A {G} is either on or off in each {T}.",)),
    ),
    goals=("We want the lowest total cost: output, running and start-up costs together.",
           "Please minimise the operating cost.",
           "The aim is the cheapest schedule that covers demand."),
    objective="operating cost in {money}",
    asks=("Which {Gs} should run in each {T}, at what output, and what does it cost?",),
    presumes={"We must supply {items}.": ("meet_demand",)},
    report={"p": "{g} gives {v} in {t}", "on": "{g} on in {t}"},
    settled=("on",),
)

TELLINGS = {"machine_scheduling": MACHINE, "shift_scheduling": SHIFTS,
            "unit_commitment": COMMITMENT}
