"""Generation benchmark: the default size mix over every family with two workers.

Prints verified instances per second, the share of time spent inside the two solvers (of the
workers' busy time and of wall time x workers), peak RSS of the writer and of a worker, the
variable counts of accepted instances (p10/p50/p90, share with <= 10 variables), rejections by
reason (``trivial`` among them) and the acceptance rate of each family. Goals on a 2-core
machine: >= 100 verified instances/s, solver share >= 50%, every family accepting >= 80% of its
samples (``--size small`` measures the gate's own cost; the mix is bound by solver time).

A second table measures difficulty per family and band, for the families added to cover the
breadth of OR (the modules in ``BREADTH``): median variables at each band, the median across
them at ``large`` (goal >= 150), and of the MILP instances the share not integral at the root
(goal >= 25%) and the share HiGHS branched on (more than one node).

The machine is shared, so the wall-clock rate says as much about the load as about the code:
the load average is printed before and after, and so is the CPU time per task (workers and
writer, from the kernel's accounting), with the rate that CPU time allows on ``--workers``
idle cores. Compare versions back to back (``PYTHONPATH=<other checkout> python
benchmarks/bench_generate.py``) and read ratios.
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.job import JobSpec, LocalExecutor, run_job
from ortrex.store import Store

# The family modules of the breadth issue (the families after the first 25).
BREADTH = ("vehicles", "shops", "inventory", "siting", "pairing", "word_problems", "uncertain",
           "nonlinear", "hubs", "rostering")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=2000)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--size", default="mix")
    ap.add_argument("--seed", type=int, default=2026)
    args = ap.parse_args()
    spec = JobSpec(tuple(sorted(REGISTRY)), args.count, args.seed, args.size)
    load0 = _loadavg()
    with tempfile.TemporaryDirectory() as d, Store(Path(d) / "bench.duckdb", create=True) as s:
        cpu0 = _cpu(resource.RUSAGE_SELF), _cpu(resource.RUSAGE_CHILDREN)
        executor = LocalExecutor(args.workers)
        report = run_job(s, spec, workers=args.workers, executor=executor)
        executor.close(wait=True)  # reap the workers so their peak RSS and CPU are on record
        writer_cpu = _cpu(resource.RUSAGE_SELF) - cpu0[0]
        worker_cpu = _cpu(resource.RUSAGE_CHILDREN) - cpu0[1]
        per_family = s.query("SELECT family, count(*) AS tasks, count(*) FILTER "
                             "(WHERE outcome = 'accepted') AS accepted FROM run_tasks "
                             "GROUP BY ALL ORDER BY family")
        n_vars = np.array(s.query("SELECT n_vars FROM instances WHERE status = 'accepted'"
                                  ).to_series().to_list(), dtype=float)
        sized = s.query(
            "SELECT i.family, json_extract_string(m.descriptors, '$.size') AS band, i.n_vars, "
            "i.problem_class, coalesce(i.flags::VARCHAR, '') LIKE '%lp_relaxation_integral%' "
            "AS integral, (SELECT max(CAST(json_extract(v.details, '$.nodes') AS INTEGER)) "
            "FROM verifications v WHERE v.subject_id = i.id AND v.verifier = 'highs') AS nodes "
            "FROM instances i JOIN semantic_models m ON m.id = i.semantic_id "
            "WHERE i.status = 'accepted'").rows()
        reasons = Counter(dict(s.query("SELECT reason, count(*) FROM run_tasks WHERE reason "
                                       "IS NOT NULL GROUP BY ALL").rows()))
    bands = Counter(spec.size_of(k) for k in range(report.tasks))
    self_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    child_rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    t = Table(title=f"ortrex generate: {args.count} {args.size} instances, "
                    f"{args.workers} workers, {len(REGISTRY)} families")
    t.add_column("measure")
    t.add_column("value", justify="right")
    new = report.tasks - report.resumed_from
    t.add_row("tasks (sampled, solved twice, checked, filtered)", f"{report.tasks:,}")
    t.add_row("accepted", f"{report.accepted:,}")
    t.add_row("wall seconds", f"{report.seconds:.2f}")
    t.add_row("verified instances / s  (goal >= 100)", f"{new / report.seconds:,.1f}")
    t.add_row("load average before / after (1 min)", f"{load0} / {_loadavg()}")
    t.add_row("CPU ms per task: workers / writer",
              f"{worker_cpu / new * 1e3:.2f} / {writer_cpu / new * 1e3:.2f}")
    t.add_row(f"rate that CPU time allows on {args.workers} idle cores",
              f"{args.workers * new / (worker_cpu + writer_cpu):,.1f}")
    busy = report.seconds * args.workers
    t.add_row("solver share of wall x workers  (goal >= 50%)",
              f"{report.solver_seconds / busy:.1%}")
    t.add_row("solver share of the workers' busy time",
              f"{report.solver_seconds / report.worker_seconds:.1%}")
    t.add_row("writer CPU seconds (main process)", f"{report.writer_cpu_seconds:.2f}")
    t.add_row("peak RSS, writer process", f"{self_rss:,.0f} MiB")
    t.add_row("peak RSS, largest worker", f"{child_rss:,.0f} MiB")
    if n_vars.size:
        p10, p50, p90 = np.percentile(n_vars, [10, 50, 90])
        t.add_row("variables of accepted instances p10 / p50 / p90",
                  f"{p10:,.0f} / {p50:,.0f} / {p90:,.0f}")
        t.add_row("accepted instances with <= 10 variables", f"{np.mean(n_vars <= 10):.1%}")
    t.add_row("bands drawn (tasks)", ", ".join(f"{k} {v}" for k, v in sorted(bands.items())))
    for reason, n in sorted(reasons.items()):
        t.add_row(f"rejected: {reason}", str(n))
    f = Table(title="acceptance per family (goal >= 80%)")
    for col in ("family", "tasks", "accepted", "rate"):
        f.add_column(col, justify="left" if col == "family" else "right")
    for fam, tasks, acc in per_family.rows():
        f.add_row(fam, str(tasks), str(acc), f"{acc / tasks:.0%}")
    Console().print(t, f, _difficulty(sized))


def _difficulty(rows: list[tuple]) -> Table:
    """Median variables per band of the breadth families, and how many MILPs branch."""
    breadth = {n for n, fam in REGISTRY.items()
               if type(fam).__module__.rsplit(".", 1)[-1] in BREADTH}
    mine = [r for r in rows if r[0] in breadth]
    d = Table(title=f"difficulty of the {len(breadth)} breadth families (accepted instances)")
    for col in ("family", "small", "medium", "large", "MILP not integral at root",
                "MILP branched"):
        d.add_column(col, justify="left" if col == "family" else "right")
    large = []
    for fam in sorted(breadth):
        cells = []
        for band in ("small", "medium", "large"):
            v = [r[2] for r in mine if r[0] == fam and r[1] == band]
            cells.append(f"{np.median(v):,.0f}" if v else "-")
            if band == "large" and v:
                large.append(float(np.median(v)))
        milp = [r for r in mine if r[0] == fam and r[3] not in ("LP", "QP", "QCP")]
        cells.append(f"{np.mean([not r[4] for r in milp]):.0%}" if milp else "-")
        cells.append(f"{np.mean([(r[5] or 0) > 1 for r in milp]):.0%}" if milp else "-")
        d.add_row(fam, *cells)
    milp = [r for r in mine if r[3] not in ("LP", "QP", "QCP")]
    d.add_row("median of the family medians at large (goal >= 150)", "", "",
              f"{np.median(large):,.0f}" if large else "-",
              f"{np.mean([not r[4] for r in milp]):.0%} (goal >= 25%)" if milp else "-",
              f"{np.mean([(r[5] or 0) > 1 for r in milp]):.0%}" if milp else "-")
    return d


def _cpu(who: int) -> float:
    r = resource.getrusage(who)
    return r.ru_utime + r.ru_stime


def _loadavg() -> str:
    return f"{os.getloadavg()[0]:.2f}"


if __name__ == "__main__":
    main()
