"""Seeds as real programs are: models built in functions and under any name, several per
program, beyond the sandbox's licence, solved past the program's time limit; a data tree,
helper modules and arguments; honest per-seed rows for each of these."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ortrex.engine.ingest.seeds import SeedLimits, error_line, import_seeds, scan_seeds, seed_files
from ortrex.store import Store

IN_FUNCTION = """import gurobipy as gp
from gurobipy import GRB

def solve(cap):
    problem = gp.Model("in_function")
    x = problem.addVars(3, ub=cap, name="x")
    problem.addConstr(x[0] + 2 * x[1] + 3 * x[2] <= 10, name="budget")
    problem.setObjective(4 * x[0] + 5 * x[1] + 9 * x[2], GRB.MAXIMIZE)
    problem.optimize()
    return problem.ObjVal

print("Optimal objective:", solve(2))
"""

TWO_MODELS = """import gurobipy as gp
from gurobipy import GRB

stage1 = gp.Model("stage1")
a = stage1.addVar(ub=4, name="a")
stage1.setObjective(a, GRB.MAXIMIZE)
stage1.optimize()
first = stage1.ObjVal

stage2 = gp.Model("stage2")
b = stage2.addVar(ub=first, vtype=GRB.INTEGER, name="b")
c = stage2.addVar(ub=10, name="c")
stage2.addConstr(b + c <= 6, name="share")
stage2.setObjective(3 * b + c, GRB.MAXIMIZE)
stage2.optimize()
print("objective:", stage2.ObjVal)
"""

# 2,500 variables: over the pip licence's 2,000, so the sandbox's Gurobi refuses the solve.
OVER_LICENCE = """import gurobipy as gp
from gurobipy import GRB
n = 2500
big = gp.Model("big")
x = big.addVars(n, ub=1, name="x")
big.addConstrs((x[i] + x[i + 1] <= 1 for i in range(n - 1)), name="pair")
big.setObjective(gp.quicksum((1 + i % 7) * x[i] for i in range(n)), GRB.MAXIMIZE)
big.optimize()
print("objective:", big.ObjVal)
"""

SLOW_AFTER_SOLVE = """import time
import highspy
h = highspy.Highs()
h.setOptionValue("output_flag", False)
x = h.addVariable(0, 5)
y = h.addVariable(0, 5)
h.addConstr(x + y <= 7)
h.maximize(2 * x + y)
time.sleep(60)  # the program outlives its time limit; its model was captured at solve
"""

DATA_TREE = """import sys
import pandas as pd
from helpers.build import build
cap = float(sys.argv[sys.argv.index("--scale") + 1])
items = pd.read_csv("data/items.csv")
limits = pd.read_csv("instances/small/limits.csv")
m = build(items, float(limits.budget[0]) * cap)
m.optimize()
print("objective:", m.ObjVal)
"""

HELPER = """import gurobipy as gp
from gurobipy import GRB


def build(items, budget):
    m = gp.Model("knap")
    pick = m.addVars(len(items), vtype=GRB.BINARY, name="pick")
    m.addConstr(gp.quicksum(int(w) * pick[i] for i, w in enumerate(items.weight)) <= budget,
                name="budget")
    m.setObjective(gp.quicksum(int(v) * pick[i] for i, v in enumerate(items.value)),
                   GRB.MAXIMIZE)
    return m
