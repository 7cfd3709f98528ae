"""CPT export: documents -> ``PREFIX_<key>_document.{bin,idx}``, streamed.

Each document is tokenized as ``tokenizer(text)`` (special tokens as the tokenizer's own
post-processor adds them), optionally followed by EOS (``--append-eod``), and written as one
sequence and one document. With ``--seq-length``: ``--long drop`` skips a document of
``seq_length`` tokens or more but still closes a document, exactly as MindSpeed-LLM's
GeneralPretrainHandler does (an empty document entry); ``--long split`` (the default) cuts it at
paragraph boundaries into documents that fit. Empty texts are filtered out with no entry.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ortrex.export.cpt_tokens import CptOptions, tokenize_chunk, write_documents
from ortrex.export.errors import ExportError

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
                rep.counts["documents written"] += write_documents(w, kr)
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
