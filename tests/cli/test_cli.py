"""The command line end to end, through real subprocesses on temporary stores."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from ortrex.store.schema import SCHEMA_VERSION
from tests.conftest import need_shared, run_cli
from tests.samples import write_samples


def test_version_and_help() -> None:
    r = run_cli("--version")
    assert r.returncode == 0 and r.stdout.startswith("ortrex ")
    r = run_cli("--help")
    assert r.returncode == 0
    for cmd in ("init", "import-lp", "solve", "sql", "lineage", "info", "equiv"):
        assert cmd in r.stdout


def test_end_to_end(tmp_path: Path) -> None:
    paths = write_samples(tmp_path / "in")
    db = tmp_path / "store.duckdb"
    r = run_cli("init", "--db", str(db))
    assert r.returncode == 0 and "created store" in r.stdout and db.exists()

    r = run_cli("import-lp", str(tmp_path / "in"), "--db", str(db), "--solve", "--family", "toy")
    assert r.returncode == 0, r.stderr
    assert "files read" in r.stdout and "HiGHS optimal" in r.stdout
    assert "━" not in r.stdout  # progress never mixes with results

    # On a terminal the progress display (files, rate) is drawn on stderr.
    r = run_cli("import-lp", str(tmp_path / "in"), "--db", str(db), env={"FORCE_COLOR": "1"})
    assert r.returncode == 0 and "parse" in r.stderr and "files" in r.stderr

    r = run_cli("sql", "SELECT name, n_vars FROM instances ORDER BY name", "--db", str(db),
                "--format", "csv")
    assert r.returncode == 0 and r.stdout.splitlines() == ["name,n_vars", "knapsack,3",
                                                           "transport,4"]
    r = run_cli("sql", "SELECT status, objective FROM verifications ORDER BY objective",
                "--db", str(db), "--format", "json")
    assert json.loads(r.stdout) == [{"status": "optimal", "objective": 9.0},
                                    {"status": "optimal", "objective": 31.0}]
    out = tmp_path / "inst.parquet"
    r = run_cli("sql", "SELECT * FROM instances", "--db", str(db), "--format", "parquet",
                "--output", str(out))
    assert r.returncode == 0 and pl.read_parquet(out).height == 2
    r = run_cli("sql", "SELECT id, model FROM instances", "--db", str(db))
    assert r.returncode == 0 and "bytes>" in r.stdout and "2 rows" in r.stdout

    # Lineage from the knapsack instance back to its two files, and forward from a file.
    iid = run_cli("sql", "SELECT id FROM instances WHERE name = 'knapsack'", "--db", str(db),
                  "--format", "csv").stdout.splitlines()[1]
    r = run_cli("lineage", iid[:12], "--db", str(db), "--format", "csv")
    rows = list(pl.read_csv(r.stdout.encode()).iter_rows(named=True))
    assert r.returncode == 0 and len(rows) == 2
    assert {row["parent_kind"] for row in rows} == {"source"}
    r = run_cli("lineage", iid, "--db", str(db))
    assert r.returncode == 0 and "knapsack_copy.lp" in r.stdout and "2 edges" in r.stdout
    src = rows[0]["parent_id"]
    r = run_cli("lineage", src, "--descendants", "--depth", "3", "--db", str(db), "--format",
                "json")
    assert [e["child_id"] for e in json.loads(r.stdout)] == [iid]

    r = run_cli("info", "--db", str(db))
    assert r.returncode == 0 and "instances" in r.stdout
    assert f"schema v{SCHEMA_VERSION}" in r.stdout

    r = run_cli("solve", str(paths["mps"]), "--json")
    got = json.loads(r.stdout)
    assert got["status"] == "optimal" and got["objective"] == 31.0 and got["n_vars"] == 4
    r = run_cli("solve", str(paths["knapsack"]), "--solver", "gurobi")
    assert r.returncode == 0 and "optimal" in r.stdout and "9" in r.stdout


def test_db_from_environment_and_global_option(tmp_path: Path) -> None:
    write_samples(tmp_path / "in")
    db = tmp_path / "env.duckdb"
    r = run_cli("import-lp", str(tmp_path / "in" / "knapsack.lp"), env={"ORTREX_DB": str(db)})
    assert r.returncode == 0 and db.exists()
    r = run_cli("--db", str(db), "sql", "SELECT count(*) AS n FROM instances", "--format", "csv")
    assert r.stdout.splitlines() == ["n", "1"]
    r = run_cli("info", cwd=tmp_path)  # default ./ortrex.duckdb does not exist there
    assert r.returncode == 2 and "no store at ortrex.duckdb" in r.stderr


def test_default_import_is_the_shared_reference_lps(tmp_path: Path) -> None:
    need_shared()
    r = run_cli("import-lp", "--workers", "2", cwd=tmp_path)
    assert r.returncode == 0, r.stderr
    r = run_cli("sql", "SELECT count(*) AS n, count(DISTINCT structural_fp) AS s FROM instances",
                "--format", "csv", cwd=tmp_path)
    n, s = map(int, r.stdout.splitlines()[1].split(","))
    # 738 files hold 281 distinct models (paraphrase twins and the shared feasible subset).
    assert n == 281 and s <= n
    r = run_cli("sql", "SELECT count(*) FROM sources", "--format", "csv", cwd=tmp_path)
    assert r.stdout.splitlines()[1] == "738"


def test_a_killed_import_leaves_nothing_half_written(tmp_path: Path) -> None:
    """SIGKILL in the middle of a job: the store holds all of it or none of it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    need_shared()
    db = tmp_path / "k.duckdb"
    assert run_cli("init", "--db", str(db)).returncode == 0
    proc = subprocess.Popen([sys.executable, "-m", "ortrex", "import-lp", "--solve",
                             "--workers", "2", "--db", str(db)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    time.sleep(2.0)
    os.killpg(proc.pid, signal.SIGKILL)  # the workers die with it
    proc.wait()
    r = run_cli("sql", "SELECT (SELECT count(*) FROM instances) AS i, (SELECT count(*) FROM "
                "sources) AS s, (SELECT count(*) FROM lineage) AS l, (SELECT count(*) FROM "
                "runs) AS r", "--db", str(db), "--format", "csv")
    assert r.returncode == 0, r.stderr
    counts = tuple(map(int, r.stdout.splitlines()[1].split(",")))
    assert counts in {(0, 0, 0, 0), (281, 738, 738, 1)}


def test_doctor_reports_the_layers_and_checks_them() -> None:
    from ortrex.verifiers.sandbox import isolation

    r = run_cli("doctor", "--json")
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["layers"] == isolation.support() and report["problems"] == []
    probe = report["facts"]["probe"]
    if isolation.plan().namespaces:
        assert probe["pids"] == 1 and "home" not in probe["root"]
    if isolation.plan().seccomp:
        assert probe["unix_socket"] is False
    r = run_cli("doctor")
    assert r.returncode == 0 and "privileges" in r.stdout


def test_a_command_runs_in_an_app_holding_only_it() -> None:
    """Only the command run is built (typer builds every registered command's parameters);
    help, --version, a misspelt command or none get the whole app."""
    from typer.main import get_command

    from ortrex.cli import _app_for, app

    for args, name in ((["equiv", "a.lp", "b.lp"], "equiv"),
                       (["--db", "x.duckdb", "--debug", "sql", "SELECT 1"], "sql"),
                       (["--db=x.duckdb", "export", "sft", "--help"], "export")):
        one = get_command(_app_for(args))
        assert list(one.commands) == [name], args  # type: ignore[attr-defined]
        assert [p.name for p in one.params] == [p.name for p in get_command(app).params]
    for args in ([], ["--help"], ["--version"], ["equv"], ["--db", "equiv"], ["--help", "sql"]):
        assert _app_for(args) is app, args
    # The same command, the same usage line and options either way.
    full = get_command(app).commands["equiv"]  # type: ignore[attr-defined]
    one = get_command(_app_for(["equiv"])).commands["equiv"]  # type: ignore[attr-defined]
    assert [p.opts for p in one.params] == [p.opts for p in full.params]


def test_shell_completion_scripts_and_completions() -> None:
    r = run_cli("--show-completion", "bash")
    assert r.returncode == 0 and "_ORTREX_COMPLETE=complete_bash" in r.stdout, r.stderr
    r = run_cli(env={"_ORTREX_COMPLETE": "complete_bash", "COMP_WORDS": "ortrex export ",
                     "COMP_CWORD": "2"})
    assert {"cpt", "sft", "verify", "mix"} <= set(r.stdout.split()), r.stdout + r.stderr
