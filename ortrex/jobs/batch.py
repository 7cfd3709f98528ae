"""The batch writer every job's writer is, and ``run_job``, the one way a batch job runs.

A job's writer buffers rows by table and commits them in ``flush``, one transaction per flush,
each table with its own policy: which of a batch's rows with one id is written (``first``: the
first task's, as the generate and render writers always kept; ``last``) and what a row whose id
is already stored does (``ignore``: kept, so reruns are idempotent; ``replace``: overwritten,
so a re-verification replaces its verdict). ``run_job`` owns the executor's lifetime (made here
when none is given, and then closed here) and the run's start and finish hooks (the ``runs``
row: this leaf layer does not know the store, the caller passes ``ortrex.store.records``'
functions). Resuming is the tasks' business: a job lists only what its run has not committed.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ortrex.jobs.driver import DriveStats, JobWriter, drive
from ortrex.jobs.executors import make_executor
from ortrex.jobs.protocol import Executor

T = TypeVar("T")
Row = dict[str, Any]


class RowSink(Protocol):
    """Where a batch writer commits: ``ortrex.store.Store`` is one."""

    def transaction(self) -> AbstractContextManager[Any]:
        """One atomic transaction."""
        ...

    def insert(self, table: str, rows: Sequence[Row], on_conflict: str = "ignore") -> int:
        """Bulk insert; ``on_conflict`` is ``ignore`` or ``replace``."""
        ...


@dataclass(frozen=True)
class Policy:
    """How one table's buffered rows are written."""

    conflict: str = "ignore"  # a row whose id is stored already: kept (ignore) or replace
    keep: str = "first"  # rows of one batch with the same id: the first or the last is written

    def __post_init__(self) -> None:
        if self.conflict not in ("ignore", "replace") or self.keep not in ("first", "last"):
            raise ValueError(f"bad table policy {self}")


IGNORE, REPLACE = Policy("ignore"), Policy("replace")


def unique(rows: list[Row], keep: str) -> list[Row]:
    """``rows`` with one row per id: the first (or the last) of each id."""
    if keep == "last":
        return list({r["id"]: r for r in rows}.values())
    out = list({r["id"]: r for r in reversed(rows)}.values())
    out.reverse()
    return out


class BatchWriter:
    """Rows by table, committed in one transaction per flush under each table's ``Policy``.

    ``tables`` names every table the job writes, in the order they are inserted. A job's writer
    subclasses it: its ``add`` and ``fail`` ``put`` rows and count the task with ``task_done``;
    ``due`` says when ``batch`` tasks are buffered (or, with ``max_delay``, when the oldest has
    waited that many seconds); ``write_more`` is called inside the flush's transaction for what
    is not rows (status updates).
    """

    def __init__(self, store: RowSink, tables: dict[str, Policy], batch: int,
                 max_delay: float | None = None) -> None:
        self.store, self.tables = store, dict(tables)
        self.batch, self.max_delay = batch, max_delay
        self.rows: dict[str, list[Row]] = {}
        self.pending = 0  # tasks buffered
        self.last_flush = time.monotonic()

    def put(self, table: str, rows: Iterable[Row]) -> None:
        """Buffer rows of ``table``."""
        if table not in self.tables:
            raise KeyError(f"this writer does not write table {table!r}")
        self.rows.setdefault(table, []).extend(rows)

    def task_done(self) -> None:
        """Count one buffered task (what ``due`` measures)."""
        self.pending += 1

    def due(self) -> bool:
        """Whether the buffer should be committed now."""
        return self.pending >= self.batch or (
            self.max_delay is not None and self.pending > 0
            and time.monotonic() - self.last_flush > self.max_delay)

    def write_more(self) -> None:
        """What the writer commits besides rows, inside the flush's transaction (none here)."""

    def flush(self) -> None:
        """Commit everything buffered in one transaction."""
        if not self.pending and not any(self.rows.values()):
            return
        with self.store.transaction():
            for table, policy in self.tables.items():
                rows = unique(self.rows.get(table, []), policy.keep)
                if rows:
                    self.store.insert(table, rows, on_conflict=policy.conflict)
            self.write_more()
        self.rows.clear()
        self.pending = 0
        self.last_flush = time.monotonic()


@contextmanager
def executor_for(executor: Executor | None, workers: int) -> Iterator[Executor]:
    """``executor``, or one made for ``workers`` and closed on the way out (only then: an
    executor the caller gave stays the caller's)."""
    if executor is not None:
        yield executor
        return
    made = make_executor(workers)
    try:
        yield made
    finally:
        made.close()


def run_job(tasks: Iterable[T], worker: Callable[[T], Any], writer: JobWriter[T], *,
            executor: Executor | None = None, workers: int = 1,
            start: Callable[[], None] | None = None,
            finish: Callable[[DriveStats], None] | None = None,
            stop: Callable[[], bool] | None = None,
            on_result: Callable[[T, Any], None] | None = None) -> DriveStats:
    """Run a batch job: ``start()`` (its run row), every task through ``worker`` on the
    executor into ``writer`` (see ``drive``), then ``finish(stats)`` (the run's counts) once
    the drive has finished; an interrupted or failed drive leaves the run unfinished."""
    if start is not None:
        start()
    with executor_for(executor, workers) as ex:
        stats = drive(tasks, worker, writer, ex, stop=stop, on_result=on_result)
    if finish is not None:
        finish(stats)
    return stats


__all__ = ["IGNORE", "REPLACE", "BatchWriter", "Policy", "RowSink", "executor_for", "run_job",
           "unique"]
