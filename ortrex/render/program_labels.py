"""gurobipy programs in the label-keyed style: sets are lists of names, data are dictionaries
keyed by names, variables come from ``addVars`` over the sets, sums use ``x.sum(...)``,
``x.prod(...)`` or ``gp.quicksum`` over names, and flow balance reads as the business rule
(``quicksum(x[a] for a in lanes if tail[a] == n)``).

The style covers models whose indices never shift (``t - 1``) and whose data a modeller does not
derive; :func:`labels_style_fits` says whether a model qualifies (the loop style of
``ortrex.render.program`` covers every model).
"""

from __future__ import annotations

import math
import re

from ortrex.ir.expr import Add, Cond, Const, Expr, Idx, Mul, Neg, Param, Sum, Var, as_expr
from ortrex.ir.semantic import Parameter, SemanticModel
from ortrex.render.data import data_json, link_params, number, python_name
from ortrex.render.language import plural
from ortrex.render.program import Program, identifiers, solve_and_report

_RESERVED = {"gp", "GRB", "json", "model", "data", "keyed", "v", "f", "name"}
_SENSE = {"<=": "<=", ">=": ">=", "=": "=="}


def labels_style_fits(sm: SemanticModel) -> bool:
    """Whether the label-keyed style can write this model."""
    if sm.derived_params:
        return False
    shifted = False

    def walk(e: Expr | float) -> None:
        nonlocal shifted
        if isinstance(e, (Var, Param)) and any(i.offset for i in e.idx):
            shifted = True
        elif isinstance(e, Expr):
            for c in e.children():
                walk(c)

    for c in sm.constraints:
        walk(c.lhs)
        walk(c.rhs)
    walk(sm.objective.expr)
    for v in sm.variables:
        for b in (v.lb, v.ub):
            if isinstance(b, Expr) and not _simple_bound(b, v):
                return False
    return not shifted


def _simple_bound(b: Expr, v: object) -> bool:
    """A bound ``addVars`` takes as it is: a constant, a scalar parameter, or a parameter
    indexed exactly by the variable's dimensions."""
    if isinstance(b, Const):
        return True
    if isinstance(b, Param):
        dims = [i for i, _ in getattr(v, "dims", ())]
        return not b.idx or [i.name for i in b.idx] == dims
    return False


