"""Capture at solve for PuLP, Pyomo, OR-Tools and COPT programs: each solve's model comes
back through the library's own export, reads here as the model the program solved (the
same optimum, sense and constant included), with the program's own optimum beside it; a
library solving through gurobipy or highspy underneath is captured once; through
``import-seeds`` every library's seed is accepted at its optimum."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ortrex.ir.formats import loads
from ortrex.verifiers.sandbox.server import PRELOAD_SEEDS, Job, Limits, Sandbox
from ortrex.verifiers.solvers import solve
from tests.conftest import run_cli, seed_outcomes

# One problem in each library: at most 10 whole x (profit 3), at most 8 whole y (profit 2),
# 2x + y <= 20, x + 3y <= 24, a fixed fee of 5 taken off: optimum at x = 8, y = 4: 24 + 8 - 5.
PROBLEM = ("A workshop makes whole units of x (profit 3, at most 10) and of y (profit 2, at "
           "most 8). Machine hours: 2 per x and 1 per y, 20 in all; labour: "
           "1 per x and 3 per y, 24 in all. A fixed fee of 5 is due. Maximise the profit.")
OPTIMUM = 27.0
PROGRAMS = {
    "pulp": """import pulp
prob = pulp.LpProblem("workshop", pulp.LpMaximize)
x = pulp.LpVariable("x", 0, 10, cat="Integer")
y = pulp.LpVariable("y", 0, 8, cat="Integer")
prob += 3 * x + 2 * y - 5
prob += 2 * x + y <= 20, "machine"
prob += x + 3 * y <= 24, "labour"
prob.solve(pulp.PULP_CBC_CMD(msg=0))
print("objective", pulp.value(prob.objective))
""",
    "pyomo": """from pyomo.environ import (ConcreteModel, Constraint, Integers, Objective,
                           SolverFactory, Var, maximize, value)
m = ConcreteModel()
m.x = Var(bounds=(0, 10), within=Integers)
m.y = Var(bounds=(0, 8), within=Integers)
m.profit = Objective(expr=3 * m.x + 2 * m.y - 5, sense=maximize)
m.machine = Constraint(expr=2 * m.x + m.y <= 20)
m.labour = Constraint(expr=m.x + 3 * m.y <= 24)
SolverFactory("appsi_highs").solve(m)
print("objective", value(m.profit))
""",
    "pyomo-persistent": """from pyomo.environ import (ConcreteModel, Constraint, Integers,
                           Objective, SolverFactory, Var, maximize, value)
m = ConcreteModel()
m.x = Var(bounds=(0, 10), within=Integers)
m.y = Var(bounds=(0, 8), within=Integers)
m.profit = Objective(expr=3 * m.x + 2 * m.y - 5, sense=maximize)
m.machine = Constraint(expr=2 * m.x + m.y <= 20)
m.labour = Constraint(expr=m.x + 3 * m.y <= 24)
opt = SolverFactory("gurobi_persistent")
opt.set_instance(m)
opt.solve()
print("objective", value(m.profit))
""",
    "ortools-builder": """from ortools.linear_solver.python import model_builder as mb
model = mb.Model()
x = model.new_int_var(0, 10, "x")
y = model.new_int_var(0, 8, "y")
model.add(2 * x + y <= 20)
model.add(x + 3 * y <= 24)
model.maximize(3 * x + 2 * y - 5)
solver = mb.Solver("scip")
assert solver.solve(model) == mb.SolveStatus.OPTIMAL
print("objective", solver.objective_value)
""",
    "ortools": """from ortools.linear_solver import pywraplp
s = pywraplp.Solver.CreateSolver("SCIP")
x = s.IntVar(0, 10, "x")
y = s.IntVar(0, 8, "y")
s.Add(2 * x + y <= 20)
s.Add(x + 3 * y <= 24)
s.Maximize(3 * x + 2 * y - 5)
assert s.Solve() == pywraplp.Solver.OPTIMAL
print("objective", s.Objective().Value())
""",
    "copt": """import coptpy as cp
