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
from ortrex.render.reasoning_phrases import PHRASES
from ortrex.render.telling import entity, plain

SHOW = 3  # data values shown per list

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
