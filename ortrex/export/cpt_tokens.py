"""CPT documents as token sequences: the export's options, one chunk tokenized (worker side),
and a key's documents written to an indexed dataset. Shared by the single-process export
(``export.cpt``) and the sharded one (``export.shards``)."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ortrex.export.errors import ExportError
from ortrex.export.sources import Chunk, Record, parse_lines
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
        items = parsed[key] if parsed is not None else [Record(i, v) for i, v in chunk.rows]
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


def write_documents(w: Any, kr: KeyResult) -> int:
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
