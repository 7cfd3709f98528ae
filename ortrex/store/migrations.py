"""Schema versions: new stores get the current tables; older stores are migrated forward."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb

from ortrex.store.tables import SCHEMA_VERSION


@dataclass(frozen=True)
class Migration:
    """Upgrade from ``version - 1`` to ``version`` (plain DDL/DML on the connection)."""

    version: int
    description: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]


def _v2(conn: duckdb.DuckDBPyConnection) -> None:
    for col, typ in (("status", "VARCHAR"), ("reject_reason", "VARCHAR"),
                     ("reject_detail", "VARCHAR"), ("duplicate_of", "VARCHAR"),
                     ("difficulty_band", "VARCHAR"), ("objective", "DOUBLE"),
                     ("semantic_id", "VARCHAR"), ("domain", "VARCHAR"), ("flags", "JSON")):
        conn.execute(f"ALTER TABLE instances ADD COLUMN {col} {typ}")
    conn.execute("UPDATE instances SET status = 'imported'")  # v1 stores only imported
    conn.execute("ALTER TABLE verifications ADD COLUMN solution BLOB")
    conn.execute("ALTER TABLE verifications ADD COLUMN solver_version VARCHAR")
    conn.execute(
        "CREATE TABLE run_tasks (id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, task INTEGER NOT "
        "NULL, family VARCHAR NOT NULL, instance_id VARCHAR, semantic_id VARCHAR, outcome "
        "VARCHAR NOT NULL, reason VARCHAR, created_at TIMESTAMP WITH TIME ZONE NOT NULL, "
        "PRIMARY KEY (id))")


def _v3(conn: duckdb.DuckDBPyConnection) -> None:
    for col, typ in (("statement", "VARCHAR"), ("style", "VARCHAR"), ("solver", "VARCHAR"),
                     ("messages", "JSON"), ("status", "VARCHAR"), ("reject_reason", "VARCHAR"),
                     ("reject_detail", "VARCHAR"), ("objective", "DOUBLE"),
                     ("minhash", "BLOB")):
        conn.execute(f"ALTER TABLE documents ADD COLUMN {col} {typ}")


def _v4(conn: duckdb.DuckDBPyConnection) -> None:
    from ortrex.store.views import LINEAGE_SQL

    for ddl in LINEAGE_SQL:
        conn.execute(ddl)


def _v5(conn: duckdb.DuckDBPyConnection) -> None:
    conn.execute(
        "CREATE TABLE task_failures (id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, command "
        "VARCHAR NOT NULL, task_key VARCHAR NOT NULL, kind VARCHAR NOT NULL, error VARCHAR NOT "
        "NULL, digest VARCHAR NOT NULL, traceback VARCHAR, attempts INTEGER NOT NULL, "
        "created_at TIMESTAMP WITH TIME ZONE NOT NULL, PRIMARY KEY (id))")


_TS = "TIMESTAMP WITH TIME ZONE NOT NULL"
_V6 = (
    "CREATE TABLE answers (id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, document_id VARCHAR NOT "
    "NULL, instance_id VARCHAR, semantic_id VARCHAR, family VARCHAR, form VARCHAR, model VARCHAR "
    "NOT NULL, sample INTEGER NOT NULL, prompt JSON, completion VARCHAR, reasoning VARCHAR, "
    "program VARCHAR, outcome VARCHAR NOT NULL, failure VARCHAR, detail VARCHAR, objective DOUBLE "
    "PRECISION, expected DOUBLE PRECISION, equivalence VARCHAR, equivalence_reason VARCHAR, "
    f"mistake VARCHAR, captured BYTEA, exec_s DOUBLE PRECISION, created_at {_TS}, "
    "PRIMARY KEY (id))",
    "CREATE TABLE diagnoses (id VARCHAR NOT NULL, answer_id VARCHAR NOT NULL, seq INTEGER NOT "
    "NULL, mistake VARCHAR NOT NULL, family VARCHAR, role VARCHAR, kind VARCHAR NOT NULL, "
    f"evidence VARCHAR NOT NULL, details JSON, created_at {_TS}, PRIMARY KEY (id))",
    "CREATE TABLE repairs (id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, answer_id VARCHAR NOT "
    "NULL, round INTEGER NOT NULL, method VARCHAR NOT NULL, program VARCHAR, completion VARCHAR, "
    "reasoning VARCHAR, status VARCHAR NOT NULL, detail VARCHAR, validated BOOLEAN, validation "
    f"JSON, created_at {_TS}, PRIMARY KEY (id))",
    "CREATE TABLE reviews (id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, repair_id VARCHAR NOT "
    "NULL, answer_id VARCHAR NOT NULL, branch VARCHAR NOT NULL, reviewer VARCHAR NOT NULL, "
    f"verdict VARCHAR NOT NULL, reason VARCHAR, details JSON, created_at {_TS}, "
    "PRIMARY KEY (id))",
    "CREATE TABLE clean_stages (id VARCHAR NOT NULL, run_id VARCHAR NOT NULL, answer_id VARCHAR "
    "NOT NULL, branch VARCHAR NOT NULL, mistake VARCHAR NOT NULL, diagnosed BOOLEAN NOT NULL, "
    "repaired BOOLEAN NOT NULL, reviewer_passed BOOLEAN NOT NULL, validated BOOLEAN NOT NULL, "
    f"exported BOOLEAN NOT NULL, document_id VARCHAR, failure VARCHAR, created_at {_TS}, "
    "PRIMARY KEY (id))",
)


def _v6(conn: duckdb.DuckDBPyConnection) -> None:
    for ddl in _V6:
        conn.execute(ddl)


# Forward migrations, in order. A new store is created at SCHEMA_VERSION directly from the
# table definitions; a store stamped with an older version gets every later step here, each
# written as explicit DDL so it keeps working when the table definitions move on.
MIGRATIONS: list[Migration] = [
    Migration(2, "generation outcomes, solution vectors, run tasks", _v2),
    Migration(3, "document verification outcomes, statements, messages, MinHash", _v3),
    Migration(4, "lineage macros (ancestors, descendants, path) and operator_stats", _v4),
    Migration(5, "task failures (tasks that raised or crashed on every attempt)", _v5),
    Migration(6, "the clean flywheel: answers, diagnoses, repairs, reviews, clean stages", _v6),
]

# The tables of schema v1 as they were created, for building old stores (tests, tools).
SNAPSHOT_V1 = (
    "CREATE TABLE schema_version (version INTEGER NOT NULL, description VARCHAR NOT NULL, "
    "applied_at TIMESTAMP WITH TIME ZONE NOT NULL, PRIMARY KEY (version))",
    "CREATE TABLE runs (id VARCHAR NOT NULL, command VARCHAR NOT NULL, config JSON, counts JSON, "
    "status VARCHAR NOT NULL, ortrex_version VARCHAR NOT NULL, started_at TIMESTAMP WITH TIME "
    "ZONE NOT NULL, finished_at TIMESTAMP WITH TIME ZONE, PRIMARY KEY (id))",
    "CREATE TABLE sources (id VARCHAR NOT NULL, path VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, "
    "format VARCHAR NOT NULL, size_bytes BIGINT NOT NULL, first_seen_at TIMESTAMP WITH TIME ZONE "
    "NOT NULL, run_id VARCHAR, PRIMARY KEY (id))",
    "CREATE TABLE instances (id VARCHAR NOT NULL, structural_fp VARCHAR NOT NULL, formulation_fp "
    "VARCHAR NOT NULL, fp_version INTEGER NOT NULL, name VARCHAR NOT NULL, family VARCHAR, "
    "problem_class VARCHAR NOT NULL, sense VARCHAR NOT NULL, n_vars INTEGER NOT NULL, n_rows "
    "INTEGER NOT NULL, nnz BIGINT NOT NULL, n_int INTEGER NOT NULL, n_bin INTEGER NOT NULL, "
    "n_qobj INTEGER NOT NULL, n_qrows INTEGER NOT NULL, difficulty DOUBLE PRECISION, model BYTEA "
    "NOT NULL, model_format VARCHAR NOT NULL, created_at TIMESTAMP WITH TIME ZONE NOT NULL, "
    "run_id VARCHAR, PRIMARY KEY (id))",
    "CREATE TABLE semantic_models (id VARCHAR NOT NULL, family VARCHAR NOT NULL, domain VARCHAR, "
    "schema_version INTEGER NOT NULL, model JSON NOT NULL, descriptors JSON, created_at TIMESTAMP "
    "WITH TIME ZONE NOT NULL, run_id VARCHAR, PRIMARY KEY (id))",
    "CREATE TABLE documents (id VARCHAR NOT NULL, instance_id VARCHAR, semantic_id VARCHAR, kind "
    "VARCHAR NOT NULL, form VARCHAR, text VARCHAR NOT NULL, data_files JSON, program VARCHAR, "
    "renderer VARCHAR, template VARCHAR, created_at TIMESTAMP WITH TIME ZONE NOT NULL, run_id "
    "VARCHAR, PRIMARY KEY (id))",
    "CREATE TABLE verifications (id VARCHAR NOT NULL, subject_id VARCHAR NOT NULL, subject_kind "
    "VARCHAR NOT NULL, verifier VARCHAR NOT NULL, status VARCHAR NOT NULL, objective DOUBLE "
    "PRECISION, runtime_s DOUBLE PRECISION, details JSON, created_at TIMESTAMP WITH TIME ZONE NOT "
    "NULL, run_id VARCHAR, PRIMARY KEY (id))",
    "CREATE TABLE lineage (id VARCHAR NOT NULL, parent_id VARCHAR NOT NULL, parent_kind VARCHAR "
    "NOT NULL, child_id VARCHAR NOT NULL, child_kind VARCHAR NOT NULL, relation VARCHAR NOT NULL, "
    "operator VARCHAR, params JSON, created_at TIMESTAMP WITH TIME ZONE NOT NULL, run_id VARCHAR, "
    "PRIMARY KEY (id))",
    "CREATE TABLE exports (id VARCHAR NOT NULL, kind VARCHAR NOT NULL, path VARCHAR NOT NULL, "
    "n_docs INTEGER NOT NULL, sha256 VARCHAR NOT NULL, manifest JSON, created_at TIMESTAMP WITH "
    "TIME ZONE NOT NULL, run_id VARCHAR, PRIMARY KEY (id))",
)


def now() -> datetime:
    """Current UTC time without tzinfo (stored as TIMESTAMP)."""
    return datetime.now(UTC).replace(tzinfo=None)


def stamp(conn: duckdb.DuckDBPyConnection, version: int, description: str) -> None:
    """Record that ``version`` has been applied."""
    conn.execute(
        "INSERT INTO schema_version (version, description, applied_at) VALUES (?, ?, ?)",
        [version, description, now()],
    )


def pending(current: int, migrations: list[Migration] | None = None,
            target: int = SCHEMA_VERSION) -> list[Migration]:
    """Migrations that take a store from ``current`` to ``target``, checked to be contiguous."""
    steps = sorted((m for m in (MIGRATIONS if migrations is None else migrations)
                    if current < m.version <= target), key=lambda m: m.version)
    expected = list(range(current + 1, target + 1))
    if [m.version for m in steps] != expected:
        raise RuntimeError(f"no migration path from schema v{current} to v{target}")
    return steps


def create_snapshot(conn: duckdb.DuckDBPyConnection, version: int = 1) -> None:
    """Create the tables of an old schema version and stamp it (to test migrations)."""
    snapshots = {1: SNAPSHOT_V1}
    for ddl in snapshots[version]:
        conn.execute(ddl)
    stamp(conn, version, "snapshot")
