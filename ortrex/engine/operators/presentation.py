"""Presentation operators: the same instance told another way (domain, names)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.base import Builder, Family, Vocabulary
from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    pick,
    with_changes,
)
from ortrex.engine.operators.registry import operator
from ortrex.ir.semantic import SemanticModel
from ortrex.render.names import element_names


@operator("same data, another domain's vocabulary, units and story", presentation=True)
def domain_shift(ctx: Context) -> Mutation:
    """The same data told in another of the family's domains (vocabulary, units, story)."""
    sm = ctx.parent
    fam = REGISTRY.get(sm.family)
    if fam is None:
        raise NotApplicable(f"family {sm.family!r} is not a registered family")
    others = [v for v in fam.vocabularies if v.domain != sm.domain]
    vocab = pick(ctx, others, "other domain")
    dims = dict(sm.descriptors.get("dims", {}))
    sizes = {s.name: len(s) for s in sm.sets}
    try:  # the parent's set sizes (a family may size a set by its own draw: bins offered)
        tmpl = _template(fam, vocab, dims, sm, sizes)
    except ValueError:  # data drawn to the family's own size (arcs of a network)
        tmpl = _template(fam, vocab, dims, sm, {})
    if {s.name: len(s) for s in tmpl.sets} != sizes:
        raise NotApplicable("the family's sets depend on its random draw")
    for p in tmpl.params:
        mine = sm.param_map.get(p.name)
        if mine is None or mine.values.shape != p.values.shape:
            raise NotApplicable("the family's structure depends on its random draw")
    if _shape(tmpl) != _shape(sm):  # a mutated parent: the family's telling no longer fits
        raise NotApplicable("the parent's structure is no longer the family's")
    params = tuple(replace(p, values=sm.param_map[p.name].values.copy()) for p in tmpl.params)
    desc = {**tmpl.descriptors, **{k: v for k, v in sm.descriptors.items()
                                   if k not in tmpl.descriptors or k in ("arcs", "dims")}}
    desc["mutations"] = [*sm.descriptors.get("mutations", []), "domain_shift"]
    desc.update(domain=vocab.domain, title=vocab.title, story=tmpl.descriptors["story"],
                summary=tmpl.descriptors["summary"], entities=tmpl.descriptors["entities"])
    child = replace(tmpl, params=params, descriptors=desc)
    return Mutation(child, {"from": sm.domain, "to": vocab.domain})


def _template(fam: Family, vocab: Vocabulary, dims: dict[str, int], sm: SemanticModel,
              sizes: dict[str, int]) -> SemanticModel:
    """The family's model in ``vocab``: structure and wording (the data comes from ``sm``)."""
    b = Builder(fam, vocab, dims, str(sm.descriptors.get("size", "small")), set_sizes=sizes)
    fam.build(b, np.random.default_rng(0))
    return b.model


def _shape(sm: SemanticModel) -> tuple[object, ...]:
    """What a domain cannot change: the parameters, variables, rules and objective."""
    return (tuple(p.name for p in sm.params),
            tuple((v.name, v.vtype, repr(v.lb), repr(v.ub)) for v in sm.variables),
            tuple((c.name, repr(c.lhs), c.sense, repr(c.rhs)) for c in sm.constraints),
            sm.objective.sense, repr(sm.objective.expr))


_ORDERED = ("quarter", "month", "weekday", "week", "hour", "year", "shift")


@operator('every element renamed and reordered', presentation=True)
def rename_entities(ctx: Context) -> Mutation:
    """The elements of every set whose names are names (places, people, products, codes)
    drawn afresh from the set's name kind; the data stays where it was. Periods keep their
    names (a month is not renamed)."""
    sm = ctx.parent
    kinds = dict(sm.descriptors.get("name_kinds", {}))
    taken = {e for s in sm.sets for e in s.elements}
    sets, renamed = [], []
    for s in sm.sets:
        kind = kinds.get(s.name, "")
        if not kind or kind in _ORDERED:
            sets.append(s)
            continue
        if kind == "letter" or kind.startswith("code:"):
            # Codes: another prefix, so that no name survives the renaming.
            base = re.sub(r"[^A-Z]", "", (s.entity or s.name).title())[:3] or s.name.upper()
            kind = f"code:{base}_"
        names = element_names(kind, len(s), ctx.rng, taken)
        if set(names) & set(s.elements):
            names = element_names(kind, len(s), ctx.rng, taken)
        sets.append(replace(s, elements=names))
        renamed.append(s.name)
    if not renamed:
        raise NotApplicable("no set has names to change")
    return with_changes(sm, "rename_entities", {"sets": renamed}, sets=tuple(sets))
