"""How a family's problem is told by the client who has it: openings, facts (one per
parameter), rules (one per constraint family, in business terms), goals and requests, each with
several wordings. The modelling devices (decision variables, their types and bounds, big-M
values, positions of a tour) never appear: the modeller derives them.

Templates are ``str.format`` strings over a :class:`Words` mapping:

* ``{S}`` / ``{Ss}`` / ``{a_S}``: the entity of set ``S``, singular, plural, with its article;
  ``{n_S}``: how many there are, in words; ``{list_S}``: the element names joined;
  ``{first_S}`` / ``{last_S}``: the first and last element;
* ``{val_p}``: a single-valued parameter with its unit (``600 kg``; in DPS statements, where the
  prose restates no data, ``the payload given in the data``); ``{unit_p}``: a parameter's unit;
* any word of the family's vocabulary (``{money}``, ``{qty}``, ``{goods}``...).

A fact tells one parameter: ``lead`` sentences hold ``{items}``, the per-element entries made
from ``item`` (``{e}`` element, ``{v}`` value, ``{u}`` unit agreeing with it, ``{V}`` the value
with its unit); a two-index fact groups its entries by the outer element with ``group``
(``{e}`` outer element, ``{items}`` its inner entries). An entry always names its element
before its value, which is how the fidelity check reads a statement back.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

import numpy as np

from ortrex.ir.semantic import SemanticModel
from ortrex.render.data import number
from ortrex.render.language import article, capital, count, join, plural, singular, unit


@dataclass(frozen=True)
class Fact:
    """How one parameter is told."""

    lead: tuple[str, ...]
    item: tuple[str, ...] = ("{e} {V}",)
    group: tuple[str, ...] = ("for {e}, {items}",)
    label: str = ""  # a table column or a data-file key, in business words
    members: int = -1  # a 0/1 relation told as lists, grouped by this index (0 or 1)
    empty: str = "none of them"  # a member list with nobody in it


@dataclass(frozen=True)
class Rule:
    """Constraint families told together (``covers``: their names; none: always told)."""

    covers: tuple[str, ...]
    tellings: tuple[str, ...]
    meanings: tuple[str, ...] = ()  # the families' own meaning templates (a mutation that
    # rewrote a rule changes its meaning: then the rule is told from the new meaning)
    types: Mapping[str, str] = field(default_factory=dict)  # variable -> the type the rule
    # states ("fractions are fine": C); told only while the model's variables have them


def divisible(variables: str | tuple[str, ...], *tellings: str) -> Rule:
    """A rule stating in business terms that decisions may be fractional ("servings may be
    split"): told only while every named variable is continuous, so a child whose decisions
    became whole never says it. Each wording must say it (``account.grain_told`` finds it)."""
    names = (variables,) if isinstance(variables, str) else variables
    return Rule((), tellings, types=dict.fromkeys(names, "C"))


def whole(variables: str | tuple[str, ...], *tellings: str) -> Rule:
    """A rule stating in business terms that decisions come in whole units ("whole cases
    only"): told only while every named variable is integer."""
    names = (variables,) if isinstance(variables, str) else variables
    return Rule((), tellings, types=dict.fromkeys(names, "I"))


@dataclass(frozen=True)
class Telling:
    """Everything a client says about one family's problem."""

    openings: tuple[str, ...]
    facts: Mapping[str, Fact]
    rules: tuple[Rule, ...]
    goals: tuple[str, ...]
    objective: str  # the family's objective description template (unchanged -> ``goals``)
    asks: tuple[str, ...] = ()
    context: tuple[str, ...] = ()  # optional colour: why it matters, what happened before
    report: Mapping[str, str] = field(default_factory=dict)  # variable -> solution wording
    devices: tuple[str, ...] = ()  # constraint families that are modelling devices (symmetry
    # breaking): the modeller's choice, never told
    settled: tuple[str, ...] = ()  # integer or yes/no variables whose nature the telling
    # states or implies ("exactly one nurse", "as few hosts as possible")
    auxiliaries: tuple[str, ...] = ()  # variables only the modeller introduces (tour
    # positions, ordering choices): never told
    presumes: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # an opening,
    # context line or fact lead -> the constraint families it takes for granted ("Some
    # projects only make sense if another goes ahead first": the prerequisites); told only
    # while the model keeps them in the family's own wording


# Requests compose an opener and a task: many shapes from few parts.
_ASK_OPENERS = (("Could you ", "?"), ("Can you ", "?"), ("Please ", "."),
                ("We need you to ", "."), ("Would you ", "?"), ("I would like you to ", "."),
                ("Your task is to ", "."), ("Help us ", "."), ("Our question: can you ", "?"),
                ("What we ask is simple: ", "."))
_ASK_TASKS = (
    "find the best plan and report its {goal_noun}",
    "work out what we should do, and what it achieves",
    "set this up as an optimization model, solve it and report the result",
    "tell us the optimal plan and its {goal_noun}",
    "figure out the best decision and the {goal_noun} it gives",
    "build a model of this, solve it and give us the numbers",
    "determine the optimal decisions and the resulting {goal_noun}",
    "recommend a plan and state its {goal_noun}",
    "compute the best possible {goal_noun} and the plan behind it",
    "formulate and solve this, then report the {goal_noun} and the decisions",
    "solve this exactly and explain the plan in a few lines",
)
GENERIC_ASKS = tuple(o + t + e for o, e in _ASK_OPENERS for t in _ASK_TASKS
                     if not (o == "Help us " and (" us " in t or t.startswith("recommend"))))
# Goal frames by the grammar of what fills them: a noun phrase, a state ("the cost as low as
# it can be", which only "want" takes), "to ..." or "-ing ...".
_GOAL_FRAMES = {
    "np": ("We want {x}.", "Our aim is {x}.", "The goal is {x}.", "What matters is {x}.",
           "We are after {x}.", "The target is {x}.", "Above all, we want {x}.",
           "This is about {x}."),
    "state": ("We want {x}.", "We would like {x}.", "Above all, we want {x}.",
              "Management wants {x}."),
    "to": ("We want {x}.", "Our aim is {x}.", "The goal is {x}.", "The target is {x}.",
           "Above all, we want {x}.", "We would like {x}.", "The idea is {x}."),
    "ing": ("Our aim is {x}.", "The goal is {x}.", "What matters is {x}.",
            "This is about {x}.", "We care about {x}.")}
_GOAL_MIN = {"np": ("the lowest possible {goal_noun}", "the smallest {goal_noun} we can achieve",
                    "the lowest {goal_noun} any plan allows"),
             "state": ("the {goal_noun} as low as it can be", "the {goal_noun} kept to a minimum"),
             "to": ("to bring the {goal_noun} down as far as possible",
                    "to keep the {goal_noun} to a minimum",
                    "to get the {goal_noun} as low as we can"),
             "ing": ("minimising the {goal_noun}", "keeping the {goal_noun} to a minimum",
                     "driving the {goal_noun} down as far as it goes")}
_GOAL_MAX = {"np": ("the highest possible {goal_noun}", "the largest {goal_noun} we can achieve",
                    "the highest {goal_noun} any plan allows"),
             "state": ("the {goal_noun} as high as it can be",),
             "to": ("to push the {goal_noun} up as far as possible",
                    "to get the {goal_noun} as high as we can"),
             "ing": ("maximising the {goal_noun}", "pushing the {goal_noun} up as far as it goes")}
GENERIC_GOALS = {
    sense: tuple(f.format(x=x) for kind, fs in _GOAL_FRAMES.items() for f in fs
                 for x in parts[kind])
    for sense, parts in (("min", _GOAL_MIN), ("max", _GOAL_MAX))}


class Words(dict):  # type: ignore[type-arg]
    """The template vocabulary of one statement (computed keys on demand)."""

    def __init__(self, sm: SemanticModel, form: str, labels: Mapping[str, str]) -> None:
        super().__init__(sm.descriptors.get("words", {}))
        self.sm, self.form, self.labels = sm, form, labels
        self["goal_noun"] = "result"

    def __missing__(self, key: str) -> str:
        sets = self.sm.set_map
        kind, _, name = key.partition("_")
        if key in sets:
            return entity(self.sm, key)
        if key.endswith("s") and key[:-1] in sets:
            return plural(entity(self.sm, key[:-1]))
        if name in sets:
            s = sets[name]
            if kind == "a":
                return article(entity(self.sm, name))
            if kind == "n":
                return count(len(s))
            if kind == "list":
                return join(list(s.elements))
            if kind == "first":
                return s.elements[0]
            if kind == "last":
                return s.elements[-1]
        params = self.sm.param_map
        if kind in ("val", "unit") and name in params:
            p = params[name]
            if kind == "unit":
                return unit(p.unit)
            if self.form == "DPS":
                return f"the {self.labels.get(name, name)} given in the data"
            v = float(np.asarray(p.values))
            return with_unit(v, p.unit, p.integer)
        raise KeyError(key)


    def with_(self, **extra: str) -> Layer:
        """These words plus ``extra`` (per-entry keys such as ``e`` and ``v``)."""
        return Layer(extra, self)


class Layer(dict):  # type: ignore[type-arg]
    """Entry-level keys over a statement's words."""

    def __init__(self, extra: dict[str, str], base: Words) -> None:
        super().__init__(extra)
        self.base = base

    def __missing__(self, key: str) -> str:
        return self.base[key]


def entity(sm: SemanticModel, set_name: str) -> str:
    """The entity noun of a set."""
    s = sm.set_map[set_name]
    return s.entity or s.name


def plain(sm: SemanticModel, text: str, dims: tuple[tuple[str, str], ...]) -> str:
    """A description without its index letters, as a client would write it (``boxes shipped
    from depot s to clinic d`` -> ``boxes shipped from each depot to each clinic``), without a
    leading ``1 if``."""
    for i, s in dims:
        noun = re.escape(entity(sm, s))
        text = re.sub(rf"\b(?:the )?{noun} {re.escape(i)}\b", f"each {entity(sm, s)}", text)
    return re.sub(r"^1 if ", "", text)


def per_unit(sm: SemanticModel, description: str, unit_: str,
             dims: tuple[tuple[str, str], ...]) -> str:
    """``per box shipped from each depot to each clinic``, ``per kg of each premix in the
    blend``: a rate's "per" phrase from a quantity's description and unit."""
    what = plain(sm, description, dims)
    u = unit_.strip()
    if u and u != "0/1" and what.startswith(u + " "):
        return f"per {singular(u)}{what[len(u):]}"
    return f"per unit of {what}"


def with_unit(v: float, u: str, integer: bool = False) -> str:
    """A value and its unit, agreeing: ``1 tonne``, ``3.5 tonnes``, ``12 USD``."""
    text = number(v, integer)
    return f"{text} {unit(u, v)}".rstrip() if u else text


_ARTICLE_KEY = re.compile(r"\b([Aa]) \{(\w+)\}")


def fill(template: str, words: Mapping[str, str]) -> str:
    """A template filled in (``a {X}`` takes the article its word needs), its first letter
    capitalised."""
    def with_article(m: re.Match[str]) -> str:
        text = article(words[m.group(2)])
        return capital(text) if m.group(1) == "A" else text

    return capital(_ARTICLE_KEY.sub(with_article, template).format_map(words))


def finite(v: float) -> bool:
    """A number a statement can print."""
    return math.isfinite(v)
