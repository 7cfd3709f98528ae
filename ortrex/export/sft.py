"""SFT export: conversations -> ``PREFIX_packed_{input_ids,attention_mask,labels}_document``.

As MindSpeed-LLM's instruction handler with the OpenAI-messages key mapping: the template
renders and tokenizes every turn, labels are -100 over prompts. ``--pack`` fills rows of
``seq_length`` with a greedy knapsack (capacity ``seq_length - 1``, largest fitting length first,
the latest sample first among equal lengths) and pads with the pad id / -100 / 1 (0 and 1-based
segment ids with ``--neat-pack``).

An example is too long when MindSpeed-LLM would cut or skip it: its template truncation would
cut it, or it has ``seq_length`` tokens or more (``--append-eod`` included). ``--long`` says what
becomes of it: ``drop`` (the CLI's default) leaves it out, with no entry; ``split`` cuts a
multi-turn conversation at turn boundaries into conversations (the system text first in each)
that fit, a turn too long even alone being dropped; ``keep`` does as MindSpeed-LLM does: each
conversation truncated turn by turn to ``seq_length - 1``, a sample of ``seq_length`` tokens or
more skipped with an empty document entry (cut to ``seq_length - 1`` with ``--neat-pack``).
An example that fits is written the same in every mode, byte for byte as MindSpeed writes it.
"""

from __future__ import annotations

import bisect
import json
import os
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ortrex.export.cpt import HELD_OUT, NOT_HELD_OUT
from ortrex.export.errors import ExportError
from ortrex.export.sources import Chunk, Record, parse_lines
from ortrex.export.templates import (
    IGNORE,
    PROMPT_TYPES,
    Example,
    Rendering,
    Turn,
    assemble,
    conversation,
    render,
)
from ortrex.export.tokenizers import Tok

FIELDS = ("input_ids", "attention_mask", "labels")
LONG = ("drop", "split", "keep")


@dataclass(frozen=True)
class SftOptions:
    """How conversations become samples."""

    prompt_type: str = "deepseek4"
    thinking: bool = False
    pack: bool = False
    neat_pack: bool = False
    seq_length: int = 8192
    append_eod: bool = False
    key: str = "messages"
    skip_bad: bool = False
    long: str = "keep"  # the API's default is MindSpeed's; ``ortrex export sft``'s is drop

    def __post_init__(self) -> None:
        if self.long not in LONG:
            raise ExportError(f"--long must be one of {', '.join(LONG)}, not {self.long!r}")
        if self.prompt_type not in PROMPT_TYPES:
            raise ExportError(f"unknown prompt type {self.prompt_type!r}; expected one of "
                              f"{', '.join(PROMPT_TYPES)}")
        if self.neat_pack and not self.pack:
            raise ExportError("--neat-pack needs --pack")
        if self.seq_length < 2:
            raise ExportError(f"--seq-length must be at least 2, got {self.seq_length}")


@dataclass
class Samples:
    """A chunk's encoded samples (or bad records)."""

    ids: list[np.ndarray] = field(default_factory=list)
    labels: list[np.ndarray] = field(default_factory=list)
    sources: list[str] = field(default_factory=list)
    bad: list[str] = field(default_factory=list)
    counts: Counter[str] = field(default_factory=Counter)


