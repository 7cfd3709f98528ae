"""The verification database: SQLModel tables in one DuckDB file, lineage queries."""

from ortrex.store.db import DEFAULT_DB, Store, resolve_db
from ortrex.store.errors import (
    QueryError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreSchemaError,
)
from ortrex.store.schema import SCHEMA_VERSION, TABLES

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
