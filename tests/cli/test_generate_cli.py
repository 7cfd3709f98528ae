"""``ortrex generate`` through real subprocesses: summary, kill -9 and resume, bad input."""

from __future__ import annotations

import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb

from ortrex.store import Store
from ortrex.store.migrations import create_snapshot
from tests.cli.test_bad_input import assert_one_line_error, digest
from tests.conftest import lock_held, run_cli

# Small instances: these tests are about the job (summary, resume, full disk), not sizes.
ARGS = ["--families", "transportation,knapsack_01,lot_sizing,set_cover,portfolio,tsp_mtz",
        "--size", "small"]


def counts(db: Path) -> dict[str, int]:
    with Store(db, read_only=True) as s:
        return s.counts()


def task_rows(db: Path) -> list[tuple]:  # type: ignore[type-arg]
    with Store(db, read_only=True) as s:
        return s.query("SELECT task, instance_id, outcome FROM run_tasks ORDER BY task").rows()


def test_generate_prints_a_summary(tmp_path: Path) -> None:
    db = tmp_path / "g.duckdb"
    r = run_cli("generate", "--count", "40", "--seed", "4", "--workers", "2", *ARGS,
                "--db", str(db))
    assert r.returncode == 0, r.stderr
    for text in ("by family", "accepted", "highs optimal", "gurobi optimal", "difficulty easy",
                 "tsp_mtz", "tasks / s"):
        assert text in r.stdout, text
    c = counts(db)
    assert c["run_tasks"] >= 40 and c["verifications"] == 2 * c["instances"]


def test_kill_minus_nine_then_resume_equals_an_uninterrupted_run(tmp_path: Path) -> None:
    count = ["--count", "1200", "--seed", "9", "--workers", "2", *ARGS]
    whole = tmp_path / "whole.duckdb"
    assert run_cli("generate", *count, "--db", str(whole)).returncode == 0
    killed = tmp_path / "killed.duckdb"
    proc = subprocess.Popen([sys.executable, "-m", "ortrex", "generate", *count, "--db",
                             str(killed)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    # Kill once the job is under way: startup time varies with the machine's load, so wait for
    # the store to appear rather than for a fixed time.
    deadline = time.monotonic() + 120
    while not killed.exists() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.1)
    time.sleep(2.0)
    os.killpg(proc.pid, signal.SIGKILL)  # the job and its workers, mid-flight
    proc.wait()
    partial = task_rows(killed)
    assert len(partial) < 1200, "the job finished before it was killed; raise --count"
    r = run_cli("generate", *count, "--db", str(killed))
    if partial:
        assert r.returncode == 2 and "pass --resume" in r.stderr
    assert run_cli("generate", *count, "--db", str(killed), "--resume").returncode == 0
    assert task_rows(killed) == task_rows(whole)
    assert counts(killed) == counts(whole)
    with Store(killed, read_only=True) as s:
        assert s.query("SELECT count(*) - count(DISTINCT id) FROM instances").item() == 0


def test_bad_generate_input(tmp_path: Path) -> None:
    db = tmp_path / "b.duckdb"
    assert_one_line_error(run_cli("generate", "--families", "tsp,knapsack", "--db", str(db)),
                          "unknown families 'tsp' (did you mean 'tsp_mtz'?), 'knapsack' (did "
                          "you mean 'knapsack_01'?); known: assignment")
    assert_one_line_error(run_cli("generate", "--count", "0", "--db", str(db)),
                          "--count must be positive")
    assert_one_line_error(run_cli("generate", "--count", "-3", "--db", str(db)),
                          "--count must be positive")
    assert_one_line_error(run_cli("generate", "--workers", "5000", "--db", str(db)),
                          "--workers must be between 1 and")
    assert_one_line_error(run_cli("generate", "--size", "huge", "--db", str(db)),
                          "unknown size 'huge'")
    assert not db.exists()  # nothing was created for bad input


def test_an_older_schema_store_is_refused_until_init(tmp_path: Path) -> None:
    db = tmp_path / "v1.duckdb"
    con = duckdb.connect(str(db))
    create_snapshot(con, 1)
    con.close()
    before = digest(db)
    assert_one_line_error(run_cli("generate", "--count", "5", "--db", str(db)),
                          "has schema v1; run `ortrex init` to migrate")
    assert digest(db) == before
    assert run_cli("init", "--db", str(db)).returncode == 0
    assert run_cli("generate", "--count", "5", *ARGS, "--db", str(db)).returncode == 0


def test_a_locked_store(tmp_path: Path) -> None:
    db = tmp_path / "l.duckdb"
    assert run_cli("init", "--db", str(db)).returncode == 0
    with lock_held(db) as pid:
        assert_one_line_error(run_cli("generate", "--count", "5", "--db", str(db)),
                              f"locked by another process (PID {pid})")


def _small_disk() -> None:
    # A full disk, simulated: files of this process may not grow beyond 2 MB.
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    resource.setrlimit(resource.RLIMIT_FSIZE, (2_000_000, 2_000_000))


def test_a_full_disk_stops_the_job_cleanly(tmp_path: Path) -> None:
    db = tmp_path / "full.duckdb"
    assert run_cli("init", "--db", str(db)).returncode == 0
    args = ["generate", "--count", "3000", "--workers", "1", *ARGS, "--db", str(db)]
    r = subprocess.run([sys.executable, "-m", "ortrex", *args], preexec_fn=_small_disk,
                       capture_output=True, text=True, timeout=600)
    assert_one_line_error(r, "cannot write to store", "disk is full")
    done = task_rows(db)  # what was committed is whole: a prefix of the tasks
    assert [t for t, _, _ in done] == list(range(len(done)))
    assert run_cli("generate", *args[1:], "--resume").returncode == 0
    assert len(task_rows(db)) >= 3000
