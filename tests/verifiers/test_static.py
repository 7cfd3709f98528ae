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


# ---------------------------------------------------------------- real programs (seeds)
def seed_fatal(text: str, files: tuple[str, ...] = ()) -> set[str]:
    """The codes that would reject ``text`` as a seed."""
    from ortrex.engine.ingest.seeds import SEED_TOLERATED

    return codes(text, files) - SEED_TOLERATED


def test_future_and_pure_standard_modules_pass() -> None:
    assert check_program("from __future__ import annotations\n" + GOOD, ("data.json",)).ok
    pure = ("import itertools, math, collections, functools, enum, string, copy, operator\n"
            "import statistics, fractions, decimal, heapq, bisect, random, re, json, csv\n"
            "import pprint, typing, dataclasses\nfrom collections.abc import Iterable\n")
    assert codes(pure + GOOD) == set()
    # Pure, but not the rendered contract's: seeds only (the sandbox confines the others).
    for mod in ("time", "datetime", "warnings", "logging", "textwrap", "abc", "numbers",
                "sys", "os", "pathlib", "argparse", "typing", "uuid", "zoneinfo"):
        assert seed_fatal(f"import {mod}\n" + GOOD, ("data.json",)) == set(), mod
    assert codes("import time\n" + GOOD) == {"import-stdlib"}


def test_what_reaches_outside_is_still_refused() -> None:
    from ortrex.engine.ingest.seeds import SEED_TOLERATED

    for line in ("import socket", "import subprocess", "import ctypes",
                 "import multiprocessing", "import urllib.request", "import requests",
                 "from http import client", "import importlib", "import builtins",
                 "from concurrent.futures import ProcessPoolExecutor", "import asyncio"):
        assert seed_fatal(line + "\n" + GOOD, ("data.json",)) == {"import"}, line
    for call in ("eval('1')", "exec('x = 1')", "compile('1', 'f', 'eval')",
                 "__import__('os')"):
        rep = check_program(GOOD + call + "\n", ("data.json",))
        bad = [f for f in rep.findings if f.code not in SEED_TOLERATED]
        # Each refusal names its line and its rule.
        assert [str(f) for f in bad] == [f"line 12: call to {call.split('(')[0]}() is not "
                                         "allowed [call]"], call


# A model built every way real programs build one: none is "no gurobipy Model".
BUILT = {
    "function": "def build():\n    m = gp.Model('f')\n    m.optimize()\n    return m\n"
                "build()\n",
    "class": "class Planner:\n    def __init__(self) -> None:\n"
             "        self.model = gp.Model('c')\n    def solve(self) -> None:\n"
             "        self.model.optimize()\nPlanner().solve()\n",
    "with": "with gp.Model('w') as m:\n    m.optimize()\n",
    "env": "with gp.Env() as env, gp.Model(env=env) as m:\n    m.optimize()\n",
    "returned": "def make():\n    return gp.Model()\nmake().optimize()\n",
    "module": "import gurobipy\nm = gurobipy.Model()\nm.optimize()\n",
    "imported": "from gurobipy import Model as GModel\nm = GModel()\nm.optimize()\n",
    "dict": "models = {k: gp.Model(k) for k in 'ab'}\nfor m in models.values():\n"
            "    m.optimize()\n",
    "annotated": "m: gp.Model = gp.Model()\nm.optimize()\n",
    "read": "m = gp.read('toy.mps')\nm.optimize()\n",
    "star": "from gurobipy import *\nm = Model()\nx = m.addVar(vtype=GRB.BINARY)\n"
            "m.setObjective(quicksum([x]), GRB.MAXIMIZE)\nm.optimize()\n",
}


