"""Modelling reasoning written from the semantic model, the statement and the data: the
``clean_cot`` style's thinking.

It walks what a modeller decides, in order: the goal; each decision family (what it is, how
many, why it is continuous, whole or yes/no, and every bound with its numbers); each constraint
family from the statement's own sentence, its count of rows and one row written out with the
data (an average or share linearised with its derived coefficients, a big-M or a count derived
from the data with its derivation); the objective with its first coefficients; and checks of
units and edge cases (totals of requirements against totals of capacities, integrality, index
ranges that leave combinations out). Nothing in it needs the solution: it precedes the program.
Wording is drawn per model (a seed) from several phrasings of every sentence, so a corpus of
such texts does not repeat one skeleton.
"""

from __future__ import annotations

import math
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.expr import Cond, Param, Var, as_expr, expand
from ortrex.ir.roles import MODELLERS
from ortrex.ir.semantic import ConstraintFamily, SemanticModel, VariableFamily
from ortrex.render.data import readable as _fmt
from ortrex.render.data import row_text
from ortrex.render.language import article, capital, count, join, plural, unit
from ortrex.render.telling import entity, plain

SHOW = 3  # data values shown per list

# Several phrasings of every sentence, each weaving in the model's own words ({v}: the
# variable, {ent}: what it is indexed by, {unit}, {c}: the rule), so that phrasings stay
# distinct across a corpus.
PHRASES: dict[str, tuple[str, ...]] = {
    "goal": (
        "The goal is to {verb} the {what}.",
        "What has to be optimised for the {org}: {verb} the {what}.",
        "We are asked to {verb} the {what}.",
        "The request comes down to one number to {verb}: the {what}.",
        "The {org} wants the {what} {extreme}.",
        "First, the target: the {what}, which should be {extreme}.",
        "Reading the request, the {org} needs the {what} {extreme}.",
        "So the model has to {verb} the {what}.",
        "Objective first: {verb} the {what}, nothing else is scored.",
        "Everything is judged by the {what}; the model must {verb} it.",
        "The {org} cares about one figure, the {what}, and wants it {extreme}.",
        "Direction of optimisation: {verb}. Quantity: the {what}.",
        "To start, the objective: the {what}, to {verb}.",
        "This is a {sense} problem over the {what}."),
    "goal_said": (
        "The statement says so in its own words: {q}",
        "In the client's words: {q}",
        "That is what {q} asks for.",
        "The line {q} settles the direction.",
        "It is spelled out as {q}",
        "The text puts it as {q}",
        "Evidence for the sense: {q}",
        "The request reads {q}",
        "{q} makes it explicit."),
    "decide": (
        "The decisions are {what}: one {v} for each combination of {over}, {n} in all.",
        "We choose {what}. That is {v}, indexed by {over}: {n} variables.",
        "Decision {v}: {what}, over {over}; {n} variables.",
        "What the plan fixes is {what}, so {v} runs over {over} ({n} of them).",
        "Let {v} be {what}; with {over} that makes {n} variables.",
        "The unknowns {v} are {what}, one per entry of {over}: {n} values.",
        "Variable {v} stands for {what}. It ranges over {over}, {n} values.",
        "For {over} we need {what}: {n} variables named {v}.",
        "The plan is described by {what}; over {over} these are {n} variables {v}.",
        "{v} gives {what} ({over}, {n} entries).",
        "Decide {what}: variable {v} over {over}, {n} of them."),
    "decide_yn": (
        "For each {ent} we decide {what}: {n} binary variables named {v}.",
        "The yes/no decisions: {what}, one {v} per entry of {over} ({n} in all).",
        "Whether to act is itself a decision: {v} says {what}, over {over}; {n} variables.",
        "We must settle, for {over}, {what}. That is {v}, {n} variables.",
        "Decision {v} records {what} ({n} entries over {over})."),
    "decide_one": (
        "One more decision, {v}: {what}.",
        "A single variable {v} holds {what}.",
        "Add {v} for {what}, a single number.",
        "Variable {v} is one number: {what}."),
    "device": (
        "Variable {v} is a modelling device, not something the {org} decides: {what}.",
        "The statement never mentions {v} ({what}); the model needs it to state the rules.",
        "A helper {v} ({what}) makes the rules expressible; no {org} asked for it.",
        "The variable {v} ({what}) is bookkeeping the modeller adds."),
    "binary": (
        "Each {v} is a yes/no choice per {ent}, so it is binary.",
        "This is an on/off decision for every {ent}: {v} binary, 0 or 1.",
        "A choice about {a_ent} is made or not, so {v} is 0 or 1.",
        "Nothing in between makes sense for {v}: binary.",
        "Half a choice about {a_ent} is meaningless, so {v} lives in {{0, 1}}.",
        "All or nothing for each {ent}: {v} is binary.",
        "For {a_ent} the answer is yes or no, hence {v} binary."),
    "integer": (
        "The variable {v} counts whole {units}, so it is integer.",
        "Fractions of {units} make no sense here, so {v} is integer.",
        "Each {v} must be a whole number of {units}.",
        "Only whole {units} are possible: {v} is integer.",
        "A fractional {v} could not be carried out, so integer.",
        "{Units} come whole, which makes {v} an integer variable."),
    "continuous": (
        "Each {v} is an amount in {unit}, so continuous: nothing asks for whole numbers.",
        "Quantities in {unit} can take any value, so {v} is continuous.",
        "Nothing in the request needs whole {unit}: {v} is continuous.",
        "Amounts in {unit} divide freely, so no integrality is imposed on {v}.",
        "Partial {unit} are fine, which keeps {v} continuous.",
        "The statement never asks for whole {unit}: {v} continuous.",
        "The variable {v} measures {unit}; a fraction of one is meaningful, so continuous.",
        "Since {unit} are divisible, {v} stays continuous.",
        "{unit} need not be whole here, so {v} is a real number.",
        "Any fraction of {unit} can be planned: {v} continuous.",
        "Whole {unit} are not required, so {v} is not integer."),
    "share": (
        "Fractions are allowed (a share of the demand), so {v} is continuous.",
        "A share can be split between {ents}, so {v} is continuous.",
        "Splitting among {ents} is allowed, hence {v} continuous between 0 and 1."),
    "nonneg": (
        "No {v} can be negative (lower bound 0).",
        "A negative {v} would mean nothing: lower bound 0.",
        "Lower bound 0 on {v}.",
        "Below zero {unit} have no meaning, so {v} starts at 0.",
        "There are no negative {unit}: {v} >= 0.",
        "Each {v} is at least 0, as negative {unit} cannot happen.",
        "{v} >= 0: there is no such thing as negative {unit}.",
        "Sign: nonnegative, since {unit} cannot go below zero."),
    "ub_param": (
        "Its upper bound is the {desc}: {vals}.",
        "The variable {v} is capped by the {desc} ({vals}).",
        "The {desc} bounds {v} from above: {vals}.",
        "No more than the {desc}, which is {vals}.",
        "Every {v} stays below the {desc}: {vals}."),
    "rule": (
        "Rule {c}: {meaning}",
        "{meaning} This is {c}.",
        "Next, {c}. {meaning}",
        "Then {c}: {meaning}",
        "Constraint {c} says: {meaning}",
        "Constraint {c} covers this: {meaning}",
        "{meaning} Call it {c}.",
        "On to {c}. {meaning}",
        "{c}. {meaning}",
        "Another rule, {c}: {meaning}",
        "{meaning} ({c})",
        "The model also needs {c}: {meaning}"),
    "rule_said": (
        "The statement: {q}",
        "It comes from {q}",
        "Source sentence for {c}: {q}",
        "The client wrote {q}",
        "See {q}",
        "The words behind {c}: {q}",
        "In the text: {q}",
        "{q} is the sentence for {c}.",
        "Behind {c} is the sentence {q}"),
    "rows": (
        "One row per {each}{where} ({n} {rows}); for instance {r}: {text}.",
        "It holds for each {each}{where}, so {n} {rows}, such as {r}: {text}.",
        "That gives {n} {rows} of {c}, one per {each}{where}; written out, {r} is {text}.",
        "Per {each}{where} one row, {n} in total. With the data, {r} reads {text}.",
        "{N} {rows} ({each}{where}). Take {r}: {text}.",
        "Instantiated for every {each}{where} it makes {n} {rows}; {r} becomes {text}.",
        "Over each {each}{where}: {n} {rows}, the first being {r}: {text}.",
        "Rule {c} needs {n} {rows}, one for each {each}{where}; {r} is {text}.",
        "Indexed by {each}{where}: {n} {rows}. Plugging in the numbers, {r} is {text}.",
        "{r} shows the pattern ({n} {rows}, by {each}{where}): {text}.",
        "There are {n} such {rows} ({each}{where}); {r} reads {text}.",
        "Grounded, {c} has {n} {rows} by {each}{where}; {r} is {text}."),
    "capacity": (
        "A limit: the left side is what the {ents} use, the right side what is available.",
        "Use stays within what is available, so {c} is a less-or-equal row.",
        "This caps consumption; leaving slack is allowed, exceeding is not.",
        "Resources are finite: {c} bounds what the plan may draw on."),
    "demand": (
        "A requirement: at least the amount asked, more is allowed if it pays.",
        "Requirements are floors, so {c} reads greater-or-equal.",
        "Meeting the need is mandatory; overshooting is only a cost question.",
        "Rule {c} sets a floor the plan has to reach."),
    "assignment": (
        "Each {ent} is taken exactly as the rule says, so {c} is an equation (or at most one).",
        "The assignment rows make sure nothing is left over or given twice.",
        "Rule {c} ties every {ent} to its taker."),
    "covering": (
        "Covering means at least once: {c} is a greater-or-equal row over the chosen sets.",
        "Every element must be reached by some choice, hence {c}."),
    "packing": (
        "Conflicts exclude each other, so the chosen items in {c} sum to at most one.",
        "Packing rows keep incompatible choices apart."),
    "budget": (
        "Spending is capped: the total outlay in {c} may not exceed the budget.",
        "Money is the binding resource here; {c} limits it."),
    "linking": (
        "A quantity may be positive only when its switch is on: {c} links the two.",
        "Rule {c} couples the continuous amount to the yes/no choice."),
    "degree": (
        "Degree rows: every stop is left once and entered once.",
        "Rule {c} fixes how often each node is visited."),
    "spread": (
        "The {desc} ranges from {lo} ({elo}) to {hi} ({ehi}).",
        "Across the data, {p} goes from {lo} at {elo} up to {hi} at {ehi}.",
        "{ehi} has the largest {p} ({hi}), {elo} the smallest ({lo}).",
        "Values of {p}: between {lo} for {elo} and {hi} for {ehi}.",
        "The smallest {p} is {elo}'s {lo}; the largest is {ehi}'s {hi}."),
    "example": (
        "For instance {r}: {text}.",
        "Written out for {r}: {text}.",
        "With the data, {r} reads {text}.",
        "Take {r}: {text}.",
        "The row {r} becomes {text}.",
        "In numbers, {r}: {text}."),
    "ratio": (
        "An average or share is a ratio of two sums; the total is positive, so multiplying "
        "both sides by it keeps {c} linear, and each coefficient becomes the content minus the "
        "limit ({coefs}).",
        "A ratio is not linear, but the denominator is a positive total: multiply it out and "
        "move everything left; the coefficients of {c} are the differences {coefs}.",
        "Dividing by the total would make {c} nonlinear, so the limit is multiplied into the "
        "total instead, which yields {coefs}."),
    "big_m": (
        "The constant {p} ({desc}) is a big-M: large enough never to cut off a real plan, and "
        "no larger, since a loose M weakens the relaxation. From the data, {p} = {expr}, "
        "which gives {vals}.",
        "{p} plays the big-M in {c}. Its value is not arbitrary: {p} = {expr} from the data "
        "({vals}), the most the quantity could ever need, so it is valid and tight.",
        "For the big-M of {c} use {p} = {expr}: {vals}. A larger constant would also be valid "
        "but would weaken the bound."),
    "derived": (
        "{p} is derived from the data as {expr}: {vals}.",
        "Here {p} = {expr}, that is {vals}.",
        "{p} is not given but follows from the data ({expr}): {vals}."),
    "balance": (
        "Nothing appears or vanishes in {c}: what comes in equals what goes out.",
        "Every unit is accounted for on both sides of {c}.",
        "Rule {c} is a conservation equation, so equality, not an inequality.",
        "Stock and flow must add up exactly, hence the equals sign in {c}."),
    "device_rule": (
        "The statement does not say it in so many words; the model needs {c} for {why}.",
        "No sentence states {c}; it is there for {why}.",
        "The client would not write {c} down, yet {why} depends on it."),
    "objective": (
        "In the objective each decision carries its own rate, the {rate}: {terms}.",
        "The objective coefficients come straight from the data ({rate}): {terms}.",
        "The objective weighs each decision by the {rate}: {terms}.",
        "Each objective term is the {rate} times a decision, for instance {terms}.",
        "Objective coefficients are the {rate}: {terms}.",
        "The {rate} prices every decision: {terms}.",
        "Summing the {rate} over the plan gives the goal's value; for example {terms}.",
        "Weights in the goal: {terms} (the {rate})."),
    "lp": (
        "Every variable is continuous, so this is an LP and the solver's optimum is exact.",
        "No integrality anywhere: a plain LP over {vars}.",
        "With only continuous {vars} the model is linear and solves exactly.",
        "An LP in {vars}: no branching needed.",
        "Since {vars} may take fractional values, a linear program suffices."),
    "mip": (
        "Because {ints} {be} whole, the relaxation only bounds the optimum and the solver has "
        "to branch.",
        "With {ints} integral, this is a mixed-integer program: the LP relaxation is a bound, "
        "not the answer.",
        "The whole-number decisions ({ints}) make branching necessary.",
        "Integrality of {ints} makes it a mixed-integer model; expect a search tree.",
        "A relaxation that drops the integrality of {ints} would be a lower bound only."),
    "edge": (
        "Edge check: the right-hand sides of {dn} add up to {dt} and those of {cn} to {ct}, "
        "{verdict}.",
        "A quick sanity check: {dn} asks for {dt} in total while {cn} allows {ct}, {verdict}.",
        "Totals: {dt} required ({dn}) against {ct} available ({cn}), {verdict}."),
    "units": (
        "Units: {pairs}{tail}.",
        "Checking units, {pairs}{tail}.",
        "The units agree: {pairs}{tail}.",
        "Dimensions check out: {pairs}{tail}.",
        "As for units, {pairs}{tail}."),
    "cautions": (
        "Checks against the slips a first attempt made: ",
        "Things to get right here: ",
        "Where a first model went wrong: ",
        "Mistakes to avoid on this problem: "),
}


