"""Executable programs from a semantic model: gurobipy and highspy, data inline or from files.

A program states its data (literals, or read from ``data.json``), builds the model family by
family with the same index logic as grounding (positions within sets; a shifted index that
leaves its set, or a variable filtered out of its family, makes the term absent), solves, and
prints one parseable line: ``OPTIMAL_OBJECTIVE: <value>`` or ``STATUS: <status>``.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ortrex.ir.expr import Add, Cond, Const, Expr, Idx, Mul, Neg, Param, Sum, Var, as_expr, expand
from ortrex.ir.semantic import SemanticModel, VariableFamily
from ortrex.render.data import link_params, literal, python_name
from ortrex.render.language import plural

OBJECTIVE_TAG = "OPTIMAL_OBJECTIVE"
STATUS_TAG = "STATUS"
SOLVERS = ("gurobipy", "highspy")
DATA_MODES = ("literal", "json")
_OBJ_RE = re.compile(rf"^{OBJECTIVE_TAG}:\s*(\S+)\s*$", re.M)
_STATUS_RE = re.compile(rf"^{STATUS_TAG}:\s*(\S+)", re.M)


def parse_output(stdout: str) -> tuple[str, float | None]:
    """(status, objective) from a program's output: ``optimal`` with a value, or the status it
    printed, or ``no_output`` when neither line is there."""
    m = _OBJ_RE.findall(stdout)
    if m:
        try:
            return "optimal", float(m[-1])
        except ValueError:
            return "bad_output", None
    s = _STATUS_RE.findall(stdout)
    return (s[-1].lower(), None) if s else ("no_output", None)


@dataclass(frozen=True)
class Program:
    """Source code and how it expects its data."""

    solver: str
    data_mode: str
    code: str


def identifiers(sm: SemanticModel, reserved: Iterable[str],
                set_name: Callable[[str], str] | None = None) -> dict[str, str]:
    """A Python identifier per set, parameter and variable family (``"kind:name"`` keys),
    none clashing with another or with ``reserved``; ``set_name`` words a set's base name."""
    taken, out = set(reserved), {}
    for kind, items in (("set", [s.name for s in sm.sets]), ("param", [p.name for p in sm.params]),
                        ("var", [v.name for v in sm.variables])):
        for n in items:
            ident = set_name(n) if kind == "set" and set_name else python_name(n)
            while ident in taken:
                ident += "_"
            taken.add(ident)
            out[f"{kind}:{n}"] = ident
    return out


# Reading data.json: name-keyed nested data as nested lists in set order.
JSON_TABLE = ['with open("data.json", encoding="utf-8") as f:', "    data = json.load(f)", "",
              "", "def table(values, *sets):",
              '    """Name-keyed (nested) data as nested lists in set order."""',
              "    if not sets:", "        return values",
              "    return [table(values[e], *sets[1:]) for e in sets[0]]", "", ""]
_EVERY_DECISION = ["    for v in model.getVars():  # the decisions behind it",
                   "        if abs(v.X) > 1e-6:", '            print(f"{v.VarName} = {v.X:g}")']


def solve_and_report(sm: SemanticModel, objective: str,
                     decisions: list[str] | None = None) -> list[str]:
    """The lines that set the objective, solve, and print the optimum and the decisions (or
    the status): the same in every gurobipy style."""
    o = sm.objective
    return ["", f"# objective: {o.description}",
            f"model.setObjective({objective}, "
            f"{'GRB.MINIMIZE' if o.sense == 'min' else 'GRB.MAXIMIZE'})",
            "model.optimize()", "", "if model.Status == GRB.OPTIMAL:",
            f'    print(f"{OBJECTIVE_TAG}: {{model.ObjVal!r}}")',
            *(decisions if decisions is not None else _EVERY_DECISION),
            "else:", f'    print(f"{STATUS_TAG}: {{model.Status}}")', ""]


class _Names:
    """Python identifiers for sets, parameters and variables (never clashing with the code)."""

    RESERVED = frozenset({"gp", "GRB", "json", "model", "h", "highs", "highspy", "data", "math",
                          "quad", "table", "status", "value", "expr", "lin", "add_quad", "result"})

    def __init__(self, sm: SemanticModel) -> None:
        self.map = identifiers(sm, self.RESERVED)

    def set(self, n: str) -> str:
        return self.map[f"set:{n}"]

    def param(self, n: str) -> str:
        return self.map[f"param:{n}"]

    def var(self, n: str) -> str:
        return self.map[f"var:{n}"]


