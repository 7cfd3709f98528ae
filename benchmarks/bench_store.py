"""Store benchmarks: bulk inserts (rows/s) and a 10-level ancestor query over 1M lineage edges.

Goals on a 2-core machine: >= 20,000 rows/s for inserts, < 200 ms for the ancestor query.
"""

from __future__ import annotations

import argparse
import hashlib
import statistics
import tempfile
import time
import zlib
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
import pyarrow as pa
from rich.console import Console
from rich.table import Table

from ortrex.ir import CanonicalModel
from ortrex.store import Store
from ortrex.store.lineage import walk


def instance_batch(start: int, count: int, blob: bytes, now: datetime) -> pa.Table:
    ids = [hashlib.sha256(f"inst{k}".encode()).hexdigest() for k in range(start, start + count)]
    rng = np.random.default_rng(start)
    return pa.table({
        "id": ids,
        "structural_fp": [i[::-1] for i in ids],
        "formulation_fp": [i[:32] * 2 for i in ids],
        "fp_version": pa.array([1] * count, pa.int32()),
        "name": [f"model {k}" for k in range(start, start + count)],
        "family": ["bench"] * count,
        "problem_class": rng.choice(["LP", "MILP", "QP"], count).tolist(),
        "sense": ["min"] * count,
        **{c: pa.array(rng.integers(1, 500, count), pa.int32())
           for c in ("n_vars", "n_rows", "n_int", "n_bin", "n_qobj", "n_qrows")},
        "nnz": pa.array(rng.integers(1, 5000, count), pa.int64()),
        "model": pa.array([blob] * count, pa.binary()),
        "model_format": ["ortrex-canonical-1+zlib"] * count,
        "created_at": pa.array([now] * count, pa.timestamp("us", tz="UTC")),
    })


def edge_batch(chains: np.ndarray, depth: int, now: datetime) -> pa.Table:
    """Edges n<c>_<d> -> n<c>_<d+1> for every chain c in ``chains`` and d < depth."""
    c = np.repeat(chains, depth)
    d = np.tile(np.arange(depth), chains.size)
    parent = np.char.add(np.char.add(np.char.add("n", c.astype(str)), "_"), d.astype(str))
    child = np.char.add(np.char.add(np.char.add("n", c.astype(str)), "_"), (d + 1).astype(str))
    n = c.size
    return pa.table({
        "id": np.char.add(np.char.add(parent, ">"), child).tolist(),
        "parent_id": parent.tolist(), "parent_kind": ["instance"] * n,
        "child_id": child.tolist(), "child_kind": ["instance"] * n,
        "relation": ["mutated"] * n, "operator": ["scale"] * n,
        "created_at": pa.array([now] * n, pa.timestamp("us", tz="UTC")),
    })


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--instances", type=int, default=100_000)
    ap.add_argument("--edges", type=int, default=1_000_000)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--batch", type=int, default=100_000)
    args = ap.parse_args()
    now = datetime.now(UTC)
    blob = zlib.compress(CanonicalModel(var_names=[f"x{j}" for j in range(40)],
                                        obj=np.arange(40.0)).to_bytes())
    table = Table(title="ortrex store benchmark")
    table.add_column("measure")
    table.add_column("value", justify="right")
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "bench.duckdb", create=True) as s:
        t0 = time.perf_counter()
        for start in range(0, args.instances, args.batch):
            count = min(args.batch, args.instances - start)
            batch = instance_batch(start, count, blob, now)
            with s.transaction():
                s.insert("instances", batch)
        dt = time.perf_counter() - t0
        table.add_row(f"insert {args.instances:,} instances (rows/s)  (goal >= 20,000)",
                      f"{args.instances / dt:,.0f}")

        chains = args.edges // args.depth
        t0 = time.perf_counter()
        per_batch = max(1, args.batch // args.depth)
        for start in range(0, chains, per_batch):
            batch = edge_batch(np.arange(start, min(chains, start + per_batch)), args.depth, now)
            with s.transaction():
                s.insert("lineage", batch)
        dt = time.perf_counter() - t0
        n_edges = s.counts()["lineage"]
        table.add_row(f"insert {n_edges:,} lineage edges (rows/s)  (goal >= 20,000)",
                      f"{n_edges / dt:,.0f}")

        rng = np.random.default_rng(7)
        times, sizes = [], []
        for c in rng.integers(0, chains, 21):
            t0 = time.perf_counter()
            df = walk(s, f"n{c}_{args.depth}", "ancestors")
            times.append(time.perf_counter() - t0)
            sizes.append(df.height)
        assert set(sizes) == {args.depth} and df["depth"].max() == args.depth
        table.add_row(f"{args.depth}-level ancestor query, median of 21 (ms)  (goal < 200)",
                      f"{statistics.median(times) * 1e3:.1f}")
        t0 = time.perf_counter()
        df = walk(s, f"n{chains // 2}_0", "descendants")
        table.add_row(f"{args.depth}-level descendant query (ms)",
                      f"{(time.perf_counter() - t0) * 1e3:.1f}")
        assert df.height == args.depth
        table.add_row("store file size (MB)", f"{s.path.stat().st_size / 1e6:,.0f}")
    Console().print(table)


if __name__ == "__main__":
    main()
