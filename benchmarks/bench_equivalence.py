"""Equivalence-checker benchmarks: bench4opt programs, a labelled suite, symmetry, scale.

1. Every bench4opt / bench4opt_feasible ``reference_code`` is run in a temporary directory with
   its data file; the ``model.lp`` it writes is compared with its ``reference_lp_path``.
   Expected: all equivalent except bench4opt 32, 144, 145, 206, 380, 381 (feasible: 380, 381).
2. A labelled suite of pairs built from the shared reference LPs by transformations of known
   answer: accuracy per class (undecided counts as wrong) and pairs/s, in memory and through
   ``ortrex equiv --pairs --workers 1`` on files written by Gurobi's LP writer; with
   ``ORTREX_ORGEVAL`` naming a checkout of the public SLAI-T-Rex repository (never vendored),
   ORGEval's ``equivalence_check.py`` on the same files, side by side: wall and CPU seconds,
   each the best of ``--repeat`` / ``--orgeval-repeat`` runs (goal: ortrex 5x faster).
3. Symmetric models against a permuted copy and a near miss.
4. A random MILP with 1,000,000 nonzeros against a permuted, rescaled copy (fresh process:
   seconds and peak RSS; goal < 10 s and < 2 GB).

Reference: ORGEval's checker takes a median 2.7 ms (max 49 ms) per pair on the 394 bench4opt
references (../shared/reference/or_prior_work.md).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from ortrex.benchmarks.registry import reference_model_paths
from ortrex.ir.formats import read_model, to_gurobi
from ortrex.paths import benchmarks_dir
from ortrex.verifiers.equivalence.check import EQUIVALENT, check_equivalence
from ortrex.verifiers.equivalence.suite import (
    DIFFERENT_CLASSES,
    EQUIVALENT_CLASSES,
    assignment,
    bin_packing,
    disguise,
    labelled_pairs,
    symmetric_cases,
    vertex_cover,
)

console = Console(width=150)
EXPECTED_DIFFERENT = {"bench4opt": {32, 144, 145, 206, 380, 381},
                      "bench4opt_feasible": {380, 381}}


# ---------------------------------------------------------------- 1. bench4opt programs
def run_program(code: str, data: Path, workdir: Path) -> Path | None:
    """Run one reference program in ``workdir`` (it reads data.json and writes model.lp)."""
    shutil.copy(data, workdir / "data.json")
    cwd = os.getcwd()
    os.chdir(workdir)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, "reference_code", "exec"), {"__name__": "__main__"})
    except Exception as exc:  # a program that fails is reported, not fatal
        console.print(f"[red]program failed[/] in {workdir}: {type(exc).__name__}: {exc}")
    finally:
        os.chdir(cwd)
    lp = workdir / "model.lp"
    return lp if lp.exists() else None


def bench_programs(root: Path, name: str) -> dict[str, object]:
    items = [json.loads(line) for line in (root / name / "test.jsonl").open()]
    times, verdicts, unexpected = [], Counter(), []
    different = []
    with tempfile.TemporaryDirectory() as tmp:
        for k, item in enumerate(items):
            work = Path(tmp) / str(k)
            work.mkdir()
            lp = run_program(item["reference_code"], root / name / item["data_path"], work)
            number = int(item["id"].rsplit("_", 1)[1])
            if lp is None:
                verdicts["no model.lp"] += 1
                unexpected.append((number, "no model.lp"))
                continue
            t0 = time.perf_counter()
            r = check_equivalence(lp, root / name / item["reference_lp_path"], time_limit=60)
            times.append(time.perf_counter() - t0)
            verdicts[r.verdict] += 1
            expect_eq = number not in EXPECTED_DIFFERENT[name]
            if (r.verdict == EQUIVALENT) != expect_eq or r.verdict == "undecided":
                unexpected.append((number, f"{r.verdict}: {r.reason}"))
            if r.verdict != EQUIVALENT:
                different.append((number, r.reason))
    t = np.array(times)
    return {"set": name, "items": len(items), "verdicts": dict(verdicts),
            "unexpected": unexpected, "different": different,
            "pairs_per_s": len(t) / t.sum(), "median_ms": float(np.median(t) * 1e3),
            "max_ms": float(t.max() * 1e3)}


# ---------------------------------------------------------------- 2. labelled suite
def shared_models() -> list:
    seen = {}
    for f in reference_model_paths():
        m = read_model(f)
        seen.setdefault(m.content_hash, m)
    return list(seen.values())


def bench_suite(models: list, seed: int, workers: int, repeat: int = 3,
                orgeval_repeat: int = 3) -> dict[str, object]:
    t0 = time.perf_counter()
    pairs = labelled_pairs(models, seed=seed)
    build_s = time.perf_counter() - t0
    right, total, undecided = Counter(), Counter(), 0
    wrong = []
    t0 = time.perf_counter()
    for p in pairs:
        r = check_equivalence(p.a, p.b, time_limit=60)
        undecided += r.verdict == "undecided"
        ok = r.verdict != "undecided" and (r.verdict == EQUIVALENT) == p.equivalent
        total[p.cls] += 1
        right[p.cls] += ok
        if not ok:
            wrong.append((p.cls, p.a.name, r.verdict, r.reason))
    check_s = time.perf_counter() - t0
    files = bench_suite_files(pairs, workers, repeat, orgeval_repeat)
    return {"pairs": len(pairs), "build_s": build_s, "right": right, "total": total,
            "wrong": wrong, "undecided": undecided, "pairs_per_s": len(pairs) / check_s,
            "files": files}


def bench_suite_files(pairs: list, workers: int, repeat: int, orgeval_repeat: int
                      ) -> dict[str, object]:
    """The suite as files (A and B written by Gurobi's LP writer) through ``equiv --pairs``."""
    import gurobipy as gp

    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        lines, labels, written = [], [], {}
        for k, p in enumerate(pairs):
            for side, model in (("a", p.a), ("b", p.b)):
                key = id(model)
                if key not in written:
                    path = d / f"{side}{k}.lp"
                    g = to_gurobi(model, env)
                    g.write(str(path))
                    g.dispose()
                    written[key] = path.name
            lines.append({"a": written[id(p.a)], "b": written[id(p.b)], "cls": p.cls,
                          "expect": p.equivalent})
            labels.append(p)
        pairs_file = d / "pairs.jsonl"
        pairs_file.write_text("".join(json.dumps(x) + "\n" for x in lines))
        out = d / "out.jsonl"
        cmd = [sys.executable, "-m", "ortrex", "equiv", "--pairs", str(pairs_file), "--workers",
               str(workers), "--output", str(out)]
        # Both programs' bytecode is compiled before timing (as after any first run): start-up
        # is timed, compiling a fresh checkout is not.
        subprocess.run([sys.executable, "-c",
                        "import ortrex.cli, ortrex.verifiers.equivalence.pairs"], check=True)
        src = orgeval_source()
        if src is not None:
            subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {str(src)!r})"
                            "; import equivalence_check"], check=True, cwd=d)
        load = [_loadavg()]
        ours: list[tuple[float, float]] = []
        theirs: list[tuple[float, float]] = []
        orgeval = None
        for k in range(max(repeat, orgeval_repeat if src else 0)):
            if k < repeat:
                wall, cpu, proc = timed(cmd)
                if proc.returncode != 0:
                    raise SystemExit(f"ortrex equiv --pairs failed: {proc.stderr}")
                ours.append((wall, cpu))
            if src is not None and k < orgeval_repeat:
                orgeval = run_orgeval(src, d, pairs_file)
                theirs.append((orgeval["wall_s"], orgeval["cpu_s"]))  # type: ignore[arg-type]
        load.append(_loadavg())
        recs = [json.loads(x) for x in out.read_text().splitlines()]
        if orgeval is not None:
            orgeval["wall_s"] = min(w for w, _ in theirs)
            orgeval["cpu_s"] = min(c for _, c in theirs)
            orgeval["runs"] = len(theirs)
        wall, cpu = min(w for w, _ in ours), min(c for _, c in ours)
    right, wrong = Counter(), []
    for rec in recs:
        ok = rec["verdict"] in ("equivalent", "not_equivalent") and (
            (rec["verdict"] == EQUIVALENT) == rec["expect"])
        right[rec["cls"]] += ok
        if not ok:
            wrong.append((rec["cls"], rec["a"], rec["verdict"], rec["reason"]))
    env.dispose()
    return {"pairs": len(recs), "wall_s": wall, "cpu_s": cpu, "pairs_per_s": len(recs) / wall,
            "right": right, "wrong": wrong, "workers": workers, "orgeval": orgeval,
            "runs": len(ours), "load": load}


