"""Seeds at the size users have them: a generated benchmark of real-looking programs (in the
shape of MIPLIB-NL's: a ``solve.py`` with CSV data in a ``data/`` tree, helper modules,
arguments, models built in functions, several models, models beyond Gurobi's pip licence, solves
longer than the program's time limit, lazy constraints from a callback, a few that fail or use
what the IR lacks) imported with
``import_seeds``. Prints the counts by outcome, what the sandbox saw, the time and peak memory.

The public benchmark itself is never vendored; ``--seeds FILE`` runs any seed JSONL instead.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import tempfile
import time
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ortrex.engine.ingest.seeds import SeedLimits, import_seeds
from ortrex.store import Store

console = Console(width=140)

SOLVE_PY = """import sys
import pandas as pd
from model_lib.build import build_model

def solve(instance):
    items = pd.read_csv(f"data/{instance}/items.csv")
    caps = pd.read_csv(f"data/{instance}/bins.csv")
    m = build_model(items, caps)
    m.optimize()
    return m.ObjVal

if __name__ == "__main__":
    print("Optimal objective:", solve(sys.argv[1]))
"""

BUILD_PY = """import gurobipy as gp
from gurobipy import GRB


def build_model(items, caps):
    mdl = gp.Model("assign")
    n, k = len(items), len(caps)
    x = mdl.addVars(n, k, vtype=GRB.BINARY, name="x")
    mdl.addConstrs((x.sum(i, "*") <= 1 for i in range(n)), name="once")
    mdl.addConstrs((gp.quicksum(int(items.weight[i]) * x[i, b] for i in range(n))
                    <= int(caps.cap[b]) for b in range(k)), name="cap")
    mdl.setObjective(gp.quicksum(int(items.value[i]) * x[i, b] for i in range(n)
                                 for b in range(k)), GRB.MAXIMIZE)
    return mdl
"""

TWO_STAGE = """import gurobipy as gp
from gurobipy import GRB
import csv
rows = list(csv.DictReader(open("data/demand.csv")))
d = [float(r["demand"]) for r in rows]
plan = gp.Model("capacity")
cap = plan.addVar(name="cap")
plan.addConstr(cap >= max(d))
plan.setObjective(cap)
plan.optimize()
C = plan.ObjVal
ops = gp.Model("operations")
y = ops.addVars(len(d), ub=C, name="y")
ops.addConstrs((y[t] >= d[t] for t in range(len(d))), name="meet")
ops.setObjective(gp.quicksum((1 + t % 3) * y[t] for t in range(len(d))))
ops.optimize()
print("objective:", ops.ObjVal)
"""

HIGHS_ONLY = """import highspy
import numpy as np
n = {n}
h = highspy.Highs()
h.setOptionValue("output_flag", False)
rng = np.random.default_rng({seed})
x = [h.addVariable(0, 1) for _ in range(n)]
for i in range(n - 1):
    h.addConstr(x[i] + x[i + 1] <= 1)
