"""The clean flywheel: ``ortrex distill`` (a served model answers corpus problems; answers are
scored and diagnosed) and ``ortrex clean`` (repairs reviewed, validated and exported)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ortrex.cli.app import DbOption, UsageError, app, store_path
from ortrex.cli.options import DEFAULT_WORKERS, require_sandbox

BaseUrl = Annotated[str | None, typer.Option(help="OpenAI-compatible base URL, e.g. "
                                             "http://localhost:8000/v1.", show_default=False)]
Model = Annotated[str | None, typer.Option(help="Served model name.", show_default=False)]
ProblemsFrom = Annotated[str | None, typer.Option(
    "--from", help="SQL filter over the problems: family, form, domain, difficulty_band, "
    "n_vars, n_rows, objective, style, document_id, instance_id.", show_default=False)]
AnswersFrom = Annotated[str | None, typer.Option(
    "--from", help="SQL filter over the answers: model, family, form, mistake, sample, "
    "document_id, run_id.", show_default=False)]
Limit = Annotated[int | None, typer.Option(min=1, help="At most N items.", show_default=False)]
Workers = Annotated[int, typer.Option(min=1, help="Sandboxes scoring in parallel.")]
Concurrency = Annotated[int, typer.Option(min=1, help="Requests in flight.")]
RequestTimeout = Annotated[float, typer.Option(help="Seconds per request.")]
Retries = Annotated[int, typer.Option(min=0, help="Retries per request (429, 5xx, "
                                      "timeouts), with exponential backoff.")]
ExecTimeout = Annotated[float, typer.Option(help="Seconds per program.")]
Cache = Annotated[Path | None, typer.Option(help="Completion cache (default: ortrex-cache/ "
                                            "beside the store).", show_default=False)]
ApiKey = Annotated[str | None, typer.Option(envvar="OPENAI_API_KEY", help="API key.",
                                            show_default=False)]


@contextmanager
def _bar(what: str) -> Iterator[Callable[[int, int, str], None]]:
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from ortrex.ui import EtaColumn, RateColumn, progress

    with progress(TextColumn(f"[bold]{what}"), BarColumn(), MofNCompleteColumn(), RateColumn(),
                  TimeElapsedColumn(), EtaColumn(), TextColumn("{task.fields[note]}"),
                  transient=True) as bar:
        task = bar.add_task(what, total=None, note="")

        def update(done: int, total: int, note: str) -> None:
            bar.update(task, completed=done, total=total, note=note)

        yield update


def _store(db: Path | None) -> object:
    from ortrex.store import Store

    path = store_path(db)
    if not path.exists():
        raise UsageError(f"{path}: no store (run `ortrex pipeline` first, or give --db)")
    return Store(path)


@app.command("distill")
def distill_cmd(
    base_url: BaseUrl = None,
    model: Model = None,
    where: ProblemsFrom = None,
    k: Annotated[int, typer.Option(min=1, help="Answers per problem (sample i uses seed + i).")
                 ] = 1,
    limit: Limit = None,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    top_p: Annotated[float, typer.Option(help="Nucleus sampling.")] = 1.0,
    max_tokens: Annotated[int, typer.Option(min=1, help="Completion budget.")] = 8192,
    seed: Annotated[int, typer.Option(help="Seed of sample 0.")] = 42,
    workers: Workers = DEFAULT_WORKERS,
    concurrency: Concurrency = 16,
    request_timeout: RequestTimeout = 600.0,
    retries: Retries = 4,
    exec_timeout: ExecTimeout = 60.0,
    cache: Cache = None,
    api_key: ApiKey = None,
    db: DbOption = None,
) -> None:
    """Ask a served model to answer verified corpus problems (ortrex eval's prompts); score and
    diagnose every answer against its verified instance; store answers and diagnoses (a rerun
    resumes: cached completions are not asked again)."""
    from ortrex.flywheel.distill import DistillSpec, Served, run_distill
    from ortrex.served.client import Sampling
    from ortrex.ui import console

    if not base_url or not model:
        raise UsageError("give --base-url and --model")
    spec = DistillSpec(Served(base_url, concurrency, request_timeout, retries, api_key, cache),
                       Sampling(model, temperature, top_p, max_tokens, seed, k), where, limit,
                       workers, exec_timeout)
    require_sandbox()  # every answer runs in it
    with _store(db) as store, _bar("answers") as update:  # type: ignore[attr-defined]
        summary = run_distill(store, spec, update)  # type: ignore[arg-type]
    t = Table(title=f"{model}: {summary['answers']} answers by mistake class (first "
                    "diagnosis)")
    for col in ("mistake", "answers", "share", "problems"):
        t.add_column(col, justify="left" if col == "mistake" else "right")
    n = max(summary["answers"], 1)
    for r in summary["by_class"]:
        t.add_row(r["mistake"], str(r["answers"]), f"{100 * r['answers'] / n:.1f}%",
                  str(r["problems"]))
    console.print(t)
    if summary["diagnoses"]:
        d = Table(title="every diagnosis, by class")
        for col in ("mistake", "diagnoses", "families"):
            d.add_column(col, justify="left" if col == "mistake" else "right")
        for r in summary["diagnoses"]:
            d.add_row(r["mistake"], str(r["diagnoses"]), str(r["families"]))
        console.print(d)
    req = summary["requests"]
    console.print(f"run {summary['run_id']}: {req.get('asked', 0)} requests, "
                  f"{req.get('cached', 0)} from the cache, {summary['seconds']} s")
    if summary["failed"]:
        console.print(f"{len(summary['failed'])} items failed (task_failures; a rerun asks "
                      f"them again): {summary['failed'][0]['error']}")


@app.command("clean")
def clean_cmd(
    base_url: BaseUrl = None,
    model: Annotated[str | None, typer.Option(help="Served model that repairs (and reviews, "
                                              "unless --reviewer-model).",
                                              show_default=False)] = None,
    reviewer_model: Annotated[str | None, typer.Option(
        help="Served model that reviews repairs (default: --model).", show_default=False)
    ] = None,
    branches: Annotated[str, typer.Option(help="clean, clean_cot or both.")]
    = "clean,clean_cot",
    repair: Annotated[str, typer.Option(help="auto (deterministic where every mistake is "
                                        "mechanical, served otherwise), deterministic or "
                                        "served.")] = "auto",
    where: AnswersFrom = None,
    limit: Limit = None,
    max_rounds: Annotated[int, typer.Option(help="Served repair rounds per answer.")] = 3,
    temperature: Annotated[float, typer.Option(help="Sampling temperature.")] = 0.0,
    max_tokens: Annotated[int, typer.Option(min=1, help="Completion budget.")] = 8192,
    workers: Workers = DEFAULT_WORKERS,
    concurrency: Concurrency = 16,
    request_timeout: RequestTimeout = 600.0,
    retries: Retries = 4,
    exec_timeout: ExecTimeout = 60.0,
    cache: Cache = None,
    api_key: ApiKey = None,
    db: DbOption = None,
) -> None:
    """Repair diagnosed answers (deterministically or by the served model), review, validate
    and export them as Clean and Clean-CoT SFT examples; print the stage table."""
    from ortrex.flywheel.clean import CleanSpec, run_clean
    from ortrex.flywheel.distill import Served
    from ortrex.ui import console

    served = Served(base_url, concurrency, request_timeout, retries, api_key, cache) \
        if base_url else None
    names = tuple(dict.fromkeys(b.strip() for b in branches.split(",") if b.strip()))
    spec = CleanSpec(served, model, reviewer_model, names, repair, where, limit, max_rounds,
                     workers, exec_timeout, temperature, max_tokens)
    require_sandbox()  # every answer runs in it
    with _store(db) as store, _bar("answers") as update:  # type: ignore[attr-defined]
        summary = run_clean(store, spec, update)  # type: ignore[arg-type]
    t = Table(title=f"stage table, run {summary['run_id']}")
    for col in ("branch", "mistake", "input", "diagnosed", "repaired", "reviewer passed",
                "validated", "exported"):
        t.add_column(col, justify="left" if col in ("branch", "mistake") else "right")
    for r in summary["stages"]:
        t.add_row(r["branch"], r["mistake"], *(str(r[s]) for s in (
            "input", "diagnosed", "repaired", "reviewer_passed", "validated", "exported")))
    console.print(t)
    for f in summary["failures"][:8]:
        console.print(f"{f['answers']} answer(s): {f['failure']}")
    console.print(f"{summary['answers']} answers cleaned in {summary['seconds']} s")
