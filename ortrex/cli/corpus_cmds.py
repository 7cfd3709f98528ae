"""Corpus jobs: generate, pipeline, render, verify documents, import-seeds, mutate."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ortrex.cli.app import DbOption, UsageError, app, store_path
from ortrex.cli.options import (
    DEFAULT_WORKERS,
    CountOption,
    CpusPerTaskOption,
    ExecutorOption,
    RayAddressOption,
    RetriesOption,
    WorkersOption,
    check_outcomes,
    executor,
    require_sandbox,
)


@app.command("generate")
def generate_cmd(
    families: Annotated[str, typer.Option(help="'all' or a comma-separated list.")] = "all",
    count: CountOption = 100,
    seed: Annotated[int, typer.Option(help="Random seed (the job is deterministic).")] = 0,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
    size: Annotated[str, typer.Option(help="small, medium, large, or mix (each task draws "
                                      "one: 30/45/25).")] = "mix",
    time_limit: Annotated[float, typer.Option(help="Seconds per solve.")] = 10.0,
    resume: Annotated[bool, typer.Option(
        "--resume", hidden=True, help="Kept for old scripts: a rerun always continues.")]
    = False,
    db: DbOption = None,
) -> None:
    """Generate verified instances: sample families, solve with HiGHS and Gurobi, filter
    (run it again to continue; a larger --count continues the same job)."""
    from ortrex.engine.generate.job import JobSpec

    spec = JobSpec(JobSpec.parse_families(families), count, seed, size, time_limit)
    _run_generate(db, spec, (workers, executor_kind, ray_address, cpus_per_task, retries))


Run = tuple[int, str, str | None, float, int]  # workers, executor, Ray address, CPUs, retries


def _run_generate(db: Path | None, spec: object, run: Run) -> None:
    from ortrex.engine.generate.job import run_job
    from ortrex.store import Store
    from ortrex.ui import console, job_progress

    ex = executor(*run)  # checks the worker count and executor before the store is touched
    try:
        with Store(store_path(db), create=True) as store, \
                job_progress(spec.count) as update:  # type: ignore[attr-defined]
            report = run_job(store, spec, workers=run[0], resume=True,  # type: ignore
                             executor=ex, on_result=lambda r, ok, why, rep: update(
                                 rep.accepted, rep.tasks, dict(rep.rejected), rep.failed))
            statuses = store.query(
                "SELECT verifier, status, count(*) AS n FROM verifications WHERE run_id = ? "
                "GROUP BY ALL ORDER BY ALL", [report.run_id])
            console.print(_generate_tables(report, statuses))
            check_outcomes(store, report.run_id, "tasks")
    finally:
        ex.close()


def _generate_tables(report: object, statuses: object) -> object:
    from rich.columns import Columns

    from ortrex.engine.generate.job import JobReport

    assert isinstance(report, JobReport)
    fam = Table(title="by family")
    for col in ("family", "accepted", "rejected"):
        fam.add_column(col, justify="left" if col == "family" else "right")
    for name, c in sorted(report.by_family.items()):
        rej = sum(v for k, v in c.items() if k.startswith("rejected"))
        fam.add_row(name, str(c["accepted"]), str(rej))
    out = Table(title="outcome")
    out.add_column("what")
    out.add_column("count", justify="right")
    out.add_row("tasks", str(report.tasks))
    out.add_row("accepted", str(report.accepted))
    for reason, n in sorted(report.rejected.items()):
        out.add_row(f"rejected: {reason}", str(n))
    for band in ("easy", "medium", "hard"):
        out.add_row(f"difficulty {band}", str(report.bands.get(band, 0)))
    for verifier, status, n in statuses.iter_rows():  # type: ignore[attr-defined]
        out.add_row(f"{verifier} {status}", str(n))
    if report.seconds:
        s = report.summary()
        out.add_row("seconds", f"{report.seconds:.1f}")
        new = report.tasks - report.resumed_from
        out.add_row("tasks / s", f"{new / report.seconds:.1f}")
        out.add_row("solver share of worker time", f"{s['solver_share']:.0%}")
    return Columns([out, fam])


def _outcomes(good: int, bad: int, failed: int, good_word: str = "accepted",
              bad_word: str = "rejected") -> str:
    """The outcome counts shown beside a progress bar."""
    return f"{good_word} {good}, {bad_word} {bad}" + (f", failed {failed}" if failed else "")


FormsOption = Annotated[str, typer.Option("--forms", help="Comma-separated: DP, DT, DPS.")]


KindsOption = Annotated[str, typer.Option("--kinds", help="Comma-separated: cpt, sft.")]


LlmUrlOption = Annotated[str | None, typer.Option(
    "--llm-base-url", help="OpenAI-compatible endpoint that rewrites statements (checked for "
    "fidelity; cached on disk).", show_default=False)]


LlmModelOption = Annotated[str | None, typer.Option("--llm-model", help="Model name for "
                                                    "--llm-base-url.", show_default=False)]


def _render_table(report: object) -> Table:
    from ortrex.engine.documents.render_job import RenderReport

    assert isinstance(report, RenderReport)
    t = Table(title="documents", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    rows: list[tuple[str, object]] = [
        ("instances rendered", report.instances),
        ("documents", report.documents), ("accepted", report.accepted)]
    rows += [(f"rejected: {k}", v) for k, v in sorted(report.rejected.items())]
    rows += [(f"form {k}", v) for k, v in sorted(report.by_form.items())]
    rows += [(f"kind {k}", v) for k, v in sorted(report.by_kind.items())]
    rows.append(("decontamination", report.decontamination))
    if report.sandbox_seconds:
        import numpy as np

        sec = np.array(report.sandbox_seconds)
        rows.append(("program run, median / p95 (ms)",
                     f"{np.median(sec) * 1e3:.0f} / {np.percentile(sec, 95) * 1e3:.0f}"))
    if report.seconds:
        rows.append(("seconds", f"{report.seconds:.1f}"))
        rows.append(("documents / s", f"{report.documents / report.seconds:.1f}"))
    if report.resumed_from:
        rows.append(("instances done before (resumed)", report.resumed_from))
    for what, v in rows:
        t.add_row(what, str(v))
    return t


def _render_spec(forms: str, kinds: str, seed: int, near_duplicate: float,
                 contamination: float, db: Path | None = None, llm_base_url: str | None = None,
                 llm_model: str | None = None) -> object:
    from ortrex.engine.documents.render_job import RenderSpec
    from ortrex.render.documents import KINDS
    from ortrex.render.statement import FORMS

    cache = str(store_path(db).resolve().parent / ".ortrex-cache" / "llm") if llm_base_url else None
    return RenderSpec(RenderSpec.parse(forms, FORMS, "form"),
                      RenderSpec.parse(kinds, KINDS, "kind"), seed, near_duplicate,
                      contamination, llm_base_url, llm_model, cache)


def _run_render(db: Path | None, spec: object, run: Run, limit: int | None) -> None:
    from ortrex.engine.documents.render_job import run_render
    from ortrex.store import Store
    from ortrex.ui import console, stages

    ex = executor(*run)
    try:
        with Store(store_path(db), create=True) as store, \
                stages({"render": "instances"}) as (on_stage, tick):
            report = run_render(store, spec, workers=run[0], limit=limit,  # type: ignore
                                executor=ex, on_start=lambda n: on_stage("render", n),
                                on_result=lambda rep: tick("render", _outcomes(
                                    rep.accepted, sum(rep.rejected.values()), rep.failed)))
        console.print(_render_table(report))
        with Store(store_path(db), read_only=True) as store:
            check_outcomes(store, report.run_id, "documents and tasks")
    finally:
        ex.close()


@app.command("pipeline")
def pipeline_cmd(
    count: CountOption = 100,
    families: Annotated[str, typer.Option(help="'all' or a comma-separated list.")] = "all",
    size: Annotated[str, typer.Option(help="small, medium, large, or mix (each task draws "
                                      "one: 30/45/25).")] = "mix",
    seed: Annotated[int, typer.Option(help="Random seed (the job is deterministic).")] = 0,
    forms: FormsOption = "DP,DT,DPS",
    kinds: KindsOption = "cpt,sft",
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
    time_limit: Annotated[float, typer.Option(help="Seconds per solve.")] = 10.0,
    llm_base_url: LlmUrlOption = None,
    llm_model: LlmModelOption = None,
    db: DbOption = None,
) -> None:
    """Generate verified instances, then render and verify their documents (resumable: run it
    again to continue)."""
    from ortrex.engine.generate.job import JobSpec

    spec = JobSpec(JobSpec.parse_families(families), count, seed, size, time_limit)
    render_spec = _render_spec(forms, kinds, seed, 0.85, 0.5, db, llm_base_url, llm_model)
    run = (workers, executor_kind, ray_address, cpus_per_task, retries)
    require_sandbox()  # before generation spends its minutes: render runs every program
    _run_generate(db, spec, run)
    _run_render(db, render_spec, run, None)


@app.command("render")
def render_cmd(
    forms: FormsOption = "DP,DT,DPS",
    kinds: KindsOption = "cpt,sft",
    limit: Annotated[int | None, typer.Option(min=0, help="Instances to render at most.")]
    = None,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
    seed: Annotated[int, typer.Option(help="Seed of layouts and wording.")] = 0,
    near_duplicate: Annotated[float, typer.Option(help="MinHash Jaccard at or above which a "
                                                  "statement is a near-duplicate.")] = 0.85,
    contamination: Annotated[float, typer.Option(help="MinHash Jaccard at or above which a "
                                                 "statement is contaminated.")] = 0.5,
    llm_base_url: LlmUrlOption = None,
    llm_model: LlmModelOption = None,
    db: DbOption = None,
) -> None:
    """Render documents for accepted instances and verify each (static checks, sandbox run,
    captured-model equivalence, fidelity, near-duplicates, decontamination)."""
    spec = _render_spec(forms, kinds, seed, near_duplicate, contamination, db, llm_base_url,
                        llm_model)
    require_sandbox()
    _run_render(db, spec, (workers, executor_kind, ray_address, cpus_per_task, retries), limit)


verify_app = typer.Typer(rich_markup_mode=None, help="Verify stored artefacts again.",
                         no_args_is_help=True)


app.add_typer(verify_app, name="verify")


@verify_app.command("documents")
def verify_documents_cmd(
    limit: Annotated[int | None, typer.Option(min=0, help="Documents to check at most.")]
    = None,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
    db: DbOption = None,
) -> None:
    """Run every document's checks again and update its status."""
    from ortrex.engine.documents.verify_job import recheck_documents
    from ortrex.store import Store
    from ortrex.ui import console, stages

    require_sandbox()
    ex = executor(workers, executor_kind, ray_address, cpus_per_task, retries)
    try:
        with Store(store_path(db)) as store, stages({"verify": "documents"}) as (on_stage, tick):
            n = store.query("SELECT count(*) FROM documents WHERE statement IS NOT NULL").item()
            on_stage("verify", min(int(n), limit) if limit is not None else int(n))
            rep = recheck_documents(store, workers, limit, ex,
                                    on_result=lambda r: tick("verify", _outcomes(
                                        r.passed, sum(r.failed.values()), r.task_failures,
                                        "pass", "fail")))
    finally:
        ex.close()
    t = Table(title="verify documents", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    for what, v in [("documents", rep.documents), ("pass", rep.passed),
                    *[(f"fail: {k}", c) for k, c in sorted(rep.failed.items())],
                    ("status changed", rep.changed),
                    ("task failures (see task_failures)", rep.task_failures),
                    ("seconds", f"{rep.seconds:.1f}")]:
        t.add_row(what, str(v))
    console.print(t)


@app.command("import-seeds")
def import_seeds_cmd(
    file: Annotated[Path, typer.Argument(
        help="JSONL of {id, problem, answer, metadata, files, args}.")],
    workers: WorkersOption = DEFAULT_WORKERS,
    time_limit: Annotated[float, typer.Option(
        "--time-limit", help="Seconds per solver run on each captured model.")] = 30.0,
    program_time_limit: Annotated[float, typer.Option(
        "--program-time-limit", help="Seconds the program may run in the sandbox.")] = 60.0,
    budget: Annotated[float, typer.Option(
        "--budget", help="Seconds per seed in all (the program and every solve).")] = 300.0,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
    skip_bad: Annotated[bool, typer.Option(
        "--skip-bad", help="Skip malformed lines (listed) instead of stopping.")] = False,
    db: DbOption = None,
) -> None:
    """Import problem/answer seeds: run each answer program in the sandbox, capture every model
    it solves, verify them with HiGHS and Gurobi, and store instances and text with
    provenance."""
    from ortrex.engine.ingest.seeds import SeedLimits, import_seeds, scan_seeds
    from ortrex.store import Store
    from ortrex.ui import console, stages

    for flag, value in (("--time-limit", time_limit), ("--program-time-limit",
                                                        program_time_limit), ("--budget", budget)):
        if not value > 0:  # a zero or negative limit would make every seed time out
            raise UsageError(f"{flag} must be a positive number of seconds, got {value:g}")
    scan_seeds(file, skip_bad)  # a malformed file stops here, before the store is touched
    require_sandbox()
    ex = executor(workers, executor_kind, ray_address, cpus_per_task, retries)
    try:
        with Store(store_path(db), create=True) as store, \
                stages({"seeds": "seeds"}) as (on_stage, tick):
            rep = import_seeds(store, file, workers, skip_bad, ex,
                               on_result=lambda r: tick("seeds", _outcomes(
                                   r.accepted, sum(r.reasons.values()) -
                                   r.reasons.get("task_failed", 0),
                                   r.reasons.get("task_failed", 0))),
                               on_start=lambda n: on_stage("seeds", n),
                               limits=SeedLimits(program_time_limit, time_limit, budget))
    finally:
        ex.close()
    t = Table(title=f"seeds from {file}", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    rows: list[tuple[str, object]] = [
        ("seeds", rep.seeds), ("programs ran to the end", rep.ran),
        ("seeds with a model captured", rep.captured), ("models verified", rep.models),
        ("seeds solved", rep.solved), ("accepted", rep.accepted)]
    rows += [(f"rejected: {k}", v) for k, v in sorted(rep.reasons.items())]
    rows += [("bad lines skipped", len(rep.skipped)), ("seconds", f"{rep.seconds:.1f}")]
    for what, v in rows:
        t.add_row(what, str(v))
    console.print(t)
    for line in rep.skipped:
        console.print(f"[yellow]skipped[/] {line}")


@app.command("mutate")
def mutate_cmd(
    operators: Annotated[str, typer.Option(help="'all' or a comma-separated list.")] = "all",
    source: Annotated[str, typer.Option(
        "--from", help="Parents: a SQL filter over semantic_id, instance_id, family, domain, "
        "problem_class, difficulty, difficulty_band, n_vars, n_rows, nnz, objective, "
        "created_at, run_id; or comma-separated ids (prefixes).", show_default=False)] = "",
    per_parent: Annotated[int, typer.Option(help="Children per parent and round.")] = 2,
    rounds: Annotated[int, typer.Option(help="Rounds (children become parents).")] = 1,
    seed: Annotated[int, typer.Option(help="Random seed.")] = 0,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
    time_limit: Annotated[float, typer.Option(help="Seconds per solve.")] = 10.0,
    db: DbOption = None,
) -> None:
    """Mutate selected instances for some rounds; every child is verified like a fresh one
    (run it again to resume)."""
    from ortrex.engine.generate.evolve import MutateSpec, run_mutate, select_parents
    from ortrex.store import Store
    from ortrex.ui import console, stages

    spec = MutateSpec(MutateSpec.parse_operators(operators), source, per_parent, rounds, seed,
                      time_limit)
    ex = executor(workers, executor_kind, ray_address, cpus_per_task, retries)
    try:
        with Store(store_path(db)) as store:
            select_parents(store, spec.selection)  # bad or empty selections stop here
            with stages({f"round {r}": "children" for r in range(1, rounds + 1)}) as (
                    on_stage, tick):
                current = [""]

                def on_round(r: int, n: int) -> None:
                    current[0] = f"round {r}"
                    on_stage(current[0], n)

                rep = run_mutate(store, spec, workers, ex, on_round=on_round,
                                 on_result=lambda r: tick(current[0], _outcomes(
                                     r.accepted, sum(r.rejected.values()), r.failed)))
    finally:
        ex.close()
    t = Table(title="children by operator")
    for col in ("operator", "tasks", "accepted", "rejected", "not applicable"):
        t.add_column(col, justify="left" if col == "operator" else "right")
    for op, c in sorted(rep.by_operator.items()):
        rej = sum(v for k, v in c.items() if k.startswith("rejected"))
        t.add_row(op, str(c["tasks"]), str(c["accepted"]), str(rej), str(c["skipped"]))
    s = Table(title="mutation job", show_header=False)
    s.add_column("what")
    s.add_column("value", justify="right")
    for what, v in [("rounds", rep.rounds_done), ("tasks", rep.tasks),
                    ("accepted", rep.accepted),
                    ("  of which a new telling of a stored instance", rep.same_instance),
                    *[(f"rejected: {k}", n) for k, n in sorted(rep.rejected.items())],
                    *[(f"skipped: {k}", n) for k, n in sorted(rep.skipped.items())],
                    ("tasks done before (resumed)", rep.resumed_from),
                    ("seconds", f"{rep.seconds:.1f}"),
                    ("children verified / s",
                     f"{(rep.tasks - sum(rep.skipped.values())) / max(rep.seconds, 1e-9):.1f}")]:
        s.add_row(what, str(v))
    from rich.columns import Columns

    console.print(Columns([s, t]))


@app.command("families")
def families_cmd(
    classes: bool = typer.Option(False, "--classes",
                                 help="The problem-class taxonomy: each class, what it means "
                                      "and its families (a class without one is listed too)."),
) -> None:
    """The problem families --families takes: name, class, what it decides, size bands."""
    from ortrex.engine.families import REGISTRY
    from ortrex.engine.families.taxonomy import CLASSES
    from ortrex.ui import console

    if classes:
        members: dict[str, list[str]] = {c: [] for c in CLASSES}
        for name, fam in REGISTRY.items():
            for c in fam.classes:
                members[c].append(name)
        covered = sum(bool(v) for v in members.values())
        t = Table(title=f"{len(CLASSES)} problem classes, {covered} with a family "
                        f"({len(REGISTRY)} families)")
        for col in ("class", "what it is", "families"):
            t.add_column(col, overflow="fold")
        for c, what in CLASSES.items():
            t.add_row(c, what, ", ".join(sorted(members[c])) or "-")
        console.print(t)
        return
    t = Table(title=f"{len(REGISTRY)} families")
    for col in ("family", "class", "summary", "domains", "small / medium / large"):
        t.add_column(col, overflow="fold")
    for name, fam in sorted(REGISTRY.items()):
        sizes = " / ".join(", ".join(f"{k} {lo}-{hi}" for k, (lo, hi) in fam.sizes[b].items())
                           for b in ("small", "medium", "large"))
        t.add_row(name, f"{fam.problem_class}: {', '.join(fam.classes)}",
                  fam.vocabularies[0].fill(fam.summary),
                  ", ".join(v.domain for v in fam.vocabularies), sizes)
    console.print(t)


@app.command("operators")
def operators_cmd() -> None:
    """The mutation operators --operators takes: name, what it changes, its arity."""
    from ortrex.engine.generate.mutate import OPERATORS
    from ortrex.ui import console

    t = Table(title=f"{len(OPERATORS)} operators")
    for col in ("operator", "changes", "parents", "summary"):
        t.add_column(col, overflow="fold")
    for name, op in sorted(OPERATORS.items()):
        t.add_row(name, "the telling only" if op.presentation else "the model",
                  str(op.parents), op.summary)
    console.print(t)
