"""The hostile suite through the real entry points: every scoring cheat scores 0 while an honest
program scores 100% (scoring, then ``ortrex eval`` against a loopback server with an API key in
its environment), and hostile seeds through ``ortrex import-seeds`` (a Unix-socket escape, a
seed that fails its static checks, forged captures, a printed optimum the model contradicts)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from ortrex.benchmarks.registry import load
from ortrex.served.client import Completion
from ortrex.served.scoring import score_completion
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool
from tests.conftest import run_cli, seed_outcomes
from tests.evaluation.openai_server import (
    CHEAT_FAILURES,
    CHEATS,
    GROUNDING_CHEATS,
    Server,
    State,
    cheat_completion,
    oracle_answers,
    oracle_completion,
)
from tests.verifiers.hostile import unix_listener

pytestmark = pytest.mark.usefixtures("shared_benchmarks")
LIMITS = Limits(wall_s=20, cpu_s=20)


def test_every_cheat_scores_zero_and_honest_programs_full() -> None:
    # Items with an honest oracle (NL4OPT, OptiBench: honest_programs.HONEST; B4O: the
    # reference) whose answer the statement does not give.
    ids = {"nl4opt_1", "BENCH4OPT_8", "BENCH4OPT_10"}
    objective = [it for name in ("nl4opt", "b4o-feasible") for it in load(name).items
                 if it.id in ids]
    assert len(objective) == len(ids)
    orgeval = load("b4o-orgeval").items[:2]
    pool = SandboxPool()
    try:
        for it in [*objective, *orgeval]:
            v = score_completion(it, Completion(oracle_completion(it)), pool, LIMITS,
                                 "default")
            assert v.passed, (it.id, v.failure, v.detail)
        for name, failure in CHEAT_FAILURES.items():
            items = orgeval if name == "copy-reference" else objective
            for it in items:
                v = score_completion(it, Completion(cheat_completion(name, it)), pool, LIMITS,
                                     "default")
                expected = failure if isinstance(failure, tuple) else (failure,)
                assert not v.passed and v.failure in expected, (name, it.id, v.failure,
                                                                v.detail)
    finally:
        pool.close()


def test_eval_cli_cheats_score_zero_and_keys_stay_out(tmp_path: Path) -> None:
    bench = load("nl4opt")
    state = State(oracle_answers([bench]))
    state.set_cheats([bench])
    key = "sk-test-" + os.urandom(8).hex()
    with Server(state) as srv:
        for model in ("oracle", *(f"cheat-{c}" for c in CHEATS
                                  if c != "copy-reference" and c not in GROUNDING_CHEATS)):
            out = tmp_path / model
            r = run_cli("eval", "--base-url", srv.url, "--model", model, "--output", str(out),
                        "--benchmarks", "nl4opt", "--limit", "3", "--workers", "2",
                        env={"OPENAI_API_KEY": key}, timeout=600)
            assert r.returncode == 0, r.stderr
            summary = json.loads((out / "summary.json").read_text())["benchmarks"]["nl4opt"]
            assert summary["pass@1"] == (1.0 if model == "oracle" else 0.0), model
            for f in out.rglob("*"):
                if f.is_file():
                    assert key.encode() not in f.read_bytes(), f
    # A program that prints its environment gets no key to print.
    env_dump = "```python\nimport os\nraise RuntimeError(str(dict(os.environ)))\n```"
    state.set_answers({it.question: env_dump for it in bench.items[:2]})
    with Server(state) as srv:
        out = tmp_path / "env"
        r = run_cli("eval", "--base-url", srv.url, "--model", "oracle", "--output", str(out),
                    "--benchmarks", "nl4opt", "--limit", "2", env={"OPENAI_API_KEY": key},
                    timeout=600)
    assert r.returncode == 0, r.stderr
    text = (out / "nl4opt.jsonl").read_text()
    assert "PATH" in text and key not in text


_MODEL = """import gurobipy as gp
model = gp.Model()
model.Params.OutputFlag = 0
x = model.addVar(ub=1000, name="x")
y = model.addVar(ub=1000, name="y")
model.addConstr(x + y <= 1000, name="cap")
model.setObjective(2 * x + y, gp.GRB.MAXIMIZE)
model.optimize()
"""


def _seed(sid: str, program: str) -> str:
    return json.dumps({"id": sid, "problem": f"Problem {sid}: maximise 2x + y.",
                       "answer": f"<python>\n{program}\n</python>",
                       "metadata": {"structure": "hostile"}}) + "\n"


def test_import_seeds_against_hostile_seeds(tmp_path: Path) -> None:
    outside = tmp_path / "marker-outside"
    with unix_listener(tmp_path) as host:
        # Passes the static checks (an attribute chain reaches __import__), then tries the
        # host's Unix socket and a write outside; its model is real.
        escape = _MODEL + (
            "import collections\n"
            "imp = collections._sys.modules['builtins'].__import__\n"
            "sock = imp('socket')\n"
            "for path in (" + repr(host.path) + ", '/proc/1/root" + host.path + "'):\n"
            "    try:\n"
            "        s = sock.socket(sock.AF_UNIX)\n"
            "        s.connect(path)\n"
            "        s.sendall(b'touch " + str(outside) + "\\n')\n"
            "    except OSError as e:\n"
            "        print('refused', e)\n"
            "try:\n"
            "    imp('pathlib').Path(" + repr(str(outside)) + ").write_text('x')\n"
            "except OSError:\n"
            "    pass\n"
            "print('objective', model.ObjVal)\n")
        static_fail = "import socket\n" + _MODEL + "print('objective', model.ObjVal)\n"
        fake_class = ("class Model:\n    ObjVal = -11.0\nModel.__module__ = 'gurobipy'\n"
                      "model = Model()\nprint('objective', -11)\n")
        # The static checks forbid importing os: an attribute chain reaches it all the same.
        os_ = "import collections\nos = collections._sys.modules['os']\n"
        channel = _MODEL + os_ + ("os.write(3, b'NAME fake\\nROWS\\n N obj\\nENDATA\\n')\n"
                                  "print('objective', -11)\n")
        planted = _MODEL + os_ + (
            "import json\nos.unlink = lambda *a: None\n"
            "for name, text in (('__captured_model__.mps', 'NAME f\\nENDATA\\n'),\n"
            "                   ('__captured_state__.json', json.dumps({'objective': -11}))):\n"
            "    os.write(os.open(name, os.O_WRONLY | os.O_CREAT, 0o644), text.encode())\n"
            "print('Optimal objective:', -11)\n")
        env_dump = os_ + "raise RuntimeError(str(dict(os.environ)))\n"
        seeds = tmp_path / "seeds.jsonl"
        seeds.write_text("".join(_seed(s, p) for s, p in (
            ("escape", escape), ("static", static_fail), ("fake", fake_class),
            ("channel", channel), ("planted", planted), ("env", env_dump))))
        db = tmp_path / "s.duckdb"
        key = "sk-test-" + os.urandom(8).hex()
        r = run_cli("import-seeds", str(seeds), "--db", str(db), "--workers", "1",
                    env={"OPENAI_API_KEY": key}, timeout=600)
        time.sleep(0.3)
        assert r.returncode == 0, r.stderr
        assert host.hits == 0 and not outside.exists()
    rows = json.loads(run_cli(
        "sql", "SELECT json_extract_string(l.params, '$.seed_id') AS seed, d.status, "
        "d.reject_reason AS reason, d.objective FROM documents d JOIN lineage l ON "
        "l.child_id = d.id AND l.relation = 'imported' ORDER BY seed", "--db", str(db),
        "--format", "json").stdout)
    got = {x["seed"]: (x["status"], x["reason"], x["objective"]) for x in rows}
    assert got["escape"] == ("accepted", None, 2000.0)
    assert got["static"] == ("rejected", "static_check_failed", None)
    assert got["fake"][:2] == ("rejected", "forged_capture")
    assert got["channel"][:2] == ("rejected", "forged_capture")
    # The planted files were ignored: the real model was captured and solved here (2000),
    # and the printed -11 contradicts it.
    assert got["planted"] == ("rejected", "reported_objective_differs", 2000.0)
    why = json.loads(run_cli(
        "sql", "SELECT v.details FROM verifications v JOIN lineage l ON l.child_id = "
        "v.subject_id WHERE v.verifier = 'static' AND json_extract_string(l.params, "
        "'$.seed_id') = 'static'", "--db", str(db), "--format", "json").stdout)
    assert "import of 'socket' is not allowed" in why[0]["details"]
    # The program printed its whole environment into the verdict: no key was in it.
    details = run_cli("sql", "SELECT details FROM verifications", "--db", str(db),
                      "--format", "csv").stdout
    assert got["env"][:2] == ("rejected", "program_failed")
    assert "PATH" in details and key not in details


def test_a_poisoned_answer_among_honest_ones_does_not_end_the_run(tmp_path: Path) -> None:
    from ortrex.evaluation.results import read_results

    bench = load("nl4opt")
    items = bench.items[:3]
    answers = oracle_answers([bench])
    # Names that would be MPS sections, written by the answer to an item in the middle.
    answers[items[1].question] = cheat_completion("name-injection", items[1])
    state = State(answers)
    out = tmp_path / "run"
    with Server(state) as srv:
        for _ in range(2):  # the rerun resumes: nothing is asked or scored again
            r = run_cli("eval", "--base-url", srv.url, "--model", "oracle", "--output",
                        str(out), "--benchmarks", "nl4opt", "--limit", "3", "--workers", "2",
                        timeout=600)
            assert r.returncode == 0, r.stderr
    rows = read_results(out / "nl4opt.jsonl")
    assert {x["id"]: (x["passed"], x["failure"]) for x in rows} == {
        items[0].id: (True, None), items[1].id: (False, "ungrounded_model"),
        items[2].id: (True, None)}
    assert len((out / "nl4opt.jsonl").read_text().splitlines()) == 3
    assert sum(state.attempts.values()) == 3


_WORKSHOP = ("A workshop has 40 hours of labour and 30 units of wood a week. A chair takes 2 hours "
             "and 1 unit of wood and earns $30; a table takes 3 hours and 4 units of wood and "
             "earns $50. How many of each should it make to earn the most?")
_WORKSHOP_HONEST = """import gurobipy as gp
m = gp.Model()
m.Params.OutputFlag = 0
chairs = m.addVar(name="chairs")
tables = m.addVar(name="tables")
m.addConstr(2 * chairs + 3 * tables <= 40, name="labour")
m.addConstr(chairs + 4 * tables <= 30, name="wood")
m.setObjective(30 * chairs + 50 * tables, gp.GRB.MAXIMIZE)
m.optimize()
print("objective", m.ObjVal)
"""


def test_import_seeds_refuses_seeds_that_type_their_answer_in(tmp_path: Path) -> None:
    # The workshop's optimum (620) is in no sentence of it: every cheat types it in, through
    # gurobipy or highspy, and is refused with its verdict; the honest seed is accepted.
    class Answer:
        answer, reference_lp = 620.0, None

    cheats = sorted(GROUNDING_CHEATS)
    lines = [json.dumps({"id": "honest", "problem": _WORKSHOP,
                         "answer": f"<python>\n{_WORKSHOP_HONEST}</python>"})]
    for name in cheats:
        code = cheat_completion(name, Answer).removeprefix("```python\n").removesuffix("```")
        lines.append(json.dumps({"id": name, "problem": _WORKSHOP,
                                 "answer": f"<python>\n{code}</python>"}))
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text("\n".join(lines) + "\n")
    db = tmp_path / "s.duckdb"
    r = run_cli("import-seeds", str(seeds), "--db", str(db), "--workers", "1", timeout=900)
    assert r.returncode == 0, r.stderr
    got = {k: v[:2] for k, v in seed_outcomes(db).items()}
    assert got.pop("honest") == ("accepted", None)
    assert {"highs-lower-bound", "highs-name-injection"} <= set(got)  # both solvers' paths
    for name in cheats:
        expected = CHEAT_FAILURES[name]
        # import-seeds reads models itself: general constraints are not read there (yet).
        allowed = {expected, "unsupported_model"} if name == "general-constraint" else {
            expected}
        assert got[name][0] == "rejected" and got[name][1] in allowed, (name, got[name])
