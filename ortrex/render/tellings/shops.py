"""Tellings of shop scheduling: parallel machines, flow shop, job shop and the project.

The makespan, the ordering choices and the places of a sequence are the modeller's devices
(``auxiliaries``): a client tells what must hold on the floor (one job per machine at a time,
routes followed, crews not overbooked) and that everything should be done early.
"""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

# Goals of a makespan: the wording carries its own "shortest"/"minimum" cue.
_MAKESPAN_GOALS = (
    "We want everything done as soon as possible: the shortest time until the last {J} is "
    "finished.",
    "Please keep the time until the last {J} is finished to a minimum.",
    "The aim is to minimise the time until every {J} is done.",
    "What matters is finishing the whole lot early: the smallest possible time until the last "
    "{J} is complete.",
)

PARALLEL = Telling(
    openings=(
        "Our {org} has {n_J} {Js}{names_J} to {run} and {n_M} {Ms}{names_M} to {run} them on.",
        "We have to spread {n_J} {Js} over our {n_M} {Ms} for the {shift}.",
        "As the {org}, I must decide which of our {n_M} {Ms} takes each of {n_J} {Js}.",
        "{n_J} {Js} are waiting, and any of our {n_M} {Ms} can {run} them, some faster than "
        "others.",
    ),
    context=("The {Ms} are not identical: how long a {J} takes depends on the {M} it runs on.",
             "All {Ms} are free at the start of the {shift}.",
             "Once a {J} has started on a {M}, it runs there to the end."),
    facts={
        "proc": Fact(("How long each {J} takes on each {M} ({unit_proc}): {items}.",
                      "Processing times ({unit_proc}), {J} by {M}: {items}."),
                     ("{e} {v}", "on {e} {v}"), ("{e}: {items}", "for {e}, {items}"),
                     label="processing time"),
    },
    rules=(
        Rule(("one_machine",), (
            "Every {J} runs on exactly one {M}; a {J} cannot be split between {Ms}.",
            "Each {J} goes to exactly one {M}, whole, never shared between two.",
            "A {J} is done entirely on one {M}: exactly one {M} per {J}."),
             ("Every {J} runs on exactly one {M}.",)),
        Rule(("load",), (
            "A {M} runs its {Js} one after another without a break, so it is busy for the sum "
            "of their times.",
            "The {Js} given to one {M} run back to back: that {M} finishes after the total of "
            "their times.",
            "Each {M} handles one {J} at a time and goes straight on to the next, so its "
            "working time is the sum of its {Js}' times."),
             ("The work given to each {M} ends by the makespan.",)),
    ),
    goals=_MAKESPAN_GOALS,
    objective="finishing time of the last {J} in {time}",
    asks=("Which {M} should take each {J}, and when is the last one done?",
          "How should the {Js} be spread over the {Ms}, and when will everything be "
          "finished?"),
    report={"x": "{j} on {m}"},
    settled=("x",),
    auxiliaries=("cmax",),
)

FLOW = Telling(
    openings=(
        "Our {org} has {n_J} {Js}{names_J} to put through the {line}: every one visits the "
        "{n_M} {Ms} {list_M} in that order.",
        "We run a {line} of {n_M} {Ms}, and {n_J} {Js}{names_J} have to pass through all of "
        "them, from {first_M} to {last_M}.",
        "As the {org}, I must decide in which order to send {n_J} {Js} down our {line} of "
        "{n_M} {Ms}.",
        "Every {item} on our {line} goes through {list_M}, in that order; {n_J} of them are "
        "waiting{names_J}.",
    ),
    context=("The {Js} differ a lot in how long they need at each {M}.",
             "Everything is ready to start now.",
             "Once a {J} has started at a {M}, it stays there until it is done."),
    facts={
        "proc": Fact(("Time each {J} needs at each {M} ({unit_proc}): {items}.",
                      "Processing times ({unit_proc}): {items}."),
                     ("{e} {v}", "at {e} {v}"), ("{e}: {items}", "for {e}, {items}"),
                     label="processing time"),
    },
    rules=(
        Rule(("one_place", "one_job"), (
            "We pick one running order for the {Js} and keep it at every {M}: no {J} "
            "overtakes another on the {line}.",
            "The {Js} go down the {line} in a single sequence, the same at every {M}; nobody "
            "overtakes.",
            "Whatever order we choose, it holds all the way down the {line}: a {J} never "
            "passes another between two {Ms}."),
             ("Every {J} takes exactly one place in the sequence.",
              "Every place of the sequence holds exactly one {J}.")),
        Rule(("route",), (
            "Every {J} goes through the {Ms} in the order {list_M}, and it can start at a {M} "
            "only when it has finished at the one before.",
            "A {J} moves on to the next {M} only once it is done at the current one; the "
            "order of the {Ms} is always {list_M}."),
             ("A {J} starts at a {M} only once it has left the {M} before.",)),
        Rule(("one_at_a_time",), (
            "Each {M} handles one {J} at a time: it starts the next {J} only when the one "
            "before has left.",
            "No {M} works on two {Js} at once; the next one waits until the {M} is free."),
             ("A {M} starts the next {J} only once the one before has left.",)),
    ),
    goals=_MAKESPAN_GOALS,
    objective="finishing time of the last {J} in {time}",
    asks=("In what order should the {Js} go down the {line}, and when is the last one "
          "finished?",),
    report={"z": "{j} runs in slot {k} (slots counted in the order the {Js} are listed)"},
    auxiliaries=("z",),
    presumes={
        "Our {org} has {n_J} {Js}{names_J} to put through the {line}: every one visits the "
        "{n_M} {Ms} {list_M} in that order.": ("route",),
        "We run a {line} of {n_M} {Ms}, and {n_J} {Js}{names_J} have to pass through all of "
        "them, from {first_M} to {last_M}.": ("route",),
        "Every {item} on our {line} goes through {list_M}, in that order; {n_J} of them are "
        "waiting{names_J}.": ("route",),
    },
)

