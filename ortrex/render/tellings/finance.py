"""Tellings of finance problems: capital budgeting and portfolio selection."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, divisible

BUDGETING = Telling(
    openings=(
        "Our {org} has {n_J} {Js} on the table{names_J} and budgets for {n_Y} {Ys}.",
        "We must decide which of {n_J} {Js} to {fund} over the coming {n_Y} {Ys}.",
        "As the {org}, I have to pick {Js} from a shortlist of {n_J}; money is fixed per "
        "{Y}.",
        "Each {J} on our list{names_J} needs money in several {Ys} and pays back a known "
        "value.",
    ),
    context=("Some {Js} only make sense if another goes ahead first.",
             "We cannot move money between {Ys}.",
             "A {J} is funded in full or not at all."),
    facts={
        "spend": Fact(("What each {J} needs, {Y} by {Y} ({unit_spend}): {items}.",
                       "Spending profiles ({unit_spend}): {items}."),
                      ("{e} {v}",), ("{e} needs {items}", "for {e}, {items}"),
                      label="spending"),
        "budget": Fact(("Budgets: {items}.", "We can spend {items}.",
                        "Money available per {Y}: {items}."),
                       ("{e} {V}", "in {e} {V}"), label="budget"),
        "value": Fact(("Net present values ({unit_value}): {items}.",
                       "What each {J} is worth: {items}."),
                      ("{e} {v}", "{e} {V}"), label="net present value"),
        "required": Fact(("Dependencies: {items}.", "Some {Js} need another first: {items}."),
                         ("{e} means {at_dependent} needs {v}",
                          "{e}: {at_dependent} depends on {v}"),
                         label="prerequisite"),
        "dependent": Fact((), label="dependent {J}"),
    },
    rules=(
        Rule(("budget_limit",), ("In every {Y}, the {Js} we {fund} must fit the budget.",
                                 "No {Y}'s budget may be exceeded.",
                                 "Spending stays within each {Y}'s budget."),
             ("Spending in each {Y} stays within its budget.",)),
        Rule(("prerequisite",), ("{a_J} can only go ahead if the {J} it depends on does too.",
                                 "A dependent {J} needs its prerequisite funded as well."),
             ("A {J} is funded only if the {J} it depends on is.",)),
        Rule((), ("Each {J} is all or nothing.", "No {J} can be funded in part.")),
    ),
    goals=("We want the largest total value.", "The aim is to maximise the total net "
           "present value.", "Please get us the most value for the budgets we have."),
    objective="total value in {money}",
    asks=("Which {Js} should we {fund}, and what total value do they bring?",),
    presumes={"Some {Js} only make sense if another goes ahead first.": ("prerequisite",)},
    report={"y": "{j}"},
    settled=("y",),
)

PORTFOLIO = Telling(
    openings=(
        "Our {org} splits its {budget} across {n_A} options{names_A}.",
        "We are deciding how to divide our {budget} among {n_A} {As}.",
        "I manage the {budget} of a {org}; {n_A} {As} are candidates{names_A}.",
    ),
    context=("Returns move together to some degree, which the covariances describe.",
             "We are more worried about {risk} than about squeezing out the last bit of "
             "return."),
    facts={
        "mean": Fact(("Expected returns: {items}.", "Each {A} is expected to return {items}."),
                     ("{e} {V}",), label="expected return"),
        "cov": Fact(("Covariances of returns ({unit_cov}): {items}.",
                     "The covariance matrix ({unit_cov}): {items}."),
                    ("{e} {v}",), ("{e} with {items}", "for {e}: {items}"),
                    label="covariance"),
        "target": Fact(("We need an expected return of at least {V}.",
                        "The target return is {V}."), label="target return"),
        "cap": Fact(("No single {A} may take more than {v} of the {budget}.",
                     "At most {v} of the {budget} in any one {A}."),
                    label="largest share"),
    },
    rules=(
        Rule(("fully_invested",), ("All of the {budget} has to be allocated.",
                                   "The shares must add up to the whole {budget}."),
             ("The shares add up to the whole budget.",)),
        Rule(("return_target",), ("The expected return must reach the target.",
                                  "We cannot go below the target return."),
             ("The expected return reaches the target.",)),
        Rule((), ("Shares cannot be negative, and each stays within the cap.",
                  "No short positions, and no share above the cap.")),
        divisible("w", "The {budget} can be divided in any proportions.",
                  "Any fraction of the {budget} can go to {a_A}."),
    ),
    goals=("We want the least risk, measured as the variance of the return.",
           "The aim is to minimise the variance of the return.",
           "Please keep the variance of the return as small as possible."),
    objective="variance of the return",
    asks=("How should we split the {budget}, and what variance does that give?",),
    report={"w": "{v} in {a}"},
)

TELLINGS = {"capital_budgeting": BUDGETING, "portfolio": PORTFOLIO}
