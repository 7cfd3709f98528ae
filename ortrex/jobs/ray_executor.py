"""The Ray executor: the same ordered, chunked map on a Ray cluster (or a local Ray instance).

Chunks of tasks run as Ray tasks; their results travel back through the object store and are
yielded in task order, with a bounded number of chunks in flight (the driver's memory does not
grow with the job). Ray itself re-runs a chunk whose worker process or node died
(``max_retries``); a chunk that still cannot finish runs again task by task, so the one task
that kills its worker becomes a crash failure and the others are kept.
"""

from __future__ import annotations

import os
import sys
import time
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future
from itertools import islice
from typing import Any

from ortrex.jobs.failures import Guarded, crash, run_chunk
from ortrex.jobs.protocol import POLL_S, ExecutorError


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ExecutorError("--executor ray needs Ray: pip install -e '.[ray]'") from None
    return ray


def _lost(ray: Any) -> tuple[type[BaseException], ...]:
    """Ray's errors for a task whose worker process or node went away."""
    e = ray.exceptions
    return (e.WorkerCrashedError, e.NodeDiedError, e.ObjectLostError,
            getattr(e, "ActorDiedError", e.WorkerCrashedError))


class RayExecutor:
    """Runs chunks of tasks as Ray tasks, ``workers`` chunks per worker CPU slot in flight."""

    kind = "ray"

    def __init__(self, workers: int, retries: int = 2, address: str | None = None,
                 cpus_per_task: float = 1.0, max_chunk: int = 16,
                 chunk_seconds: float = 0.05) -> None:
        ray = _ray()
        if cpus_per_task <= 0:
            raise ExecutorError(f"--cpus-per-task must be positive, got {cpus_per_task}")
        self.retries, self.cpus_per_task = retries, cpus_per_task
        self.max_chunk, self.chunk_seconds = max_chunk, chunk_seconds
        self.started_here = not ray.is_initialized()
        if self.started_here:
            # Nothing of a job needs the dashboard or the workers' logs on this terminal.
            os.environ.setdefault("RAY_AUTH_MODE", "disabled")
            kwargs: dict[str, Any] = {"include_dashboard": False, "log_to_driver": False,
                                      "configure_logging": False}
            try:
                if address:
                    ray.init(address=address, **kwargs)
                else:  # a local Ray instance with this many CPU slots
                    # Its workers import what this process can import (the same machine).
                    path = os.pathsep.join(p for p in sys.path if p and os.path.isdir(p))
                    ray.init(num_cpus=workers, runtime_env={"env_vars": {"PYTHONPATH": path}},
                             **kwargs)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                raise ExecutorError(f"cannot start or reach Ray at {address or 'local'}: "
                                    f"{str(exc).splitlines()[0]}") from None
        cpus = float(ray.cluster_resources().get("CPU", workers))
        self.workers = max(1, int(cpus // cpus_per_task))
        self._task = ray.remote(num_cpus=cpus_per_task, max_retries=retries)(run_chunk)
        self.crashes = 0

    def _alone(self, ray: Any, fn: Callable[[Any], Any], item: Any) -> Any:
        """One task of a chunk that could not finish, on its own (Ray retried it already)."""
        try:
            return self._wait(ray, self._task.remote(fn, [item]))[0]
        except _lost(ray) as exc:
            self.crashes += 1
            return crash(self.retries + 1, f"the Ray worker died while running the task "
                                           f"({type(exc).__name__})")

    @staticmethod
    def _wait(ray: Any, ref: Any) -> Any:
        while True:  # sliced, so that Ctrl-C reaches the driver at once
            done, _ = ray.wait([ref], timeout=POLL_S)
            if done:
                try:
                    return ray.get(ref)
                except ray.exceptions.RayTaskError as exc:
                    if isinstance(exc, _lost(ray)):
                        raise
                    # Task errors come back as values (Guarded); this is Ray failing to run
                    # the task at all (a worker that cannot import it): no task can run.
                    first = str(exc.cause if exc.cause is not None else exc).splitlines()
                    raise ExecutorError("Ray workers cannot run the job's tasks: "
                                        f"{(first or ['?'])[0]}") from None

    def map(self, fn: Callable[[Any], Any], items: Iterable[Any]) -> Iterator[Any]:
        ray = _ray()
        g = Guarded(fn, self.retries)
        it = iter(items)
        pending: deque[tuple[Any, list[Any]]] = deque()
        per_item = self.chunk_seconds
        window = 2 * self.workers

        def submit() -> bool:
            size = max(1, min(self.max_chunk, int(self.chunk_seconds / max(per_item, 1e-6))))
            chunk = list(islice(it, size))
            if chunk:
                pending.append((self._task.remote(g, chunk), chunk))
            return bool(chunk)

        while len(pending) < window and submit():
            pass
        while pending:
            ref, chunk = pending.popleft()
            start = time.perf_counter()
            try:
                results = self._wait(ray, ref)
            except _lost(ray):
                self.crashes += 1
                results = [self._alone(ray, g, item) for item in chunk]
            per_item = 0.7 * per_item + 0.3 * max(
                (time.perf_counter() - start) * self.workers / len(chunk), 1e-6)
            while len(pending) < window and submit():
                pass
            yield from results

    def submit(self, fn: Callable[[Any], Any], item: Any) -> Future[Any]:
        """One task as one Ray task; its future resolves in Ray's own thread."""
        ray = _ray()
        out: Future[Any] = Future()
        ref = self._task.remote(Guarded(fn, self.retries), [item])

        def done(f: Future[Any]) -> None:
            try:
                out.set_result(f.result()[0])
            except _lost(ray) as exc:
                out.set_result(crash(self.retries + 1, f"the Ray worker died while running "
                                                       f"the task ({type(exc).__name__})"))
            except Exception as exc:
                out.set_exception(exc)

        ref.future().add_done_callback(done)
        return out

    def close(self) -> None:
        """Shut Ray down if this executor started it (a cluster it joined stays up)."""
        ray = _ray()
        if self.started_here and ray.is_initialized():
            ray.shutdown()
