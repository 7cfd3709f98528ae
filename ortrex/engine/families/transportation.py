"""Transportation: ship from sources to sinks at least cost within supplies, meeting demands."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total


@register
class Transportation(Family):
    """Classic transportation LP."""

    name = "transportation"
    classes = ("transportation/transportation",)
    problem_class = "LP"
    summary = "Ship goods from {S} sites to {D} sites at minimum cost."
    sizes = {"small": {"S": (2, 4), "D": (3, 6)}, "medium": {"S": (4, 10), "D": (6, 20)},
             "large": {"S": (15, 30), "D": (30, 60)}}
    natural_integrality = "totally unimodular: a bipartite incidence matrix"
    vocabularies = (
        Vocabulary("logistics", "Regional distribution",
                   "A retailer ships {goods} from its {S}s to its {D}s each week.",
                   {"S": ("warehouse", "town"), "D": ("store", "town")},
                   {"goods": "pallets of goods", "qty": "pallets", "money": "USD",
                    "period": "week", "org": "retail chain's logistics team"}),
        Vocabulary("healthcare", "Vaccine distribution",
                   "A health agency moves {goods} from {S}s to {D}s before a campaign.",
                   {"S": ("cold-storage depot", "town"), "D": ("clinic", "surname")},
                   {"goods": "boxes of vaccine", "qty": "boxes", "money": "EUR",
                    "period": "campaign", "org": "regional health agency"}),
        Vocabulary("energy", "Coal supply",
                   "A utility buys {goods} from {S}s and delivers them to its {D}s.",
                   {"S": ("mine", "town"), "D": ("power plant", "town")},
                   {"goods": "tonnes of coal", "qty": "tonnes", "money": "USD",
                    "period": "month", "org": "fuel desk of a utility"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("S")
        b.set("D")
        nS, nD = b.dims["S"], b.dims["D"]
        demand = rounded(rng.uniform(20, 120, nD), 0)
        share = rng.dirichlet(np.ones(nS) * 2)
        supply = np.ceil(share * demand.sum() * rng.uniform(1.15, 1.5)) + 5
        cost = rounded(rng.uniform(1, 20, (nS, nD)))
        b.param("supply", ("S",), supply, "{qty} available at each {S}", "{qty}")
        b.param("demand", ("D",), demand, "{qty} required by each {D}", "{qty}")
        b.param("cost", ("S", "D"), cost, "cost of shipping one unit from a {S} to a {D}",
                "{money} per {qty}")
        b.var("x", (("s", "S"), ("d", "D")), "{qty} shipped from {S} s to {D} d", unit="{qty}",
              role="quantity")
        b.con("supply_limit", "Each {S} ships no more than it has.", (("s", "S"),),
              total("d", "D", V("x", "s", "d")), "<=", P("supply", "s"), role="capacity")
        b.con("demand_met", "Each {D} receives at least what it needs.", (("d", "D"),),
              total("s", "S", V("x", "s", "d")), ">=", P("demand", "d"), role="demand")
        b.objective("min", total("s", "S", total("d", "D", P("cost", "s", "d") * V("x", "s", "d"))),
                    "total shipping cost in {money}")
