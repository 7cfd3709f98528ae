"""Tellings of allocation problems: assignment."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling

ASSIGNMENT = Telling(
    openings=(
        "Our {org} must {give} {n_T} {Ts}{names_T}; {n_W} {Ws} are available{names_W}.",
        "We have {n_T} {Ts} and {n_W} {Ws}, and each {T} needs its own {W}.",
        "As the {org}, I want to {give} every {T} to one of our {n_W} {Ws}.",
        "Today {n_T} {Ts} are waiting, and {n_W} {Ws} could take them.",
    ),
    context=("Some pairings are much better than others.", "Every {W} is qualified for every "
             "{T}, at a different cost."),
    facts={
        "cost": Fact(("What each pairing costs ({unit_cost}): {items}.",
                      "Costs ({unit_cost}), {W} by {T}: {items}."),
                     ("{e} {v}",), ("{e}: {items}", "for {e}, {items}"), label="cost"),
    },
    rules=(
        Rule(("each_task",), ("Every {T} goes to exactly one {W}.",
                              "Each {T} needs exactly one {W}."),
             ("Every {T} goes to exactly one {W}.",)),
        Rule(("each_agent",), ("{a_W} takes at most one {T}.", "Nobody gets two {Ts}."),
             ("A {W} takes at most one {T}.",)),
        Rule((), ("No {T} is split between {Ws}.", "A {T} cannot be shared by two {Ws}.",
                  "Each pairing is all or nothing.")),
    ),
    goals=("We want the lowest total cost.", "Please minimise the total cost of the "
           "assignment."),
    objective="total cost in {money}",
    asks=("Who should take which {T}, and what is the total cost?",),
    report={"x": "{t} to {w}"},
    settled=("x",),  # told by the rule above, whichever rules a mutation removed
)

TELLINGS = {"assignment": ASSIGNMENT}
