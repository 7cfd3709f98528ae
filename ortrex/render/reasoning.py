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

Every claim is computed from the model, never phrased by habit: the problem class from the
canonical model's structure (integrality, quadratic terms), the relaxation's bound from the
objective's sense, a continuous decision's justification from what its rows make of it (MTZ
positions, a min-max epigraph variable, a slack, an indicator its rows force whole, a totally
unimodular matrix with whole data, a divisible amount), a link's coefficient from the switch it
multiplies. The program's names are set as code, never as words. ``reasoning_claims`` returns
the claims with the text; ``ortrex.verifiers.checks.claims`` re-derives each from the model.
"""

from __future__ import annotations

import ast
import math
import random
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.expr import Cond, Param, Var, as_expr, expand
from ortrex.ir.roles import INDICATORS, MODELLERS
from ortrex.ir.semantic import ConstraintFamily, SemanticModel, VariableFamily
from ortrex.render.data import readable as _fmt
from ortrex.render.data import row_text
from ortrex.render.language import article, capital, count, is_plural, join, plural, unit
from ortrex.render.reasoning_phrases import PHRASES
from ortrex.render.telling import entity, plain

SHOW = 3  # data values shown per list
_PART = re.compile(r"\{@(\w+)\}")


class Claim(NamedTuple):
    """A fact the reasoning states (``kind``: sense, class, relaxation, domain, justify,
    switch), about ``subject`` (a family's name, or "" for the model), with its value."""

    kind: str
    subject: str
    value: str


def problem_class(g: CanonicalModel) -> str:
    """LP, MILP, QP, MIQP, QCP or MIQCP, from the canonical model's own structure."""
    mi = "MI" if g.is_mip else ""
    if g.has_quadratic_rows:
        return f"{mi}QCP"
    if g.has_quadratic_objective:
        return f"{mi}QP"
    return "MILP" if g.is_mip else "LP"


def _integral(values: np.ndarray) -> bool:
    finite = values[np.isfinite(values)]
    return bool(np.all(np.abs(finite - np.round(finite)) <= 1e-9))


def totally_unimodular(g: CanonicalModel, fam_of_row: Sequence[str]) -> bool:
    """Whether the rows are a network or bipartite matrix, grouped by family (every entry 0 or
    +-1, at most two per column, and some split of the families into two groups puts a
    column's like signs apart and its unlike signs together: Heller and Tompkins), which makes
    the matrix totally unimodular."""
    A = g.A.tocsc()
    if A.nnz and not np.all(np.isin(A.data, (-1.0, 1.0))):
        return False
    fams = sorted(set(fam_of_row))
    if len(fams) > 12:
        return False
    pos = {f: k for k, f in enumerate(fams)}
    cols = []
    for j in range(g.num_vars):
        rows = A.indices[A.indptr[j]:A.indptr[j + 1]]
        vals = A.data[A.indptr[j]:A.indptr[j + 1]]
        if len(rows) > 2:
            return False
        if len(rows) == 2:
            cols.append((pos[fam_of_row[rows[0]]], pos[fam_of_row[rows[1]]],
                         bool(vals[0] == vals[1])))
    for mask in range(1 << len(fams)):
        side = [(mask >> k) & 1 for k in range(len(fams))]
        if all((side[a] != side[b]) if same else (side[a] == side[b]) for a, b, same in cols):
            return True
    return False

def _sentence_keys(text: str) -> set[str]:
    """The sentences of ``text`` as a reader compares them: names set as code are alike,
    case and punctuation aside (sentences under four words may recur)."""
    out = set()
    for s in re.split(r"(?<=[.!?])\s+", re.sub(r"`[^`]*`", "\u00a7", text)):
        key = re.sub(r"[\W_]+", " ", s).strip().lower()
        if len(key.split()) >= 4:
            out.add(key)
    return out


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


def _abbreviation(u: str) -> bool:
    """A unit written as a symbol (``kg``, ``Gbit/s``, ``kW of cooling``), not a noun."""
    first = u.split(" ", 1)[0]
    return "/" in u or any(ch.isdigit() or ch.isupper() for ch in first) or len(first) <= 3


_HEAD_END = re.compile(r"\b(?:of|for|in|at|on|per|between|from|to|with|by)\b")


def plural_desc(desc: str) -> bool:
    """Whether a description's head is plural (``tonnes available at each mine``), so that its
    verb agrees: the words before its first preposition hold a plural."""
    return any(is_plural(w.rsplit("-", 1)[-1])
               for w in _HEAD_END.split(desc, maxsplit=1)[0].split())


def counted(u: str) -> str:
    """A unit as what amounts are counted in: a symbol or a plural as it is (``kg``,
    ``containers a week``), a singular noun in its plural (``shares of demand``)."""
    return u if _abbreviation(u) or plural_desc(u) else plural(u)


def amounts(u: str) -> str:
    """What a quantity in unit ``u`` is counted in, as a plural noun: ``tonnes``, ``shares of
    demand``; a symbol is ``amounts in kg`` (never ``kgs``)."""
    return f"amounts in {u}" if _abbreviation(u) else counted(u)


def bare(desc: str) -> str:
    """A description without its own article, to follow ``the`` (``a time horizon longer
    than any schedule`` -> ``time horizon longer than any schedule``)."""
    return re.sub(r"^(?:a|an|the) ", "", desc)


def pair_words(labels: Sequence[str]) -> str:
    """An index tuple as a reader names it: ``Barley``, ``JOVI and FLUX``, ``FLUX with itself``
    (never two names side by side)."""
    if len(labels) == 2 and labels[0] == labels[1]:
        return f"{labels[0]} with itself"
    return join(list(labels))


class _Words:
    """A derivation of a parameter from the data (a Python expression over the model's sets
    and parameters) said as a modeller says it; ``None`` for a shape it cannot word."""

    def __init__(self, sm: SemanticModel) -> None:
        self.sm = sm
        self.loop: dict[str, str] = {}  # comprehension variable -> its set

    def ent(self, s: str) -> str:
        return entity(self.sm, s)

    def __call__(self, expr: str) -> str | None:
        try:
            node = ast.parse(expr, mode="eval").body
        except SyntaxError:
            return None
        sets: list[str] = []
        while isinstance(node, ast.ListComp) and len(node.generators) == 1:
            g = node.generators[0]
            s = self.range_of(g.iter)
            if s is None or g.ifs or not isinstance(g.target, ast.Name):
                return None
            self.loop[g.target.id] = s
            sets.append(s)
            node = node.elt
        body = self.words(node)
        if body is None:
            return None
        return body + (f", for each {join([self.ent(s) for s in sets])}" if sets else "")

    def range_of(self, node: ast.expr) -> str | None:
        """The set ``S`` of ``range(len(S))``."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "range" and len(node.args) == 1:
            return self.size_of(node.args[0])
        return None

    def size_of(self, node: ast.expr) -> str | None:
        """The set ``S`` of ``len(S)``."""
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and \
                node.func.id == "len" and len(node.args) == 1 and \
                isinstance(node.args[0], ast.Name) and node.args[0].id in self.sm.set_map:
            return node.args[0].id
        return None

    def param(self, node: ast.expr) -> str | None:
        """A parameter, whole or at the current elements (``demand[p]``), as code."""
        while isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Name) and \
                node.slice.id in self.loop:
            node = node.value
        if isinstance(node, ast.Name) and node.id in self.sm.param_map:
            return f"`{node.id}`"
        return None

    def words(self, node: ast.expr) -> str | None:
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return _fmt(float(node.value))
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub):
            inner = self.words(node.operand)
            return None if inner is None else \
                (f"-{inner}" if isinstance(node.operand, ast.Constant) else f"minus {inner}")
        if isinstance(node, ast.BinOp):
            a, b = self.words(node.left), self.words(node.right)
            op = {ast.Add: "plus", ast.Sub: "minus", ast.Mult: "times",
                  ast.Div: "divided by"}.get(type(node.op))
            return None if a is None or b is None or op is None else f"{a} {op} {b}"
        if isinstance(node, ast.IfExp):
            cases = []
            while isinstance(node, ast.IfExp):
                value, cond = self.words(node.body), self.cond(node.test)
                if value is None or cond is None:
                    return None
                cases.append(f"{value} where {cond}")
                node = node.orelse
            rest = self.words(node)
            return None if rest is None else join([*cases, f"{rest} elsewhere"])
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
            s = self.size_of(node)
            if s is not None:
                return f"the number of {plural(self.ent(s))}"
            if node.func.id in ("max", "min", "sum") and len(node.args) == 1:
                arg = node.args[0]
                # sum(sum(row) for row in proc): every entry of a table added up
                if isinstance(arg, ast.GeneratorExp) and len(arg.generators) == 1 and \
                        isinstance(arg.elt, ast.Call) and isinstance(arg.elt.func, ast.Name) \
                        and arg.elt.func.id == node.func.id and len(arg.elt.args) == 1 and \
                        isinstance(arg.elt.args[0], ast.Name) and \
                        isinstance(arg.generators[0].target, ast.Name) and \
                        arg.elt.args[0].id == arg.generators[0].target.id and \
                        not arg.generators[0].ifs:
                    arg = arg.generators[0].iter
                return self.aggregate(node.func.id, arg)
            return None
        return self.param(node)

    def aggregate(self, fn: str, arg: ast.expr) -> str | None:
        """``max(release)``: the largest `release`; ``sum(demand[p][t:])``: the total of
        `demand` from that quarter on."""
        tail = ""
        if isinstance(arg, ast.Subscript) and isinstance(arg.slice, ast.Slice) and \
                arg.slice.upper is None and arg.slice.step is None and \
                isinstance(arg.slice.lower, ast.Name) and arg.slice.lower.id in self.loop:
            tail = f" from that {self.ent(self.loop[arg.slice.lower.id])} to the last"
            arg = arg.value
        name = self.param(arg)
        if name is None:
            return None
        head = {"max": "the largest", "min": "the smallest", "sum": "the total of"}[fn]
        return f"{head} {name}{tail}"

    def cond(self, node: ast.expr) -> str | None:
        """``n == origin[k]``: the router is its `origin`; ``n == 0``: the first router."""
        if not (isinstance(node, ast.Compare) and len(node.ops) == 1 and
                isinstance(node.ops[0], ast.Eq) and isinstance(node.left, ast.Name) and
                node.left.id in self.loop):
            return None
        s = self.loop[node.left.id]
        right = node.comparators[0]
        if isinstance(right, ast.Constant) and right.value == 0:
            return f"the {self.ent(s)} is the first"
        if isinstance(right, ast.BinOp) and isinstance(right.op, ast.Sub) and \
                self.size_of(right.left) == s and isinstance(right.right, ast.Constant) and \
                right.right.value == 1:
            return f"the {self.ent(s)} is the last"
        name = self.param(right)
        return None if name is None else f"the {self.ent(s)} is its {name}"


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
        self.said: set[str] = set()
        self.used: set[tuple[str, str]] = set()
        self.tu_said = False
        self.derived_said: set[str] = set()
        self.claims: list[Claim] = []
        self.fam_of_row = [n.split("[", 1)[0] for n in self.g.row_names]
        self.cls = problem_class(self.g)
        g = self.g
        # Whole data over a totally unimodular matrix: the LP's vertex optima are whole.
        self.tu = self.cls == "LP" and all(_integral(a) for a in (
            g.row_lower, g.row_upper, g.lb, g.ub)) and totally_unimodular(g, self.fam_of_row)
        self.csc = g.A.tocsc()
        self.new_list()

    def pair(self, label: str, value: str) -> str:
        """An (element, value) entry in one of several shapes (drawn per list); a bracketed
        pair of elements never follows a preposition or sits in brackets."""
        shape = self._pair
        if label[-1:].isdigit() and shape == "{e} {v}":
            shape = "{e}: {v}"  # "Pipe1 19" reads as one number
        return shape.format(e=label, v=value)

    def new_list(self) -> None:
        """Draw the entry shape of the next list."""
        self._pair = self.rng.choice(("{e} {v}", "{v} for {e}", "{e}: {v}", "{e} at {v}",
                                      "{v} ({e})", "{e} with {v}"))
        # Never "etc.": a list ends a sentence, and "etc.." is a glitch.
        self._more = self.rng.choice((" and so on", " and more", " and the rest",
                                      ", and so forth"))
        self._rel = self.rng.choice((("<=", ">=", "="), ("\u2264", "\u2265", "="),
                                     ("at most", "at least", "equal to")))

    def say(self, key: str, **kw: Any) -> str:
        """One phrasing of sentence ``key``, filled from ``kw`` over the section's context
        (``{V}`` is ``{v}`` capitalised, and so on)."""
        options = list(PHRASES[key])
        self.rng.shuffle(options)
        # A phrasing used once in this text comes last: a rule met again is told anew.
        options.sort(key=lambda t: (key, t) in self.used)
        text = ""
        for template in options:
            text = self.parts(template).format_map(_Ctx({**self.ctx, **kw}))
            # A sentence opening with a name from the program keeps the name's case.
            text = text if template.startswith(("{c}", "{v}", "{r}")) else capital(text)
            keys = _sentence_keys(text)
            # A reader meets each sentence once: names aside, a phrasing said is not repeated.
            if not keys & self.said:
                self.said |= keys
                self.used.add((key, template))
                return text
        return text

    def parts(self, template: str) -> str:
        """``template`` with each ``{@part}`` replaced by one wording of that part (a sentence
        built of parts drawn apart: more shapes than a list of whole sentences)."""
        return _PART.sub(lambda m: self.parts(self.rng.choice(PHRASES["@" + m.group(1)])),
                         template)

    def about_var(self, v: VariableFamily) -> None:
        """The context of a variable family's sentences."""
        ent = entity(self.sm, v.dims[0][1]) if v.dims else "decision"
        u = v.unit if v.unit and v.unit != "0/1" else "units"
        # A noun for a unit is counted in its plural: "in shares of the budget".
        u = counted(u)
        self.ctx.update(v=self.code(v.name), ent=ent, ents=plural(ent), a_ent=article(ent),
                        unit=u, units=u, amounts=amounts(u))

    def about_con(self, c: ConstraintFamily) -> None:
        """The context of a constraint family's sentences (an assignment's entity is what it
        ranges over, never the last decision's)."""
        self.ctx.update(c=self.code(c.name))
        if c.forall and c.role == "assignment":
            ent = entity(self.sm, c.forall[0][1])
            self.ctx.update(ent=ent, ents=plural(ent), a_ent=article(ent))

    def code(self, fam: str) -> str:
        """The program's name for a family, set as code (never a word of the prose)."""
        own = self.names.get(fam)
        return f"`{own if own and own != '(unnamed)' else fam}`"

    def claim(self, kind: str, subject: str, value: str) -> None:
        """Record a fact the text states (the checker re-derives each from the model)."""
        self.claims.append(Claim(kind, subject, value))

    # ------------------------------------------------------------------ facts
    def _col_rows(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        c = self.csc
        return c.indices[c.indptr[j]:c.indptr[j + 1]], c.data[c.indptr[j]:c.indptr[j + 1]]

    def _pushes_up(self, k: int, coef: float) -> bool:
        """Row ``k`` bounds the variable of coefficient ``coef`` from below only."""
        lo, hi = self.g.row_lower[k], self.g.row_upper[k]
        return (coef < 0 and math.isinf(lo) and math.isfinite(hi)) or \
            (coef > 0 and math.isinf(hi) and math.isfinite(lo))

    def role_fact(self, v: VariableFamily) -> str:
        """Why a continuous family may stay continuous, read from the model's structure:
        ``order`` (MTZ positions), ``epigraph`` (a min-max bound), ``slack``, ``forced``
        (an indicator its rows and its cost make 0 or 1), ``network`` (a yes/no quantity over
        a totally unimodular matrix), ``share`` or ``divisible``."""
        g, cols = self.g, self.cols_of.get(v.name, [])
        sense = 1.0 if self.sm.objective.sense == "min" else -1.0
        binary = g.var_types == "B"
        if not cols:
            return "divisible"
        obj = g.obj[cols]
        rows = [self._col_rows(j) for j in cols]
        # MTZ: no cost, and every row holds two positions (+1 and -1) beside a yes/no arc.
        if v.role == "position" and not obj.any():
            mine = set(cols)
            ok = True
            for r in {int(k) for rr, _ in rows for k in rr}:
                idx, val = self._row(r)
                own = sorted(float(x) for j, x in zip(idx, val, strict=True) if int(j) in mine)
                ok &= own == [-1.0, 1.0] and any(binary[int(j)] for j in idx)
            if ok:
                return "order"
        # Min-max: the objective is this one variable, and each row holds it on the far side.
        if len(cols) == 1 and set(np.flatnonzero(g.obj)) == {cols[0]} and \
                sense * g.obj[cols[0]] > 0 and len(rows[0][0]) and \
                all(self._pushes_up(int(k), sense * float(c)) for k, c in zip(*rows[0],
                                                                              strict=True)):
            return "epigraph"
        # A slack: one row each, which it loosens (the row holds it up), every unit charged.
        if v.role == "auxiliary" and all(len(rr) == 1 for rr, _ in rows) and \
                np.all(g.lb[cols] == 0) and np.all(sense * obj > 0) and \
                all(self._pushes_up(int(rr[0]), float(cc[0])) for rr, cc in rows):
            return "slack"
        yes_no = v.role in INDICATORS or v.description.startswith("1 if ")
        if yes_no and self.tu:
            return "network"
        # Charged, at most 1, and held up only by rows of whole coefficients on binaries.
        if yes_no and np.all(g.lb[cols] == 0) and np.all(g.ub[cols] == 1) and \
                np.all(sense * obj > 0) and all(len(rr) for rr, _ in rows):
            forced = True
            for rr, cc in rows:
                for k, c in zip(rr, cc, strict=True):
                    k = int(k)
                    idx, val = self._row(k)
                    others = [(int(j), float(x)) for j, x in zip(idx, val, strict=True)
                              if int(j) not in cols]
                    forced &= abs(abs(float(c)) - 1) < 1e-12 and self._pushes_up(k, float(c)) \
                        and all(binary[j] and x == round(x) for j, x in others) and \
                        _integral(np.array([g.row_lower[k], g.row_upper[k]]))
            if forced:
                return "forced"
        if v.role == "assignment" and np.all(g.ub[cols] <= 1):
            return "share"
        return "network" if yes_no and self.tu else ("yes_no" if yes_no else "divisible")

    # ------------------------------------------------------------------ pieces
    def entries(self, p: str) -> list[tuple[tuple[str, ...], float]]:
        """A parameter's (elements, value) entries; on a square matrix over one set whose
        diagonal is all zero (a distance from a place to itself) the diagonal is no fact of
        the problem and is left out (a variance diagonal is kept)."""
        par = self.sm.param_map[p]
        flat = np.asarray(par.values, dtype=float).reshape(-1)
        grids = [self.sm.set_map[s].elements for s in par.index]
        out = list(zip(_product(grids), (float(v) for v in flat), strict=False))
        if len(par.index) == 2 and par.index[0] == par.index[1]:
            diagonal = [v for t, v in out if t[0] == t[1]]
            if diagonal and not any(diagonal):
                out = [(t, v) for t, v in out if t[0] != t[1]]
        return out

    def values(self, p: str, limit: int = SHOW) -> str:
        """A parameter's values by element: ``Reformate 270, Alkylate 27 and so on``."""
        par = self.sm.param_map[p]
        arr = np.asarray(par.values, dtype=float)
        if arr.ndim == 0:
            return _fmt(float(arr))
        entries = self.entries(p)
        self.new_list()
        shown = [self.pair("/".join(t), _fmt(v)) for t, v in entries[:limit]]
        return ", ".join(shown) + (self._more if len(entries) > limit else "")

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
            par = self.sm.param_map.get(c.param or "")
            what = par.description if par else "linked element"
            b = entity(self.sm, sets[c.b]) if c.b in sets else "element"
            return f"only where the {what} is the {b}"
        b = entity(self.sm, sets[c.b]) if c.b in sets else c.b
        # Index letters are the formulation's, not the prose's: the elements are named.
        if a == b:
            words = {"ne": f"for two different {plural(a)}", "eq": f"for the same {a} twice",
                     "lt": f"only where the first {a} comes before the second",
                     "le": f"only where the first {a} does not come after the second",
                     "gt": f"only where the first {a} comes after the second",
                     "ge": f"only where the first {a} does not come before the second"}
            return words.get(c.op, f"only where the two {plural(a)} are related")
        words = {"ne": "differs from", "eq": "equals", "lt": "comes before",
                 "le": "does not come after", "gt": "comes after", "ge": "does not come before"}
        return f"only where the {a} {words.get(c.op, 'is related to')} the {b}"

    def scope(self, c: ConstraintFamily) -> str:
        """The elements a rule holds for, its conditions folded in: ``for the first router
        only``, ``for each canned good and every month but the first``, ``for each pair of
        different holes, neither of them the first``."""
        parts, told = [], set()
        index = list(c.forall)
        for s in dict.fromkeys(x for _, x in index):
            letters = [i for i, x in index if x == s]
            ent = entity(self.sm, s)
            mine = [w for w in c.where if w.a in letters and (w.b is None or w.b in letters)
                    and w.op != "link"]
            told |= {id(w) for w in mine}
            unary = [{w.op for w in mine if w.a == i and w.b is None} for i in letters]
            if len(letters) == 1:
                parts.append(self._one_scope(ent, unary[0]))
                continue
            rel = next((w.op for w in mine if w.b is not None), None)
            base = f"each pair of different {plural(ent)}" if rel == "ne" else \
                f"each pair of {plural(ent)}"
            order = {"lt": "the first comes before the second",
                     "le": "the first does not come after the second",
                     "gt": "the first comes after the second",
                     "ge": "the first does not come before the second",
                     "eq": "both are the same"}.get(rel or "")
            if order:
                base += f" where {order}"
            for end in ("first", "last"):
                if all(f"not_{end}" in u for u in unary):
                    base += f", neither of them the {end}"
            parts.append(base)
        # Links and conditions across sets, in the words of the decisions' conditions.
        rest = [self.cond_words(w, dict(index)) for w in c.where if id(w) not in told]
        return "for " + join(parts) + (" " + join(list(dict.fromkeys(rest))) if rest else "")

    @staticmethod
    def _one_scope(ent: str, unary: set[str]) -> str:
        """The elements of one set a rule holds for: ``every month but the first``."""
        if "first" in unary:
            return f"the first {ent} only"
        if "last" in unary:
            return f"the last {ent} only"
        but = [x for x in ("first", "last") if f"not_{x}" in unary]
        if but:
            return f"every {ent} but the " + " and the ".join(but)
        return f"each {ent}"

    def row_text(self, k: int, limit: int = 2) -> str:
        """Row ``k`` of the grounded model written out with its numbers."""
        A = self.g.A
        idx = A.indices[A.indptr[k]:A.indptr[k + 1]]
        val = A.data[A.indptr[k]:A.indptr[k + 1]]
        # Each term's variable is the program's name: code, never a word of the prose.
        names = self.g.var_names
        terms = [(f"`{names[int(j)]}`", float(v)) for j, v in zip(idx, val, strict=True)]
        # A quadratic row's products count as terms too (``0.02 `w_a`·`w_b```): without them
        # a risk limit would read as a bare "at most 0.02".
        rr, ri, rj, rv = self.g.qrows
        for q in np.flatnonzero(np.asarray(rr) == k):
            a, b = names[int(ri[q])], names[int(rj[q])]
            terms.append((f"`{a}`\u00b2" if a == b else f"`{a}`\u00b7`{b}`", float(rv[q])))
        return row_text(terms[:limit], float(self.g.row_lower[k]), float(self.g.row_upper[k]),
                        " + \u2026" if len(terms) > limit else "", self._rel)

    # ------------------------------------------------------------------ sections
    def goal(self) -> str:
        o = self.sm.objective
        self.claim("sense", "", o.sense)
        head = self.say("goal", verb="minimise" if o.sense == "min" else "maximise",
                        sense="minimisation" if o.sense == "min" else "maximisation",
                        extreme="as low as possible" if o.sense == "min" else
                        "as high as possible")
        said = self.account.get("objective")
        return head + (" " + self.say("goal_said", q=_quote(said)) if said else "")

    def what(self, v: VariableFamily) -> str:
        """What a decision family is, as a noun phrase or a ``whether`` clause; over a pair of
        one set, ``from one hole to another`` (never ``from each hole to each hole``)."""
        what = plain(self.sm, v.description, v.dims)
        sets = [s for _, s in v.dims]
        for s in dict.fromkeys(sets):
            ent = entity(self.sm, s)
            if sets.count(s) == 2 and what.count(f"each {ent}") == 2:
                first = what.index(f"each {ent}")
                second = what.index(f"each {ent}", first + 1)
                what = (what[:first] + f"one {ent}" + what[first + len(f"each {ent}"):second]
                        + "another" + what[second + len(f"each {ent}"):])
        if v.description.startswith("1 if "):
            return "whether " + what
        # A noun phrase takes its article: "the share of each district served".
        return what if re.match(r"(?:the|a|an|one|each|how|which|what)\b",
                                what) else "the " + what

    def decision(self, v: VariableFamily) -> str:
        sm = self.sm
        what = self.what(v)
        n = len(self.cols_of.get(v.name, ()))
        self.about_var(v)
        if v.role in MODELLERS:
            out = [self.say("device", what=what)]
        elif v.dims:
            key = "decide_yn" if v.description.startswith("1 if ") else "decide"
            kind = {"B": "binary", "I": "integer"}.get(v.vtype, "continuous")
            out = [self.say(key, what=what, over=self.members(v.dims), n=n, kind=kind)]
        else:
            out = [self.say("decide_one", what=what)]
        if v.where:
            sets = dict(v.dims)
            conds = join(list(dict.fromkeys(self.cond_words(c, sets) for c in v.where)))
            grid = math.prod(len(sm.set_map[s]) for _, s in v.dims)
            out.append(self.say("exists", conds=conds, n=n, grid=grid))
        tail = [self.domain(v), *self.bounds(v)]
        if self.rng.random() < 0.3:
            tail.reverse()
        return " ".join(out + tail)

    def domain(self, v: VariableFamily) -> str:
        """Its domain, justified by what the model makes of it (its role read from the rows)."""
        said = self.account.get(v.name)
        because = f" The statement says {_quote(said)}" if said else ""
        if v.vtype == "B":
            self.claim("domain", v.name, "B")
            return self.say("binary") + because
        if v.vtype == "I":
            self.claim("domain", v.name, "I")
            return self.say("integer") + because
        self.claim("domain", v.name, "C")
        fact = self.role_fact(v)
        self.claim("justify", v.name, fact)
        if fact == "divisible" and self.tu and not self.tu_said:
            # Also true, said once: whole data keep the optimum whole.
            self.tu_said = True
            self.claim("justify", v.name, "network")
            return self.say("continuous") + " " + self.say("tu_too")
        return self.say({"order": "order", "epigraph": "epigraph", "slack": "slack",
                         "forced": "forced", "network": "network", "share": "share",
                         "yes_no": "relaxed"}.get(fact, "continuous"))

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
                    text = self.say("ub_param", desc=bare(par.description),
                                    vals=self.values(p.name))
                else:
                    text = f"Its lower bound is the {bare(par.description)}: {self.values(p.name)}."
                if p.name in self.derived:
                    text = text[:-1] + f", derived from the data as {self.derivation(p.name)}."
                out.append(text)
        return out

    def constraint(self, c: ConstraintFamily, hidden: set[str]) -> str:
        rows = self.rows_of.get(c.name, [])
        said = self.account.get(c.name)
        meaning = re.sub(r"^Otherwise,? ", "In the other case, ", c.meaning)
        for i, _ in c.forall:  # an index letter in the rule's meaning is code, not a word
            if len(i) == 1 and i not in ("a", "A", "I"):
                meaning = re.sub(rf"(?<![\w'\u2019`-]){i}(?![\w'\u2019`-])", f"`{i}`", meaning)
        meaning = capital(meaning)
        self.about_con(c)
        out = [self.say("rule", meaning=meaning, bare=meaning.rstrip(". "))]
        if said:
            quote = self.say("rule_said", q=_quote(said))
            out.insert(0 if self.rng.random() < 0.35 else 1, quote)
        elif c.name in hidden or c.role in ("definition", "subtour", "symmetry"):
            why = {"subtour": "a single tour", "symmetry": "a smaller search"}.get(
                c.role, "consistency")
            out.append(self.say("device_rule", why=why))
        if c.forall and rows:
            fams = [s for _, s in c.forall]
            each = join([f"pair of {plural(entity(self.sm, s))}" if fams.count(s) > 1
                         else entity(self.sm, s) for s in dict.fromkeys(fams)])
            # A rule kept to some elements says which, never "for every X only the first".
            out.append(self.say("rows_some" if c.where else "rows", each=each,
                                scope=self.scope(c), n=len(rows), N=capital(count(len(rows))),
                                rows="row" if len(rows) == 1 else "rows",
                                are="is" if len(rows) == 1 else "are",
                                r=f"`{self.g.row_names[rows[0]]}`",
                                text=self.row_text(rows[0])))
        elif rows:
            out.append(self.say("example", r=f"`{self.g.row_names[rows[0]]}`",
                                text=self.row_text(rows[0])))
        # A role's sentence where its usual sense holds (a demand met exactly is an equation).
        usual = {"capacity": "<=", "demand": ">=", "covering": ">=", "packing": "<=",
                 "budget": "<="}
        # A link's switch is told from its coefficient (below), not by a stock sentence.
        if c.role in PHRASES and c.role not in ("balance", "ratio", "linking") and \
                usual.get(c.role, c.sense) == c.sense:
            out.insert(self.rng.randint(1, len(out)), self.say(c.role))
        out += self.explain(c, rows)
        return " ".join(out)

    def spread(self, p: str) -> str | None:
        """Where a parameter's values lie, with the elements at both ends, each in brackets
        (``15 (for A)``: a name never runs into the next word) and a pair named as a pair."""
        par = self.sm.param_map[p]
        entries = self.entries(p)
        arr = np.array([v for _, v in entries])
        if arr.size < 2 or np.ptp(arr) == 0:
            return None
        lo, hi = int(np.argmin(arr)), int(np.argmax(arr))
        mould = self.rng.choice(("({e})", "(for {e})"))
        many = plural_desc(par.description)
        return self.say("spread", desc=bare(par.description), lo=_fmt(arr[lo]), hi=_fmt(arr[hi]),
                        elo=mould.format(e=pair_words(entries[lo][0])),
                        ehi=mould.format(e=pair_words(entries[hi][0])),
                        is_="are" if many else "is", ranges="range" if many else "ranges",
                        lies="lie" if many else "lies", goes="go" if many else "goes",
                        spans="span" if many else "spans")

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
        switch = self.switch(c, rows) if c.role == "linking" else None
        derived = [p for p in sorted(params) if p in self.derived]
        for p in derived:
            par = self.sm.param_map[p]
            # "1 at the start, -1 at the end" tells values, it is no noun to name them by.
            noun = "" if par.description[:1].isalpha() else "_bare"
            if p in self.derived_said:  # derived once already: refer back to it
                out.append(self.say("derived_again" + noun, p=f"`{p}`",
                                    desc=bare(par.description), vals=self.values(p)))
                continue
            self.derived_said.add(p)
            # A big-M is the derived coefficient of the switch, nothing else.
            key = "big_m" if switch and switch[1] == p else "derived" + noun
            out.append(self.say(key, p=f"`{p}`", desc=bare(par.description),
                                how=self.derivation(p), vals=self.values(p)))
        if switch:
            y, p, coef = switch
            vals = self.values(p) if p else _fmt(coef)
            what = f"the {self.sm.param_map[p].description}" if p else "a constant"
            self.claim("switch", c.name, y)
            key = "switch_off" if rows and self._cuts_off(rows[0], y) else "switch_floor"
            out.append(self.say(key, y=self.code(y), what=what, vals=vals))
        if c.role == "balance":
            out.append(self.say("balance"))
        return out

    def derivation(self, p: str) -> str:
        """How a parameter follows from the data, in words (the program's names as code); a
        short formula of the program's is quoted beside them, a comprehension never is."""
        expr = self.derived[p]
        words = _Words(self.sm)(expr)
        short = len(expr) <= 40 and " for " not in expr and " if " not in expr
        if words is None:  # a shape not worded: what it is computed from, named as code
            try:
                read = [n.id for n in ast.walk(ast.parse(expr, mode="eval"))
                        if isinstance(n, ast.Name)]
            except SyntaxError:
                read = []
            pars = [f"`{n}`" for n in dict.fromkeys(read) if n in self.sm.param_map]
            sets = [plural(entity(self.sm, n)) for n in dict.fromkeys(read)
                    if n in self.sm.set_map]
            over = f"a formula over {join(pars)}" if pars else \
                f"a formula over the {join(sets)}" if sets else "a formula of the data"
            return f"{over} (`{expr}`)" if short else over
        return f"{words} (`{expr}`)" if short else words

    def switch(self, c: ConstraintFamily, rows: list[int]) -> tuple[str, str | None, float] | None:
        """The yes/no variable a linking row switches on (a selection or an on/off state, else
        the binary on the other side of the row), the parameter that is its coefficient
        (``None``: a plain number) and that number in the first row."""
        if not rows:
            return None
        found = []
        for m in expand(c.lhs):
            ys = [x.name for x in m.vars if isinstance(x, Var)
                  and self.sm.var_map[x.name].vtype == "B"]
            if len(ys) != 1 or len(m.vars) != 1:
                continue
            ps = [x.name for x in m.coefs if isinstance(x, Param)]
            cols = set(self.cols_of.get(ys[0], []))
            coef = next((float(x) for j, x in zip(*self._row(rows[0]), strict=True)
                         if int(j) in cols), None)
            if coef is not None:
                switch = self.sm.var_map[ys[0]].role in ("selection", "indicator")
                found.append((not switch, coef > 0, ys[0], ps[0] if len(ps) == 1 else None,
                              abs(coef)))
        if not found:
            return None
        _, _, y, p, coef = min(found, key=lambda t: (t[0], t[1]))
        return y, p, coef

    def _row(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        A = self.g.A
        return A.indices[A.indptr[k]:A.indptr[k + 1]], A.data[A.indptr[k]:A.indptr[k + 1]]

    def _cuts_off(self, k: int, y: str) -> bool:
        """Row ``k`` forces its other terms to 0 when ``y`` is 0 (they are nonnegative and
        held at or below the switch's share)."""
        cols = set(self.cols_of.get(y, []))
        lo, hi = self.g.row_lower[k], self.g.row_upper[k]
        others = [(int(j), float(x)) for j, x in zip(*self._row(k), strict=True)
                  if int(j) not in cols]
        return math.isinf(lo) and hi == 0 and all(x > 0 and self.g.lb[j] >= 0
                                                 for j, x in others)

    def _coefs(self, k: int) -> str:
        A = self.g.A
        idx = A.indices[A.indptr[k]:A.indptr[k + 1]][:SHOW]
        val = A.data[A.indptr[k]:A.indptr[k + 1]][:SHOW]
        self.new_list()
        return ", ".join(self.pair(f"`{self.g.var_names[int(j)]}`", _fmt(float(v)))
                         for j, v in zip(idx, val, strict=True))

    def objective(self) -> str:
        g = self.g
        nz = [j for j in range(g.num_vars) if g.obj[j] != 0][:2]
        self.new_list()
        terms = ", ".join(self.pair(f"`{g.var_names[j]}`", _fmt(float(g.obj[j]))) for j in nz)
        extra = ""
        if g.qobj[0].size:
            extra += f", plus {g.qobj[0].size} products of two variables (a quadratic term)"
        if g.obj_constant:
            extra += f", plus the constant {_fmt(g.obj_constant)}"
        rates = [bare(self.sm.param_map[c.name].description)
                 for m in expand(self.sm.objective.expr)
                 for c in m.coefs if isinstance(c, Param)]
        # "the A and the B": each rate keeps its article.
        rates = list(dict.fromkeys(rates))[:2]
        rate = join(rates[:1] + [f"the {r}" for r in rates[1:]]) if rates else "given rates"
        if terms or not g.qobj[0].size:
            text = self.say("objective", terms=(terms or "no linear terms") + extra, rate=rate)
        else:  # a goal of products alone has no first coefficients to show
            const = f", plus the constant {_fmt(g.obj_constant)}" if g.obj_constant else ""
            text = self.say("objective_q", nq=g.qobj[0].size, rate=rate, extra=const)
        first = next((c.name for m in expand(self.sm.objective.expr) for c in m.coefs
                      if isinstance(c, Param)), None)
        spread = self.spread(first) if first else None
        text += " " + spread if spread else ""
        # A weight derived from the data (a scenario's share, a priority's scale) is said with
        # its derivation, as a row's derived coefficient is.
        for p in dict.fromkeys(c.name for m in expand(self.sm.objective.expr) for c in m.coefs
                               if isinstance(c, Param) and c.name in self.derived):
            par = self.sm.param_map[p]
            noun = "" if par.description[:1].isalpha() else "_bare"
            again = p in self.derived_said
            self.derived_said.add(p)
            text += " " + self.say(("derived_again" if again else "derived") + noun,
                                   p=f"`{p}`", desc=bare(par.description),
                                   how=self.derivation(p), vals=self.values(p))
        return text

    def units(self) -> str | None:
        pairs = []
        for m in expand(self.sm.objective.expr):
            ps = [self.sm.param_map[c.name] for c in m.coefs if isinstance(c, Param)]
            vs = [self.sm.var_map[v.name] for v in m.vars if isinstance(v, Var)]
            if len(ps) == 1 and len(vs) == 1 and ps[0].unit and vs[0].unit:
                p, v = ps[0], vs[0]
                what = self.what(v)
                vn, desc, pu = self.code(v.name), bare(p.description), unit(p.unit)
                # A yes/no decision's term is its rate once it is 1, whatever its unit says.
                if v.unit != "0/1" and not v.description.startswith("1 if "):
                    pair = self.rng.choice((
                        f"the {desc} ({pu}) times {what} ({v.unit})",
                        f"{pu} for the {desc}, times {v.unit} of {vn}",
                        f"the {desc} in {pu} against {vn} in {v.unit}",
                        f"{pu} by {v.unit}", f"{pu} times {v.unit} of {vn}",
                        f"{pu} multiplied by {vn} in {v.unit}"))
                else:
                    pair = self.rng.choice((
                        f"the {desc} ({pu}) counts once {vn} is 1",
                        f"{pu} charged when {vn} = 1", f"{pu} whenever {vn} takes the value 1",
                        f"the {desc} in {pu}, counted when {vn} is 1"))
                if pair not in pairs:
                    pairs.append(pair)
        if not pairs:
            return None
        unit_of = re.search(r"\bin (\S+)$", self.sm.objective.description)
        tails = [", all in {m}", ", so the total is in {m}", "; each term comes out in {m}",
                 ", which adds up in {m}", "; the sum is in {m}", ", giving {m} overall"]
        if not pairs[-1].endswith(")"):  # never two brackets in a row: "(agents) (EUR ...)"
            tails.append(" ({m} throughout)")
        tail = self.rng.choice(tails).format(m=unit_of.group(1)) if unit_of else ""
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
            out.append(self.say("edge", dn=self.code(dn), dt=_fmt(dt), cn=self.code(cn),
                                ct=_fmt(ct), verdict=verdict))
        out += self.model_class()
        return out

    def model_class(self) -> list[str]:
        """The problem class read from the canonical model, and for a mixed-integer model the
        bound its relaxation gives, in the direction of the objective."""
        g, cls = self.g, self.cls
        ints = [self.code(v.name) for v in self.sm.variables if v.vtype in ("I", "B")]
        allv = join([self.code(v.name) for v in self.sm.variables])
        be = "is" if len(ints) == 1 else "are"
        self.claim("class", "", cls)
        out = []
        if cls == "LP":
            out.append(self.say("lp", vars=allv))
        elif cls == "QP":
            out.append(self.say("qp", vars=allv, nq=g.qobj[0].size))
        elif cls in ("QCP", "MIQCP"):
            out.append(self.say("qcp", vars=allv, nq=g.qrows[0].size))
        else:
            kind = "mip" if cls == "MILP" else "miqp"
            out.append(self.say(kind, ints=join(ints), be=be))
        if g.is_mip:
            bound = "lower" if self.sm.objective.sense == "min" else "upper"
            self.claim("relaxation", "", bound)
            relaxed = {"MILP": "LP", "MIQP": "QP"}.get(cls, "QCP")
            out.append(self.say("relax_" + bound, ints=join(ints), be=be, relaxed=relaxed))
        return out


def reasoning(sm: SemanticModel, account: Mapping[str, str] | None = None, seed: int = 0,
              names: Mapping[str, str] | None = None, cautions: Sequence[str] = ()) -> str:
    """The modelling reasoning for ``sm`` (its statement's ``account`` quoted where it has the
    sentence; ``names``: the program's names for the families; ``cautions``: checks a repair
    taught, said last)."""
    return reasoning_claims(sm, account, seed, names, cautions)[0]


def reasoning_claims(sm: SemanticModel, account: Mapping[str, str] | None = None,
                     seed: int = 0, names: Mapping[str, str] | None = None,
                     cautions: Sequence[str] = ()) -> tuple[str, tuple[Claim, ...]]:
    """The reasoning of :func:`reasoning` and the claims it makes, each from a fact computed
    on the model."""
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
    return "\n\n".join(p for p in parts if p), tuple(w.claims)