class _Emitter:
    """Python source for expressions; ``lib`` is the summation function (quicksum / qsum)."""

    def __init__(self, sm: SemanticModel, names: _Names, summation: str) -> None:
        self.sm, self.n, self.summation = sm, names, summation
        self.params = sm.param_map
        self.vars = sm.var_map
        self.index_set: dict[str, str] = {}

    def idx(self, i: Idx) -> str:
        return i.name if not i.offset else f"{i.name} {'+' if i.offset > 0 else '-'} " \
                                            f"{abs(i.offset)}"

    def inside(self, i: Idx, set_name: str) -> str | None:
        """A guard that a shifted index stays inside its set."""
        if not i.offset:
            return None
        s = self.n.set(set_name)
        return f"0 <= {self.idx(i)} < len({s})"

    def cond(self, c: Cond, sets: dict[str, str]) -> str:
        if c.op in ("ne", "eq", "lt", "le", "gt", "ge"):
            op = {"ne": "!=", "eq": "==", "lt": "<", "le": "<=", "gt": ">", "ge": ">="}[c.op]
            return f"{c.a} {op} {c.b}"
        if c.op == "link":
            return f"int({self.n.param(c.param)}[{c.a}]) == {c.b}"  # type: ignore[arg-type]
        s = self.n.set(sets[c.a])
        return {"first": f"{c.a} == 0", "not_first": f"{c.a} != 0",
                "last": f"{c.a} == len({s}) - 1", "not_last": f"{c.a} != len({s}) - 1"}[c.op]

    def expr(self, e: Expr, sets: dict[str, str]) -> str:
        if isinstance(e, Const):
            return literal(e.value)
        if isinstance(e, Param):
            name = self.n.param(e.name)
            if not e.idx:
                return name
            ref = name + "".join(f"[{self.idx(i)}]" for i in e.idx)
            guards = [g for i, s in zip(e.idx, self.params[e.name].index, strict=True)
                      if (g := self.inside(i, s))]
            return f"({ref} if {' and '.join(guards)} else 0)" if guards else ref
        if isinstance(e, Var):
            fam = self.vars[e.name]
            name = self.n.var(e.name)
            if not e.idx:
                return name
            key = ", ".join(self.idx(i) for i in e.idx)
            if fam.where or any(i.offset for i in e.idx):
                return f"{name}.get({key if len(e.idx) == 1 else '(' + key + ')'}, 0)"
            return f"{name}[{key}]"
        if isinstance(e, Neg):
            return f"-{self._paren(e.arg, sets)}"
        if isinstance(e, Add):
            out = self.expr(e.terms[0], sets)
            for t in e.terms[1:]:
                if isinstance(t, Neg):
                    out += f" - {self._paren(t.arg, sets)}"
                else:
                    out += f" + {self.expr(t, sets)}"
            return out
        if isinstance(e, Mul):
            return " * ".join(self._paren(f, sets) for f in e.factors)
        if isinstance(e, Sum):
            inner = {**sets, e.index: e.over}
            conds = " and ".join(self.cond(c, inner) for c in e.where)
            loop = f"for {e.index} in range(len({self.n.set(e.over)}))"
            tail = f" if {conds}" if conds else ""
            return f"{self.summation}({self.expr(e.body, inner)} {loop}{tail})"
        raise TypeError(f"cannot write {type(e).__name__} as code")

    def _paren(self, e: Expr, sets: dict[str, str]) -> str:
        text = self.expr(e, sets)
        return f"({text})" if isinstance(e, (Add, Neg)) else text


# ---------------------------------------------------------------- shared pieces
def _derived(sm: SemanticModel, names: _Names) -> list[str]:
    """Parameters a modeller computes from the others, computed (never typed in)."""
    out = []
    table = {s.name: names.set(s.name) for s in sm.sets} | \
        {p.name: names.param(p.name) for p in sm.params}
    for name, expression in sm.derived_params.items():
        code = re.sub(r"\b[A-Za-z_]\w*\b", lambda m: table.get(m.group(0), m.group(0)),
                      expression)
        p = sm.param_map[name]
        out.append(f"{names.param(name)} = {code}  # {p.description}")
    return out