def _loadavg() -> str:
    try:
        return " ".join(Path("/proc/loadavg").read_text().split()[:3])
    except OSError:
        return "?"


def timed(cmd: list[str], cwd: Path | None = None
          ) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Run ``cmd``: (wall seconds, CPU seconds of the child, the finished process)."""
    r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    proc = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime), proc


# ORGEval's checker, run as its users run it: one process, every pair read from its files.
_ORGEVAL_RUNNER = """
import json, sys, time
sys.path.insert(0, sys.argv[1])
t0 = time.perf_counter()
from equivalence_check import check_lp_equivalence
out = []
for line in open(sys.argv[2]):
    p = json.loads(line)
    try:
        same = bool(check_lp_equivalence(p["a"], p["b"])[0])
    except Exception as exc:
        same = None
    out.append({"cls": p["cls"], "expect": p["expect"], "same": same})
json.dump({"results": out, "seconds": time.perf_counter() - t0}, open(sys.argv[3], "w"))
"""


def orgeval_source() -> Path | None:
    """ORGEval's ``evaluate`` folder in the checkout ``$ORTREX_ORGEVAL`` names (the public
    SLAI-T-Rex repository; never vendored), or None without it."""
    root = os.environ.get("ORTREX_ORGEVAL")
    if not root:
        return None
    src = Path(root) / "or_benchmark_eval" / "evaluate"
    if not (src / "equivalence_check.py").is_file():
        raise SystemExit(f"ORTREX_ORGEVAL={root}: no or_benchmark_eval/evaluate/"
                         "equivalence_check.py there")
    return src


def run_orgeval(src: Path, d: Path, pairs_file: Path) -> dict[str, object]:
    """ORGEval's ``equivalence_check.py`` on the same files, one process."""
    (d / "failure").mkdir(exist_ok=True)  # ORGEval writes failure/*.lp beside its cwd
    out = d / "orgeval.json"
    wall, cpu, proc = timed([sys.executable, "-c", _ORGEVAL_RUNNER, str(src), str(pairs_file),
                             str(out)], cwd=d)
    if proc.returncode != 0:
        raise SystemExit(f"ORGEval failed: {proc.stderr[-2000:]}")
    got = json.loads(out.read_text())
    right: Counter[str] = Counter()
    for r in got["results"]:
        right[r["cls"]] += r["same"] is not None and r["same"] == r["expect"]
    return {"wall_s": wall, "cpu_s": cpu, "right": right, "pairs": len(got["results"])}


