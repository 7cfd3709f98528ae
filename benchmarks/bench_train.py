"""Trainer benchmark: tokens/s, peak memory and MFU of a small DeepSeek-V4 with
``--kernels ortrex``, ``liger`` and ``eager``, and data-loader throughput against them.

1. A CPT export (``--tokens``, default 2 M, token ids drawn from a Zipf law over the
   DeepSeek-V4 vocabulary, written through ortrex's indexed-dataset writer with a manifest)
   and an SFT export (packed rows of ``--seq-length`` with -100 labels over prompts).
2. ``ortrex train`` on each, once per kernel choice, each in its own process (the patches are
   class-level; peak memory is the process's): steady-state tokens/s (the first step, which
   warms up, left out), MFU (model FLOPs against the device peak: datasheet bf16 on a GPU,
   threads x clock x 32 fp32 FLOP/cycle on CPU) and peak memory. A kernel choice that cannot
   run here (Liger's Triton kernels without CUDA) says why. On CPU, ortrex's kernels run their eager
   references (its fused backends are Triton and torch_npu).
3. The data loader alone (megatron-core's GPTDataset windows and packed SFT rows, collated
   as the loop does, one prefetching worker as the default): tokens/s, and its ratio to the
   fastest model tokens/s; the goal is at least 10x (the loader must never be the
   bottleneck).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.table import Table

console = Console(width=140)
VOCAB = 129280


def _write(prefix: Path, kind: str, tokens: int, seq: int, seed: int = 0) -> Path:
    """A CPT (``kind='cpt'``) or packed SFT export of Zipf-distributed ids, with a manifest."""
    from ortrex.export.indexed import commit_all, writers

    rng = np.random.default_rng(seed)
    tok = {"name": "deepseek-v4", "vocab_size": VOCAB, "eos_id": 1, "pad_id": 1}
    if kind == "cpt":
        names = [f"{prefix}_text_document"]
        with writers(names) as ws:
            left = tokens
            while left > 0:
                n = int(min(left, rng.integers(200, 3000)))
                ws[0].add(np.minimum(rng.zipf(1.2, n), VOCAB - 1).astype(np.int32))
                left -= n
            files = commit_all(ws)
    else:
        names = [f"{prefix}_packed_{f}_document" for f in ("input_ids", "attention_mask",
                                                          "labels")]
        with writers(names) as ws:
            for _ in range(max(tokens // seq, 1)):
                ids = np.minimum(rng.zipf(1.2, seq), VOCAB - 1).astype(np.int32)
                labels = ids.copy()
                labels[: seq // 2] = -100  # the prompt half
                ws[0].add(ids)
                ws[1].add(np.ones(seq, np.int32))
                ws[2].add(labels)
            files = commit_all(ws)
    manifest = {"kind": kind, "tokenizer": tok, "options": {"seq_length": seq},
                "files": {f.name: {} for f in files}, "tokens": tokens}
    Path(f"{prefix}.manifest.json").write_text(json.dumps(manifest))
    return Path(names[0]) if kind == "cpt" else prefix


def _one(kernels: str, data: str, stage: str, args: argparse.Namespace, out: Path
         ) -> dict[str, Any]:
    """One training run in this process (the child side)."""
    from ortrex.trainers.config import TrainConfig
    from ortrex.trainers.dist import setup
    from ortrex.trainers.errors import TrainError
    from ortrex.trainers.loop import train
    from ortrex.trainers.observe import read_log

    cfg = TrainConfig(stage=stage, data=data, model=args.model, kernels=kernels,
                      output=str(out), seq_length=args.seq_length,
                      micro_batch_size=args.micro_batch_size,
                      global_batch_size=args.micro_batch_size, train_iters=args.steps,
                      lr=1e-4, data_workers=1, save_interval=10 ** 9)
    try:
        res = train(cfg, setup(), None, show_progress=False)
    except TrainError as exc:
        return {"kernels": kernels, "error": str(exc)}
    rows = [r for r in read_log(out / "log.jsonl") if "tokens_per_s" in r][1:]
    secs = sum(r["seconds"] for r in rows)
    tps = len(rows) * cfg.global_batch_size * cfg.seq_length / secs
    # MFU is proportional to tokens/s: keep the factor, so the parent can apply it to the
    # median over rounds.
    per_token = rows[0]["mfu"] / rows[0]["tokens_per_s"] if rows[0].get("mfu") else None
    return {"kernels": res.kernels, "tokens_per_s": tps, "mfu_per_token_s": per_token,
            "peak_memory": res.peak_memory, "loss": res.losses[-1],
            "parameters": res.model.get("parameters")}


def _loader(data: str, stage: str, args: argparse.Namespace, cache: Path) -> float:
    """Tokens/s of the data loader alone, as the training loop reads it."""
    from ortrex.trainers import datasets as D
    from ortrex.trainers import sources

    paths, _ = sources.parse_data_path(data)
    srcs = sources.for_stage(stage, paths)
    n = args.loader_batches * args.micro_batch_size
    if stage == "cpt":
        samples: Any = D.CptSamples(srcs, None, args.seq_length, n, 1234, cache, 1, VOCAB)
    else:
        samples = D.SftSamples(srcs, None, n, 1234)
    batches = D.StepBatches(samples, args.micro_batch_size, 1, 0, 1, args.seq_length, 1)
    it = D.loader(batches, 0, 1)
    next(it)  # the worker's start
    t0 = time.perf_counter()
    got = 1
    for _ in it:
        got += 1
    return (got - 1) * args.micro_batch_size * args.seq_length / (time.perf_counter() - t0)


def main() -> None:
    """Run the benchmark and print its tables."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="v4-small", help="model preset or config.json")
    ap.add_argument("--tokens", type=int, default=2_000_000)
    ap.add_argument("--seq-length", type=int, default=512)
    ap.add_argument("--micro-batch-size", type=int, default=2)
    ap.add_argument("--steps", type=int, default=8)
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--loader-batches", type=int, default=2000)
    ap.add_argument("--kernels", default="ortrex,liger,eager")
    ap.add_argument("--child", nargs=3, metavar=("KERNELS", "DATA", "STAGE"),
                    help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        kernels, data, stage = args.child
        with tempfile.TemporaryDirectory() as tmp:
            print(json.dumps(_one(kernels, data, stage, args, Path(tmp) / "run")))
        return

    import torch

    dev = "cuda " + torch.cuda.get_device_name() if torch.cuda.is_available() else "CPU"
    console.print(f"device: {dev}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}; model "
                  f"{args.model}, {args.micro_batch_size} x {args.seq_length} tokens per step")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        cpt = str(_write(root / "cpt", "cpt", args.tokens, args.seq_length))
        sft = str(_write(root / "sft", "sft", args.tokens // 4, args.seq_length))
        # Rounds interleave the kernel choices, so a change in the machine's load hits all.
        runs: dict[str, list[dict[str, Any]]] = {k: [] for k in args.kernels.split(",")}
        for _ in range(args.rounds):
            for kernels, got in runs.items():
                if got and "error" in got[0]:
                    continue
                r = subprocess.run([sys.executable, __file__, "--model", args.model,
                                    "--seq-length", str(args.seq_length),
                                    "--micro-batch-size", str(args.micro_batch_size),
                                    "--steps", str(args.steps), "--child", kernels, cpt, "cpt"],
                                   capture_output=True, text=True)
                line = (r.stdout.strip().splitlines() or ["{}"])[-1]
                try:
                    got.append(json.loads(line))
                except ValueError:
                    got.append({"error": (r.stderr.strip().splitlines() or ["no output"])[-1]})
        t = Table(title=f"training step (CPT windows, steady state; median of {args.rounds} "
                        "interleaved rounds)")
        for col in ("--kernels", "ran as", "tokens/s (rounds)", "MFU", "peak memory",
                    "vs eager"):
            t.add_column(col, justify="left" if col in ("--kernels", "ran as") else "right")
        med = {k: float(np.median([g["tokens_per_s"] for g in v])) for k, v in runs.items()
               if v and "error" not in v[0]}
        for kernels, got in runs.items():
            if not got or "error" in got[0]:
                t.add_row(kernels, "cannot run here", "", "", "",
                          (got[0]["error"] if got else "")[:60])
                continue
            tps, first = med[kernels], got[0]
            mfu = first["mfu_per_token_s"] * tps if first["mfu_per_token_s"] else None
            t.add_row(kernels, first["kernels"], f"{tps:,.0f} (" + ", ".join(
                f"{g['tokens_per_s']:,.0f}" for g in got) + ")",
                "" if mfu is None else f"{100 * mfu:.2f}%",
                f"{max(g['peak_memory'] for g in got) / 2**20:,.0f} MiB",
                f"{tps / med['eager']:.2f}x" if "eager" in med else "")
        console.print(t)
        results = [{"tokens_per_s": v} for v in med.values()]
        best = max((r["tokens_per_s"] for r in results if "tokens_per_s" in r), default=0.0)
        t = Table(title="data loader (one worker, collated as the loop reads)")
        for col in ("data", "tokens/s", "x fastest model", "goal >= 10x"):
            t.add_column(col, justify="left" if col == "data" else "right")
        for name, data, stage in (("CPT: megatron-core GPTDataset", cpt, "cpt"),
                                  ("SFT: packed rows + index map", sft, "sft")):
            tps = _loader(data, stage, args, root / "cache")
            ratio = tps / best if best else float("inf")
            t.add_row(name, f"{tps:,.0f}", f"{ratio:,.1f}x", "yes" if ratio >= 10 else "NO")
        console.print(t)


if __name__ == "__main__":
    main()
