"""gurobipy programs in the matrix style: data as numpy arrays, each variable family one
``addMVar`` over its sets, rules as array expressions (``x.sum(axis=1) <= supply``,
``use @ x <= limit``, ``(cost * x).sum()``), one ``addConstr`` per rule.

The style covers models whose families range over whole grids (no filtered entries, no shifted
index, no arc ends held as names, nothing derived) and whose terms broadcast along their
indices; :func:`matrix_style_fits` says whether a model qualifies.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

from ortrex.ir.expr import Add, Const, Expr, Mul, Neg, Param, Sum, Var, as_expr
from ortrex.ir.semantic import SemanticModel
from ortrex.render.data import link_params, number
from ortrex.render.language import plural, unit
from ortrex.render.program import JSON_TABLE, Program, identifiers, solve_and_report

_RESERVED = {"gp", "GRB", "np", "json", "model", "data", "table", "name", "var", "sets", "idx",
             "f", "s", "k"}
_SENSE = {"<=": "<=", ">=": ">=", "=": "=="}


class NoFit(Exception):
    """The model has a term the matrix style cannot write."""


@dataclass(frozen=True)
class _Arr:
    """An array expression: its code, the index names of its axes, whether it holds
    variables."""

    code: str
    axes: tuple[str, ...]
    var: bool = False
    atom: bool = True  # a name or a number: needs no parentheses


class _Writer:
    def __init__(self, sm: SemanticModel) -> None:
        self.sm = sm
        self.names = identifiers(sm, _RESERVED)

    def name(self, kind: str, n: str) -> str:
        return self.names[f"{kind}:{n}"]

    # ------------------------------------------------------------------ expressions
    def arr(self, e: Expr) -> _Arr:
        if isinstance(e, Const):
            return _Arr(number(e.value), ())
        if isinstance(e, (Param, Var)):
            names = tuple(i.name for i in e.idx)
            if any(i.offset for i in e.idx) or len(set(names)) != len(names):
                raise NoFit("a shifted or repeated index")
            kind = "var" if isinstance(e, Var) else "param"
            return _Arr(self.name(kind, e.name), names, isinstance(e, Var))
        if isinstance(e, Neg):
            a = self.arr(e.arg)
            return _Arr(f"-{_paren(a)}", a.axes, a.var, False)
        if isinstance(e, Add):
            out = self.arr(e.terms[0])
            for t in e.terms[1:]:
                neg = isinstance(t, Neg)
                b = self.arr(t.arg if neg else t)
                out, b = self._align(out, b)
                axes = _broadcast(out.axes, b.axes)
                op = " - " if neg else " + "
                out = _Arr(f"{out.code}{op}{_paren(b) if neg else b.code}", axes,
                           out.var or b.var, False)
            return out
        if isinstance(e, Mul):
            out = self.arr(e.factors[0])
            for f in e.factors[1:]:
                b = self.arr(f)
                if out.var and b.var:
                    raise NoFit("a product of variables")
                left, right = self._align(out, b)
                out = _Arr(f"{_paren(left)} * {_paren(right)}",
                           _broadcast(left.axes, right.axes), out.var or b.var, False)
            return out
        if isinstance(e, Sum):
            indices, body = [], e
            while isinstance(body, Sum):  # nested sums: one reduction over their axes
                if body.where:
                    raise NoFit("a filtered sum")
                indices.append(body.index)
                body = body.body
            if len(indices) == 1 and isinstance(body, Mul) and len(body.factors) == 2:
                mat = self._matmul(indices[0], body)
                if mat is not None:
                    return mat
            a = self.arr(body)
            if not set(indices) <= set(a.axes):
                raise NoFit("a sum of a term without its index")
            rest = tuple(x for x in a.axes if x not in indices)
            axes = tuple(a.axes.index(i) for i in sorted(indices, key=a.axes.index))
            if not rest:
                code = f"{_paren(a)}.sum()"
            else:
                code = f"{_paren(a)}.sum(axis={axes[0] if len(axes) == 1 else axes})"
            return _Arr(code, rest, a.var, True)
        raise NoFit(f"a {type(e).__name__} term")

    def _align(self, a: _Arr, b: _Arr) -> tuple[_Arr, _Arr]:
        """Operands whose axes broadcast (a data array transposed or given a new axis)."""
        if not a.axes or not b.axes or a.axes == b.axes or _suffix(a.axes, b.axes) or \
                _suffix(b.axes, a.axes):
            return a, b
        for data, other, first in ((b, a, False), (a, b, True)):
            if not data.atom:
                continue
            if len(data.axes) == 2 and data.axes[::-1] == other.axes and not data.var:
                moved = _Arr(f"{data.code}.T", other.axes)
            elif len(data.axes) == 1 and len(other.axes) == 2 and data.axes[0] == other.axes[0]:
                moved = _Arr(f"{data.code}[:, None]", other.axes, data.var)
            else:
                continue
            return (moved, other) if first else (other, moved)
        raise NoFit(f"axes {a.axes} and {b.axes} do not broadcast")

    def _matmul(self, index: str, body: Mul) -> _Arr | None:
        """``sum_i use[r, i] * x[i]`` as ``use @ x``: a data array times a one-index family."""
        try:
            a, b = (self.arr(f) for f in body.factors)
        except NoFit:
            return None
        data, var = (a, b) if b.var else (b, a)
        if data.var or not var.var or var.axes != (index,) or not data.axes or \
                data.axes[-1] != index or not data.atom:
            return None
        return _Arr(f"{data.code} @ {var.code}", data.axes[:-1], True, False)

    # ------------------------------------------------------------------ parts
    def data(self, mode: str) -> list[str]:
        sm = self.sm
        out: list[str] = []
        if mode == "json":
            out += JSON_TABLE
            for s in sm.sets:
                out.append(f'{self.name("set", s.name)} = data["sets"]["{s.name}"]  '
                           f"# {plural(s.entity or s.name)}")
            for p in sm.params:
                sets = ", ".join(self.name("set", x) for x in p.index)
                src = f'data["parameters"]["{p.name}"]'
                value = f"np.array(table({src}, {sets}), dtype=float)" if p.index else src
                out.append(f"{self.name('param', p.name)} = {value}  # {p.description}")
            return out
        for s in sm.sets:
            out.append(f"{self.name('set', s.name)} = {list(s.elements)!r}  "
                       f"# {plural(s.entity or s.name)}")
        for p in sm.params:
            out.append(f"# {p.description}" + (f" ({unit(p.unit)})" if p.unit else ""))
            values = np.asarray(p.values, dtype=float)
            text = _nested(values) if p.index else number(float(values))
            out.append(f"{self.name('param', p.name)} = " +
                       (f"np.array({text})" if p.index else text))
        return out

    def bound(self, b: Expr | float, dims: tuple[str, ...], default: float) -> str | None:
        if isinstance(b, Const):
            b = b.value
        if isinstance(b, (int, float)):
            if b == default:
                return None
            return "-GRB.INFINITY" if b == -math.inf else \
                "GRB.INFINITY" if b == math.inf else number(float(b))
        a = self.arr(b)
        if a.var or (a.axes and a.axes != dims):
            raise NoFit("a bound that is not the family's own data")
        return a.code


def _tuple(items: list[str]) -> str:
    return f"({items[0]},)" if len(items) == 1 else f"({', '.join(items)})"


def _paren(a: _Arr) -> str:
    return a.code if a.atom else f"({a.code})"


def _suffix(short: tuple[str, ...], long: tuple[str, ...]) -> bool:
    return len(short) <= len(long) and long[len(long) - len(short):] == short


def _broadcast(a: tuple[str, ...], b: tuple[str, ...]) -> tuple[str, ...]:
    if not a or _suffix(a, b):
        return b
    if not b or _suffix(b, a):
        return a
    raise NoFit(f"axes {a} and {b} do not broadcast")


def _nested(values: np.ndarray) -> str:
    if values.ndim == 1:
        return "[" + ", ".join(number(float(v)) for v in values) + "]"
    return "[" + ", ".join(_nested(v) for v in values) + "]"


def _program(sm: SemanticModel, mode: str) -> str:
    if sm.derived_params or link_params(sm):
        raise NoFit("derived data or arc ends held as names")
    w = _Writer(sm)
    body: list[str] = ["", f"model = gp.Model({sm.family!r})", "model.Params.OutputFlag = 0",
                       ""]
    vtype = {"C": "GRB.CONTINUOUS", "I": "GRB.INTEGER", "B": "GRB.BINARY"}
    printed = []
    for v in sm.variables:
        if v.where:
            raise NoFit("a filtered variable family")
        name = w.name("var", v.name)
        dims = tuple(i for i, _ in v.dims)
        args = []
        if v.vtype != "B":
            for key, b, default in (("lb", v.lb, 0.0), ("ub", v.ub, math.inf)):
                text = w.bound(b, dims, default)
                if text is not None:
                    args.append(f"{key}={text}")
        args += [f"vtype={vtype[v.vtype]}", f'name="{v.name}"']
        body.append(f"# {v.description}" + (f" ({unit(v.unit)})" if v.unit else ""))
        if not v.dims:
            body.append(f"{name} = model.addVar({', '.join(args)})")
        else:
            shape = _tuple([f"len({w.name('set', s)})" for _, s in v.dims])
            body.append(f"{name} = model.addMVar({shape}, {', '.join(args)})")
        printed.append((v, name))
    body.append("")
    for c in sm.constraints:
        if c.where:
            raise NoFit("a filtered rule")
        forall = tuple(i for i, _ in c.forall)
        lhs, rhs = w.arr(c.lhs), w.arr(as_expr(c.rhs))
        # One row per combination of the rule's indices, in their order: no more, no fewer.
        if lhs.axes != forall or (rhs.axes and rhs.axes != forall):
            raise NoFit("a rule whose terms do not range over exactly its indices")
        body.append(f"# {c.meaning}")
        body.append(f"model.addConstr({lhs.code} {_SENSE[c.sense]} {rhs.code}, "
                    f"name={c.name!r})")
    obj = w.arr(sm.objective.expr)
    decisions = []
    families = [(v, n) for v, n in printed if v.dims]
    if families:
        rows = ", ".join(f'("{v.name}", {n}, {_tuple([w.name("set", s) for _, s in v.dims])})'
                         for v, n in families)
        decisions += [f"    for name, var, sets in ({rows},):  # the decisions behind it",
                      "        for idx in zip(*np.nonzero(np.abs(var.X) > 1e-6)):",
                      "            labels = \",\".join(s[k] for s, k in zip(sets, idx))",
                      '            print(f"{name}[{labels}] = {var.X[idx]:g}")']
    for v, n in printed:
        if not v.dims:
            decisions += [f"    if abs({n}.X) > 1e-6:",
                          f'        print(f"{v.name} = {{{n}.X:g}}")']
    body += solve_and_report(sm, obj.code if not obj.axes else f"{_paren(obj)}.sum()",
                             decisions)
    head = [f'"""{sm.descriptors.get("title", sm.name)}: {sm.family} model in gurobipy '
            '(matrix form)."""', "", *(["import json", ""] if mode == "json" else []),
            "import gurobipy as gp", "import numpy as np", "from gurobipy import GRB", "", ""]
    return re.sub(r"\n{3,}", "\n\n\n", "\n".join(head + w.data(mode) + body))


def matrix_style_fits(sm: SemanticModel) -> bool:
    """Whether the matrix style can write this model."""
    try:
        _program(sm, "literal")
    except NoFit:
        return False
    return True


def matrix_program(sm: SemanticModel, data_mode: str = "literal") -> Program:
    """The matrix-style gurobipy program of ``sm`` (check :func:`matrix_style_fits` first)."""
    if data_mode not in ("literal", "json"):
        raise ValueError(f"unknown data mode {data_mode!r}")
    return Program("gurobipy", data_mode, _program(sm, data_mode))