from coptpy import COPT
env = cp.Envr()
m = env.createModel("workshop")
m.setParam("Logging", 0)
x = m.addVar(0, 10, vtype=COPT.INTEGER, name="x")
y = m.addVar(0, 8, vtype=COPT.INTEGER, name="y")
m.addConstr(2 * x + y <= 20, name="machine")
m.addConstr(x + 3 * y <= 24, name="labour")
m.setObjective(3 * x + 2 * y - 5, COPT.MAXIMIZE)
m.solve()
print("objective", m.objval)
""",
}


# The same PuLP model solved through PuLP's HiGHS interface (highspy underneath).
PROGRAMS["pulp-highs"] = PROGRAMS["pulp"].replace("pulp.PULP_CBC_CMD(msg=0)",
                                                  "pulp.HiGHS(msg=False)")


@pytest.fixture(scope="module")
def box() -> Sandbox:
    with Sandbox(PRELOAD_SEEDS) as sb:
        yield sb


@pytest.mark.parametrize("lib", sorted(PROGRAMS))
def test_each_librarys_solve_is_captured_as_the_model_solved(box: Sandbox, lib: str) -> None:
    r = box.run(Job(PROGRAMS[lib], limits=Limits(wall_s=30), capture_at="solve"))
    assert r.status == "ok", r.stderr[-500:]
    assert float(r.stdout.split()[-1]) == pytest.approx(OPTIMUM)
    # One model per solve: PuLP's HiGHS interface solving through highspy is not taken twice.
    assert r.capture_status == "ok" and len(r.captures) == 1, (r.capture_detail, r.captures)
    model = loads(r.captures[0].decode(), "mps", lib)
    for solver in ("highs", "gurobi"):
        assert solve(model, solver).objective == pytest.approx(OPTIMUM), solver
    assert r.solved == [(pytest.approx(OPTIMUM), pytest.approx(OPTIMUM, rel=1e-4))]


def test_a_missing_solver_still_leaves_the_model(box: Sandbox) -> None:
    # GLPK is not installed here: the program fails at its solve, its model was taken first.
    code = PROGRAMS["pyomo"].replace('"appsi_highs"', '"glpk"')
    r = box.run(Job(code, limits=Limits(wall_s=30), capture_at="solve"))
    assert r.status == "error" and len(r.captures) == 1 and r.solved == [None]
    assert solve(loads(r.captures[0].decode(), "mps", "p"), "highs").objective == \
        pytest.approx(OPTIMUM)


def test_import_seeds_accepts_every_librarys_seed(tmp_path: Path) -> None:
    lines = [json.dumps({"id": lib, "problem": PROBLEM, "answer": f"<python>\n{code}</python>"})
             for lib, code in PROGRAMS.items()]
    (tmp_path / "seeds.jsonl").write_text("\n".join(lines) + "\n")
    db = tmp_path / "s.duckdb"
    r = run_cli("import-seeds", str(tmp_path / "seeds.jsonl"), "--db", str(db), "--workers",
                "1", timeout=900)
    assert r.returncode == 0, r.stderr
    got = seed_outcomes(db)
    assert got == {lib: ("accepted", None, pytest.approx(OPTIMUM)) for lib in PROGRAMS}


def test_a_licence_refusal_is_noted_and_the_model_still_taken(box: Sandbox) -> None:
    # 5,000 binaries: over the size limit of COPT's pip build, which refuses the solve.
    code = ("import coptpy as cp\nfrom coptpy import COPT\nm = cp.Envr().createModel('big')\n"
            "m.setParam('Logging', 0)\nx = m.addVars(5000, vtype=COPT.BINARY)\n"
            "m.addConstr(x.sum() <= 10)\nm.setObjective(x.sum(), COPT.MAXIMIZE)\nm.solve()\n")
    r = box.run(Job(code, limits=Limits(wall_s=30), capture_at="solve"))
    assert r.status == "error" and "LICENSE" in r.stderr
    assert "the sandbox's COPT licence refused the program's solve" in r.capture_notes
    assert len(r.captures) == 1 and r.solved == [None]
    assert solve(loads(r.captures[0].decode(), "mps", "big"), "highs").objective == 10


def test_a_library_this_machine_lacks_is_its_own_reason() -> None:
    from ortrex.engine.ingest.seeds import _no_capture_reason
    from ortrex.verifiers.sandbox.programs import RunResult

    err = "Traceback (most recent call last):\nModuleNotFoundError: No module named 'pulp'\n"
    assert _no_capture_reason(RunResult("error", 1, "", err, 0.1)) == "library_unavailable"
    assert _no_capture_reason(RunResult("error", 1, "", "ValueError: x\n", 0.1)) == \
        "program_failed"
