"""Every --where / --from filter: a bad column is one line naming it and the columns the
filter can use, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

from tests.cli.test_bad_input import assert_one_line_error
from tests.conftest import run_cli


def test_every_filter_names_the_bad_column_and_the_columns_it_takes(tmp_path: Path) -> None:
    db = str(tmp_path / "f.duckdb")
    r = run_cli("pipeline", "--count", "2", "--families", "knapsack_01", "--size", "small",
                "--workers", "1", "--db", db, timeout=600)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    out.mkdir()
    commands = {
        "distill": (("distill", "--from", "nope = 1", "--base-url", "http://127.0.0.1:9/v1",
                     "--model", "m"), "difficulty_band"),
        "clean": (("clean", "--from", "nope = 1"), "mistake"),
        "mutate": (("mutate", "--from", "nope = 1"), "problem_class"),
        "export cpt": (("export", "cpt", "--output-prefix", str(out / "c"), "--from-db",
                        "--where", "nope = 1"), "reject_reason"),
        "export sft": (("export", "sft", "--output-prefix", str(out / "s"), "--from-db",
                        "--where", "nope = 1"), "reject_reason"),
        "export jsonl": (("export", "jsonl", "--output", str(out / "a.jsonl"), "--where",
                          "nope = 1"), "reject_reason"),
        "export parquet": (("export", "parquet", "--output", str(out / "a.parquet"),
                            "--where", "nope = 1"), "reject_reason"),
    }
    for name, (args, column) in commands.items():
        r = run_cli(*args, "--db", db)
        assert_one_line_error(r, '"nope"', column)
        assert "nope" in r.stderr, name
    assert not any(out.rglob("*")), sorted(out.rglob("*"))
