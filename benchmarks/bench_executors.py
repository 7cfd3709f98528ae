"""Executor benchmark: generate, render and export at 1 and 2 workers on the local executor and
on a real local Ray, with scaling efficiency, Ray's overhead per task and the writer's own
ingestion rate (what one DuckDB writer can take, the figure docs/scale.md builds on).

Every job runs as the library runs it for the CLI (the same spec, a fresh store per run, the
Ray instance started once and its start-up reported apart). Rates are whole-job: tasks or
documents or tokens over wall seconds, writer included.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.jobs import make_executor
from ortrex.store import Store

console = Console(width=140)


def _noop(x: int) -> int:
    return x


def _generate(ex: Any, n: int, folder: Path, tag: str) -> tuple[float, float, float]:
    with Store(folder / f"g-{tag}.duckdb", create=True) as s:
        t0 = time.perf_counter()
        rep = run_job(s, JobSpec(tuple(sorted(REGISTRY)), n, seed=3, size="small"),
                      executor=ex)
        wall = time.perf_counter() - t0
    return rep.tasks / wall, rep.writer_cpu_seconds, rep.tasks


def _render(ex: Any, source: Path, folder: Path, tag: str) -> float:
    db = folder / f"r-{tag}.duckdb"
    db.write_bytes(source.read_bytes())
    with Store(db) as s:
        t0 = time.perf_counter()
        rep = run_render(s, RenderSpec(forms=("DP", "DT", "DPS"), seed=1), executor=ex,
                         decontaminator=False)
        return rep.documents / (time.perf_counter() - t0)


def _export(ex: Any, workers: int, corpus: Path, folder: Path, tag: str) -> float:
    from ortrex.export.cpt import CptOptions, run_cpt

    t0 = time.perf_counter()
    rep = run_cpt(folder / f"x-{tag}", inputs=[corpus], opts=CptOptions(append_eod=True),
                  workers=workers, executor=ex)
    return rep.tokens / (time.perf_counter() - t0)


def _corpus(path: Path, mb: int) -> Path:
    line = 0
    with open(path, "w") as f:
        while f.tell() < mb << 20:
            f.write(json.dumps({"text": f"Plan {line}: ship {line % 97} pallets from depot "
                                f"D{line % 13} to store S{line % 29} at {line % 7}.5 EUR each. "
                                + "Minimise the total transport cost. " * (line % 9)}) + "\n")
            line += 1
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--generate", type=int, default=600, help="accepted small instances")
    ap.add_argument("--render", type=int, default=60, help="instances to render")
    ap.add_argument("--export-mb", type=int, default=20, help="MB of CPT JSONL")
    args = ap.parse_args()
    os.environ.setdefault("RAY_AUTH_MODE", "disabled")
    folder = Path(tempfile.mkdtemp(prefix="ortrex-bench-exec-"))
    with Store(folder / "source.duckdb", create=True) as s:
        run_job(s, JobSpec(tuple(sorted(REGISTRY)), args.render, seed=5, size="small"),
                executor=make_executor(2))
    corpus = _corpus(folder / "cpt.jsonl", args.export_mb)

    rows: dict[tuple[str, int], dict[str, float]] = {}
    t0 = time.perf_counter()
    ray2 = make_executor(2, "ray")
    ray_start = time.perf_counter() - t0
    try:
        ray_workers = {1: make_executor(1, "ray", cpus_per_task=2.0), 2: ray2}  # 1 task slot
        for kind in ("local", "ray"):
            for w in (1, 2):
                ex = make_executor(w) if kind == "local" else ray_workers[w]
                try:
                    gen, writer_cpu, tasks = _generate(ex, args.generate, folder, f"{kind}{w}")
                    ren = _render(ex, folder / "source.duckdb", folder, f"{kind}{w}")
                    exp = _export(None if kind == "local" else ex, w, corpus, folder,
                                  f"{kind}{w}")
                finally:
                    if kind == "local":
                        ex.close()
                rows[kind, w] = {"generate": gen, "render": ren, "export": exp,
                                 "writer_tasks_per_cpu_s": tasks / max(writer_cpu, 1e-9)}
        # Ray's cost per task: trivial tasks, chunked as every job's are.
        n = 20000
        t = time.perf_counter()
        list(ray2.map(_noop, range(n)))
        ray_us = (time.perf_counter() - t) / n * 1e6
        local = make_executor(2)
        t = time.perf_counter()
        list(local.map(_noop, range(n)))
        local_us = (time.perf_counter() - t) / n * 1e6
        local.close()
    finally:
        ray2.close()

    t = Table(title="throughput (whole jobs, writer included)")
    for col in ("executor", "workers", "generate tasks/s", "render docs/s", "export M tok/s"):
        t.add_column(col, justify="left" if col == "executor" else "right")
    for (kind, w), r in rows.items():
        t.add_row(kind, str(w), f"{r['generate']:,.1f}", f"{r['render']:,.1f}",
                  f"{r['export'] / 1e6:.2f}")
    console.print(t)
    s = Table(title="scaling efficiency (2 workers / (2 x 1 worker)) and overheads")
    s.add_column("figure")
    s.add_column("value", justify="right")
    for kind in ("local", "ray"):
        for job in ("generate", "render", "export"):
            eff = rows[kind, 2][job] / (2 * rows[kind, 1][job])
            s.add_row(f"{kind} {job}", f"{eff:.0%}")
    for job in ("generate", "render", "export"):
        s.add_row(f"ray / local at 2 workers, {job}",
                  f"{rows['ray', 2][job] / rows['local', 2][job]:.2f}")
    s.add_row("Ray start-up (local instance, 2 CPUs), s", f"{ray_start:.1f}")
    s.add_row("per-task cost, trivial task: local processes, us", f"{local_us:.1f}")
    s.add_row("per-task cost, trivial task: Ray, us", f"{ray_us:.1f}")
    s.add_row("generate writer: tasks ingested per writer CPU second",
              f"{rows['local', 2]['writer_tasks_per_cpu_s']:,.0f}")
    console.print(s)


if __name__ == "__main__":
    main()