def test_models_built_anywhere_count() -> None:
    for how, body in BUILT.items():
        found = codes("import gurobipy as gp\n" + body, ("toy.mps",))
        assert "no-model" not in found and "undefined" not in found, (how, found)
        assert seed_fatal("import gurobipy as gp\n" + body, ("toy.mps",)) == set(), how
    # The rendered contract still wants a model assigned to its name.
    assert "model-name" in codes("import gurobipy as gp\n" + BUILT["class"])
    assert "model-name" in codes("import gurobipy as gp\n" + BUILT["with"])
    assert "model-name" not in codes("import gurobipy as gp\nwith gp.Env() as e:\n"
                                     "    model = gp.Model(env=e)\n    model.optimize()\n")
    # Nothing that is not a model counts as one: a file's read(), another Model class.
    assert "no-model" in codes("import gurobipy as gp\nf = open('data.json')\nf.read()\n")
    assert "no-model" in codes("from gurobipy import GRB\nprint(GRB.MAXIMIZE)\n")


def test_highs_objects_built_anywhere_count() -> None:
    for body in ("import highspy\nh = highspy.Highs()\nh.run()\n",
                 "from highspy import Highs\ndef solve():\n    h = Highs()\n    h.run()\n",
                 "import highspy\nclass S:\n    def __init__(self) -> None:\n"
                 "        self.h = highspy.Highs()\n        self.h.run()\n"):
        assert codes(body) == set(), body
    assert "no-model" in codes("import highspy\nprint(highspy.kHighsInf)\n")


def test_results_are_read_before_the_solve_of_their_own_scope() -> None:
    report_first = """import gurobipy as gp
class Planner:
    def __init__(self) -> None:
        self.model = gp.Model()
        self.x = self.model.addVar(ub=1)
    def report(self) -> None:
        print(self.model.ObjVal, self.x.X)
    def solve(self) -> None:
        self.model.optimize()
def show(p: Planner) -> None:
    print(p.x.X)
p = Planner()
p.solve()
p.report()
show(p)
"""
    assert seed_fatal(report_first) == set()
    early_in_function = ("import gurobipy as gp\ndef solve():\n    model = gp.Model()\n"
                         "    print(model.ObjVal)\n    model.optimize()\nsolve()\n")
    rep = check_program(early_in_function)
    assert [str(f) for f in rep.findings] == [
        "line 4: .ObjVal is read before the model is optimized [read-before-optimize]"]
    # gurobipy's lowercase .x off an element is a result; a program's own .x is not.
    assert "read-before-optimize" in codes(GOOD.replace("model.optimize()",
                                                        "print(x[0].x)\nmodel.optimize()"))
    own = GOOD.replace("model.optimize()", "class P:\n    x = 1\nprint(P.x)\nmodel.optimize()")
    assert codes(own) == set()


def test_plotting_is_a_seed_finding_of_its_own() -> None:
    from ortrex.verifiers.checks.document import program_static
    from ortrex.verifiers.sandbox.harness import PLOT_MODULES
    from ortrex.verifiers.static import PLOT_IMPORTS

    assert set(PLOT_MODULES) == PLOT_IMPORTS  # the harness stands in for what may be imported
    plots = GOOD + ("import matplotlib.pyplot as plt\nimport matplotlib\nimport pylab\n"
                    "import seaborn as sns\nimport plotly.express as px\n"
                    "from matplotlib import pyplot\n"
                    "fig, ax = plt.subplots()\nax.bar(['x'], [model.ObjVal])\n"
                    "plt.savefig('plan.png')\nplt.show()\n")
    rep = check_program(plots, ("data.json",))
    assert {f.code for f in rep.findings} == {"import-plot"}
    assert [f.line for f in rep.findings] == [12, 13, 14, 15, 16, 17]
    assert seed_fatal(plots, ("data.json",)) == set()
    # The rendered documents' contract has no plots.
    check, _ = program_static(plots, {"data.json": "{}"})
    assert not check.ok and "[import-plot]" in check.details["why"]
    assert program_static("from __future__ import annotations\n" + GOOD,
                          {"data.json": "{}"})[0].ok


