"""Format benchmarks: the 738 shared LP files (files/s) and one LP with 1,000,000 nonzeros.

Prints a table of figures; the large-file numbers come from a fresh subprocess so that peak RSS
belongs to the read alone. Goals on a 2-core machine: < 10 s and < 1.5 GB for the 1M-nonzero LP.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from rich.console import Console
from rich.table import Table

from ortrex.benchmarks.registry import reference_model_paths
from ortrex.ir import CanonicalModel
from ortrex.ir.formats import read_model, write_model

CHILD = r"""
import json, resource, sys, time
t0 = time.perf_counter()
from ortrex.ir.formats import read_model
t1 = time.perf_counter()
m = read_model(sys.argv[1])
t2 = time.perf_counter()
fp = m.structural_fingerprint
t3 = time.perf_counter()
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB -> MiB on Linux
print(json.dumps({"import_s": t1 - t0, "read_s": t2 - t1, "fingerprint_s": t3 - t2,
                  "peak_rss_mib": rss, "nnz": m.nnz, "n_vars": m.num_vars}))
"""

GUROBI_CHILD = r"""
import json, resource, sys, time
import gurobipy as gp
env = gp.Env(empty=True); env.setParam("OutputFlag", 0); env.start()
t0 = time.perf_counter(); g = gp.read(sys.argv[1], env); g.update(); t1 = time.perf_counter()
print(json.dumps({"read_s": t1 - t0, "nnz": g.NumNZs,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def shared_files() -> list[Path]:
    return reference_model_paths()


def bench_shared(files: list[Path], repeat: int) -> dict[str, float]:
    best_read = best_all = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        models = [read_model(f) for f in files]
        t1 = time.perf_counter()
        for m in models:
            _ = m.structural_fingerprint
        t2 = time.perf_counter()
        best_read, best_all = min(best_read, t1 - t0), min(best_all, t2 - t0)
    return {"files": len(files), "read_files_per_s": len(files) / best_read,
            "read_and_fingerprint_files_per_s": len(files) / best_all}


def big_model(nnz: int, seed: int = 0) -> CanonicalModel:
    rng = np.random.default_rng(seed)
    n, m = nnz // 10, nnz // 20
    keys = np.unique(rng.integers(0, n * m, int(nnz * 1.01)))
    keys = rng.permutation(keys)[:nnz]  # exactly nnz distinct (row, column) positions
    rows, cols = keys // n, keys % n
    A = sp.csr_matrix((rng.uniform(0.5, 100.0, nnz).round(6), (rows, cols)), shape=(m, n))
    return CanonicalModel(var_names=[f"x[{j}]" for j in range(n)],
                          var_types=np.where(rng.random(n) < 0.2, "I", "C"),
                          ub=rng.uniform(10, 1000, n).round(3), obj=rng.uniform(-5, 5, n).round(4),
                          A=A, row_names=[f"c[{r}]" for r in range(m)],
                          row_upper=rng.uniform(1e3, 1e5, m).round(2), name="bench1M")


def child(code: str, path: Path) -> dict[str, float]:
    out = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True,
                         check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--nnz", type=int, default=1_000_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--no-gurobi", action="store_true", help="skip the Gurobi reader comparison")
    args = ap.parse_args()
    console = Console()
    table = Table(title="ortrex formats benchmark")
    table.add_column("measure")
    table.add_column("value", justify="right")

    files = shared_files()
    if files:
        r = bench_shared(files, args.repeat)
        table.add_row("shared LP files", f"{r['files']}")
        table.add_row("read (files/s)", f"{r['read_files_per_s']:,.0f}")
        table.add_row("read + fingerprint (files/s)",
                      f"{r['read_and_fingerprint_files_per_s']:,.0f}")
    else:
        table.add_row("shared LP files", "not found (set ORTREX_BENCHMARKS)")

    with tempfile.TemporaryDirectory() as d:
        m = big_model(args.nnz)
        for suffix in ("lp", "mps"):
            path = Path(d) / f"big.{suffix}"
            t0 = time.perf_counter()
            write_model(m, path)
            write_s = time.perf_counter() - t0
            r = child(CHILD, path)
            assert r["nnz"] == m.nnz
            table.add_row(f"{suffix.upper()} {m.nnz:,} nonzeros: file size",
                          f"{path.stat().st_size / 1e6:,.0f} MB")
            table.add_row("  write (s)", f"{write_s:.2f}")
            table.add_row("  read (s)", f"{r['read_s']:.2f}")
            table.add_row("  structural fingerprint (s)", f"{r['fingerprint_s']:.2f}")
            table.add_row("  peak RSS of the reading process", f"{r['peak_rss_mib']:,.0f} MiB")
            if suffix == "lp" and not args.no_gurobi:
                g = child(GUROBI_CHILD, path)
                table.add_row("  Gurobi's C reader on the same file (s)", f"{g['read_s']:.2f}")
                table.add_row("  ortrex / Gurobi read time", f"{r['read_s'] / g['read_s']:.1f}x")
    console.print(table)


if __name__ == "__main__":
    main()
