"""Presentation operators: the same instance told another way (domain, names)."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.base import Builder
from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    load_bearing_sets,
    pick,
    with_changes,
)


def domain_shift(ctx: Context) -> Mutation:
    """The same data told in another of the family's domains (vocabulary, units, story)."""
    sm = ctx.parent
    fam = REGISTRY.get(sm.family)
    if fam is None:
        raise NotApplicable(f"family {sm.family!r} is not a registered family")
    others = [v for v in fam.vocabularies if v.domain != sm.domain]
    vocab = pick(ctx, others, "other domain")
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
    fixed = load_bearing_sets(sm)
    sets = []
    for s in sm.sets:
        base = re.sub(r"[^A-Z]", "", (s.entity or s.name).title())[:3] or s.name.upper()
        tags = [_code(k) for k in range(len(s))]
        order = ctx.rng.permutation(len(s)).tolist()
        labels = tuple(f"{base}_{tags[order[k]]}" for k in range(len(s)))
        sets.append(replace(s, elements=labels))
    return with_changes(sm, "rename_entities", {"sets": [s.name for s in sm.sets],
                                         "order_kept_for": sorted(fixed)}, sets=tuple(sets))


def _code(k: int) -> str:
    out = ""
    k += 1
    while k:
        k, r = divmod(k - 1, 26)
        out = chr(65 + r) + out
    return out