class _Ctx(dict):  # type: ignore[type-arg]
    """Placeholders; a capitalised name not given is its lower-case one capitalised."""

    def __missing__(self, key: str) -> str:
        low = key[:1].lower() + key[1:]
        if key[:1].isupper() and low in self:
            return capital(str(self[low]))
        raise KeyError(key)


def _quote(sentence: str) -> str:
    return f"\u201c{sentence.strip()}\u201d"


def _product(grids: list[tuple[str, ...]]) -> list[tuple[str, ...]]:
    out: list[tuple[str, ...]] = [()]
    for g in grids:
        out = [(*t, e) for t in out for e in g]
    return out


class _Writer:
    def __init__(self, sm: SemanticModel, account: Mapping[str, str], seed: int,
                 names: Mapping[str, str]) -> None:
        self.sm = sm
        self.account = account
        self.rng = random.Random(seed)
        self.names = names
        self.g: CanonicalModel = sm.ground()
        self.rows_of: dict[str, list[int]] = {}
        for k, n in enumerate(self.g.row_names):
            self.rows_of.setdefault(n.split("[", 1)[0], []).append(k)
        self.cols_of: dict[str, list[int]] = {}
        for k, n in enumerate(self.g.var_names):
            self.cols_of.setdefault(n.split("[", 1)[0], []).append(k)
        self.derived = sm.derived_params
        self.words = dict(sm.descriptors.get("words") or {})
        self.ctx: dict[str, Any] = {"org": self.words.get("org", "client"),
                                    "what": sm.objective.description}
        self.seen: set[tuple[str, ...]] = set()
        self.new_list()

    def pair(self, label: str, value: str) -> str:
        """An (element, value) entry in one of several shapes (drawn per list)."""
        return self._pair.format(e=label, v=value)

    def new_list(self) -> None:
        """Draw the entry shape of the next list."""
        self._pair = self.rng.choice(("{e} {v}", "{v} for {e}", "{e}: {v}", "{e} at {v}",
                                      "{v} ({e})", "{e} with {v}"))
        self._more = self.rng.choice((" and so on", ", \u2026", " among others",
                                      " and more", ", etc."))
        self._rel = self.rng.choice((("<=", ">=", "="), ("\u2264", "\u2265", "="),
                                     ("at most", "at least", "equal to")))

    def say(self, key: str, **kw: Any) -> str:
        """One phrasing of sentence ``key``, filled from ``kw`` over the section's context
        (``{V}`` is ``{v}`` capitalised, and so on)."""
        template = self.rng.choice(PHRASES[key])
        text = template.format_map(_Ctx({**self.ctx, **kw}))
        # A sentence opening with a name from the program keeps the name's case.
        return text if template.startswith(("{c}", "{v}", "{r}")) else capital(text)

    def about_var(self, v: VariableFamily) -> None:
        """The context of a variable family's sentences."""
        ent = entity(self.sm, v.dims[0][1]) if v.dims else "decision"
        u = v.unit if v.unit and v.unit != "0/1" else "units"
        self.ctx.update(v=self.code(v.name), ent=ent, ents=plural(ent), a_ent=article(ent),
                        unit=u,
                        units=u if u.endswith("s") else plural(u))

    def about_con(self, c: ConstraintFamily) -> None:
        """The context of a constraint family's sentences."""
        self.ctx.update(c=self.code(c.name))

    def code(self, fam: str) -> str:
        own = self.names.get(fam)
        return own if own and own != "(unnamed)" else fam

    # ------------------------------------------------------------------ pieces
    def values(self, p: str, limit: int = SHOW) -> str:
        """A parameter's values by element: ``Reformate 270, Alkylate 27 and so on``."""
        par = self.sm.param_map[p]
        arr = np.asarray(par.values, dtype=float)
        if arr.ndim == 0:
            return _fmt(float(arr))
        flat = arr.reshape(-1)
        grids = [self.sm.set_map[s].elements for s in par.index]
        labels = [", ".join(t) for t in _product(grids)]
        self.new_list()
        shown = [self.pair(lab if len(grids) == 1 else f"({lab})", _fmt(v))
                 for lab, v in zip(labels, flat, strict=False)][:limit]
        return ", ".join(shown) + (self._more if flat.size > limit else "")

    def members(self, dims: Sequence[tuple[str, str]]) -> str:
        """``two fuel grades (Renewable and Premium) and three quarters (Q1, Q2 and Q3)``;
        a set met twice is ``pairs of the four holes``."""
        key = tuple(s for _, s in dims)
        if key in self.seen:  # said once already in this text: refer back to it
            nouns = join([plural(entity(self.sm, s)) for s in dict.fromkeys(key)])
            return self.rng.choice((f"the same {nouns}", f"those {nouns} again",
                                    f"the {nouns} as before"))
        self.seen.add(key)
        parts = []
        for s in dict.fromkeys(x for _, x in dims):
            els = self.sm.set_map[s].elements
            shown = join(list(els)) if len(els) <= SHOW else \
                ", ".join(els[:SHOW]) + self.rng.choice((", \u2026", " and others", " etc.",
                                                         " and so on", ", and more"))
            noun = entity(self.sm, s)
            if sum(1 for _, x in dims if x == s) > 1:
                parts.append(f"pairs of the {count(len(els))} {plural(noun)} ({shown})")
            else:
                parts.append(f"{count(len(els))} {plural(noun) if len(els) != 1 else noun} "
                             f"({shown})")
        return join(parts)

    def cond_words(self, c: Cond, sets: Mapping[str, str]) -> str:
        a = entity(self.sm, sets[c.a]) if c.a in sets else c.a
        if c.op == "first":
            return f"only for the first {a}"
        if c.op == "not_first":
            return f"for every {a} but the first"
        if c.op == "last":
            return f"only for the last {a}"
        if c.op == "not_last":
            return f"for every {a} but the last"
        if c.op == "link":
            return f"only where the {c.param} of {c.a} is {c.b}"
        words = {"ne": "differs from", "eq": "equals", "lt": "comes before",
                 "le": "does not come after", "gt": "comes after", "ge": "does not come before"}
        return f"only where {c.a} {words.get(c.op, c.op)} {c.b}"

    def row_text(self, k: int, limit: int = 2) -> str:
        """Row ``k`` of the grounded model written out with its numbers."""
        A = self.g.A
        idx = A.indices[A.indptr[k]:A.indptr[k + 1]]
        val = A.data[A.indptr[k]:A.indptr[k + 1]]
        terms = [(self.g.var_names[int(j)], float(v)) for j, v in zip(idx[:limit], val[:limit],
                                                                      strict=True)]
        return row_text(terms, float(self.g.row_lower[k]), float(self.g.row_upper[k]),
                        " + \u2026" if len(idx) > limit else "", self._rel)

    # ------------------------------------------------------------------ sections
    def goal(self) -> str:
        o = self.sm.objective
        head = self.say("goal", verb="minimise" if o.sense == "min" else "maximise",
                        sense="minimisation" if o.sense == "min" else "maximisation",
                        extreme="as low as possible" if o.sense == "min" else
                        "as high as possible")
        said = self.account.get("objective")
        return head + (" " + self.say("goal_said", q=_quote(said)) if said else "")

    def decision(self, v: VariableFamily) -> str:
        sm = self.sm
        what = plain(sm, v.description, v.dims)
        if v.description.startswith("1 if "):
            what = "whether " + what
        n = len(self.cols_of.get(v.name, ()))
        self.about_var(v)
        if v.role in MODELLERS:
            out = [self.say("device", what=what)]
        elif v.dims:
            key = "decide_yn" if v.description.startswith("1 if ") else "decide"
            out = [self.say(key, what=what, over=self.members(v.dims), n=n)]
        else:
            out = [self.say("decide_one", what=what)]
        if v.where:
            sets = dict(v.dims)
            conds = join(list(dict.fromkeys(self.cond_words(c, sets) for c in v.where)))
            grid = math.prod(len(sm.set_map[s]) for _, s in v.dims)
            out.append(f"It exists {conds}: {n} of the {grid} combinations.")
        tail = [self.domain(v), *self.bounds(v)]
        if self.rng.random() < 0.3:
            tail.reverse()
        return " ".join(out + tail)

    def domain(self, v: VariableFamily) -> str:
        said = self.account.get(v.name)
        because = f" The statement says {_quote(said)}" if said else ""
        if v.vtype == "B":
            return self.say("binary") + because
        if v.vtype == "I":
            return self.say("integer") + because
        if v.role in MODELLERS:
            return "It can stay continuous: only its order matters, not its value."
        if v.role == "assignment":
            return self.say("share")
        return self.say("continuous")

    def bounds(self, v: VariableFamily) -> list[str]:
        out: list[str] = []
        if v.vtype == "B":
            return out
        for side, b in (("lower", v.lb), ("upper", v.ub)):
            if isinstance(b, (int, float)):
                if math.isinf(b):
                    if side == "lower":
                        out.append("It may be negative: no lower bound.")
                    continue
                if side == "lower" and b == 0:
                    out.append(self.say("nonneg"))
                    continue
                why = ""
                if v.role == "position":
                    why = (": positions count the stops after the start" if side == "upper"
                           else ": the first stop after the start")
                out.append(f"Its {side} bound is {_fmt(float(b))}{why}.")
                continue
            for p in [x for x in as_expr(b).walk() if isinstance(x, Param)]:
                par = self.sm.param_map[p.name]
                if side == "upper":
                    text = self.say("ub_param", desc=par.description, vals=self.values(p.name))
                else:
                    text = f"Its lower bound is the {par.description}: {self.values(p.name)}."
                if p.name in self.derived:
                    text = text[:-1] + f", derived from the data as {self.derived[p.name]}."
                out.append(text)
        return out

    def constraint(self, c: ConstraintFamily, hidden: set[str]) -> str:
        rows = self.rows_of.get(c.name, [])
        said = self.account.get(c.name)
        meaning = re.sub(r"^Otherwise,? ", "In the other case, ", c.meaning)
        self.about_con(c)
        out = [self.say("rule", meaning=meaning)]
        if said:
            quote = self.say("rule_said", q=_quote(said))
            out.insert(0 if self.rng.random() < 0.35 else 1, quote)
        elif c.name in hidden or c.role in ("definition", "subtour", "symmetry"):
            why = {"subtour": "a single tour", "symmetry": "a smaller search"}.get(
                c.role, "consistency")
            out.append(self.say("device_rule", why=why))
        if c.forall and rows:
            sets = dict(c.forall)
            conds = list(dict.fromkeys(self.cond_words(w, sets) for w in c.where))
            where = (" " + join(conds)) if conds else ""
            fams = [s for _, s in c.forall]
            each = join([f"pair of {plural(entity(self.sm, s))}" if fams.count(s) > 1
                         else entity(self.sm, s) for s in dict.fromkeys(fams)])
            out.append(self.say("rows", each=each, where=where, n=len(rows),
                                N=capital(count(len(rows))),
                                rows="row" if len(rows) == 1 else "rows",
                                r=self.g.row_names[rows[0]], text=self.row_text(rows[0])))
        elif rows:
            out.append(self.say("example", r=self.g.row_names[rows[0]],
                                text=self.row_text(rows[0])))
        # A role's sentence where its usual sense holds (a demand met exactly is an equation).
        usual = {"capacity": "<=", "demand": ">=", "covering": ">=", "packing": "<=",
                 "budget": "<="}
        if c.role in PHRASES and c.role not in ("balance", "ratio") and \
                usual.get(c.role, c.sense) == c.sense:
            out.insert(self.rng.randint(1, len(out)), self.say(c.role))
        out += self.explain(c, rows)
        return " ".join(out)

    def spread(self, p: str) -> str | None:
        """Where a parameter's values lie, with the elements at both ends."""
        par = self.sm.param_map[p]
        arr = np.asarray(par.values, dtype=float).reshape(-1)
        if arr.size < 2 or np.ptp(arr) == 0:
            return None
        grids = [self.sm.set_map[s].elements for s in par.index]
        labels = [" ".join(t) for t in _product(grids)]
        lo, hi = int(np.argmin(arr)), int(np.argmax(arr))
        return self.say("spread", desc=par.description, p=p, lo=_fmt(arr[lo]),
                        hi=_fmt(arr[hi]), elo=labels[lo], ehi=labels[hi])

    def explain(self, c: ConstraintFamily, rows: list[int]) -> list[str]:
        """Why the row looks the way it does: linearisations, big-M, derived counts, and where
        its data lie."""
        params = {x.name for x in (*as_expr(c.lhs).walk(), *as_expr(c.rhs).walk())
                  if isinstance(x, Param)}
        out = []
        rhs = [x.name for x in as_expr(c.rhs).walk() if isinstance(x, Param)]
        for p in rhs[:1]:
            if p not in self.derived:
                text = self.spread(p)
                if text:
                    out.append(text)
        if c.role == "ratio" and rows:
            out.append(self.say("ratio", coefs=self._coefs(rows[0])))
        derived = [p for p in sorted(params) if p in self.derived]
        for p in derived:
            par = self.sm.param_map[p]
            key = "big_m" if c.role == "linking" else "derived"
            out.append(self.say(key, p=p, desc=par.description, expr=self.derived[p],
                                vals=self.values(p)))
        if c.role == "linking" and not derived:
            given = [p for p in sorted(params) if self.sm.param_map[p].index]
            if given:
                out.append(f"It switches the quantity off unless the choice is made, scaled "
                           f"by the given {given[0]} ({self.values(given[0])}).")
        if c.role == "balance":
            out.append(self.say("balance"))
        return out

    def _coefs(self, k: int) -> str:
        A = self.g.A
        idx = A.indices[A.indptr[k]:A.indptr[k + 1]][:SHOW]
        val = A.data[A.indptr[k]:A.indptr[k + 1]][:SHOW]
        self.new_list()
        return ", ".join(self.pair(self.g.var_names[int(j)], _fmt(float(v)))
                         for j, v in zip(idx, val, strict=True))

    def objective(self) -> str:
        g = self.g
        nz = [j for j in range(g.num_vars) if g.obj[j] != 0][:2]
        self.new_list()
        terms = ", ".join(self.pair(g.var_names[j], _fmt(float(g.obj[j]))) for j in nz)
        extra = ""
        if g.qobj[0].size:
            extra += f", plus {g.qobj[0].size} products of two variables (a quadratic term)"
        if g.obj_constant:
            extra += f", plus the constant {_fmt(g.obj_constant)}"
        rates = [self.sm.param_map[c.name].description for m in expand(self.sm.objective.expr)
                 for c in m.coefs if isinstance(c, Param)]
        rate = join(list(dict.fromkeys(rates))[:2]) if rates else "given rates"
        text = self.say("objective", terms=(terms or "no linear terms") + extra, rate=rate)
        first = next((c.name for m in expand(self.sm.objective.expr) for c in m.coefs
                      if isinstance(c, Param)), None)
        spread = self.spread(first) if first else None
        return text + (" " + spread if spread else "")

    def units(self) -> str | None:
        pairs = []
        for m in expand(self.sm.objective.expr):
            ps = [self.sm.param_map[c.name] for c in m.coefs if isinstance(c, Param)]
            vs = [self.sm.var_map[v.name] for v in m.vars if isinstance(v, Var)]
            if len(ps) == 1 and len(vs) == 1 and ps[0].unit and vs[0].unit:
                p, v = ps[0], vs[0]
                what = plain(self.sm, v.description, v.dims)
                pair = self.rng.choice((
                    f"{p.name} ({unit(p.unit)}) times {what} ({v.unit})",
                    f"{unit(p.unit)} for {p.name}, times {v.unit} of {v.name}",
                    f"{p.name} in {unit(p.unit)} against {v.name} in {v.unit}",
                    f"{unit(p.unit)} by {v.unit}")) if v.unit != "0/1" else \
                    self.rng.choice((f"{p.name} ({unit(p.unit)}) counts once {v.name} is 1",
                                     f"{unit(p.unit)} charged when {v.name} = 1"))
                if pair not in pairs:
                    pairs.append(pair)
        if not pairs:
            return None
        unit_of = re.search(r"\bin (\S+)$", self.sm.objective.description)
        tail = self.rng.choice((", all in {m}", ", so the total is in {m}",
                                "; each term comes out in {m}", " ({m} throughout)",
                                ", which adds up in {m}")).format(m=unit_of.group(1)) \
            if unit_of else ""
        return self.say("units", pairs="; ".join(pairs), tail=tail)

    def edges(self) -> list[str]:
        out = []
        totals: dict[str, tuple[str, float]] = {}
        for c in self.sm.constraints:
            rows = self.rows_of.get(c.name, [])
            if c.role in ("demand", "capacity") and len(rows) > 1:
                side = self.g.row_lower if c.sense == ">=" else self.g.row_upper
                vals = [float(side[k]) for k in rows]
                if all(math.isfinite(x) for x in vals):
                    totals[c.name] = (c.role, sum(vals))
        dem = [(n, t) for n, (r, t) in totals.items() if r == "demand"]
        cap = [(n, t) for n, (r, t) in totals.items() if r == "capacity"]
        if dem and cap:
            (dn, dt), (cn, ct) = dem[0], cap[0]
            verdict = "so a plan meeting every requirement can exist" if ct >= dt else \
                "so the limits are tight and the rows must be read together"
            out.append(self.say("edge", dn=dn, dt=_fmt(dt), cn=cn, ct=_fmt(ct),
                                verdict=verdict))
        ints = [self.code(v.name) for v in self.sm.variables if v.vtype in ("I", "B")]
        if ints:
            out.append(self.say("mip", ints=join(ints), be="is" if len(ints) == 1 else "are"))
        else:
            out.append(self.say("lp", vars=join([self.code(v.name)
                                                for v in self.sm.variables])))
        return out


def reasoning(sm: SemanticModel, account: Mapping[str, str] | None = None, seed: int = 0,
              names: Mapping[str, str] | None = None, cautions: Sequence[str] = ()) -> str:
    """The modelling reasoning for ``sm`` (its statement's ``account`` quoted where it has the
    sentence; ``names``: the program's names for the families; ``cautions``: checks a repair
    taught, said last)."""
    from ortrex.render.account import devices

    w = _Writer(sm, account or {}, seed, names or {})
    hidden = devices(sm)
    parts = [w.goal()]
    parts += [w.decision(v) for v in sm.variables]
    parts += [w.constraint(c, hidden) for c in sm.constraints]
    parts.append(w.objective())
    u = w.units()
    parts.append(" ".join(([u] if u else []) + w.edges()))
    if cautions:
        parts.append(w.say("cautions") + " ".join(cautions))
    return "\n\n".join(p for p in parts if p)
