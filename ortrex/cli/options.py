"""Options every batch command shares: where its tasks run and how failures are retried."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from ortrex.jobs.executors import MAX_WORKERS

DEFAULT_WORKERS = os.cpu_count() or 1

CountOption = Annotated[int, typer.Option(
    help="Accepted instances the job makes in all: a rerun continues the same job up to this "
    "total (a larger count adds the difference, a smaller one does nothing).")]
WorkersOption = Annotated[int, typer.Option(
    help=f"Worker processes (on Ray: CPU slots to start a local Ray with); 1 to {MAX_WORKERS}.")]
ExecutorOption = Annotated[str, typer.Option(
    "--executor", help="Where tasks run: local (this machine's processes) or ray.")]
RayAddressOption = Annotated[str | None, typer.Option(
    "--ray-address", help="With --executor ray: 'auto' or HOST:PORT of a running cluster "
    "(default: start a local Ray).", show_default=False)]
CpusPerTaskOption = Annotated[float, typer.Option(
    "--cpus-per-task", help="With --executor ray: CPUs each task reserves.")]
RetriesOption = Annotated[int, typer.Option(
    "--retries", help="Attempts after the first for a task that raises or crashes its "
    "worker; then it is recorded in task_failures and skipped.")]


def executor(workers: int, kind: str = "local", ray_address: str | None = None,
             cpus_per_task: float = 1.0, retries: int = 2) -> Any:
    """The executor the options ask for (bad values: one line, exit 2, nothing started)."""
    from ortrex.jobs import make_executor

    return make_executor(workers, kind, retries=retries, ray_address=ray_address,
                         cpus_per_task=cpus_per_task)
