"""Mutation operators on the semantic IR: named, parameterised, seeded.

Each operator takes a parent semantic model (and, for data-driven changes, the values of the
parent's verified optimum) and returns a child model with a JSON description of what it did, or
:class:`NotApplicable` with the reason. ``presentation`` operators (a domain shift, a renaming)
change only how the model is told: their child grounds to an instance equivalent to the
parent's and is stored as a new semantic model of that same instance. Every other operator
changes the model itself; its child is verified like a fresh instance.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.base import Builder
from ortrex.ir.expr import Add, Cond, Const, Expr, Neg, P, Sum, V, as_expr, expand, total
from ortrex.ir.semantic import (
    ConstraintFamily,
    IndexSet,
    ObjectiveSpec,
    Parameter,
    SemanticModel,
    VariableFamily,
)

# Units that measure rather than count: their quantities do not become integers.
_NOT_COUNTABLE = re.compile(
    r"share|fraction|percent|%|kw|mw|gbit|hour|tonne|kg|litre|liter|gram|metre|meter|mm|km|"
    r"kwh|mwh|position|index|usd|eur|money|cost|price|\$", re.I)


class NotApplicable(Exception):
    """The operator does not apply to this model (counted, never fatal)."""


@dataclass(frozen=True)
class Mutation:
    """A child model and what was done to get it."""

    child: SemanticModel
    params: dict[str, Any]


@dataclass(frozen=True)
class Context:
    """What an operator may use: the parent, its optimum's values per family, a seeded rng."""

    parent: SemanticModel
    values: Mapping[str, np.ndarray]
    rng: np.random.Generator
    other: SemanticModel | None = None  # the second parent of a crossover


@dataclass(frozen=True)
class Operator:
    """A named mutation."""

    name: str
    apply: Callable[[Context], Mutation]
    presentation: bool = False
    parents: int = 1
    summary: str = ""


def family_values(sm: SemanticModel, var_names: list[str], x: np.ndarray | None
                  ) -> dict[str, np.ndarray]:
    """The solution ``x`` (over grounded variable names) as one array per variable family,
    shaped by its dims (NaN where the family has no variable)."""
    if x is None:
        return {}
    pos = {n: k for k, n in enumerate(var_names)}
    sets = sm.set_map
    out = {}
    for v in sm.variables:
        if not v.dims:
            out[v.name] = np.array(x[pos[v.name]]) if v.name in pos else np.array(np.nan)
            continue
        shape = tuple(len(sets[s]) for _, s in v.dims)
        arr = np.full(shape, np.nan)
        for idx in np.ndindex(shape):
            labels = ",".join(sets[s].elements[i] for (_, s), i in zip(v.dims, idx, strict=True))
            k = pos.get(f"{v.name}[{labels}]")
            if k is not None:
                arr[idx] = x[k]
        out[v.name] = arr
    return out


# ---------------------------------------------------------------- helpers
def _with(sm: SemanticModel, op: str, info: dict[str, Any], **changes: Any) -> Mutation:
    """The child: ``sm`` with ``changes``, its descriptors noting the operator."""
    desc = dict(changes.pop("descriptors", sm.descriptors))
    desc["mutations"] = [*desc.get("mutations", []), op]
    return Mutation(replace(sm, descriptors=desc, **changes), info)


def _fresh_name(sm: SemanticModel, base: str) -> str:
    taken = {x.name for x in (*sm.sets, *sm.params, *sm.variables, *sm.constraints)}
    name, k = base, 2
    while name in taken:
        name, k = f"{base}{k}", k + 1
    return name


def _entity(sm: SemanticModel, s: str) -> str:
    return sm.set_map[s].entity or s


def _objective_terms(sm: SemanticModel) -> float:
    """Typical magnitude of the objective's coefficients (for weights and penalties)."""
    vals = []
    for m in expand(sm.objective.expr):
        for c in m.coefs:
            if isinstance(c, Const):
                vals.append(abs(c.value))
            else:
                vals.extend(np.abs(sm.param_map[c.name].values).ravel().tolist())
    vals = [v for v in vals if v > 0]
    return float(np.median(vals)) if vals else 1.0


def _pick(ctx: Context, items: list[Any], what: str) -> Any:
    if not items:
        raise NotApplicable(f"no {what}")
    return items[int(ctx.rng.integers(len(items)))]


def _countable(v: VariableFamily) -> bool:
    return v.vtype == "C" and not _NOT_COUNTABLE.search(v.unit or v.description)


