"""The buffered writer of the served-model jobs (``distill``, ``clean``, ``eval``): rows queued by
table as answers come in, written in one go (one store transaction, or one append to each
results file) when enough items finished or enough time passed since the last write. A killed
run keeps everything written before its last flush; the job's ``finally`` flushes the rest.

The asyncio jobs run in one thread: the buffer needs no lock, and one writer holds the store."""

from __future__ import annotations

import json
import time
from collections.abc import Collection, Mapping
from typing import IO, TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from ortrex.store.db import Store

TableRows = dict[str, list[dict[str, Any]]]


class Sink(Protocol):
    """Where a flush goes: every queued row by table, and ids to delete first."""

    def write(self, rows: TableRows, drops: dict[str, list[str]]) -> None:
        """Write one flush's rows (in one transaction where the sink has them)."""


class RowBuffer:
    """Rows by table, flushed to a sink every ``every`` finished items or ``age_s`` seconds."""

    def __init__(self, sink: Sink, every: int = 16, age_s: float = 1.0) -> None:
        self.sink = sink
        self.every = every
        self.age_s = age_s
        self.rows: TableRows = {}
        self.drops: dict[str, list[str]] = {}
        self.pending = 0  # items finished since the last flush
        self.last = time.monotonic()

    def add(self, table: str, rows: list[dict[str, Any]]) -> None:
        """Queue rows of a table."""
        self.rows.setdefault(table, []).extend(rows)

    def drop(self, table: str, ids: list[str]) -> None:
        """Delete rows of a table by id at the next flush, before its inserts (a
        ``task_failures`` row whose item succeeded now)."""
        self.drops.setdefault(table, []).extend(ids)

    def due(self) -> bool:
        """Whether a flush is due (``every`` items finished, or ``age_s`` seconds passed)."""
        return self.pending >= self.every or time.monotonic() - self.last > self.age_s

    def finished(self) -> None:
        """Count one finished item, and flush when that makes a flush due."""
        self.pending += 1
        if self.due():
            self.flush()

    def flush(self) -> None:
        """Write everything queued in one go (nothing queued: nothing written)."""
        if not self.rows and not self.drops:
            return
        self.sink.write(self.rows, self.drops)
        self.rows, self.drops, self.pending, self.last = {}, {}, 0, time.monotonic()


class StoreSink:
    """A flush as one store transaction: deletes, then inserts, each table's conflict policy
    ``replace`` for the tables in ``replace`` (rows a rerun updates) and ``ignore`` else."""

    def __init__(self, store: Store, replace: Collection[str] = ()) -> None:
        self.store = store
        self.replace = frozenset(replace)

    def write(self, rows: TableRows, drops: dict[str, list[str]]) -> None:
        """Delete ``drops`` and insert ``rows`` in one transaction."""
        store = self.store
        with store.transaction():
            for table, ids in drops.items():
                store.conn.execute(f"DELETE FROM {table} WHERE id IN (SELECT unnest(?))", [ids])
            for table, got in rows.items():
                store.insert(table, got, on_conflict="replace" if table in self.replace
                             else "ignore")


class JsonlSink:
    """A flush as JSON lines appended to each table's open file, flushed to the OS so a killed
    run keeps every line written so far."""

    def __init__(self, files: Mapping[str, IO[str]]) -> None:
        self.files = files

    def write(self, rows: TableRows, drops: dict[str, list[str]]) -> None:
        """Append each table's rows to its file (JSONL is append-only: no drops)."""
        if drops:
            raise ValueError("a JSONL sink cannot delete rows")
        for table, got in rows.items():
            out = self.files[table]
            out.write("".join(json.dumps(r) + "\n" for r in got))
            out.flush()
