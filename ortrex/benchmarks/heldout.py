"""``ortrex-heldout``: a held-out split of the store's verified SFT examples, scored like the
public benchmarks and kept out of every export.

Whole instances are held out (all their documents, CPT included), chosen by a hash of the
instance id and the split's seed, so the split is stable as the store grows. The split is a
lineage node: an edge document -> split (relation ``held_out``) for each held-out document;
``ortrex export`` leaves out every document with such an edge.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from ortrex.benchmarks.base import Benchmark, BenchmarkError, BenchmarkSource, Item, register

RELATION = "held_out"
NAME = "ortrex-heldout"


def split_id(fraction: float, seed: int) -> str:
    """The content-derived id of a split."""
    from ortrex.store.ids import content_id

    return content_id("split", NAME, round(fraction, 6), seed)


def _held(instance_id: str, fraction: float, seed: int) -> bool:
    h = hashlib.sha256(f"{seed}:{instance_id}".encode()).digest()
    return int.from_bytes(h[:8], "big") / 2**64 < fraction


def make_split(db: str | Path, fraction: float = 0.05, seed: int = 0) -> dict[str, Any]:
    """Hold out ``fraction`` of the instances that have accepted SFT examples; idempotent."""
    from ortrex.store import Store
    from ortrex.store.db import utcnow
    from ortrex.store.records import lineage_row

    if not 0 < fraction < 1:
        raise BenchmarkError(f"--fraction must be between 0 and 1, got {fraction}")
    sid = split_id(fraction, seed)
    now = utcnow()
    with Store(db) as store, store.transaction():
        docs = store.query(
            "SELECT id, instance_id FROM documents WHERE status = 'accepted' AND instance_id IN "
            "(SELECT instance_id FROM documents WHERE kind = 'sft' AND status = 'accepted')")
        held = [(d, i) for d, i in docs.iter_rows() if i and _held(i, fraction, seed)]
        params = json.dumps({"fraction": fraction, "seed": seed})
        edges = [lineage_row(d, "document", sid, "split", RELATION, operator=NAME,
                             params=params, created_at=now) for d, _ in held]
        added = store.insert("lineage", edges) if edges else 0
    return {"split": sid, "instances": len({i for _, i in held}), "documents": len(held),
            "new_edges": added}


def load_heldout(db: str | Path) -> Benchmark:
    """The held-out SFT examples as a benchmark (question: the user turn; answer: the
    verified optimum; the DPS data files given to the program)."""
    from ortrex.store import Store

    if not Path(db).is_file():
        raise BenchmarkError(f"{db}: no store")
    with Store(db, read_only=True) as store:
        rows = store.query(
            "SELECT d.id, d.messages, d.objective, d.data_files FROM documents d "
            f"JOIN lineage l ON l.parent_id = d.id AND l.relation = '{RELATION}' "
            "WHERE d.kind = 'sft' AND d.status = 'accepted' ORDER BY d.id").to_dicts()
    if not rows:
        raise BenchmarkError(f"{db}: no held-out split (run `ortrex eval heldout` first)")
    items = []
    h = hashlib.sha256()
    for r in rows:
        msgs = r["messages"] if isinstance(r["messages"], list) else json.loads(r["messages"])
        files = r["data_files"] if isinstance(r["data_files"], dict) else \
            json.loads(r["data_files"] or "{}")
        question = next(m["content"] for m in msgs if m["role"] == "user")
        obj = r["objective"]
        items.append(Item(NAME, r["id"], question, "objective", obj,
                          {k: str(v) for k, v in (files or {}).items()},
                          unscoreable=None if obj is not None else "no verified objective"))
        h.update(json.dumps([r["id"], question, obj, files], sort_keys=True).encode())
    return Benchmark(NAME, items, h.hexdigest(), f"store:{db}")


@register
class HeldOut(BenchmarkSource):
    """The held-out split as a registered benchmark: read from the store, not the data
    directory, and never a decontamination source (it is ortrex's own corpus)."""

    name = NAME
    title = NAME
    needs_store = True

    def from_store(self, db: str | Path) -> Benchmark:
        """The split's items from the store ``db``."""
        return load_heldout(db)
