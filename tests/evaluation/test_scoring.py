"""Scoring pieces: program extraction, error classes, tolerance rules, objectives read from
real sandbox runs, few-shot exclusion, summaries and comparisons."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ortrex.benchmarks.base import Item
from ortrex.evaluation.summary import bench_summary, compare
from ortrex.served.prompts import Pool, messages
from ortrex.served.scoring import RULES, classify_error, extract_program, make_job, score_run
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.server import Sandbox


def test_extract_program_takes_the_last_python_block_after_reasoning() -> None:
    text = ("<think>```python\nprint('draft')\n```</think>\nFirst:\n```python\nx = 1\n```\n"
            "Final:\n```python\nx = 2\n```\n")
    assert extract_program(text) == "x = 2\n"
    assert extract_program("no code at all") is None
    assert extract_program("```\nimport json\nprint(1)\n```") == "import json\nprint(1)\n"
    assert extract_program("```\nsome table\n```") is None
    # Reasoning only, the code lives inside it: nothing after </think>.
    assert extract_program("<think>```python\nx=1\n```</think>I give up.") is None


def test_error_classes() -> None:
    tb = "Traceback (most recent call last):\n  File \"main.py\", line 3\nZeroDivisionError: " \
         "division by zero\n"
    assert classify_error(tb) == ("runtime:ZeroDivisionError", "ZeroDivisionError: division by "
                                                               "zero")
    cls, _ = classify_error("Traceback...\ngurobipy._exception.GurobiError: Unknown parameter")
    assert cls == "gurobi_api"
    assert classify_error("")[0] == "runtime:unknown"


@pytest.mark.parametrize(("a", "b", "expected"), [
    (100.0, 100.00005, {"default": True, "abs_1e-6": False, "round_5pct": True,
                        "sirl": True}),
    (2333.3333333, 2333.33, {"default": False, "abs_1e-6": False, "round_5pct": True,
                             "sirl": False}),
    (0.0, 5e-7, {"default": True, "abs_1e-6": True, "round_5pct": True, "sirl": True}),
    (104.0, 100.0, {"default": False, "abs_1e-6": False, "round_5pct": True, "sirl": False}),
    (3.2e7 + 20, 3.2e7, {"default": True, "abs_1e-6": False, "round_5pct": True,
                         "sirl": True}),
])
def test_tolerance_rules(a: float, b: float, expected: dict[str, bool]) -> None:
    assert {name: fn(a, b) for name, (_, fn) in RULES.items()} == expected


@pytest.fixture(scope="module")
def sandbox() -> Sandbox:
    with Sandbox() as sb:
        yield sb


def _score(sb: Sandbox, item: Item, code: str) -> object:
    return score_run(item, code, sb.run(make_job(item, code, Limits(wall_s=10, cpu_s=10))))


def test_objectives_from_real_runs(sandbox: Sandbox) -> None:
    item = Item("t", "t1", "q", "objective", answer=6.0)
    base = ("import gurobipy as gp\nmodel = gp.Model()\nmodel.Params.OutputFlag = 0\n"
            "x = model.addVar(ub=3)\ny = model.addVar(ub=2)\nmodel.addConstr(x + y <= 4)\n"
            "model.setObjective(x + 2 * y, gp.GRB.MAXIMIZE)\n")
    solved = _score(sandbox, item, base + "model.optimize()\n")
    assert solved.passed and solved.objective_source == "resolved:gurobi"
    # Built but not optimized (the B4O reference style): solved here all the same.
    built = _score(sandbox, item, base)
    assert built.passed and built.objective_source == "resolved:gurobi"
    # What a program prints is never the score: neither a lie beside a model...
    lying = _score(sandbox, item, base + "model.optimize()\nprint('OPTIMAL_OBJECTIVE: 5')\n")
    assert lying.passed and lying.objective == 6.0
    # ...nor a printed answer without one.
    printed = _score(sandbox, item, "print('OPTIMAL_OBJECTIVE: 6')\n")
    assert printed.failure == "no_model" and "not a score" in printed.detail
    assert _score(sandbox, item, "print('hello')\n").failure == "no_model"
    infeasible = _score(sandbox, item, base + "model.addConstr(x + y >= 5)\nmodel.optimize()\n")
    assert infeasible.failure == "infeasible"
    wrong = _score(sandbox, Item("t", "t2", "q", "objective", answer=3.0),
                   base + "model.optimize()\n")
    assert wrong.failure == "wrong_objective" and wrong.rules["round_5pct"] is False
    fixed = _score(sandbox, item, "import gurobipy as gp\nmodel = gp.Model()\n"
                   "x = model.addVar(lb=6, ub=6)\nmodel.setObjective(x)\nmodel.optimize()\n")
    assert fixed.failure == "trivial_model" and "fixed by its bounds" in fixed.detail
    slow = score_run(item, "while True: pass\n", sandbox.run(make_job(
        item, "while True: pass\n", Limits(wall_s=1, cpu_s=5))))
    assert slow.failure == "timeout"


def test_models_only_gurobi_reads_are_solved_by_gurobi(sandbox: Sandbox) -> None:
    item = Item("t", "t1", "q", "objective", answer=7.0)
    code = ("import gurobipy as gp\nmodel = gp.Model()\nmodel.Params.OutputFlag = 0\n"
            "x = model.addVar(ub=5)\ny = model.addVar(ub=5)\nz = model.addVar()\n"
            "b = model.addVar(vtype=gp.GRB.BINARY)\nmodel.addGenConstrMax(z, [x, y])\n"
            "model.addConstr((b == 1) >> (x <= 2))\nmodel.setObjective(z + 2 * b, "
            "gp.GRB.MAXIMIZE)\nmodel.optimize()\n")
    v = _score(sandbox, item, code)
    assert v.passed and v.objective_source == "resolved:gurobi", v.detail


def test_orgeval_scoring(sandbox: Sandbox, tmp_path: Path) -> None:
    ref = tmp_path / "ref.lp"
    ref.write_text("Maximize\n obj: 3 a + 2 b\nSubject To\n c1: a + b <= 4\nBounds\n"
                   " a <= 3\nEnd\n")
    item = Item("t", "t1", "q", "lp", reference_lp=str(ref), files={"data.json": "{}"})
    same = ("import gurobipy as gp\nmodel = gp.Model()\nq = model.addVar(name='q', ub=3)\n"
            "p = model.addVar(name='p')\nmodel.addConstr(2 * p + 2 * q <= 8)\n"
            "model.setObjective(-2 * p - 3 * q, gp.GRB.MINIMIZE)\nmodel.write('model.lp')\n")
    v = _score(sandbox, item, same)
    assert v.passed and v.equivalence == "equivalent"
    other = same.replace("<= 8", "<= 9")
    assert _score(sandbox, item, other).failure == "not_equivalent"
    assert _score(sandbox, item, "x = 1\n").failure == "no_lp"


def test_pool_never_shows_the_item_or_its_twin(tmp_path: Path) -> None:
    pool = tmp_path / "pool.jsonl"
    rows = [{"id": "a", "question": "factory makes chairs and tables profit", "answer": "A"},
            {"id": "b", "question": "factory makes chairs and tables profit twin", "answer": "B"},
            {"id": "c", "question": "factory chairs", "answer": "C"},
            {"id": "d", "question": "diet problem with vitamins", "answer": "D"},
            {"question": "Factory makes chairs, and tables: profit!", "answer": "E"}]
    pool.write_text("".join(json.dumps(r) + "\n" for r in rows))
    p = Pool(pool)
    item = Item("b4o", "a", "factory makes chairs and tables profit", "objective", twin="b")
    chosen = [s.id for s in p.select(item, 2)]
    assert chosen == ["c", "d"]  # a (itself), b (twin) and the same text (pool_5) are skipped
    msgs = messages(item, p.select(item, 1))
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user"]
    assert msgs[2]["content"] == "C"


def _rows(spec: dict[tuple[str, int], bool]) -> list[dict[str, object]]:
    return [{"id": i, "sample": s, "passed": p, "failure": None if p else "wrong_objective",
             "rules": {"default": p}} for (i, s), p in spec.items()]


def test_pass_at_k_and_mean_at_k() -> None:
    rows = _rows({("x", 0): True, ("x", 1): False, ("y", 0): False, ("y", 1): True,
                  ("z", 0): False, ("z", 1): False})
    s = bench_summary(rows, n_items=4, k=2, unscoreable=0)  # item w never scored: a failure
    assert s["pass@1"] == 1 / 4 and s["pass@2"] == 2 / 4 and s["mean@2"] == 2 / 8
    assert s["failures (sample 0)"] == {"wrong_objective": 2}


def test_compare_lists_flipped_items(tmp_path: Path) -> None:
    for name, passed in (("a", {"i1": True, "i2": False, "i3": True}),
                         ("b", {"i1": False, "i2": True, "i3": True})):
        d = tmp_path / name
        d.mkdir()
        rows = _rows({(i, 0): p for i, p in passed.items()})
        (d / "nl4opt.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
        s = bench_summary(rows, 3, 1, 0)
        (d / "summary.json").write_text(json.dumps({"benchmarks": {"nl4opt": s}}))
    c = compare(tmp_path / "a", tmp_path / "b")["benchmarks"]["nl4opt"]
    assert c["fixed"] == ["i2"] and c["broken"] == ["i1"] and c["delta"] == 0


def test_conflicting_ground_truths_across_benchmarks() -> None:
    from ortrex.benchmarks.base import Benchmark
    from ortrex.evaluation.selftest import conflicts

    a = Benchmark("nl4opt", [Item("nl4opt", "n1", "Maximise  profit.", "objective", 10.0),
                             Item("nl4opt", "n2", "Diet.", "objective", 46000.0)], "", "")
    b = Benchmark("optibench", [Item("optibench", "o1", "Maximise profit.", "objective", 12.0),
                                Item("optibench", "o2", "Diet.", "objective",
                                     45999.99999999999)], "", "")
    assert conflicts([a, b]) == [{"a": "n1", "a_answer": 10.0, "b": "o1", "b_answer": 12.0}]


def test_planted_capture_files_are_not_believed(sandbox: Sandbox) -> None:
    item = Item("t", "t1", "q", "objective", answer=7.0)
    code = ("import json\nopen('__captured_model__.mps', 'w').write('NAME x\\nENDATA\\n')\n"
            "json.dump({'solver': 'gurobipy', 'status': 'optimal', 'objective': 7.0},"
            " open('__captured_state__.json', 'w'))\n")
    v = _score(sandbox, item, code)
    assert not v.passed and v.failure == "no_model"


def test_markdown_summary_shape() -> None:
    from ortrex.evaluation.summary import markdown

    rows = _rows({("x", 0): True, ("y", 0): False})
    lp_rows = [{**r, "rules": {}} for r in rows]
    summary = {"model": "m", "k": 1, "rule": "default", "average pass@1": 0.5,
               "benchmarks": {"nl4opt": bench_summary(rows, 2, 1, 0),
                              "b4o-orgeval": bench_summary(lp_rows, 2, 1, 0)}}
    md = markdown(summary)
    assert "| Model | NL4OPT | B4O-ORGEval | Average |\n|---|---|---|---|\n" \
           "| m | 50.00 | 50.00 | 50.00 |" in md
    assert "| B4O-ORGEval | 2 | 50.00 | - | - | - | - | 0 | 0 |" in md
