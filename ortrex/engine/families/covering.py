"""Set cover, set packing and bin packing."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.ir.expr import Cond, Idx, P, V, total
from ortrex.ir.semantic import SemanticModel

SET_VOCABS = (
    Vocabulary("public_services", "Emergency coverage",
               "A city chooses {S}s so that every {U} is reachable in time.",
               {"U": ("neighbourhood", "town"), "S": ("ambulance post", "codename")},
               {"money": "kUSD", "benefit": "lives saved per year", "org": "city",
                "cover": "reach within eight minutes", "use": "answer calls from"}),
    Vocabulary("telecom", "Antenna placement",
               "A network planner selects {S}s covering every {U}.",
               {"U": ("street block", "code:Block"), "S": ("antenna site", "town")},
               {"money": "kEUR", "benefit": "subscribers", "org": "mobile network",
                "cover": "cover", "use": "use the spectrum of"}),
    Vocabulary("education", "Course staffing",
               "A faculty chooses {S}s so that every {U} is taught.",
               {"U": ("required topic", "list:topic"), "S": ("lecturer", "surname")},
               {"money": "teaching units", "benefit": "credit points", "org": "faculty",
                "cover": "teach", "use": "need the lab slot for"}),
)


def _membership(rng: np.random.Generator, nU: int, nS: int, per_element: int,
                density: float = 0.3) -> np.ndarray:
    """A 0/1 matrix where every element lies in at least ``per_element`` sets."""
    a = (rng.random((nU, nS)) < density).astype(float)
    for u in range(nU):
        missing = per_element - int(a[u].sum())
        if missing > 0:
            a[u, rng.choice(np.flatnonzero(a[u] == 0), size=missing, replace=False)] = 1.0
    # No set holds every element (one set alone would cover, or block, everything): move an
    # element of a full set to a set that lacks it (or drop it where it has enough sets).
    for _ in range(4 * nS):
        full = np.flatnonzero(a.all(axis=0))
        if not full.size:
            break
        s = int(full[0])
        u = int(rng.integers(nU))
        a[u, s] = 0.0
        lacking = np.flatnonzero(a[u] == 0)
        lacking = lacking[lacking != s]
        if a[u].sum() < per_element and lacking.size:
            a[u, int(rng.choice(lacking))] = 1.0
    return a


@register
class SetCover(Family):
    """Weighted set cover."""

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """One set covers every element."""
        covers = sm.param_map["covers"].values
        whole = np.flatnonzero(covers.all(axis=0))
        if whole.size:
            return f"one set ({sm.set_map['S'].elements[whole[0]]}) covers every element"
        return None

    name = "set_cover"
    classes = ("covering/set_cover",)
    problem_class = "BIP"
    summary = "Pick the cheapest {S}s such that every {U} is covered."
    sizes = {"small": {"U": (5, 9), "S": (5, 9)}, "medium": {"U": (15, 40), "S": (10, 40)},
             "large": {"U": (25, 45), "S": (20, 40)}}
    vocabularies = SET_VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nU, nS = b.dims["U"], b.dims["S"]
        b.set("U")
        b.set("S")
        # Sparse sets with costs about in proportion to their size: no set is the obvious
        # bargain, and the LP relaxation is rarely integral (it nearly always was with dense
        # sets and independent costs).
        a = _membership(rng, nU, nS, 2, density=0.15)
        cost = rounded(a.sum(axis=0) * rng.uniform(8, 12, nS) + rng.uniform(0, 5, nS), 0)
        b.param("covers", ("U", "S"), a, "1 if a {S} covers a {U}", "0/1", integer=True)
        b.param("cost", ("S",), cost, "cost of each {S}", "{money}")
        b.var("y", (("s", "S"),), "1 if {S} s is chosen", vtype="B", role="selection")
        b.con("covered", "Every {U} is covered by a chosen {S}.", (("u", "U"),),
              total("s", "S", P("covers", "u", "s") * V("y", "s")), ">=", 1.0, role="covering")
        b.objective("min", total("s", "S", P("cost", "s") * V("y", "s")),
                    "total cost in {money}")


@register
class SetPacking(Family):
    """Weighted set packing."""

    name = "set_packing"
    classes = ("covering/set_packing",)
    problem_class = "BIP"
    summary = "Pick {S}s of greatest {benefit} that never share a {U}."
    sizes = {"small": {"U": (5, 9), "S": (5, 9)}, "medium": {"U": (15, 40), "S": (10, 40)},
             "large": {"U": (25, 45), "S": (20, 40)}}
    vocabularies = SET_VOCABS

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every set chosen: nothing conflicts."""
        return "every set is chosen: nothing conflicts" if all_at(values["y"]) else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nU, nS = b.dims["U"], b.dims["S"]
        b.set("U")
        b.set("S")
        a = _membership(rng, nU, nS, 2)
        b.param("uses", ("U", "S"), a, "1 if a {S} uses a {U}", "0/1", integer=True)
        # Benefit about in proportion to the elements used (was mostly independent of them,
        # and the LP relaxation then mostly integral).
        b.param("benefit", ("S",), rounded(a.sum(axis=0) * rng.uniform(8, 12, nS) +
                                           rng.uniform(0, 5, nS), 0),
                "{benefit} of each {S}", "{benefit}")
        b.var("y", (("s", "S"),), "1 if {S} s is chosen", vtype="B", role="selection")
        b.con("conflict", "No {U} is used by two chosen {S}s.", (("u", "U"),),
              total("s", "S", P("uses", "u", "s") * V("y", "s")), "<=", 1.0, role="packing")
        b.objective("max", total("s", "S", P("benefit", "s") * V("y", "s")),
                    "total {benefit}")


