"""Executors: where a job's tasks run (this process, local worker processes, a Ray cluster).

Every executor maps a worker function over tasks lazily and yields results **in task order**,
so a job's outcome does not depend on where it ran. A task that raises, or whose worker dies
under it, is tried again up to ``retries`` more times and then comes back as a
``TaskFailure`` in its place: one bad task never stops a job.
"""

from __future__ import annotations

import os
import signal
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from concurrent.futures import wait as futures_wait
from concurrent.futures.process import BrokenProcessPool
from itertools import islice
from typing import Any

from ortrex.jobs.failures import Guarded, TaskFailure, crash, run_chunk
from ortrex.jobs.protocol import POLL_S, Executor, ExecutorError, JobError

MAX_WORKERS = max(8, 4 * (os.cpu_count() or 1))  # more than this is a typo, not a plan
EXECUTORS = ("local", "ray")


class InlineExecutor:
    """Runs every task in this process (one worker; a crash ends the job with it)."""

    kind, workers = "inline", 1

    def __init__(self, retries: int = 0) -> None:
        self.retries = retries

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        return map(Guarded(fn, self.retries), items)

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Future[Any]:
        fut: Future[Any] = Future()
        fut.set_result(Guarded(fn, self.retries)(item))
        return fut

    def close(self) -> None:
        return None


def _ignore_sigint() -> None:
    # Ctrl-C goes to the whole process group; only the driver acts on it (it stops the
    # workers itself), so a worker never dies half-way through writing its result. SIGTERM
    # (how a pool stops its workers) ends a worker plainly, whatever the driver installed.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def wait_result(fut: Future[Any]) -> Any:
    """``fut.result()`` in short slices, so a KeyboardInterrupt is never stuck behind it."""
    while True:
        try:
            return fut.result(timeout=POLL_S)
        except FutureTimeout:
            continue


