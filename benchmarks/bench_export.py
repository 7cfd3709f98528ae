"""Export benchmark: CPT and SFT exports against the raw tokenizer bound, with peak memory.

1. Builds a CPT corpus (``--cpt-mb`` MB of JSONL, default 100) and an SFT set (``--sft``
   examples, default 50,000) from rendered OR documents: every line a different instance
   (25 families, three size bands, three forms, all layouts and answer styles).
2. The raw bound: batch-encoding the same texts (CPT: the documents; SFT: the chat-template
   renderings of every turn) with the default tokenizer on all cores, writing nothing, texts
   already in memory.
3. ``ortrex export cpt`` and ``ortrex export sft --pack`` as a user runs them (a subprocess, 2
   workers): whole-job tokens/s, the ratio to the bound, the ratio to the reference rates of
   Megatron-LM's preprocess_data.py (0.43 M tok/s) and MindSpeed-LLM's (0.37 M tok/s) on this
   kind of machine, and the peak RSS of the whole process tree (sampled every 20 ms).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import psutil
from rich.console import Console
from rich.table import Table

from ortrex.engine.families import REGISTRY
from ortrex.render.documents import CPT_LAYOUTS, STYLES, Solution, cpt_document, sft_example
from ortrex.render.program import gurobipy_program, highspy_program
from ortrex.render.statement import FORMS, render_statement

console = Console(width=150)
MEGATRON, MINDSPEED = 0.43e6, 0.37e6  # reference §7, tok/s with 2 workers
_BASE_TOK: Any = None


def _rendered(k: int) -> tuple[str, list[dict[str, str]]]:
    """The CPT text and SFT messages of instance ``k`` (objective from a fixed draw: the
    benchmark measures tokenization, not solving)."""
    names = sorted(REGISTRY)
    rng = np.random.default_rng(k)
    sm = REGISTRY[names[k % len(names)]].sample(rng, ("small", "small", "medium")[k % 3])
    form = FORMS[k % len(FORMS)]
    st = render_statement(sm, form, seed=k)
    mode = "json" if form == "DPS" else "literal"
    solver, prog = (("gurobipy", gurobipy_program(sm, mode)) if k % 2 else
                    ("highspy", highspy_program(sm, mode)))
    sol = Solution(float(np.round(rng.uniform(10, 1e5), 2)))
    doc = cpt_document(sm, st, prog.code, solver, CPT_LAYOUTS[k % len(CPT_LAYOUTS)], sol)
    ex = sft_example(sm, st, prog.code, solver, STYLES[k % len(STYLES)], sol)
    return doc.text, ex.messages or []


def build_corpus(d: Path, cpt_mb: float, sft: int) -> tuple[Path, Path]:
    """Write ``cpt.jsonl`` (about ``cpt_mb`` MB) and ``sft.jsonl`` (``sft`` examples)."""
    cpt, sftp = d / "cpt.jsonl", d / "sft.jsonl"
    stamp = d / "corpus.json"
    want = {"cpt_mb": cpt_mb, "sft": sft, "version": 1}
    if stamp.is_file() and json.loads(stamp.read_text()) == want:
        return cpt, sftp  # built by an earlier run with --dir
    limit = int(cpt_mb * 1e6)
    size, k, n_sft = 0, 0, 0
    with open(cpt, "w", encoding="utf-8") as fc, open(sftp, "w", encoding="utf-8") as fs:
        while size < limit or n_sft < sft:
            text, messages = _rendered(k)
            k += 1
            if size < limit:
                line = json.dumps({"text": text}, ensure_ascii=False) + "\n"
                fc.write(line)
                size += len(line.encode())
            if n_sft < sft:
                fs.write(json.dumps({"messages": messages}, ensure_ascii=False) + "\n")
                n_sft += 1
    stamp.write_text(json.dumps(want))
    return cpt, sftp


def _texts(path: Path, key: str, batch: int = 2000) -> list[list[str]]:
    out, cur = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cur.append(json.loads(line)[key])
            if len(cur) == batch:
                out.append(cur)
                cur = []
    return out + ([cur] if cur else [])


def raw_bound(batches: list[list[str]], special: bool) -> tuple[int, float]:
    """Tokens and seconds of encode_batch over all texts on all cores."""
    from ortrex.export.tokenizers import load_tokenizer

    tok = load_tokenizer(None).tokenizer
    tokens, secs = 0, 0.0
    for b in batches:
        t0 = time.perf_counter()
        enc = tok.encode_batch_fast(b, add_special_tokens=special)
        secs += time.perf_counter() - t0
        tokens += sum(len(e.ids) for e in enc)
    return tokens, secs


def sft_texts(path: Path, thinking: bool = False) -> list[list[str]]:
    """The template renderings of every turn of every example (what the SFT export encodes)."""
    from ortrex.export.templates import conversation, render
    from ortrex.export.tokenizers import load_tokenizer

    tok = load_tokenizer(None)
    out = []
    for b in _texts(path, "messages"):
        cur: list[str] = []
        for messages in b:
            cur += render(tok, "deepseek4", *conversation(messages), thinking).texts
        out.append(cur)
    return out


def run_tree(cmd: list[str]) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``cmd``; wall seconds and the peak RSS (GiB) summed over its process tree."""
    peak = [0]
    t0 = time.perf_counter()
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    done = threading.Event()

    def sample() -> None:
        root = psutil.Process(p.pid)
        while not done.is_set():
            try:
                procs = [root, *root.children(recursive=True)]
                rss = 0
                for q in procs:
                    with contextlib.suppress(psutil.Error):
                        rss += q.memory_info().rss
                peak[0] = max(peak[0], rss)
            except psutil.Error:
                pass
            time.sleep(0.02)

    th = threading.Thread(target=sample, daemon=True)
    th.start()
    out, err = p.communicate()
    secs = time.perf_counter() - t0
    done.set()
    th.join()
    return secs, peak[0] / 2**30, subprocess.CompletedProcess(cmd, p.returncode, out, err)


