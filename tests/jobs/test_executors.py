"""Executors and the driver: ordered results, failures as values, crashes found and retried,
early stop, the same results on every executor (local processes and a real local Ray)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ortrex.jobs import (
    InlineExecutor,
    JobError,
    LocalExecutor,
    TaskFailure,
    drive,
    make_executor,
)
from tests.jobs.workers import die_on, die_once, flaky_once, raise_on_odd, square

pytestmark = pytest.mark.xdist_group("ray")  # one Ray at a time on a 2-core machine


@pytest.fixture(scope="module")
def ray_executor() -> Iterator[Any]:
    """One real local Ray (2 CPU slots) for the module, always shut down."""
    os.environ["RAY_AUTH_MODE"] = "disabled"
    ray = pytest.importorskip("ray")
    ex = make_executor(2, "ray", retries=2)
    try:
        yield ex
    finally:
        ex.close()
        assert not ray.is_initialized()


def executors(ray_executor: Any) -> list[Any]:
    return [InlineExecutor(retries=2), LocalExecutor(2, retries=2), ray_executor]


def test_results_come_back_in_order_on_every_executor(ray_executor: Any) -> None:
    for ex in executors(ray_executor):
        assert list(ex.map(square, range(200))) == [k * k for k in range(200)], ex.kind
        if ex is not ray_executor:
            ex.close()


def test_an_exception_is_a_failure_value_and_the_rest_go_on(ray_executor: Any) -> None:
    for ex in executors(ray_executor):
        out = list(ex.map(raise_on_odd, range(6)))
        assert out[0::2] == [0, 2, 4], ex.kind
        for k, f in zip((1, 3, 5), out[1::2], strict=True):
            assert isinstance(f, TaskFailure) and f.kind == "error", (ex.kind, f)
            assert f.error == f"ValueError: odd task {k}" and f.attempts == 3
            assert "raise_on_odd" in f.traceback
        # One bug, one digest (the values in the message do not split it).
        assert len({f.digest for f in out[1::2]}) == 1
        if ex is not ray_executor:
            ex.close()


def test_a_transient_error_is_retried(tmp_path: Path, ray_executor: Any) -> None:
    for n, ex in enumerate(executors(ray_executor)):
        folder = tmp_path / str(n)
        folder.mkdir()
        assert list(ex.map(flaky_once, [(k, str(folder)) for k in range(5)])) == list(range(5))
        assert len(list(folder.iterdir())) == 5  # each failed once, then passed
        if ex is not ray_executor:
            ex.close()


@pytest.mark.parametrize("bad", [0, 7, 29])
def test_the_task_that_kills_its_worker_is_found_the_others_kept(bad: int) -> None:
    ex = LocalExecutor(2, retries=2)
    try:
        out = list(ex.map(die_on, [(k, bad) for k in range(30)]))
    finally:
        ex.close()
    assert [o for k, o in enumerate(out) if k != bad] == [k for k in range(30) if k != bad]
    f = out[bad]
    assert isinstance(f, TaskFailure) and f.kind == "crash" and f.attempts == 3
    assert ex.crashes >= 3
    # The pool works after the crashes.
    ex = LocalExecutor(2)
    try:
        assert list(ex.map(square, range(5))) == [0, 1, 4, 9, 16]
    finally:
        ex.close()


def test_a_worker_killed_once_is_retried_and_nothing_is_lost_or_doubled(
        tmp_path: Path, ray_executor: Any) -> None:
    for n, ex in enumerate([LocalExecutor(2, retries=2), ray_executor]):
        folder = tmp_path / str(n)
        folder.mkdir()
        out = list(ex.map(die_once, [(k, str(folder)) for k in range(12)]))
        assert out == list(range(12)), (ex.kind, out)
        assert len(list(folder.iterdir())) == 12  # every task killed its worker once
        if ex is not ray_executor:
            ex.close()


def test_ray_crash_after_its_retries_is_a_crash_failure(ray_executor: Any) -> None:
    out = list(ray_executor.map(die_on, [(k, 2) for k in range(5)]))
    assert out[:2] == [0, 1] and out[3:] == [3, 4]
    assert isinstance(out[2], TaskFailure) and out[2].kind == "crash"


class ListWriter:
    """A writer that keeps rows in lists and commits every 3 results."""

    def __init__(self) -> None:
        self.buffer: list[tuple[str, Any]] = []
        self.committed: list[tuple[str, Any]] = []

    def add(self, task: int, result: Any) -> None:
        self.buffer.append(("ok", (task, result)))

    def fail(self, task: int, failure: TaskFailure) -> None:
        self.buffer.append(("failed", (task, failure.kind)))

    def due(self) -> bool:
        return len(self.buffer) >= 3

    def flush(self) -> None:
        self.committed += self.buffer
        self.buffer = []


def test_drive_writes_results_and_failures_in_order_and_stops_early() -> None:
    w = ListWriter()
    ex = LocalExecutor(2, retries=0)
    try:
        stats = drive(range(100), raise_on_odd, w, ex,
                      stop=lambda: sum(1 for k, _ in w.committed + w.buffer if k == "ok") >= 5)
    finally:
        ex.close()
    assert stats.stopped_early and stats.tasks == 9 and stats.failed == 4
    assert w.committed == [("ok", (0, 0)), ("failed", (1, "error")), ("ok", (2, 2)),
                           ("failed", (3, "error")), ("ok", (4, 4)), ("failed", (5, "error")),
                           ("ok", (6, 6)), ("failed", (7, "error")), ("ok", (8, 8))]


def test_bad_executor_settings_are_one_line_errors() -> None:
    for kwargs, needle in (({"kind": "slurm"}, "--executor must be one of local, ray"),
                           ({"retries": -1}, "--retries must be 0 or more"),
                           ({"ray_address": "127.0.0.1:1"}, "--ray-address needs --executor ray")):
        with pytest.raises(JobError, match=needle):
            make_executor(2, **kwargs)
    with pytest.raises(JobError, match="--workers must be between 1 and"):
        make_executor(0)
