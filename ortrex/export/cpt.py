"""CPT export: documents -> ``PREFIX_<key>_document.{bin,idx}``, streamed.

Each document is tokenized as ``tokenizer(text)`` (special tokens as the tokenizer's own
post-processor adds them), optionally followed by EOS (``--append-eod``), and written as one
sequence and one document. With ``--seq-length``: ``--long drop`` skips a document of
``seq_length`` tokens or more but still closes a document, exactly as MindSpeed-LLM's
GeneralPretrainHandler does (an empty document entry); ``--long split`` (the default) cuts it at
paragraph boundaries into documents that fit. Empty texts are filtered out with no entry.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ortrex.export.errors import ExportError
from ortrex.export.sources import Chunk, Item, parse_lines
from ortrex.export.tokenizers import Tok

LONG = ("split", "drop")
_PARAGRAPH = re.compile(r"(?<=\n\n)")


@dataclass(frozen=True)
class CptOptions:
    """How documents become sequences."""

    keys: tuple[str, ...] = ("text",)
    seq_length: int | None = None
    long: str = "split"
    append_eod: bool = False
    skip_bad: bool = False

    def __post_init__(self) -> None:
        if self.long not in LONG:
            raise ExportError(f"--long must be one of {', '.join(LONG)}, not {self.long!r}")
        if self.seq_length is not None and self.seq_length < 2:
            raise ExportError(f"--seq-length must be at least 2, got {self.seq_length}")
        if not self.keys:
            raise ExportError("give at least one JSON key")


@dataclass
class KeyResult:
    """One JSON key's part of a chunk: tokens back to back, and per written document its
    length (0 marks an empty document: a dropped sample)."""

    flat: np.ndarray
    lengths: np.ndarray
    sources: list[str] = field(default_factory=list)  # input key of each length entry


@dataclass
class ChunkResult:
    """A tokenized chunk."""

    keys: dict[str, KeyResult]
    bad: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def split_long(tok: Tok, text: str, limit: int, prefix: list[int]) -> list[list[int]]:
    """Token pieces of at most ``limit`` tokens (``prefix`` included), cut at paragraph
    boundaries; a paragraph longer than the limit is cut by tokens."""
    room = limit - len(prefix)
    if room < 1:
        raise ExportError("--seq-length is too small to hold any token")
    paras = [p for p in _PARAGRAPH.split(text) if p]
    pieces: list[list[int]] = []
    cur: list[int] = []
    for ids in tok.encode_batch(paras, special=False):
        if len(cur) + len(ids) <= room:
            cur += ids
            continue
        if cur:
            pieces.append(cur)
        while len(ids) > room:
            pieces.append(ids[:room])
            ids = ids[room:]
        cur = list(ids)
    if cur:
        pieces.append(cur)
    return [prefix + p for p in pieces]


def tokenize_chunk(tok: Tok, job: tuple[Chunk, CptOptions]) -> ChunkResult:
    """Tokenize one chunk (worker side)."""
    chunk, opts = job
    res = ChunkResult({})
    eod = [tok.eos_id] if opts.append_eod and tok.eos_id is not None else []
    prefix = tok.encode_batch([""], special=True)[0]
    parsed = parse_lines(chunk, opts.keys) if chunk.lines else None
    for key in opts.keys:
        items = parsed[key] if parsed is not None else [Item(i, v) for i, v in chunk.rows]
        good: list[tuple[str, str]] = []
        for it in items:
            if it.error is None and not isinstance(it.value, str):
                it.error = f"{it.key}: key {key!r} must be text, got {type(it.value).__name__}"
            if it.error is not None:
                res.bad.append(it.error)
            elif not it.value:
                res.counts["empty (filtered out)"] += 1
            else:
                good.append((it.key, it.value))
        ids = tok.encode_batch([t for _, t in good], special=True)
        lengths, parts, srcs = [], [], []
        for (src, text), doc in zip(good, ids, strict=True):
            doc = doc + eod
            res.counts["documents in"] += 1
            if opts.seq_length is None or len(doc) < opts.seq_length:
                parts.append(doc)
                lengths.append(len(doc))
                srcs.append(src)
            elif opts.long == "drop":
                lengths.append(0)  # MindSpeed still closes a document: an empty entry
                srcs.append(src)
                res.counts["dropped (too long)"] += 1
            else:
                pieces = split_long(tok, text, opts.seq_length - 1 - len(eod), prefix)
                for p in pieces:
                    parts.append(p + eod)
                    lengths.append(len(p) + len(eod))
                    srcs.append(src)
                res.counts["split (too long)"] += 1
                res.counts["pieces from splits"] += len(pieces)
        flat = np.concatenate([np.asarray(p, dtype=np.int32) for p in parts]) if parts \
            else np.zeros(0, np.int32)
        res.keys[key] = KeyResult(flat, np.asarray(lengths, dtype=np.int64), srcs)
    return res


def _write(w: Any, kr: KeyResult) -> int:
    """Write a key's documents in order (runs of real ones at once, empty entries between)."""
    lengths, pos, start, written = kr.lengths, 0, 0, 0
    n = len(lengths)
    while start < n:
        if lengths[start] == 0:
            w.empty_document()
            start += 1
            continue
        end = start
        while end < n and lengths[end] > 0:
            end += 1
        size = int(lengths[start:end].sum())
        w.add_many(kr.flat[pos:pos + size], lengths[start:end])
        pos += size
        written += end - start
        start = end
    return written


