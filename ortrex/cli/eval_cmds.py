"""``ortrex eval``: score a served model on the OR benchmarks; compare runs; self-test; the
held-out split."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ortrex.cli.app import DbOption, UsageError, app, store_path
from ortrex.cli.options import (
    DEFAULT_WORKERS,
    CpusPerTaskOption,
    ExecutorOption,
    RayAddressOption,
    executor,
    require_sandbox,
)

eval_app = typer.Typer(rich_markup_mode=None,
                       help="Evaluate a served model (any OpenAI-compatible endpoint) on "
                            "NL4OPT, OptiBench, B4O-Feasible, B4O-ORGEval and ortrex-heldout.")
app.add_typer(eval_app, name="eval")

DataDirOption = Annotated[Path | None, typer.Option(
    help="Benchmark data (default: $ORTREX_BENCHMARKS or ../shared/benchmarks).",
    show_default=False)]


def _pct(x: float | None) -> str:
    return "" if x is None else f"{100 * x:.2f}"


@eval_app.callback(invoke_without_command=True)
def eval_cmd(
    ctx: typer.Context,
    benchmarks: Annotated[str, typer.Option(help="Comma-separated: nl4opt, optibench, "
                                            "b4o-feasible, b4o-orgeval, ortrex-heldout; or "
                                            "all.")] = "all",
    base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible base URL, e.g. "
                                                 "http://localhost:8000/v1.",
                                                 show_default=False)] = None,
    model: Annotated[str | None, typer.Option(help="Served model name.",
                                              show_default=False)] = None,
    k: Annotated[int, typer.Option(min=1, help="Samples per item (pass@k, mean@k).")] = 1,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    top_p: Annotated[float, typer.Option(help="Nucleus sampling.")] = 1.0,
    max_tokens: Annotated[int, typer.Option(min=1, help="Completion budget.")] = 8192,
    seed: Annotated[int, typer.Option(help="Seed of sample 0 (sample i uses seed + i).")] = 42,
    limit: Annotated[int | None, typer.Option(min=1, help="First N items per benchmark.",
                                              show_default=False)] = None,
    workers: Annotated[int, typer.Option(min=1, help="Sandboxes scoring in parallel (on Ray: "
                                         "the CPU slots of a local Ray).")] = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    concurrency: Annotated[int, typer.Option(min=1, help="Requests in flight.")] = 16,
    output: Annotated[Path | None, typer.Option(help="Results folder (default: eval-runs/"
                                                "<model>-<settings hash>; a rerun resumes "
                                                "it).", show_default=False)] = None,
    shots: Annotated[int, typer.Option(min=0, help="Few-shot examples (needs --pool).")] = 0,
    pool: Annotated[Path | None, typer.Option(help="Few-shot pool: JSONL with question and "
                                              "answer (optional id).", show_default=False)
                    ] = None,
    rule: Annotated[str, typer.Option(help="Tolerance rule: default, abs_1e-6, round_5pct, "
                                      "sirl.")] = "default",
    exec_timeout: Annotated[float, typer.Option(help="Seconds per program.")] = 120.0,
    request_timeout: Annotated[float, typer.Option(help="Seconds per request.")] = 600.0,
    retries: Annotated[int, typer.Option(min=0, help="Retries per request (429, 5xx, "
                                         "timeouts), with exponential backoff.")] = 4,
    api_key: Annotated[str | None, typer.Option(envvar="OPENAI_API_KEY", help="API key.",
                                                show_default=False)] = None,
    data_dir: DataDirOption = None,
    db: DbOption = None,
) -> None:
    """Score a served model: a progress bar per benchmark; results, summary and manifest."""
    if ctx.invoked_subcommand is not None:
        return
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from ortrex.benchmarks.registry import parse_names, registered
    from ortrex.evaluation.runner import EvalSpec, run_eval
    from ortrex.served.client import Sampling
    from ortrex.ui import EtaColumn, console, progress

    if not base_url or not model:
        raise UsageError("give --base-url and --model")
    names = parse_names(benchmarks)
    needs_store = any(registered()[n].needs_store for n in names)
    spec = EvalSpec(names, base_url, Sampling(model, temperature, top_p, max_tokens, seed, k),
                    output, limit, workers, str(data_dir) if data_dir else None, rule, shots,
                    pool, exec_timeout, request_timeout, concurrency, api_key,
                    str(store_path(db)) if needs_store else None, retries)
    require_sandbox()  # every answer runs in it: refuse now rather than score all zeros
    with progress(TextColumn("[bold]{task.description}[/]"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[rate]}"), TimeElapsedColumn(), EtaColumn()) as bar:
        tasks: dict[str, int] = {}
        import time

        starts: dict[str, tuple[float, int]] = {}

        def update(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total, rate="")
                starts[name] = (time.perf_counter(), done)
            t0, d0 = starts[name]
            rate = (done - d0) / max(time.perf_counter() - t0, 1e-9)
            bar.update(tasks[name], completed=done, rate=f"{rate:.1f} items/s")

        if executor_kind == "local" and ray_address is None:
            out, summary = run_eval(spec, update)  # scoring threads with warm sandboxes
        else:
            ex = executor(workers, executor_kind, ray_address, cpus_per_task, 0)
            try:
                out, summary = run_eval(spec, update, ex)
            finally:
                ex.close()
    t = Table(title=f"{model}: pass@1 (%), rule {rule}")
    t.add_column("benchmark")
    for col in ("items", "pass@1", *((f"pass@{k}", f"mean@{k}") if k > 1 else ()),
                "unscoreable", "undecided", "top failures"):
        t.add_column(col, justify="right")
    for name, s in summary["benchmarks"].items():
        fails = ", ".join(f"{c} {f}" for f, c in sorted(s["failures (sample 0)"].items(),
                                                        key=lambda x: -x[1])[:3])
        t.add_row(name, str(s["items"]), _pct(s["pass@1"]),
                  *((_pct(s[f"pass@{k}"]), _pct(s[f"mean@{k}"])) if k > 1 else ()),
                  str(s["unscoreable"]), str(s["undecided"]), fails)
    if summary["average pass@1"] is not None:
        t.add_row("Average", "", _pct(summary["average pass@1"]))
    console.print(t)
    console.print(f"results: {out} (summary.md, summary.json, manifest.json, <benchmark>.jsonl)")


@eval_app.command("compare")
def eval_compare_cmd(
    run_a: Annotated[Path, typer.Argument(help="Results folder A.")],
    run_b: Annotated[Path, typer.Argument(help="Results folder B.")],
    show: Annotated[int, typer.Option(help="Flipped items listed per benchmark.")] = 20,
) -> None:
    """Per-benchmark pass@1 deltas (B - A) and the items that flipped."""
    from ortrex.evaluation.summary import compare
    from ortrex.ui import console

    c = compare(run_a, run_b)
    t = Table(title=f"B - A: {run_b} vs {run_a}")
    for col in ("benchmark", "A", "B", "delta", "fixed", "broken"):
        t.add_column(col, justify="right")
    for name, r in c["benchmarks"].items():
        t.add_row(name, _pct(r["a"]), _pct(r["b"]), f"{100 * r['delta']:+.2f}",
                  str(len(r["fixed"])), str(len(r["broken"])))
    console.print(t)
    for name, r in c["benchmarks"].items():
        for what in ("fixed", "broken"):
            if r[what]:
                more = f" (+{len(r[what]) - show} more)" if len(r[what]) > show else ""
                console.print(f"{name} {what}: {', '.join(r[what][:show])}{more}")


@eval_app.command("selftest")
def eval_selftest_cmd(
    benchmarks: Annotated[str, typer.Option(help="Comma-separated benchmarks, or all.")
                          ] = "all",
    workers: Annotated[int, typer.Option(min=1, help="Sandboxes in parallel.")]
    = DEFAULT_WORKERS,
    output: Annotated[Path | None, typer.Option(help="Write the findings as JSON here.",
                                                show_default=False)] = None,
    data_dir: DataDirOption = None,
) -> None:
    """Score the reference programs; list the items that can never pass, with why."""
    from rich.progress import BarColumn, MofNCompleteColumn, TextColumn

    from ortrex.benchmarks.registry import load, parse_names, registered
    from ortrex.evaluation.selftest import conflicts, self_test
    from ortrex.ui import console, progress

    # Every registered benchmark read from the data directory (the held-out split lives in a
    # store and has no reference programs).
    names = [n for n in parse_names(benchmarks) if not registered()[n].needs_store]
    loaded = [load(n, data_dir) for n in names]
    results = []
    with progress(TextColumn("[bold]{task.description}[/]"), BarColumn(), MofNCompleteColumn(),
                  transient=True) as bar:
        for b in loaded:
            task = bar.add_task(b.name, total=None)
            results.append(self_test(b, workers, progress=lambda d, n, t=task: bar.update(
                t, completed=d, total=n)))
    t = Table(title="Items that can never pass (the reference program does not reach the "
                    "reference answer)")
    for col in ("benchmark", "item", "failure", "why"):
        t.add_column(col)
    for st in results:
        for r in st.never_pass:
            t.add_row(st.benchmark, r["id"], str(r["failure"]), r["detail"][:90])
    console.print(t)
    for st in results:
        console.print(f"{st.benchmark}: {st.items} items, {len(st.never_pass)} can never pass, "
                      f"{len(st.twins)} paraphrase twin pairs")
    clash = conflicts(loaded)
    if clash:
        shown = ", ".join(f"{c['a']} {c['a_answer']:g} vs {c['b']} {c['b_answer']:g}"
                          for c in clash[:8])
        console.print(f"{len(clash)} questions appear in two benchmarks with ground truths that "
                      f"disagree beyond the tolerance: {shown}{' ...' if len(clash) > 8 else ''}")
    if output:
        from ortrex.ir.formats.text import write_atomic

        data = [s.to_dict() for s in results]
        for s in data:
            s["conflicts"] = [c for c in clash if c["a"].startswith(s["benchmark"]) or
                              c["b"].startswith(s["benchmark"])]
        write_atomic(output, (json.dumps(data, indent=2) + "\n").encode())


@eval_app.command("heldout")
def eval_heldout_cmd(
    fraction: Annotated[float, typer.Option(help="Share of instances held out.")] = 0.05,
    seed: Annotated[int, typer.Option(help="Split seed.")] = 0,
    db: DbOption = None,
) -> None:
    """Hold out a split of verified SFT examples (by instance) as ortrex-heldout; exports leave
    them out."""
    from ortrex.benchmarks.heldout import make_split
    from ortrex.ui import console

    path = store_path(db)
    if not path.exists():
        raise UsageError(f"{path}: no store (run `ortrex pipeline` first, or give --db)")
    r = make_split(path, fraction, seed)
    console.print(f"split {r['split']}: {r['instances']} instances, {r['documents']} documents "
                  f"held out ({r['new_edges']} new lineage edges)")
