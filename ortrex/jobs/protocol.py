"""What every executor is (the ``Executor`` protocol), the error of a job that cannot run, and
the slice every wait is cut into; the executors and the driver import them from here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any, Protocol

POLL_S = 0.25  # waits are sliced so that Ctrl-C reaches the driver at once


class JobError(ValueError):
    """A job that cannot run as asked: a bad spec, executor or resume (one line, exit 2)."""


ExecutorError = JobError  # an executor that cannot be set up as asked is a job that cannot run


class Executor(Protocol):
    """Runs tasks; results (or ``TaskFailure`` values) come back in task order."""

    kind: str
    workers: int

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        """Apply ``fn`` to ``items`` lazily, yielding results in input order."""
        ...

    def close(self) -> None:
        """Release workers."""

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Future[Any]:
        """One task on its own (for callers that await results as they come, such as the
        asynchronous evaluation loop); its future holds the result or a ``TaskFailure``."""
        ...
