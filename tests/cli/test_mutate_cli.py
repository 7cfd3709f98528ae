"""``ortrex mutate``, ``lineage --tree`` and ``report`` end to end."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import run_cli


def test_mutate_lineage_tree_and_report(tmp_path: Path) -> None:
    db = str(tmp_path / "m.duckdb")
    r = run_cli("generate", "--count", "4", "--families", "transportation,knapsack_01",
                "--workers", "1", "--db", db)
    assert r.returncode == 0, r.stderr
    r = run_cli("mutate", "--operators", "scale_data,domain_shift,slack_penalty", "--from",
                "family = 'transportation'", "--per-parent", "2", "--rounds", "2",
                "--workers", "1", "--db", db)
    assert r.returncode == 0, r.stderr
    assert "children by operator" in r.stdout and "scale_data" in r.stdout
    rows = json.loads(run_cli("sql", "SELECT child_id FROM lineage WHERE relation = 'mutated' "
                              "ORDER BY params->>'round' DESC, child_id LIMIT 1", "--db", db,
                              "--format", "json").stdout)
    child = rows[0]["child_id"]
    r = run_cli("lineage", child[:20], "--tree", "--db", db)
    assert r.returncode == 0, r.stderr
    assert "mutated:" in r.stdout and "sampled:transportation" in r.stdout
    r = run_cli("report", "--output", str(tmp_path / "out" / "report.html"), "--db", db)
    assert r.returncode == 0 and (tmp_path / "out" / "report.html").exists(), r.stderr


def test_mutate_bad_input(tmp_path: Path) -> None:
    db = str(tmp_path / "b.duckdb")
    assert run_cli("generate", "--count", "2", "--families", "knapsack_01", "--workers", "1",
                   "--db", db).returncode == 0
    for args, needle in ((("--operators", "teleport", "--from", "true"), "unknown operator"),
                         (("--from", "family = 'nothing'"), "selects no accepted instance"),
                         (("--from", "bad column here"), "(the filter can use: semantic_id"),
                         ((), "--from is empty")):
        r = run_cli("mutate", *args, "--db", db)
        assert r.returncode == 2, (args, r.stderr)
        assert needle in r.stderr and "Traceback" not in r.stderr
