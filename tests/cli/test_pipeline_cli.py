"""``ortrex pipeline``, ``render``, ``verify documents`` and ``import-seeds`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def test_pipeline_render_and_verify(tmp_path: Path) -> None:
    db = str(tmp_path / "p.duckdb")
    r = run_cli("pipeline", "--count", "6", "--families", "knapsack_01,transportation,diet",
                "--size", "small", "--workers", "2", "--db", db, timeout=600)
    assert r.returncode == 0, r.stderr
    assert "documents" in r.stdout and "accepted" in r.stdout
    r = run_cli("sql", "SELECT kind, form, status, count(*) AS n FROM documents GROUP BY ALL",
                "--db", db, "--format", "json")
    rows = json.loads(r.stdout)
    assert sum(x["n"] for x in rows) == 6 * 6
    assert all(x["status"] == "accepted" for x in rows)
    # Running it again continues (nothing left) instead of starting over.
    r = run_cli("pipeline", "--count", "6", "--families", "knapsack_01,transportation,diet",
                "--size", "small", "--workers", "1", "--db", db, timeout=600)
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
    # One bad byte or a nesting bomb rejects that line only, with --skip-bad.
    good = json.dumps({"id": "g", "problem": "Maximise x + y with x + y <= 3.",
                       "answer": "<python>\nimport gurobipy as gp\nmodel = gp.Model()\n"
                                 "x = model.addVar()\ny = model.addVar()\n"
                                 "model.addConstr(x + y <= 3)\nmodel.setObjective(x + y, -1)\n"
                                 "model.optimize()\n</python>"})
    bomb = '{"problem": "p", "answer": "a", "metadata": ' + "[" * 100_000 + "]" * 100_000 + "}"
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(good.encode() + b"\n" + b'{"problem": "caf\xe9", "answer": "a"}\n' +
                      bomb.encode() + b"\n")
    r = run_cli("import-seeds", str(mixed), "--db", str(db))
    assert r.returncode == 2 and "mixed.jsonl:2: not UTF-8 text" in r.stderr
    assert "mixed.jsonl:3: JSON nests deeper than 64 levels" in r.stderr
    assert "Traceback" not in r.stderr and not db.exists()
    r = run_cli("import-seeds", str(mixed), "--skip-bad", "--db", str(db), "--workers", "1")
    assert r.returncode == 0, r.stderr
    assert "skipped" in r.stdout and "not UTF-8" in r.stdout
    run = json.loads(run_cli("sql", "SELECT counts FROM runs WHERE command = 'import-seeds'",
                             "--db", str(db), "--format", "json").stdout)
    counts_row = run[0]["counts"]
    counts_row = json.loads(counts_row) if isinstance(counts_row, str) else counts_row
    assert counts_row["bad_lines_skipped"] == 2 and counts_row["accepted"] == 1
    counts = json.loads(run_cli("sql", "SELECT status, count(*) AS n FROM documents GROUP BY 1",
                                "--db", str(db), "--format", "json").stdout)
    assert counts == [{"status": "accepted", "n": 1}]


def test_import_seeds_refuses_non_positive_limits(tmp_path: Path) -> None:
    seeds = tmp_path / "s.jsonl"
    seeds.write_text('{"problem": "p", "answer": "a"}\n')
    db = tmp_path / "l.duckdb"
    for flag in ("--time-limit", "--program-time-limit", "--budget"):
        for value in ("0", "-5"):
            r = run_cli("import-seeds", str(seeds), flag, value, "--db", str(db))
            assert r.returncode == 2, (flag, value, r.stderr)
            lines = r.stderr.strip().splitlines()
            assert lines == [f"error: {flag} must be a positive number of seconds, got "
                             f"{float(value):g}"], r.stderr
    assert not db.exists()  # nothing was created
