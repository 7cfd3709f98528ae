"""Blending with ratio constraints: mix ingredients so every attribute's average is in range."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total


@register
class Blending(Family):
    """Blending LP; quality limits are ratios to the total amount blended."""

    name = "blending"
    problem_class = "LP"
    summary = "Blend {I}s into {amount} of product so that every {A} stays within its range."
    sizes = {"small": {"I": (4, 6), "A": (2, 4)}, "medium": {"I": (6, 15), "A": (3, 6)},
             "large": {"I": (20, 60), "A": (6, 12)}}
    vocabularies = (
        Vocabulary("agriculture", "Animal feed",
                   "A feed mill mixes {I}s into a ration with balanced {A}s.",
                   {"I": ("grain", "list:grain"), "A": ("nutrient", "list:feed_nutrient")},
                   {"amount": "tonnes", "money": "USD", "content": "% content",
                    "product": "cattle ration", "maker": "feed mill", "batch": "order"}),
        Vocabulary("energy", "Fuel blending",
                   "A refinery blends {I}s into gasoline that meets {A} specifications.",
                   {"I": ("refinery stream", "list:stream"),
                    "A": ("property", "list:fuel_property")},
                   {"amount": "barrels", "money": "USD", "content": "index points",
                    "product": "gasoline", "maker": "refinery", "batch": "cargo"}),
        Vocabulary("healthcare", "Tablet formulation",
                   "A pharmacy compounds {I}s into a batch with {A}s within tolerance.",
                   {"I": ("premix", "codename"), "A": ("active ingredient", "list:api")},
                   {"amount": "kg", "money": "EUR", "content": "mg per kg",
                    "product": "tablet mass", "maker": "compounding pharmacy",
                    "batch": "batch"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nI, nA = b.dims["I"], b.dims["A"]
        b.set("I")
        b.set("A")
        amount = float(rng.integers(10, 100) * 10)
        content = rounded(rng.uniform(1, 50, (nA, nI)))
        cost = rounded(rng.uniform(5, 40, nI))
        ref = rng.dirichlet(np.ones(nI)) * amount  # a blend that meets every limit
        avg = content @ ref / amount
        lo = rounded(avg * rng.uniform(0.85, 0.97, nA), 3)
        hi = rounded(avg * rng.uniform(1.03, 1.2, nA), 3)
        avail = np.ceil(ref * rng.uniform(1.2, 2.5, nI) + amount * 0.05)
        b.param("amount", (), amount, "{amount} of product to blend", "{amount}")
        b.param("cost", ("I",), cost, "cost of each {I}", "{money} per {amount}")
        b.param("available", ("I",), avail, "{amount} of each {I} available", "{amount}")
        b.param("content", ("A", "I"), content, "{A} in each {I}", "{content}")
        b.param("low", ("A",), lo, "lowest average of each {A} in the blend", "{content}")
        b.param("high", ("A",), hi, "highest average of each {A} in the blend", "{content}")
        b.var("x", (("i", "I"),), "{amount} of {I} i in the blend", ub=P("available", "i"),
              unit="{amount}", role="quantity")
        b.con("total_amount", "The blend makes exactly the required amount.", (),
              total("i", "I", V("x", "i")), "=", P("amount"), role="demand")
        b.con("at_least", "Each {A} reaches its lowest average.", (("a", "A"),),
              total("i", "I", P("content", "a", "i") * V("x", "i")), ">=",
              P("low", "a") * total("i", "I", V("x", "i")), role="ratio")
        b.con("at_most", "Each {A} stays below its highest average.", (("a", "A"),),
              total("i", "I", P("content", "a", "i") * V("x", "i")), "<=",
              P("high", "a") * total("i", "I", V("x", "i")), role="ratio")
        b.objective("min", total("i", "I", P("cost", "i") * V("x", "i")),
                    "cost of the blend in {money}")


@register
class Diet(Family):
    """Diet problem: cheapest menu meeting every nutrient requirement."""

    name = "diet"
    problem_class = "LP"
    summary = "Choose amounts of {F}s that meet every {N} requirement at least cost."
    sizes = {"small": {"F": (4, 8), "N": (3, 5)}, "medium": {"F": (8, 25), "N": (4, 8)},
             "large": {"F": (30, 120), "N": (8, 15)}}
    vocabularies = (
        Vocabulary("healthcare", "Hospital menu",
                   "A hospital dietitian plans daily servings of {F}s covering every {N}.",
                   {"F": ("food", "list:hospital_food"), "N": ("nutrient", "list:food_nutrient")},
                   {"unit": "servings", "money": "USD", "level": "grams", "who": "patient",
                    "planner": "hospital dietitian", "eat": "eat"}),
        Vocabulary("agriculture", "Livestock ration",
                   "A farm feeds its herd {F}s so that each {N} need is covered.",
                   {"F": ("feedstuff", "list:feedstuff"), "N": ("nutrient", "list:feed_nutrient")},
                   {"unit": "kg", "money": "USD", "level": "units", "who": "cow",
                    "planner": "dairy farm", "eat": "be fed"}),
        Vocabulary("education", "School lunch",
                   "A school district sets lunch portions of {F}s that meet each {N} target.",
                   {"F": ("dish", "list:dish"), "N": ("nutrient", "list:school_nutrient")},
                   {"unit": "portions", "money": "EUR", "level": "points", "who": "pupil",
                    "planner": "school catering service", "eat": "be served"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nF, nN = b.dims["F"], b.dims["N"]
        b.set("F")
        b.set("N")
        content = rounded(rng.uniform(0, 30, (nN, nF)) * (rng.random((nN, nF)) < 0.8), 1)
        content[rng.integers(0, nN, nF), np.arange(nF)] += 5  # every food gives something
        ref = rng.uniform(0.5, 4, nF)
        need = rounded(content @ ref * rng.uniform(0.7, 0.95, nN), 1)
        cost = rounded(rng.uniform(0.5, 6, nF))
        limit = np.ceil(ref * rng.uniform(1.5, 3, nF))
        b.param("cost", ("F",), cost, "cost of one unit of each {F}", "{money} per {unit}")
        b.param("content", ("N", "F"), content, "{N} in one unit of each {F}", "{level}")
        b.param("need", ("N",), need, "daily requirement of each {N}", "{level}")
        b.param("limit", ("F",), limit, "most units of each {F} per day", "{unit}")
        b.var("x", (("f", "F"),), "{unit} of {F} f", ub=P("limit", "f"), unit="{unit}",
              role="quantity")
        b.con("requirement", "Each {N} requirement is met.", (("n", "N"),),
              total("f", "F", P("content", "n", "f") * V("x", "f")), ">=", P("need", "n"),
              role="demand")
        b.objective("min", total("f", "F", P("cost", "f") * V("x", "f")),
                    "daily cost in {money}")
