"""Constraint operators: a family from the catalogue added, or one removed."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    decisions,
    entity,
    fresh_name,
    numeric_params,
    pick,
    quantities,
    referenced,
    removable,
    sum_over,
    used_sets,
    with_changes,
)
from ortrex.engine.operators.registry import operator
from ortrex.engine.operators.sanity import NON_BINDING, arc_flows
from ortrex.ir.expr import Cond, Idx, P, V, total
from ortrex.ir.semantic import (
    ConstraintFamily,
    Parameter,
    SemanticModel,
    VariableFamily,
)
from ortrex.render.language import article, capital, plural
from ortrex.render.situation import column_labels
from ortrex.render.telling import plain


# Every rule is sized or placed so that the parent's plan breaks it; a rule that still
# does not bind is rejected as ``non_binding``.
@operator('budget, minimum service, capacity, ratio or either-or', postcheck=NON_BINDING)
def add_constraint(ctx: Context) -> Mutation:
    """A constraint family from the catalogue: budget, minimum service, capacity, ratio,
    either-or or precedence, sized from the parent's optimum so that it matters."""
    kinds = list(_CATALOGUE)
    order = ctx.rng.permutation(len(kinds))
    why = []
    for k in order:
        try:
            return _CATALOGUE[kinds[int(k)]](ctx)
        except NotApplicable as e:
            why.append(f"{kinds[int(k)]}: {e}")
    raise NotApplicable("; ".join(why))


def _quantity(ctx: Context, min_dims: int = 1, arcs: bool = True
              ) -> tuple[VariableFamily, np.ndarray]:
    """A quantity family with a solution (``arcs=False``: not a flow along arcs, whose total
    over its arcs grows with the length of the routes, so no minimum or share of it means
    anything)."""
    sm = ctx.parent
    along = set() if arcs else arc_flows(sm)
    cands = [v for v in quantities(sm) if len(v.dims) >= min_dims and v.name in ctx.values
             and v.name not in along]
    fam = pick(ctx, cands, f"quantity family with {min_dims}+ indices and a solution")
    return fam, np.nan_to_num(ctx.values[fam.name])


def _budget(ctx: Context) -> Mutation:
    sm = ctx.parent
    fam, x = _quantity(ctx)
    dims = tuple(s for _, s in fam.dims)
    costs = [p for p in numeric_params(sm) if p.index == dims]
    p = pick(ctx, costs, f"parameter indexed like {fam.name}")
    used = float(np.sum(p.values * x))
    if used <= 0:
        raise NotApplicable("nothing is spent at the optimum")
    name = fresh_name(sm, "budget_cap")
    label = column_labels(sm)[p.name]
    cap = float(np.round(used * ctx.rng.uniform(0.8, 0.95), 2))
    idx = [i for i, _ in fam.dims]
    what = plain(sm, fam.description, fam.dims)
    cf = ConstraintFamily(fresh_name(sm, "budget"),
                          f"Summed over the whole plan, the {what} weighted by their {label} "
                          "stay within a budget.", (),
                          sum_over(fam, P(p.name, *idx) * V(fam.name, *idx)), "<=", P(name),
                          role="budget")
    return with_changes(sm, "add_constraint", {"kind": "budget", "on": p.name, "cap": cap},
                 params=(*sm.params, Parameter(name, (), np.array(cap), p.unit,
                                               f"budget on the total {label}")),
                 constraints=(*sm.constraints, cf))


