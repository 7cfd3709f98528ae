"""The operator registry: an operator is its function, registered once by a decorator that
takes its name from the function and declares what the mutate job needs to know about it,
its semantic post-check included."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

import numpy as np

from ortrex.engine.operators.base import Context, Mutation
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.plugins import Registry

Apply = Callable[[Context], Mutation]
# (model, its grounding, the optimum, the objective value) -> why it fails, or None.
Check = Callable[[SemanticModel, CanonicalModel, np.ndarray, float], str | None]


@dataclass(frozen=True)
class PostCheck:
    """A semantic post-check of every model the operator made (children and their own
    descendants): a failure rejects it as ``postcheck:<name>``. It runs right after the model
    check named ``after`` (``ortrex.engine.generate.postchecks.MODEL_CHECKS``; "" after all
    of them): the first failed check is the reason a model is rejected for."""

    name: str
    check: Check
    after: str = ""


@dataclass(frozen=True)
class Operator:
    """A named mutation: ``parents`` is its arity (2: a second parent from ``partners``,
    which maps a family to the families it combines with); ``presentation``: the child is
    the same instance told another way; ``postcheck``: what its children's optimum must
    still mean."""

    name: str
    apply: Apply
    presentation: bool = False
    parents: int = 1
    summary: str = ""
    partners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    postcheck: PostCheck | None = None


# In registration order (the built-in modules, then definitions; plugins' operators after);
# every read loads the plugins first (``ortrex.plugins``).
OPERATORS: Registry[Operator] = Registry()


def operator(summary: str, *, presentation: bool = False, parents: int = 1,
             partners: Mapping[str, tuple[str, ...]] | None = None,
             postcheck: PostCheck | None = None) -> Callable[[Apply], Apply]:
    """Register the decorated function as the operator of its name."""
    if parents not in (1, 2) or (parents == 2) != bool(partners):
        raise ValueError("an operator has one parent, or two with a partners map")

    def register(fn: Apply) -> Apply:
        OPERATORS.add(fn.__name__, Operator(fn.__name__, fn, presentation, parents, summary,
                                            dict(partners or {}), postcheck), "operator")
        return fn

    return register