def _position_sets(sm: SemanticModel) -> set[str]:
    """Sets whose size or order is load-bearing: referred to by position parameters, or whose
    size appears as a number in the model (a count parameter, a constant bound such as the
    n - 1 of a tour position) and would go stale if the set changed."""
    pos = sm.position_params()
    out = set(pos.values()) | {s for p in sm.params if p.name in pos for s in p.index}
    numbers = {float(p.values) for p in sm.params if not p.index}
    for v in sm.variables:
        for b in (v.lb, v.ub):
            if isinstance(b, (int, float)) and math.isfinite(b):
                numbers.add(float(b))
    for s in sm.sets:
        if {float(len(s)), float(len(s) - 1)} & numbers and len(s) > 2:
            out.add(s.name)
    return out


def _round_like(p: Parameter, values: np.ndarray) -> np.ndarray:
    return np.round(values) if p.integer else np.round(values, 4)


# ---------------------------------------------------------------- presentation
def domain_shift(ctx: Context) -> Mutation:
    """The same data told in another of the family's domains (vocabulary, units, story)."""
    sm = ctx.parent
    fam = REGISTRY.get(sm.family)
    if fam is None:
        raise NotApplicable(f"family {sm.family!r} is not a registered family")
    others = [v for v in fam.vocabularies if v.domain != sm.domain]
    vocab = _pick(ctx, others, "other domain")
    dims = dict(sm.descriptors.get("dims", {}))
    b = Builder(fam, vocab, dims, str(sm.descriptors.get("size", "small")))
    fam.build(b, np.random.default_rng(0))  # structure and wording; the data comes from sm
    tmpl = b.model
    for p in tmpl.params:
        mine = sm.param_map.get(p.name)
        if mine is None or mine.values.shape != p.values.shape:
            raise NotApplicable("the family's structure depends on its random draw")
    params = tuple(replace(p, values=sm.param_map[p.name].values.copy()) for p in tmpl.params)
    desc = {**tmpl.descriptors, **{k: v for k, v in sm.descriptors.items()
                                   if k not in tmpl.descriptors or k in ("arcs", "dims")}}
    desc["mutations"] = [*sm.descriptors.get("mutations", []), "domain_shift"]
    desc.update(domain=vocab.domain, title=vocab.title, story=tmpl.descriptors["story"],
                summary=tmpl.descriptors["summary"], entities=tmpl.descriptors["entities"])
    child = replace(tmpl, params=params, descriptors=desc)
    return Mutation(child, {"from": sm.domain, "to": vocab.domain})


def rename_entities(ctx: Context) -> Mutation:
    """Every element of a set renamed (codes from its entity's name), its order reshuffled."""
    sm = ctx.parent
    fixed = _position_sets(sm)
    sets = []
    for s in sm.sets:
        base = re.sub(r"[^A-Z]", "", (s.entity or s.name).title())[:3] or s.name.upper()
        tags = [_code(k) for k in range(len(s))]
        order = ctx.rng.permutation(len(s)).tolist()
        labels = tuple(f"{base}_{tags[order[k]]}" for k in range(len(s)))
        sets.append(replace(s, elements=labels))
    return _with(sm, "rename_entities", {"sets": [s.name for s in sm.sets],
                                         "order_kept_for": sorted(fixed)}, sets=tuple(sets))


def _code(k: int) -> str:
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(65 + r) + out
    return out


# ---------------------------------------------------------------- objective
def objective_secondary(ctx: Context) -> Mutation:
    """A weighted secondary term: a per-unit handling charge on one variable family."""
    sm = ctx.parent
    fam = _pick(ctx, [v for v in sm.variables if v.dims and v.vtype != "B"] or
                [v for v in sm.variables if v.dims], "indexed variable family")
    name = _fresh_name(sm, "handling")
    w = float(np.round(_objective_terms(sm) * ctx.rng.uniform(0.05, 0.3), 4)) or 0.01
    term = _sum_over(fam, P(name) * V(fam.name, *(i for i, _ in fam.dims)))
    o = sm.objective
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    p = Parameter(name, (), np.array(w), "", f"charge per unit of {fam.description}")
    return _with(sm, "objective_secondary", {"variable": fam.name, "weight": w},
                 params=(*sm.params, p),
                 objective=replace(o, expr=expr, description=o.description +
                                   " plus handling charges"))