def _data_block(sm: SemanticModel, names: _Names, mode: str) -> list[str]:
    out: list[str] = []
    links = link_params(sm)
    derived = sm.derived_params
    if mode == "json":
        out += JSON_TABLE
        for s in sm.sets:
            out.append(f'{names.set(s.name)} = data["sets"]["{s.name}"]'
                       f'  # {plural(s.entity or s.name)}')
        for p in sm.params:
            if p.name in derived:
                continue
            args = "".join(f", {names.set(i)}" for i in p.index)
            value = f'table(data["parameters"]["{p.name}"]{args})'
            if p.name in links:  # element labels -> positions in their set
                value = f"[{names.set(links[p.name])}.index(e) for e in {value}]"
            out.append(f"{names.param(p.name)} = {value}  # {p.description}")
        return out + _derived(sm, names)
    for s in sm.sets:
        out.append(f"{names.set(s.name)} = {list(s.elements)!r}  # {plural(s.entity or s.name)}")
    for p in sm.params:
        if p.name in derived:
            continue
        out.append(f"# {p.description}" + (f" ({p.unit})" if p.unit else ""))
        if p.name in links and len(p.index) == 1:  # written as labels, used as positions
            target = sm.set_map[links[p.name]]
            labels = [target.elements[int(v)] for v in p.values]
            out.append(f"{names.param(p.name)} = [{names.set(target.name)}.index(e) for e in "
                       f"{labels!r}]")
            continue
        out.append(f"{names.param(p.name)} = {literal(p.values, integer=p.integer)}")
    return out + _derived(sm, names)


def _loops(dims: tuple[tuple[str, str], ...], names: _Names) -> list[str]:
    return [f"for {i} in range(len({names.set(s)}))" for i, s in dims]


def _declare(v: VariableFamily, name: str, call: str, container: str, em: _Emitter,
             names: _Names) -> list[str]:
    """Lines creating a variable family: one call, or a container filled over its index grid
    (only where the family's conditions hold)."""
    if not v.dims:
        return [f"{name} = {call}"]
    out = [f"{name} = {container}"]
    indent = _nest(out, v.dims, [em.cond(c, dict(v.dims)) for c in v.where], names)
    out.append(f"{indent}{name}[{', '.join(i for i, _ in v.dims)}] = {call}")
    return out


def _nest(out: list[str], dims: tuple[tuple[str, str], ...], conds: list[str],
          names: _Names) -> str:
    """Append the loops over ``dims`` and an ``if`` of ``conds``; the body's indent."""
    indent = ""
    for loop in _loops(dims, names):
        out.append(f"{indent}{loop}:")
        indent += "    "
    if conds:
        out.append(f"{indent}if {' and '.join(conds)}:")
        indent += "    "
    return indent


def _bound(b: Expr | float, em: _Emitter, sets: dict[str, str], inf: str) -> str:
    if not isinstance(b, Expr):
        if math.isinf(b):
            return inf if b > 0 else f"-{inf}"
        return literal(b)
    return em.expr(b, sets)


def _bound_args(v: VariableFamily, em: _Emitter, sets: dict[str, str], inf: str) -> list[str]:
    """``lb=`` / ``ub=`` arguments, left out where they are the default (0 and infinity)."""
    out = []
    if isinstance(v.lb, Expr) or v.lb != 0:
        out.append(f"lb={_bound(v.lb, em, sets, inf)}")
    if isinstance(v.ub, Expr) or v.ub != math.inf:
        out.append(f"ub={_bound(v.ub, em, sets, inf)}")
    return out


def _var_name(v: VariableFamily, names: _Names) -> str:
    if not v.dims:
        return f'"{v.name}"'
    parts = ",".join("{" + f"{names.set(s)}[{i}]" + "}" for i, s in v.dims)
    return f'f"{v.name}[{parts}]"'


def _is_quadratic(e: Expr) -> bool:
    return any(len(m.vars) == 2 for m in expand(e))


