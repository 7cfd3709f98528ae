"""Knapsack families: 0-1, bounded (integer copies) and multi-dimensional."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.ir.expr import P, V, total
from ortrex.ir.semantic import SemanticModel

VOCABS = (
    Vocabulary("logistics", "Cargo loading",
               "A carrier chooses which {I}s to load onto a truck of limited {cap_word}.",
               {"I": ("shipment", "surname"), "R": ("capacity dimension", "list:dimension")},
               {"value": "revenue", "money": "USD", "weight": "kg", "cap_word": "payload",
                "org": "haulier", "take": "load", "vehicle": "truck"}),
    Vocabulary("finance", "Project selection",
               "An investment fund picks {I}s within its {cap_word}.",
               {"I": ("project", "codename"), "R": ("budget line", "list:budget_line")},
               {"value": "expected return", "money": "kUSD", "weight": "kUSD",
                "cap_word": "budget", "org": "investment committee", "take": "fund",
                "vehicle": "fund"}),
    Vocabulary("computing", "Cache selection",
               "A content network decides which {I}s to keep within its {cap_word}.",
               {"I": ("video file", "list:video"), "R": ("resource", "list:resource")},
               {"value": "hits saved", "money": "hits", "weight": "GB",
                "cap_word": "storage", "org": "content delivery team", "take": "cache",
                "vehicle": "edge cache"}),
)


def _items(rng: np.random.Generator, n: int) -> tuple[np.ndarray, np.ndarray]:
    weight = rounded(rng.uniform(5, 60, n), 0)
    value = rounded(weight * rng.uniform(0.8, 1.6, n) + rng.uniform(0, 10, n), 0)
    return weight, value


class _Knapsack(Family):
    """What the knapsack families share: taking every item is the trivial answer."""

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every item taken (as many copies as there are)."""
        upper = sm.param_map["copies"].values if "copies" in sm.param_map else 1.0
        return "every item is taken: the capacity is no limit" if all_at(
            values["x"], upper) else None


@register
class Knapsack01(_Knapsack):
    """0-1 knapsack."""

    name = "knapsack_01"
    classes = ("packing/knapsack",)
    problem_class = "BIP"
    summary = "Choose {I}s of greatest total {value} whose total {weight} fits the capacity."
    sizes = {"small": {"I": (6, 12)}, "medium": {"I": (15, 40)}, "large": {"I": (60, 200)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["I"]
        b.set("I")
        weight, value = _items(rng, n)
        b.param("weight", ("I",), weight, "{weight} of each {I}", "{weight}", integer=True)
        b.param("value", ("I",), value, "{value} of each {I}", "{money}", integer=True)
        # Below the total (not everything fits) and above the heaviest item (each can go in).
        capacity = max(np.floor(weight.sum() * rng.uniform(0.3, 0.6)), weight.max())
        b.param("capacity", (), capacity,
                "available {cap_word}", "{weight}", integer=True)
        b.var("x", (("i", "I"),), "1 if {I} i is chosen", vtype="B", role="selection")
        b.con("capacity_limit", "The chosen {I}s fit the {cap_word}.", (),
              total("i", "I", P("weight", "i") * V("x", "i")), "<=", P("capacity"), role="capacity")
        b.objective("max", total("i", "I", P("value", "i") * V("x", "i")),
                    "total {value} in {money}")


@register
class KnapsackBounded(_Knapsack):
    """Bounded knapsack: several copies of each item."""

    name = "knapsack_bounded"
    classes = ("packing/knapsack",)
    problem_class = "MILP"
    summary = "Choose how many copies of each {I} to take, within the capacity."
    sizes = {"small": {"I": (4, 8)}, "medium": {"I": (10, 30)}, "large": {"I": (50, 200)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["I"]
        b.set("I")
        weight, value = _items(rng, n)
        copies = rng.integers(2, 7, n).astype(float)
        b.param("weight", ("I",), weight, "{weight} of one copy of each {I}", "{weight}",
                integer=True)
        b.param("value", ("I",), value, "{value} of one copy of each {I}", "{money}",
                integer=True)
        b.param("copies", ("I",), copies, "copies of each {I} available", "copies", integer=True)
        capacity = max(np.floor((weight * copies).sum() * rng.uniform(0.25, 0.5)), weight.max())
        b.param("capacity", (), capacity,
                "available {cap_word}", "{weight}", integer=True)
        b.var("x", (("i", "I"),), "copies of {I} i taken", vtype="I", ub=P("copies", "i"),
              unit="copies", role="quantity")
        b.con("capacity_limit", "The copies taken fit the {cap_word}.", (),
              total("i", "I", P("weight", "i") * V("x", "i")), "<=", P("capacity"), role="capacity")
        b.objective("max", total("i", "I", P("value", "i") * V("x", "i")),
                    "total {value} in {money}")


# The limits of a multi-dimensional knapsack measure different things (weight, volume,
# floor; storage, bandwidth, licences): one unit that fits every dimension, by domain (the
# single-dimension vocabularies' "kg" or "GB" would call volume or licences a weight).
_DIMENSION_UNITS = {"logistics": "capacity units", "computing": "resource units"}


@register
class KnapsackMultidim(_Knapsack):
    """Multi-dimensional 0-1 knapsack."""

    name = "knapsack_multidim"
    classes = ("packing/knapsack",)
    problem_class = "BIP"
    summary = "Choose {I}s of greatest {value} within several {R} limits at once."
    sizes = {"small": {"I": (6, 10), "R": (2, 3)}, "medium": {"I": (10, 15), "R": (2, 3)},
             "large": {"I": (15, 22), "R": (3, 4)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n, r = b.dims["I"], b.dims["R"]
        b.set("I")
        b.set("R")
        use = rounded(rng.uniform(1, 40, (r, n)), 0)
        value = rounded(use.mean(axis=0) * rng.uniform(0.8, 1.8, n), 0)
        limit = np.maximum(np.floor(use.sum(axis=1) * rng.uniform(0.3, 0.6, r)), use.max(axis=1))
        measure = _DIMENSION_UNITS.get(b.vocab.domain, "{weight}")
        b.param("use", ("R", "I"), use, "use of each {R} by each {I}", measure, integer=True)
        b.param("value", ("I",), value, "{value} of each {I}", "{money}", integer=True)
        b.param("limit", ("R",), limit, "limit of each {R}", measure, integer=True)
        b.var("x", (("i", "I"),), "1 if {I} i is chosen", vtype="B", role="selection")
        b.con("resource_limit", "Each {R} stays within its limit.", (("r", "R"),),
              total("i", "I", P("use", "r", "i") * V("x", "i")), "<=", P("limit", "r"),
              role="capacity")
        b.objective("max", total("i", "I", P("value", "i") * V("x", "i")),
                    "total {value} in {money}")
