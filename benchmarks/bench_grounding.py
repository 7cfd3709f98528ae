"""Grounding benchmark: how often honest models are refused, how often a memorised answer gets
through, and what the checks cost per model.

1. **False positives** (honest models refused as ``trivial_model`` / ``ungrounded_model``):
   B4O-Feasible's reference programs scored as answers (the self-test), the 200 public seeds
   through ``import-seeds``, and the default pipeline's corpus (every accepted document's
   statement and data files against its instance).
2. **Leaks**: for every item of every benchmark with a numeric answer (NL4OPT, OptiBench,
   B4O-Feasible and SIRL's IndustryOR, MAMO, OptMATH, corrected NL4OPT/OptiBench), models
   that type the answer in, in seven ways, go through the parent's own path
   (``resolve_capture`` on the MPS a program would leave): the share that would score. An
   answer the statement itself gives cannot be told from a datum; those items are counted.
3. **Cost**: the checks' wall time per model, next to the resolve without them.
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from ortrex.ir.formats import dumps, loads
from ortrex.paths import benchmarks_dir
from ortrex.verifiers.grounding import Grounds
from ortrex.verifiers.resolve import CaptureError, resolve_capture

console = Console(width=150)
GROUNDING = ("trivial_model", "ungrounded_model")


def _num(v: float) -> str:
    return repr(float(v))


def cheats(a: float, grounds: Grounds) -> dict[str, str]:
    """LP text of models whose optimum is the answer ``a`` typed in (minimised)."""
    big = _num(10 * abs(a) + 10)
    part = round(0.4 * a, 2)
    out = {
        "bound": f"Minimize\n obj: x\nSubject To\n cap: x + y <= {big}\nBounds\n"
                 f" x >= {_num(a)}\nEnd\n",
        "constant": f"Minimize\n obj: x + y + {_num(a)}\nSubject To\n c: x - y <= 10\n"
                    "Bounds\n x <= 10\n y <= 10\nEnd\n",
        "row": f"Minimize\n obj: x + y\nSubject To\n c1: x + y >= {_num(a)}\n c2: x - y = 0\n"
               "Bounds\n x free\n y free\nEnd\n",
        "scaled": f"Minimize\n obj: 2 x + 2 y\nSubject To\n c1: x + y >= {_num(a / 2)}\n"
                  " c2: x - y = 0\nBounds\n x free\n y free\nEnd\n",
        "split": f"Minimize\n obj: x + y\nSubject To\n c1: x >= {_num(part)}\n"
                 f" c2: y >= {_num(a - part)}\n c3: x + y <= {big}\nBounds\n x free\n"
                 " y free\nEnd\n",
    }
    d = [float(v) for v in grounds.evidence[:3]]
    if len(d) >= 2 and a > 0:  # the data as costs, the answer as a requirement
        terms = " + ".join(f"{_num(c)} x{k}" for k, c in enumerate(d))
        out["padded"] = (f"Minimize\n obj: {terms}\nSubject To\n need: {terms} >= {_num(a)}\n"
                         f" cap: {' + '.join(f'x{k}' for k in range(len(d)))} <= {big}\nEnd\n")
        out["weighted"] = (f"Minimize\n obj: {terms}\nSubject To\n need: {terms} >= "
                           f"{_num(a)}\n" + "".join(f" d{k}: x{k} <= {_num(c)}\n"
                                                      for k, c in enumerate(d)) + "End\n")
    return out


def _sirl(path: Path) -> list[tuple[str, float]]:
    text = path.read_text()
    try:
        rows = json.loads(text)
        rows = rows if isinstance(rows, list) else [rows]
    except ValueError:
        rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    out = []
    for r in rows:
        try:
            out.append((r["en_question"], float(r["en_answer"])))
        except (KeyError, TypeError, ValueError):
            continue
    return out


def leak_sets(limit: int | None) -> dict[str, list[tuple[str, float, dict[str, str]]]]:
    from ortrex.benchmarks.registry import load

    sets: dict[str, list[tuple[str, float, dict[str, str]]]] = {}
    for name in ("nl4opt", "optibench", "b4o-feasible"):
        sets[name] = [(it.question, it.answer, it.files) for it in load(name).items
                      if it.answer is not None and not it.unscoreable]
    sirl = benchmarks_dir() / "sirl"
    for f in sorted(sirl.glob("*.json*")) if sirl.is_dir() else []:
        sets["sirl/" + f.stem] = [(q, a, {}) for q, a in _sirl(f)]
    if limit:
        sets = {k: v[:: max(1, len(v) // limit)][:limit] for k, v in sets.items()}
    return sets


def _given(g: Grounds, a: float) -> bool:
    """Whether the answer is in the statement, one of its numbers in other units, or one
    arithmetic step from two of them (a product of two decimals): a model typing it in looks
    like one deriving it."""
    v = np.array([abs(a)])
    return bool(g.direct(v)[0] or g.unary(v, shifted=False)[0] or
                (g.derived(v)[0] and g.specific(v)[0]))


def bench_leaks(limit: int | None) -> tuple[Table, list[float]]:
    sets = leak_sets(limit)
    forms = ("bound", "constant", "row", "scaled", "split", "padded", "weighted")
    table = Table("benchmark", "items", "answer given", *forms, "any form", "any (all items)",
                  title="Memorised answers that would score, on items whose answer the "
                        "statement does not give (leaked / tried)")
    costs: list[float] = []
    for name, items in sets.items():
        tried, leaked, given, anyleak, anyall = Counter(), Counter(), 0, 0, 0
        for q, a, files in items:
            g = Grounds.of(q, files)
            hidden = not _given(g, a)
            given += not hidden
            got = False
            for form, lp in cheats(a, g).items():
                mps = dumps(loads(lp, "lp", form), "mps").encode()
                t0 = time.perf_counter()
                try:
                    r = resolve_capture(mps, 30.0, g)
                except CaptureError:
                    continue
                costs.append(time.perf_counter() - t0)
                ok = r.status == "optimal" and not r.trivial and not r.ungrounded and \
                    r.objective is not None and abs(r.objective - a) <= 1e-6 * max(1, abs(a))
                got |= ok
                if hidden:
                    tried[form] += 1
                    leaked[form] += ok
            anyleak += got and hidden
            anyall += got
        n = len(items)
        table.add_row(name, str(n), f"{given} ({given / max(n, 1):.0%})",
                      *(f"{leaked[f]}/{tried[f]} ({leaked[f] / max(tried[f], 1):.1%})"
                        for f in forms), f"{anyleak / max(n - given, 1):.1%}",
                      f"{anyall / max(n, 1):.1%}")
    return table, costs


def bench_b4o(workers: int) -> dict[str, object]:
    from ortrex.benchmarks.registry import load
    from ortrex.evaluation.selftest import self_test

    b = load("b4o-feasible")
    t0 = time.perf_counter()
    st = self_test(b, workers=workers)
    refs = sum(1 for i in b.items if i.reference_code)
    reasons = Counter(x["failure"] for x in st.never_pass)
    flagged = [x for x in st.never_pass if x["failure"] in GROUNDING]
    return {"set": "B4O-Feasible references", "models": refs, "refused": len(flagged),
            "reasons": dict(reasons), "seconds": time.perf_counter() - t0,
            "examples": [f"{x['id']}: {x['detail'][:90]}" for x in flagged]}


def bench_seeds(workers: int, d: Path) -> dict[str, object] | None:
    from ortrex.engine.ingest.seeds import import_seeds
    from ortrex.store import Store

    path = benchmarks_dir().parent / "seeds" / "public_seed.jsonl"
    if not path.is_file():
        return None
    t0 = time.perf_counter()
    with Store(d / "seeds.duckdb", create=True) as s:
        rep = import_seeds(s, path, workers=workers)
        rows = s.query("SELECT reject_reason, left(reject_detail, 90) FROM documents "
                       "WHERE reject_reason IN ('trivial_model', 'ungrounded_model')").rows()
    return {"set": "public seeds", "models": rep.solved, "refused": len(rows),
            "reasons": dict(rep.reasons), "seconds": time.perf_counter() - t0,
            "examples": [f"{r}: {x}" for r, x in rows]}


def bench_corpus(count: int, workers: int, d: Path) -> dict[str, object]:
    from ortrex.engine.documents.render_job import RenderSpec, run_render
    from ortrex.engine.families import REGISTRY
    from ortrex.engine.generate.job import JobSpec, run_job
    from ortrex.store import Store
    from ortrex.store.records import load_instance
    from ortrex.verifiers.resolve import judge
    from ortrex.verifiers.solvers import SolveStatus, solve

    with Store(d / "corpus.duckdb", create=True) as s:
        run_job(s, JobSpec(tuple(sorted(REGISTRY)), count, seed=0), workers=workers)
        run_render(s, RenderSpec(kinds=("cpt",)), workers=workers)
        rows = s.query("SELECT d.instance_id, d.form, coalesce(d.statement, d.text), "
                       "d.data_files, i.family FROM documents d JOIN instances i ON "
                       "i.id = d.instance_id WHERE d.status = 'accepted'").rows()
        models = {iid: load_instance(s, iid) for iid in {r[0] for r in rows}}
    t0 = time.perf_counter()
    solved: dict[str, object] = {}
    flagged, costs = [], []
    for iid, form, text, files, family in rows:
        m = models[iid]
        if iid not in solved:
            solved[iid] = solve(m, "highs", time_limit=30, threads=1, keep_solution=True)
        res = solved[iid]
        if res.status is not SolveStatus.OPTIMAL or res.x is None:  # type: ignore[attr-defined]
            continue

        def again(mm: object) -> tuple[str, float | None]:
            r = solve(mm, "highs", time_limit=30, threads=1)  # type: ignore[arg-type]
            return r.status.value, r.objective

        files = json.loads(files) if isinstance(files, str) else (files or {})
        t1 = time.perf_counter()
        v = judge(m, res.x, res.objective, Grounds.of(text, files), again)  # type: ignore[attr-defined]
        costs.append(time.perf_counter() - t1)
        if v.trivial or v.ungrounded:
            flagged.append(f"{family}/{form}: {(v.trivial or v.ungrounded)[:90]}")
    return {"set": f"pipeline corpus ({count} instances, cpt)", "models": len(rows),
            "refused": len(flagged), "reasons": dict(Counter(f.split(":")[0] for f in flagged)),
            "seconds": time.perf_counter() - t0, "examples": flagged[:8],
            "median_ms": float(np.median(costs) * 1e3) if costs else 0.0}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--count", type=int, default=100, help="pipeline instances (its default)")
    ap.add_argument("--limit", type=int, default=None,
                    help="items per benchmark for the leak table (default: all)")
    ap.add_argument("--skip", default="", help="comma list of: b4o, seeds, corpus, leaks")
    args = ap.parse_args()
    warnings.simplefilter("ignore")  # the cheats' objective constants: read as intended
    skip = set(filter(None, args.skip.split(",")))
    honest = []
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        if "b4o" not in skip:
            honest.append(bench_b4o(args.workers))
        if "seeds" not in skip:
            got = bench_seeds(args.workers, d)
            if got:
                honest.append(got)
        if "corpus" not in skip:
            honest.append(bench_corpus(args.count, args.workers, d))
    t = Table("honest set", "models", "refused (grounding)", "false-positive rate", "seconds",
              title="Honest models refused as trivial_model / ungrounded_model")
    for h in honest:
        n, k = int(h["models"]), int(h["refused"])  # type: ignore[call-overload]
        t.add_row(str(h["set"]), str(n), str(k), f"{k / max(n, 1):.2%}", f"{h['seconds']:.0f}")
    console.print(t)
    for h in honest:
        for e in h["examples"]:  # type: ignore[attr-defined]
            console.print(f"  {h['set']}: {e}")
    if "leaks" not in skip:
        table, costs = bench_leaks(args.limit)
        console.print(table)
        c = np.array(costs)
        console.print(f"resolve with both checks, per cheat model: median {np.median(c) * 1e3:.0f}"
                      f" ms, p95 {np.percentile(c, 95) * 1e3:.0f} ms over {c.size} models")
    for h in honest:
        if "median_ms" in h:
            console.print(f"checks per honest corpus model (solve excluded): median "
                          f"{h['median_ms']:.0f} ms")


if __name__ == "__main__":
    main()