def _marginal(ctx: Context, keep_first: bool) -> Mutation:
    sm = ctx.parent
    fam, x = _quantity(ctx, 2, arcs=not keep_first)
    (i, si), (j, sj) = fam.dims[0], fam.dims[1]
    if len(fam.dims) > 2:
        raise NotApplicable("the family has more than two indices")
    if keep_first:  # minimum service: each first-index entity gets at least a share
        tot = x.sum(axis=1)
        bound = np.round(tot * ctx.rng.uniform(1.02, 1.15), 2)
        name, sense = fresh_name(sm, "min_service"), ">="
        # Told by what is summed: "receives" fits a customer, not a product made or a
        # warehouse that ships.
        what = plain(sm, fam.description, fam.dims)
        meaning = f"Summed over all {plural(entity(sm, sj))}, the {what} must total at least " \
                  f"the minimum set for each {entity(sm, si)}."
        forall, over, oi = ((i, si),), (j, sj), i
    else:  # capacity: each second-index entity handles at most a cap
        tot = x.sum(axis=0)
        bound = np.round(tot * ctx.rng.uniform(0.8, 0.95), 2)
        name, sense = fresh_name(sm, "handling_cap"), "<="
        meaning = f"Every {entity(sm, sj)} handles at most its capacity."
        forall, over, oi = ((j, sj),), (i, si), j
    if not np.any(tot > 0):
        raise NotApplicable("the family is zero at the optimum")
    body = total(over[0], over[1], V(fam.name, i, j), *fam.where)
    desc = "minimum total" if keep_first else "capacity"
    p = Parameter(name, (forall[0][1],), bound, fam.unit, f"{desc} of each "
                  f"{entity(sm, forall[0][1])}")
    # A minimum service level is a target the plan reaches, not a customer's demand (revenue
    # turns demands into markets: a service level stays a floor).
    cf = ConstraintFamily(fresh_name(sm, f"{name}_limit"), meaning, forall, body, sense,
                          P(name, oi), role="target" if keep_first else "capacity")
    kind = "minimum_service" if keep_first else "capacity"
    return with_changes(sm, "add_constraint", {"kind": kind, "variable": fam.name},
                        params=(*sm.params, p), constraints=(*sm.constraints, cf))


def _ratio(ctx: Context) -> Mutation:
    sm = ctx.parent
    fam, x = _quantity(ctx, 2, arcs=False)
    if len(fam.dims) > 2 or fam.where:
        raise NotApplicable("the family is not a plain two-index grid")
    (i, si), (j, sj) = fam.dims
    share = x / np.maximum(x.sum(axis=1, keepdims=True), 1e-12)
    top = float(np.max(share))
    if top <= 0.05:
        raise NotApplicable("no dominant share at the optimum")
    r = float(np.round(max(0.05, top * ctx.rng.uniform(0.7, 0.95)), 3))
    name = fresh_name(sm, "max_share")
    jj = next(n for n in ("k", "l", "m", "q", "r", "u") if n not in (i, j)
              and n not in {x.name for x in (*sm.sets, *sm.params, *sm.variables)})
    cf = ConstraintFamily(
        fresh_name(sm, "share_limit"),
        f"No {entity(sm, sj)} takes more than a fixed share of "
        f"{article(entity(sm, si))}'s total.",
        ((i, si), (j, sj)), V(fam.name, i, j) - P(name) * total(jj, sj, V(fam.name, i, jj)),
        "<=", 0.0, role="ratio")
    return with_changes(sm, "add_constraint", {"kind": "ratio", "variable": fam.name, "share": r},
                 params=(*sm.params, Parameter(name, (), np.array(r), "share",
                                               f"largest share one {entity(sm, sj)} may take of "
                                               f"{article(entity(sm, si))}'s total")),
                 constraints=(*sm.constraints, cf))


def _binary_choice(ctx: Context) -> tuple[VariableFamily, str, str]:
    """A one-index binary family over at least two entities: (family, index, set)."""
    sm = ctx.parent
    fams = [v for v in decisions(sm) if v.vtype == "B" and len(v.dims) == 1 and not v.where
            and v.role in ("selection", "")]
    fam = pick(ctx, fams, "one-index binary family")
    i, s = fam.dims[0]
    if len(sm.set_map[s]) < 2:
        raise NotApplicable("fewer than two entities")
    return fam, i, s


def _chosen(ctx: Context, fam: VariableFamily) -> np.ndarray | None:
    """Which entities the parent's plan chooses (None: no plan known)."""
    x = ctx.values.get(fam.name)
    if x is None or not np.all(np.isfinite(x)):
        return None
    return np.asarray(x) > 0.5


