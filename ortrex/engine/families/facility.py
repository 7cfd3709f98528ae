"""Facility location: open sites and serve every customer from open sites, capacitated or not."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total

VOCABS = (
    Vocabulary("logistics", "Depot network",
               "A parcel company decides which {F}s to open to serve its {C}s.",
               {"F": ("depot", "town"), "C": ("delivery zone", "town")},
               {"qty": "parcels per day", "money": "USD", "org": "parcel company",
                "serve": "deliver to", "customers": "delivery zones"}),
    Vocabulary("healthcare", "Clinic siting",
               "A health authority chooses where to open {F}s for its {C}s.",
               {"F": ("clinic site", "town"), "C": ("district", "town")},
               {"qty": "patient visits per week", "money": "EUR", "org": "health authority",
                "serve": "care for", "customers": "districts"}),
    Vocabulary("telecom", "Edge data centres",
               "An operator picks {F}s to host services for its {C}s.",
               {"F": ("edge site", "town"), "C": ("cell cluster", "code:Cluster")},
               {"qty": "Gbit/s", "money": "USD", "org": "mobile operator",
                "serve": "serve", "customers": "cell clusters"}),
)


def _geometry(b: Builder, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    nF, nC = b.dims["F"], b.dims["C"]
    fx, cx = rng.uniform(0, 100, (nF, 2)), rng.uniform(0, 100, (nC, 2))
    dist = np.linalg.norm(fx[:, None, :] - cx[None, :, :], axis=2)
    demand = rounded(rng.uniform(10, 100, nC), 0)
    return dist, demand


@register
class FacilityUncapacitated(Family):
    """Uncapacitated facility location."""

    name = "facility_location"
    classes = ("location/facility", "cost/fixed_charge")
    problem_class = "MILP"
    summary = "Open {F}s and assign every {C} to an open one, minimising fixed plus service cost."
    sizes = {"small": {"F": (3, 5), "C": (5, 8)}, "medium": {"F": (5, 12), "C": (10, 30)},
             "large": {"F": (8, 12), "C": (18, 28)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("F")
        b.set("C")
        dist, demand = _geometry(b, rng)
        nF, nC = b.dims["F"], b.dims["C"]
        # Each customer has three sites within easy reach and the rest far off (road access,
        # not straight lines): with costs by plain distance the LP relaxation was integral
        # every time (each customer simply takes its nearest open site); with three near
        # sites it is fractional in 83% of medium draws (measured), with two in 60%.
        base = float(np.mean(dist * demand[None, :] * 0.1))
        serve = base * rng.uniform(1.5, 3.0, (nF, nC))
        for c in range(nC):
            serve[rng.choice(nF, 3, replace=False), c] = base * rng.uniform(0.2, 0.5, 3)
        serve = rounded(serve)
        # Opening a site costs about what serving its share of customers does: neither
        # opening everything nor a single site is the obvious answer.
        fixed = rounded(base * nC / nF * rng.uniform(0.5, 1.0, nF), 0)
        b.param("fixed", ("F",), fixed,
                "cost of opening each {F}", "{money}")
        b.param("serve", ("F", "C"), serve, "cost of serving a whole {C} from a {F}", "{money}")
        b.var("y", (("f", "F"),), "1 if {F} f is opened", vtype="B", role="selection")
        b.var("x", (("f", "F"), ("c", "C")), "share of {C} c served by {F} f", ub=1.0,
              unit="share of demand", role="assignment")
        b.con("served", "Every {C} is fully served.", (("c", "C"),),
              total("f", "F", V("x", "f", "c")), "=", 1.0, role="assignment")
        b.con("open_only", "Only open {F}s serve.", (("f", "F"), ("c", "C")),
              V("x", "f", "c") - V("y", "f"), "<=", 0.0, role="linking")
        b.objective("min", total("f", "F", P("fixed", "f") * V("y", "f")) +
                    total("f", "F", total("c", "C", P("serve", "f", "c") * V("x", "f", "c"))),
                    "opening and service cost in {money}")


@register
class FacilityCapacitated(Family):
    """Capacitated facility location (single-source relaxed: shares are continuous)."""

    name = "facility_location_cap"
    classes = ("location/facility", "cost/fixed_charge")
    problem_class = "MILP"
    summary = "Open {F}s of limited capacity and split every {C}'s demand among open ones."
    sizes = {"small": {"F": (2, 4), "C": (4, 6)}, "medium": {"F": (4, 7), "C": (8, 15)},
             "large": {"F": (6, 10), "C": (14, 22)}}
    vocabularies = VOCABS

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        b.set("F")
        b.set("C")
        dist, demand = _geometry(b, rng)
        nF = b.dims["F"]
        share = rng.dirichlet(np.ones(nF) * 3)
        cap = np.ceil(np.maximum(share * demand.sum() * rng.uniform(1.3, 2.0), demand.max()))
        b.param("demand", ("C",), demand, "demand of each {C}", "{qty}")
        b.param("capacity", ("F",), cap, "capacity of each {F}", "{qty}")
        b.param("fixed", ("F",), rounded(rng.uniform(200, 800, nF), 0),
                "cost of opening each {F}", "{money}")
        b.param("unit_cost", ("F", "C"), rounded(dist * 0.1),
                "cost per unit served to a {C} from a {F}", "{money}")
        b.var("y", (("f", "F"),), "1 if {F} f is opened", vtype="B", role="selection")
        b.var("x", (("f", "F"), ("c", "C")), "share of {C} c served by {F} f", ub=1.0,
              unit="share of demand", role="assignment")
        b.con("served", "Every {C} is fully served.", (("c", "C"),),
              total("f", "F", V("x", "f", "c")), "=", 1.0, role="assignment")
        b.con("capacity_limit", "An open {F} serves no more than its capacity; a closed one "
              "serves nothing.", (("f", "F"),),
              total("c", "C", P("demand", "c") * V("x", "f", "c")) -
              P("capacity", "f") * V("y", "f"), "<=", 0.0, role="linking")
        b.objective("min", total("f", "F", P("fixed", "f") * V("y", "f")) +
                    total("f", "F", total("c", "C", P("unit_cost", "f", "c") * P("demand", "c") *
                                          V("x", "f", "c"))),
                    "opening and service cost in {money}")
