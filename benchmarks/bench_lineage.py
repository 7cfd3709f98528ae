"""Lineage, report and mutation benchmark.

1. A store with 1,000,000 lineage edges (100,000 seeds, each with a chain of 10 mutations and a
   document): ancestor, descendant and operator-path queries through the store's SQL macros;
   p50 and p95 over random nodes (goal: p50 < 200 ms).
2. The corpus report on a store with 100,000 documents (goal: < 30 s).
3. Mutation throughput (children verified per second) and acceptance by operator.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
from rich.console import Console
from rich.table import Table

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.evolve import MutateSpec, run_mutate
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.reports.corpus import build_report
from ortrex.store import Store

console = Console(width=150)


def lineage_store(path: Path, seeds: int, depth: int) -> float:
    """Chains seed -> m1 -> ... -> m<depth> -> document; returns insert seconds."""
    rng = np.random.default_rng(0)
    ops = np.array(["scale_data", "add_constraint", "domain_shift", "slack_penalty"])
    k = np.arange(seeds)
    parents, children, pk, ck, rel, op = [], [], [], [], [], []
    for level in range(depth + 1):
        src = np.char.add(f"sem{level}_", k.astype(str)) if level else np.char.add("seed_",
                                                                              k.astype(str))
        if level < depth:
            dst = np.char.add(f"sem{level + 1}_", k.astype(str))
            kind, relation = "semantic_model", "mutated"
            o = ops[rng.integers(len(ops), size=seeds)]
        else:
            dst = np.char.add("doc_", k.astype(str))
            kind, relation, o = "document", "rendered", np.array(["sft:DP"] * seeds)
        parents.append(src)
        children.append(dst)
        pk.append(np.full(seeds, "semantic_model"))
        ck.append(np.full(seeds, kind))
        rel.append(np.full(seeds, relation))
        op.append(o)
    n = seeds * (depth + 1)
    table = pa.table({
        "id": [f"e{i}" for i in range(n)],
        "parent_id": np.concatenate(parents).tolist(), "parent_kind": np.concatenate(pk),
        "child_id": np.concatenate(children).tolist(), "child_kind": np.concatenate(ck),
        "relation": np.concatenate(rel), "operator": np.concatenate(op).tolist(),
        "params": pa.nulls(n, pa.string()),
        "created_at": pa.array([0] * n, pa.timestamp("us", tz="UTC")),
        "run_id": pa.nulls(n, pa.string())})
    with Store(path, create=True) as s:
        t0 = time.perf_counter()
        with s.transaction():
            s.conn.register("edges", table)
            s.conn.execute("INSERT INTO lineage SELECT * FROM edges")
            s.conn.unregister("edges")
        return time.perf_counter() - t0


def time_queries(path: Path, seeds: int, depth: int, n: int = 40) -> dict[str, tuple]:
    rng = np.random.default_rng(1)
    out = {}
    with Store(path, read_only=True) as s:
        edges = s.query("SELECT count(*) FROM lineage").item()
        cases = {
            "ancestors of a document (depth 11)":
                ("SELECT count(*) FROM lineage_ancestors(?)", lambda k: [f"doc_{k}"]),
            "descendants of a seed": ("SELECT count(*) FROM lineage_descendants(?)",
                                      lambda k: [f"seed_{k}"]),
            "operator path seed -> document": (
                "SELECT string_agg(operator, ' > ' ORDER BY depth) FROM lineage_path(?, ?)",
                lambda k: [f"seed_{k}", f"doc_{k}"]),
        }
        for name, (sql, args) in cases.items():
            s.query(sql, args(0))  # warm the cache once
            ts = []
            for k in rng.integers(seeds, size=n):
                t0 = time.perf_counter()
                s.query(sql, args(int(k)))
                ts.append(time.perf_counter() - t0)
            out[name] = (np.percentile(ts, 50) * 1e3, np.percentile(ts, 95) * 1e3)
    out["_edges"] = (edges,)
    return out


def report_store(path: Path, docs: int, workers: int) -> tuple[int, float]:
    """A real small corpus, its documents replicated to ``docs`` rows; report seconds."""
    with Store(path, create=True) as s:
        run_job(s, JobSpec(tuple(sorted(REGISTRY)), 50, seed=3), workers=workers)
        run_render(s, RenderSpec(), workers=workers, decontaminator=None)
        base = s.query("SELECT count(*) FROM documents").item()
        copies = max(1, -(-docs // base))
        with s.transaction():
            s.conn.execute(f"""
                INSERT INTO documents SELECT d.* REPLACE (d.id || '-' || c.k AS id)
                FROM documents d, range(1, {copies}) c(k)""")
            s.conn.execute(f"""
                INSERT INTO verifications SELECT v.* REPLACE (v.id || '-' || c.k AS id,
                    v.subject_id || '-' || c.k AS subject_id)
                FROM verifications v, range(1, {copies}) c(k) WHERE v.subject_kind = 'document'
            """)
        n = s.query("SELECT count(*) FROM documents").item()
    with Store(path, read_only=True) as s:
        t0 = time.perf_counter()
        rep = build_report(s)
        return int(n), time.perf_counter() - t0 + 0 * len(rep.html)


def mutation_bench(path: Path, workers: int) -> tuple[object, list[tuple]]:
    with Store(path, create=True) as s:
        run_job(s, JobSpec(tuple(sorted(REGISTRY)), 100, seed=4), workers=workers)
        rep = run_mutate(s, MutateSpec(MutateSpec.parse_operators("all"), "true", 2, 2, seed=1),
                         workers=workers)
        stats = s.query("SELECT * FROM operator_stats").rows()
    return rep, stats


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seeds", type=int, default=100_000, help="chains (edges = 11 x seeds)")
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--documents", type=int, default=100_000)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = ap.parse_args()
    seeds = max(1, int(args.seeds * 10 / (args.depth + 1)))  # about 1,000,000 edges
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        ins = lineage_store(d / "lineage.duckdb", seeds, args.depth)
        q = time_queries(d / "lineage.duckdb", seeds, args.depth)
        t = Table(title=f"1. lineage queries on {q.pop('_edges')[0]:,} edges, depth "
                        f"{args.depth} (insert {ins:.1f} s)")
        for col in ("query", "p50 ms", "p95 ms"):
            t.add_column(col, justify="left" if col == "query" else "right")
        for name, (p50, p95) in q.items():
            t.add_row(name, f"{p50:.0f}", f"{p95:.0f}")
        t.caption = "goal: p50 < 200 ms"
        console.print(t)

        n, secs = report_store(d / "report.duckdb", args.documents, args.workers)
        console.print(f"2. report on {n:,} documents: {secs:.1f} s (goal < 30 s)")

        rep, stats = mutation_bench(d / "mutate.duckdb", args.workers)
        verified = rep.tasks - sum(rep.skipped.values())  # type: ignore[attr-defined]
        t = Table(title=f"3. mutation: {rep.tasks} tasks, {verified} children verified in "  # type: ignore[attr-defined]
                        f"{rep.seconds:.1f} s = {verified / rep.seconds:.1f} children/s "  # type: ignore[attr-defined]
                        f"({args.workers} workers)")
        for col in ("operator", "verified children", "accepted", "acceptance"):
            t.add_column(col, justify="left" if col == "operator" else "right")
        for op, children, acc, rate in stats:
            t.add_row(op, str(children), str(acc), f"{rate:.0%}")
        skipped = rep.by_operator  # type: ignore[attr-defined]
        t.caption = "not applicable (skipped): " + ", ".join(
            f"{k} {v['skipped']}" for k, v in sorted(skipped.items()) if v["skipped"])
        console.print(t)


if __name__ == "__main__":
    main()
