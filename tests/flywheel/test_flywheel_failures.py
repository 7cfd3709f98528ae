"""The flywheel when things go wrong, against the loopback server: a distill killed with
SIGKILL resumes without asking the server again for what it has cached; configuration errors
are one line and exit 2 with nothing written; an endpoint that answers garbage, times out or a
reviewer that gives no verdict leaves per-item failure rows that a rerun retries; a program
that runs forever is a ``timeout`` mistake."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ortrex.flywheel.answers import Problem, problem_rows
from ortrex.store import Store
from tests.conftest import run_cli
from tests.engine.flaws import answer, cli, flawed_program, program, shared_store
from tests.evaluation.openai_server import Server, State, key_of, question_of


def q(db: Path, query: str) -> list[dict[str, Any]]:
    with Store(db, read_only=True) as s:
        return s.query(query).to_dicts()


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Problem]]:
    """Two transportation instances, DP and DT: four problems (built once per session)."""
    def build(db: Path) -> None:
        r = run_cli("pipeline", "--count", "2", "--families", "transportation", "--kinds", "sft",
                "--forms", "DP,DT", "--size", "small", "--workers", "1", "--seed", "3",
                "--db", str(db))
        assert r.returncode == 0, r.stderr

    db = shared_store(tmp_path_factory, "flywheel-small", build)
    with Store(db, read_only=True) as s:
        problems = problem_rows(s, None, None)
    assert len(problems) == 4
    return db, problems


def _copy(src: Path, tmp: Path) -> Path:
    db = tmp / "s.duckdb"
    shutil.copy(src, db)
    return db


def _right(problems: list[Problem]) -> dict[str, str]:
    return {key_of(p.question.strip()): answer(program(p.sm)) for p in problems}


def test_killed_distill_resumes_without_asking_again(small: tuple[Path, list[Problem]],
                                                     tmp_path: Path) -> None:
    src, problems = small
    db = _copy(src, tmp_path)
    right = _right(problems)
    state = State({}, delay_s=0.25)
    state.scripts = {"right": lambda m: right[key_of(question_of(m))]}
    cache = tmp_path / "cache"
    with Server(state) as srv:
        cmd = [sys.executable, "-m", "ortrex", "distill", "--base-url", srv.url, "--model",
               "right", "--k", "3", "--concurrency", "1", "--workers", "1", "--cache",
               str(cache), "--db", str(db)]
        p = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                             start_new_session=True)
        deadline = time.time() + 120
        while time.time() < deadline and len(list(cache.rglob("*.json"))) < 4:
            time.sleep(0.05)
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()
        cached = len(list(cache.rglob("*.json")))
        asked_before = state.by_model["right"]
        assert 4 <= cached < 12 and asked_before <= cached + 1  # at most one in flight
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=600)
        assert r.returncode == 0, r.stderr
        asked_after = state.by_model["right"] - asked_before
    # Only what was not cached was asked again; every (problem, sample) answered once.
    assert asked_after == 12 - cached, (asked_after, cached)
    assert f"{cached} from the cache" in r.stdout or cached == 12 - asked_after
    rows = q(db, "SELECT document_id, sample, outcome FROM answers")
    assert len(rows) == len({(x["document_id"], x["sample"]) for x in rows}) == 12
    assert {x["outcome"] for x in rows} == {"passed"}
    runs = q(db, "SELECT status FROM runs WHERE command = 'distill'")
    assert runs == [{"status": "complete"}]


def test_configuration_errors_exit_2_and_write_nothing(small: tuple[Path, list[Problem]],
                                                      tmp_path: Path) -> None:
    src, problems = small
    db = _copy(src, tmp_path)
    before = q(db, "SELECT count(*) AS n FROM runs")
    right = _right(problems)
    state = State({})
    state.scripts = {"right": lambda m: right[key_of(question_of(m))]}
    with Server(state) as srv:
        cases = [
            (("distill", "--base-url", "http://127.0.0.1:9/v1", "--model", "right"),
             "cannot reach"),
            (("distill", "--base-url", srv.url, "--model", "gpt-nope"), "'gpt-nope' is not "
                                                                        "served"),
            (("distill", "--model", "right"), "give --base-url and --model"),
            (("distill", "--base-url", srv.url, "--model", "right", "--from", "nonsense ="),
             "--from 'nonsense ='"),
            (("distill", "--base-url", srv.url, "--model", "right", "--from",
              "family = 'tsp_mtz'"), "no accepted SFT examples to ask about match"),
            (("distill", "--base-url", srv.url, "--model", "right", "--db",
              str(tmp_path / "none.duckdb")), "no store"),
            (("clean", "--repair", "served"), "--repair served needs a served model"),
            (("clean", "--branches", "clean,dirty"), "unknown branch 'dirty'"),
            (("clean", "--max-rounds", "0"), "--max-rounds must be at least 1"),
            (("clean", "--base-url", srv.url), "give both --base-url and --model"),
            (("clean", "--base-url", srv.url, "--model", "gpt-nope"), "is not served"),
        ]
        for k, (args, needle) in enumerate(cases):
            extra = () if "--db" in args else ("--db", str(db))
            # The first in a real process (its exit status); the rest through the same entry
            # point in this one.
            r = (run_cli if k == 0 else cli)(*args, *extra, "--cache", str(tmp_path / "cache"))
            assert r.returncode == 2, (args, r.stdout, r.stderr)
            assert needle in r.stderr and "Traceback" not in r.stderr, (needle, r.stderr)
    assert q(db, "SELECT count(*) AS n FROM runs") == before
    assert q(db, "SELECT count(*) AS n FROM answers") == [{"n": 0}]
    assert not (tmp_path / "cache").exists()


def test_garbage_timeouts_and_a_silent_reviewer_are_item_failures(
        small: tuple[Path, list[Problem]], tmp_path: Path) -> None:
    src, problems = small
    db = _copy(src, tmp_path)
    right = _right(problems)
    by_key = {key_of(p.question.strip()): p for p in problems}
    state = State({}, slow_s=3)
    plan = {key_of(p.question.strip()): m for p, m in
            zip(problems, ("garbage", "babble", "forever", "slow"), strict=True)}

    def mixed(messages: list[dict[str, Any]]) -> str | bytes:
        key = key_of(question_of(messages))
        how = plan[key]
        if how == "garbage":
            return b"<html>502 upstream garbage{{{"
        if how == "babble":
            return "I think the answer is 42, trust me."
        if how == "forever":
            return answer("while True:\n    pass\n")
        time.sleep(state.slow_s)
        return right[key]

    state.scripts = {"mixed": mixed, "right": lambda m: right[key_of(question_of(m))]}
    with Server(state) as srv:
        args = ("distill", "--base-url", srv.url, "--model", "mixed", "--db", str(db),
                "--exec-timeout", "1", "--request-timeout", "1", "--retries", "0",
                "--workers", "2", "--cache", str(tmp_path / "cache"))
        r = cli(*args)
        assert r.returncode == 0, r.stderr
        assert "2 items failed" in r.stdout
        fails = {x["error"].split(":")[0] + ":" + x["error"].split(":")[1].split()[0]
                 for x in q(db, "SELECT error FROM task_failures WHERE command = 'distill'")}
        assert fails == {"endpoint:bad", "endpoint:timeout"}, fails
        got = {x["mistake"] for x in q(db, "SELECT mistake FROM answers")}
        assert got == {"output_contract", "timeout"}
        # The endpoint recovers: the rerun asks only the failed items, and clears their rows.
        asked = state.by_model["mixed"]
        plan.update({k: "slow" for k, v in plan.items() if v == "garbage"})
        state.slow_s = 0.0
        r = cli(*args)
        assert r.returncode == 0, r.stderr
        assert state.by_model["mixed"] - asked == 2
        assert q(db, "SELECT count(*) AS n FROM task_failures") == [{"n": 0}]
        assert q(db, "SELECT outcome, count(*) AS n FROM answers GROUP BY ALL ORDER BY ALL"
                 ) == [{"outcome": "mistaken", "n": 2}, {"outcome": "passed", "n": 2}]
        # A reviewer that answers without a verdict: the answer's failure row, not the run's.
        extra = next(k for k, v in plan.items() if v == "forever")
        p = by_key[extra]
        state.scripts["fixer"] = lambda m: answer(program(p.sm)) if m[-1]["content"].startswith(
            "A first answer") else "I have reviewed it carefully and it is fine."
        r = cli("clean", "--base-url", srv.url, "--model", "fixer", "--db", str(db),
                    "--branches", "clean", "--cache", str(tmp_path / "cache"),
                    "--exec-timeout", "5")
        assert r.returncode == 0, r.stderr
        stages = q(db, "SELECT mistake, failure FROM clean_stages ORDER BY mistake")
        assert [s["mistake"] for s in stages] == ["output_contract", "timeout"]
        assert all("the reviewer's reply holds no verdict" in s["failure"] for s in stages
                   if s["mistake"] == "timeout")
        assert q(db, "SELECT count(*) AS n FROM task_failures WHERE command = 'clean'"
                 )[0]["n"] >= 1


def test_a_flawed_answer_repaired_without_a_server(small: tuple[Path, list[Problem]],
                                                   tmp_path: Path) -> None:
    """Deterministic cleaning needs no endpoint: the verifiers review alone."""
    src, problems = small
    db = _copy(src, tmp_path)
    flawed = {key_of(p.question.strip()): answer(flawed_program(p.sm, m))
              for p, m in zip(problems, ("domain", "objective_sense", "units",
                                         "extra_constraint"), strict=True)}
    state = State({})
    state.scripts = {"flawed": lambda m: flawed[key_of(question_of(m))]}
    with Server(state) as srv:
        r = cli("distill", "--base-url", srv.url, "--model", "flawed", "--db", str(db),
                "--cache", str(tmp_path / "cache"))
        assert r.returncode == 0, r.stderr
    r = cli("clean", "--db", str(db), "--branches", "clean_cot")
    assert r.returncode == 0, r.stderr
    stages = {s["mistake"]: s for s in q(db, "SELECT * FROM clean_stages")}
    for m in ("domain", "objective_sense", "units"):
        assert stages[m]["exported"], (
            m, stages[m]["failure"], q(db, "SELECT verdict, reason, details FROM reviews"),
            q(db, "SELECT method, status, detail, validation FROM repairs"))
    assert not stages["extra_constraint"]["repaired"]
    assert "a served model repairs it" in stages["extra_constraint"]["failure"] or \
        "needs a served model" in stages["extra_constraint"]["failure"]
    reviewers = {x["reviewer"] for x in q(db, "SELECT reviewer FROM reviews")}
    assert reviewers == {"verifiers"}
