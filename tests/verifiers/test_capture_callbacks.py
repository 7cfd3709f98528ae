"""Capture at solve with callbacks: the rows a callback adds (lazy constraints, user cuts) are
captured with the model after its solve, so the parent solves what the program solved; a
solve whose rows never come is unsupported, never a relaxation; the program's own optimum
travels with each model."""

from __future__ import annotations

import pytest

from ortrex.ir.formats import loads
from ortrex.verifiers.sandbox import harness
from ortrex.verifiers.sandbox.server import PRELOAD_SEEDS, Job, Limits, Sandbox
from ortrex.verifiers.sandbox.supervisor import _frames
from ortrex.verifiers.solvers import solve

# x + y over two integers in [0, 10]; the callback allows at most 7 in all, as lazy rows
# added only where a candidate violates them (the base model's optimum is 20).
LAZY = """import gurobipy as gp
from gurobipy import GRB
m = gp.Model("lazy")
m.Params.OutputFlag = 0
m.Params.LazyConstraints = 1
x = m.addVar(ub=10, vtype=GRB.INTEGER, name="x")
y = m.addVar(ub=10, vtype=GRB.INTEGER, name="y")
m.setObjective(x + 2 * y, GRB.MAXIMIZE)
def cb(model, where):
    if where == GRB.Callback.MIPSOL:
        vx, vy = model.cbGetSolution([x, y])
        if vx + vy > 7.5:
            model.cbLazy(x + y <= 7)
        if vy > 5.5:
            model.cbLazy(y, GRB.LESS_EQUAL, 5)
m.optimize(cb)
print("objective", m.ObjVal)
"""


@pytest.fixture(scope="module")
def box() -> Sandbox:
    with Sandbox(PRELOAD_SEEDS) as sb:
        yield sb


def _job(code: str, wall_s: float = 20.0) -> Job:
    return Job(code, limits=Limits(wall_s=wall_s), capture_at="solve")


def test_lazy_rows_are_captured_with_the_model(box: Sandbox) -> None:
    r = box.run(_job(LAZY))
    assert r.status == "ok" and r.capture_status == "ok", r.capture_detail
    assert r.stdout.split()[-1] == "12.0"  # x = 2, y = 5
    assert len(r.captures) == 1 and b"callback_row" in r.captures[0]
    model = loads(r.captures[0].decode(), "mps", "lazy")
    assert solve(model, "highs").objective == pytest.approx(12.0)  # not the relaxation's 30
    assert r.solved == [(pytest.approx(12.0), pytest.approx(12.0))]


def test_a_callback_solve_that_never_ends_is_unsupported(box: Sandbox) -> None:
    # The time limit strikes inside the callback: the model before the solve lacks whatever
    # rows the callback would have added, so nothing is taken.
    code = LAZY.replace("        vx, vy =", "        import time\n        time.sleep(60)\n"
                        "        vx, vy =")
    r = box.run(_job(code, wall_s=3.0))
    assert r.status == "timeout" and r.capture_status == "unsupported" and r.captures == []
    assert "callback" in r.capture_detail


def test_a_plain_solve_reports_the_programs_own_optimum(box: Sandbox) -> None:
    code = ("import gurobipy as gp, highspy\nm = gp.Model()\nx = m.addVar(ub=3)\n"
            "m.setObjective(x, gp.GRB.MAXIMIZE)\nm.optimize()\nx.UB = 4\nm.optimize()\n"
            "h = highspy.Highs()\nh.setOptionValue('output_flag', False)\n"
            "v = h.addVariable(0, 9)\nh.maximize(v)\n"
            "bad = gp.Model()\nz = bad.addVar(lb=2, ub=1)\nbad.optimize()\n")
    r = box.run(_job(code))
    assert r.capture_status == "ok" and len(r.captures) == 4
    assert r.solved == [(3.0, 3.0), (4.0, 4.0), (9.0, 9.0), None]  # the last is infeasible


def test_solved_frames_pair_with_their_models() -> None:
    def model(text: bytes) -> bytes:
        import zlib

        return harness.frame(harness.FRAME_MODEL, zlib.compress(text))

    solved = harness.frame(harness.FRAME_SOLVED, b"(5.0, 4.5)")
    partial = harness.frame(harness.FRAME_PARTIAL, b"x")
    budget = 1 << 20
    models, notes, wrong, _, own = _frames(model(b"a") + solved + model(b"b"), budget)
    assert models == [b"a", b"b"] and own == [(5.0, 4.5), None] and not wrong and not notes
    # A partial frame is never a model; the one after it is, with its solve.
    models, notes, _, _, own = _frames(partial + model(b"c") + solved, budget)
    assert models == [b"c"] and own == [(5.0, 4.5)] and not notes
    # A partial frame with nothing after it: the note that makes the capture unsupported.
    models, notes, _, _, own = _frames(model(b"a") + partial, budget)
    assert any("callback" in n for n in notes)
    # A solved frame that is not a pair of floats is no solve.
    junk = harness.frame(harness.FRAME_SOLVED, b"__import__('os')")
    assert _frames(model(b"a") + junk, budget)[4] == [None]


def test_import_seeds_stores_the_optimum_the_program_solved(tmp_path: object) -> None:
    import json
    from pathlib import Path

    from tests.conftest import run_cli, seed_outcomes

    d = Path(str(tmp_path))
    problem = ("A shop makes at most 10 units each of x (profit 1) and y (profit 2), whole "
               "units only; together at most 7 units, and at most 5 of y. Maximise profit.")
    slow = LAZY.replace("        vx, vy =", "        import time\n        time.sleep(60)\n"
                        "        vx, vy =")
    lines = [json.dumps({"id": sid, "problem": problem, "answer": f"<python>\n{code}</python>"})
             for sid, code in (("lazy", LAZY), ("slow", slow))]
    (d / "seeds.jsonl").write_text("\n".join(lines) + "\n")
    r = run_cli("import-seeds", str(d / "seeds.jsonl"), "--db", str(d / "s.duckdb"),
                "--workers", "1", "--program-time-limit", "5", timeout=600)
    assert r.returncode == 0, r.stderr
    got = seed_outcomes(d / "s.duckdb")
    assert got["lazy"] == ("accepted", None, 12.0)  # the relaxation's optimum is 30
    assert got["slow"][:2] == ("rejected", "unsupported_model")


def test_an_optimum_other_than_the_programs_own_is_refused() -> None:
    from ortrex.engine.ingest.seeds import _own_solve_differs

    assert _own_solve_differs(None, 30.0) is None  # the program reached no optimum
    assert _own_solve_differs((12.0, 12.0), 12.0 + 1e-9) is None
    assert _own_solve_differs((12.0, 11.5), 11.7) is None  # within the program's own gap
    why = _own_solve_differs((12.0, 12.0), 30.0)
    assert why is not None and "12" in why and "30" in why


def test_the_capture_helpers_look_up_no_global_name() -> None:
    # The program can rewrite the harness module's globals: the helpers the capture runs
    # after it are rebuilt from their code objects, so none may look a global name up.
    import dis

    for f in (harness._unsafe_names, harness._keep, harness._gurobi_safe,
              harness._highs_safe):
        names = [i.argval for i in dis.get_instructions(f)
                 if i.opname in ("LOAD_GLOBAL", "LOAD_NAME")]
        assert names == [], (f.__name__, names)
