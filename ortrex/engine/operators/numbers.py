"""Data operators: numbers scaled, capacities and requirements moved, sets resized,
compatibility matrices made sparser."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    load_bearing_sets,
    numeric_params,
    pick,
    round_like,
    with_changes,
)
from ortrex.engine.operators.registry import operator
from ortrex.engine.operators.sanity import NON_BINDING
from ortrex.ir.expr import as_expr
from ortrex.ir.semantic import (
    Parameter,
    SemanticModel,
)


def _moved(p: Parameter, values: np.ndarray) -> Parameter:
    """``p`` with ``values`` rounded as its data is; a move that rounds back to the parent's
    data (small whole numbers moved by a tenth) changes nothing and does not apply."""
    new = round_like(p, values)
    if np.array_equal(new, p.values):
        raise NotApplicable(f"moving {p.name!r} rounds back to its own values")
    return replace(p, values=new)


@operator('a parameter scaled')
def scale_data(ctx: Context) -> Mutation:
    """One data parameter scaled by a factor."""
    sm = ctx.parent
    p = pick(ctx, numeric_params(sm), "numeric parameter")
    f = float(np.round(ctx.rng.choice([0.5, 0.75, 1.25, 1.5, 2.0]), 2))
    new = _moved(p, p.values * f)
    return with_changes(sm, "scale_data", {"parameter": p.name, "factor": f},
                 params=tuple(new if q.name == p.name else q for q in sm.params))


def _rhs_params(sm: SemanticModel, sense: str) -> list[Parameter]:
    names = {e.name for c in sm.constraints if c.sense == sense
             for e in as_expr(c.rhs).walk() if hasattr(e, "idx") and e.name in sm.param_map}
    return [p for p in numeric_params(sm) if p.name in names]


# A changed limit or requirement must matter: a child whose optimum is its parent's is
# rejected as ``non_binding``.
@operator('capacities tightened or loosened', postcheck=NON_BINDING)
def tighten_capacity(ctx: Context) -> Mutation:
    """Capacities (right-hand sides of <= families) tightened or loosened."""
    sm = ctx.parent
    p = pick(ctx, _rhs_params(sm, "<="), "capacity parameter")
    f = float(ctx.rng.choice([0.8, 0.9, 1.1, 1.25]))
    new = _moved(p, p.values * f)
    return with_changes(sm, "tighten_capacity", {"parameter": p.name, "factor": f},
                 params=tuple(new if q.name == p.name else q for q in sm.params))


@operator('requirements and ratios moved', postcheck=NON_BINDING)
def shift_requirements(ctx: Context) -> Mutation:
    """Requirements and ratios (right-hand sides of >= families) shifted entry by entry."""
    sm = ctx.parent
    p = pick(ctx, _rhs_params(sm, ">="), "requirement parameter")
    f = ctx.rng.uniform(0.85, 1.15, p.values.shape)
    new = _moved(p, p.values * f)
    return with_changes(sm, "shift_requirements", {"parameter": p.name},
                 params=tuple(new if q.name == p.name else q for q in sm.params))


@operator('a set grows or shrinks')
def resize_set(ctx: Context) -> Mutation:
    """A set grows (new entities with data drawn from the existing ones) or shrinks."""
    sm = ctx.parent
    fixed = load_bearing_sets(sm)
    s = pick(ctx, [s for s in sm.sets if s.name not in fixed and len(s) >= 2], "resizable set")
    grow = bool(ctx.rng.integers(2)) or len(s) <= 2
    n = len(s)
    if grow:
        k = int(ctx.rng.integers(1, max(2, n // 2) + 1))
        copies = ctx.rng.integers(n, size=k)
        prefix = re.sub(r"\d+$", "", s.elements[-1])
        start = n + 1
        while any(f"{prefix}{start + t}" in s.elements for t in range(k)):
            start += 1
        elements = s.elements + tuple(f"{prefix}{start + t}" for t in range(k))
        keep = np.concatenate([np.arange(n), copies])
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
    return with_changes(sm, "resize_set", {"set": s.name, "from": n, "to": len(elements)},
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
        new[...] = round_like(p, new * rng.uniform(0.8, 1.2, new.shape))
    return v


@operator('a compatibility matrix made sparser')
def sparsify(ctx: Context) -> Mutation:
    """A 0/1 compatibility matrix made sparser (every row keeps at least one 1)."""
    sm = ctx.parent
    cands = [p for p in sm.params if len(p.index) == 2 and np.all(np.isin(p.values, (0, 1)))
             and p.values.sum() > p.values.shape[0]]
    p = pick(ctx, cands, "0/1 matrix")
    v = p.values.copy()
    ones = np.argwhere(v == 1)
    drop = ones[ctx.rng.random(len(ones)) < ctx.rng.uniform(0.15, 0.35)]
    for r, c in drop:
        if v[r].sum() > 1 and v[:, c].sum() > 1:
            v[r, c] = 0
    if np.array_equal(v, p.values):
        raise NotApplicable("no entry could be dropped")
    return with_changes(sm, "sparsify", {"parameter": p.name, "dropped": int((p.values - v).sum())},
                 params=tuple(replace(q, values=v) if q.name == p.name else q
                              for q in sm.params))