# Held-out documents (``ortrex eval heldout``: lineage edges with relation held_out) never
# reach an export.
NOT_HELD_OUT = "id NOT IN (SELECT parent_id FROM lineage WHERE relation = 'held_out')"
# ... and only they, for an export of the held-out split (validation losses while training).
HELD_OUT = "id IN (SELECT parent_id FROM lineage WHERE relation = 'held_out')"
CPT_SQL = ("SELECT id, text FROM documents WHERE status = 'accepted' AND kind = 'cpt' "
           f"AND {NOT_HELD_OUT} AND ({{where}}) ORDER BY created_at, id")


def run_cpt(prefix: str | Path, *, inputs: list[Path] | None = None, db: str | None = None,
            where: str = "true", tokenizer: str | None = None,
            opts: CptOptions | None = None, workers: int = 1,
            progress: Any = None, record_db: str | None = None,
            executor: Any = None, held_out: bool = False) -> Any:
    """Export documents (JSONL ``inputs`` or the store's accepted CPT documents; with
    ``held_out``, only the held-out split's); the export is recorded (exports row, lineage)
    in ``record_db`` (default: the store read from).
    With an ``executor`` (``ortrex.jobs``: local processes or Ray), tokenization is sharded
    over its workers and the shards merged (``ortrex.export.shards``): the same bytes."""
    import time

    from ortrex.export.indexed import commit_all, writers
    from ortrex.export.manifest import ExportReport, check_output
    from ortrex.export.sources import jsonl_chunks, store_chunks
    from ortrex.export.stream import OrderedMap
    from ortrex.export.tokenizers import load_tokenizer

    t0 = time.perf_counter()
    opts = opts or CptOptions()
    out = check_output(prefix)
    tok = load_tokenizer(tokenizer)
    if inputs:
        chunks: Any = jsonl_chunks(inputs)
    elif db is not None:
        sql = CPT_SQL.replace(NOT_HELD_OUT, HELD_OUT) if held_out else CPT_SQL
        chunks = store_chunks(db, sql.format(where=where), [])
    else:
        raise ExportError("give --input FILE or --from-db")
    rep = ExportReport("cpt", str(out))
    if executor is not None:
        from ortrex.export.shards import export_sharded

        rep.files = export_sharded(out, chunks, opts, tokenizer, executor, rep, progress)
        if not (db is not None and not inputs):
            rep.document_ids = []
        return _finish(rep, tok, opts, executor.workers, where, inputs, db, record_db, t0,
                       executor.kind)
    prefixes = [f"{out}_{k}_document" for k in opts.keys]
    jobs = ((c, opts) for c in chunks)
    with OrderedMap(tokenize_chunk, jobs, tokenizer, workers) as results, \
            writers(prefixes) as ws:
        for res in results:
            if res.bad and not opts.skip_bad:
                raise ExportError(f"{res.bad[0]} (--skip-bad skips and counts bad lines)")
            rep.bad += res.bad
            rep.counts.update(res.counts)
            for key, w in zip(opts.keys, ws, strict=True):
                kr = res.keys[key]
                rep.counts["documents written"] += _write(w, kr)
                rep.tokens += int(kr.lengths.sum())
                rep.encoded += int(kr.flat.size)
                if db is not None and not inputs:
                    rep.document_ids += [s for s, n in zip(kr.sources, kr.lengths, strict=True)
                                         if n > 0]
            if progress:
                progress(rep)
        if rep.counts["documents written"] == 0:
            raise ExportError("empty corpus: no document to export")
        rep.files = commit_all(ws)
    return _finish(rep, tok, opts, workers, where, inputs, db, record_db, t0, "local")


def _finish(rep: Any, tok: Any, opts: CptOptions, workers: int, where: str,
            inputs: list[Path] | None, db: str | None, record_db: str | None, t0: float,
            executor: str) -> Any:
    """The manifest, the exports row and lineage, the timing."""
    import time

    from ortrex.export.manifest import finish

    rep.counts["bad lines skipped"] = len(rep.bad)
    options = {"keys": list(opts.keys), "seq_length": opts.seq_length, "long": opts.long,
               "append_eod": opts.append_eod, "workers": workers, "where": where if db else None}
    if executor != "local":
        options["executor"] = executor
    finish(rep, tok, options, inputs, db, record_db)
    rep.seconds = time.perf_counter() - t0
    return rep
