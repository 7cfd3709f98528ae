"""Crossover: two compatible families combined, the second parent giving data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    entity,
    fresh_name,
)
from ortrex.engine.operators.registry import operator
from ortrex.ir.expr import Add, Neg, P, Param, V, total
from ortrex.ir.semantic import (
    ConstraintFamily,
    IndexSet,
    Parameter,
    SemanticModel,
    VariableFamily,
)


def _resample(values: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return values[rng.integers(len(values), size=n)] if len(values) != n else values.copy()


def incoherence(a: SemanticModel, b: SemanticModel) -> str | None:
    """Why ``b`` cannot give its data to ``a`` (None: they combine): a registered pair of
    families whose units of the data taken agree, told in the same story (domain) where the
    second parent's names come along (no "Weight/Length/Floor (kg)" of a truck on investment
    projects)."""
    pair = _CROSSOVERS.get((a.family, b.family))
    if pair is None:
        return f"no crossover of {a.family} with {b.family}"
    _, words, story = pair
    if story and a.domain != b.domain:
        return f"the stories differ ({a.domain} and {b.domain})"
    wa, wb = (dict(m.descriptors.get("words") or {}) for m in (a, b))
    for w in words:
        if wa.get(w) != wb.get(w):
            return f"the units differ ({w}: {wa.get(w)!r} and {wb.get(w)!r})"
    return None


def compatible(a: SemanticModel, b: SemanticModel) -> bool:
    """Whether ``b`` may be the second parent of ``a`` (the mutate job's choice of partner)."""
    return incoherence(a, b) is None


def crossover(ctx: Context) -> Mutation:
    """Two compatible families combined (a registered pair in one story and the same units;
    the second parent gives data)."""
    a, b = ctx.parent, ctx.other
    if b is None:
        raise NotApplicable("no second parent")
    why = incoherence(a, b)
    if why:
        raise NotApplicable(why)
    return _CROSSOVERS[(a.family, b.family)][0](ctx, a, b)


def _transport_facility(ctx: Context, a: SemanticModel, b: SemanticModel) -> Mutation:
    """Transportation whose sources must be opened at the facility model's fixed costs."""
    n = len(a.set_map["S"])
    fixed = np.round(_resample(b.param_map["fixed"].values, n, ctx.rng), 2)
    y, f = fresh_name(a, "open"), fresh_name(a, "open_cost")
    yv = VariableFamily(y, (("s", "S"),), "B", 0.0, 1.0, (),
                        f"1 if {entity(a, 'S')} s is opened", "0/1", "selection")
    cons = []
    for c in a.constraints:
        if c.name == "supply_limit":
            c = replace(c, rhs=P("supply", "s") * V(y, "s"), role="linking",
                        meaning=f"Each {entity(a, 'S')} is either opened, at its fixed cost, "
                                "or left closed: an open one ships no more than it has, a "
                                "closed one ships nothing.")
        cons.append(c)
    o = a.objective
    opening = total("s", "S", P(f, "s") * V(y, "s"))
    # A cost adds to a cost and comes off a profit (a parent may maximise its profit).
    expr = Add((o.expr, opening)) if o.sense == "min" else Add((o.expr, Neg(opening)))
    p = Parameter(f, ("S",), fixed, "", f"fixed cost of opening each {entity(a, 'S')}")
    desc = {**a.descriptors, "crossover": [a.family, b.family],
            "mutations": [*a.descriptors.get("mutations", []), "crossover"],
            "settled": [*a.descriptors.get("settled", []), y]}
    child = replace(a, params=(*a.params, p), variables=(*a.variables, yv),
                    constraints=tuple(cons),
                    objective=replace(o, expr=expr, description=o.description + (
                        " plus opening costs" if o.sense == "min" else " net of opening costs")),
                    descriptors=desc)
    return Mutation(child, {"with": b.family, "data": "fixed"})


def _knapsack_resources(ctx: Context, a: SemanticModel, b: SemanticModel) -> Mutation:
    """A 0-1 knapsack gains the multi-dimensional knapsack's resource rows."""
    n = len(a.set_map["I"])
    # A resource the knapsack already limits ("Storage" beside a cache's storage, "Weight"
    # beside a truck's payload in kg) would give every item a second, different size of it.
    words = dict(a.descriptors.get("words") or {})
    own = {str(words.get("cap_word", "")).lower()} | {
        e.name.lower() for c in a.constraints if c.role == "capacity"
        for e in c.lhs.walk() if isinstance(e, Param)}
    r_set = b.set_map["R"]
    keep = [k for k, e in enumerate(r_set.elements) if e.lower() not in own]
    if not keep:
        raise NotApplicable("every resource of the second parent is the knapsack's own")
    r_set = replace(r_set, elements=tuple(r_set.elements[k] for k in keep))
    use = b.param_map["use"].values[keep]
    cols = ctx.rng.integers(use.shape[1], size=n)
    new_use = use[:, cols]
    limit = np.round(new_use.sum(axis=1) * ctx.rng.uniform(0.4, 0.6, len(r_set)), 2)
    sets = (*a.sets, IndexSet("R", r_set.elements, r_set.entity, r_set.description))
    params = (*a.params, Parameter("use", ("R", "I"), new_use, b.param_map["use"].unit,
                                   b.param_map["use"].description),
              Parameter("limit", ("R",), limit, b.param_map["limit"].unit,
                        b.param_map["limit"].description))
    cf = ConstraintFamily("resource_limit", b.constraints[0].meaning, (("r", "R"),),
                          total("i", "I", P("use", "r", "i") * V("x", "i")), "<=",
                          P("limit", "r"), role="capacity")
    desc = {**a.descriptors, "crossover": [a.family, b.family],
            "mutations": [*a.descriptors.get("mutations", []), "crossover"]}
    child = replace(a, sets=sets, params=params, constraints=(*a.constraints, cf),
                    descriptors=desc)
    return Mutation(child, {"with": b.family, "data": "use, limit"})


Combine = Callable[[Context, SemanticModel, SemanticModel], Mutation]
# Each pair: how the second parent's data joins the first, the words (units) of that data
# that must agree, and whether the stories must (the second parent's set and its names come
# along: a knapsack's resources; fixed costs alone are told in the first parent's story).
_CROSSOVERS: dict[tuple[str, str], tuple[Combine, tuple[str, ...], bool]] = {
    ("transportation", "facility_location"): (_transport_facility, ("money",), False),
    ("transportation", "facility_location_cap"): (_transport_facility, ("money",), False),
    ("knapsack_01", "knapsack_multidim"): (_knapsack_resources, ("weight", "money"), True),
}


CROSSOVER_PARTNERS: dict[str, tuple[str, ...]] = {}


for _a, _b in _CROSSOVERS:
    CROSSOVER_PARTNERS[_a] = (*CROSSOVER_PARTNERS.get(_a, ()), _b)


operator("two compatible families combined", parents=2, partners=CROSSOVER_PARTNERS,
         compatible=compatible)(crossover)
