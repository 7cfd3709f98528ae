"""The one driver loop: tasks through an executor into a writer, in order, with early stop,
per-task failures and a clean stop on Ctrl-C.

A job is three things: its tasks (deterministic, each with a content-derived ``key``), a pure
worker function (task -> result, picklable, run anywhere) and a writer that ingests results
into the store idempotently in batches. The driver is the same for every job and executor.
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from ortrex.jobs.failures import Interrupted, TaskFailure, signalled
from ortrex.jobs.protocol import Executor

T = TypeVar("T")


class JobWriter(Protocol[T]):
    """Ingests a job's results; rows reach the store only in ``flush`` (one transaction)."""

    def add(self, task: T, result: Any) -> None:
        """Buffer the rows of one finished task."""

    def fail(self, task: T, failure: TaskFailure) -> None:
        """Buffer a failure row for a task that raised or crashed on every attempt."""

    def due(self) -> bool:
        """Whether the buffer should be committed now."""
        ...

    def flush(self) -> None:
        """Commit everything buffered in one transaction."""


@dataclass
class DriveStats:
    """What one drive did."""

    tasks: int = 0
    failed: int = 0
    seconds: float = 0.0
    stopped_early: bool = False


def in_order(executor: Executor, worker: Callable[[T], Any], tasks: Iterable[T]
             ) -> Iterator[tuple[T, Any]]:
    """(task, result or ``TaskFailure``) pairs in task order; tasks are read lazily, only as
    far ahead as the executor keeps in flight."""
    flight: deque[T] = deque()

    def feed() -> Iterator[T]:
        for t in tasks:
            flight.append(t)
            yield t

    for result in executor.map(worker, feed()):
        yield flight.popleft(), result


def drive(tasks: Iterable[T], worker: Callable[[T], Any], writer: JobWriter[T],
          executor: Executor, *, stop: Callable[[], bool] | None = None,
          on_result: Callable[[T, Any], None] | None = None) -> DriveStats:
    """Run ``tasks`` through ``executor`` into ``writer`` until they are done or ``stop()``.

    A task that came back as a ``TaskFailure`` is written as a failure row and the job goes
    on. Ctrl-C commits what is finished, stops the workers and raises ``Interrupted``.
    """
    stats = DriveStats()
    start = time.perf_counter()
    writing = False  # inside the writer: its buffer may hold half a task
    try:
        for task, result in in_order(executor, worker, tasks):
            writing = True
            stats.tasks += 1
            if isinstance(result, TaskFailure):
                stats.failed += 1
                writer.fail(task, result)
            else:
                writer.add(task, result)
            if on_result is not None:
                on_result(task, result)
            if writer.due():
                writer.flush()
            writing = False
            if stop is not None and stop():
                stats.stopped_early = True
                break
        writing = True
        writer.flush()
    except (KeyboardInterrupt, Exception) as exc:
        if not isinstance(exc, (KeyboardInterrupt, Interrupted)) and not signalled():
            raise
        # Interrupted while waiting for a result: every buffered task is whole, so commit
        # them. Interrupted inside the writer (a signal inside a DuckDB query arrives as
        # DuckDB's own error): drop the buffer (a rerun redoes those tasks; a commit under
        # way rolls back as a whole).
        if not writing:
            writer.flush()
        executor.close()
        raise Interrupted("interrupted; run the same command to continue") from None
    stats.seconds = time.perf_counter() - start
    return stats
