"""Mechanical repairs spliced into a program's own text: the type, bound, objective sense or
comparison changes at the family the program named, nothing else does, in every program
style ortrex writes and in the shapes served models write."""

from __future__ import annotations

import ast

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.flywheel.splice import Fix, apply
from ortrex.render.program import gurobipy_program
from ortrex.render.program_labels import labels_program
from ortrex.render.program_matrix import matrix_program


def _keyword(code: str, call: str, name: str, arg: str) -> str | None:
    for node in ast.walk(ast.parse(code)):
        if isinstance(node, ast.Call) and getattr(node.func, "attr", "") == call and any(
                k.arg == "name" and (getattr(k.value, "value", None) == name or
                                     ast.unparse(k.value).startswith(f"f'{name}["))
                for k in node.keywords):
            return next((ast.unparse(k.value) for k in node.keywords if k.arg == arg), None)
    return None


@pytest.mark.parametrize("style", [gurobipy_program, labels_program, matrix_program])
def test_splices_change_only_what_they_name(style: object) -> None:
    sm = REGISTRY["transportation"].sample(np.random.default_rng(1), "small")
    code = style(sm).code  # type: ignore[operator]
    calls = {"addVars", "addMVar", "addVar"}
    fixed = apply(code, [Fix("vtype", "x", "I"), Fix("sense", None, "max")])
    assert fixed is not None
    assert any(_keyword(fixed, c, "x", "vtype") == "GRB.INTEGER" for c in calls)
    assert "GRB.MAXIMIZE" in fixed and "GRB.MINIMIZE" not in fixed
    assert len(fixed.splitlines()) == len(code.splitlines())  # nothing else moved
    changed = [(a, b) for a, b in zip(code.splitlines(), fixed.splitlines(), strict=True)
               if a != b]
    assert len(changed) == 2, changed


def test_served_shapes_keyword_added_comparison_flipped_fstring_names() -> None:
    code = (
        "import gurobipy as gp\n"
        "m2 = gp.Model()\n"
        "ship = m2.addVars(3, 4,\n"
        "                  name='flow',)  # trailing comma\n"
        "m2.addConstrs((ship.sum(i, '*') >= 5 for i in range(3)), name='cap')\n"
        "for j in range(4):\n"
        "    m2.addConstr(ship.sum('*', j) <= 9, name=f'dem_{j}')\n"
        "m2.setObjective(ship.sum())\n")
    fixed = apply(code, [Fix("vtype", "flow", "B"), Fix("compare", "cap", "<="),
                         Fix("compare", "dem", ">="), Fix("sense", None, "max"),
                         Fix("bound", "flow", 7.0, "ub")])
    assert fixed is not None, fixed
    compile(fixed, "x", "exec")
    assert "vtype=gp.GRB.BINARY" in fixed and "ub=7" in fixed
    assert "ship.sum(i, '*') <= 5" in fixed and "ship.sum('*', j) >= 9" in fixed
    assert "m2.setObjective(ship.sum(), sense=gp.GRB.MAXIMIZE)" in fixed
    # What cannot be placed exactly is refused (the repair then comes from the model).
    assert apply(code, [Fix("vtype", "nope", "I")]) is None
    assert apply("x = 1\n", [Fix("sense", None, "min")]) is None