# ---------------------------------------------------------------- 3. symmetric models
def bench_symmetric() -> list[tuple[str, str, str, float, str]]:
    rows = []
    cases = symmetric_cases()
    n = 400
    one = vertex_cover([(i, (i + 1) % n) for i in range(n)], n)
    h = n // 2
    two = vertex_cover([(i, (i + 1) % h) for i in range(h)]
                       + [(h + i, h + (i + 1) % h) for i in range(h)], n)
    big_bp = bin_packing([float(k % 7 + 1) for k in range(40)], 25, 10.0)
    cases += [("assignment 30x30, equal costs", assignment(30), None),
              ("bin packing, 40 items, 25 identical bins", big_bp, None),
              ("vertex cover of a 400-cycle vs two 200-cycles", one, two)]
    for name, model, miss in cases:
        for what, other, expect in (("permuted copy", disguise(model, 1), EQUIVALENT),
                                    ("near miss", miss, "not_equivalent")):
            if other is None:
                continue
            t0 = time.perf_counter()
            r = check_equivalence(model, other, time_limit=60)
            rows.append((name, what, r.verdict, (time.perf_counter() - t0) * 1e3,
                         "ok" if r.verdict == expect else "WRONG"))
    return rows


# ---------------------------------------------------------------- 4. scale
SCALE_CHILD = r"""
import json, resource, sys, time
from ortrex.verifiers.equivalence.check import check_equivalence
from ortrex.verifiers.equivalence.suite import disguise, random_milp
nnz = int(sys.argv[1])
a = random_milp(nnz, seed=1)
b = disguise(a, 2)
t0 = time.perf_counter()
r = check_equivalence(a, b)
t1 = time.perf_counter()
print(json.dumps({"nnz": a.nnz, "n_vars": a.num_vars, "n_rows": a.num_rows,
                  "verdict": r.verdict, "seconds": t1 - t0, "timings": r.timings,
                  "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))
"""


