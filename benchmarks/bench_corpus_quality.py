"""Corpus quality of template-only statements next to the public benchmarks.

A 1,000-instance corpus (all 25 families in turn, small and medium sizes, the three forms in
turn, the default layout draw: situations mostly, specification sheets sometimes) is rendered
without any LLM and measured with ``ortrex.reports.quality`` next to NL4OPT, OptiBench,
B4O-Feasible, B4O-ORGEval and the 200 real seeds: distinct-3/4 (numbers as one token),
vocabulary per 25k tokens, unique openings, shared 15-token prefixes within a family, sentence
skeletons per 100 sentences, length percentiles and the share of statements that declare
variables. It also counts language-gate findings, modelling artefacts in situation statements
and the prompt length of each form (DPS inlines one data file).

Goals (issue 13, template-only): distinct-4 >= 0.55, unique openings >= 80%, skeletons >= 60
per 100, vocabulary >= 1,500 per 25k tokens, declarations <= 20%, 0 language findings.

The ``clean_cot`` reasoning of each statement (``ortrex.render.reasoning``: the thinking an SFT
example teaches) is measured the same way next to the five-line checklist it replaced (issue
19's goal: distinct-4 of reasoning text >= 0.5, no language findings).

    python benchmarks/bench_corpus_quality.py [--instances 1000] [--seed 0] [--json out.json]
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from rich.console import Console
from rich.table import Table

from ortrex.engine.families import REGISTRY
from ortrex.paths import benchmarks_dir
from ortrex.render.documents import thinking, user_turn
from ortrex.render.statement import FORMS, render_statement
from ortrex.reports.quality import (
    GOALS,
    LABELS,
    goal_text,
    measure,
    meets,
    tokens,
)
from ortrex.verifiers.language import artefacts, check_language

console = Console(width=160)
# The corpus this issue started from (issue 13's table: 2,767 accepted documents).
BEFORE = {"distinct_4": 0.28, "vocabulary": 746, "unique_openings": 0.037,
          "skeletons_per_100": 8.8, "declares_variables": 1.0}


def template_corpus(n: int, seed: int) -> tuple[list, list[str], list[str]]:
    """``n`` statements, one per instance: (statements, families, layouts)."""
    names = sorted(REGISTRY)
    out, fams = [], []
    for k in range(n):
        family = names[k % len(names)]
        size = "medium" if k % 4 == 3 else "small"
        sm = REGISTRY[family].sample(np.random.default_rng([seed, k]), size)
        form = FORMS[(k // len(names)) % len(FORMS)]
        out.append((sm, render_statement(sm, form, seed=seed * 100_003 + k)))
        fams.append(family)
    return out, fams, [st.layout for _, st in out]


def _checklist(sm: object) -> str:
    """The five-line clean_cot checklist this corpus had before issue 19 (for comparison)."""
    dom = {"C": "continuous", "I": "integer", "B": "binary (0/1)"}
    o = sm.objective  # type: ignore[attr-defined]
    return "\n".join([
        "Modelling checklist:",
        "1. Variable domains: " + "; ".join(f"{v.name} is {dom[v.vtype]}"
                                            for v in sm.variables) + ".",  # type: ignore[attr-defined]
        f"2. Objective direction: {'minimize' if o.sense == 'min' else 'maximize'} the "
        f"{o.description}.",
        "3. Critical constraints: " + " ".join(c.meaning for c in sm.constraints),  # type: ignore[attr-defined]
        "4. Ratios and nonlinear terms: none, every constraint and the objective are linear."])


def references() -> dict[str, list[str]]:
    """The statements of the shared public benchmarks and the real seeds."""
    from ortrex.benchmarks.registry import NAMES, TITLES, load

    out: dict[str, list[str]] = {}
    for name in NAMES:
        out[TITLES[name]] = list(dict.fromkeys(i.question for i in load(name).items))
    root = benchmarks_dir()
    seeds = root.parent / "seeds" / "public_seed.jsonl" if root else None
    if seeds is not None and seeds.is_file():
        with open(seeds, encoding="utf-8") as fh:
            out["real seeds"] = [json.loads(line)["problem"] for line in fh if line.strip()]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--instances", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=None, help="write the figures here")
    args = ap.parse_args()
    if benchmarks_dir() is None:
        console.print("[red]the shared benchmark data (../shared/benchmarks) is missing")
        return 2

    t0 = time.perf_counter()
    corpus, families, layouts = template_corpus(args.instances, args.seed)
    seconds = time.perf_counter() - t0
    texts = [st.text for _, st in corpus]
    situation = [st.text for _, st in corpus if st.layout.startswith("situation:")]
    corpora = {"ortrex (template-only)": measure(texts, families, seed=args.seed),
               "ortrex situations only": measure(situation, seed=args.seed)}
    for name, ref in references().items():
        corpora[name] = measure(ref, seed=args.seed)

    table = Table(title=f"Corpus quality: {len(texts):,} template-only statements "
                        f"({len(texts) / seconds:,.0f} statements/s) next to the benchmarks")
    table.add_column("measure (numbers as one token)")
    for name in corpora:
        table.add_column(name, justify="right")
    table.add_column("before", justify="right")
    table.add_column("goal", justify="right")
    dicts = {n: q.to_dict() for n, q in corpora.items()}
    for m, label in LABELS.items():
        cells = [f"{d[m]:,}" if isinstance(d[m], int) else f"{d[m]:g}" for d in dicts.values()]
        before = BEFORE.get(m)
        table.add_row(label, *cells, "" if before is None else f"{before:g}", goal_text(m))
    console.print(table)

    # Language, artefacts, layouts and prompt lengths of the template corpus.
    findings = Counter()
    for sm, st in corpus:
        names = frozenset(e for s in sm.sets for e in s.elements)
        for f in check_language(st.text, names).findings:
            findings[f.code] += 1
    with_artefacts = sum(bool(artefacts(t)) for t in situation)
    prompt = {f: statistics.median(len(tokens(user_turn(st))) for _, st in corpus
                                   if st.form == f) for f in FORMS}
    kinds = Counter(x.split(":")[0] for x in layouts)
    extra = Table(title="Gates and shapes of the template corpus")
    extra.add_column("figure")
    extra.add_column("value", justify="right")
    extra.add_row("language-gate findings (statements)", f"{sum(findings.values())}"
                  + (f" ({dict(findings)})" if findings else ""))
    extra.add_row("situation statements with a modelling artefact", f"{with_artefacts}")
    extra.add_row("situation / specification statements",
                  f"{kinds['situation']} / {kinds['specification']}")
    for f in FORMS:
        extra.add_row(f"median prompt tokens, {f}", f"{prompt[f]:.0f}")
    extra.add_row("DPS / DP prompt length", f"{prompt['DPS'] / prompt['DP']:.2f}")
    console.print(extra)

    # The clean_cot reasoning of every statement, next to the checklist it replaced.
    thoughts = [thinking(sm, st) for sm, st in corpus]
    reason_q = measure(thoughts, families, seed=args.seed).to_dict()
    before_q = measure([_checklist(sm) for sm, _ in corpus], families, seed=args.seed).to_dict()
    reason_findings = Counter()
    for (sm, _), text in zip(corpus, thoughts, strict=True):
        names = frozenset(e for s in sm.sets for e in s.elements)
        for f in check_language(text, names).findings:
            reason_findings[f.code] += 1
    rt = Table(title="clean_cot reasoning (the thinking channel) vs the checklist it replaced")
    rt.add_column("measure (numbers as one token)")
    rt.add_column("reasoning", justify="right")
    rt.add_column("five-line checklist", justify="right")
    for m in ("distinct_3", "distinct_4", "vocabulary", "length_p50", "length_p90"):
        rt.add_row(LABELS[m], f"{reason_q[m]:g}", f"{before_q[m]:g}")
    rt.add_row("language-gate findings", str(sum(reason_findings.values())), "")
    console.print(rt)

    ours = corpora["ortrex (template-only)"]
    ok = meets(ours)
    ok["language findings = 0"] = not findings
    ok["reasoning distinct-4 >= 0.5"] = reason_q["distinct_4"] >= 0.5
    ok["reasoning language findings = 0"] = not reason_findings
    goals = Table(title="Goals, template-only")
    goals.add_column("goal")
    goals.add_column("value", justify="right")
    goals.add_column("met")
    d = ours.to_dict()
    for m, op, v in GOALS:
        goals.add_row(f"{LABELS[m]} {op} {v:g}", f"{d[m]:g}",
                      "[green]yes" if ok[m] else "[red]no")
    goals.add_row("language findings = 0", str(sum(findings.values())),
                  "[green]yes" if not findings else "[red]no")
    goals.add_row("reasoning distinct-4 >= 0.5", f"{reason_q['distinct_4']:g}",
                  "[green]yes" if ok["reasoning distinct-4 >= 0.5"] else "[red]no")
    goals.add_row("reasoning language findings = 0", str(sum(reason_findings.values())),
                  "[green]yes" if not reason_findings else "[red]no")
    console.print(goals)
    if args.json:
        args.json.write_text(json.dumps({
            "corpora": dicts, "language_findings": dict(findings),
            "reasoning": reason_q, "checklist": before_q,
            "reasoning_language_findings": dict(reason_findings),
            "situation_artefacts": with_artefacts, "layouts": dict(kinds),
            "median_prompt_tokens": prompt, "goals_met": ok, "seconds": seconds}, indent=2))
    return 0 if all(ok.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
