"""The run in the store: a ``runs`` row and lineage edges export -> run -> checkpoint -> model,
so `ortrex lineage` follows a document from its instance to the model trained on it."""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ortrex.trainers.sources import DataSource


def run_id(identity: dict[str, Any]) -> str:
    """The content-derived id of a training run (the same settings: the same run)."""
    from ortrex.store.ids import content_id

    return content_id("run", "train", identity)


def checkpoint_id(rid: str, step: int) -> str:
    """The id of a run's checkpoint after ``step`` steps."""
    from ortrex.store.ids import content_id

    return content_id("ckpt", rid, step)


def _edge(parent: str, pkind: str, child: str, ckind: str, relation: str, rid: str,
          params: dict[str, Any] | None = None) -> dict[str, Any]:
    from ortrex.store.records import lineage_row

    return lineage_row(parent, pkind, child, ckind, relation, operator="train",
                       params=json.dumps(params) if params else None, run_id=rid)


@contextmanager
def _store(db: str, wait_s: float = 60.0) -> Iterator[Any]:
    """The store, waited for while another process holds its write lock (DuckDB has one
    writer; ortrex jobs hold it for short transactions)."""
    from ortrex.store import Store
    from ortrex.store.errors import StoreLockedError

    deadline = time.monotonic() + wait_s
    while True:
        try:
            store = Store(db, create=True)
            break
        except StoreLockedError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2 + random.random() * 0.3)
    with store, store.transaction():
        yield store


def _warn(exc: Exception) -> None:
    print(f"warning: the store was not updated ({exc})", file=sys.stderr)


def start(db: str, rid: str, command: str, config: dict[str, Any], sources: list[DataSource],
          init_checkpoint: str | None) -> list[str]:
    """The run row (kept as it is when the run resumes) and edges from the exports it reads
    (and the checkpoint it starts from); the export ids found."""
    from ortrex.store.records import run_row

    with _store(db) as store:
        store.insert("runs", [run_row(rid, command, config)])
        store.conn.execute("UPDATE runs SET status = 'running' WHERE id = ?", [rid])
        found, edges = [], []
        for s in sources:
            rows = store.query("SELECT id FROM exports WHERE path = ?",
                               [str(Path(s.export_prefix).resolve())])
            for (eid,) in rows.iter_rows():
                found.append(eid)
                edges.append(_edge(eid, "export", rid, "run", "trained_on", rid,
                                   {"dataset": s.prefix}))
        if init_checkpoint:
            edges.append(_edge(init_checkpoint, "checkpoint", rid, "run", "initialized_from",
                               rid))
        if edges:
            store.insert("lineage", edges)
    return found


def checkpoint(db: str, rid: str, ckpt_id: str, path: Path, step: int) -> None:
    """The edge run -> checkpoint (a locked or broken store is a warning: training goes on)."""
    from ortrex.store.errors import StoreError

    try:
        with _store(db) as store:
            store.insert("lineage", [_edge(rid, "run", ckpt_id, "checkpoint", "checkpoint",
                                           rid, {"path": str(path.resolve()), "step": step})])
    except StoreError as exc:
        _warn(exc)


def finish(db: str, rid: str, counts: dict[str, Any]) -> None:
    """Mark the run complete with its figures."""
    from ortrex.store.db import utcnow
    from ortrex.store.errors import StoreError

    try:
        with _store(db) as store:
            store.conn.execute("UPDATE runs SET status = 'complete', finished_at = ?, "
                               "counts = ? WHERE id = ?",
                               [utcnow(), json.dumps(counts, default=str), rid])
    except StoreError as exc:
        _warn(exc)


def model(db: str, ckpt_id: str, rid: str | None, out: Path, sha: str) -> str:
    """The edge checkpoint -> exported model; the model's id."""
    from ortrex.store.ids import content_id

    mid = content_id("model", ckpt_id, sha)
    with _store(db) as store:
        store.insert("lineage", [_edge(ckpt_id, "checkpoint", mid, "model", "exported_hf",
                                       rid or "", {"path": str(out.resolve()),
                                                   "sha256": sha})])
    return mid
