"""The operator registry: an operator is its function, registered once by a decorator that
takes its name from the function and declares what the mutate job needs to know about it,
its semantic post-checks included."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field

import numpy as np

from ortrex.engine.operators.base import Context, Mutation
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.plugins import Registry

Apply = Callable[[Context], Mutation]
# (model, its grounding, the optimum, the objective value) -> why it fails, or None.
Check = Callable[[SemanticModel, CanonicalModel, np.ndarray, float], str | None]
# (first parent, second parent) -> whether they may be combined.
Compatible = Callable[[SemanticModel, SemanticModel], bool]


@dataclass(frozen=True)
class PostCheck:
    """A semantic post-check of every model the operator made (children and their own
    descendants): a failure rejects it as ``postcheck:<name>``. It runs right after the model
    check named ``after`` (``ortrex.engine.generate.postchecks.MODEL_CHECKS``; "" after all
    of them): the first failed check is the reason a model is rejected for. ``own``: the
    check compares a child with its parent (``origin()``), so it runs on the operator's own
    children only, while the mutate job that made them knows their parent."""

    name: str
    check: Check
    after: str = ""
    own: bool = False


@dataclass(frozen=True)
class Origin:
    """What the mutate job knows of the model a child is made from while it verifies the
    child: the operator, the parent, its grounding, its optimum (None: no solution stored)
    and its objective value."""

    operator: str
    parent: SemanticModel
    model: CanonicalModel
    x: np.ndarray | None
    objective: float | None


_ORIGIN: ContextVar[Origin | None] = ContextVar("ortrex_origin", default=None)


def origin() -> Origin | None:
    """The parent of the child being verified (None outside a mutation: a fresh instance)."""
    return _ORIGIN.get()


@contextmanager
def made_from(o: Origin | None) -> Iterator[None]:
    """Verify a child knowing its parent (post-checks with ``own`` read it)."""
    token = _ORIGIN.set(o)
    try:
        yield
    finally:
        _ORIGIN.reset(token)


@dataclass(frozen=True)
class Operator:
    """A named mutation: ``parents`` is its arity (2: a second parent from ``partners``,
    which maps a family to the families it combines with, and of those only the models
    ``compatible`` accepts); ``presentation``: the child is the same instance told another
    way; ``postchecks``: what its children's optimum must still mean."""

    name: str
    apply: Apply
    presentation: bool = False
    parents: int = 1
    summary: str = ""
    partners: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    postchecks: tuple[PostCheck, ...] = ()
    compatible: Compatible | None = None

    @property
    def postcheck(self) -> PostCheck | None:
        """The first post-check (an operator with one check declares just that)."""
        return self.postchecks[0] if self.postchecks else None


# In registration order (the built-in modules, then definitions; plugins' operators after);
# every read loads the plugins first (``ortrex.plugins``).
OPERATORS: Registry[Operator] = Registry()


def operator(summary: str, *, presentation: bool = False, parents: int = 1,
             partners: Mapping[str, tuple[str, ...]] | None = None,
             postcheck: PostCheck | Sequence[PostCheck] | None = None,
             compatible: Compatible | None = None) -> Callable[[Apply], Apply]:
    """Register the decorated function as the operator of its name."""
    if parents not in (1, 2) or (parents == 2) != bool(partners):
        raise ValueError("an operator has one parent, or two with a partners map")
    checks = () if postcheck is None else (postcheck,) if isinstance(postcheck, PostCheck) \
        else tuple(postcheck)

    def register(fn: Apply) -> Apply:
        OPERATORS.add(fn.__name__, Operator(fn.__name__, fn, presentation, parents, summary,
                                            dict(partners or {}), checks, compatible),
                      "operator")
        return fn

    return register
