"""Worker functions for the executor tests (importable by worker processes and Ray workers)."""

from __future__ import annotations

import os
from pathlib import Path


def square(x: int) -> int:
    return x * x


def raise_on_odd(x: int) -> int:
    if x % 2:
        raise ValueError(f"odd task {x}")
    return x


def die_on(arg: tuple[int, int]) -> int:
    """Task ``x`` kills its worker process (as a segfault or the OOM killer would)."""
    x, bad = arg
    if x == bad:
        os._exit(17)
    return x


def die_once(arg: tuple[int, str]) -> int:
    """The first attempt at each task kills its worker; a retry succeeds (a lost node)."""
    x, folder = arg
    mark = Path(folder) / f"died-{x}"
    if not mark.exists():
        mark.write_text("x")
        os._exit(17)
    return x


def flaky_once(arg: tuple[int, str]) -> int:
    """The first attempt at each task raises; a retry succeeds."""
    x, folder = arg
    mark = Path(folder) / f"raised-{x}"
    if not mark.exists():
        mark.write_text("x")
        raise RuntimeError(f"transient failure of task {x}")
    return x


def sandboxed(code: str) -> tuple[str, str, str]:
    """Run ``code`` in this worker's warm sandbox (as a render or seed task does):
    (run status, stdout, capture status)."""
    from ortrex.verifiers.checks.document import sandbox
    from ortrex.verifiers.sandbox.isolation import Limits
    from ortrex.verifiers.sandbox.server import Job

    r = sandbox().run(Job(code, limits=Limits(wall_s=10, cpu_s=10, memory_mb=1024)))
    return r.status, r.stdout, r.capture_status
