"""Task failures: a task that raised or crashed its worker, kept as a value the writer records."""

from __future__ import annotations

import hashlib
import re
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

TRACEBACK_CHARS = 4000  # the end of a traceback (where the error is) kept in a failure row


@dataclass(frozen=True)
class TaskFailure:
    """What became of a task that never produced a result.

    ``kind`` is ``error`` (the worker function raised) or ``crash`` (the worker process died
    under it: a segfault, ``os._exit``, the OOM killer, a lost Ray node). ``digest`` is the
    sha256 of the traceback without line numbers' noise, so the same bug groups in SQL.
    """

    kind: str
    error: str
    traceback: str
    attempts: int

    @property
    def digest(self) -> str:
        """A short hash grouping failures of the same cause: the traceback without line
        numbers, carets, addresses or the values in the message (``odd task 1`` and ``odd
        task 3`` are one bug)."""
        tb = re.sub(r"line \d+", "line N", self.traceback)
        tb = re.sub(r"^\s*[\^~]+\s*$", "", tb, flags=re.M)
        tb = re.sub(r"0x[0-9a-fA-F]+|\d+(\.\d+)?", "#", tb)
        return hashlib.sha256(f"{self.kind}\n{tb}".encode()).hexdigest()[:16]

    def line(self) -> str:
        """One line for a log or a table cell."""
        return f"{self.kind}: {self.error} (after {self.attempts} attempt" \
               f"{'s' if self.attempts != 1 else ''})"


def _error_line(exc: BaseException) -> str:
    text = f"{type(exc).__name__}: {exc}".strip().splitlines()
    return (text[0] if text else type(exc).__name__)[:300]


def failure_of(exc: BaseException, attempts: int) -> TaskFailure:
    """A failure from an exception raised by the worker function."""
    tb = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    return TaskFailure("error", _error_line(exc), tb[-TRACEBACK_CHARS:], attempts)


def crash(attempts: int, detail: str = "the worker process died while running the task"
          ) -> TaskFailure:
    """A failure for a task whose worker process died ``attempts`` times under it."""
    return TaskFailure("crash", detail, detail, attempts)


class Interrupted(Exception):
    """Ctrl-C (or SIGTERM) during a job: what was finished is committed; rerunning the same
    command continues the job. Not a KeyboardInterrupt, so that no library on the way up
    (click among them) turns it into something else."""


_SIGNALLED = [False]


def mark_signalled(value: bool = True) -> None:
    """Record that Ctrl-C or SIGTERM arrived (the CLI's handler sets it, ``main`` clears it)."""
    _SIGNALLED[0] = value


def signalled() -> bool:
    """Whether Ctrl-C or SIGTERM arrived: an exception raised from a signal handler inside a
    DuckDB query comes back as DuckDB's own ``Query interrupted`` error (and the next call in
    the aborted transaction as a TransactionException), not as ``Interrupted``."""
    return _SIGNALLED[0]


@dataclass(frozen=True)
class Guarded:
    """``fn`` with its exceptions turned into ``TaskFailure`` values after ``retries`` more
    attempts (picklable: it travels to worker processes and Ray tasks)."""

    fn: Callable[[Any], Any]
    retries: int = 0

    def __call__(self, item: Any) -> Any:
        for attempt in range(1, self.retries + 2):
            try:
                return self.fn(item)
            except Interrupted:  # Ctrl-C reaching a task run inline stops the job, not the task
                raise
            except Exception as exc:  # a task's own failure must not stop the job
                if signalled():
                    raise Interrupted("interrupted") from exc
                if attempt > self.retries:
                    return failure_of(exc, attempt)
        raise AssertionError("unreachable")


def run_chunk(fn: Callable[[Any], Any], items: list[Any]) -> list[Any]:
    """Apply ``fn`` to a chunk of items (one round trip to a worker)."""
    return [fn(item) for item in items]