class _Writer:
    def __init__(self, sm: SemanticModel) -> None:
        self.sm = sm
        sets = sm.set_map

        def words(n: str) -> str:  # a set is named for what it holds: "warehouses"
            return python_name(plural(sets[n].entity or n).lower().replace(" ", "_")
                               .replace("-", "_").replace("&", "and"))

        ids = identifiers(sm, _RESERVED, words)
        self.set_names = {s.name: ids[f"set:{s.name}"] for s in sm.sets}
        self.params = {p.name: ids[f"param:{p.name}"] for p in sm.params}
        self.vars = {v.name: ids[f"var:{v.name}"] for v in sm.variables}
        self.links = link_params(sm)
        self.arcs = _arc_set(sm)
        if self.arcs is not None:  # the pair names must not clash with the model's indices
            used = _index_names(sm)
            free = [n for n in ("i", "j", "u", "w", "p", "q") if n not in used]
            self.pair = (free[0], free[1])

    # ------------------------------------------------------------------ arcs
    def arc_bound(self, name: str, sets: dict[str, str]) -> bool:
        """Whether index ``name`` ranges over the arcs (written as a node pair)."""
        return self.arcs is not None and sets.get(name) == self.arcs

    def loop(self, index: str, over: str) -> str:
        if self.arcs is not None and over == self.arcs:
            return f"for {self.pair[0]}, {self.pair[1]} in arcs"
        return f"for {index} in {self.set_names[over]}"

    # ------------------------------------------------------------------ expressions
    def cond(self, c: Cond, sets: dict[str, str]) -> str:
        if c.op in ("ne", "eq"):
            return f"{c.a} {'!=' if c.op == 'ne' else '=='} {c.b}"
        if c.op in ("lt", "le", "gt", "ge"):
            s = self.set_names[sets[c.a]]
            op = {"lt": "<", "le": "<=", "gt": ">", "ge": ">="}[c.op]
            return f"{s}.index({c.a}) {op} {s}.index({c.b})"
        if c.op == "link":
            if self.arc_bound(c.a, sets):  # an arc's tail or head is one end of its pair
                end = self.pair[0] if c.param == "tail" else self.pair[1]
                return f"{end} == {c.b}"
            return f"{self.params[c.param]}[{c.a}] == {c.b}"  # type: ignore[index]
        s = self.set_names[sets[c.a]]
        return {"first": f"{c.a} == {s}[0]", "not_first": f"{c.a} != {s}[0]",
                "last": f"{c.a} == {s}[-1]", "not_last": f"{c.a} != {s}[-1]"}[c.op]

    def key(self, idx: tuple[Idx, ...], sets: dict[str, str]) -> str:
        return ", ".join(", ".join(self.pair) if self.arc_bound(i.name, sets) else i.name
                         for i in idx)

    def expr(self, e: Expr, sets: dict[str, str]) -> str:
        if isinstance(e, Const):
            return number(e.value)
        if isinstance(e, Param):
            name = self.params[e.name]
            return f"{name}[{self.key(e.idx, sets)}]" if e.idx else name
        if isinstance(e, Var):
            fam = self.sm.var_map[e.name]
            name = self.vars[e.name]
            if not e.idx:
                return name
            key = self.key(e.idx, sets)
            if fam.where:  # only the combinations that exist
                return f"{name}.get({key}, 0)" if len(e.idx) == 1 else \
                    f"{name}.get(({key}), 0)"
            return f"{name}[{key}]"
        if isinstance(e, Neg):
            return f"-{self._paren(e.arg, sets)}"
        if isinstance(e, Add):
            out = self.expr(e.terms[0], sets)
            for t in e.terms[1:]:
                out += f" - {self._paren(t.arg, sets)}" if isinstance(t, Neg) else \
                    f" + {self.expr(t, sets)}"
            return out
        if isinstance(e, Mul):
            return " * ".join(self._paren(f, sets) for f in e.factors)
        if isinstance(e, Sum):
            short = self._short_sum(e, sets)
            if short:
                return short
            loops, conds, body, inner = [], [], e, dict(sets)
            while isinstance(body, Sum):  # nested sums: one comprehension
                inner[body.index] = body.over
                loops.append(self.loop(body.index, body.over))
                conds += [self.cond(c, inner) for c in body.where]
                body = body.body
            tail = f" if {' and '.join(conds)}" if conds else ""
            return f"gp.quicksum({self.expr(body, inner)} {' '.join(loops)}{tail})"
        raise TypeError(f"cannot write {type(e).__name__} as code")

    def _short_sum(self, e: Sum, sets: dict[str, str]) -> str | None:
        """``x.sum(s, "*")``, ``x.sum(n, "*")`` over arcs leaving node ``n``, and
        ``x.prod(cost)``: gurobipy's own sums where they fit."""
        indices, body = [], e
        ends: dict[str, dict[str, str]] = {}  # arc index -> {"tail" / "head": node index}
        overs: dict[str, str] = {}
        while isinstance(body, Sum):
            overs[body.index] = body.over
            for c in body.where:
                if not (c.op == "link" and c.a == body.index and self.arcs is not None and
                        body.over == self.arcs and c.param in ("tail", "head")):
                    return None
                ends.setdefault(body.index, {})[str(c.param)] = str(c.b)
            indices.append(body.index)
            body = body.body
        if isinstance(body, Var):
            fam = self.sm.var_map[body.name]
            names = [i.name for i in body.idx]
            if fam.where or any(i.offset for i in body.idx) or \
                    sorted(set(indices) & set(names)) != sorted(indices) or \
                    len(set(names)) != len(names):
                return None
            args = []
            for n in names:
                if n in indices and self.arcs is not None and overs[n] == self.arcs:
                    args += [ends.get(n, {}).get("tail", '"*"'),
                             ends.get(n, {}).get("head", '"*"')]
                elif n in indices:
                    args.append('"*"')
                else:
                    args.append(", ".join(self.pair) if self.arc_bound(n, sets) else n)
            return f"{self.vars[body.name]}.sum({', '.join(args)})"
        if ends:
            return None
        if isinstance(body, Mul) and len(body.factors) == 2 and \
                isinstance(body.factors[0], Param) and isinstance(body.factors[1], Var):
            p, v = body.factors
            fam = self.sm.var_map[v.name]
            names = [i.name for i in v.idx]
            if not fam.where and names == [i.name for i in p.idx] and \
                    sorted(names) == sorted(indices) and not any(i.offset for i in v.idx):
                return f"{self.vars[v.name]}.prod({self.params[p.name]})"
        return None

    def _paren(self, e: Expr, sets: dict[str, str]) -> str:
        text = self.expr(e, sets)
        return f"({text})" if isinstance(e, (Add, Neg)) else text

    # ------------------------------------------------------------------ data
    def data(self, mode: str) -> list[str]:
        sm = self.sm
        out: list[str] = []
        arcs = self.arcs
        on_arcs = [p for p in sm.params if arcs is not None and p.index == (arcs,)
                   and p.name not in ("tail", "head")]
        skip = {"tail", "head", *(p.name for p in on_arcs)} if arcs is not None else set()
        if mode == "json":
            out += ['with open("data.json", encoding="utf-8") as f:', "    data = json.load(f)",
                    "", "", "def keyed(values, depth):",
                    '    """Nested name-keyed data as one dictionary keyed by name tuples."""',
                    "    if depth == 1:", "        return dict(values)",
                    "    return {(k, *rest) if isinstance(rest, tuple) else (k, rest): v",
                    "            for k, inner in values.items()",
                    "            for rest, v in keyed(inner, depth - 1).items()}", "", ""]
            for s in sm.sets:
                out.append(f'{self.set_names[s.name]} = data["sets"]["{s.name}"]')
            if arcs is not None:  # each arc as the pair of nodes it joins
                lanes = self.set_names[arcs]
                out += ['tail, head = data["parameters"]["tail"], data["parameters"]["head"]',
                        f"arcs = gp.tuplelist((tail[a], head[a]) for a in {lanes})"]
                out += [f"{self.params[p.name]} = {{(tail[a], head[a]): v for a, v in "
                        f'data["parameters"]["{p.name}"].items()}}  # {p.description}'
                        for p in on_arcs]
            for p in sm.params:
                if p.name in skip:
                    continue
                src = f'data["parameters"]["{p.name}"]'
                value = src if len(p.index) <= 1 else f"keyed({src}, {len(p.index)})"
                if len(p.index) == 1:
                    value = f"dict({src})"
                out.append(f"{self.params[p.name]} = {value}  # {p.description}")
            return out
        js = data_json(sm)
        for s in sm.sets:
            if s.name != arcs:  # arcs are written as node pairs below
                out.append(f"{self.set_names[s.name]} = {list(s.elements)!r}")
        if arcs is not None:
            out += self._multidict(on_arcs)
        for p in sm.params:
            if p.name in skip:
                continue
            out.append(f"# {p.description}" + (f" ({p.unit})" if p.unit else ""))
            out.append(f"{self.params[p.name]} = {_literal(js['parameters'][p.name], p)}")
        return out

    def _multidict(self, on_arcs: list[Parameter]) -> list[str]:
        """``arcs, capacity, cost = gp.multidict({(a, b): [cap, cost], ...})``."""
        sm = self.sm
        nodes = sm.set_map[sm.position_params()["tail"]].elements
        tail, head = (sm.param_map[n].values for n in ("tail", "head"))
        pairs = [(nodes[int(t)], nodes[int(h)]) for t, h in zip(tail, head, strict=True)]
        if not on_arcs:
            return [f"arcs = gp.tuplelist({pairs!r})"]
        out = ["# " + "; ".join(f"{self.params[p.name]}: {p.description}" for p in on_arcs)]
        rows = []
        for k, pair in enumerate(pairs):
            vals = ", ".join(number(float(p.values[k]), p.integer) for p in on_arcs)
            rows.append(f"    {pair!r}: [{vals}],")
        names = ", ".join(self.params[p.name] for p in on_arcs)
        return [*out, f"arcs, {names} = gp.multidict({{", *rows, "})"]


