"""What every problem family shares: sizes, vocabularies, the registry and a model builder."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, ClassVar

import numpy as np

from ortrex.engine.families.taxonomy import check_classes
from ortrex.ir.expr import Cond, Expr
from ortrex.ir.roles import CONSTRAINT_ROLES, VARIABLE_ROLES
from ortrex.ir.semantic import (
    ConstraintFamily,
    IndexSet,
    ObjectiveSpec,
    Parameter,
    SemanticModel,
    VariableFamily,
)
from ortrex.plugins import Registry
from ortrex.render.language import fill_words
from ortrex.render.names import element_names, name_kind

SIZES = ("small", "medium", "large")
_RESERVED_INDICES = frozenset({"v"})  # a solution wording's value


@dataclass(frozen=True)
class Vocabulary:
    """A domain framing: what the sets are called, the units, and the story line.

    ``entities`` maps a set name to (singular noun, name kind): how its elements are named
    (``town``, ``surname``, ``list:crop``, ``quarter``, ``code:Bay``..., see ``names``);
    ``words`` fills the ``{placeholders}`` of the family's descriptions and of the statement's
    telling (units such as ``{money}``, verbs, nouns).
    """

    domain: str
    title: str
    story: str
    entities: Mapping[str, tuple[str, str]]
    words: Mapping[str, str] = field(default_factory=dict)

    def fill(self, text: str) -> str:
        """``text`` with ``{S}`` -> entity of set S (``{S}s`` its plural, ``a {S}`` with its
        article, through inflect) and ``{word}`` -> the vocabulary's word."""
        return fill_words(text, {k: v[0] for k, v in self.entities.items()}, self.words)