JOBSHOP = Telling(
    openings=(
        "Our {org} has {n_J} {Js}{names_J} to {do}, and each has its own route through our "
        "{n_M} {Ms}{names_M}.",
        "We must schedule {n_J} {Js} on {n_M} {Ms}; every {J} visits every {M} once, in its "
        "own order.",
        "As the {org}, I need a timetable for {n_J} {Js} that each pass through all our {Ms}, "
        "but not in the same order.",
        "Our {org} has {n_J} {Js}{names_J} to {do} today on {n_M} {Ms}{names_M}.",
    ),
    context=("Everything is ready to start now.",
             "Once a {operation} has started it runs to the end without interruption.",
             "The routes differ from one {J} to the next."),
    facts={
        "proc": Fact(("How long each {J} needs on each {M} ({unit_proc}): {items}.",
                      "Processing times ({unit_proc}), {J} by {M}: {items}."),
                     ("{e} {v}", "on {e} {v}"), ("{e}: {items}", "for {e}, {items}"),
                     label="processing time"),
        "leg_from": Fact(("The routes, leg by leg (a leg takes a {J} from one {M} to the "
                          "next): {items}.",
                          "Each {J}'s route, one leg at a time (from one {M} straight to the "
                          "next): {items}."),
                         ("{e}: {at_leg_job} goes from {v} to {at_leg_to}",
                          "on {e}, {at_leg_job} moves from {v} to {at_leg_to}"),
                         label="{M} left"),
        "leg_job": Fact((), label="{J} moving"),
        "leg_to": Fact((), label="{M} reached"),
    },
    rules=(
        Rule(("route",), (
            "Each {J} must follow its route: on every leg it can start on the next {M} only "
            "after it has finished on the {M} it comes from.",
            "A {J} moves along its route one {M} at a time, and never starts on the next {M} "
            "before it is done on the one before."),
             ("On each {L}, its {J} starts on the next {M} only once it is done on the {M} it "
              "leaves.",)),
        Rule(("i_first", "j_first"), (
            "Each {M} handles one {J} at a time: of two {Js} on the same {M}, one must finish "
            "before the other starts.",
            "No {M} can work on two {Js} at once; whichever comes first has to be done before "
            "the next one begins there.")),
        Rule(("makespan",), (
            "The work is complete when the last {operation} on any {M} has ended.",
            "We count everything as done once the final {operation} of the last {J} is "
            "over."),
             ("Every {J} is done on every {M} by the makespan.",)),
    ),
    goals=_MAKESPAN_GOALS,
    objective="finishing time of the last {J} in {time}",
    asks=("When should each {J} start on each {M}, and when is the last one finished?",),
    report={"s": "{j} starts on {m} at {v}"},
    auxiliaries=("y", "cmax"),
    presumes={
        "The routes differ from one {J} to the next.": ("route",),
        "Our {org} has {n_J} {Js}{names_J} to {do}, and each has its own route through our "
        "{n_M} {Ms}{names_M}.": ("route",),
        "We must schedule {n_J} {Js} on {n_M} {Ms}; every {J} visits every {M} once, in its "
        "own order.": ("route",),
        "As the {org}, I need a timetable for {n_J} {Js} that each pass through all our {Ms}, "
        "but not in the same order.": ("route",),
    },
)