def encode_chunk(tok: Tok, job: tuple[Chunk, SftOptions]) -> Samples:
    """Encode one chunk of conversations (worker side): every text of the chunk in one batch,
    so the tokenizer's per-call cost is paid once per chunk, not per turn."""
    chunk, opts = job
    out = Samples()
    items = parse_lines(chunk, (opts.key,))[opts.key] if chunk.lines else \
        [Record(i, v) for i, v in chunk.rows]
    good: list[tuple[str, Rendering, str | None, list[Turn]]] = []
    for it in items:
        if it.error is None and isinstance(it.value, str):  # a JSON column of the store
            try:
                it.value = json.loads(it.value)
            except ValueError:
                it.error = f"{it.key}: {opts.key!r} is not valid JSON"
        if it.error is None and not (isinstance(it.value, list) and all(
                isinstance(m, dict) for m in it.value)):
            it.error = f"{it.key}: {opts.key!r} must be a list of messages"
        if it.error is None:
            try:
                system, turns = conversation(it.value)
                good.append((it.key, render(tok, opts.prompt_type, system, turns,
                                            opts.thinking), system, turns))
            except ExportError as exc:
                it.error = f"{it.key}: {exc}"
        if it.error is not None:
            out.bad.append(it.error)
    ids_all = tok.encode_batch([t for _, r, _, _ in good for t in r.texts], special=False)
    pos = 0
    eod = [tok.eos_id] if opts.append_eod and tok.eos_id is not None else []
    out.counts.update({"too long": 0, "truncated": 0})  # shown (as 0) in every export

    def emit(ex: Example, key: str) -> None:
        out.ids.append(np.asarray(ex.input_ids + eod, dtype=np.int32))
        out.labels.append(np.asarray(ex.labels + eod, dtype=np.int32))
        out.sources.append(key)

    for key, r, system, turns in good:
        ids = ids_all[pos:pos + len(r.texts)]
        ex = assemble(r.pairs(tok, ids), opts.prompt_type, opts.seq_length)
        out.counts["samples in"] += 1
        pos += len(r.texts)
        if fits(ex, len(eod), opts.seq_length):
            emit(ex, key)
            continue
        out.counts["too long"] += 1
        if opts.long == "keep":  # MindSpeed's truncation; run_sft applies its skip rule
            out.counts["truncated"] += ex.truncated
            emit(ex, key)
        elif opts.long == "drop":
            out.counts["dropped (too long)"] += 1
        else:
            pieces, lost = split_turns(tok, system, turns, opts, len(eod),
                                       dict(zip(r.texts, ids, strict=True)))
            if pieces:
                out.counts["split (too long)"] += 1
                out.counts["pieces from splits"] += len(pieces)
                out.counts["turns dropped from splits"] += lost
            else:
                out.counts["dropped (too long)"] += 1
            for p in pieces:
                emit(p, key)
    return out


def fits(ex: Example, n_eod: int, seq_length: int) -> bool:
    """Whether MindSpeed would write the example whole: not truncated, under seq_length."""
    return not ex.truncated and len(ex.input_ids) + n_eod < seq_length


def split_turns(tok: Tok, system: str | None, turns: list[Turn], opts: SftOptions,
                n_eod: int, cache: dict[str, list[int]]) -> tuple[list[Example], int]:
    """Longest fitting runs of turns, each its own conversation; and the turns too long alone."""
    def example(i: int, j: int) -> Example:
        r = render(tok, opts.prompt_type, system, turns[i:j], opts.thinking)
        new = [t for t in dict.fromkeys(r.texts) if t not in cache]
        if new:
            cache.update(zip(new, tok.encode_batch(new, special=False), strict=True))
        return assemble(r.pairs(tok, [cache[t] for t in r.texts]), opts.prompt_type,
                        opts.seq_length)

    pieces: list[Example] = []
    lost = i = 0
    while i < len(turns):
        best, j = None, i
        while j < len(turns):
            ex = example(i, j + 1)
            if not fits(ex, n_eod, opts.seq_length):
                break
            best, j = ex, j + 1
        if best is None:
            lost += 1
            i += 1
        else:
            pieces.append(best)
            i = j
    return pieces, lost