def _arc_set(sm: SemanticModel) -> str | None:
    """The set of arcs when the model names each arc's ends (``tail`` / ``head`` into one
    node set, every pair distinct) and the arcs appear only as whole indices: the arcs are then
    written as node pairs (``gp.tuplelist``, ``gp.multidict``) and flow balance as
    ``x.sum(n, "*")``."""
    links = sm.position_params()
    if "tail" not in links or links.get("head") != links["tail"]:
        return None
    tail, head = sm.param_map["tail"], sm.param_map["head"]
    if len(tail.index) != 1 or tail.index != head.index:
        return None
    arcs = tail.index[0]
    pairs = list(zip(tail.values.tolist(), head.values.tolist(), strict=True))
    if len(set(pairs)) != len(pairs) or any(a == b for a, b in pairs):
        return None
    for p in sm.params:  # data on arcs only by arc
        if arcs in p.index and p.index != (arcs,):
            return None
    for v in sm.variables:
        if v.where and any(s == arcs for _, s in v.dims):
            return None
    return arcs


def _index_names(sm: SemanticModel) -> set[str]:
    """Every index name the model binds."""
    out = {i for v in sm.variables for i, _ in v.dims}
    exprs: list[Expr] = [sm.objective.expr]
    for c in sm.constraints:
        out |= {i for i, _ in c.forall}
        exprs += [c.lhs, as_expr(c.rhs)]
    for e in exprs:
        out |= {x.index for x in e.walk() if isinstance(x, Sum)}
    return out


