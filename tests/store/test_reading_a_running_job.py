"""A job's store can be read while the job writes it; a second job is still refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ortrex.store import Store, StoreLockedError
from tests.conftest import run_cli


def _job(db: Path, count: int) -> subprocess.Popen[str]:
    env = {k: v for k, v in os.environ.items() if k != "ORTREX_DB"}
    return subprocess.Popen(
        [sys.executable, "-m", "ortrex", "pipeline", "--count", str(count), "--families",
         "knapsack_01,diet,transportation", "--size", "small", "--workers", "1",
         "--db", str(db)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sql_info_lineage_and_report_read_a_store_while_a_job_writes_it(
        tmp_path: Path) -> None:
    db = tmp_path / "live.duckdb"
    job = _job(db, 60)
    wait = {"ORTREX_LOCK_WAIT": "30"}
    seen: list[int] = []
    try:
        deadline = time.monotonic() + 300
        while job.poll() is None and time.monotonic() < deadline and len(set(seen)) < 3:
            if not db.exists():
                time.sleep(0.2)
                continue
            r = run_cli("sql", "SELECT count(*) AS n FROM documents", "--db", str(db),
                        "--format", "json", env=wait)
            assert r.returncode == 0, r.stderr
            seen.append(json.loads(r.stdout)[0]["n"])
            time.sleep(0.5)
        assert job.poll() is None, f"the job ended before the readers could watch it: {seen}"
        # Readers saw the corpus grow, batch by batch, while the job ran.
        assert len(set(seen)) >= 3 and seen == sorted(seen), seen
        # A second job on the same store is refused at once, naming the writer.
        r = run_cli("generate", "--count", "2", "--db", str(db), env=wait)
        assert r.returncode == 2 and f"PID {job.pid}" in r.stderr, r.stderr
        assert "another ortrex job is writing it" in r.stderr
        assert job.poll() is None, "the job ended before the second writer was tried"
        r = run_cli("info", "--db", str(db), env=wait)
        assert r.returncode == 0 and "instances" in r.stdout, r.stderr
        r = run_cli("sql", "SELECT id FROM instances LIMIT 1", "--db", str(db), "--format",
                    "json", env=wait)
        node = json.loads(r.stdout)[0]["id"]
        r = run_cli("lineage", node, "--db", str(db), env=wait)
        assert r.returncode == 0, r.stderr
        out = tmp_path / "r.html"
        r = run_cli("report", "--output", str(out), "--db", str(db), env=wait)
        assert r.returncode == 0 and out.stat().st_size > 10_000, r.stderr
    finally:
        if job.poll() is None:
            job.wait(timeout=600)
    assert job.returncode == 0, job.stderr.read() if job.stderr else ""
    final = json.loads(run_cli("sql", "SELECT count(*) AS n FROM documents", "--db", str(db),
                               "--format", "json").stdout)[0]["n"]
    assert final == 60 * 6 and max(seen) <= final


def test_a_job_store_lets_go_of_the_file_between_commits(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    writer = Store(path, create=True)
    try:
        with writer.transaction():
            writer.query("SELECT 1")
        # Between commits another process can read; a second writer is refused at once.
        code = ("import sys\nfrom ortrex.store import Store\n"
                "with Store(sys.argv[1], read_only=True) as s:\n"
                "    print(s.counts()['instances'])\n")
        r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True,
                           text=True, timeout=120)
        assert r.returncode == 0 and r.stdout.strip() == "0", r.stderr
        r = subprocess.run([sys.executable, "-c", "import sys\nfrom ortrex.store import Store"
                            "\nStore(sys.argv[1])\n", str(path)],
                           capture_output=True, text=True, timeout=120)
        assert r.returncode != 0 and f"PID {os.getpid()}" in r.stderr
    finally:
        writer.close()
    Store(path).close()  # the job lock went with the writer


def test_a_reader_waits_for_a_commit_then_gives_up_with_the_holder(tmp_path: Path) -> None:
    path = tmp_path / "w.duckdb"
    Store(path, create=True).close()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('held', flush=True); time.sleep(float(sys.argv[2]))", str(path), "1.5"],
        stdout=subprocess.PIPE, text=True)
    os.environ["ORTREX_LOCK_WAIT"] = "20"
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        start = time.monotonic()
        with Store(path, read_only=True) as s:  # waits out the 1.5 s "commit"
            assert s.counts()["instances"] == 0
        assert time.monotonic() - start > 0.5
    finally:
        os.environ["ORTREX_LOCK_WAIT"] = "1"
        holder.wait(timeout=30)
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('held', flush=True); time.sleep(60)", str(path)], stdout=subprocess.PIPE,
        text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        os.environ["ORTREX_LOCK_WAIT"] = "0.5"
        with pytest.raises(StoreLockedError, match=rf"PID {holder.pid}\).*waited 0.5 s"):
            Store(path, read_only=True)
    finally:
        os.environ["ORTREX_LOCK_WAIT"] = "1"
        holder.kill()
        holder.wait()
