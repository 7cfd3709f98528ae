"""Every bad input: one clear line on stderr, exit code 2, no traceback, the store unchanged."""

from __future__ import annotations

import hashlib
import subprocess
from pathlib import Path

import pytest

from ortrex.store import Store
from ortrex.store.schema import SCHEMA_VERSION
from tests.conftest import lock_held, run_cli
from tests.samples import KNAPSACK_LP, write_samples


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.exists() else None


def assert_one_line_error(r: subprocess.CompletedProcess[str], *fragments: str) -> None:
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = [ln for ln in r.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, r.stderr
    assert lines[0].startswith("error: ") and "Traceback" not in r.stderr
    for f in fragments:
        assert f in lines[0], (f, lines[0])


@pytest.fixture
def store(tmp_path: Path) -> Path:
    write_samples(tmp_path / "in")
    db = tmp_path / "s.duckdb"
    assert run_cli("import-lp", str(tmp_path / "in"), "--db", str(db)).returncode == 0
    return db


BAD_FILES = {
    "missing.lp": (None, ["missing.lp", "no such file"]),
    "malformed.lp": ("Minimize\n x + y\nSubject To\n c1: x + y <= \nEnd\n",
                     ["malformed.lp:4:", "expected a right-hand side"]),
    "malformed.mps": ("NAME t\nROWS\n N obj\n L c\nCOLUMNS\n    x obj one\nENDATA\n",
                      ["malformed.mps:6:", "expected a number"]),
    "malformed.json": ('{"variables": [{"name": "x"}],\n "objective": {"sense": "min",\n'
                       ' "function": {"type": "Variable", "name": "y"}}}\n',
                       ["malformed.json", "objective.function.name: unknown variable 'y'"]),
    "truncated.json": ('{"variables": [\n', ["truncated.json:2:", "invalid JSON"]),
    "nan.lp": ("Minimize\n x\nSubject To\n c: NaN x + y >= 1\nEnd\n",
               ["nan.lp:4:", "NaN coefficient of 'x'"]),
    "nan.mps": ("NAME t\nROWS\n N obj\nCOLUMNS\n    x obj NaN\nENDATA\n",
                ["nan.mps:5:", "NaN"]),
    "latin1.lp": ("Minimize\n caf\xe9 + x\nEnd\n".encode("latin-1"),
                  ["latin1.lp:2:", "not UTF-8 text: byte 0xe9 at column 5"]),
    "empty.lp": ("", ["empty.lp", "empty file"]),
    "junk.lp": (bytes(range(256)) * 4, ["junk.lp", "binary data"]),
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_model_files(tmp_path: Path, store: Path, name: str) -> None:
    content, fragments = BAD_FILES[name]
    path = tmp_path / name
    if content is not None:
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    before = digest(store)
    assert_one_line_error(run_cli("solve", str(path)), *fragments)
    assert_one_line_error(run_cli("import-lp", str(path), str(tmp_path / "in"), "--db",
                                  str(store)), *fragments)
    assert digest(store) == before
    fresh = tmp_path / "fresh.duckdb"
    assert_one_line_error(run_cli("import-lp", str(path), "--db", str(fresh)), *fragments)
    assert not fresh.exists()  # a failed first import leaves no store behind


def test_debug_shows_the_traceback(tmp_path: Path) -> None:
    path = tmp_path / "bad.lp"
    path.write_text("Minimize\n x +\nEnd\n")
    r = run_cli("--debug", "solve", str(path))
    assert r.returncode != 0 and "Traceback" in r.stderr and "ModelFileError" in r.stderr


def test_sql_error(store: Path) -> None:
    before = digest(store)
    assert_one_line_error(run_cli("sql", "SELECT nope FROM instances", "--db", str(store)),
                          "SQL error", "nope")
    assert_one_line_error(run_cli("sql", "DROP TABLE instances", "--db", str(store)),
                          "SQL error", "read-only")
    assert digest(store) == before


def test_locked_store(store: Path, tmp_path: Path) -> None:
    with lock_held(store) as pid:
        before = digest(store)
        for args in (["info"], ["sql", "SELECT 1"], ["import-lp", str(tmp_path / "in")]):
            assert_one_line_error(run_cli(*args, "--db", str(store)), "locked by another process",
                                  f"PID {pid}")
        assert digest(store) == before


def test_corrupt_store(tmp_path: Path) -> None:
    db = tmp_path / "corrupt.duckdb"
    db.write_bytes(b"\x00\x01this is not a database" * 100)
    before = digest(db)
    for args in (["info"], ["init"], ["import-lp", str(write_samples(tmp_path / "in")["mps"])]):
        assert_one_line_error(run_cli(*args, "--db", str(db)), "not a DuckDB database")
    assert digest(db) == before


def test_truncated_and_damaged_stores_are_corrupt_not_locked(store: Path,
                                                             tmp_path: Path) -> None:
    data = store.read_bytes()
    cases = {
        # Half the blocks gone: DuckDB itself would only notice when a query reaches them.
        "truncated": (data[: len(data) // 2], "truncated"),
        # A damaged main header and a damaged database header (the checksum message says
        # "block", which once read as "locked").
        "header": (data[:20] + b"\xff" * 8 + data[28:], "checksum"),
        "db-header": (data[:4196] + b"\xff" * 16 + data[4212:], "checksum"),
    }
    for name, (content, why) in cases.items():
        db = tmp_path / f"{name}.duckdb"
        db.write_bytes(content)
        before = digest(db)
        for args in (["info"], ["sql", "SELECT count(*) FROM instances"],
                     ["generate", "--count", "1", "--families", "knapsack_01"],
                     ["import-lp", str(tmp_path / "in")]):
            r = run_cli(*args, "--db", str(db))
            assert_one_line_error(r, "is corrupt", why, "restore it from a backup")
            assert "locked" not in r.stderr
        assert digest(db) == before, name


def test_a_store_trimmed_by_a_checkpoint_is_not_truncated(store: Path) -> None:
    """DuckDB cuts free blocks off the end of the file while its header still counts them:
    that store is whole; one block fewer loses data and is corrupt."""
    import duckdb

    conn = duckdb.connect(str(store))
    conn.execute("CHECKPOINT")
    conn.execute("CREATE TABLE scratch AS SELECT range AS i, md5(range::VARCHAR) AS s "
                 "FROM range(2000000)")
    conn.execute("CHECKPOINT")
    conn.execute("DROP TABLE scratch")
    conn.execute("CHECKPOINT")
    conn.close()
    conn = duckdb.connect(str(store), read_only=True)
    ((total, free, block),) = conn.execute(
        "SELECT total_blocks, free_blocks, block_size FROM pragma_database_size()").fetchall()
    conn.close()
    size = store.stat().st_size
    assert free > 0 and size < total * block  # the file is shorter than the header counts
    r = run_cli("info", "--db", str(store))
    assert r.returncode == 0 and "corrupt" not in r.stderr, r.stderr
    data = store.read_bytes()
    cut = store.with_name("cut.duckdb")
    cut.write_bytes(data[: len(data) - block])
    assert_one_line_error(run_cli("info", "--db", str(cut)), "is corrupt", "truncated")


def test_store_of_a_newer_schema(store: Path) -> None:
    with Store(store) as s:
        s.conn.execute("INSERT INTO schema_version VALUES (?, 'from the future', now())",
                       [SCHEMA_VERSION + 7])
    before = digest(store)
    for args in (["info"], ["init"], ["sql", "SELECT 1"]):
        assert_one_line_error(run_cli(*args, "--db", str(store)), f"v{SCHEMA_VERSION + 7}",
                              "upgrade ortrex")
    assert digest(store) == before


def test_usage_errors(tmp_path: Path, store: Path) -> None:
    assert_one_line_error(run_cli("sql", "SELECT 1", "--db", str(store), "--format", "parquet"),
                          "--format parquet needs --output")
    assert_one_line_error(run_cli("lineage", "nothing-like-this", "--db", str(store)),
                          "no lineage node")
    path = tmp_path / "k.lp"
    path.write_text(KNAPSACK_LP)
    assert_one_line_error(run_cli("solve", str(path), "--format", "xls"), "unknown --format")
    r = run_cli("solve", str(path), "--solver", "cplex")
    assert r.returncode == 2 and "Traceback" not in r.stderr  # typer's own usage error