def long_warning(rep: Any, opts: SftOptions) -> str | None:
    """One line on the examples that were too long and what became of them (None if none)."""
    c = rep.counts
    n = c["too long"]
    if not n:
        return None
    head = (f"{n:,} of {c['samples in']:,} examples were longer than --seq-length "
            f"{opts.seq_length} allows ({opts.seq_length - 1:,} tokens)")
    if opts.long == "drop":
        return f"{head}: dropped (use --long split|keep)"
    if opts.long == "split":
        parts = []
        if c["split (too long)"]:
            parts.append(f"{c['split (too long)']:,} split at turn boundaries into "
                         f"{c['pieces from splits']:,} examples")
            if c["turns dropped from splits"]:
                k = c["turns dropped from splits"]
                parts.append(f"{k:,} turn{'s' if k != 1 else ''} too long even alone dropped "
                             "from them")
        if c["dropped (too long)"]:
            parts.append(f"{c['dropped (too long)']:,} dropped (no turn fits even alone)")
        return f"{head}: {', '.join(parts)} (use --long drop|keep)"
    n_max = f"{opts.seq_length:,} tokens or more"
    parts = [f"{c['truncated']:,} truncated as MindSpeed-LLM does"] if c["truncated"] else []
    if c["dropped (too long)"]:
        parts.append(f"{c['dropped (too long)']:,} still of {n_max}, skipped")
    if c["cut to fit a pack"]:
        parts.append(f"{c['cut to fit a pack']:,} still of {n_max}, cut to "
                     f"{opts.seq_length - 1:,} for the pack")
    return f"{head}: {'; '.join(parts)} (use --long drop|split)"


def greedy_knapsack(lengths: list[int], capacity: int) -> list[list[int]]:
    """Bins of lengths: each filled with the largest remaining length that fits."""
    numbers = sorted(lengths)
    bins = []
    while numbers:
        current, room = [], capacity
        while True:
            k = bisect.bisect(numbers, room)
            if k == 0:
                break
            room -= numbers[k - 1]
            current.append(numbers.pop(k - 1))
        if not current:  # a length beyond the capacity can never be placed
            raise ExportError(f"a sample of {numbers[0]} tokens does not fit a pack of "
                              f"{capacity}")
        bins.append(current)
    return bins


def pack_rows(lengths: list[int], capacity: int) -> list[list[int]]:
    """Sample indices per packed row (the latest sample first among equal lengths)."""
    by_length: dict[int, list[int]] = defaultdict(list)
    for k, n in enumerate(lengths):
        by_length[n].append(k)
    return [[by_length[n].pop() for n in b] for b in greedy_knapsack(lengths, capacity)]


def run_sft(prefix: str | Path, *, inputs: list[Path] | None = None, db: str | None = None,
            where: str = "true", tokenizer: str | None = None,
            opts: SftOptions | None = None, workers: int = 1, progress: Any = None,
            record_db: str | None = None, executor: Any = None, held_out: bool = False) -> Any:
    """Export conversations (JSONL ``inputs`` with a ``messages`` key, or the store's accepted
    SFT examples; with ``held_out``, only the held-out split's) as three aligned datasets;
    with an ``executor`` (``ortrex.jobs``: local processes or Ray) the conversations are
    encoded on its workers (packing, which needs every sample, stays here)."""
    from ortrex.export.indexed import commit_all, writers
    from ortrex.export.manifest import ExportReport, check_output, finish
    from ortrex.export.sources import jsonl_chunks, store_chunks
    from ortrex.export.stream import OrderedMap
    from ortrex.export.tokenizers import load_tokenizer

    t0 = time.perf_counter()
    opts = opts or SftOptions()
    out = check_output(prefix)
    tok = load_tokenizer(tokenizer)
    if opts.pack and tok.pad_id is None:
        raise ExportError("--pack needs a tokenizer with a pad token")
    if inputs:
        chunks: Any = jsonl_chunks(inputs)
    elif db is not None:
        chunks = store_chunks(db, "SELECT id, messages FROM documents WHERE status = "
                                  "'accepted' AND kind = 'sft' AND "
                                  f"{HELD_OUT if held_out else NOT_HELD_OUT} "
                                  f"AND ({where}) "
                                  "ORDER BY created_at, id", [])
    else:
        raise ExportError("give --input FILE or --from-db")
    rep = ExportReport("sft", str(out))
    finals = [f"{out}_packed_{f}_document" for f in FIELDS]
    stage = [f"{out}.stage-{f}" for f in ("ids", "labels")] if opts.pack else []
    jobs = ((c, opts) for c in chunks)
    with OrderedMap(encode_chunk, jobs, tokenizer, workers, executor) as results, \
            writers(finals + stage) as ws:
        w_ids, w_mask, w_lab = ws[:3]
        staged: list[int] = []  # lengths of the samples waiting to be packed
        for res in results:
            if res.bad and not opts.skip_bad:
                raise ExportError(f"{res.bad[0]} (--skip-bad skips and counts bad records)")
            rep.bad += res.bad
            rep.counts.update(res.counts)
            for ids, labels, src in zip(res.ids, res.labels, res.sources, strict=True):
                n = len(ids)
                rep.encoded += n
                if opts.pack:
                    if n >= opts.seq_length:
                        if not opts.neat_pack:
                            rep.counts["dropped (too long)"] += 1
                            continue
                        ids, labels = ids[:opts.seq_length - 1], labels[:opts.seq_length - 1]
                        rep.counts["cut to fit a pack"] += 1
                    ws[3].add(ids)
                    ws[4].add(labels)
                    staged.append(len(ids))
                elif n >= opts.seq_length:  # skipped, but MindSpeed closes a document
                    for w in (w_ids, w_mask, w_lab):
                        w.empty_document()
                    rep.counts["dropped (too long)"] += 1
                    continue
                else:
                    w_ids.add(ids)
                    w_mask.add(np.ones(n, dtype=np.int32))
                    w_lab.add(labels)
                    rep.counts["samples written"] += 1
                    rep.tokens += n
                if db is not None and not inputs:
                    rep.document_ids.append(src)
            if progress:
                progress(rep)
        if opts.pack:
            _pack(ws, staged, opts, tok.pad_id, rep)  # type: ignore[arg-type]
        if rep.counts["samples written"] + rep.counts["rows written"] == 0:
            raise ExportError("empty corpus: no sample to export")
        files = commit_all(ws[:3])
        for w in ws[3:]:
            w.abort()
    rep.files = files
    rep.counts["documents written"] = rep.counts["rows written"] or rep.counts["samples written"]
    rep.counts["bad records skipped"] = len(rep.bad)
    options = {"prompt_type": opts.prompt_type, "enable_thinking": opts.thinking,
               "pack": opts.pack, "neat_pack": opts.neat_pack, "seq_length": opts.seq_length,
               "append_eod": opts.append_eod, "long": opts.long, "workers": workers,
               "where": where if db else None}
    finish(rep, tok, options, inputs, db, record_db)
    rep.seconds = time.perf_counter() - t0
    return rep


