"""``ortrex eval`` against a real OpenAI-compatible server on loopback (tests/evaluation/
openai_server.py): the oracle on all four benchmarks against the self-test, every failure
class, retries on 429, client timeouts, a run killed midway and resumed, bad input, and the
held-out split."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ortrex.benchmarks.registry import NAMES, load
from ortrex.evaluation.results import read_results
from tests.conftest import run_cli
from tests.evaluation.honest_programs import HONEST
from tests.evaluation.openai_server import Server, State, key_of, oracle_answers

pytestmark = pytest.mark.usefixtures("shared_benchmarks")


def _eval(url: str, model: str, out: Path, *args: str, timeout: float = 900
          ) -> subprocess.CompletedProcess[str]:
    return run_cli("eval", "--base-url", url, "--model", model, "--output", str(out),
                   "--workers", "2", *args, timeout=timeout)


def _failed(out: Path, bench: str) -> dict[str, str]:
    return {r["id"]: r["failure"] for r in read_results(out / f"{bench}.jsonl")
            if not r["passed"]}


@pytest.mark.xdist_group("eval-oracle")
def test_oracle_scores_all_but_what_the_selftest_lists(tmp_path: Path) -> None:
    r = run_cli("eval", "selftest", "--benchmarks", "b4o-feasible,b4o-orgeval", "--output",
                str(tmp_path / "selftest.json"), timeout=900)
    assert r.returncode == 0, r.stderr
    never = {s["benchmark"]: {x["id"]: x["failure"] for x in s["never_pass"]}
             for s in json.loads((tmp_path / "selftest.json").read_text())}
    twins = {s["benchmark"]: len(s["twins"]) for s in json.loads(
        (tmp_path / "selftest.json").read_text())}
    assert twins == {"b4o-feasible": 172, "b4o-orgeval": 197}
    # The references the prior work names: paraphrase twins fail together.
    assert {"BENCH4OPT_380", "BENCH4OPT_381"} <= set(never["b4o-orgeval"])
    assert 0 < len(never["b4o-orgeval"]) < 20 and len(never["b4o-feasible"]) < 16
    # A reference whose optimum rests on a number the statement never gives (9500).
    assert never["b4o-feasible"]["BENCH4OPT_159"] == "ungrounded_model"
    state = State({})
    with Server(state) as srv:
        for name in NAMES:
            # NL4OPT and OptiBench share questions with different answers: one at a time.
            bench = load(name)
            state.set_answers(oracle_answers([bench]))
            out = tmp_path / name
            r = _eval(srv.url, "oracle", out, "--benchmarks", name)
            assert r.returncode == 0, r.stderr
            summary = json.loads((out / "summary.json").read_text())["benchmarks"][name]
            assert summary["items"] == len(bench.items) == summary["scored"]
            failed = _failed(out, name)
            if name in ("nl4opt", "optibench"):
                # No reference programs: honest ones for a few items, the memorised answer
                # for the rest, which scores only where the statement itself gives the
                # answer (or one product of two of its numbers: then it is a derivation).
                for it in bench.items:
                    if it.id in HONEST:
                        assert it.id not in failed, (it.id, failed.get(it.id))
                    elif it.id not in failed and it.id not in never.get(name, {}):
                        assert _answer_given(it), it.id
                    elif it.id in failed and it.id not in never.get(name, {}):
                        assert failed[it.id] in ("ungrounded_model", "trivial_model"), it.id
            else:
                assert failed == never.get(name, {}), name
            manifest = json.loads((out / "manifest.json").read_text())
            assert manifest["benchmarks"][name]["sha256"] == bench.sha256
            assert manifest["tolerance_rule"]["name"] == "default"
    md = (tmp_path / "nl4opt" / "summary.md").read_text()
    assert "| Model | NL4OPT | Average |" in md and "| oracle |" in md


def _answer_given(it: object) -> bool:
    import numpy as np

    from ortrex.verifiers.grounding import Grounds

    g = Grounds.of(it.question, it.files)  # type: ignore[attr-defined]
    v = np.array([abs(it.answer)])  # type: ignore[attr-defined]
    return bool(g.direct(v)[0] or g.unary(v, shifted=False)[0] or
                (g.derived(v)[0] and g.specific(v)[0]))


EXPECTED = {"no_code": "no_code", "syntax": "syntax", "runtime": "runtime:ZeroDivisionError",
            "gurobi_api": "gurobi_api", "timeout": "timeout", "infeasible": "infeasible",
            "wrong_objective": "wrong_objective"}


def test_every_failure_class(tmp_path: Path) -> None:
    with Server(State({})) as srv:
        for cls, expected in EXPECTED.items():
            out = tmp_path / cls
            r = _eval(srv.url, f"broken-{cls}", out, "--benchmarks", "b4o-feasible",
                      "--limit", "2", "--exec-timeout", "2")
            assert r.returncode == 0, r.stderr
            assert set(_failed(out, "b4o-feasible").values()) == {expected}, cls
        out = tmp_path / "no_lp"
        r = _eval(srv.url, "broken-no_lp", out, "--benchmarks", "b4o-orgeval", "--limit", "2")
        assert r.returncode == 0 and set(_failed(out, "b4o-orgeval").values()) == {"no_lp"}
        summary = json.loads((out / "summary.json").read_text())["benchmarks"]["b4o-orgeval"]
        assert summary["pass@1"] == 0 and summary["failures (sample 0)"] == {"no_lp": 2}


def test_retries_on_429_and_client_timeouts(tmp_path: Path) -> None:
    bench = load("nl4opt")
    state = State(oracle_answers([bench]), slow_s=3, flaky_failures=2)
    with Server(state) as srv:
        r = _eval(srv.url, "flaky", tmp_path / "flaky", "--benchmarks", "nl4opt", "--limit",
                  "3")
        assert r.returncode == 0, r.stderr
        assert _failed(tmp_path / "flaky", "nl4opt") == {}
        keys = [key_of(it.question.strip()) for it in bench.items[:3]]
        assert [state.attempts[k] for k in keys] == [3, 3, 3]  # two 429s, then the answer
        state.attempts.clear()
        r = _eval(srv.url, "slow", tmp_path / "slow", "--benchmarks", "nl4opt", "--limit", "2",
                  "--request-timeout", "0.5", "--retries", "1")
        assert r.returncode == 0, r.stderr
        rows = read_results(tmp_path / "slow" / "nl4opt.jsonl")
        assert [(x["failure"], x["detail"]) for x in rows] == [("api_error", "timeout")] * 2
        assert [state.attempts[k] for k in keys[:2]] == [2, 2]  # one try, one retry
        # Without retries a 429 is an api_error; the rerun asks again and replaces the line.
        state.attempts.clear()
        state.flaky_failures = 1
        for _ in range(2):
            r = _eval(srv.url, "flaky", tmp_path / "again", "--benchmarks", "nl4opt", "--limit",
                      "2", "--retries", "0")
            assert r.returncode == 0, r.stderr
        rows = read_results(tmp_path / "again" / "nl4opt.jsonl")
        assert [x["passed"] for x in rows] == [True, True]
        assert (tmp_path / "again" / "nl4opt.jsonl").read_text().count("HTTP 429") == 2
        summary = json.loads((tmp_path / "again" / "summary.json").read_text())
        assert summary["benchmarks"]["nl4opt"]["pass@1"] == 1.0


def test_killed_run_resumes_without_losing_or_repeating(tmp_path: Path) -> None:
    bench = load("nl4opt")
    state = State(oracle_answers([bench]), delay_s=0.15)
    out = tmp_path / "run"
    with Server(state) as srv:
        cmd = [sys.executable, "-m", "ortrex", "eval", "--base-url", srv.url, "--model",
               "oracle", "--output", str(out), "--benchmarks", "nl4opt", "--limit", "30",
               "--k", "2", "--concurrency", "2"]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        results = out / "nl4opt.jsonl"
        deadline = time.time() + 120
        while time.time() < deadline and (
                not results.exists() or results.read_text().count("\n") < 10):
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        before = {(x["id"], x["sample"]) for x in read_results(results)}
        assert 10 <= len(before) < 60
        asked_before = sum(state.attempts.values())
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in results.read_text().splitlines()]
    keys = [(x["id"], x["sample"]) for x in lines]
    assert len(keys) == len(set(keys)) == 60  # none lost, none scored twice
    # The oracle's honest programs pass; its memorised answers (no honest program for the
    # item) are refused, both samples alike, however the run was cut.
    verdicts = {(x["id"], x["passed"], x["failure"]) for x in lines}
    assert len(verdicts) == 30
    assert all(ok or failure in ("ungrounded_model", "trivial_model")
               for _, ok, failure in verdicts), verdicts
    assert {i for i, ok, _ in verdicts if ok} >= set(HONEST) & {f"nl4opt_{k}" for k in
                                                                 range(30)}
    # Nothing already scored was asked again (only requests in flight at the kill repeat).
    assert sum(state.attempts.values()) <= 60 + (asked_before - len(before))
    summary = json.loads((out / "summary.json").read_text())["benchmarks"]["nl4opt"]
    assert summary["pass@1"] == summary["pass@2"] == summary["mean@2"] > 0
    # A second model, one-shot from a pool holding the items' own questions, and the diff.
    pool = tmp_path / "pool.jsonl"
    pool.write_text("".join(json.dumps({"id": it.id, "question": it.question, "answer": "A"})
                            + "\n" for it in bench.items[:5]))
    with Server(State({})) as srv:
        r = _eval(srv.url, "broken-syntax", tmp_path / "b", "--benchmarks", "nl4opt", "--limit",
                  "30", "--shots", "1", "--pool", str(pool))
    assert r.returncode == 0, r.stderr
    rows = read_results(tmp_path / "b" / "nl4opt.jsonl")
    assert all(len(x["shots"]) == 1 and x["id"] not in x["shots"] for x in rows)
    r = run_cli("eval", "compare", str(out), str(tmp_path / "b"), "--show", "3")
    assert r.returncode == 0 and f"-{summary['pass@1'] * 100:.2f}" in r.stdout, r.stdout
    assert "nl4opt broken: nl4opt_0, nl4opt_1" in r.stdout  # honest programs, now broken


def test_bad_input_stops_before_any_work(tmp_path: Path) -> None:
    with Server(State({})) as srv:
        cases = [
            (("--base-url", "http://127.0.0.1:9/v1", "--model", "oracle"), "cannot reach"),
            (("--base-url", srv.url, "--model", "gpt-nope"), "'gpt-nope' is not served"),
            (("--base-url", srv.url, "--model", "oracle", "--benchmarks", "mmlu"),
             "unknown benchmark 'mmlu'"),
            (("--base-url", srv.url, "--model", "oracle", "--data-dir", str(tmp_path / "no")),
             "does not exist"),
            (("--model", "oracle"), "give --base-url and --model"),
        ]
        for args, needle in cases:
            r = run_cli("eval", *args, "--output", str(tmp_path / "out"), "--limit", "1")
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            assert needle in r.stderr and "Traceback" not in r.stderr, r.stderr
            assert not (tmp_path / "out").exists()
        # A folder another run is writing to.
        import fcntl

        (tmp_path / "busy").mkdir()
        with open(tmp_path / "busy" / ".lock", "w") as held:
            fcntl.flock(held, fcntl.LOCK_EX)
            r = _eval(srv.url, "oracle", tmp_path / "busy", "--benchmarks", "nl4opt",
                      "--limit", "1")
        assert r.returncode == 2 and "another run is writing" in r.stderr, r.stderr


def test_heldout_split_is_scored_and_never_exported(tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    r = run_cli("pipeline", "--count", "6", "--families", "knapsack_01,transportation",
                "--forms", "DP", "--workers", "1", "--db", db, timeout=600)
    assert r.returncode == 0, r.stderr
    # A split seed that holds out some instances but not all (6 coin flips can go either way).
    from ortrex.benchmarks.heldout import _held

    ids = [row["id"] for row in json.loads(run_cli(
        "sql", "SELECT id FROM instances", "--db", db, "--format", "json").stdout)]
    seed = next(str(k) for k in range(100)
                if 0 < sum(_held(i, 0.5, k) for i in ids) < len(ids))
    r = run_cli("eval", "heldout", "--fraction", "0.5", "--seed", seed, "--db", db)
    assert r.returncode == 0 and "held out" in r.stdout, r.stderr
    rerun = run_cli("eval", "heldout", "--fraction", "0.5", "--seed", seed, "--db", db)
    assert "(0 new lineage edges)" in rerun.stdout  # idempotent
    (tmp_path / "x").mkdir()
    for kind in ("cpt", "sft"):
        r = run_cli("export", kind, "--output-prefix", str(tmp_path / "x" / kind), "--from-db",
                    "--db", db)
        assert r.returncode == 0, r.stderr
    leaked = json.loads(run_cli(
        "sql", "SELECT count(*) AS n FROM lineage e JOIN lineage h ON h.parent_id = e.parent_id "
        "WHERE e.relation = 'exported' AND h.relation = 'held_out'", "--db", db,
        "--format", "json").stdout)
    assert leaked == [{"n": 0}]
    docs = json.loads(run_cli(
        "sql", "SELECT d.messages, d.program FROM documents d JOIN lineage l ON l.parent_id = "
        "d.id AND l.relation = 'held_out' WHERE d.kind = 'sft'", "--db", db,
        "--format", "json").stdout)
    assert docs
    answers = {}
    for d in docs:
        msgs = d["messages"] if isinstance(d["messages"], list) else json.loads(d["messages"])
        answers[msgs[0]["content"]] = f"```python\n{d['program']}\n```"
    with Server(State(answers)) as srv:
        r = _eval(srv.url, "oracle", tmp_path / "h", "--benchmarks", "ortrex-heldout", "--db",
                  db)
    assert r.returncode == 0, r.stderr
    s = json.loads((tmp_path / "h" / "summary.json").read_text())["benchmarks"]
    assert s["ortrex-heldout"]["items"] == len(docs) and s["ortrex-heldout"]["pass@1"] == 1.0