def bench_scale(nnz: int) -> dict[str, object]:
    out = subprocess.run([sys.executable, "-c", SCALE_CHILD, str(nnz)], capture_output=True,
                         text=True, check=True)
    return json.loads(out.stdout)


# ---------------------------------------------------------------- report
def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sections", default="1234", help="which sections to run (default 1234)")
    ap.add_argument("--nnz", type=int, default=1_000_000, help="size of the scale test")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--suite-workers", type=int, default=1,
                    help="workers of `ortrex equiv --pairs` in section 2 (default 1)")
    ap.add_argument("--repeat", type=int, default=3,
                    help="section 2: runs of ortrex, the best one counts (default 3)")
    # As many runs of each (interleaved), so that a noisy moment favours neither: one run of
    # ORGEval on this shared machine has been 14.8 s and 21.5 s within the hour.
    ap.add_argument("--orgeval-repeat", type=int, default=3,
                    help="section 2: runs of ORGEval, the best one counts (default 3)")
    args = ap.parse_args()
    root = benchmarks_dir()
    if root is None and set(args.sections) & {"1", "2"}:
        raise SystemExit("../shared/benchmarks not found (set ORTREX_BENCHMARKS)")

    if "1" in args.sections:
        t = Table(title="1. bench4opt reference programs vs reference LPs")
        for col in ("set", "items", "equivalent", "not equivalent", "unexpected",
                    "pairs/s", "median ms", "max ms"):
            t.add_column(col, justify="left" if col == "set" else "right")
        details = []
        for name in ("bench4opt", "bench4opt_feasible"):
            r = bench_programs(root, name)  # type: ignore[arg-type]
            v = r["verdicts"]
            t.add_row(name, str(r["items"]), str(v.get("equivalent", 0)),
                      str(v.get("not_equivalent", 0)), str(len(r["unexpected"])),
                      f"{r['pairs_per_s']:.0f}", f"{r['median_ms']:.2f}", f"{r['max_ms']:.1f}")
            details += [(name, n, why) for n, why in r["different"]]
            details += [(name, n, f"UNEXPECTED {why}") for n, why in r["unexpected"]]
        t.caption = "times include reading both LP files; ORGEval: median 2.7 ms, max 49 ms"
        console.print(t)
        d = Table(title="not equivalent, and why")
        for col in ("set", "item", "reason"):
            d.add_column(col)
        for name, n, why in details:
            d.add_row(name, str(n), why)
        console.print(d)

    if "2" in args.sections:
        models = shared_models()
        r = bench_suite(models, args.seed, args.suite_workers, args.repeat, args.orgeval_repeat)
        f = r["files"]
        t = Table(title=f"2. labelled suite: {r['pairs']} pairs from {len(models)} distinct "
                        "shared models, accuracy per class")
        og = f["orgeval"]
        cols = ["class", "label", "pairs", "in memory", "via files (Gurobi LP)"]
        cols += ["ORGEval (same files)"] if og else []
        for col in cols:
            t.add_column(col, justify="left" if col in ("class", "label") else "right")
        for cls in EQUIVALENT_CLASSES + DIFFERENT_CLASSES:
            n = r["total"][cls]
            label = "equivalent" if cls in EQUIVALENT_CLASSES else "not equivalent"
            t.add_row(cls, label, str(n), f"{r['right'][cls] / max(n, 1):.1%}",
                      f"{f['right'][cls] / max(n, 1):.1%}",
                      *([f"{og['right'][cls] / max(n, 1):.1%}"] if og else []))
        t.caption = (f"in memory: {r['pairs_per_s']:.0f} pairs/s (1 process); undecided: "
                     f"{r['undecided']}")
        console.print(t)
        s = Table(title="2b. end to end on the same files (Gurobi's LP writer): files read, "
                        "process start-up included")
        for col in ("checker", "pairs", "runs", "wall s (best)", "CPU s (best)", "pairs/s",
                    "right, equivalent", "right, not equivalent"):
            s.add_column(col, justify="left" if col == "checker" else "right")

        def share(right: Counter[str], classes: tuple[str, ...]) -> str:
            n = sum(r["total"][c] for c in classes)
            return f"{sum(right[c] for c in classes) / max(n, 1):.1%}"

        s.add_row(f"ortrex equiv --pairs --workers {f['workers']}", str(f["pairs"]),
                  str(f["runs"]), f"{f['wall_s']:.2f}", f"{f['cpu_s']:.2f}",
                  f"{f['pairs_per_s']:.0f}", share(f["right"], EQUIVALENT_CLASSES),
                  share(f["right"], DIFFERENT_CLASSES))
        if og:
            s.add_row("ORGEval equivalence_check.py", str(og["pairs"]), str(og["runs"]),
                      f"{og['wall_s']:.2f}", f"{og['cpu_s']:.2f}",
                      f"{og['pairs'] / og['wall_s']:.0f}", share(og["right"], EQUIVALENT_CLASSES),
                      share(og["right"], DIFFERENT_CLASSES))
            s.caption = (f"ortrex is {og['wall_s'] / f['wall_s']:.2f}x faster end to end "
                         f"(wall), {og['cpu_s'] / f['cpu_s']:.2f}x in CPU time; goal 5x. "
                         f"/proc/loadavg before {f['load'][0]}, after {f['load'][1]} "
                         f"({os.cpu_count()} CPUs)")
        else:
            s.caption = "ORGEval not run: set ORTREX_ORGEVAL to a checkout of SLAI-T-Rex"
        console.print(s)
        for cls, name, verdict, why in (r["wrong"] + f["wrong"])[:20]:
            console.print(f"[red]wrong[/] {cls} {name}: {verdict}: {why}")

    if "3" in args.sections:
        t = Table(title="3. symmetric models")
        for col in ("model", "against", "verdict", "ms", "check"):
            t.add_column(col, justify="right" if col == "ms" else "left")
        for name, what, verdict, ms, ok in bench_symmetric():
            t.add_row(name, what, verdict, f"{ms:.1f}", ok)
        console.print(t)

    if "4" in args.sections:
        r = bench_scale(args.nnz)
        t = Table(title="4. scale: random MILP vs permuted, rescaled copy (fresh process)")
        for col in ("nonzeros", "vars x rows", "verdict", "check s", "normalise s", "colour s",
                    "search s", "peak RSS MiB"):
            t.add_column(col, justify="right")
        tm = r["timings"]
        t.add_row(f"{r['nnz']:,}", f"{r['n_vars']:,} x {r['n_rows']:,}", r["verdict"],
                  f"{r['seconds']:.2f}", f"{tm['normalise']:.2f}", f"{tm.get('colour', 0):.2f}",
                  f"{tm.get('search', 0):.2f}", f"{r['peak_rss_mib']:.0f}")
        t.caption = "goal: < 10 s and < 2 GB (RSS includes building both models)"
        console.print(t)


if __name__ == "__main__":
    main()
