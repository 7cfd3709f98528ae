"""Assignment: give every task to one agent, each agent at most one task, at least cost."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total


@register
class Assignment(Family):
    """Linear assignment with binary variables (the LP relaxation is integral: flagged)."""

    name = "assignment"
    classes = ("assignment/linear",)
    problem_class = "BIP"
    summary = "Assign each {T} to exactly one {W} at minimum total cost."
    sizes = {"small": {"T": (3, 5), "extra": (0, 2)}, "medium": {"T": (6, 15), "extra": (0, 5)},
             "large": {"T": (20, 40), "extra": (0, 8)}}
    natural_integrality = "totally unimodular: a bipartite incidence matrix"
    vocabularies = (
        Vocabulary("workforce", "Job allocation",
                   "A contractor gives each {T} to one {W}; a {W} takes at most one {T}.",
                   {"W": ("technician", "person"), "T": ("job", "list:job")},
                   {"money": "USD", "unit": "cost in USD", "org": "building contractor",
                    "give": "give"}),
        Vocabulary("healthcare", "Nurse rostering",
                   "A hospital assigns each {T} to one {W} for the night.",
                   {"W": ("nurse", "person"), "T": ("ward", "list:ward")},
                   {"money": "overtime hours", "unit": "hours", "org": "hospital",
                    "give": "assign"}),
        Vocabulary("computing", "Job placement",
                   "A cluster scheduler places each {T} on its own {W}.",
                   {"W": ("server", "codename"), "T": ("container", "list:service")},
                   {"money": "ms of latency", "unit": "ms", "org": "platform team",
                    "give": "place"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nT = b.dims["T"]
        nW = nT + b.dims["extra"]
        b.set("W", nW)
        b.set("T", nT)
        skill = rng.uniform(0.5, 1.5, nW)
        effort = rng.uniform(10, 60, nT)
        cost = rounded(np.outer(skill, effort) * rng.uniform(0.7, 1.3, (nW, nT)))
        b.param("cost", ("W", "T"), cost, "cost of giving a {T} to a {W}", "{money}")
        b.var("x", (("w", "W"), ("t", "T")), "1 if {W} w takes {T} t", vtype="B", role="assignment")
        b.con("each_task", "Every {T} goes to exactly one {W}.", (("t", "T"),),
              total("w", "W", V("x", "w", "t")), "=", 1.0, role="assignment")
        b.con("each_agent", "A {W} takes at most one {T}.", (("w", "W"),),
              total("t", "T", V("x", "w", "t")), "<=", 1.0, role="assignment")
        b.objective("min", total("w", "W", total("t", "T", P("cost", "w", "t") * V("x", "w", "t"))),
                    "total cost in {money}")