def _either_or(ctx: Context) -> Mutation:
    sm = ctx.parent
    fam, i, s = _binary_choice(ctx)
    chosen = _chosen(ctx, fam)
    # The rule must bind: the parent's plan chooses both ends.
    if chosen is not None and not (chosen[0] and chosen[-1]):
        raise NotApplicable(f"the plan does not choose both the first and the last "
                            f"{entity(sm, s)}")
    j = f"{i}2"
    cf = ConstraintFamily(fresh_name(sm, "either_or"),
                          f"The first and the last {entity(sm, s)} are not both chosen.",
                          ((i, s), (j, s)), V(fam.name, i) + V(fam.name, j), "<=", 1.0,
                          (Cond("first", i), Cond("last", j)), role="logic")
    return with_changes(sm, "add_constraint", {"kind": "either_or", "variable": fam.name},
                 constraints=(*sm.constraints, cf))


def _precedence(ctx: Context) -> Mutation:
    """Choices in order: an entity may be chosen only if the one before it is."""
    sm = ctx.parent
    fam, i, s = _binary_choice(ctx)
    chosen = _chosen(ctx, fam)
    # The rule must bind: the parent's plan chooses one whose predecessor it leaves out.
    if chosen is not None and not np.any(chosen[1:] & ~chosen[:-1]):
        raise NotApplicable(f"the plan already chooses {entity(sm, s)}s in list order")
    cf = ConstraintFamily(fresh_name(sm, "precedence"),
                          f"{capital(article(entity(sm, s)))} is chosen only if the one before "
                          "it in the list is.",
                          ((i, s),), V(fam.name, i) - V(fam.name, Idx(i) - 1), "<=", 0.0,
                          (Cond("not_first", i),), role="logic")
    return with_changes(sm, "add_constraint", {"kind": "precedence", "variable": fam.name},
                        constraints=(*sm.constraints, cf))


_CATALOGUE: dict[str, Callable[[Context], Mutation]] = {
    "budget": _budget, "minimum_service": lambda c: _marginal(c, True),
    "capacity": lambda c: _marginal(c, False), "ratio": _ratio, "either_or": _either_or,
    "precedence": _precedence,
}


# The rules that make a plan do anything: without its only requirement a cost-minimising plan
# does nothing (a unit commitment without demand), without its only limit a maximising plan
# is unbounded.
_DRIVERS = {"min": frozenset({"demand", "covering", "target"}),
            "max": frozenset({"capacity", "budget", "packing"})}


def _sole_driver(sm: SemanticModel, cf: ConstraintFamily) -> bool:
    """Whether ``cf`` is the only rule of its kind that drives the objective."""
    drivers = _DRIVERS[sm.objective.sense]
    return cf.role in drivers and not any(c.role in drivers for c in sm.constraints
                                          if c.name != cf.name)


@operator('a constraint family removed')
def remove_constraint(ctx: Context) -> Mutation:
    """A constraint family that does not define the problem removed (by role: never an
    assignment, degree, balance, subtour, linking or defining row; verification rejects an
    unbounded child)."""
    sm = ctx.parent
    if len(sm.constraints) < 2:
        raise NotApplicable("only one constraint family")
    cf = pick(ctx, [c for c in removable(sm) if not _sole_driver(sm, c)],
              "constraint family whose role allows removal")
    # An "Otherwise ..." rule and the "If ..." rule it continues go together.
    names = [c.name for c in sm.constraints]
    k = names.index(cf.name)
    gone_rules = {cf.name}
    if cf.meaning.startswith("Otherwise") and k:
        gone_rules.add(names[k - 1])
    if k + 1 < len(names) and sm.constraints[k + 1].meaning.startswith("Otherwise"):
        gone_rules.add(names[k + 1])
    if gone_rules - {c.name for c in removable(sm)}:
        raise NotApplicable(f"{cf.name!r} is paired with a rule that defines the problem")
    kept = tuple(c for c in sm.constraints if c.name not in gone_rules)
    if not kept:
        raise NotApplicable("the rule and its pair are the only ones")
    # The rule's own data goes with it (a client does not list figures nothing reads).
    gone = referenced(sm) - referenced(replace(sm, constraints=kept))
    params = tuple(p for p in sm.params if p.name not in gone)
    sets = used_sets(replace(sm, constraints=kept, params=params))
    return with_changes(sm, "remove_constraint", {"constraint": cf.name}, constraints=kept,
                        params=params, sets=tuple(s for s in sm.sets if s.name in sets))
