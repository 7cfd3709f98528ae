"""The Store: one DuckDB file, a single writer, Arrow batches in, polars DataFrames out.

A job's writer holds the store's job lock (``<store>.lock``) for its whole life but the DuckDB
file only while it commits a batch, so ``ortrex sql``, ``info``, ``lineage`` and ``report``
can read a running job's store: a reader that finds the file held waits for the commit (up to
``ORTREX_LOCK_WAIT`` seconds, 30 by default) and then sees every batch committed so far.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager, suppress
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import polars as pl
import pyarrow as pa

from ortrex.store.errors import (
    QueryError,
    StoreCorruptError,
    StoreError,
    StoreLockedError,
    StoreSchemaError,
)
from ortrex.store.tables import JSON_COLUMNS, SCHEMA_VERSION, TABLE_NAMES

if TYPE_CHECKING:
    from ortrex.store.migrations import Migration

DEFAULT_DB = "ortrex.duckdb"
_HEADERS = 3 * 4096  # a DuckDB file starts with its main header and two database headers
_DUCKDB_MAGIC = b"DUCK"


def resolve_db(db: str | Path | None = None) -> Path:
    """The store path: ``db``, else ``$ORTREX_DB``, else ``./ortrex.duckdb``."""
    return Path(db or os.environ.get("ORTREX_DB") or DEFAULT_DB)


def utcnow() -> datetime:
    """Timezone-aware current UTC time."""
    return datetime.now(UTC)


def lock_wait() -> float:
    """Seconds a store command waits for another process's commit (``ORTREX_LOCK_WAIT``)."""
    try:
        return max(float(os.environ.get("ORTREX_LOCK_WAIT", "30")), 0.0)
    except ValueError:
        return 30.0


# A job reopens the file for each commit; a reader holding it (a long report) is waited for
# this long before the job stops with the locked-store error.
COMMIT_WAIT_S = 600.0


def _first_line(exc: BaseException) -> str:
    return str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__


_LOCKED = re.compile(r"\b(?:could not set lock|conflicting lock|lock(?:ed)? by)\b", re.I)
_CORRUPT = re.compile(r"corrupt|checksum|not a valid DuckDB|truncat|unexpected end|"
                      r"failed to read|could not read", re.I)


def _open_error(path: Path, exc: duckdb.Error) -> StoreError:
    msg = str(exc)
    if "not a valid DuckDB database" in msg:
        return StoreCorruptError(f"{path} is not a DuckDB database (corrupt or another file type)")
    if _CORRUPT.search(msg):
        return _corrupt(path, exc)
    if _LOCKED.search(msg):  # a word, not "block" inside a checksum message
        pid = re.search(r"PID (\d+)", msg)
        who = f" (PID {pid.group(1)})" if pid else ""
        return StoreLockedError(f"store {path} is locked by another process{who}; "
                                "close it and retry")
    return StoreCorruptError(f"cannot open store {path}: {_first_line(exc)}")


def _corrupt(path: Path, exc: duckdb.Error | str) -> StoreCorruptError:
    what = exc if isinstance(exc, str) else _first_line(exc)
    return StoreCorruptError(f"store {path} is corrupt ({what}); restore it from a backup")


def _write_error(path: Path, exc: duckdb.Error) -> StoreError:
    msg = _first_line(exc)
    if _CORRUPT.search(msg):
        return _corrupt(path, exc)
    if "space" in msg.lower() or "too large" in msg.lower():
        return StoreError(f"cannot write to store {path}: the disk is full ({msg})")
    return StoreError(f"cannot write to store {path}: {msg}")


def _to_arrow(table: str, rows: pl.DataFrame | pa.Table | Sequence[dict[str, Any]]) -> pa.Table:
    if isinstance(rows, pa.Table):
        return rows
    if isinstance(rows, pl.DataFrame):
        return rows.to_arrow()
    json_cols = JSON_COLUMNS.get(table, frozenset())
    # JSON columns take dicts and lists (serialised here) or ready JSON text (kept as is).
    records = [
        {k: (json.dumps(v, sort_keys=True, allow_nan=False)
             if k in json_cols and isinstance(v, (dict, list)) else v) for k, v in r.items()}
        for r in rows
    ]
    return pa.Table.from_pylist(records)