def _literal(nested: object, p: object) -> str:
    """Name-keyed data as a Python literal: a number, ``{name: v}`` or ``{(a, b): v}``."""
    depth = len(getattr(p, "index", ()))
    if depth == 0:
        return repr(nested) if not isinstance(nested, float) else number(nested)
    flat: list[tuple[tuple[str, ...], object]] = []

    def walk(v: object, key: tuple[str, ...]) -> None:
        if len(key) == depth:
            flat.append((key, v))
            return
        for k, inner in v.items():  # type: ignore[attr-defined]
            walk(inner, (*key, k))

    walk(nested, ())

    def val(v: object) -> str:
        return repr(v) if isinstance(v, str) else number(float(v))  # type: ignore[arg-type]

    items = [(repr(k[0]) if depth == 1 else "(" + ", ".join(map(repr, k)) + ")") + ": " + val(v)
             for k, v in flat]
    return "{" + ", ".join(items) + "}"


def labels_program(sm: SemanticModel, data_mode: str = "literal") -> Program:
    """The label-keyed gurobipy program of ``sm`` (check :func:`labels_style_fits` first)."""
    w = _Writer(sm)
    lines = [f'"""{sm.descriptors.get("title", sm.name)}: {sm.family} model in gurobipy '
             '(name-keyed data)."""', "", *(["import json", ""] if data_mode == "json" else []),
             "import gurobipy as gp", "from gurobipy import GRB", "", ""]
    lines += w.data(data_mode)
    lines += ["", f"model = gp.Model({sm.family!r})", "model.Params.OutputFlag = 0", ""]
    vtype = {"C": "GRB.CONTINUOUS", "I": "GRB.INTEGER", "B": "GRB.BINARY"}
    for v in sm.variables:
        name = w.vars[v.name]
        lines.append(f"# {v.description}" + (f" ({v.unit})" if v.unit else ""))
        args = []
        if v.vtype != "B":
            for key, b, default in (("lb", v.lb, 0.0), ("ub", v.ub, math.inf)):
                if isinstance(b, Expr):
                    args.append(f"{key}={w.expr(b, dict(v.dims))}" if not isinstance(b, Param)
                                or not b.idx else f"{key}={w.params[b.name]}")
                elif b != default:
                    args.append(f"{key}={'-GRB.INFINITY' if b == -math.inf else number(b)}")
        args += [f"vtype={vtype[v.vtype]}", f'name="{v.name}"']
        if not v.dims:
            lines.append(f"{name} = model.addVar({', '.join(args)})")
            continue
        if v.where:
            dims = dict(v.dims)
            loops = " ".join(f"for {i} in {w.set_names[s]}" for i, s in v.dims)
            conds = " and ".join(w.cond(c, dims) for c in v.where)
            keys = ", ".join(i for i, _ in v.dims)
            keys = f"({keys},)" if len(v.dims) == 1 else f"({keys})"
            lines.append(f"{name}_keys = gp.tuplelist({keys} {loops} if {conds})"
                         if len(v.dims) > 1 else
                         f"{name}_keys = [{v.dims[0][0]} {loops} if {conds}]")
            lines.append(f"{name} = model.addVars({name}_keys, {', '.join(args)})")
            continue
        grid = ", ".join("arcs" if s == w.arcs else w.set_names[s] for _, s in v.dims)
        lines.append(f"{name} = model.addVars({grid}, {', '.join(args)})")
    lines.append("")
    for c in sm.constraints:
        sets = dict(c.forall)
        body = f"{w.expr(c.lhs, sets)} {_SENSE[c.sense]} {w.expr(as_expr(c.rhs), sets)}"
        lines.append(f"# {c.meaning}")
        if not c.forall:
            lines.append(f"model.addConstr({body}, name={c.name!r})")
            continue
        loops = " ".join(w.loop(i, s) for i, s in c.forall)
        conds = " and ".join(w.cond(x, sets) for x in c.where)
        tail = f" if {conds}" if conds else ""
        lines.append(f"model.addConstrs(({body} {loops}{tail}), name={c.name!r})")
    lines += solve_and_report(sm, w.expr(sm.objective.expr, {}))
    code = "\n".join(lines)
    return Program("gurobipy", data_mode, re.sub(r"\n{3,}", "\n\n\n", code))