# ---------------------------------------------------------------- gurobipy
def gurobipy_program(sm: SemanticModel, data_mode: str = "literal") -> Program:
    """A gurobipy program building ``sm``; the model object is named ``model``."""
    _check_mode(data_mode)
    names = _Names(sm)
    em = _Emitter(sm, names, "gp.quicksum")
    lines = [f'"""{sm.descriptors.get("title", sm.name)}: {sm.family} model in gurobipy."""',
             "", *(["import json", ""] if data_mode == "json" else []),
             "import gurobipy as gp", "from gurobipy import GRB", "", ""]
    lines += _data_block(sm, names, data_mode)
    # Solver tolerances are the verifier's business (its harness), not what the code teaches.
    lines += ["", f"model = gp.Model({sm.family!r})", "model.Params.OutputFlag = 0", ""]
    vtype = {"C": "GRB.CONTINUOUS", "I": "GRB.INTEGER", "B": "GRB.BINARY"}
    for v in sm.variables:
        name = names.var(v.name)
        sets = dict(v.dims)
        lines.append(f"# {v.description}" + (f" ({v.unit})" if v.unit else ""))
        args = [f"vtype={vtype[v.vtype]}", f"name={_var_name(v, names)}"]
        if v.vtype != "B":
            args = _bound_args(v, em, sets, "GRB.INFINITY") + args
        lines += _declare(v, name, f"model.addVar({', '.join(args)})", "gp.tupledict()", em,
                          names)
    lines.append("")
    for c in sm.constraints:
        sets = dict(c.forall)
        body = f"{em.expr(c.lhs, sets)} {_SENSE[c.sense]} {em.expr(as_expr(c.rhs), sets)}"
        lines.append(f"# {c.meaning}")
        if not c.forall:
            lines.append(f"model.addConstr({body}, name={c.name!r})")
            continue
        loops = " ".join(_loops(c.forall, names))
        conds = " and ".join(em.cond(w, sets) for w in c.where)
        tail = f" if {conds}" if conds else ""
        lines.append(f"model.addConstrs(({body} {loops}{tail}), name={c.name!r})")
    lines += solve_and_report(sm, em.expr(sm.objective.expr, {}))
    return Program("gurobipy", data_mode, "\n".join(lines))


_SENSE = {"<=": "<=", ">=": ">=", "=": "=="}


def _check_mode(mode: str) -> None:
    if mode not in DATA_MODES:
        raise ValueError(f"unknown data mode {mode!r}; expected one of {', '.join(DATA_MODES)}")


# ---------------------------------------------------------------- highspy
_HIGHS_QUAD_HELPER = [
    "def add_quad(quad, u, v, coef):",
    '    """Collect coef * u * v for the Hessian (HiGHS minimises c.x + x.Q.x / 2)."""',
    "    if isinstance(u, int) or isinstance(v, int):  # an absent variable: no term",
    "        return",
    "    i, j = max(u.index, v.index), min(u.index, v.index)",
    "    quad[i, j] = quad.get((i, j), 0.0) + (2.0 if i == j else 1.0) * coef",
    "",
    "",
    "def pass_hessian(h, quad, n):",
    '    """Q as a lower-triangular CSC matrix."""',
    "    cols = sorted(quad, key=lambda ij: (ij[1], ij[0]))",
    "    start, index, value = [0] * n, [], []",
    "    for col in range(n):",
    "        start[col] = len(index)",
    "        for i, j in cols:",
    "            if j == col:",
    "                index.append(i)",
    "                value.append(quad[i, j])",
    "    h.passHessian(n, len(index), highspy.HessianFormat.kTriangular, start, index, value)",
    "",
    "",
]