class Store:
    """An ortrex store; open it with a path, use it as a context manager.

    ``create`` makes a missing store; ``migrate`` upgrades an older schema (``ortrex init``);
    without it an older store is refused with a message saying how to migrate.
    """

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False,
                 create: bool = False, migrate: bool = False,
                 migrations: list[Migration] | None = None,
                 target_version: int = SCHEMA_VERSION, hold: bool | None = None,
                 exclusive: bool = True) -> None:
        """``hold``: keep the DuckDB file open for the Store's life (readers do, by default);
        a writer otherwise opens it for each transaction or query and lets go after, so
        readers can come in between. ``exclusive``: a writer takes the job lock (one job
        writes a store at a time); a short record writer (a manifest, a training run's row)
        passes False and only waits for the file."""
        self.path = resolve_db(path)
        self.read_only = read_only
        self.migrate = migrate
        self.hold = read_only if hold is None else hold
        self._conn: duckdb.DuckDBPyConnection | None = None
        self._depth = 0  # open transactions
        self._job_lock: int | None = None
        exists = self.path.exists()
        if not exists and not create:
            raise StoreError(f"no store at {self.path} (run `ortrex init` to create one)")
        if exists:
            self._check_file()
        else:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        if not read_only and exclusive:
            self._take_job_lock()
        try:
            self._conn = self._connect(lock_wait())
            if exists:
                self._check_size()
            self.schema_version = self._ensure_schema(migrations, target_version)
        except duckdb.Error as exc:
            self.close()
            raise _corrupt(self.path, exc) if _CORRUPT.search(str(exc)) else \
                _open_error(self.path, exc) from None
        except BaseException:
            self.close()
            raise
        self._let_go()

    def _take_job_lock(self) -> None:
        """The job lock: an flock on ``<store>.lock`` holding the writer's PID (a separate
        file: closing any descriptor of the store file would drop DuckDB's own locks)."""
        lock = self.path.with_name(self.path.name + ".lock")
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            pid = os.pread(fd, 32, 0).decode(errors="replace").strip()
            os.close(fd)
            who = f" (PID {pid})" if pid.isdigit() else ""
            raise StoreLockedError(
                f"store {self.path} is locked by another process{who}: another ortrex job is "
                "writing it; wait for it to finish (reading it needs no wait)") from None
        os.ftruncate(fd, 0)
        os.pwrite(fd, str(os.getpid()).encode(), 0)
        self._job_lock = fd

    def _connect(self, wait: float) -> duckdb.DuckDBPyConnection:
        """Open the file, waiting up to ``wait`` seconds while another process holds it."""
        deadline = time.monotonic() + wait
        delay = 0.02
        while True:
            try:
                return duckdb.connect(str(self.path), read_only=self.read_only)
            except duckdb.Error as exc:
                err = _open_error(self.path, exc)
                left = deadline - time.monotonic()
                if not isinstance(err, StoreLockedError) or left <= 0:
                    if isinstance(err, StoreLockedError) and wait > 0:
                        err = StoreLockedError(f"{err} (waited {wait:g} s)")
                    raise err from None
                time.sleep(min(delay, left))
                delay = min(delay * 2, 0.5)

    @property
    def conn(self) -> duckdb.DuckDBPyConnection:
        """The DuckDB connection, opened again (after a wait for another process's commit)
        if this store let go of the file."""
        if self._conn is None:
            self._conn = self._connect(max(lock_wait(), COMMIT_WAIT_S))
        return self._conn

    def _let_go(self) -> None:
        """Close the file between transactions unless this store holds it."""
        if not self.hold and self._depth == 0 and self._conn is not None:
            self._conn.close()
            self._conn = None

    def _check_file(self) -> None:
        if self.path.is_dir():
            raise StoreError(f"{self.path} is a directory, not a store file")
        with open(self.path, "rb") as fh:
            head = fh.read(16)
        if len(head) < 12 or head[8:12] != _DUCKDB_MAGIC:
            raise StoreCorruptError(
                f"{self.path} is not a DuckDB database (corrupt or another file type)")

    def _check_size(self) -> None:
        """A file shorter than its blocks in use was truncated (DuckDB would only notice when a
        query reaches a missing block). Free blocks do not count (a checkpoint trims them off
        the end of the file while the header still counts them); the highest block a table's
        data lives in does."""
        rel = self.conn.execute("PRAGMA database_size")
        names = [d[0] for d in rel.description]
        row = dict(zip(names, rel.fetchone() or (), strict=False))
        block = int(row.get("block_size") or 0)
        used = int(row.get("total_blocks") or 0) - int(row.get("free_blocks") or 0)
        highest = -1
        for table in self._tables():
            ((top,),) = self.conn.execute(
                "SELECT max(block_id) FROM pragma_storage_info(?) WHERE persistent",
                [table]).fetchall()
            highest = max(highest, int(top) if top is not None else -1)
        need = max(block * used, _HEADERS + block * (highest + 1) if highest >= 0 else 0)
        have = self.path.stat().st_size
        if have < need:
            raise _corrupt(self.path, f"truncated: {have:,} bytes, fewer than the "
                                      f"{need:,} bytes of blocks in use")

    def _tables(self) -> set[str]:
        rows = self.conn.execute(
            "SELECT table_name FROM duckdb_tables() WHERE database_name = current_database()"
        ).fetchall()
        return {r[0] for r in rows}

    def _ensure_schema(self, migrations: list[Migration] | None, target: int) -> int:
        tables = self._tables()
        if "schema_version" not in tables:
            if tables:
                raise StoreSchemaError(f"{self.path} is a DuckDB database but not an ortrex store")
            if self.read_only:
                raise StoreSchemaError(f"{self.path} is an empty database; run `ortrex init`")
            # The table classes only here (a new store) and for migrations: importing them
            # costs ~0.7 s that a command reading a store need not pay.
            from duckdb_engine import Dialect
            from sqlalchemy.schema import CreateTable

            from ortrex.store.migrations import stamp
            from ortrex.store.schema import TABLES
            from ortrex.store.views import LINEAGE_SQL

            with self.transaction():
                dialect = Dialect()
                for model in TABLES.values():
                    self.conn.execute(str(CreateTable(model.__table__).compile(dialect=dialect)))
                for ddl in LINEAGE_SQL:
                    self.conn.execute(ddl)
                stamp(self.conn, target, "initial schema")
            return target
        (row,) = self.conn.execute("SELECT max(version) FROM schema_version").fetchall()
        version = int(row[0]) if row[0] is not None else 0
        if version > target:
            raise StoreSchemaError(
                f"{self.path} has schema v{version}, newer than this ortrex supports "
                f"(v{target}); upgrade ortrex")
        if version < target:
            # Migrations run only when asked (``ortrex init``), never as a side effect of a job.
            if self.read_only or not self.migrate:
                raise StoreSchemaError(f"{self.path} has schema v{version}; run `ortrex init` "
                                       f"to migrate it to v{target}")
            from ortrex.store.migrations import pending, stamp

            steps = pending(version, migrations, target)
            with self.transaction():
                for step in steps:
                    step.apply(self.conn)
                    stamp(self.conn, step.version, step.description)
        return target

    # ------------------------------------------------------------------ use
    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection and give up the job lock (idempotent)."""
        conn = getattr(self, "_conn", None)
        if conn is not None:
            conn.close()
            self._conn = None
        fd = getattr(self, "_job_lock", None)
        if fd is not None:
            os.close(fd)  # releases the flock
            self._job_lock = None

    @contextmanager
    def transaction(self) -> Iterator[Store]:
        """One atomic transaction: everything inside commits together or not at all."""
        self.conn.execute("BEGIN TRANSACTION")
        self._depth += 1
        try:
            try:
                yield self
            except BaseException:
                with suppress(duckdb.Error):  # a failed write may have aborted it already
                    self.conn.execute("ROLLBACK")
                raise
            try:
                self.conn.execute("COMMIT")
            except duckdb.Error as exc:
                raise _write_error(self.path, exc) from None
        finally:
            self._depth -= 1
            self._let_go()

    def insert(self, table: str, rows: pl.DataFrame | pa.Table | Sequence[dict[str, Any]],
               on_conflict: str = "ignore") -> int:
        """Bulk insert by column name; returns the number of rows written.

        ``on_conflict``: ``ignore`` keeps existing rows with the same id (idempotent reruns),
        ``replace`` overwrites them (a verification re-run replaces the old verdict).
        """
        if table not in TABLE_NAMES:
            raise ValueError(f"unknown table {table!r}")
        verb = {"ignore": "INSERT OR IGNORE", "replace": "INSERT OR REPLACE"}[on_conflict]
        tbl = _to_arrow(table, rows)
        if tbl.num_rows == 0:
            return 0
        view = f"_ortrex_batch_{table}"
        self.conn.register(view, tbl)
        try:
            ((count,),) = self.conn.execute(
                f"{verb} INTO {table} BY NAME SELECT * FROM {view}").fetchall()
        except (duckdb.IOException, duckdb.InternalException, duckdb.FatalException) as exc:
            raise _write_error(self.path, exc) from None
        finally:
            with suppress(duckdb.Error):  # an interrupted query leaves the transaction aborted
                self.conn.unregister(view)
        return int(count)

    def query(self, sql: str, params: Sequence[Any] | dict[str, Any] | None = None
              ) -> pl.DataFrame:
        """Run SQL and return the result as a polars DataFrame (empty for statements)."""
        try:
            rel = self.conn.sql(sql, params=params)
            if rel is None:
                return pl.DataFrame()
            return pl.from_arrow(rel.to_arrow_table())  # type: ignore[return-value]
        except duckdb.Error as exc:
            if _CORRUPT.search(str(exc)):
                raise _corrupt(self.path, exc) from None
            raise QueryError(f"SQL error: {_first_line(exc)}") from None
        finally:
            self._let_go()

    def columns(self, sql: str) -> list[str]:
        """The column names of ``sql``'s result, nothing read (what a filter over it can
        name, for its error message)."""
        try:
            return [r[0] for r in self.conn.execute(f"DESCRIBE {sql}").fetchall()]
        finally:
            self._let_go()

    def filter_error(self, option: str, where: str, exc: Exception, over: str) -> str:
        """One line for a bad ``option`` filter: DuckDB's reason and the columns of ``over``
        (the query the filter is applied to) it can use."""
        why = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        try:
            cols = ", ".join(self.columns(over))
        except duckdb.Error:
            return f"{option} {where!r}: {why}"
        return f"{option} {where!r}: {why} (the filter can use: {cols})"

    def counts(self) -> dict[str, int]:
        """Row count of every ortrex table."""
        try:
            return {t: int(self.conn.execute(f"SELECT count(*) FROM {t}").fetchall()[0][0])
                        for t in TABLE_NAMES if t != "schema_version"}
        finally:
            self._let_go()