class LocalExecutor:
    """Runs tasks in ``workers`` local processes, in chunks, with a bounded window in flight.

    Chunks amortise the process pool's per-task cost (queues, pickling, futures) over tasks
    that take a few milliseconds; their size adapts to the measured task time (about 50 ms of
    work per chunk) so that slow tasks travel one by one and little work is left in flight
    when the job stops. ``window`` chunks per worker are unfinished at any time (refilled as
    soon as any chunk finishes); finished ones wait for the earlier ones. When a worker dies,
    the pool is rebuilt and the tasks that were in flight run again one at a time, so the task
    that kills its worker is found and, after ``retries`` more deaths, returned as a crash
    failure.
    """

    kind = "local"

    def __init__(self, workers: int, max_chunk: int = 16, chunk_seconds: float = 0.05,
                 retries: int = 2, window: int = 2) -> None:
        self.workers, self.window = workers, window
        self.max_chunk, self.chunk_seconds = max_chunk, chunk_seconds
        self.retries = retries
        self.pool = self._new_pool()
        self.crashes = 0  # worker deaths seen (tests, progress)

    def _new_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.workers, initializer=_ignore_sigint)

    def _rebuild(self) -> None:
        self.crashes += 1
        self.close(grace_s=0.0)
        self.pool = self._new_pool()

    def _alone(self, fn: Callable[[Any], Any], item: Any) -> Any:
        """Run one item that was in flight when a worker died, with nothing else in flight,
        rebuilding the pool after each death; ``retries`` deaths in all make it a crash."""
        attempts = 1  # the death that sent it here may have been its own
        while True:
            try:
                return wait_result(self.pool.submit(run_chunk, fn, [item]))[0]
            except BrokenProcessPool:
                self._rebuild()
                attempts += 1
                if attempts > self.retries:
                    return crash(attempts)

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        g = Guarded(fn, self.retries)
        it = iter(items)
        # Chunks in task order: running, queued in the pool, or finished and waiting for an
        # earlier one. New chunks go out whenever fewer than ``window`` per worker are
        # unfinished, not only when the oldest one is done: one slow chunk at the head must
        # not starve the other workers (with the window tied to the head, workers sat idle
        # 13-25% of a default-mix job). ``hold`` bounds what waits behind a slow chunk.
        pending: deque[tuple[Future[list[Any]], list[Any]]] = deque()
        per_item = self.chunk_seconds  # seconds per task, estimated from finished chunks
        hold = 4 * self.window * self.workers

        def submit() -> bool:
            size = max(1, min(self.max_chunk, int(self.chunk_seconds / max(per_item, 1e-6))))
            chunk = list(islice(it, size))
            if chunk:
                try:
                    fut = self.pool.submit(run_chunk, g, chunk)
                except BrokenProcessPool as exc:
                    # A worker died since the last result came back: the chunk waits as a
                    # lost one, and the loop below recovers it with the others in flight.
                    fut = Future()
                    fut.set_exception(exc)
                pending.append((fut, chunk))
            return bool(chunk)

        def refill() -> None:
            unfinished = sum(not f.done() for f, _ in pending)
            while unfinished < self.window * self.workers and len(pending) < hold and submit():
                unfinished += 1

        refill()
        while pending:
            fut, chunk = pending[0]
            start = time.perf_counter()
            try:
                while not fut.done():  # sliced, so that Ctrl-C reaches the driver at once
                    futures_wait([f for f, _ in pending if not f.done()], timeout=POLL_S,
                                 return_when=FIRST_COMPLETED)
                    refill()
                results = fut.result()
            except BrokenProcessPool:
                # Every chunk in flight is lost with the pool; which task killed it is not
                # known, so each runs again on its own (in order) until the culprit is found.
                lost = [c for _, c in pending]
                pending.clear()
                self._rebuild()
                for c in lost:
                    for item in c:
                        yield self._alone(g, item)
                refill()
                continue
            pending.popleft()
            # Chunks run in parallel: a chunk's items took about (wait + share) per worker.
            per_item = 0.7 * per_item + 0.3 * max(
                (time.perf_counter() - start) * self.workers / len(chunk), 1e-6)
            refill()
            yield from results

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Future[Any]:
        out: Future[Any] = Future()

        def done(f: Future[list[Any]]) -> None:
            try:
                out.set_result(f.result()[0])
            except BrokenProcessPool:
                out.set_result(crash(1))
            except Exception as exc:  # the pool itself failed (shut down)
                out.set_exception(exc)

        self.pool.submit(run_chunk, Guarded(fn, self.retries), [item]).add_done_callback(done)
        return out

    def close(self, wait: bool = False, grace_s: float = 2.0) -> None:
        """Stop: queued chunks are cancelled; chunks in flight (about ``chunk_seconds`` of work
        each) get ``grace_s`` to finish, then stragglers are killed (``wait``: they all
        finish). Killing workers at once could catch one writing its result, and the pool's
        manager thread would then wait forever for the rest of that message, hanging the
        interpreter's exit (seen once in CI)."""
        from multiprocessing.connection import wait as wait_any

        procs = list((getattr(self.pool, "_processes", None) or {}).values())
        if wait:
            self.pool.shutdown(wait=True, cancel_futures=True)
            return
        deadline = time.monotonic() + grace_s
        alive = [p for p in procs if p.is_alive()]
        self.pool.shutdown(wait=False, cancel_futures=True)
        while alive and time.monotonic() < deadline:
            wait_any([p.sentinel for p in alive], timeout=max(0.0, deadline - time.monotonic()))
            alive = [p for p in alive if p.is_alive()]
        for proc in alive:
            proc.kill()
        for proc in procs:
            proc.join(timeout=5)


def make_executor(workers: int, kind: str = "local", *, retries: int = 2,
                  ray_address: str | None = None, cpus_per_task: float = 1.0) -> Executor:
    """An executor of ``kind``: local (inline for one worker, processes otherwise) or Ray."""
    if kind not in EXECUTORS:
        raise ExecutorError(f"--executor must be one of {', '.join(EXECUTORS)}, got {kind!r}")
    if not 1 <= workers <= MAX_WORKERS:
        raise ExecutorError(f"--workers must be between 1 and {MAX_WORKERS}, got {workers}")
    if retries < 0:
        raise ExecutorError(f"--retries must be 0 or more, got {retries}")
    if kind == "ray":
        from ortrex.jobs.ray_executor import RayExecutor

        return RayExecutor(workers, retries=retries, address=ray_address,
                           cpus_per_task=cpus_per_task)
    if ray_address:
        raise ExecutorError("--ray-address needs --executor ray")
    return InlineExecutor(retries) if workers == 1 else LocalExecutor(workers, retries=retries)


__all__ = ["EXECUTORS", "MAX_WORKERS", "POLL_S", "Executor", "ExecutorError", "InlineExecutor",
           "JobError", "LocalExecutor", "TaskFailure", "make_executor", "wait_result"]
