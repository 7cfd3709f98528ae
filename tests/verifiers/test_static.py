"""Static checks catch what a program must not do before it runs."""

from __future__ import annotations

from ortrex.verifiers.static import check_program, extract_code

GOOD = """import json
import gurobipy as gp
from gurobipy import GRB

data = json.load(open("data.json"))
model = gp.Model("m")
x = model.addVars(3, ub=data["cap"], name="x")
model.addConstrs((x[i] <= 2 for i in range(3) if i != 1 and i != 2), name="c")
model.setObjective(x.sum(), GRB.MAXIMIZE)
model.optimize()
print(model.ObjVal)
"""


def codes(text: str, files: tuple[str, ...] = ("data.json",)) -> set[str]:
    return {f.code for f in check_program(text, files).findings}


def test_a_good_program_passes() -> None:
    rep = check_program(GOOD, ("data.json",))
    assert rep.ok, rep.summary()
    assert check_program(f"Here it is:\n```python\n{GOOD}```\nDone.", ("data.json",)).ok


def test_fences_must_hold_exactly_one_program() -> None:
    two = f"```python\n{GOOD}```\nand\n```python\nprint(1)\n```"
    assert "code-blocks" in codes(two)
    assert extract_code("```\nprint(1)\n```")[0] == "print(1)\n"


def test_imports_calls_and_files() -> None:
    assert "import-stdlib" in codes("import os\n" + GOOD)  # its own kind: seeds may
    assert "import-local" in codes("import helpers\n" + GOOD, ("helpers.py",))
    assert "import" in codes(GOOD.replace("import json", "import subprocess, json"))
    assert "call" in codes(GOOD + "eval('1')\n")
    assert "file-access" in codes(GOOD.replace('open("data.json")', 'open("/etc/passwd")'))
    assert "file-write" in codes(GOOD + 'open("data.json", "w")\n')
    assert "file-write" in codes(GOOD + 'model.write("m.lp")\n')
    assert "file-access" in codes(GOOD, files=())


def test_undefined_names_and_syntax() -> None:
    assert "undefined" in codes(GOOD.replace("x.sum()", "y.sum()"))
    assert "syntax" in codes("def f(:\n")


def test_gurobi_mistakes() -> None:
    assert "gurobi-boolop" in codes(GOOD + "model.addConstr(x[0] <= 1 and x[1] <= 1)\n")
    assert "gurobi-boolop" in codes(GOOD + "model.addConstrs((x[i] >= 0 or x[i] <= 1) "
                                           "for i in range(3))\n")
    assert "gurobi-chained" in codes(GOOD + "model.addConstr(0 <= x[0] <= 1)\n")
    assert "no-optimize" in codes(GOOD.replace("model.optimize()\n", ""))
    early = GOOD.replace("model.optimize()\nprint(model.ObjVal)\n",
                         "print(x[0].X)\nmodel.optimize()\n")
    assert "read-before-optimize" in codes(early)
    assert "model-name" in codes(GOOD.replace("model", "m"))
    assert "no-model" in codes("import gurobipy as gp\nprint(1)\n")