PROJECT = Telling(
    openings=(
        "Our {org} is planning a {project} of {n_A} {As}{names_A}, with {n_R} {Rs}{names_R} "
        "to share between them.",
        "We have to schedule the {n_A} {As} of our {project}; some must wait for others, and "
        "our {Rs} are limited.",
        "As the {org}, I need a plan for the {n_A} {As} of the {project}, {T} by {T}.",
        "The {project} has {n_A} {As}, and each needs {staff} from our {Rs} while it runs.",
    ),
    context=("Every {A} needs the same {staff} on each {T} it runs.",
             "We cannot bring in extra {staff} for the {project}."),
    facts={
        "dur": Fact(("How long each {A} takes ({unit_dur}): {items}.", "Durations: {items}."),
                    ("{e} {V}", "{e} takes {V}"), label="duration"),
        "pred": Fact(("Which {A} must be finished before which other {A} can start: "
                      "{items}.",
                      "The order of work (the first {A} of a pair finishes before the second "
                      "starts): {items}."),
                     group=("{e} waits for {items}", "{e} needs {items} finished first"),
                     label="row finishes before column", members=1, empty="nothing"),
        "use": Fact(("{staff} each {A} needs from each {R} while it runs: {items}.",
                     "What the {As} need per {T} of work, {R} by {R}: {items}."),
                    ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"),
                    label="{staff} needed"),
        "cap": Fact(("Our {Rs} have {items}.", "{staff} available per {T}: {items}."),
                    ("{e} {V}",), label="{staff} available"),
        "weight": Fact(("How much each {A} matters ({weight} points): {items}.",
                        "The {weight} of each {A}: {items}."),
                       ("{e} {v}",), label="{weight}"),
    },
    rules=(
        Rule(("start_once",), (
            "Every {A} is done in one go: it starts once, at the beginning of a {T}, and runs "
            "for its full duration without a break.",
            "A {A} cannot be interrupted or split: once started, at the start of some {T}, "
            "it runs until it is finished."),
             ("Every {A} starts exactly once.",)),
        Rule(("precedence",), (
            "A {A} can only start once all the {As} it waits for are finished.",
            "No {A} may begin before every {A} it depends on is complete."),
             ("{A} b starts only after {A} a is finished, where a precedes b.",)),
        Rule(("crew_limit",), (
            "On any {T}, the {As} under way together cannot need more {staff} of a {R} than "
            "it has.",
            "In every {T}, what the running {As} need from each {R} must fit within its "
            "{staff}."),
             ("In every {T}, the {A}s running need no more {staff} than each {R} has.",)),
        Rule(("finish",), (
            "Each {A} runs for exactly its duration, so it is finished that many {Ts} after it "
            "starts.",
            "{a_A} is finished exactly its duration after its start."),
             ("{A} a is finished its duration after it starts.",)),
        Rule(("in_window",), (
            "We plan {T} by {T} over a window of {n_T} {Ts} ({list_T}), and everything must be "
            "finished by the end of {last_T}.",
            "The window has {n_T} {Ts}, {list_T}; every {A} starts at the beginning of one of "
            "them and must be done by the end of {last_T}."),
             ("Every {A} is finished within the window.",)),
    ),
    goals=("Some {As} matter more than others, because {why}: we want the sum of finishing "
           "times, each weighted by its {weight}, as small as possible.",
           "Because {why}, important {As} should finish early: please minimise the total "
           "weighted finishing time, counted in {time} from the start.",
           "The aim is the lowest total of finishing times weighted by {weight}."),
    objective="total weighted finishing time in {time}",
    asks=("When should each {A} start, and what is the total weighted finishing time?",),
    report={"x": "{a} starts at the beginning of {t}", "end": "{a} is finished after {v} {time}"},
    settled=("x",),
    presumes={
        "We have to schedule the {n_A} {As} of our {project}; some must wait for others, and "
        "our {Rs} are limited.": ("precedence", "crew_limit"),
        "We cannot bring in extra {staff} for the {project}.": ("crew_limit",),
    },
)

TELLINGS = {"parallel_machines": PARALLEL, "flow_shop": FLOW, "job_shop": JOBSHOP,
            "project_scheduling": PROJECT}