h.maximize(sum(float(c) * v for c, v in zip(rng.integers(1, 9, n), x)))
"""

MARKET = """import gurobipy as gp
from gurobipy import GRB
import random, time
rng = random.Random({seed})
n, rows = 36, 5
a = [[rng.randint(0, 99) for _ in range(n)] for _ in range(rows)]
m = gp.Model("market")
x = m.addVars(n, vtype=GRB.BINARY, name="x")
s = m.addVars(rows, 2, name="s")
for i in range(rows):
    m.addConstr(gp.quicksum(a[i][j] * x[j] for j in range(n)) + s[i, 0] - s[i, 1]
                == sum(a[i]) // 2)
m.setObjective(s.sum(), GRB.MINIMIZE)
m.optimize()
print("objective:", m.ObjVal)
"""

FAILS_EARLY = """import pandas as pd
import gurobipy as gp
df = pd.read_csv("data/missing.csv")
m = gp.Model()
m.optimize()
"""

INDICATOR = """import gurobipy as gp
from gurobipy import GRB
m = gp.Model("ind")
z = m.addVars(5, vtype=GRB.BINARY, name="z")
x = m.addVars(5, ub=10, name="x")
for i in range(5):
    m.addGenConstrIndicator(z[i], False, x[i] <= 0)
m.addConstr(z.sum() <= 2)
m.setObjective(x.sum() - z.sum(), GRB.MAXIMIZE)
m.optimize()
"""

# Gurobi's tsp.py shape: subtour elimination as lazy constraints from a MIPSOL callback (the
# model before the solve is a relaxation: only the rows the callback adds make the tour).
CALLBACK = """import math, random
from itertools import combinations
import gurobipy as gp
from gurobipy import GRB
rng = random.Random({seed})
n = {n}
pts = [(rng.randint(0, 100), rng.randint(0, 100)) for _ in range(n)]
dist = {{(i, j): round(math.dist(pts[i], pts[j])) for i, j in combinations(range(n), 2)}}
m = gp.Model("tsp")
x = m.addVars(dist.keys(), obj=dist, vtype=GRB.BINARY, name="e")
m.addConstrs(x.sum(i, "*") + x.sum("*", i) == 2 for i in range(n))
def tour(edges):
    left, best = set(range(n)), None
    while left:
        cycle, nxt = [], [left.pop()]
        while nxt:
            c = nxt.pop()
            cycle.append(c)
            for i, j in edges:
                for a, b in ((i, j), (j, i)):
                    if a == c and b in left:
                        left.discard(b)
                        nxt.append(b)
        if best is None or len(cycle) < len(best):
            best = cycle
    return best
def cut(model, where):
    if where == GRB.Callback.MIPSOL:
        vals = model.cbGetSolution(model._x)
        edges = [e for e in vals if vals[e] > 0.5]
        c = tour(edges)
        if len(c) < n:
            model.cbLazy(gp.quicksum(model._x[i, j] for i, j in combinations(sorted(c), 2))
                         <= len(c) - 1)
m._x = x
m.Params.LazyConstraints = 1
m.optimize(cut)
print("objective:", m.ObjVal)
"""


def _csv(header: str, rows: list[tuple[int, ...]]) -> str:
    return header + "\n" + "\n".join(",".join(map(str, r)) for r in rows) + "\n"


def _tour_statement(k: int, code: str) -> str:
    """The statement of a tour seed: its distance table, as the program computes it."""
    import math
    from itertools import combinations

    head = code.split("m = gp.Model")[0].split("from gurobipy import GRB\n")[1]
    env: dict[str, object] = {"math": math, "random": random, "combinations": combinations}
    exec(head, env)  # the benchmark's own generator code, not a seed's
    dist = env["dist"]
    rows = "; ".join(f"{i}-{j}: {d}" for (i, j), d in dist.items())  # type: ignore[attr-defined]
    return (f"Benchmark tour {k}: visit every city once and return, as short as possible. "
            f"Road lengths: {rows}.")


def generate(n: int, seed: int) -> list[dict[str, object]]:
    """``n`` seeds in a fixed mix of shapes (kind chosen round-robin, sizes at random)."""
    rng = random.Random(seed)
    seeds: list[dict[str, object]] = []
    kinds = ["tree_small", "tree_large", "two_stage", "highs_large", "market", "fails",
             "indicator", "tree_small", "callback"]
    for k in range(n):
        kind = kinds[k % len(kinds)]
        files: dict[str, str] = {}
        args: list[str] = []
        problem = f"Benchmark problem {k} ({kind})."
        if kind.startswith("tree"):
            items, bins = (rng.randint(8, 14), 3) if kind == "tree_small" else \
                (rng.randint(700, 900), 4)  # 2,800+ binaries: beyond the pip licence
            inst = f"inst{k}"
            files = {f"data/{inst}/items.csv": _csv("weight,value", [
                (rng.randint(1, 30), rng.randint(1, 50)) for _ in range(items)]),
                f"data/{inst}/bins.csv": _csv("cap", [(rng.randint(20, 60) * max(1, items // 12),)
                                                      for _ in range(bins)]),
                "model_lib/__init__.py": "", "model_lib/build.py": BUILD_PY}
            code, args = SOLVE_PY, [inst]
        elif kind == "two_stage":
            files = {"./data/demand.csv": _csv("demand", [(rng.randint(5, 50),)
                                                          for _ in range(12)])}
            code = TWO_STAGE
        elif kind == "highs_large":
            code = HIGHS_ONLY.format(n=rng.randint(3000, 6000), seed=k)
        elif kind == "market":
            code = MARKET.format(seed=k)
        elif kind == "fails":
            code = FAILS_EARLY
        elif kind == "callback":
            code = CALLBACK.format(seed=k, n=rng.randint(9, 14))
            problem = _tour_statement(k, code)
        else:
            code = INDICATOR
        seeds.append({"id": f"{kind}-{k}", "problem": problem,
                      "answer": f"<python>\n{code}</python>", "files": files, "args": args,
                      "metadata": {"structure": kind}})
    return seeds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--count", type=int, default=32)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--seeds", type=Path, help="a seed JSONL to import instead")
    ap.add_argument("--program-time-limit", type=float, default=20.0)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--budget", type=float, default=60.0)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        path = args.seeds
        if path is None:
            path = Path(tmp) / "seeds.jsonl"
            path.write_text("\n".join(json.dumps(s) for s in generate(args.count, args.seed))
                            + "\n")
        size = path.stat().st_size
        limits = SeedLimits(args.program_time_limit, args.time_limit, args.budget)
        t0 = time.perf_counter()
        with Store(Path(tmp) / "bench.duckdb", create=True) as store:
            rep = import_seeds(store, path, workers=args.workers, limits=limits)
            elapsed = time.perf_counter() - t0
            by = store.query(
                "SELECT json_extract_string(l.params, '$.metadata.structure') AS kind, "
                "d.status, coalesce(d.reject_reason, '') AS reason, "
                "json_extract_string(v.details, '$.status') AS program, "
                "CAST(json_extract(v.details, '$.models_captured') AS INT) AS models, "
                "json_extract_string(v.details, '$.notes') AS notes "
                "FROM documents d JOIN lineage l ON l.child_id = d.id AND "
                "l.relation = 'imported' LEFT JOIN verifications v ON v.subject_id = d.id "
                "AND v.verifier = 'sandbox'").rows()
            solvers = Counter(store.query(
                "SELECT verifier || ': ' || status FROM verifications WHERE subject_kind = "
                "'instance'").to_series().to_list())
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    t = Table(title=f"{rep.seeds} seeds ({size / 1e6:.1f} MB), {args.workers} workers, limits "
                    f"program {limits.program_s:g} s / solve {limits.solve_s:g} s / seed "
                    f"{limits.budget_s:g} s")
    for col in ("kind", "outcome", "program in the sandbox", "models captured", "seeds"):
        t.add_column(col, justify="right" if col == "seeds" else "left")
    refused = " (licence refused)"
    groups = Counter((k, f"{s} {r}".strip(), f"{p}{refused if 'licence' in (n or '') else ''}",
                      m or 0) for k, s, r, p, m, n in by)
    for (k, o, p, m), c in sorted(groups.items()):
        t.add_row(k, o, p or "not run", str(m), str(c))
    console.print(t)
    s = Table(title="summary")
    s.add_column("what")
    s.add_column("value", justify="right")
    ran = rep.seeds - rep.reasons.get("static_check_failed", 0) - rep.reasons.get(
        "bad_file_name", 0)
    for what, v in [("seeds", rep.seeds), ("programs run", ran),
                    ("programs that ran to the end", rep.ran),
                    ("seeds with a model captured", rep.captured),
                    ("programs run with no model captured", ran - rep.captured),
                    ("models verified (per seed)", rep.models), ("accepted", rep.accepted),
                    *[(f"rejected: {k}", c) for k, c in sorted(rep.reasons.items())],
                    *[(f"solver verdicts {k}", c) for k, c in sorted(solvers.items())],
                    ("seconds", f"{elapsed:.1f}"), ("seeds / s", f"{rep.seeds / elapsed:.2f}"),
                    ("peak RSS, driver (MB)", f"{peak_mb:.0f}"),
                    ("peak RSS, largest child (MB)", f"{children_mb:.0f}")]:
        s.add_row(what, str(v))
    console.print(s)



if __name__ == "__main__":
    main()
