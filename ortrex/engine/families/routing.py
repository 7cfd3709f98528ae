"""Travelling salesman with Miller-Tucker-Zemlin subtour elimination."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, P, V, total


@register
class TSP(Family):
    """TSP (MTZ formulation); the first node is the depot."""

    name = "tsp_mtz"
    classes = ("routing/tsp",)
    problem_class = "MILP"
    summary = "Visit every {N} once in a closed tour of least {measure}, starting at the first."
    sizes = {"small": {"N": (4, 5)}, "medium": {"N": (5, 6)}, "large": {"N": (7, 8)}}
    vocabularies = (
        Vocabulary("logistics", "Delivery round",
                   "A van leaves the depot, visits every {N} once and returns.",
                   {"N": ("stop", "town")},
                   {"length": "km", "measure": "distance", "org": "courier", "vehicle": "van",
                    "home": "depot"}),
        Vocabulary("healthcare", "Home care visits",
                   "A nurse starts at the clinic, visits every {N} once and returns.",
                   {"N": ("patient home", "surname")},
                   {"length": "minutes", "measure": "travel time",
                    "org": "home-care service", "vehicle": "nurse",
                    "home": "clinic"}),
        Vocabulary("manufacturing", "Drilling path",
                   "A drill head starts at its rest point and visits every {N} once.",
                   {"N": ("hole", "code:H")},
                   {"length": "mm", "measure": "head travel", "org": "machine shop",
                    "vehicle": "drill head", "home": "rest point"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["N"]
        b.set("N")
        xy = rng.uniform(0, 100, (n, 2))
        dist = rounded(np.linalg.norm(xy[:, None] - xy[None, :], axis=2), 1)
        b.param("dist", ("N", "N"), dist, "{measure} between {N}s", "{length}")
        b.param("n_nodes", (), float(n), "number of {N}s", "{N}s", integer=True)
        b.derive("n_nodes", "len(N)")
        off_diag = (Cond("ne", "i", "j"),)
        b.var("x", (("i", "N"), ("j", "N")), "1 if the tour goes from {N} i to {N} j",
              vtype="B", where=off_diag, role="routing")
        b.var("u", (("i", "N"),), "position of {N} i in the tour", lb=1.0, ub=float(n - 1),
              where=(Cond("not_first", "i"),), unit="position", role="position")
        b.con("leave_once", "The tour leaves every {N} once.", (("i", "N"),),
              total("j", "N", V("x", "i", "j"), Cond("ne", "i", "j")), "=", 1.0, role="degree")
        b.con("enter_once", "The tour enters every {N} once.", (("j", "N"),),
              total("i", "N", V("x", "i", "j"), Cond("ne", "i", "j")), "=", 1.0, role="degree")
        b.con("no_subtour", "Positions increase along the tour, so it has no sub-tours.",
              (("i", "N"), ("j", "N")),
              V("u", "i") - V("u", "j") + P("n_nodes") * V("x", "i", "j"), "<=",
              P("n_nodes") - 1, where=(Cond("ne", "i", "j"), Cond("not_first", "i"),
                                       Cond("not_first", "j")), role="subtour")
        b.objective("min", total("i", "N", total("j", "N", P("dist", "i", "j") *
                                                 V("x", "i", "j"), Cond("ne", "i", "j"))),
                    "total tour {measure} in {length}")