class Family:
    """A problem family: subclasses set the class attributes and implement :meth:`build`."""

    name: ClassVar[str]
    problem_class: ClassVar[str]  # LP, MILP, BIP (pure binary) or QP
    classes: ClassVar[tuple[str, ...]] = ()  # its classes in ``taxonomy.CLASSES`` (area/class)
    summary: ClassVar[str]
    sizes: ClassVar[Mapping[str, Mapping[str, tuple[int, int]]]]
    vocabularies: ClassVar[tuple[Vocabulary, ...]]
    # Why an integral LP relaxation is this family's nature rather than an easy draw ("" when
    # it is not): a totally unimodular matrix with integral data makes every LP vertex
    # integral (bipartite or node-arc incidence), and cyclic consecutive-ones rows mostly do.
    natural_integrality: ClassVar[str] = ""

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Why the optimum only attains a trivial bound of ``sm`` (one line), else None.

        ``values`` gives each variable family's optimal values, flat in grounding order.
        """
        return None

    def sample(self, rng: np.random.Generator, size: str = "small") -> SemanticModel:
        """A random instance of the given size band, framed in a random vocabulary."""
        if size not in self.sizes:
            raise ValueError(f"unknown size {size!r}; expected one of {', '.join(SIZES)}")
        vocab = self.vocabularies[int(rng.integers(len(self.vocabularies)))]
        dims = {k: int(rng.integers(lo, hi + 1)) for k, (lo, hi) in self.sizes[size].items()}
        # Names from a stream of their own: the data draws stay what they were.
        b = Builder(self, vocab, dims, size, rng.spawn(1)[0])
        self.build(b, rng)
        return b.model

    def build(self, b: Builder, rng: np.random.Generator) -> None:  # pragma: no cover
        """Add sets, parameters, variables, constraints and the objective through ``b``."""
        raise NotImplementedError


class Builder:
    """Collects the parts of one instance; descriptions are filled from the vocabulary."""

    def __init__(self, family: Family, vocab: Vocabulary, dims: dict[str, int],
                 size: str, names_rng: np.random.Generator | None = None,
                 set_sizes: Mapping[str, int] | None = None) -> None:
        self.family, self.vocab, self.dims, self.size = family, vocab, dims, size
        # Sizes that win over the family's own draw (a domain shift keeps the parent's sets).
        self.set_sizes = dict(set_sizes or {})
        self.names_rng = names_rng if names_rng is not None else np.random.default_rng(0)
        self.taken: set[str] = set()
        self.derived: dict[str, str] = {}
        self.sets: list[IndexSet] = []
        self.params: list[Parameter] = []
        self.vars: list[VariableFamily] = []
        self.cons: list[ConstraintFamily] = []
        self.extra: dict[str, Any] = {}
        self._model: SemanticModel | None = None
        self._objective: ObjectiveSpec | None = None

    def set(self, name: str, n: int | None = None, description: str = "") -> IndexSet:
        """Set ``name`` with ``n`` elements (default: the sampled size) labelled by the vocab."""
        n = self.set_sizes.get(name, self.dims[name] if n is None else n)
        noun, kind = self.vocab.entities[name]
        elements = element_names(name_kind(kind), n, self.names_rng, self.taken)
        s = IndexSet(name, elements, noun, self.vocab.fill(description) if description else noun)
        self.sets.append(s)
        return s

    def param(self, name: str, index: tuple[str, ...], values: Any, description: str,
              unit: str = "", integer: bool = False, position_in: str = "") -> None:
        """A parameter; ``description`` and ``unit`` may use vocabulary placeholders.
        ``position_in``: its values are positions of elements of that set."""
        if position_in:
            self.extra.setdefault("positions", {})[name] = position_in
        arr = np.asarray(values, dtype=np.float64)
        if integer:
            arr = np.round(arr)
        self.params.append(Parameter(name, index, arr, self.vocab.fill(unit),
                                     self.vocab.fill(description), integer))

    def derive(self, name: str, expression: str) -> None:
        """Parameter ``name`` is computed from the others by a modeller (a Python expression
        over set and parameter names): statements leave it out, programs compute it."""
        self.derived[name] = expression

    def _role(self, kind: str, name: str, role: str) -> str:
        # Operators and post-checks read a model by its roles: a part without one would be
        # changed (or protected) by guesswork, so a family must say what each part means.
        if not role:
            known = VARIABLE_ROLES if kind == "variable" else CONSTRAINT_ROLES
            call = "var" if kind == "variable" else "con"
            raise ValueError(f"family {self.family.name!r}: {kind} {name!r} has no role; "
                             f"declare it with b.{call}({name!r}, ..., role=...), one of "
                             f"{', '.join(known)} (ortrex.ir.roles)")
        return role

    def var(self, name: str, dims: tuple[tuple[str, str], ...], description: str,
            vtype: str = "C", lb: Expr | float = 0.0, ub: Expr | float = math.inf,
            where: tuple[Cond, ...] = (), unit: str = "", *, role: str = "") -> None:
        """A variable family with its role (``ortrex.ir.roles``; a yes/no decision's unit is
        ``0/1``)."""
        unit = unit or ("0/1" if vtype == "B" else "")
        for index, _ in dims:
            # Solution wordings fill {v} with a decision's value and {<index>} with its
            # element: an index named v would collide with the value.
            if index in _RESERVED_INDICES:
                raise ValueError(f"family {self.family.name!r}: variable {name!r} uses index "
                                 f"{index!r}, which solution wordings reserve; pick another")
        self.vars.append(VariableFamily(name, dims, vtype, lb, ub, where,
                                        self.vocab.fill(description), self.vocab.fill(unit),
                                        self._role("variable", name, role)))

    def con(self, name: str, meaning: str, forall: tuple[tuple[str, str], ...], lhs: Expr,
            sense: str, rhs: Expr | float = 0.0, where: tuple[Cond, ...] = (), *,
            role: str = "") -> None:
        """A constraint family with a one-sentence meaning and its role (``ortrex.ir.roles``)."""
        self.cons.append(ConstraintFamily(name, self.vocab.fill(meaning), forall, lhs, sense,
                                          rhs, where, self._role("constraint", name, role)))

    def objective(self, sense: str, expr: Expr, description: str) -> None:
        """The objective."""
        self._objective = ObjectiveSpec(sense, expr, self.vocab.fill(description))

    @property
    def model(self) -> SemanticModel:
        """The finished semantic model."""
        if self._model is None:
            if self._objective is None:
                raise ValueError(f"family {self.family.name}: no objective was set")
            v = self.vocab
            descriptors = {
                "family": self.family.name, "domain": v.domain, "title": v.title,
                "story": v.fill(v.story), "size": self.size, "dims": dict(self.dims),
                "entities": {k: e[0] for k, e in v.entities.items()},
                "name_kinds": {k: name_kind(e[1]) for k, e in v.entities.items()},
                "words": dict(v.words), "summary": v.fill(self.family.summary), **self.extra,
            }
            if self.derived:
                descriptors["derived"] = dict(self.derived)
            self._model = SemanticModel(
                self.family.name, v.domain, f"{self.family.name}: {v.title}", tuple(self.sets),
                tuple(self.params), tuple(self.vars), tuple(self.cons), self._objective,
                descriptors)
        return self._model


# Every read loads the plugins first (``ortrex.plugins``): a plugin's family is sampled,
# listed and validated like a built-in one, in worker processes too.
REGISTRY: Registry[Family] = Registry()


def register(cls: type[Family]) -> type[Family]:
    """Class decorator: make the family available by name."""
    if len(cls.vocabularies) < 3:
        raise ValueError(f"family {cls.name!r} needs at least 3 vocabularies")
    if set(cls.sizes) != set(SIZES):
        raise ValueError(f"family {cls.name!r} must define sizes {SIZES}")
    check_classes(cls.name, cls.classes)
    REGISTRY.add(cls.name, cls(), "family")
    return cls


def all_at(values: np.ndarray, upper: np.ndarray | float = 1.0) -> bool:
    """Whether every value sits at its upper bound (taking everything is a trivial answer)."""
    return bool(values.size) and bool(np.all(values >= np.asarray(upper) - 0.5))


def rounded(values: np.ndarray, digits: int = 2) -> np.ndarray:
    """Data as a person would write it (the instance keeps exactly these numbers)."""
    return np.round(np.asarray(values, dtype=np.float64), digits)


Sampler = Callable[[np.random.Generator, str], SemanticModel]