def _sum_over(v: VariableFamily, body: Expr) -> Expr:
    """``body`` summed over the family's index grid (its conditions on the innermost sum)."""
    for k, (i, s) in enumerate(reversed(v.dims)):
        body = Sum(i, s, body, v.where if k == 0 else ())
    return body


def objective_minmax(ctx: Context) -> Mutation:
    """Min-max (makespan) form: the objective's sum over a set becomes its largest term."""
    sm = ctx.parent
    o = sm.objective
    if not isinstance(o.expr, Sum) or o.expr.where:
        raise NotApplicable("the objective is not a plain sum over a set")
    if any(len(m.vars) == 2 for m in expand(o.expr)):
        raise NotApplicable("the objective is quadratic")
    s = o.expr
    z = _fresh_name(sm, "worst")
    con = _fresh_name(sm, "worst_term")
    noun = _entity(sm, s.over)
    if o.sense == "min":
        cf = ConstraintFamily(con, f"No {noun} contributes more than the worst case.",
                              ((s.index, s.over),), s.body - V(z), "<=", 0.0)
        desc = f"largest {o.description} of any {noun}"
    else:
        cf = ConstraintFamily(con, f"Every {noun} contributes at least the worst case.",
                              ((s.index, s.over),), s.body - V(z), ">=", 0.0)
        desc = f"smallest {o.description} of any {noun}"
    zv = VariableFamily(z, (), "C", -math.inf, math.inf, (), f"the {desc}")
    return _with(sm, "objective_minmax", {"over": s.over},
                 variables=(*sm.variables, zv), constraints=(*sm.constraints, cf),
                 objective=ObjectiveSpec(o.sense, V(z), desc))


def cost_to_profit(ctx: Context) -> Mutation:
    """A cost-minimising model becomes profit-maximising: revenue per unit minus the costs."""
    sm = ctx.parent
    o = sm.objective
    if o.sense != "min":
        raise NotApplicable("the objective is not a cost to minimise")
    fam = _pick(ctx, [v for v in sm.variables if v.dims and v.vtype != "B"],
                "quantity variable family")
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    base = _objective_terms(sm)
    name = _fresh_name(sm, "price")
    price = np.round(base * ctx.rng.uniform(1.2, 2.5, shape), 2)
    idx = [i for i, _ in fam.dims]
    p = Parameter(name, tuple(s for _, s in fam.dims), price, "",
                  f"revenue per unit of {fam.description}")
    expr = Add((_sum_over(fam, P(name, *idx) * V(fam.name, *idx)), Neg(o.expr)))
    return _with(sm, "cost_to_profit", {"variable": fam.name},
                 params=(*sm.params, p),
                 objective=ObjectiveSpec("max", expr, f"profit: revenue minus {o.description}"))


# ---------------------------------------------------------------- variables
def integer_quantities(ctx: Context) -> Mutation:
    """A continuous family of countable things becomes integer."""
    sm = ctx.parent
    fam = _pick(ctx, [v for v in sm.variables if _countable(v)], "countable continuous family")
    new = replace(fam, vtype="I")
    return _with(sm, "integer_quantities", {"variable": fam.name},
                 variables=tuple(new if v.name == fam.name else v for v in sm.variables))


