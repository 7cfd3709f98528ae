"""What every export leaves besides its datasets: checked output location, a manifest
(``PREFIX.manifest.json``), an ``exports`` row and lineage edges (document -> export)."""

from __future__ import annotations

import hashlib
import json
import os
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ortrex import __version__
from ortrex.export.errors import ExportError


def check_output(prefix: str | Path) -> Path:
    """The output prefix, after checking that its directory exists and is writable."""
    p = Path(prefix)
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir():
        raise ExportError(f"{parent}: the output directory does not exist")
    if not os.access(parent, os.W_OK):
        raise ExportError(f"{parent}: the output directory is not writable")
    if not p.name:
        raise ExportError(f"{prefix}: the output prefix needs a file name part")
    return p


def sha256_file(path: Path) -> str:
    """sha256 of a file, streamed."""
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


@dataclass
class ExportReport:
    """Counts and files of one export."""

    kind: str
    prefix: str
    counts: Counter[str] = field(default_factory=Counter)
    tokens: int = 0  # written (padding included)
    encoded: int = 0  # produced by the tokenizer (what progress and rates count)
    files: list[Path] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    seconds: float = 0.0
    document_ids: list[str] = field(default_factory=list)
    export_id: str = ""


def write_manifest(rep: ExportReport, tokenizer: Any, options: dict[str, Any],
                   inputs: list[str]) -> Path:
    """``PREFIX.manifest.json`` (atomically)."""
    from ortrex.ir.formats.text import write_atomic

    manifest = {
        "kind": rep.kind, "ortrex_version": __version__,
        "created_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "tokenizer": {"name": tokenizer.name, "file": tokenizer.path,
                      "sha256": tokenizer.sha256, "vocab_size": tokenizer.vocab_size,
                      "eos_id": tokenizer.eos_id, "pad_id": tokenizer.pad_id},
        "options": options, "inputs": inputs,
        "documents": dict(rep.counts), "tokens": rep.tokens,
        "bad_lines_skipped": rep.bad[:1000], "bad_lines_total": len(rep.bad),
        "files": {f.name: {"bytes": f.stat().st_size, "sha256": sha256_file(f)}
                  for f in rep.files},
    }
    path = Path(f"{rep.prefix}.manifest.json")
    write_atomic(path, (json.dumps(manifest, indent=2) + "\n").encode())
    rep.export_id = "exp_" + hashlib.sha256(json.dumps(
        [manifest["files"], manifest["options"]], sort_keys=True).encode()).hexdigest()[:32]
    return path


def record(db: str | Path, rep: ExportReport, manifest: Path, source_paths: list[str]) -> None:
    """The ``exports`` row and lineage edges: each document (or input file) -> the export."""
    from ortrex.store import Store
    from ortrex.store.db import utcnow
    from ortrex.store.ids import content_id
    from ortrex.store.records import lineage_row

    now = utcnow()
    eid = rep.export_id
    data = json.loads(manifest.read_text())
    with Store(db, create=True) as store, store.transaction():
        store.insert("exports", [{
            "id": eid, "kind": rep.kind, "path": str(Path(rep.prefix).resolve()),
            "n_docs": int(rep.counts.get("documents written", 0)),
            "sha256": sha256_file(manifest), "manifest": json.dumps(data),
            "created_at": now, "run_id": None}], on_conflict="replace")
        edges = [lineage_row(d, "document", eid, "export", "exported", operator=rep.kind,
                             created_at=now) for d in dict.fromkeys(rep.document_ids)]
        sources = []
        for p in source_paths:
            path = Path(p).resolve()
            sha = sha256_file(path)
            sid = content_id("src", str(path), sha)
            sources.append({"id": sid, "path": str(path), "sha256": sha, "format": "jsonl",
                            "size_bytes": path.stat().st_size, "first_seen_at": now,
                            "run_id": None})
            edges.append(lineage_row(sid, "source", eid, "export", "exported",
                                     operator=rep.kind, created_at=now))
        if sources:
            store.insert("sources", sources)
        if edges:
            store.insert("lineage", edges)


def finish(rep: ExportReport, tokenizer: Any, options: dict[str, Any],
           inputs: list[Path] | None, db: str | None, record_db: str | None) -> None:
    """Write the manifest and record the export (in ``record_db``, else the store read)."""
    paths = [str(p) for p in inputs or []]
    manifest = write_manifest(rep, tokenizer, options, paths or [f"db:{db}"])
    rep.files.append(manifest)
    target = record_db or db
    if target is not None:
        record(target, rep, manifest, paths)
