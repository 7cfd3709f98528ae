"""Summaries of a run (JSON and Markdown) and the comparison of two runs."""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from ortrex.benchmarks.base import BenchmarkError
from ortrex.benchmarks.registry import NAMES, TITLES
from ortrex.evaluation.results import read_results
from ortrex.served.scoring import RULES


def bench_summary(rows: list[dict[str, Any]], n_items: int, k: int,
                  unscoreable: int) -> dict[str, Any]:
    """pass@1, pass@k, mean@k, the other tolerance rules and the failure classes of one
    benchmark's result lines (items never scored count as failures)."""
    by_item: dict[str, dict[int, dict[str, Any]]] = defaultdict(dict)
    for r in rows:
        by_item[r["id"]][int(r["sample"])] = r
    denom = max(n_items, 1)
    p1 = sum(1 for s in by_item.values() if s.get(0, {}).get("passed")) / denom
    pk = sum(1 for s in by_item.values() if any(x["passed"] for x in s.values())) / denom
    mean = sum(x["passed"] for s in by_item.values() for x in s.values()) / max(n_items * k, 1)
    # Tolerance rules apply to objectives; ORGEval items (LP equivalence) have none.
    has_rules = any(r.get("rules") for r in rows)
    rules = {name: (sum(1 for s in by_item.values()
                        if (s.get(0, {}).get("rules") or {}).get(name)) / denom
                    if has_rules else None)
             for name in RULES}
    failures = Counter(s[0]["failure"] for s in by_item.values()
                       if 0 in s and not s[0]["passed"])
    return {"items": n_items, "scored": len(by_item), "k": k, "pass@1": p1, f"pass@{k}": pk,
            f"mean@{k}": mean, "pass@1 by rule": rules, "failures (sample 0)": dict(failures),
            "unscoreable": unscoreable,
            "undecided": sum(1 for s in by_item.values() if s.get(0, {}).get("failure") ==
                             "undecided")}


def write_summary(out: Path, spec: Any, runs: list[Any]) -> dict[str, Any]:
    """``summary.json`` and ``summary.md`` of a run folder."""
    from ortrex.ir.formats.text import write_atomic

    k = spec.sampling.k
    benches = {}
    for br in runs:
        ids = {it.id for it in br.items}
        rows = [r for r in read_results(br.path) if r["id"] in ids and int(r["sample"]) < k]
        benches[br.bench.name] = bench_summary(rows, len(br.items), k,
                                               sum(1 for it in br.items if it.unscoreable))
    public = [benches[n]["pass@1"] for n in NAMES if n in benches]
    summary = {"model": spec.sampling.model, "k": k, "rule": spec.rule, "benchmarks": benches,
               "average pass@1": sum(public) / len(public) if public else None}
    write_atomic(out / "summary.json", (json.dumps(summary, indent=2) + "\n").encode())
    write_atomic(out / "summary.md", markdown(summary).encode())
    return summary


def markdown(summary: dict[str, Any]) -> str:
    """The summary as Markdown: the headline table, then details per benchmark."""
    b = summary["benchmarks"]
    names = [n for n in (*NAMES, *sorted(set(b) - set(NAMES))) if n in b]
    head = ["Model", *(TITLES.get(n, n) for n in names)]
    cells = [summary["model"], *(f"{100 * b[n]['pass@1']:.2f}" for n in names)]
    if summary.get("average pass@1") is not None:
        head.append("Average")
        cells.append(f"{100 * summary['average pass@1']:.2f}")
    lines = [f"# Evaluation: {summary['model']}", "",
             f"pass@1 (%), tolerance rule `{summary['rule']}`; Average over the public "
             "benchmarks.", "", "| " + " | ".join(head) + " |",
             "|" + "---|" * len(head), "| " + " | ".join(cells) + " |", ""]
    k = summary["k"]
    lines += ["| benchmark | items | pass@1 | " + (f"pass@{k} | mean@{k} | " if k > 1 else "")
              + " | ".join(f"pass@1 {r}" for r in RULES) + " | unscoreable | undecided |",
              "|" + "---|" * (5 + len(RULES) + (2 if k > 1 else 0))]
    for n in names:
        s = b[n]
        extra = f"{100 * s[f'pass@{k}']:.2f} | {100 * s[f'mean@{k}']:.2f} | " if k > 1 else ""
        rules = " | ".join("-" if s["pass@1 by rule"][r] is None else
                           f"{100 * s['pass@1 by rule'][r]:.2f}" for r in RULES)
        lines.append(f"| {TITLES.get(n, n)} | {s['items']} | {100 * s['pass@1']:.2f} | "
                     f"{extra}{rules} | {s['unscoreable']} | {s['undecided']} |")
    lines += ["", "Failures (sample 0):", ""]
    for n in names:
        f = b[n]["failures (sample 0)"]
        text = ", ".join(f"{c} {cls}" for cls, c in sorted(f.items(), key=lambda x: -x[1]))
        lines.append(f"- {TITLES.get(n, n)}: {text or 'none'}")
    return "\n".join(lines) + "\n"


def _load_run(path: Path) -> tuple[dict[str, Any], dict[str, dict[str, bool]]]:
    summary_path = path / "summary.json"
    if not summary_path.is_file():
        raise BenchmarkError(f"{path}: not an evaluation run (no summary.json)")
    summary = json.loads(summary_path.read_text())

    passed: dict[str, dict[str, bool]] = {}
    for name in summary["benchmarks"]:
        passed[name] = {r["id"]: bool(r["passed"]) for r in read_results(path / f"{name}.jsonl")
                        if int(r["sample"]) == 0}
    return summary, passed


def compare(a: Path, b: Path) -> dict[str, Any]:
    """Per-benchmark pass@1 deltas (B - A) and the items that flipped."""
    sa, pa = _load_run(a)
    sb, pb = _load_run(b)
    out: dict[str, Any] = {"a": str(a), "b": str(b), "benchmarks": {}}
    for name in [n for n in sa["benchmarks"] if n in sb["benchmarks"]]:
        common = sorted(set(pa[name]) & set(pb[name]))
        out["benchmarks"][name] = {
            "a": sa["benchmarks"][name]["pass@1"], "b": sb["benchmarks"][name]["pass@1"],
            "delta": sb["benchmarks"][name]["pass@1"] - sa["benchmarks"][name]["pass@1"],
            "fixed": [i for i in common if pb[name][i] and not pa[name][i]],
            "broken": [i for i in common if pa[name][i] and not pb[name][i]]}
    return out
