"""Unit commitment (small): switch generators on and off to meet demand over time."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, Idx, P, V, total


@register
class UnitCommitment(Family):
    """Unit commitment with minimum output, fixed and start-up costs."""

    name = "unit_commitment"
    classes = ("energy/unit_commitment", "cost/fixed_charge", "logic/indicator")
    problem_class = "MILP"
    summary = "Commit {G}s in each {T} and set their output to meet demand at least cost."
    sizes = {"small": {"G": (2, 3), "T": (2, 3)}, "medium": {"G": (3, 5), "T": (4, 8)},
             "large": {"G": (4, 8), "T": (8, 12)}}
    vocabularies = (
        Vocabulary("energy", "Day-ahead dispatch",
                   "A power utility schedules its {G}s for the {T}s of tomorrow.",
                   {"G": ("generator", "town"), "T": ("hour", "hour")},
                   {"power": "MW", "money": "USD", "org": "power utility",
                    "output": "electricity"}),
        Vocabulary("manufacturing", "Compressor station",
                   "A plant switches its {G}s on and off across {T}s to meet air demand.",
                   {"G": ("compressor", "code:Comp"), "T": ("shift", "shift")},
                   {"power": "m3/min", "money": "EUR", "org": "plant's utilities team",
                    "output": "compressed air"}),
        Vocabulary("computing", "Data-centre cooling",
                   "A data centre runs {G}s across {T}s to remove the heat load.",
                   {"G": ("chiller", "code:Chiller"), "T": ("hour", "hour")},
                   {"power": "kW of cooling", "money": "USD", "org": "data-centre team",
                    "output": "cooling"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nG, nT = b.dims["G"], b.dims["T"]
        b.set("G")
        b.set("T")
        pmax = rounded(rng.uniform(50, 200, nG), 0)
        pmin = rounded(pmax * rng.uniform(0.1, 0.3, nG), 0)
        demand = rounded(pmax.sum() * rng.uniform(0.35, 0.85, nT), 0)
        b.param("demand", ("T",), demand, "demand in each {T}", "{power}")
        b.param("pmax", ("G",), pmax, "largest output of each {G}", "{power}")
        b.param("pmin", ("G",), pmin, "smallest output of a running {G}", "{power}")
        b.param("cost", ("G",), rounded(rng.uniform(10, 50, nG)), "cost per unit of output",
                "{money} per {power}")
        b.param("fixed", ("G",), rounded(rng.uniform(50, 300, nG), 0),
                "cost of running each {G} for one {T}", "{money}")
        b.param("startup", ("G",), rounded(rng.uniform(100, 600, nG), 0),
                "cost of starting each {G}", "{money}")
        b.var("on", (("g", "G"), ("t", "T")), "1 if {G} g runs in {T} t", vtype="B",
              role="indicator")
        b.var("p", (("g", "G"), ("t", "T")), "output of {G} g in {T} t", unit="{power}",
              role="quantity")
        b.var("start", (("g", "G"), ("t", "T")), "1 if {G} g starts in {T} t", ub=1.0,
              unit="starts", role="indicator")
        b.con("meet_demand", "Output meets demand in every {T}.", (("t", "T"),),
              total("g", "G", V("p", "g", "t")), "=", P("demand", "t"), role="demand")
        b.con("max_output", "A {G} produces only when on, up to its maximum.",
              (("g", "G"), ("t", "T")), V("p", "g", "t") - P("pmax", "g") * V("on", "g", "t"),
              "<=", 0.0, role="linking")
        b.con("min_output", "A running {G} produces at least its minimum.",
              (("g", "G"), ("t", "T")), V("p", "g", "t") - P("pmin", "g") * V("on", "g", "t"),
              ">=", 0.0, role="linking")
        b.con("first_start", "Every {G} is off before the first {T}.", (("g", "G"), ("t", "T")),
              V("start", "g", "t") - V("on", "g", "t"), ">=", 0.0, where=(Cond("first", "t"),),
              role="definition")
        b.con("start_up", "Switching on counts as a start.", (("g", "G"), ("t", "T")),
              V("start", "g", "t") - V("on", "g", "t") + V("on", "g", Idx("t") - 1), ">=", 0.0,
              where=(Cond("not_first", "t"),), role="definition")
        b.objective("min", total("g", "G", total("t", "T", P("cost", "g") * V("p", "g", "t") +
                                                 P("fixed", "g") * V("on", "g", "t") +
                                                 P("startup", "g") * V("start", "g", "t"))),
                    "operating cost in {money}")
