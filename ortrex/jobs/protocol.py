"""What every executor is (the ``Executor`` protocol), the error of a job that cannot run, and
the slice every wait is cut into; the executors and the driver import them from here."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from typing import Any, Protocol

POLL_S = 0.25  # waits are sliced so that Ctrl-C reaches the driver at once


class JobError(ValueError):
    """A job that cannot run as asked: a bad spec, executor or resume (one line, exit 2)."""


def unknown_names(what: str, given: list[str], known: list[str], extra: str = "") -> JobError:
    """The error for names a job does not know: each with its closest known name ("did you
    mean"), then every known name (``extra``: a further choice, such as 'all')."""
    import difflib

    said = []
    for name in given:
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
        said.append(f"{name!r} (did you mean {close[0]!r}?)" if close else repr(name))
    return JobError(f"unknown {what} {', '.join(said)}; known: {', '.join(sorted(known))}"
                    f"{extra}")


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
