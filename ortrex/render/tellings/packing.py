"""Tellings of packing problems: knapsacks, bin packing, cutting stock."""

from __future__ import annotations

from ortrex.render.telling import Fact, Rule, Telling, whole

_KNAP_OPENINGS = (
    "Our {org} has {n_I} candidate {Is}{names_I} and cannot {take} them all.",
    "We have to decide which of {n_I} {Is} to {take}; the {vehicle} simply has not got room "
    "for everything.",
    "This round, {n_I} {Is}{names_I} are competing for the same {cap_word}.",
    "As the {org}, I must choose among {n_I} {Is}; whatever we pick has to fit the "
    "{cap_word}.",
    "Each {I} on our list brings some {value}, but the {cap_word} is limited: {n_I} {Is} "
    "are on the table.",
)
_VALUE = Fact(("What each {I} would bring ({unit_value}): {items}.",
               "{value} by {I}: {items}.", "What each {I} is worth in {value}: {items}."),
              ("{e} {v}",), label="{value}")
_KNAP_GOALS = ("We want the largest total {value} we can get.",
               "The aim is to maximise the total {value}.",
               "Please get us as much {value} as possible.",
               "More {value} is better; that is all that counts.")

KNAPSACK_01 = Telling(
    openings=_KNAP_OPENINGS,
    context=("Each {I} is all or nothing: we cannot take part of one.",
             "Last time we went by gut feeling and left value on the table."),
    facts={
        "weight": Fact(("How much {cap_word} each {I} takes ({unit_weight}): {items}.",
                        "{cap_word} needed per {I}: {items}.", "The {Is} need {items}."),
                       ("{e} {v}", "{e} {V}"), label="{cap_word} needed"),
        "value": _VALUE,
        "capacity": Fact(("The {cap_word} available is {V}.", "We have {V} in total.",
                          "Total {cap_word}: {V}."), label="{cap_word} available"),
    },
    rules=(
        Rule(("capacity_limit",), (
            "Everything we pick has to fit within {val_capacity}.",
            "The chosen {Is} together may not exceed the {cap_word}.",
            "We cannot go over the {cap_word}."),
            ("The chosen {I}s fit the {cap_word}.",)),
        Rule((), ("Each {I} is either taken whole or left out.",
                  "There is no taking half of one; each {I} is in or out.",
                  "Each {I} is a yes-or-no choice.")),
    ),
    goals=_KNAP_GOALS,
    objective="total {value} in {money}",
    asks=("Which {Is} should we {take}, and how much {value} do they bring?",
          "What selection do you recommend, and what is its total {value}?"),
    report={"x": "{take} {i}"},
    settled=("x",),
)

KNAPSACK_BOUNDED = Telling(
    openings=_KNAP_OPENINGS,
    context=("Several copies of the same {I} can be taken, up to what is available.",),
    facts={
        "weight": Fact(("Each copy uses some {cap_word} ({unit_weight}): {items}.",
                        "{cap_word} per copy: {items}."),
                       ("{e} {v}",), label="{cap_word} per copy"),
        "value": Fact(("One copy brings ({unit_value}): {items}.", "{value} per copy: {items}."),
                      ("{e} {v}",), label="{value} per copy"),
        "copies": Fact(("Copies available: {items}.", "Copies we could take, at most: {items}."),
                       ("{e} {V}",), label="copies available"),
        "capacity": Fact(("The {cap_word} is {V}.", "In total we have {V}."),
                         label="{cap_word} available"),
    },
    rules=(
        Rule(("capacity_limit",), ("All copies taken must fit within {val_capacity}.",
                                   "Together, the copies may not exceed the {cap_word}."),
             ("The copies taken fit the {cap_word}.",)),
        whole("x", "Copies come whole: we take a whole number of each, up to what is "
              "available.",
              "Only whole copies count, and never more than are available."),
    ),
    goals=_KNAP_GOALS,
    objective="total {value} in {money}",
    asks=("How many copies of each {I} should we take, and what do they bring?",),
    report={"x": "{v} of {i}"},
    settled=("x",),
)

KNAPSACK_MULTIDIM = Telling(
    openings=_KNAP_OPENINGS,
    context=("The catch is that we are limited in {n_R} ways at once: {list_R}.",),
    facts={
        "use": Fact(("What each {I} needs of each {R} ({unit_use}): {items}.",
                     "Requirements by {R} ({unit_use}): {items}."),
                    ("{e} {v}",), ("for {e}, {items}", "{e}: {items}"), label="use"),
        "value": _VALUE,
        "limit": Fact(("Limits: {items}.", "Available per {R}: {items}."),
                      ("{e} {V}",), label="limit"),
    },
    rules=(
        Rule(("resource_limit",), ("Every {R} limit must be respected by the selection.",
                                   "In each {R}, the chosen {Is} together stay within the "
                                   "limit."),
             ("Each {R} stays within its limit.",)),
        Rule((), ("Each {I} is either taken or not.", "No {I} can be taken in part.")),
    ),
    goals=_KNAP_GOALS,
    objective="total {value} in {money}",
    asks=("Which {Is} should we take, and what is the total {value}?",),
    report={"x": "{take} {i}"},
    settled=("x",),
)

