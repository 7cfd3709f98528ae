"""The builders of the store's rows (instances, runs, task failures), and IR read back from rows."""

from __future__ import annotations

import json
import zlib
from datetime import datetime
from typing import Any

from ortrex import __version__
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import FP_VERSION
from ortrex.jobs.failures import TaskFailure
from ortrex.store.db import Store, utcnow
from ortrex.store.errors import StoreError

MODEL_FORMAT = "ortrex-canonical-1+zlib"


def instance_row(model: CanonicalModel, family: str | None = None, run_id: str | None = None,
                 created_at: datetime | None = None, **extra: Any) -> dict[str, Any]:
    """The ``instances`` row of a canonical model (id = content hash); ``extra`` sets the
    outcome columns (status, reject_reason, objective, ...)."""
    s = model.stats()
    return {
        "id": model.content_hash,
        "structural_fp": model.structural_fingerprint,
        "formulation_fp": model.formulation_fingerprint,
        "fp_version": FP_VERSION,
        "name": model.name,
        "family": family,
        "problem_class": s.problem_class,
        "sense": model.sense.value,
        "n_vars": s.n_vars,
        "n_rows": s.n_rows,
        "nnz": s.nnz,
        "n_int": s.n_int,
        "n_bin": s.n_bin,
        "n_qobj": s.n_qobj,
        "n_qrows": s.n_qrows,
        "difficulty": None,
        "model": zlib.compress(model.to_bytes(), 1),  # level 1: fast, and the hash is unaffected
        "model_format": MODEL_FORMAT,
        "created_at": created_at or utcnow(),
        "run_id": run_id,
        "status": "imported",
        **extra,
    }


def pack_solution(x: Any) -> bytes | None:
    """A solution vector as zlib-compressed little-endian float64 (None stays None)."""
    if x is None:
        return None
    import numpy as np

    return zlib.compress(np.ascontiguousarray(x, dtype="<f8").tobytes(), 1)


def unpack_solution(blob: bytes | None) -> Any:
    """Inverse of :func:`pack_solution`."""
    if blob is None:
        return None
    import numpy as np

    return np.frombuffer(zlib.decompress(blob), dtype="<f8").copy()


def load_instance(store: Store, instance_id: str) -> CanonicalModel:
    """The canonical model stored under ``instance_id``."""
    rows = store.conn.execute(
        "SELECT model, model_format FROM instances WHERE id = ?", [instance_id]).fetchall()
    if not rows:
        raise StoreError(f"no instance with id {instance_id!r}")
    blob, fmt = rows[0]
    if fmt != MODEL_FORMAT:
        raise StoreError(f"instance {instance_id}: unknown model format {fmt!r}")
    return CanonicalModel.from_bytes(zlib.decompress(blob))


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
