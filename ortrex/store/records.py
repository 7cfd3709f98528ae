"""The only builders of the store's bookkeeping rows (instances, lineage edges, run tasks, runs,
task failures), and IR read back from rows.

Lineage edge ids follow one rule (``lineage_id``): an edge is its parent, child and relation,
and its operator is part of its identity exactly for the relations where one parent can reach
the same child by that relation through different operators (two mutation operators making
one child, two served models answering one document, two repair methods, review branches):
``OPERATOR_KEYED``. Everywhere else the operator is a label of the edge, not a second edge
(a family, ``seed``, ``sandbox``, ``train``, an export kind: each is fixed by the child). One
historical exception keeps stored ids as they are: a ``rendered`` edge carries the document
kind (the first field of its operator) in its id.
"""

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
from ortrex.store.ids import edge_id

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


# Relations whose edges are told apart by their operator (see the module docstring).
OPERATOR_KEYED = frozenset({"mutated", "generated", "answered", "diagnosed", "repaired",
                            "reviewed", "cleaned"})


def lineage_id(parent_id: str, child_id: str, relation: str, operator: str | None) -> str:
    """The id of a lineage edge under the one rule (module docstring)."""
    if relation == "rendered":  # stored ids name the document kind: kept as they are
        return edge_id(parent_id, child_id, relation,
                       operator.split(":", 1)[0] if operator else None)
    return edge_id(parent_id, child_id, relation,
                   operator if relation in OPERATOR_KEYED else None)


def lineage_row(parent_id: str, parent_kind: str, child_id: str, child_kind: str,
                relation: str, *, operator: str | None = None,
                params: str | dict[str, Any] | None = None, created_at: datetime | None = None,
                run_id: str | None = None) -> dict[str, Any]:
    """A ``lineage`` row (``params``: a dict, or JSON text kept as it is)."""
    return {"id": lineage_id(parent_id, child_id, relation, operator), "parent_id": parent_id,
            "parent_kind": parent_kind, "child_id": child_id, "child_kind": child_kind,
            "relation": relation, "operator": operator, "params": params,
            "created_at": created_at or utcnow(), "run_id": run_id}


def run_task_row(run_id: str, key: str | int, task: int, family: str, outcome: str, *,
                 reason: str | None = None, instance_id: str | None = None,
                 semantic_id: str | None = None, created_at: datetime | None = None
                 ) -> dict[str, Any]:
    """A ``run_tasks`` row: what became of task ``key`` of a run (one row per run and key)."""
    return {"id": f"{run_id}:{key}", "run_id": run_id, "task": task, "family": family,
            "instance_id": instance_id, "semantic_id": semantic_id, "outcome": outcome,
            "reason": reason, "created_at": created_at or utcnow()}


def failed_reason(failure: TaskFailure) -> str:
    """The ``run_tasks`` reason of a task that failed on every attempt."""
    return f"{failure.kind}: {failure.error}"[:500]


def run_row(run_id: str, command: str, config: dict[str, Any], *, status: str = "running",
            counts: dict[str, Any] | None = None, started_at: datetime | None = None,
            finished_at: datetime | None = None) -> dict[str, Any]:
    """A ``runs`` row (a job that records itself only once done passes its final status)."""
    row: dict[str, Any] = {"id": run_id, "command": command, "config": config,
                           "status": status, "ortrex_version": __version__,
                           "started_at": started_at or utcnow(), "counts": counts}
    if finished_at is not None:
        row["finished_at"] = finished_at
    return row


def start_run(store: Store, run_id: str, command: str, config: dict[str, Any]) -> None:
    """Record that a job (re)started (an existing run row is kept as it is)."""
    with store.transaction():
        store.insert("runs", [run_row(run_id, command, config)])


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
