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

from collections.abc import Mapping

import numpy as np

# Importing ``ortrex.engine.operators`` registers the built-in operators (a new one is one
# decorated function in one of its modules, or a module the package imports, or a plugin).
from ortrex.engine.operators.base import Context, Mutation, NotApplicable
from ortrex.engine.operators.crossover import CROSSOVER_PARTNERS
from ortrex.engine.operators.registry import OPERATORS, Operator, operator
from ortrex.ir.semantic import SemanticModel


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


def apply(op: str, parent: SemanticModel, values: Mapping[str, np.ndarray],
          rng: np.random.Generator, other: SemanticModel | None = None) -> Mutation:
    """Apply operator ``op`` (``NotApplicable`` when it does not fit the model)."""
    if op not in OPERATORS:
        raise KeyError(f"unknown operator {op!r}; expected one of {', '.join(OPERATORS)}")
    m = OPERATORS[op].apply(Context(parent, values, rng, other))
    m.child.validate()
    return m


__all__ = ["CROSSOVER_PARTNERS", "OPERATORS", "Context", "Mutation", "NotApplicable",
           "Operator", "apply", "family_values", "operator"]