def highspy_program(sm: SemanticModel, data_mode: str = "literal") -> Program:
    """A highspy program building ``sm`` (a quadratic objective goes in as a Hessian)."""
    _check_mode(data_mode)
    if any(_is_quadratic(c.lhs) for c in sm.constraints):
        raise ValueError(f"{sm.family}: HiGHS does not take quadratic constraints")
    names = _Names(sm)
    em = _Emitter(sm, names, "highs.qsum")
    quadratic = _is_quadratic(sm.objective.expr)
    lines = [f'"""{sm.descriptors.get("title", sm.name)}: {sm.family} model in highspy."""',
             "", *(["import json", ""] if data_mode == "json" else []), "import highspy", "",
             ""]
    if quadratic:
        lines += _HIGHS_QUAD_HELPER
    lines += _data_block(sm, names, data_mode)
    lines += ["", "highs = highspy.Highs()", "highs.silent()", ""]
    vt = {"C": "highspy.HighsVarType.kContinuous", "I": "highspy.HighsVarType.kInteger",
          "B": "highspy.HighsVarType.kInteger"}
    for v in sm.variables:
        name = names.var(v.name)
        sets = dict(v.dims)
        bounds = ["lb=0", "ub=1"] if v.vtype == "B" else \
            _bound_args(v, em, sets, "highspy.kHighsInf")
        lines.append(f"# {v.description}" + (f" ({v.unit})" if v.unit else ""))
        args = ", ".join([*bounds, f"type={vt[v.vtype]}", f"name={_var_name(v, names)}"])
        lines += _declare(v, name, f"highs.addVariable({args})", "{}", em, names)
    lines.append("")
    for c in sm.constraints:
        sets = dict(c.forall)
        lhs = em.expr(c.lhs, sets)
        if not (lhs.startswith("highs.qsum(") and lhs.endswith(")") and isinstance(c.lhs, Sum)):
            lhs = f"highs.qsum([{lhs}])"  # an expression even when every term is absent
        body = f"{lhs} {_SENSE[c.sense]} {em.expr(as_expr(c.rhs), sets)}"
        lines.append(f"# {c.meaning}")
        if not c.forall:
            lines.append(f"highs.addConstr({body}, name={c.name!r})")
            continue
        indent = _nest(lines, c.forall, [em.cond(w, sets) for w in c.where], names)
        label = ",".join("{" + f"{names.set(s)}[{i}]" + "}" for i, s in c.forall)
        lines.append(f'{indent}highs.addConstr({body}, name=f"{c.name}[{label}]")')
    o = sm.objective
    sign = "" if o.sense == "min" else "-"
    lines += ["", f"# objective: {o.description}"]
    if quadratic:
        lin = _linear_part(o.expr)
        lines += ["quad = {}"]
        lines += _quad_loops(o.expr, em, sign)
        linear = f"highs.qsum([{sign}({em.expr(Add(tuple(lin)), {})})])" if lin else \
            "highs.qsum([])"
        lines += [f"highs.setObjective({linear}, highspy.ObjSense.kMinimize)",
                  "pass_hessian(highs, quad, highs.numVariables)", "highs.run()"]
    else:
        lines += [f"highs.setObjective(highs.qsum([{em.expr(o.expr, {})}]), "
                  f"highspy.ObjSense.{'kMinimize' if o.sense == 'min' else 'kMaximize'})",
                  "highs.run()"]
    value = "highs.getInfo().objective_function_value"
    if quadratic and o.sense == "max":
        value = f"-{value}"
    lines += ["", "status = highs.getModelStatus()",
              "if status == highspy.HighsModelStatus.kOptimal:",
              f'    print(f"{OBJECTIVE_TAG}: {{{value}!r}}")',
              "    names = highs.allVariableNames()  # the decisions behind it",
              "    for name, val in zip(names, highs.getSolution().col_value):",
              "        if abs(val) > 1e-6:",
              '            print(f"{name} = {val:g}")',
              "else:",
              f'    print(f"{STATUS_TAG}: {{highs.modelStatusToString(status)}}")', ""]
    return Program("highspy", data_mode, "\n".join(lines))


def _linear_part(e: Expr) -> list[Expr]:
    """The terms of ``e`` without two variables (kept as expression trees)."""
    out = []
    for m in expand(e):
        if len(m.vars) == 2:
            continue
        term: Expr = Mul((*m.coefs, *m.vars)) if len(m.coefs) + len(m.vars) > 1 else \
            (m.coefs[0] if m.coefs else m.vars[0])
        if m.sign < 0:
            term = Neg(term)
        for index, over, where in reversed(m.sums):
            term = Sum(index, over, term, where)
        out.append(term)
    return out


def _quad_loops(e: Expr, em: _Emitter, sign: str) -> list[str]:
    out = []
    for m in expand(e):
        if len(m.vars) != 2:
            continue
        sets = {i: s for i, s, _ in m.sums}
        indent = ""
        for index, over, where in m.sums:
            out.append(f"{indent}for {index} in range(len({em.n.set(over)})):")
            indent += "    "
            if where:
                out.append(f"{indent}if {' and '.join(em.cond(c, sets) for c in where)}:")
                indent += "    "
        coef = " * ".join([em.expr(c, sets) for c in m.coefs] or ["1"])
        neg = "-" if (m.sign < 0) != (sign == "-") else ""
        u, v = (em.expr(x, sets) for x in m.vars)
        out.append(f"{indent}add_quad(quad, {u}, {v}, {neg}{coef})")
    return out
