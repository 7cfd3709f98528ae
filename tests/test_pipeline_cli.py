"""``ortrex pipeline``, ``render``, ``verify documents`` and ``import-seeds`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def test_pipeline_render_and_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "p.duckdb")
    r = run_cli("pipeline", "--count", "6", "--families", "knapsack_01,transportation,diet",
                "--workers", "2", "--db", db, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "documents" in r.stdout and "accepted" in r.stdout
    r = run_cli("sql", "SELECT kind, form, status, count(*) AS n FROM documents GROUP BY ALL",
                "--db", db, "--format", "json")
    rows = json.loads(r.stdout)
    assert sum(x["n"] for x in rows) == 6 * 6
    assert all(x["status"] == "accepted" for x in rows)
    # Running it again continues (nothing left) instead of starting over.
    r = run_cli("pipeline", "--count", "6", "--families", "knapsack_01,transportation,diet",
                "--workers", "1", "--db", db, timeout=600)
    assert r.returncode == 0 and "instances rendered" in r.stdout
    r = run_cli("sql", "SELECT count(*) AS n FROM documents", "--db", db, "--format", "json")
    assert json.loads(r.stdout)[0]["n"] == 36
    r = run_cli("verify", "documents", "--limit", "6", "--workers", "1", "--db", db)
    assert r.returncode == 0 and "pass" in r.stdout, r.stderr
    r = run_cli("render", "--forms", "DP", "--kinds", "cpt", "--workers", "1", "--db", db,
                "--seed", "7")
    assert r.returncode == 0, r.stderr
    r = run_cli("lineage", json.loads(run_cli(
        "sql", "SELECT id FROM documents LIMIT 1", "--db", db, "--format", "json").stdout)[0]["id"],
        "--db", db)
    assert r.returncode == 0 and "rendered" in r.stdout


def test_bad_render_input(tmp_path: Path) -> None:
    db = str(tmp_path / "b.duckdb")
    for args, needle in ((("render", "--forms", "DP,XX"), "unknown form 'XX'"),
                         (("render", "--kinds", "pdf"), "unknown kind 'pdf'"),
                         (("render", "--llm-base-url", "http://127.0.0.1:9"), "both"),
                         (("render", "--near-duplicate", "1.5"), "threshold")):
        r = run_cli(*args, "--db", db)
        assert r.returncode == 2, (args, r.stderr)
        assert needle in r.stderr and "Traceback" not in r.stderr
    assert not Path(db).exists()  # nothing was created for bad input


def test_import_seeds_bad_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"problem": "p", "answer": "a"}\n{oops\n')
    db = tmp_path / "s.duckdb"
    r = run_cli("import-seeds", str(bad), "--db", str(db))
    assert r.returncode == 2 and "bad.jsonl:2: not valid JSON" in r.stderr
    assert not db.exists()
