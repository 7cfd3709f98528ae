"""Render-and-verify benchmark: documents/s, warm pool vs cold subprocess, the public seeds.

1. Generate instances, then render and fully verify about 1,000 documents (3 forms x CPT/SFT):
   documents/s with the given workers.
2. Per-program wall time of the warm pool (a fork server with gurobipy, highspy and numpy
   imported; a fresh supervisor per run from its clean template) in every isolation mode the
   machine has (what each layer costs), against a cold ``python`` subprocess per program with
   the strongest isolation: median and p95, throughput ratio (goal: >= 3x).
3. The 200 public seeds through ``import-seeds``: how many run, solve and are accepted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.engine.ingest.seeds import import_seeds
from ortrex.paths import benchmarks_dir
from ortrex.render.data import data_json, dumps_json
from ortrex.render.program import gurobipy_program
from ortrex.store import Store
from ortrex.verifiers.sandbox import isolation
from ortrex.verifiers.sandbox.server import Job, Sandbox, run_cold

console = Console(width=150)


def bench_documents(docs: int, workers: int, d: Path) -> dict[str, object]:
    instances = max(1, docs // 6)
    with Store(d / "bench.duckdb", create=True) as s:
        t0 = time.perf_counter()
        run_job(s, JobSpec(tuple(sorted(REGISTRY)), instances, seed=11), workers=workers)
        gen_s = time.perf_counter() - t0
        rep = run_render(s, RenderSpec(), workers=workers)
    sec = np.array(rep.sandbox_seconds)
    return {"instances": rep.instances, "documents": rep.documents, "accepted": rep.accepted,
            "rejected": dict(rep.rejected), "seconds": rep.seconds, "generate_s": gen_s,
            "docs_per_s": rep.documents / rep.seconds, "run_median_ms": np.median(sec) * 1e3,
            "run_p95_ms": np.percentile(sec, 95) * 1e3, "decontamination": rep.decontamination}


def programs(n: int) -> list[Job]:
    names = sorted(REGISTRY)
    jobs = []
    for k in range(n):
        sm = REGISTRY[names[k % len(names)]].sample(np.random.default_rng(k), "small")
        mode = "json" if k % 3 == 0 else "literal"
        files = {"data.json": dumps_json(data_json(sm))} if mode == "json" else {}
        jobs.append(Job(gurobipy_program(sm, mode).code, files))
    return jobs


def _timed(run: object, jobs: list[Job]) -> np.ndarray:
    out = []
    for j in jobs:
        t0 = time.perf_counter()
        r = run(j)  # type: ignore[operator]
        out.append(time.perf_counter() - t0)
        assert r.status == "ok" and r.capture_status == "ok", (r.status, r.stderr[-300:])
    return np.array(out)


def bench_pool(n: int) -> list[dict[str, object]]:
    """Per-program wall time (the caller's view: fork, isolation, run, capture, collection)
    of the warm pool in every isolation mode this machine has, and of a cold interpreter per
    program in the strongest one."""
    jobs = programs(n)
    best = isolation.detect_mode()
    rows: list[dict[str, object]] = []
    order = ("root", "user", "landlock", "none")
    for mode in order[order.index(best):]:
        try:
            isolation.plan(mode)
        except ValueError:
            continue
        with Sandbox(mode=mode) as sb:
            sb.run(jobs[0])  # the first fork pays for nothing the others do not
            rows.append({"how": f"warm pool, {mode}", "mode": mode, "t": _timed(sb.run, jobs)})
    rows.append({"how": f"cold python, {best}", "mode": best,
                 "t": _timed(lambda j: run_cold(j, mode=best), jobs)})
    return rows


def bench_seeds(workers: int, d: Path) -> dict[str, object] | None:
    root = benchmarks_dir()
    if root is None:
        return None
    path = root.parent / "seeds" / "public_seed.jsonl"
    with Store(d / "seeds.duckdb", create=True) as s:
        rep = import_seeds(s, path, workers=workers)
    return {"seeds": rep.seeds, "ran": rep.ran, "solved": rep.solved, "accepted": rep.accepted,
            "reasons": dict(rep.reasons), "seconds": rep.seconds}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--documents", type=int, default=1000)
    ap.add_argument("--programs", type=int, default=200)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    console.print(f"isolation on this machine: {isolation.support()}")
    console.print(f"weak or missing layers: {isolation.gaps(isolation.support()) or 'none'}")
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        r = bench_documents(args.documents, args.workers, d)
        t = Table(title=f"1. render and verify ({args.workers} workers)", show_header=False)
        t.add_column("measure")
        t.add_column("value", justify="right")
        for k in ("instances", "documents", "accepted", "rejected", "decontamination"):
            t.add_row(k, str(r[k]))
        t.add_row("render + verify seconds", f"{r['seconds']:.1f}")
        t.add_row("documents / s", f"{r['docs_per_s']:.1f}")
        t.add_row("program run in the sandbox, median / p95 ms",
                  f"{r['run_median_ms']:.0f} / {r['run_p95_ms']:.0f}")
        t.add_row("(generating the instances took, s)", f"{r['generate_s']:.1f}")
        console.print(t)

        rows = bench_pool(args.programs)
        t = Table(title=f"2. {args.programs} programs, one at a time: wall time per program "
                        "(fork, isolation, run, model capture, collection)")
        for col in ("", "median ms", "p95 ms", "programs / s"):
            t.add_column(col, justify="right" if col else "left")
        for row in rows:
            w = row["t"]
            t.add_row(str(row["how"]), f"{np.median(w) * 1e3:.1f}",  # type: ignore[arg-type]
                      f"{np.percentile(w, 95) * 1e3:.1f}",  # type: ignore[arg-type]
                      f"{len(w) / w.sum():.1f}")  # type: ignore[union-attr]
        warm, cold = rows[0]["t"], rows[-1]["t"]
        t.caption = (f"throughput ratio warm / cold with the same isolation "
                     f"({rows[0]['mode']}): {cold.sum() / warm.sum():.1f}x (goal >= 3x)")
        console.print(t)

        s = bench_seeds(args.workers, d)
        if s is None:
            console.print("3. public seeds: ../shared not found (set ORTREX_BENCHMARKS)")
        else:
            t = Table(title="3. the 200 public seeds through import-seeds", show_header=False)
            t.add_column("measure")
            t.add_column("value", justify="right")
            for k in ("seeds", "ran", "solved", "accepted"):
                t.add_row(k, str(s[k]))
            for k, v in sorted(s["reasons"].items()):  # type: ignore[attr-defined]
                t.add_row(f"rejected: {k}", str(v))
            t.add_row("seconds", f"{s['seconds']:.1f}")
            console.print(t)


if __name__ == "__main__":
    main()
