"""Blending with ratio constraints: mix ingredients so every attribute's average is in range."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total

# Plausible contents by domain and attribute (the draw is mapped onto these ranges; others
# keep 1-50): feed nutrients in % of the ingredient (calcium at 38-47% of a ration is no
# feed), octane and cetane numbers where real fuels have them.
_CONTENT_RANGES = {
    "agriculture": {"Protein": (8, 48), "Fibre": (2, 35), "Calcium": (0.05, 2.5),
                    "Phosphorus": (0.1, 1.2), "Lysine": (0.2, 3), "Methionine": (0.1, 0.8),
                    "Fat": (1, 12), "Sodium": (0.02, 0.5), "Magnesium": (0.1, 0.6),
                    "Starch": (2, 70), "Ash": (2, 12), "Potassium": (0.3, 2.5),
                    "Sulphur": (0.1, 0.5), "Chloride": (0.05, 0.8)},
    "energy": {"Octane": (85, 100), "Cetane": (40, 60)},
}
# A feed's energy is no percentage: it is told as another mineral instead.
_NOT_PERCENT = {"agriculture": ("Energy", ("Potassium", "Sulphur", "Chloride"))}


def _percent_only(b: Builder) -> None:
    """Replace an attribute whose unit cannot be the domain's percentage."""
    rule = _NOT_PERCENT.get(b.vocab.domain)
    s = b.sets[-1]
    if rule is None or rule[0] not in s.elements:
        return
    spare = next(n for n in rule[1] if n not in s.elements and n not in b.taken)
    b.taken.add(spare)
    b.sets[-1] = replace(s, elements=tuple(spare if e == rule[0] else e for e in s.elements))


@register
class Blending(Family):
    """Blending LP; quality limits are ratios to the total amount blended."""

    name = "blending"
    classes = ("blending/blending",)
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
        _percent_only(b)
        amount = float(rng.integers(10, 100) * 10)
        content = rng.uniform(1, 50, (nA, nI))
        ranges = _CONTENT_RANGES.get(b.vocab.domain, {})
        for a, name in enumerate(b.sets[-1].elements):
            if name in ranges:  # the same draw, mapped onto the attribute's own range
                lo_a, hi_a = ranges[name]
                content[a] = lo_a + (content[a] - 1) * (hi_a - lo_a) / 49
        content = rounded(content)
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
    classes = ("blending/diet",)
    problem_class = "LP"
    summary = "Choose amounts of {F}s that meet every {N} requirement at least cost."
    sizes = {"small": {"F": (4, 8), "N": (3, 5)}, "medium": {"F": (8, 25), "N": (4, 8)},
             "large": {"F": (30, 120), "N": (8, 15)}}
    vocabularies = (
        Vocabulary("healthcare", "Hospital menu",
                   "A hospital dietitian plans daily servings of {F}s covering every {N}.",
                   {"F": ("food", "list:hospital_food"), "N": ("nutrient", "list:food_nutrient")},
                   {"unit": "servings", "money": "USD", "level": "% of daily value",
                    "who": "patient",
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
