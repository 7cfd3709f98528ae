"""The DuckDB store: schema, bulk inserts, transactions, migrations and every way to fail."""

from __future__ import annotations

import time
from pathlib import Path

import duckdb
import polars as pl
import pytest

from ortrex.ir import CanonicalModel
from ortrex.store import (
    QueryError,
    Store,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreSchemaError,
)
from ortrex.store.db import utcnow
from ortrex.store.migrations import Migration, create_snapshot, pending
from ortrex.store.records import instance_row, load_instance
from ortrex.store.schema import SCHEMA_VERSION
from tests.conftest import lock_held


def edge(i: int) -> dict:
    return {"id": f"e{i}", "parent_id": f"n{i}", "parent_kind": "x", "child_id": f"n{i + 1}",
            "child_kind": "x", "relation": "r", "params": {"i": i, "tag": [1, 2]},
            "created_at": utcnow()}


def test_schema(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb", create=True) as s:
        assert s.schema_version == SCHEMA_VERSION
        cols = s.query("SELECT table_name, column_name, data_type FROM duckdb_columns() "
                       "WHERE table_name IN ('verifications', 'instances', 'lineage')")
        types = {(t, c): d for t, c, d in cols.iter_rows()}
        assert types[("verifications", "objective")] == "DOUBLE"
        assert types[("instances", "model")] == "BLOB"
        assert types[("lineage", "params")] == "JSON"
        assert set(s.counts()) == {"runs", "sources", "instances", "semantic_models", "documents",
                                   "verifications", "lineage", "exports", "run_tasks",
                                   "task_failures", "answers", "diagnoses", "repairs",
                                   "reviews", "clean_stages"}


def test_insert_is_idempotent_and_queries_give_polars(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb", create=True) as s:
        rows = [edge(i) for i in range(5)]
        assert s.insert("lineage", rows) == 5
        assert s.insert("lineage", rows) == 0
        df = s.query("SELECT id, params->>'$.i' AS i FROM lineage ORDER BY id")
        assert isinstance(df, pl.DataFrame) and df["i"].to_list() == ["0", "1", "2", "3", "4"]
        ver = {"id": "v", "subject_id": "n0", "subject_kind": "x", "verifier": "highs",
               "status": "optimal", "objective": 0.1 + 0.2, "created_at": utcnow()}
        s.insert("verifications", [ver])
        s.insert("verifications", [{**ver, "objective": 2.0}], on_conflict="replace")
        assert s.query("SELECT objective FROM verifications")["objective"].to_list() == [2.0]
        s.insert("verifications", [{**ver, "id": "w", "objective": 0.1 + 0.2}])
        # DOUBLE keeps every bit (SQLModel's default FLOAT would not).
        assert s.query("SELECT objective FROM verifications WHERE id = 'w'")[0, 0] == 0.1 + 0.2


def test_transactions_are_all_or_nothing(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb", create=True) as s:
        with pytest.raises(RuntimeError), s.transaction():
            s.insert("lineage", [edge(1)])
            raise RuntimeError("boom")
        assert s.counts()["lineage"] == 0


def test_instances_round_trip(tmp_path: Path) -> None:
    m = CanonicalModel(var_names=["x", "y"], var_types="CI", obj=[1.5, -2.0], name="demo",
                       qobj=([0], [1], [0.25]))
    with Store(tmp_path / "s.duckdb", create=True) as s:
        s.insert("instances", [instance_row(m, family="toy")])
        back = load_instance(s, m.content_hash)
        assert back == m and back.name == "demo"
        row = s.query("SELECT * FROM instances").row(0, named=True)
        assert row["structural_fp"] == m.structural_fingerprint and row["family"] == "toy"
        assert row["problem_class"] == "MIQP" and row["n_int"] == 1
        with pytest.raises(StoreError, match="no instance"):
            load_instance(s, "nope")


def test_missing_store_is_not_created_by_readers(tmp_path: Path) -> None:
    with pytest.raises(StoreError, match="no store at"):
        Store(tmp_path / "none.duckdb")
    assert not (tmp_path / "none.duckdb").exists()


def test_read_only_store_refuses_writes(tmp_path: Path) -> None:
    Store(tmp_path / "s.duckdb", create=True).close()
    with Store(tmp_path / "s.duckdb", read_only=True) as s, pytest.raises(QueryError,
                                                                         match="read-only"):
        s.query("DELETE FROM lineage")


def test_sql_errors_are_one_line(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb", create=True) as s, pytest.raises(QueryError) as info:
        s.query("SELECT nope FROM lineage")
    assert "\n" not in str(info.value) and str(info.value).startswith("SQL error:")


def test_corrupt_file_is_refused_and_untouched(tmp_path: Path) -> None:
    for data in (b"", b"\x00garbage" * 500, b"SQLite format 3\x00" + b"\x01" * 4096):
        path = tmp_path / "bad.duckdb"
        path.write_bytes(data)
        with pytest.raises(StoreCorruptError, match="not a DuckDB database"):
            Store(path, create=True)
        assert path.read_bytes() == data


def test_foreign_duckdb_database_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "other.duckdb"
    con = duckdb.connect(str(path))
    con.execute("CREATE TABLE people (name VARCHAR)")
    con.close()
    with pytest.raises(StoreSchemaError, match="not an ortrex store"):
        Store(path, create=True)


def test_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    with Store(path, create=True) as s:
        s.conn.execute("INSERT INTO schema_version VALUES (?, 'future', now())",
                       [SCHEMA_VERSION + 1])
    before = path.read_bytes()
    with pytest.raises(StoreSchemaError, match=f"schema v{SCHEMA_VERSION + 1}, newer"):
        Store(path)
    assert path.read_bytes() == before


def _add_note(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("ALTER TABLE runs ADD COLUMN note VARCHAR")


def _broken(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute("ALTER TABLE runs ADD COLUMN half VARCHAR")
    raise RuntimeError("migration failed half way")


def test_forward_migration(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    Store(path, create=True).close()
    step = Migration(SCHEMA_VERSION + 1, "add a note to runs", _add_note)
    with Store(path, migrate=True, migrations=[step], target_version=SCHEMA_VERSION + 1) as s:
        assert s.schema_version == SCHEMA_VERSION + 1
        cols = s.query("SELECT column_name FROM duckdb_columns() WHERE table_name = 'runs'")
        assert "note" in cols["column_name"].to_list()
        versions = s.query("SELECT version FROM schema_version ORDER BY version")["version"]
        assert versions.to_list() == list(range(SCHEMA_VERSION, SCHEMA_VERSION + 2))
    with pytest.raises(StoreSchemaError, match="newer"):
        Store(path)  # this ortrex only knows the current version


def test_failed_migration_rolls_back(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    Store(path, create=True).close()
    step = Migration(SCHEMA_VERSION + 1, "broken", _broken)
    with pytest.raises(RuntimeError, match="half way"):
        Store(path, migrate=True, migrations=[step], target_version=SCHEMA_VERSION + 1)
    with Store(path) as s:
        assert s.schema_version == SCHEMA_VERSION
        cols = s.query("SELECT column_name FROM duckdb_columns() WHERE table_name = 'runs'")
        assert "half" not in cols["column_name"].to_list()


def test_read_only_open_does_not_migrate(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    Store(path, create=True).close()
    step = Migration(SCHEMA_VERSION + 1, "add a note to runs", _add_note)
    with pytest.raises(StoreSchemaError, match="run `ortrex init` to migrate"):
        Store(path, read_only=True, migrations=[step], target_version=SCHEMA_VERSION + 1)


def test_v1_store_migrates_to_the_current_schema(tmp_path: Path) -> None:
    """A real v1 store (its frozen DDL) with data: refused by jobs, upgraded by init."""
    old, fresh = tmp_path / "v1.duckdb", tmp_path / "fresh.duckdb"
    con = duckdb.connect(str(old))
    create_snapshot(con, 1)
    m = CanonicalModel(var_names=["x"], obj=[1.0], name="old")
    row = {k: v for k, v in instance_row(m).items() if k in V1_INSTANCE_COLUMNS}
    con.register("r", pl.DataFrame([row]).to_arrow())
    con.execute("INSERT INTO instances BY NAME SELECT * FROM r")
    con.close()
    with pytest.raises(StoreSchemaError, match="has schema v1; run `ortrex init`"):
        Store(old)
    with Store(old, migrate=True) as s:
        assert s.schema_version == SCHEMA_VERSION
        assert s.query("SELECT status FROM instances")["status"].to_list() == ["imported"]
        assert load_instance(s, m.content_hash) == m
        migrated = s.query(COLUMNS)
    with Store(fresh, create=True) as s:
        assert s.query(COLUMNS).equals(migrated)  # same tables, columns, types and order


COLUMNS = ("SELECT table_name, column_index, column_name, data_type, is_nullable FROM "
           "duckdb_columns() ORDER BY table_name, column_index")
V1_INSTANCE_COLUMNS = {
    "id", "structural_fp", "formulation_fp", "fp_version", "name", "family", "problem_class",
    "sense", "n_vars", "n_rows", "nnz", "n_int", "n_bin", "n_qobj", "n_qrows", "difficulty",
    "model", "model_format", "created_at", "run_id"}


def test_migration_gaps_are_detected() -> None:
    with pytest.raises(RuntimeError, match="no migration path"):
        pending(1, [Migration(3, "skips 2", _add_note)], target=3)


def test_a_store_locked_by_another_process(tmp_path: Path) -> None:
    path = tmp_path / "s.duckdb"
    Store(path, create=True).close()
    with lock_held(path) as pid:
        for read_only in (False, True):
            with pytest.raises(StoreLockedError,
                               match=rf"locked by another process \(PID {pid}\)"):
                Store(path, read_only=read_only)
    deadline = time.time() + 10
    while True:  # the lock is released when the holder dies
        try:
            Store(path).close()
            break
        except StoreLockedError:
            if time.time() > deadline:
                raise
            time.sleep(0.1)


def test_the_plain_table_facts_are_the_schema_s() -> None:
    import sqlalchemy as sa

    from ortrex.store.schema import TABLES
    from ortrex.store.tables import JSON_COLUMNS, TABLE_NAMES

    assert tuple(TABLES) == TABLE_NAMES
    json_cols = {t: frozenset(c.name for c in m.__table__.columns if isinstance(c.type, sa.JSON))
                 for t, m in TABLES.items()}
    assert {t: c for t, c in json_cols.items() if c} == JSON_COLUMNS


def test_reading_a_store_does_not_import_the_table_classes(tmp_path: Path) -> None:
    import subprocess
    import sys

    path = tmp_path / "r.duckdb"
    Store(path, create=True).close()
    code = ("import sys\nfrom ortrex.store import Store\n"
            "with Store(sys.argv[1], read_only=True) as s:\n    s.counts()\n"
            "print('sqlmodel' in sys.modules, 'sqlalchemy' in sys.modules)\n")
    r = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.split() == ["False", "False"], r.stdout + r.stderr
