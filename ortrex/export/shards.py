"""Sharded CPT export: each executor task tokenizes a run of input chunks and writes its own
indexed dataset (a shard) next to the output; the driver then merges the shards in order with
megatron-core's ``IndexedDatasetBuilder.add_index``. The tokens never travel back to the
driver, and the result is byte for byte the single-process export (the shards are the
export's documents, cut at chunk boundaries, and add_index concatenates data and indexes).

On a Ray cluster the output's folder must be shared by the nodes (an NFS or Lustre path), as
it is on a local Ray.
"""

from __future__ import annotations

import gc
import os
import shutil
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.export.cpt_tokens import CptOptions, tokenize_chunk, write_documents
from ortrex.export.errors import ExportError
from ortrex.export.indexed import commit_all, writers
from ortrex.export.sources import Chunk
from ortrex.jobs import Executor, TaskFailure, in_order

SHARD_CHUNKS = 8  # input chunks (about 1 MB of JSONL or 256 documents each) per shard
_TOKENIZERS: dict[str | None, Any] = {}


@dataclass(frozen=True)
class ShardTask:
    """A run of input chunks and where its shard goes."""

    index: int
    chunks: list[Chunk]
    opts: CptOptions
    tokenizer: str | None
    base: str  # shard prefix: ``{base}_{key}_document``


@dataclass
class ShardResult:
    """A written shard and its counts."""

    index: int
    prefixes: list[str]
    bad: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)
    tokens: int = 0
    encoded: int = 0
    written: int = 0
    document_ids: list[str] = field(default_factory=list)


def _tokenizer(spec: str | None) -> Any:
    from ortrex.export.tokenizers import load_tokenizer

    if spec not in _TOKENIZERS:  # once per worker process
        os.environ.setdefault("RAYON_NUM_THREADS", "1")
        _TOKENIZERS[spec] = load_tokenizer(spec)
    return _TOKENIZERS[spec]


def write_shard(task: ShardTask) -> ShardResult:
    """Tokenize a shard's chunks and write its datasets (worker side)."""
    tok = _tokenizer(task.tokenizer)
    opts = task.opts
    prefixes = [f"{task.base}_{k}_document" for k in opts.keys]
    res = ShardResult(task.index, prefixes)
    with writers(prefixes) as ws:
        for chunk in task.chunks:
            got = tokenize_chunk(tok, (chunk, opts))
            res.bad += got.bad
            if got.bad and not opts.skip_bad:
                break  # the driver stops the export at this shard's first bad line
            res.counts.update(got.counts)
            for key, w in zip(opts.keys, ws, strict=True):
                kr = got.keys[key]
                res.written += write_documents(w, kr)
                res.tokens += int(kr.lengths.sum())
                res.encoded += int(kr.flat.size)
                if not chunk.lines:  # store rows: the ids of the documents written
                    res.document_ids += [s for s, n in zip(kr.sources, kr.lengths, strict=True)
                                         if n > 0]
        commit_all(ws)
    return res


def _groups(chunks: Iterable[Chunk], size: int) -> Iterator[list[Chunk]]:
    group: list[Chunk] = []
    for c in chunks:
        group.append(c)
        if len(group) == size:
            yield group
            group = []
    if group:
        yield group


def _add_index(builder: Any, shard: str) -> None:
    """megatron-core's ``add_index`` with its full ``gc.collect()`` confined to new objects."""
    # add_index calls gc.collect() for every shard: with torch and megatron imported that is a
    # walk over millions of objects, 0.65 s a shard here (32 shards: 21 s of 21 s). Frozen
    # objects are skipped by the collector; the shard's own index arrays are still freed.
    gc.freeze()
    try:
        builder.add_index(shard)
    finally:
        gc.unfreeze()


def export_sharded(out: Path, chunks: Iterable[Chunk], opts: CptOptions,
                   tokenizer: str | None, executor: Executor, rep: Any,
                   progress: Any = None, shard_chunks: int | None = None) -> list[Path]:
    """Write ``out``'s datasets from shards made on ``executor``; returns the files."""
    shard_chunks = shard_chunks or SHARD_CHUNKS
    scratch = out.parent / f".{out.name}.shards-{os.getpid()}"
    scratch.mkdir(parents=True)
    tasks = (ShardTask(i, group, opts, tokenizer, str(scratch / f"shard-{i:06d}"))
             for i, group in enumerate(_groups(chunks, shard_chunks)))
    try:
        with writers([f"{out}_{k}_document" for k in opts.keys]) as ws:
            for task, res in in_order(executor, write_shard, tasks):
                if isinstance(res, TaskFailure):
                    raise ExportError(f"shard {task.index} of the export failed: {res.line()}")
                if res.bad and not opts.skip_bad:
                    raise ExportError(f"{res.bad[0]} (--skip-bad skips and counts bad lines)")
                rep.bad += res.bad
                rep.counts.update(res.counts)
                rep.counts["documents written"] += res.written
                rep.counts["shards"] += 1
                rep.tokens += res.tokens
                rep.encoded += res.encoded
                rep.document_ids += res.document_ids
                for w, shard in zip(ws, res.prefixes, strict=True):
                    _add_index(w.builder, shard)
                    for ext in (".bin", ".idx"):
                        Path(f"{shard}{ext}").unlink()
                if progress:
                    progress(rep)
            if rep.counts["documents written"] == 0:
                raise ExportError("empty corpus: no document to export")
            return commit_all(ws)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
