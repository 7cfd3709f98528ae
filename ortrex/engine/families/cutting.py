"""Cutting stock over a set of cutting patterns (integer pattern counts)."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total


def patterns(rng: np.random.Generator, width: float, sizes: np.ndarray, extra: int
             ) -> list[np.ndarray]:
    """Single-size patterns for every size plus random greedy patterns (all distinct)."""
    out = {tuple(int(width // s) * (np.arange(sizes.size) == k)) for k, s in enumerate(sizes)}
    for _ in range(extra * 4):
        if len(out) >= sizes.size + extra:
            break
        counts, left = np.zeros(sizes.size, dtype=int), width
        for k in rng.permutation(sizes.size):
            take = int(rng.integers(0, int(left // sizes[k]) + 1))
            counts[k] += take
            left -= take * sizes[k]
        for k in np.argsort(sizes):  # fill what is left
            while left >= sizes[k]:
                counts[k] += 1
                left -= sizes[k]
        if counts.any():
            out.add(tuple(counts))
    return [np.array(p, dtype=float) for p in sorted(out)]


@register
class CuttingStock(Family):
    """Cutting stock: cut stock rolls with patterns to meet orders using the fewest rolls."""

    name = "cutting_stock"
    classes = ("packing/cutting_stock",)
    problem_class = "MILP"
    summary = "Cut standard {R} stock with patterns to meet orders for {I}s, using the fewest."
    sizes = {"small": {"I": (2, 3), "extra": (1, 3)}, "medium": {"I": (4, 8), "extra": (5, 15)},
             "large": {"I": (8, 14), "extra": (20, 50)}}
    vocabularies = (
        Vocabulary("manufacturing", "Paper mill",
                   "A paper mill cuts jumbo {R}s into narrower {I}s ordered by customers.",
                   {"I": ("reel width", "letter"), "P": ("cutting pattern", "code:P"),
                    "R": ("roll", "")},
                   {"len": "cm", "org": "paper mill", "stock": "jumbo roll",
                    "stocks": "jumbo rolls", "cut": "slit"}),
        Vocabulary("construction", "Steel bars",
                   "A fabricator cuts stock {R}s into the {I}s of a building job.",
                   {"I": ("bar length", "letter"), "P": ("cutting plan", "code:Plan"),
                    "R": ("bar", "")},
                   {"len": "mm", "org": "rebar fabricator", "stock": "stock bar",
                    "stocks": "stock bars", "cut": "cut"}),
        Vocabulary("retail", "Fabric store",
                   "A fabric shop cuts {R}s into the {I}s customers order.",
                   {"I": ("piece length", "letter"), "P": ("cutting layout", "code:Layout"),
                    "R": ("bolt of cloth", "")},
                   {"len": "cm", "org": "fabric shop", "stock": "bolt of cloth",
                    "stocks": "bolts of cloth", "cut": "cut"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["I"]
        b.set("I")
        width = float(rng.integers(10, 31) * 10)
        sizes = rounded(np.sort(rng.uniform(0.12, 0.45, n) * width), 0)
        pats = patterns(rng, width, sizes, b.dims["extra"])
        b.set("P", len(pats))
        b.param("width", (), width, "width of a stock {R}", "{len}", integer=True)
        b.param("size", ("I",), sizes, "size of each {I}", "{len}", integer=True)
        b.param("demand", ("I",), rng.integers(5, 40, n).astype(float),
                "pieces ordered of each {I}", "pieces", integer=True)
        b.param("pieces", ("I", "P"), np.array(pats).T, "pieces of each {I} a {P} yields",
                "pieces", integer=True)
        b.var("x", (("p", "P"),), "stock {R}s cut with {P} p", vtype="I", unit="{R}s",
              role="quantity")
        b.con("orders", "Every order is met.", (("i", "I"),),
              total("p", "P", P("pieces", "i", "p") * V("x", "p")), ">=", P("demand", "i"),
              role="demand")
        b.objective("min", total("p", "P", V("x", "p")), "stock {R}s used")
