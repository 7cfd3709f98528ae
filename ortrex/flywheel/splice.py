"""Mechanical repairs spliced into an answer's own program, the values taken from the semantic
model: a variable family's type or constant bound, the objective's sense, a constraint
family's comparison. The family is found by the name the program gave it (the captured model's
names: ``addVars(..., name="x")``, ``addConstr(..., name="supply_limit")``); only the
arguments that carry the fix change, so the answer keeps its own style. Anything that cannot be
located exactly is left to the program written from the semantic model."""

from __future__ import annotations

import ast
import math
from dataclasses import dataclass

_VAR_CALLS = ("addVars", "addVar", "addMVar")
_CON_CALLS = ("addConstr", "addConstrs", "addLConstr", "addMConstr")
_VTYPE = {"C": "CONTINUOUS", "I": "INTEGER", "B": "BINARY"}
_OPS = {"<=": "<=", ">=": ">=", "=": "=="}


@dataclass(frozen=True)
class Fix:
    """One change: ``kind`` (vtype | bound | sense | compare), the program's name of the family
    it applies to, and the value from the semantic model."""

    kind: str
    name: str | None
    value: str | float
    side: str = ""  # lb | ub for bounds


class _NotFound(Exception):
    pass


def _grb(tree: ast.Module) -> str:
    """How the program reaches ``GRB``: ``GRB``, ``gp.GRB`` or ``gurobipy.GRB``."""
    alias = None
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module == "gurobipy" and \
                any(a.name == "GRB" and a.asname in (None, "GRB") for a in node.names):
            return "GRB"
        if isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "gurobipy":
                    alias = a.asname or "gurobipy"
    if alias is None:
        raise _NotFound("no gurobipy import")
    return f"{alias}.GRB"


def _call_name(node: ast.Call) -> str:
    f = node.func
    return f.attr if isinstance(f, ast.Attribute) else (f.id if isinstance(f, ast.Name) else "")


def _named(node: ast.Call, name: str) -> bool:
    """A call whose ``name=`` is ``name`` (or an f-string that starts with ``name[`` or
    ``name_``)."""
    for k in node.keywords:
        if k.arg != "name":
            continue
        v = k.value
        if isinstance(v, ast.Constant) and isinstance(v.value, str):
            return v.value == name or v.value.startswith((f"{name}[", f"{name}_"))
        if isinstance(v, ast.JoinedStr) and v.values and isinstance(v.values[0], ast.Constant):
            head = str(v.values[0].value)
            return head.startswith((f"{name}[", f"{name}_")) or head == name
    return False


class _Source:
    """A program's text with byte offsets for AST positions and collected splices."""

    def __init__(self, code: str) -> None:
        self.data = code.encode("utf-8")
        self.starts = [0]
        for k, b in enumerate(self.data):
            if b == 10:
                self.starts.append(k + 1)
        self.edits: list[tuple[int, int, str]] = []
        self.adds: dict[int, tuple[str, list[str]]] = {}  # offset -> (separator, keywords)

    def off(self, line: int, col: int) -> int:
        return self.starts[line - 1] + col

    def span(self, node: ast.AST) -> tuple[int, int]:
        return (self.off(node.lineno, node.col_offset),  # type: ignore[attr-defined]
                self.off(node.end_lineno, node.end_col_offset))  # type: ignore[attr-defined]

    def text(self, a: int, b: int) -> str:
        return self.data[a:b].decode("utf-8")

    def replace(self, node: ast.AST, new: str) -> None:
        a, b = self.span(node)
        self.edits.append((a, b, new))

    def keyword(self, call: ast.Call, arg: str, new: str) -> None:
        """Set ``arg=new`` on a call: its value replaced, or the keyword added at the end."""
        for k in call.keywords:
            if k.arg == arg:
                self.replace(k.value, new)
                return
        a, b = self.span(call)
        close = b - 1  # the call's closing parenthesis
        before = self.text(a, close).rstrip()
        sep = " " if before.endswith((",", "(")) else ", "
        self.adds.setdefault(close, (sep, []))[1].append(f"{arg}={new}")

    def result(self) -> str:
        for at, (sep, kws) in self.adds.items():
            self.edits.append((at, at, sep + ", ".join(kws)))
        self.adds = {}
        out = self.data
        for a, b, new in sorted(self.edits, key=lambda e: (-e[0], -e[1])):
            out = out[:a] + new.encode("utf-8") + out[b:]
        return out.decode("utf-8")


def _number(v: float, grb: str) -> str:
    if math.isinf(v):
        return f"{grb}.INFINITY" if v > 0 else f"-{grb}.INFINITY"
    return repr(float(v)) if v != int(v) else str(int(v))


def apply(code: str, fixes: list[Fix]) -> str | None:
    """``code`` with every fix spliced in, or None when one cannot be placed exactly (or the
    result does not compile)."""
    try:
        tree = ast.parse(code)
        grb = _grb(tree)
        src = _Source(code)
        calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call)]
        for fx in fixes:
            _one(fx, tree, calls, src, grb)
        out = src.result()
        compile(out, "main.py", "exec")
        return out
    except (_NotFound, SyntaxError, ValueError):
        return None


def _only(found: list[ast.Call], what: str) -> ast.Call:
    if len(found) != 1:
        raise _NotFound(f"{len(found)} places for {what}")
    return found[0]


def _one(fx: Fix, tree: ast.Module, calls: list[ast.Call], src: _Source, grb: str) -> None:
    if fx.kind == "sense":
        sets = [c for c in calls if _call_name(c) == "setObjective"]
        senses = [n for n in ast.walk(tree) if isinstance(n, ast.Assign) and any(
            isinstance(t, ast.Attribute) and t.attr == "ModelSense" for t in n.targets)]
        want = f"{grb}.{'MINIMIZE' if fx.value == 'min' else 'MAXIMIZE'}"
        if senses:
            for node in senses:
                src.replace(node.value, f"{grb}.{'MINIMIZE' if fx.value == 'min' else 'MAXIMIZE'}")
            return
        call = _only(sets, "setObjective")
        if len(call.args) >= 2:
            src.replace(call.args[1], want)
        else:
            src.keyword(call, "sense", want)
        return
    if fx.kind in ("vtype", "bound"):
        call = _only([c for c in calls if _call_name(c) in _VAR_CALLS and
                      _named(c, str(fx.name))], f"variables {fx.name}")
        if fx.kind == "vtype":
            src.keyword(call, "vtype", f"{grb}.{_VTYPE[str(fx.value)]}")
        else:
            if call.args and _call_name(call) == "addVar" and len(call.args) > 0:
                raise _NotFound("positional bounds")
            src.keyword(call, fx.side, _number(float(fx.value), grb))
        return
    if fx.kind == "compare":
        call = _only([c for c in calls if _call_name(c) in _CON_CALLS and
                      _named(c, str(fx.name))], f"constraints {fx.name}")
        first = call.args[0] if call.args else None
        if isinstance(first, (ast.GeneratorExp, ast.ListComp)):
            first = first.elt
        if not isinstance(first, ast.Compare) or len(first.ops) != 1:
            raise _NotFound("no single comparison")
        a = src.span(first.left)[1]
        b = src.span(first.comparators[0])[0]
        between = src.text(a, b)
        for op in ("<=", ">=", "=="):
            if op in between:
                k = a + len(between[:between.index(op)].encode("utf-8"))
                src.edits.append((k, k + 2, _OPS[str(fx.value)]))
                return
        raise _NotFound("operator not found")
    raise _NotFound(f"unknown fix {fx.kind}")