def export(kind: str, src: Path, d: Path, workers: int, extra: list[str]) -> dict[str, float]:
    prefix = d / f"out_{kind}"
    cmd = [sys.executable, "-m", "ortrex", "export", kind, "--input", str(src),
           "--output-prefix", str(prefix), "--workers", str(workers),
           "--db", str(d / "bench.duckdb"), *extra]
    secs, peak, r = run_tree(cmd)
    if r.returncode != 0:
        raise SystemExit(f"export {kind} failed: {r.stderr.strip()[-2000:]}")
    manifest = json.loads(Path(f"{prefix}.manifest.json").read_text())
    # Packed rows are padded; the rate counts the samples' own tokens.
    tokens = manifest["documents"].get("tokens before padding") or manifest["tokens"]
    return {"tokens": tokens, "seconds": secs,
            "peak_gib": peak, "prefix": str(prefix)}


def _baseline_init() -> None:
    global _BASE_TOK
    from ortrex.export.tokenizers import load_tokenizer

    _BASE_TOK = load_tokenizer(None).tokenizer


def _baseline_encode(line: str) -> tuple[list[int], int]:
    text = json.loads(line)["text"]
    return _BASE_TOK.encode(text).ids, len(line)


def baseline(src: Path, prefix: Path, workers: int) -> None:
    """The shape of Megatron-LM's ``tools/preprocess_data.py`` on the same corpus: a Pool
    ``imap`` over lines (chunksize 32), one ``encode`` per document (the ``tokenizers`` call,
    cheaper than the transformers wrapper Megatron goes through), one ``add_item`` and
    ``end_document`` per document."""
    import multiprocessing

    import torch

    from ortrex.export.indexed import megatron

    builder = megatron().IndexedDatasetBuilder(f"{prefix}.bin", dtype=np.int32)
    tokens = 0
    with open(src, encoding="utf-8") as fin, \
            multiprocessing.Pool(workers, initializer=_baseline_init) as pool:
        for ids, _ in pool.imap(_baseline_encode, fin, 32):
            builder.add_item(torch.IntTensor(ids))
            builder.end_document()
            tokens += len(ids)
    builder.finalize(f"{prefix}.idx")
    print(tokens)