BIN_PACKING = Telling(
    openings=(
        "Our {org} has {n_I} {Is}{names_I} to {load}, and every {B} we use costs us.",
        "We need to {load} {n_I} {Is} into {Bs} that are all the same size.",
        "I have {n_I} {Is} to fit into identical {Bs}; at most {n_B} are available.",
        "Today's job: {n_I} {Is}{names_I}, each of a given size, to be packed into {Bs}.",
    ),
    context=("Up to {n_B} {Bs} are available today.", "Every {B} has the same capacity."),
    facts={
        "size": Fact(("Sizes ({unit_size}): {items}.", "The {Is} measure {items}.",
                      "How much room each {I} takes: {items}."),
                     ("{e} {v}", "{e} {V}"), label="size"),
        "capacity": Fact(("One {B} holds {V}.", "Each {B} has room for {V}."),
                         label="capacity of {a_B}"),
    },
    rules=(
        Rule(("packed",), ("Every {I} goes into exactly one {B}.",
                           "Each {I} has to be packed, and it cannot be split.",
                           "No {I} is left behind or split between {Bs}."),
             ("Every {I} goes into exactly one {B}.",)),
        Rule(("capacity_limit",), ("What goes into {a_B} must fit its capacity.",
                                   "{a_B} can hold at most {val_capacity}.",
                                   "No {B} may be overfilled."),
             ("A used {B} holds no more than its capacity.",)),
        Rule((), ("We have {n_B} {Bs} at most ({list_B}).",
                  "No more than {n_B} {Bs} exist: {list_B}.")),
    ),
    goals=("We want to use as few {Bs} as possible.", "The fewer {Bs}, the better.",
           "Please minimise the number of {Bs} used."),
    objective="number of {B}s used",
    asks=("How many {Bs} do we need, and what goes where?",
          "What is the smallest number of {Bs}, and how should they be filled?"),
    report={"x": "{i} in {k}", "y": "use {k}"},
    settled=("x", "y"),
    devices=("in_order",),
)

CUTTING = Telling(
    openings=(
        "Our {org} has orders for {n_I} sizes{names_I} to {cut} from standard {stocks}.",
        "We {cut} each standard {stock} with one of {n_P} set layouts.",
        "Customers ordered pieces in {n_I} sizes, and we {cut} them from {stocks} of one "
        "standard width.",
    ),
    context=("Each layout gives a fixed number of pieces of each size.",
             "Waste is whatever a layout leaves over."),
    facts={
        "width": Fact(("A standard {stock} is {V} wide.", "Stock width: {V}."),
                      label="stock width"),
        "size": Fact(("Piece sizes: {items}.", "The sizes are {items}."),
                     ("{e} {V}",), label="size"),
        "demand": Fact(("Orders: {items}.", "We must deliver {items}."),
                       ("{e} {V}",), label="pieces ordered"),
        "pieces": Fact(("What each layout yields, in pieces: {items}.",
                        "Pieces per {stock}, by layout: {items}."),
                       ("{e} {v}",), ("{e} gives {items}", "{e}: {items}"), label="pieces"),
    },
    rules=(
        Rule(("orders",), ("Every order must be met; extra pieces are fine.",
                           "We have to deliver at least the ordered number of each size."),
             ("Every order is met.",)),
        whole("x", "A {stock} is cut with one layout, and only whole {stocks} count.",
              "We cut whole {stocks}, each with a single layout."),
    ),
    goals=("We want to use as few {stocks} as possible.",
           "The aim is the smallest number of {stocks}.",
           "Please minimise how many {stocks} we cut."),
    objective="stock {R}s used",
    asks=("How many {stocks} should we cut with each layout, and how many in total?",),
    presumes={"We must deliver {items}.": ("orders",)},
    report={"x": "{v} with {p}"},
    settled=("x",),
)

TELLINGS = {"knapsack_01": KNAPSACK_01, "knapsack_bounded": KNAPSACK_BOUNDED,
            "knapsack_multidim": KNAPSACK_MULTIDIM, "bin_packing": BIN_PACKING,
            "cutting_stock": CUTTING}
