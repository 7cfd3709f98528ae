"""Run rows and task-failure rows: what every job records about itself in the store."""

from __future__ import annotations

import json
from typing import Any

from ortrex import __version__
from ortrex.jobs import TaskFailure
from ortrex.store.db import Store, utcnow


def start_run(store: Store, run_id: str, command: str, config: dict[str, Any]) -> None:
    """Record that a job (re)started (an existing run row is kept as it is)."""
    with store.transaction():
        store.insert("runs", [{"id": run_id, "command": command, "config": config,
                               "status": "running", "ortrex_version": __version__,
                               "started_at": utcnow(), "counts": None}])


def finish_run(store: Store, run_id: str, counts: dict[str, Any]) -> None:
    """Mark a run complete with its final counts."""
    with store.transaction():
        store.conn.execute(
            "UPDATE runs SET status = 'complete', finished_at = ?, counts = ? WHERE id = ?",
            [utcnow(), json.dumps(counts, default=str), run_id])


def failure_row(run_id: str, command: str, key: str, failure: TaskFailure) -> dict[str, Any]:
    """A ``task_failures`` row (one per run and task: a rerun that fails again replaces it)."""
    return {"id": f"{run_id}:{key}", "run_id": run_id, "command": command, "task_key": key,
            "kind": failure.kind, "error": failure.error, "digest": failure.digest,
            "traceback": failure.traceback, "attempts": failure.attempts,
            "created_at": utcnow()}
