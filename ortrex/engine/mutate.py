"""Mutation operators on the semantic IR: named, parameterised, seeded.

Each operator takes a parent semantic model (and, for data-driven changes, the values of the
parent's verified optimum) and returns a child model with a JSON description of what it did, or
:class:`NotApplicable` with the reason. ``presentation`` operators (a domain shift, a renaming)
change only how the model is told: their child grounds to an instance equivalent to the
parent's and is stored as a new semantic model of that same instance. Every other operator
changes the model itself; its child is verified like a fresh instance. The operators live in
``ortrex.engine.operators``, one module per kind of change.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

import numpy as np

from ortrex.engine.operators.base import Context, Mutation, NotApplicable
from ortrex.engine.operators.constraints import add_constraint, remove_constraint
from ortrex.engine.operators.crossover import CROSSOVER_PARTNERS, crossover
from ortrex.engine.operators.data import (
    resize_set,
    scale_data,
    shift_requirements,
    sparsify,
    tighten_capacity,
)
from ortrex.engine.operators.objective import cost_to_profit, objective_minmax, objective_secondary
from ortrex.engine.operators.presentation import domain_shift, rename_entities
from ortrex.engine.operators.variables import integer_quantities, on_off_binaries, slack_penalty
from ortrex.ir.semantic import SemanticModel


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


__all__ = ["CROSSOVER_PARTNERS", "OPERATORS", "Context", "Mutation", "NotApplicable",
           "Operator", "apply", "family_values"]
