"""Schema versions: new stores get the current tables; older stores are migrated forward."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb

from ortrex.store.schema import SCHEMA_VERSION


@dataclass(frozen=True)
class Migration:
    """Upgrade from ``version - 1`` to ``version`` (plain DDL/DML on the connection)."""

    version: int
    description: str
    apply: Callable[[duckdb.DuckDBPyConnection], None]


# Forward migrations, in order. A new store is created at SCHEMA_VERSION directly from the
# table definitions; a store stamped with an older version gets every later step here, each
# written as explicit DDL so it keeps working when the table definitions move on.
MIGRATIONS: list[Migration] = []


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