def megatron_style(src: Path, d: Path, workers: int) -> dict[str, float]:
    secs, peak, r = run_tree([sys.executable, __file__, "--baseline", str(src),
                              str(d / "megatron_style"), "--workers", str(workers)])
    if r.returncode != 0:
        raise SystemExit(f"baseline failed: {r.stderr.strip()[-2000:]}")
    return {"tokens": int(r.stdout.split()[-1]), "seconds": secs, "peak_gib": peak}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cpt-mb", type=float, default=100.0)
    ap.add_argument("--sft", type=int, default=50_000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--dir", type=Path, default=None, help="keep the corpus and outputs here")
    ap.add_argument("--baseline", nargs=2, type=Path, metavar=("JSONL", "PREFIX"),
                    help=argparse.SUPPRESS)  # internal: the Megatron-style run
    args = ap.parse_args()
    if args.baseline:
        baseline(*args.baseline, args.workers)
        return
    os.environ.setdefault("RAYON_NUM_THREADS", str(os.cpu_count() or 1))
    d = args.dir or Path(tempfile.mkdtemp(prefix="ortrex-bench-export-"))
    d.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    cpt, sft = build_corpus(d, args.cpt_mb, args.sft)
    console.print(f"corpus: {cpt.stat().st_size / 1e6:.1f} MB CPT JSONL, "
                  f"{sft.stat().st_size / 1e6:.1f} MB SFT JSONL ({args.sft:,} examples), "
                  f"built in {time.perf_counter() - t0:.1f} s")

    cpt_bound = raw_bound(_texts(cpt, "text"), special=True)
    base = megatron_style(cpt, d, args.workers)
    res_cpt = export("cpt", cpt, d, args.workers, [])
    same = Path(f"{res_cpt['prefix']}_text_document.bin").read_bytes() == \
        (d / "megatron_style.bin").read_bytes()
    sft_bound = raw_bound(sft_texts(sft), special=False)
    res_sft = export("sft", sft, d, args.workers, ["--pack", "--seq-length", "8192"])

    t = Table(title=f"Export with the default tokenizer, {args.workers} workers "
                    f"({os.cpu_count()} cores)")
    for c in ("run", "tokens", "M tok/s", "raw bound M tok/s", "vs bound",
              "vs Megatron-style", "vs Megatron ref", "vs MindSpeed ref", "peak RSS GiB"):
        t.add_column(c, justify="right")
    base_rate = base["tokens"] / base["seconds"]
    for name, (btok, bsec), r in (("Megatron-style, CPT", cpt_bound, base),
                                  ("ortrex export cpt", cpt_bound, res_cpt),
                                  ("ortrex export sft --pack", sft_bound, res_sft)):
        rate = r["tokens"] / r["seconds"]
        bound = btok / bsec
        t.add_row(name, f"{r['tokens']:,}", f"{rate / 1e6:.2f}", f"{bound / 1e6:.2f}",
                  f"{rate / bound:.0%}", f"{rate / base_rate:.2f}x" if "cpt" in name else "",
                  f"{rate / MEGATRON:.2f}x", f"{rate / MINDSPEED:.2f}x", f"{r['peak_gib']:.2f}")
    console.print(t)
    console.print(f"CPT .bin identical to the Megatron-style per-document encoding: {same}")
    console.print("rates are whole-job (process start, imports, manifest and lineage included); "
                  f"outputs under {d}")


if __name__ == "__main__":
    main()