def _pack(ws: list[Any], lengths: list[int], opts: SftOptions, pad: int,
          rep: Any) -> None:
    """Read the staged samples back and write packed rows of exactly ``seq_length``."""
    for w in ws[3:]:
        w.builder.finalize(f"{w.tmp}.idx")
        w.closed = True
    # Read the staged samples with positioned reads, not a memory map: mapped pages would
    # count towards the resident set and grow with the corpus.
    offsets = np.concatenate([[0], np.cumsum(np.asarray(lengths, dtype=np.int64))]) * 4
    with open(f"{ws[3].tmp}.bin", "rb") as f_ids, open(f"{ws[4].tmp}.bin", "rb") as f_lab:
        def staged(f: Any, k: int) -> np.ndarray:
            return np.frombuffer(os.pread(f.fileno(), lengths[k] * 4, int(offsets[k])),
                                 np.int32)

        w_ids, w_mask, w_lab = ws[:3]
        n = opts.seq_length
        for row in pack_rows(lengths, n - 1):
            ids = np.concatenate([staged(f_ids, k) for k in row])
            labels = np.concatenate([staged(f_lab, k) for k in row])
            if opts.neat_pack:
                mask = np.concatenate([np.full(lengths[k], s + 1, np.int32)
                                       for s, k in enumerate(row)])
            else:
                mask = np.ones(ids.size, np.int32)
            pad_n = n - ids.size
            rep.counts["tokens before padding"] += int(ids.size)
            w_ids.add(np.concatenate([ids, np.full(pad_n, pad, np.int32)]))
            w_lab.add(np.concatenate([labels, np.full(pad_n, IGNORE, np.int32)]))
            w_mask.add(np.concatenate([mask, np.full(pad_n, 0 if opts.neat_pack else 1,
                                                     np.int32)]))
            rep.counts["rows written"] += 1
            rep.counts["samples packed"] += len(row)
            rep.tokens += n