"""

INDICATOR = """import gurobipy as gp
from gurobipy import GRB
m = gp.Model("ind")
z = m.addVar(vtype=GRB.BINARY, name="z")
x = m.addVar(ub=10, name="x")
m.addGenConstrIndicator(z, True, x <= 3)
m.setObjective(x + 2 * z, GRB.MAXIMIZE)
m.optimize()
"""

# An indicator on a variable with no upper bound: no exact linear form (no big-M).
UNBOUNDED_INDICATOR = """import gurobipy as gp
from gurobipy import GRB
m = gp.Model("free")
z = m.addVar(vtype=GRB.BINARY, name="z")
x = m.addVar(name="x")
m.addGenConstrIndicator(z, True, x <= 3)
m.addConstr(x >= 1)
m.setObjective(x - 2 * z, GRB.MINIMIZE)
m.optimize()
"""

# A market-split instance (Cornuejols-Dawande): tiny and very hard for branch and bound.
MARKET_SPLIT = """import gurobipy as gp
from gurobipy import GRB
import random
rng = random.Random(7)
n, rows = 40, 5
a = [[rng.randint(0, 99) for _ in range(n)] for _ in range(rows)]
m = gp.Model("market")
x = m.addVars(n, vtype=GRB.BINARY, name="x")
s = m.addVars(rows, 2, name="s")
for i in range(rows):
    m.addConstr(gp.quicksum(a[i][j] * x[j] for j in range(n)) + s[i, 0] - s[i, 1]
                == sum(a[i]) // 2, name=f"split{i}")
m.setObjective(s.sum(), GRB.MINIMIZE)
m.Params.TimeLimit = 1
m.optimize()
"""


def seed(sid: str, code: str, files: dict[str, str] | None = None,
         args: list[str] | None = None, problem: str = "A client's problem.") -> str:
    obj: dict[str, object] = {"id": sid, "problem": problem,
                              "answer": f"<python>\n{code}</python>", "metadata": {}}
    if files:
        obj["files"] = files
    if args:
        obj["args"] = args
    return json.dumps(obj)


def _docs(s: Store) -> dict[str, tuple[str, str | None, str | None, float | None]]:
    rows = s.query("SELECT json_extract_string(l.params, '$.seed_id'), d.status, "
                   "d.reject_reason, d.reject_detail, d.objective FROM documents d JOIN "
                   "lineage l ON l.child_id = d.id AND l.relation = 'imported'").rows()
    return {r[0]: r[1:] for r in rows}


def _sandbox(s: Store, sid: str) -> dict[str, object]:
    (details,) = s.query(
        "SELECT v.details FROM verifications v JOIN lineage l ON l.child_id = v.subject_id "
        "AND l.relation = 'imported' WHERE v.verifier = 'sandbox' AND "
        "json_extract_string(l.params, '$.seed_id') = ?", [sid]).rows()[0]
    return json.loads(details)


def test_every_model_is_captured_at_solve_and_solved_in_the_parent(tmp_path: Path) -> None:
    f = tmp_path / "seeds.jsonl"
    items = "weight,value\n3,4\n4,5\n5,8\n2,3\n"
    f.write_text("\n".join([
        seed("in_function", IN_FUNCTION),
        seed("two_models", TWO_MODELS),
        seed("over_licence", OVER_LICENCE),
        seed("slow", SLOW_AFTER_SOLVE),
        seed("data_tree", DATA_TREE, {"./data/items.csv": items,
                                      "instances/small/limits.csv": "budget\n4.5\n",
                                      "helpers/__init__.py": "", "helpers/build.py": HELPER},
             ["--scale", "2"], problem="Pick items within a budget of 4.5 per unit of scale; "
             "this run has scale 2, a budget of 9."),
        seed("bad_name", IN_FUNCTION, {"../outside.csv": "a\n1\n"}),
        seed("indicator", INDICATOR),
        seed("unbounded_indicator", UNBOUNDED_INDICATOR),
    ]) + "\n")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        rep = import_seeds(s, f, workers=2, limits=SeedLimits(program_s=8.0, solve_s=20.0))
        docs = _docs(s)
        # in a function, under another name (x0 = 2, x2 = 2, x1 = 1 fill the budget of 10)
        assert docs["in_function"][:2] == ("accepted", None)
        assert docs["in_function"][3] == pytest.approx(4 * 2 + 9 * 2 + 5 * 1)
        # two models: both instances, the document's is the last one solved
        assert docs["two_models"][0] == "accepted" and docs["two_models"][3] == 3 * 4 + 2
        assert _sandbox(s, "two_models")["models_captured"] == 2
        edges = s.query("SELECT count(*) FROM lineage WHERE relation = 'captured' AND "
                        "json_extract_string(params, '$.seed_id') = 'two_models'").rows()
        assert edges == [(2,)]
        # over the licence: the program failed inside, the parent's HiGHS verified it, Gurobi
        # said skipped_license, and the instance says it had one solver
        over = _sandbox(s, "over_licence")
        assert over["status"] == "error" and "size-limited" in str(over["error"])
        assert "licence refused" in " ".join(over["notes"])  # type: ignore[arg-type]
        assert docs["over_licence"][0] == "accepted"
        assert docs["over_licence"][3] == pytest.approx(sum(
            max(1 + i % 7, 0) for i in range(0, 2500, 2)), rel=0.2)  # a real optimum
        (flags, g_status), = s.query(
            "SELECT i.flags, v.status FROM instances i JOIN verifications v ON v.subject_id = "
            "i.id AND v.verifier = 'gurobi' WHERE i.name = 'over_licence'").rows()
        assert "single_solver" in flags and g_status == "skipped_license"
        # the program outlived its time limit after asking for the solve
        slow = _sandbox(s, "slow")
        assert slow["status"] == "timeout" and slow["models_captured"] == 1
        assert docs["slow"][0] == "accepted" and docs["slow"][3] == pytest.approx(12.0)
        # a data tree, helper modules and arguments (budget 4.5 x 2 = 9: weights 4 and 5)
        assert docs["data_tree"][:2] == ("accepted", None)
        assert docs["data_tree"][3] == pytest.approx(5 + 8)
        # a bad file name rejects its seed, and only its seed
        assert docs["bad_name"][:2] == ("rejected", "bad_file_name")
        assert "../outside.csv" in str(docs["bad_name"][2])
        # an indicator constraint, in its exact linear form over the bounds: z = 0, x = 10
        assert docs["indicator"][:2] == ("accepted", None)
        assert docs["indicator"][3] == pytest.approx(10.0)
        # one with no finite bound to write it with: unsupported, not unreadable, not relaxed
        assert docs["unbounded_indicator"][:2] == ("rejected", "unsupported_model")
        assert "finite bounds" in str(docs["unbounded_indicator"][2])
        assert rep.accepted == 6 and rep.captured == 7


def test_time_limits_are_honest(tmp_path: Path) -> None:
    f = tmp_path / "hard.jsonl"
    f.write_text(seed("market", MARKET_SPLIT) + "\n")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        rep = import_seeds(s, f, limits=SeedLimits(program_s=20.0, solve_s=1.0))
        assert rep.reasons == {"time_limit": 1}
        rows = s.query("SELECT verifier, status, details FROM verifications WHERE "
                       "subject_kind = 'instance' ORDER BY verifier").rows()
        assert [r[:2] for r in rows] == [("gurobi", "time_limit"), ("highs", "time_limit")]
        for _, _, details in rows:
            d = json.loads(details)
            # the best bound is stored, and it is a lower bound of the (minimised) incumbent
            assert d["bound"] is not None and d["bound"] >= 0
            assert d["incumbent"] is None or d["incumbent"] >= d["bound"] - 1e-6


def test_seed_file_names_and_error_lines() -> None:
    from ortrex.engine.ingest.seeds import Seed

    s = Seed(1, "a", "### ./data/x.csv\n```csv\na\n```\n", "x", {}, {"lib/h.py": ""})
    assert seed_files(s) == ({"data/x.csv": "a\n", "lib/h.py": ""}, None)
    for bad in ("/etc/passwd", "../x", "a/../../x", ".hidden", "main.py", ""):
        files, why = seed_files(Seed(1, "a", "p", "x", {}, {bad: ""}))
        assert files == {} and why and repr(bad) in why
    tb = ("Traceback (most recent call last):\n  File \"main.py\", line 3\n"
          "gurobipy._exception.GurobiError: Model too large for size-limited license\n"
          "Set parameter x\n")
    assert error_line(tb, "error", 1, 60) == \
        "gurobipy._exception.GurobiError: Model too large for size-limited license"
    assert error_line("", "timeout", None, 60) == "ran past the 60 s time limit"
    assert error_line("done\n", "error", 3, 60) == "exit code 3: done"


def test_bad_seed_fields_are_bad_lines(tmp_path: Path) -> None:
    f = tmp_path / "bad.jsonl"
    f.write_text(json.dumps({"problem": "p", "answer": "a", "files": ["x"]}) + "\n" +
                 json.dumps({"problem": "p", "answer": "a", "args": "--x"}) + "\n")
    from ortrex.engine.ingest.seeds import SeedFileError

    with pytest.raises(SeedFileError) as err:
        scan_seeds(f)
    assert "bad.jsonl:1: field 'files'" in str(err.value)
    assert "bad.jsonl:2: field 'args'" in str(err.value)


SLEEPY = """import time
import gurobipy as gp
m = gp.Model()
x = m.addVar(ub=1)
m.setObjective(x, gp.GRB.MAXIMIZE)
m.optimize()
time.sleep(2)
print("objective:", m.ObjVal)
"""


def test_sigterm_keeps_the_seeds_already_finished(tmp_path: Path) -> None:
    f = tmp_path / "slow.jsonl"
    f.write_text("\n".join(seed(f"s{k}", SLEEPY.replace("ub=1", f"ub={k + 1}"))
                           for k in range(16)) + "\n")
    db = tmp_path / "s.duckdb"
    env = {**os.environ, "COLUMNS": "120"}
    proc = subprocess.Popen([sys.executable, "-m", "ortrex", "--db", str(db), "import-seeds",
                             str(f), "--workers", "1"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env, text=True)
    time.sleep(18)  # start-up (a few seconds), then some of the 16 seeds of over 2 s each
    proc.send_signal(signal.SIGTERM)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    with Store(db) as s:
        (n,), = s.query("SELECT count(*) FROM documents").rows()
    assert 1 <= n < 16


# The diet example's shape: solve, print, then solve a variant (made infeasible, or with every
# variable fixed at its optimum for post-processing): the seed is the model whose optimum the
# program printed. And a printed optimum rounded to two places agrees with its model.
PRINT_THEN_VARIANT = """import gurobipy as gp
from gurobipy import GRB
m = gp.Model("plan")
x = m.addVar(ub=10, name="x")
y = m.addVar(ub=10, name="y")
m.addConstr(3 * x + 7 * y <= 40, name="cap")
m.setObjective(2 * x + 3 * y, GRB.MAXIMIZE)
m.optimize()
print(f"Optimal objective: {m.ObjVal:.2f}")
{variant}
m.optimize()
"""


def test_the_seed_is_the_model_whose_optimum_was_printed(tmp_path: Path) -> None:
    f = tmp_path / "seeds.jsonl"
    f.write_text("\n".join([
        seed("infeasible_after", PRINT_THEN_VARIANT.replace("{variant}", "m.addConstr(x >= 11)")),
        seed("fixed_after", PRINT_THEN_VARIANT.replace(
            "{variant}", "for v in m.getVars():\n    v.LB = v.UB = v.X")),
        seed("other_print", PRINT_THEN_VARIANT.replace("{variant}", "x.UB = 1").replace(
            "{m.ObjVal:.2f}", "{m.ObjVal + 1:.2f}")),
    ]) + "\n")
    with Store(tmp_path / "s.duckdb", create=True) as s:
        import_seeds(s, f, workers=1, limits=SeedLimits(program_s=20.0, solve_s=20.0))
        docs = _docs(s)
        # 2 * 10 + 3 * 10/7 = 24.2857...: printed 24.29, which it rounds to
        for sid in ("infeasible_after", "fixed_after"):
            assert docs[sid][:2] == ("accepted", None), docs[sid]
            assert docs[sid][3] == pytest.approx(20 + 30 / 7)
        (inst,), = s.query("SELECT i.objective FROM documents d JOIN instances i ON i.id = "
                           "d.instance_id JOIN lineage l ON l.child_id = d.id AND l.relation "
                           "= 'imported' WHERE json_extract_string(l.params, '$.seed_id') = "
                           "'fixed_after'").rows()
        assert inst == pytest.approx(20 + 30 / 7)  # the seed's instance is that model too
        # printed 25.29: no model has it, and the last model's optimum contradicts it
        assert docs["other_print"][:2] == ("rejected", "reported_objective_differs")


def test_a_printed_optimum_is_read_to_its_precision() -> None:
    from ortrex.engine.ingest.seeds import printed_objective

    assert printed_objective("Optimal objective: 1.57\n") == (1.57, pytest.approx(0.005))
    assert printed_objective("objective = 3095") == (3095.0, 0.5)
    assert printed_objective("Obj: 1.2e+03") == (1200.0, pytest.approx(50.0))