def on_off_binaries(ctx: Context) -> Mutation:
    """An on/off binary per entry of a quantity family, linked by big-M, with a fixed cost."""
    sm = ctx.parent
    cands = [v for v in sm.variables if v.dims and v.vtype != "B"]
    fam = _pick(ctx, cands, "quantity variable family")
    shape = tuple(len(sm.set_map[s]) for _, s in fam.dims)
    vals = ctx.values.get(fam.name)
    if isinstance(fam.ub, (int, float)) and math.isfinite(fam.ub):
        big = np.full(shape, float(fam.ub))
    elif vals is not None and np.any(np.isfinite(vals)) and np.nanmax(vals) > 0:
        big = np.full(shape, float(np.ceil(np.nanmax(vals) * 2)))
    else:
        raise NotApplicable("no finite bound for a big-M")
    idx = [i for i, _ in fam.dims]
    y, m, f = (_fresh_name(sm, b) for b in ("use", "big_m_use", "fixed_use"))
    fixed = np.round(_objective_terms(sm) * float(np.nanmax(big)) * ctx.rng.uniform(
        0.05, 0.3, shape), 2)
    params = (*sm.params,
              Parameter(m, tuple(s for _, s in fam.dims), big, "",
                        f"largest {fam.description}"),
              Parameter(f, tuple(s for _, s in fam.dims), fixed, "",
                        f"fixed cost of using {fam.description}"))
    yv = VariableFamily(y, fam.dims, "B", 0.0, 1.0, fam.where,
                        f"1 if {fam.description} is used", "0/1")
    link = ConstraintFamily(_fresh_name(sm, f"{fam.name}_on_off"),
                            "A quantity can be positive only when its option is switched on.",
                            fam.dims, V(fam.name, *idx) - P(m, *idx) * V(y, *idx), "<=", 0.0,
                            fam.where)
    o = sm.objective
    term = _sum_over(fam, P(f, *idx) * V(y, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    return _with(sm, "on_off_binaries", {"variable": fam.name},
                 params=params, variables=(*sm.variables, yv),
                 constraints=(*sm.constraints, link),
                 objective=replace(o, expr=expr, description=o.description + " plus fixed costs"))


def slack_penalty(ctx: Context) -> Mutation:
    """A hard inequality family becomes soft: a slack variable per row at a penalty."""
    sm = ctx.parent
    cf = _pick(ctx, [c for c in sm.constraints if c.sense in ("<=", ">=") and c.forall],
               "indexed inequality family")
    s, pen = _fresh_name(sm, f"{cf.name}_slack"), _fresh_name(sm, "penalty")
    idx = [i for i, _ in cf.forall]
    sv = VariableFamily(s, cf.forall, "C", 0.0, math.inf, cf.where,
                        f"shortfall of: {cf.meaning.rstrip('.').lower()}")
    lhs = cf.lhs + V(s, *idx) if cf.sense == ">=" else cf.lhs - V(s, *idx)
    new = replace(cf, lhs=lhs, meaning=cf.meaning.rstrip(".") + ", or a penalty is paid.")
    value = float(np.round(_objective_terms(sm) * ctx.rng.uniform(5, 20), 2))
    p = Parameter(pen, (), np.array(value), "", f"penalty per unit of {s}")
    o = sm.objective
    term = _sum_over(sv, P(pen) * V(s, *idx))
    expr = Add((o.expr, term)) if o.sense == "min" else Add((o.expr, Neg(term)))
    return _with(sm, "slack_penalty", {"constraint": cf.name, "penalty": value},
                 params=(*sm.params, p), variables=(*sm.variables, sv),
                 constraints=tuple(new if c.name == cf.name else c for c in sm.constraints),
                 objective=replace(o, expr=expr, description=o.description + " plus penalties"))


# ---------------------------------------------------------------- constraints
def add_constraint(ctx: Context) -> Mutation:
    """A constraint family from the catalogue: budget, minimum service, capacity, ratio or
    either-or, sized from the parent's optimum so that it matters."""
    kinds = ["budget", "minimum_service", "capacity", "ratio", "either_or"]
    order = ctx.rng.permutation(len(kinds))
    why = []
    for k in order:
        try:
            return _CATALOGUE[kinds[int(k)]](ctx)
        except NotApplicable as e:
            why.append(f"{kinds[int(k)]}: {e}")
    raise NotApplicable("; ".join(why))


def _quantity(ctx: Context, min_dims: int = 1) -> tuple[VariableFamily, np.ndarray]:
    sm = ctx.parent
    cands = [v for v in sm.variables if len(v.dims) >= min_dims and v.vtype != "B"
             and v.name in ctx.values]
    fam = _pick(ctx, cands, f"quantity family with {min_dims}+ indices and a solution")
    return fam, np.nan_to_num(ctx.values[fam.name])


def _budget(ctx: Context) -> Mutation:
    sm = ctx.parent
    fam, x = _quantity(ctx)
    dims = tuple(s for _, s in fam.dims)
    costs = [p for p in sm.params if p.index == dims]
    p = _pick(ctx, costs, f"parameter indexed like {fam.name}")
    used = float(np.sum(p.values * x))
    if used <= 0:
        raise NotApplicable("nothing is spent at the optimum")
    name = _fresh_name(sm, "budget_cap")
    cap = float(np.round(used * ctx.rng.uniform(0.8, 0.95), 2))
    idx = [i for i, _ in fam.dims]
    cf = ConstraintFamily(_fresh_name(sm, "budget"),
                          f"The total of {p.description} times {fam.description} stays within a "
                          "budget.", (), _sum_over(fam, P(p.name, *idx) * V(fam.name, *idx)),
                          "<=", P(name))
    return _with(sm, "add_constraint", {"kind": "budget", "on": p.name, "cap": cap},
                 params=(*sm.params, Parameter(name, (), np.array(cap), p.unit,
                                               f"budget for {p.description}")),
                 constraints=(*sm.constraints, cf))


def _marginal(ctx: Context, keep_first: bool) -> Mutation:
    sm = ctx.parent
    fam, x = _quantity(ctx, 2)
    (i, si), (j, sj) = fam.dims[0], fam.dims[1]
    if len(fam.dims) > 2:
        raise NotApplicable("the family has more than two indices")
    if keep_first:  # minimum service: each first-index entity gets at least a share
        tot = x.sum(axis=1)
        bound = np.round(tot * ctx.rng.uniform(1.02, 1.15), 2)
        name, sense = _fresh_name(sm, "min_service"), ">="
        meaning = f"Every {_entity(sm, si)} receives at least its minimum service level."
        forall, over, oi = ((i, si),), (j, sj), i
    else:  # capacity: each second-index entity handles at most a cap
        tot = x.sum(axis=0)
        bound = np.round(tot * ctx.rng.uniform(0.8, 0.95), 2)
        name, sense = _fresh_name(sm, "handling_cap"), "<="
        meaning = f"Every {_entity(sm, sj)} handles at most its capacity."
        forall, over, oi = ((j, sj),), (i, si), j
    if not np.any(tot > 0):
        raise NotApplicable("the family is zero at the optimum")
    body = total(over[0], over[1], V(fam.name, i, j), *fam.where)
    desc = "minimum service" if keep_first else "capacity"
    p = Parameter(name, (forall[0][1],), bound, fam.unit, f"{desc} of each "
                  f"{_entity(sm, forall[0][1])}")
    cf = ConstraintFamily(_fresh_name(sm, f"{name}_limit"), meaning, forall, body, sense,
                          P(name, oi))
    return _with(sm, "add_constraint", {"kind": "minimum_service" if keep_first else "capacity",
                                        "variable": fam.name},
                 params=(*sm.params, p), constraints=(*sm.constraints, cf))


def _ratio(ctx: Context) -> Mutation:
    sm = ctx.parent
    fam, x = _quantity(ctx, 2)
    if len(fam.dims) > 2 or fam.where:
        raise NotApplicable("the family is not a plain two-index grid")
    (i, si), (j, sj) = fam.dims
    share = x / np.maximum(x.sum(axis=1, keepdims=True), 1e-12)
    top = float(np.max(share))
    if top <= 0.05:
        raise NotApplicable("no dominant share at the optimum")
    r = float(np.round(max(0.05, top * ctx.rng.uniform(0.7, 0.95)), 3))
    name = _fresh_name(sm, "max_share")
    jj = _fresh_name(sm, "k") if "k" in (i, j) else "k"
    cf = ConstraintFamily(
        _fresh_name(sm, "share_limit"),
        f"No {_entity(sm, sj)} takes more than a fixed share of a {_entity(sm, si)}'s total.",
        ((i, si), (j, sj)), V(fam.name, i, j) - P(name) * total(jj, sj, V(fam.name, i, jj)),
        "<=", 0.0)
    return _with(sm, "add_constraint", {"kind": "ratio", "variable": fam.name, "share": r},
                 params=(*sm.params, Parameter(name, (), np.array(r), "share",
                                               "largest share of one entity")),
                 constraints=(*sm.constraints, cf))


def _either_or(ctx: Context) -> Mutation:
    sm = ctx.parent
    fams = [v for v in sm.variables if v.vtype == "B" and len(v.dims) == 1 and not v.where]
    fam = _pick(ctx, fams, "one-index binary family")
    i, s = fam.dims[0]
    if len(sm.set_map[s]) < 2:
        raise NotApplicable("fewer than two entities")
    j = f"{i}2"
    cf = ConstraintFamily(_fresh_name(sm, "either_or"),
                          f"The first and the last {_entity(sm, s)} are not both chosen.",
                          ((i, s), (j, s)), V(fam.name, i) + V(fam.name, j), "<=", 1.0,
                          (Cond("first", i), Cond("last", j)))
    return _with(sm, "add_constraint", {"kind": "either_or", "variable": fam.name},
                 constraints=(*sm.constraints, cf))


_CATALOGUE: dict[str, Callable[[Context], Mutation]] = {
    "budget": _budget, "minimum_service": lambda c: _marginal(c, True),
    "capacity": lambda c: _marginal(c, False), "ratio": _ratio, "either_or": _either_or,
}


def remove_constraint(ctx: Context) -> Mutation:
    """A non-essential constraint family removed (verification rejects an unbounded child)."""
    sm = ctx.parent
    if len(sm.constraints) < 2:
        raise NotApplicable("only one constraint family")
    cf = _pick(ctx, list(sm.constraints), "constraint family")
    return _with(sm, "remove_constraint", {"constraint": cf.name},
                 constraints=tuple(c for c in sm.constraints if c.name != cf.name))


# ---------------------------------------------------------------- numbers and shapes
def _used_params(sm: SemanticModel) -> set[str]:
    """Parameters the model's expressions and bounds read (others only describe the data)."""
    exprs: list[Any] = [sm.objective.expr]
    for c in sm.constraints:
        exprs += [c.lhs, as_expr(c.rhs)]
    for v in sm.variables:
        exprs += [as_expr(b) for b in (v.lb, v.ub) if isinstance(b, Expr)]
    return {e.name for x in exprs for e in x.walk() if hasattr(e, "idx") and
            e.name in sm.param_map}


def _numeric_params(sm: SemanticModel) -> list[Parameter]:
    pos = sm.position_params()
    used = _used_params(sm)
    return [p for p in sm.params if p.name not in pos and p.name in used
            and np.any(p.values != 0) and not np.all(np.isin(p.values, (0, 1)))]


def scale_data(ctx: Context) -> Mutation:
    """One data parameter scaled by a factor."""
    sm = ctx.parent
    p = _pick(ctx, _numeric_params(sm), "numeric parameter")
    f = float(np.round(ctx.rng.choice([0.5, 0.75, 1.25, 1.5, 2.0]), 2))
    new = replace(p, values=_round_like(p, p.values * f))
    return _with(sm, "scale_data", {"parameter": p.name, "factor": f},
                 params=tuple(new if q.name == p.name else q for q in sm.params))


def _rhs_params(sm: SemanticModel, sense: str) -> list[Parameter]:
    names = {e.name for c in sm.constraints if c.sense == sense
             for e in as_expr(c.rhs).walk() if hasattr(e, "idx") and e.name in sm.param_map}
    return [p for p in _numeric_params(sm) if p.name in names]


def tighten_capacity(ctx: Context) -> Mutation:
    """Capacities (right-hand sides of <= families) tightened or loosened."""
    sm = ctx.parent
    p = _pick(ctx, _rhs_params(sm, "<="), "capacity parameter")
    f = float(ctx.rng.choice([0.8, 0.9, 1.1, 1.25]))
    new = replace(p, values=_round_like(p, p.values * f))
    return _with(sm, "tighten_capacity", {"parameter": p.name, "factor": f},
                 params=tuple(new if q.name == p.name else q for q in sm.params))


def shift_requirements(ctx: Context) -> Mutation:
    """Requirements and ratios (right-hand sides of >= families) shifted entry by entry."""
    sm = ctx.parent
    p = _pick(ctx, _rhs_params(sm, ">="), "requirement parameter")
    f = ctx.rng.uniform(0.85, 1.15, p.values.shape)
    new = replace(p, values=_round_like(p, p.values * f))
    return _with(sm, "shift_requirements", {"parameter": p.name},
                 params=tuple(new if q.name == p.name else q for q in sm.params))


def resize_set(ctx: Context) -> Mutation:
    """A set grows (new entities with data drawn from the existing ones) or shrinks."""
    sm = ctx.parent
    fixed = _position_sets(sm)
    s = _pick(ctx, [s for s in sm.sets if s.name not in fixed and len(s) >= 2], "resizable set")
    grow = bool(ctx.rng.integers(2)) or len(s) <= 2
    n = len(s)
    if grow:
        k = int(ctx.rng.integers(1, max(2, n // 2) + 1))
        pick = ctx.rng.integers(n, size=k)
        prefix = re.sub(r"\d+$", "", s.elements[-1])
        start = n + 1
        while any(f"{prefix}{start + t}" in s.elements for t in range(k)):
            start += 1
        elements = s.elements + tuple(f"{prefix}{start + t}" for t in range(k))
        keep = np.concatenate([np.arange(n), pick])
    else:
        k = int(ctx.rng.integers(1, max(1, n // 3) + 1))
        keep = np.sort(ctx.rng.choice(n, size=n - k, replace=False))
        elements = tuple(s.elements[i] for i in keep)
    params = []
    for p in sm.params:
        v = p.values
        for axis, name in enumerate(p.index):
            if name == s.name:
                v = np.take(v, keep, axis=axis)
                if grow:  # new entities resemble old ones without copying them
                    v = _jitter_new(p, v, axis, n, ctx.rng)
        params.append(replace(p, values=v))
    desc = dict(sm.descriptors)
    desc["dims"] = {**desc.get("dims", {}), s.name: len(elements)}
    return _with(sm, "resize_set", {"set": s.name, "from": n, "to": len(elements)},
                 sets=tuple(replace(x, elements=elements) if x.name == s.name else x
                            for x in sm.sets),
                 params=tuple(params), descriptors=desc)


def _jitter_new(p: Parameter, v: np.ndarray, axis: int, n: int,
                rng: np.random.Generator) -> np.ndarray:
    """Entries of the appended slices (positions >= ``n`` along ``axis``) varied."""
    v = np.array(v, dtype=float)
    new = np.moveaxis(v, axis, 0)[n:]
    if np.all(np.isin(v, (0, 1))):
        flip = rng.random(new.shape) < 0.25
        new[...] = np.where(flip, 1 - new, new)
    else:
        new[...] = _round_like(p, new * rng.uniform(0.8, 1.2, new.shape))
    return v


def sparsify(ctx: Context) -> Mutation:
    """A 0/1 compatibility matrix made sparser (every row keeps at least one 1)."""
    sm = ctx.parent
    cands = [p for p in sm.params if len(p.index) == 2 and np.all(np.isin(p.values, (0, 1)))
             and p.values.sum() > p.values.shape[0]]
    p = _pick(ctx, cands, "0/1 matrix")
    v = p.values.copy()
    ones = np.argwhere(v == 1)
    drop = ones[ctx.rng.random(len(ones)) < ctx.rng.uniform(0.15, 0.35)]
    for r, c in drop:
        if v[r].sum() > 1 and v[:, c].sum() > 1:
            v[r, c] = 0
    if np.array_equal(v, p.values):
        raise NotApplicable("no entry could be dropped")
    return _with(sm, "sparsify", {"parameter": p.name, "dropped": int((p.values - v).sum())},
                 params=tuple(replace(q, values=v) if q.name == p.name else q
                              for q in sm.params))


# ---------------------------------------------------------------- crossover
def _resample(values: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
    return values[rng.integers(len(values), size=n)] if len(values) != n else values.copy()


def crossover(ctx: Context) -> Mutation:
    """Two compatible families combined (a registered pair; the second parent gives data)."""
    a, b = ctx.parent, ctx.other
    if b is None:
        raise NotApplicable("no second parent")
    fn = _CROSSOVERS.get((a.family, b.family))
    if fn is None:
        raise NotApplicable(f"no crossover of {a.family} with {b.family}")
    return fn(ctx, a, b)


def _transport_facility(ctx: Context, a: SemanticModel, b: SemanticModel) -> Mutation:
    """Transportation whose sources must be opened at the facility model's fixed costs."""
    n = len(a.set_map["S"])
    fixed = np.round(_resample(b.param_map["fixed"].values, n, ctx.rng), 2)
    y, f = _fresh_name(a, "open"), _fresh_name(a, "open_cost")
    yv = VariableFamily(y, (("s", "S"),), "B", 0.0, 1.0, (),
                        f"1 if {_entity(a, 'S')} s is opened", "0/1")
    cons = []
    for c in a.constraints:
        if c.name == "supply_limit":
            c = replace(c, rhs=P("supply", "s") * V(y, "s"),
                        meaning=f"An open {_entity(a, 'S')} ships no more than it has; "
                                "a closed one ships nothing.")
        cons.append(c)
    o = a.objective
    expr = Add((o.expr, total("s", "S", P(f, "s") * V(y, "s"))))
    p = Parameter(f, ("S",), fixed, "", f"fixed cost of opening each {_entity(a, 'S')}")
    desc = {**a.descriptors, "crossover": [a.family, b.family],
            "mutations": [*a.descriptors.get("mutations", []), "crossover"]}
    child = replace(a, params=(*a.params, p), variables=(*a.variables, yv),
                    constraints=tuple(cons),
                    objective=replace(o, expr=expr, description=o.description +
                                      " plus opening costs"), descriptors=desc)
    return Mutation(child, {"with": b.family, "data": "fixed"})


def _knapsack_resources(ctx: Context, a: SemanticModel, b: SemanticModel) -> Mutation:
    """A 0-1 knapsack gains the multi-dimensional knapsack's resource rows."""
    n = len(a.set_map["I"])
    use = b.param_map["use"].values
    cols = ctx.rng.integers(use.shape[1], size=n)
    r_set = b.set_map["R"]
    new_use = use[:, cols]
    limit = np.round(new_use.sum(axis=1) * ctx.rng.uniform(0.4, 0.6, len(r_set)), 2)
    sets = (*a.sets, IndexSet("R", r_set.elements, r_set.entity, r_set.description))
    params = (*a.params, Parameter("use", ("R", "I"), new_use, b.param_map["use"].unit,
                                   b.param_map["use"].description),
              Parameter("limit", ("R",), limit, b.param_map["limit"].unit,
                        b.param_map["limit"].description))
    cf = ConstraintFamily("resource_limit", b.constraints[0].meaning, (("r", "R"),),
                          total("i", "I", P("use", "r", "i") * V("x", "i")), "<=",
                          P("limit", "r"))
    desc = {**a.descriptors, "crossover": [a.family, b.family],
            "mutations": [*a.descriptors.get("mutations", []), "crossover"]}
    child = replace(a, sets=sets, params=params, constraints=(*a.constraints, cf),
                    descriptors=desc)
    return Mutation(child, {"with": b.family, "data": "use, limit"})


_CROSSOVERS: dict[tuple[str, str], Callable[[Context, SemanticModel, SemanticModel],
                                             Mutation]] = {
    ("transportation", "facility_location"): _transport_facility,
    ("transportation", "facility_location_cap"): _transport_facility,
    ("knapsack_01", "knapsack_multidim"): _knapsack_resources,
}
CROSSOVER_PARTNERS: dict[str, tuple[str, ...]] = {}
for _a, _b in _CROSSOVERS:
    CROSSOVER_PARTNERS[_a] = (*CROSSOVER_PARTNERS.get(_a, ()), _b)


OPERATORS: dict[str, Operator] = {op.name: op for op in (
    Operator("domain_shift", domain_shift, presentation=True,
             summary="same data, another domain's vocabulary, units and story"),
    Operator("rename_entities", rename_entities, presentation=True,
             summary="every element renamed and reordered"),
    Operator("objective_secondary", objective_secondary,
             summary="an added weighted secondary term"),
    Operator("objective_minmax", objective_minmax, summary="min-max / makespan form"),
    Operator("cost_to_profit", cost_to_profit, summary="cost minimisation to profit"),
    Operator("integer_quantities", integer_quantities,
             summary="continuous to integer for countable entities"),
    Operator("on_off_binaries", on_off_binaries, summary="on/off binaries with big-M links"),
    Operator("slack_penalty", slack_penalty, summary="a hard family made soft at a penalty"),
    Operator("add_constraint", add_constraint,
             summary="budget, minimum service, capacity, ratio or either-or"),
    Operator("remove_constraint", remove_constraint, summary="a constraint family removed"),
    Operator("scale_data", scale_data, summary="a parameter scaled"),
    Operator("tighten_capacity", tighten_capacity, summary="capacities tightened or loosened"),
    Operator("shift_requirements", shift_requirements, summary="requirements and ratios moved"),
    Operator("resize_set", resize_set, summary="a set grows or shrinks"),
    Operator("sparsify", sparsify, summary="a compatibility matrix made sparser"),
    Operator("crossover", crossover, parents=2, summary="two compatible families combined"),
)}


def apply(op: str, parent: SemanticModel, values: Mapping[str, np.ndarray],
          rng: np.random.Generator, other: SemanticModel | None = None) -> Mutation:
    """Apply operator ``op`` (``NotApplicable`` when it does not fit the model)."""
    if op not in OPERATORS:
        raise KeyError(f"unknown operator {op!r}; expected one of {', '.join(OPERATORS)}")
    m = OPERATORS[op].apply(Context(parent, values, rng, other))
    m.child.validate()
    return m


__all__ = ["OPERATORS", "Mutation", "NotApplicable", "Operator", "apply", "family_values"]
