"""Store errors: each message is one line a user can act on."""

from __future__ import annotations


class StoreError(Exception):
    """A store that cannot be used as asked."""


class StoreLockedError(StoreError):
    """Another process holds the store's write lock."""


class StoreCorruptError(StoreError):
    """The file is not a readable DuckDB database."""


class StoreSchemaError(StoreError):
    """The database is not an ortrex store, or its schema is newer than this ortrex."""


class QueryError(StoreError):
    """A SQL statement failed."""
