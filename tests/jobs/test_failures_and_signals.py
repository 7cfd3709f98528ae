"""A job with tasks that raise and tasks that kill their worker finishes, records each as a
failure row and resumes past them; Ctrl-C at random moments stops a real ``ortrex generate``
cleanly every time, and the job then finishes exactly as an uninterrupted one."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.knapsack import Knapsack01
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.ir.semantic import SemanticModel
from ortrex.jobs import LocalExecutor
from ortrex.store import Store
from tests.conftest import run_cli
from tests.verifiers.hostile import processes_with


class Faulty(Knapsack01):
    """Knapsacks, except that some draws raise and some kill the worker (seeded: the same
    tasks fail on every attempt and every run)."""

    name = "faulty_knapsack"

    def sample(self, rng: np.random.Generator, size: str = "small") -> SemanticModel:
        u = rng.random()
        if u < 0.15:
            raise RuntimeError("the faulty family fails on this draw")
        if u < 0.25:
            os._exit(9)  # as a segfault in a solver would
        return REGISTRY["knapsack_01"].sample(rng, size)


@pytest.fixture()
def faulty() -> Iterator[str]:
    REGISTRY[Faulty.name] = Faulty()  # forked workers inherit it
    try:
        yield Faulty.name
    finally:
        del REGISTRY[Faulty.name]


def test_failing_tasks_become_failure_rows_and_the_job_completes(tmp_path: Path,
                                                                 faulty: str) -> None:
    db = tmp_path / "f.duckdb"
    spec = JobSpec((faulty, "transportation"), 30, seed=5, size="small")
    ex = LocalExecutor(2, retries=1)
    try:
        with Store(db, create=True) as s:
            rep = run_job(s, spec, executor=ex)
    finally:
        ex.close()
    assert rep.accepted == 30 and rep.failed > 0
    out = json.loads(run_cli(
        "sql", "SELECT kind, error, attempts, count(*) AS n, count(DISTINCT digest) AS causes "
        "FROM task_failures GROUP BY ALL ORDER BY kind", "--db", str(db), "--format",
        "json").stdout)
    kinds = {r["kind"]: r for r in out}
    assert set(kinds) == {"crash", "error"}, out
    assert kinds["error"]["error"] == "RuntimeError: the faulty family fails on this draw"
    assert kinds["error"]["attempts"] == 2 and kinds["error"]["causes"] == 1
    assert kinds["crash"]["attempts"] == 2
    assert sum(r["n"] for r in out) == rep.failed
    with Store(db) as s:
        tasks = s.query("SELECT outcome, count(*) FROM run_tasks GROUP BY ALL").rows()
        first = s.query("SELECT id FROM instances ORDER BY id").rows()
    assert dict(tasks)["failed"] == rep.failed
    # A larger count continues past the failures without trying them again.
    ex = LocalExecutor(2, retries=1)
    try:
        with Store(db) as s:
            rep2 = run_job(s, JobSpec((faulty, "transportation"), 40, seed=5, size="small"),
                           executor=ex, resume=True)
            again = s.query("SELECT id FROM instances ORDER BY id").rows()
            n_fail = s.query("SELECT count(*) FROM task_failures").item()
    finally:
        ex.close()
    assert rep2.accepted == 40 and set(first) <= set(again)
    assert n_fail == rep2.failed >= rep.failed


def _interrupt(db: Path, after: float) -> tuple[int, str]:
    p = subprocess.Popen([sys.executable, "-m", "ortrex", "--db", str(db), "generate",
                          "--count", "400", "--size", "small", "--seed", "9", "--workers", "2"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         start_new_session=True)
    time.sleep(after)
    with_kill = p.poll() is None
    if with_kill:
        os.killpg(p.pid, signal.SIGINT)  # Ctrl-C reaches the whole process group
    try:
        _, err = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        p.communicate()
        raise AssertionError(f"generate hung after Ctrl-C at {after:.2f} s") from None
    return (p.returncode if with_kill else -1), err


def _instances(db: Path) -> list[Any]:
    with Store(db) as s:
        return s.query("SELECT id, status, reject_reason FROM instances ORDER BY id").rows()


def test_ctrl_c_at_random_moments_stops_cleanly_and_the_job_finishes_as_if_uninterrupted(
        tmp_path: Path) -> None:
    db = tmp_path / "i.duckdb"
    rng = random.Random(0)
    codes = []
    for _ in range(50):
        rc, err = _interrupt(db, rng.uniform(0.3, 1.8))
        codes.append(rc)
        if rc == 130:
            assert err.strip().endswith("interrupted; run the same command to continue"), err
            assert "Traceback" not in err, err
        else:  # the job had finished before the signal (or the signal came at its very end)
            assert rc in (-1, 0), (rc, err)
        assert "Traceback" not in err, err
        # No worker outlives its driver.
        assert processes_with(str(db).encode()) == [], "orphaned workers"
    assert codes.count(130) >= 40, codes
    r = run_cli("generate", "--count", "400", "--size", "small", "--seed", "9",
                "--workers", "2", "--db", str(db), timeout=600)
    assert r.returncode == 0, r.stderr
    ref = tmp_path / "ref.duckdb"
    r = run_cli("generate", "--count", "400", "--size", "small", "--seed", "9",
                "--workers", "2", "--db", str(ref), timeout=600)
    assert r.returncode == 0, r.stderr
    assert _instances(db) == _instances(ref)


def test_a_signal_inside_a_duckdb_write_is_an_interrupt_not_an_internal_error(
        tmp_path: Path) -> None:
    """A signal handler's exception raised inside a DuckDB query comes back as DuckDB's own
    ``Query interrupted`` (the Python exception is lost): the store rolls back whole and the
    driver still stops as interrupted rather than reporting an internal error."""
    import datetime

    import duckdb
    import pyarrow as pa

    from ortrex.jobs import InlineExecutor, drive
    from ortrex.jobs.failures import Interrupted, mark_signalled

    class Stop(Exception):
        pass

    def on_alarm(signum: int, frame: object) -> None:
        mark_signalled()
        raise Stop

    n = 600_000  # about a second of inserting: the alarm lands inside the query
    now = datetime.datetime.now(datetime.UTC)
    rows = pa.table({"id": [f"r{k}" for k in range(n)], "command": ["generate"] * n,
                     "status": ["ok"] * n, "ortrex_version": ["0"] * n,
                     "started_at": pa.array([now] * n)})

    class Writer:
        def add(self, task: int, result: Any) -> None:
            pass

        def fail(self, task: int, failure: Any) -> None:
            pass

        def due(self) -> bool:
            return True

        def flush(self) -> None:
            signal.setitimer(signal.ITIMER_REAL, 0.15)
            with store.transaction():
                store.insert("runs", rows)
            raise AssertionError("the alarm did not land inside the write")

    old = signal.signal(signal.SIGALRM, on_alarm)
    try:
        with Store(tmp_path / "s.duckdb", create=True) as store:
            with pytest.raises(Interrupted) as info:
                drive([1], lambda t: t, Writer(), InlineExecutor())
            cause = info.value.__context__
            assert isinstance(cause, (duckdb.Error, RuntimeError)), repr(cause)
            assert "interrupted" in str(cause).lower(), repr(cause)
            # Nothing half-written, and the connection is usable: the transaction rolled back.
            assert store.query("SELECT count(*) AS n FROM runs").to_dicts() == [{"n": 0}]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)
        mark_signalled(False)