@register
class BinPacking(Family):
    """Bin packing with bins opened in order (symmetry breaking)."""

    name = "bin_packing"
    classes = ("packing/bin_packing",)
    problem_class = "BIP"
    summary = "Pack all {I}s into as few {B}s as possible."
    sizes = {"small": {"I": (4, 6)}, "medium": {"I": (7, 10)}, "large": {"I": (10, 13)}}
    vocabularies = (
        Vocabulary("logistics", "Container loading",
                   "A forwarder packs {I}s into identical {B}s.",
                   {"I": ("crate", "code:C"), "B": ("container", "code:Box")},
                   {"size": "m3", "org": "freight forwarder", "load": "load"}),
        Vocabulary("computing", "VM consolidation",
                   "An operator packs {I}s onto identical {B}s to switch the rest off.",
                   {"I": ("virtual machine", "list:service"), "B": ("host", "code:host")},
                   {"size": "GB RAM", "org": "platform team", "load": "place"}),
        Vocabulary("manufacturing", "Batch ovens",
                   "A bakery loads {I}s into identical {B}s.",
                   {"I": ("tray", "list:bakery"), "B": ("oven run", "code:Run")},
                   {"size": "shelf cm", "org": "bakery", "load": "bake"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every bin offered is used."""
        y = values["y"]
        return f"all {y.size} bins offered are used" if all_at(y) else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["I"]
        b.set("I")
        size = rounded(rng.uniform(10, 60, n), 0)
        cap = float(max(size.max(), np.ceil(size.sum() / max(2, n // 2)) + 10))
        # First-fit decreasing bounds the bins needed.
        loads: list[float] = []
        for s in sorted(size, reverse=True):
            for k, load in enumerate(loads):
                if load + s <= cap:
                    loads[k] += s
                    break
            else:
                loads.append(s)
        # Offer one or two bins more than first-fit decreasing needs: with exactly that many,
        # the answer is often just "all of them"; each spare bin multiplies HiGHS's symmetric
        # search (n/3 spares took 1.4 s a large instance, measured).
        b.set("B", len(loads) + int(rng.integers(1, 3)))
        b.param("size", ("I",), size, "size of each {I}", "{size}", integer=True)
        b.param("capacity", (), cap, "capacity of one {B}", "{size}", integer=True)
        b.var("x", (("i", "I"), ("k", "B")), "1 if {I} i goes into {B} k", vtype="B",
              role="assignment")
        b.var("y", (("k", "B"),), "1 if {B} k is used", vtype="B", role="selection")
        b.con("packed", "Every {I} goes into exactly one {B}.", (("i", "I"),),
              total("k", "B", V("x", "i", "k")), "=", 1.0, role="assignment")
        b.con("capacity_limit", "A used {B} holds no more than its capacity.", (("k", "B"),),
              total("i", "I", P("size", "i") * V("x", "i", "k")) -
              P("capacity") * V("y", "k"), "<=", 0.0, role="linking")
        b.con("in_order", "{B}s are used in order.", (("k", "B"),),
              V("y", "k") - V("y", Idx("k") - 1), "<=", 0.0, where=(Cond("not_first", "k"),),
              role="symmetry")
        b.objective("min", total("k", "B", V("y", "k")), "number of {B}s used")