def test_other_modelling_libraries_are_allowed() -> None:
    pulp = ("import pulp\nprob = pulp.LpProblem('p', pulp.LpMaximize)\n"
            "x = pulp.LpVariable('x', 0, 4)\nprob += 3 * x\nprob += x <= 2\nprob.solve()\n"
            "print(pulp.value(prob.objective))\n")
    pyomo = ("import pyomo.environ as pyo\nm = pyo.ConcreteModel()\n"
             "m.x = pyo.Var(bounds=(0, 4))\nm.o = pyo.Objective(expr=m.x, sense=pyo.maximize)\n"
             "pyo.SolverFactory('highs').solve(m)\n")
    ortools = ("from ortools.linear_solver import pywraplp\n"
               "s = pywraplp.Solver.CreateSolver('SCIP')\nx = s.IntVar(0, 4, 'x')\n"
               "s.Maximize(x)\ns.Solve()\nprint(s.Objective().Value())\n")
    copt = ("import coptpy as cp\nenv = cp.Envr()\nm = env.createModel('c')\n"
            "x = m.addVar(ub=4)\nm.setObjective(x, cp.COPT.MAXIMIZE)\nm.solve()\n")
    for program in (pulp, pyomo, ortools, copt):
        assert codes(program, ()) == set(), program
    # gurobipy imported for its constants beside another library: no gurobipy model asked.
    mixed = "from gurobipy import GRB\n" + pyomo
    assert "no-model" not in codes(mixed, ())


def test_files_a_program_writes_or_names_relatively() -> None:
    assert codes(GOOD.replace('open("data.json")', 'open("./data.json")')) == set()
    assert codes(GOOD + 'with open("results.txt", "w") as out:\n    out.write("x")\n') == \
        {"file-write"}
    assert "file-access" in codes(GOOD + 'print(open("notes.txt").read())\n')


def test_the_plot_stand_in_draws_nothing_and_fails_nowhere() -> None:
    import os
    import sys

    import pytest

    from ortrex.verifiers.sandbox.harness import PlotStub, _PlotFinder

    finder = _PlotFinder(("ortrex_fakeplot", "json"))
    sys.meta_path.append(finder)
    try:
        import ortrex_fakeplot as mpl  # type: ignore[import-not-found]
        import ortrex_fakeplot.pyplot as plt  # type: ignore[import-not-found]
        from ortrex_fakeplot.colors import ListedColormap  # type: ignore[import-not-found]

        assert isinstance(plt, PlotStub) and isinstance(mpl, PlotStub)
        mpl.use("Agg")
        mpl.rcParams["font.size"] = 9
        fig, ax = plt.subplots(figsize=(4, 3))
        ax.bar(["x"], [1.0], color=ListedColormap(["red"])(0))
        _, (left, right) = plt.subplots(1, 2)
        left.set_title("a")
        right.legend()
        _, grid = plt.subplots(2, 3)
        grid[1, 2].plot([1], [2])
        assert grid.shape == (2, 3) and all(a is plt for a in grid.flat)
        with plt.style.context("ggplot"):
            plt.plot([1, 2], [3, 4], label="a")
        fig.savefig("never-written.png")
        plt.show()
        assert list(plt.gca().lines) == []
        # Inside a real package a missing module stays missing.
        with pytest.raises(ModuleNotFoundError):
            import json.no_such_module  # type: ignore[import-not-found]  # noqa: F401
    finally:
        sys.meta_path.remove(finder)
        for name in [n for n in sys.modules if n.startswith("ortrex_fakeplot")]:
            del sys.modules[name]
    assert not os.path.exists("never-written.png")


def test_what_real_programs_do_that_is_not_dangerous() -> None:
    from ortrex.engine.ingest.seeds import SEED_TOLERATED

    # The compiler's own checks: 'return' outside a function is a syntax error found here.
    assert codes("import math\nreturn math.pi\n") == {"syntax"}
    # The model built in a helper module given beside the program (Gurobi's diet2.py).
    helper = "import gurobipy as gp\nimport dietmodel\ndietmodel.solve(3)\n"
    found = codes(helper, ("dietmodel.py",))
    assert "no-model" not in found and found <= SEED_TOLERATED, found
    # Profiling, graphs, a notebook's display, a name only a branch never taken would need.
    prog = ("import cProfile, pstats, networkx as nx\nfrom IPython.display import display\n"
            "import gurobipy as gp\nm = gp.Model()\nm.optimize()\nif False:\n"
            "    logging.warning('never')\ndisplay(nx.Graph())\n")
    found = codes(prog)
    assert found <= SEED_TOLERATED and "undefined" in found, found
