"""The operator registry: an operator is its function, registered once by a decorator that
takes its name from the function and declares what the mutate job needs to know about it."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ortrex.engine.operators.base import Context, Mutation

Apply = Callable[[Context], Mutation]


@dataclass(frozen=True)
class Operator:
    """A named mutation: ``parents`` is its arity (2: a second parent from ``partners``,
    which maps a family to the families it combines with); ``presentation``: the child is
    the same instance told another way."""

    name: str
    apply: Apply
    presentation: bool = False
    parents: int = 1
    summary: str = ""
    partners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)


OPERATORS: dict[str, Operator] = {}  # in registration order (modules, then definitions)


def operator(summary: str, *, presentation: bool = False, parents: int = 1,
             partners: Mapping[str, tuple[str, ...]] | None = None) -> Callable[[Apply], Apply]:
    """Register the decorated function as the operator of its name."""
    if parents not in (1, 2) or (parents == 2) != bool(partners):
        raise ValueError("an operator has one parent, or two with a partners map")

    def register(fn: Apply) -> Apply:
        if fn.__name__ in OPERATORS:
            raise ValueError(f"operator {fn.__name__!r} registered twice")
        OPERATORS[fn.__name__] = Operator(fn.__name__, fn, presentation, parents, summary,
                                          dict(partners or {}))
        return fn

    return register
