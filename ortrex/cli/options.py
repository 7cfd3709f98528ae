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


class EnvironmentFailure(Exception):
    """The machine, not the input, stopped a job (one line, exit 1)."""


def require_sandbox() -> None:
    """Refuse a job that runs programs, at its start, when no program can run in the sandbox
    here (a broken interpreter, a site hook that fails, a missing library): otherwise every
    document would be rejected for the same reason."""
    from ortrex.cli.app import UsageError
    from ortrex.verifiers.sandbox.preflight import why_not

    why = why_not()
    if why is not None:
        raise UsageError(f"sandboxed programs cannot run on this machine: {why} "
                         "(`ortrex doctor` says more)")


def check_outcomes(store: Any, run_id: str, what: str) -> None:
    """After a job: when it accepted nothing and every outcome had one cause, say so and end
    with exit 1 (a job that looks finished but produced nothing must not exit 0)."""
    from ortrex.store.outcomes import one_cause

    found = one_cause(store, run_id)
    if found is not None:
        n, cause = found
        raise EnvironmentFailure(f"all {n:,} {what} of this run ended the same way ({cause}); "
                                 "nothing was accepted (one cause for every task is usually "
                                 "the machine: a solver licence, or the sandbox, which "
                                 "`ortrex doctor` checks)")
