"""Shared fixtures: the public benchmark data, temporary stores and the CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

from ortrex.paths import benchmarks_dir

# Deterministic property tests: the same examples on every run and machine.
settings.register_profile(
    "ortrex", derandomize=True, deadline=None, max_examples=120,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ortrex"))

REQUIRE_SHARED = os.environ.get("ORTREX_REQUIRE_SHARED") == "1"

# A store held by another process is waited for this long (30 s for users): the tests that
# hold one on purpose would otherwise wait out the default each time; the test of reading a
# running job's store sets its own.
os.environ.setdefault("ORTREX_LOCK_WAIT", "1")


UNGROUPED = ("pytest-xdist cannot keep this xdist_group on one worker with this pytest "
             "(--dist loadgroup needs pytest < 9.2 with xdist 3.8)")


def pytest_configure(config: pytest.Config) -> None:
    """Two xdist workers grouped by ``xdist_group`` by default (the suite's 2-core budget);
    any ``-n`` given wins, and without xdist (``-p no:xdist``) or for ``--collect-only`` the
    run is one process. (In addopts, ``-n 2`` made ``-p no:xdist`` an error.)"""
    if (config.pluginmanager.has_plugin("xdist") and not hasattr(config, "workerinput")
            and getattr(config.option, "numprocesses", 0) is None
            and not config.option.collectonly):
        config.option.numprocesses = 2
        config.option.dist = "loadgroup"
        config.option.tx = ["popen"] * 2


def pytest_runtest_setup(item: pytest.Item) -> None:
    """Fail a grouped test when ``--dist loadgroup`` did not group it."""
    # pytest-xdist marks a grouped test by suffixing its node id; pytest 9.2 ignores that
    # suffix, and the Ray tests then started two Rays at once on 2 cores. Fail loudly instead.
    if (getattr(item.config.option, "loadgroup", False) and "@" not in item.nodeid
            and item.get_closest_marker("xdist_group")):
        pytest.fail(UNGROUPED)


def need_shared() -> Path:
    """The benchmarks folder, or skip (fail under ORTREX_REQUIRE_SHARED=1) when it is absent."""
    root = benchmarks_dir()
    if root is None:
        msg = "../shared/benchmarks not found (set ORTREX_BENCHMARKS)"
        if REQUIRE_SHARED:
            pytest.fail(msg)
        pytest.skip(msg)
    return root


@pytest.fixture(scope="session")
def shared_benchmarks() -> Path:
    """Path of the shared public benchmark data."""
    return need_shared()


@pytest.fixture(scope="session")
def reference_lps(shared_benchmarks: Path) -> list[Path]:
    """All reference LP files of bench4opt and bench4opt_feasible (394 + 344)."""
    files = sorted((shared_benchmarks / "bench4opt" / "lp_code").glob("*.lp")) + sorted(
        (shared_benchmarks / "bench4opt_feasible" / "lp_code").glob("*.lp"))
    assert len(files) == 738, f"expected 738 reference LP files, found {len(files)}"
    return files


def run_cli(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run ``python -m ortrex ARGS`` in a real subprocess."""
    full_env = {k: v for k, v in os.environ.items() if k != "ORTREX_DB"}
    # Tables wrap at the terminal's width: pin it, so no assertion depends on the terminal
    # the suite runs in.
    full_env.update({"COLUMNS": "120", "LINES": "50"})
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-m", "ortrex", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def seed_outcomes(db: Path | str) -> dict[str, tuple[str, str | None, float | None]]:
    """(status, reject reason, objective) of every imported seed's document, by seed id,
    read through ``ortrex sql`` as a user would."""
    import json

    rows = json.loads(run_cli(
        "sql", "SELECT json_extract_string(l.params, '$.seed_id') AS seed, d.status, "
        "d.reject_reason AS reason, d.objective FROM documents d JOIN lineage l ON "
        "l.child_id = d.id AND l.relation = 'imported'", "--db", str(db),
        "--format", "json").stdout)
    return {x["seed"]: (x["status"], x["reason"], x["objective"]) for x in rows}


@contextmanager
def lock_held(db: Path) -> Iterator[int]:
    """Another process holding the store's DuckDB write lock; yields its PID."""
    holder = subprocess.Popen(
        [sys.executable, "-c", "import duckdb, sys, time; c = duckdb.connect(sys.argv[1]); "
         "print('held', flush=True); time.sleep(60)", str(db)],
        stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        yield holder.pid
    finally:
        holder.kill()
        holder.wait()
