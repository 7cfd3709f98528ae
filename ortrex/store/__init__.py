"""The verification database: SQLModel tables in one DuckDB file, lineage queries."""

from ortrex.store.db import DEFAULT_DB, Store, resolve_db
from ortrex.store.errors import (
    QueryError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreSchemaError,
)
from ortrex.store.tables import SCHEMA_VERSION


def __getattr__(name: str) -> object:
    """``TABLES`` (the SQLModel classes) only when asked for: they cost ~0.7 s to import."""
    if name == "TABLES":
        from ortrex.store.schema import TABLES

        return TABLES
    raise AttributeError(f"module 'ortrex.store' has no attribute {name!r}")


__all__ = [
    "DEFAULT_DB",
    "SCHEMA_VERSION",
    "TABLES",
    "QueryError",
    "Store",
    "StoreCorruptError",
    "StoreError",
    "StoreLockedError",
    "StoreSchemaError",
    "resolve_db",
]
