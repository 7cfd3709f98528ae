"""The ``ortrex`` command line: one sub-command per user job; the work happens elsewhere."""

from __future__ import annotations

import io
import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ortrex import __version__

# Heavy modules (numpy, scipy, duckdb, polars, solvers) are imported inside the commands, so
# `ortrex --help` and `--version` start fast.
FORMATS = ("lp", "mps", "mps-fixed", "mps-free", "json")

app = typer.Typer(
    name="ortrex",
    help="ortrex: a corpus engine for Operations Research language models.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)

DbOption = Annotated[Path | None, typer.Option(
    "--db", envvar="ORTREX_DB", help="Store file (default ./ortrex.duckdb).", show_default=False)]


class UsageError(Exception):
    """Bad command-line input that click cannot see (one line, exit 2)."""


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean bad input (reported in one line, exit 2)."""
    from ortrex.ir.formats.errors import ModelFileError, UnsupportedModelError
    from ortrex.store.errors import StoreError

    errors: list[type[BaseException]] = [ModelFileError, UnsupportedModelError, StoreError,
                                         UsageError]
    if "ortrex.engine.jobs" in sys.modules:
        errors.append(sys.modules["ortrex.engine.jobs"].JobError)
    if "ortrex.engine.seeds" in sys.modules:
        errors.append(sys.modules["ortrex.engine.seeds"].SeedFileError)
    return tuple(errors)


def _atomic_write(path: Path, data: bytes) -> None:
    from ortrex.ir.formats.text import write_atomic

    write_atomic(path, data)


_root_db: Path | None = None


def _db(db: Path | None) -> Path:
    """The store path: the sub-command's --db, else the global --db, else $ORTREX_DB/default."""
    from ortrex.store.db import resolve_db

    return resolve_db(db or _root_db)


def _print_version(value: bool) -> None:
    if value:
        print(f"ortrex {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    db: DbOption = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[bool, typer.Option(
        "--version", help="Print the version and exit.", callback=_print_version,
        is_eager=True)] = False,
) -> None:
    global _root_db
    _root_db = db


@app.command()
def init(db: DbOption = None) -> None:
    """Create the store (or migrate an older one to the current schema)."""
    from ortrex.store import Store
    from ortrex.ui import console

    path = _db(db)
    existed = path.exists()
    with Store(path, create=True, migrate=True) as store:
        counts = store.counts()
        console.print(f"{'opened' if existed else 'created'} store [bold]{path}[/] "
                      f"(schema v{store.schema_version}, {sum(counts.values())} rows)")


@app.command("generate")
def generate_cmd(
    families: Annotated[str, typer.Option(help="'all' or a comma-separated list.")] = "all",
    count: Annotated[int, typer.Option(help="Accepted instances to produce.")] = 500,
    seed: Annotated[int, typer.Option(help="Random seed (the job is deterministic).")] = 0,
    workers: Annotated[int, typer.Option(help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
    size: Annotated[str, typer.Option(help="small, medium or large.")] = "small",
    time_limit: Annotated[float, typer.Option(help="Seconds per solve.")] = 10.0,
    resume: Annotated[bool, typer.Option("--resume", help="Continue a stopped job.")] = False,
    db: DbOption = None,
) -> None:
    """Generate verified instances: sample families, solve with HiGHS and Gurobi, filter."""
    from ortrex.engine.jobs import JobSpec

    spec = JobSpec(JobSpec.parse_families(families), count, seed, size, time_limit)
    _run_generate(db, spec, workers, resume)


def _run_generate(db: Path | None, spec: object, workers: int, resume: bool) -> None:
    from ortrex.engine.jobs import make_executor, run_job
    from ortrex.store import Store
    from ortrex.ui import console, job_progress

    executor = make_executor(workers)  # checks the worker count before the store is touched
    try:
        with Store(_db(db), create=True) as store, \
                job_progress(spec.count) as update:  # type: ignore[attr-defined]
            report = run_job(store, spec, workers=workers, resume=resume,  # type: ignore
                             executor=executor, on_result=lambda r, ok, why, rep: update(
                                 rep.accepted, rep.tasks, dict(rep.rejected)))
            statuses = store.query(
                "SELECT verifier, status, count(*) AS n FROM verifications WHERE run_id = ? "
                "GROUP BY ALL ORDER BY ALL", [report.run_id])
    finally:
        executor.close()
    console.print(_generate_tables(report, statuses))


def _generate_tables(report: object, statuses: object) -> object:
    from rich.columns import Columns

    from ortrex.engine.jobs import JobReport

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


@app.command("import-lp")
def import_lp(
    files: Annotated[list[Path] | None, typer.Argument(
        help="LP / MPS / JSON files or folders; default: the shared bench4opt reference LPs.",
        show_default=False)] = None,
    db: DbOption = None,
    family: Annotated[str | None, typer.Option(help="Family label for the instances.")] = None,
    solve: Annotated[bool, typer.Option("--solve", help="Verify each instance with HiGHS.")]
    = False,
    skip_bad: Annotated[bool, typer.Option(
        "--skip-bad", help="Skip unreadable files (counted) instead of stopping.")] = False,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
) -> None:
    """Import model files as instances, with file provenance as lineage."""
    from ortrex.engine.importer import commit_import, prepare_import
    from ortrex.paths import reference_lp_dirs
    from ortrex.store import Store
    from ortrex.ui import console, stages

    paths: list[Path] = list(files or [])
    if not paths:
        paths = reference_lp_dirs()
        if not paths:
            raise UsageError("no FILES given and the shared reference LPs were not found "
                             "(set ORTREX_BENCHMARKS to the benchmarks folder)")
    path = _db(db)
    # An existing store is checked first, so a lock or a bad file stops us before any work, and
    # released while we parse (DuckDB readers wait for a writer). A new store is created only
    # once every input has parsed, so bad input leaves nothing behind.
    if path.exists():
        Store(path).close()
    with stages({"parse": "files", "solve": "instances"}) as (on_stage, tick):
        prep = prepare_import(paths, family=family, solve=solve, skip_bad=skip_bad,
                              workers=workers, progress=tick, on_stage=on_stage)
    with Store(path, create=True) as store:
        report = commit_import(store, prep)
    console.print(_import_table(report, path))
    for line in report.skipped:
        console.print(f"[yellow]skipped[/] {line}")


def _import_table(report: object, path: Path) -> Table:
    from ortrex.engine.importer import ImportReport

    assert isinstance(report, ImportReport)
    t = Table(title=f"import into {path}", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    rows = [
        ("files read", report.files),
        ("files imported", report.imported),
        ("files skipped", len(report.skipped)),
        ("distinct instances", report.imported - report.duplicate_files),
        ("  new in the store", report.new_instances),
        ("  already stored", report.known_instances),
        ("files repeating an instance", report.duplicate_files),
        ("structural groups", report.structural_groups),
        ("formulation groups", report.formulation_groups),
    ]
    rows += [(f"class {k} (files)", v) for k, v in sorted(report.classes.items())]
    rows += [(f"HiGHS {k}", v) for k, v in sorted(report.statuses.items())]
    rows.append(("seconds", f"{report.seconds:.2f}"))
    for what, count in rows:
        t.add_row(what, str(count))
    return t


class SolverName(StrEnum):
    """Solvers available to ``ortrex solve``."""

    highs = "highs"
    gurobi = "gurobi"


@app.command("solve")
def solve_cmd(
    file: Annotated[Path, typer.Argument(help="Model file (LP, MPS or JSON).")],
    solver: Annotated[SolverName, typer.Option(help="Solver.")] = SolverName.highs,
    time_limit: Annotated[float | None, typer.Option(min=0.0, help="Seconds.")] = None,
    fmt: Annotated[str | None, typer.Option("--format", help=f"One of {', '.join(FORMATS)}; "
                                            "default: from the file name.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object.")] = False,
) -> None:
    """Solve a model file and print status, objective and time."""
    from ortrex.ir.formats import read_model
    from ortrex.ui import console
    from ortrex.verifiers.solvers import solve

    if fmt is not None and fmt not in FORMATS:
        raise UsageError(f"unknown --format {fmt!r}; expected one of {', '.join(FORMATS)}")
    model = read_model(file, fmt)
    result = solve(model, solver.value, time_limit=time_limit)
    s = model.stats()
    if as_json:
        print(json.dumps({"file": str(file), **result.to_dict(), "class": s.problem_class,
                          "n_vars": s.n_vars, "n_rows": s.n_rows, "nnz": s.nnz}))
        return
    t = Table(show_header=False, title=str(file))
    t.add_column("field")
    t.add_column("value")
    for k, v in [("model", f"{model.name} ({s.problem_class}, {model.sense.value})"),
                 ("size", f"{s.n_vars} vars, {s.n_rows} rows, {s.nnz} nonzeros"),
                 ("solver", f"{result.solver} {result.solver_version}"),
                 ("status", result.status.value),
                 ("objective", "" if result.objective is None else repr(result.objective)),
                 ("time", f"{result.runtime_s:.3f} s")] + (
                     [("message", result.message)] if result.message else []):
        t.add_row(k, v)
    console.print(t)


class OutFormat(StrEnum):
    """Output formats of ``ortrex sql``."""

    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


@app.command("sql")
def sql_cmd(
    query: Annotated[str, typer.Argument(help="A SQL query over the store's tables.")],
    db: DbOption = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="Output format.")] = OutFormat.table,
    output: Annotated[Path | None, typer.Option(help="Write to this file instead of stdout.")]
    = None,
    max_rows: Annotated[int, typer.Option(min=1, help="Rows shown by --format table.")] = 100,
) -> None:
    """Run a read-only SQL query; results as a table, CSV, JSON or Parquet."""
    from ortrex.store import Store
    from ortrex.ui import console, frame_table, printable

    if fmt is OutFormat.parquet and output is None:
        raise UsageError("--format parquet needs --output FILE")
    with Store(_db(db), read_only=True) as store:
        df = store.query(query)
    if fmt is OutFormat.table:
        if output is not None:
            buf = io.StringIO()
            from rich.console import Console

            Console(file=buf, width=200).print(frame_table(df, max_rows=max_rows))
            _atomic_write(output, buf.getvalue().encode())
        else:
            console.print(frame_table(df, max_rows=max_rows))
        return
    if fmt is OutFormat.parquet:
        buf_b = io.BytesIO()
        df.write_parquet(buf_b)
        _atomic_write(output, buf_b.getvalue())  # type: ignore[arg-type]
        return
    text = printable(df).write_csv() if fmt is OutFormat.csv else printable(df).write_json()
    if fmt is OutFormat.json:
        text += "\n"
    if output is not None:
        _atomic_write(output, text.encode())
    else:
        sys.stdout.write(text)


@app.command("lineage")
def lineage_cmd(
    node_id: Annotated[str, typer.Argument(help="A node id (or a unique prefix of one).")],
    ancestors: Annotated[bool, typer.Option("--ancestors", help="Walk towards sources.")]
    = False,
    descendants: Annotated[bool, typer.Option("--descendants", help="Walk towards outputs.")]
    = False,
    depth: Annotated[int | None, typer.Option(min=1, help="Maximum number of edges.")] = None,
    db: DbOption = None,
    fmt: Annotated[OutFormat, typer.Option("--format", help="table, csv or json.")]
    = OutFormat.table,
    tree: Annotated[bool, typer.Option("--tree", help="Print the walk as a tree.")] = False,
) -> None:
    """Show the lineage of a node: its ancestors (default) and/or descendants."""
    import polars as pl

    from ortrex.store import Store
    from ortrex.store.lineage import node_labels, resolve_node, walk
    from ortrex.ui import console, frame_table

    if fmt is OutFormat.parquet:
        raise UsageError("lineage prints table, csv or json")
    directions = [d for d, on in (("ancestors", ancestors), ("descendants", descendants)) if on]
    with Store(_db(db), read_only=True) as store:
        full = resolve_node(store, node_id)
        frames = [walk(store, full, d, depth).with_columns(direction=pl.lit(d))
                  for d in directions or ["ancestors"]]
        df = pl.concat(frames) if len(frames) > 1 else frames[0]
        labels = node_labels(store, sorted(set(df["parent_id"]) | set(df["child_id"])))
    if fmt is OutFormat.csv:
        sys.stdout.write(df.write_csv())
        return
    if fmt is OutFormat.json:
        sys.stdout.write(df.write_json() + "\n")
        return
    if tree:
        from ortrex.store.lineage import lineage_tree

        for d in directions or ["ancestors"]:
            console.print(lineage_tree(df.filter(pl.col("direction") == d), full, d, labels))
        return

    def node(kind: str, nid: str) -> str:
        label = labels.get(nid)
        return f"{kind} {nid[:16]}" + (f" ({label})" if label else "")

    view = pl.DataFrame({
        "direction": df["direction"],
        "depth": df["depth"],
        "parent": [node(k, i) for k, i in zip(df["parent_kind"], df["parent_id"], strict=True)],
        "relation": [r if o is None else f"{r}:{o}"
                     for r, o in zip(df["relation"], df["operator"], strict=True)],
        "child": [node(k, i) for k, i in zip(df["child_kind"], df["child_id"], strict=True)],
    })
    console.print(frame_table(view, title=f"lineage of {full}", width=60))
    console.print(f"{df.height} edge{'s' if df.height != 1 else ''}; full ids with --format csv")


@app.command("equiv")
def equiv_cmd(
    a: Annotated[Path | None, typer.Argument(help="Model A (LP, MPS or JSON).",
                                             show_default=False)] = None,
    b: Annotated[Path | None, typer.Argument(help="Model B.", show_default=False)] = None,
    pairs: Annotated[Path | None, typer.Option(
        help="JSONL file of {\"a\": path, \"b\": path, ...} lines (paths relative to it); "
             "one JSON result per line, in input order.", show_default=False)] = None,
    workers: Annotated[int, typer.Option(min=1, help="Worker processes for --pairs.")]
    = os.cpu_count() or 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON object (A B mode).")]
    = False,
    rel_tol: Annotated[float, typer.Option(min=0.0, help="Relative tolerance on numbers.")]
    = 1e-6,
    time_limit: Annotated[float, typer.Option(
        min=0.0, help="Seconds per pair before 'undecided' (0: no limit).")] = 60.0,
    output: Annotated[Path | None, typer.Option(
        "--output", help="With --pairs: write the results here (atomically), not to stdout.",
        show_default=False)] = None,
    certificate: Annotated[bool, typer.Option(
        "--certificate", help="With --pairs: include each certificate.")] = False,
) -> None:
    """Are two models the same up to renaming, order, scaling and form? Exit 0 equivalent,
    1 not equivalent, 3 undecided (time limit), 2 error."""
    limit = time_limit or None
    if pairs is not None:
        if a is not None or b is not None:
            raise UsageError("give either A B or --pairs FILE, not both")
        _equiv_pairs(pairs, workers, rel_tol, limit, output, certificate)
        return
    if a is None or b is None:
        raise UsageError("give two model files A B, or --pairs FILE")
    from ortrex.ui import console
    from ortrex.verifiers.equivalence import EQUIVALENT, UNDECIDED, check_equivalence

    result = check_equivalence(a, b, rel_tol=rel_tol, time_limit=limit)
    if as_json:
        print(json.dumps({"a": str(a), "b": str(b), **result.to_dict()}))
    else:
        style = {EQUIVALENT: "green", UNDECIDED: "yellow"}.get(result.verdict, "red")
        t = Table(show_header=False, title=f"{a} vs {b}")
        t.add_column("field")
        t.add_column("value", overflow="fold")
        t.add_row("verdict", f"[bold {style}]{result.verdict}[/]")
        t.add_row("reason", result.reason)
        if result.certificate is not None:
            cert = result.certificate
            t.add_row("certificate", f"{cert.var_map.size} variables and {cert.row_a.size} rows "
                      "mapped (--json prints the mapping)")
        t.add_row("time", ", ".join(f"{k} {v * 1e3:.1f} ms" for k, v in result.timings.items()))
        console.print(t)
    raise typer.Exit({EQUIVALENT: 0, UNDECIDED: 3}.get(result.verdict, 1))


def _equiv_pairs(path: Path, workers: int, rel_tol: float, time_limit: float | None,
                 output: Path | None, certificate: bool) -> None:
    import tempfile

    from ortrex.ui import err_console, stages
    from ortrex.verifiers.pairs import read_pairs, run_pairs

    try:
        with open(path, "rb") as f:
            total = sum(1 for line in f if line.strip())
    except OSError as exc:
        raise UsageError(f"{path}: cannot read: {exc.strerror or exc}") from None
    sink = sys.stdout
    tmp = None
    if output is not None:
        output.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{output.name}.", dir=output.parent)
        sink = os.fdopen(fd, "w", encoding="utf-8")
    try:
        with stages({"pairs": "pairs"}) as (on_stage, tick):
            on_stage("pairs", total)

            def emit(rec: dict[str, object]) -> None:
                sink.write(json.dumps(rec) + "\n")
                tick("pairs")

            report = run_pairs(read_pairs(path), emit, workers=workers, rel_tol=rel_tol,
                               time_limit=time_limit, certificate=certificate)
        sink.flush()
        if tmp is not None:
            sink.close()
            os.replace(tmp, output)  # type: ignore[arg-type]
            tmp = None
    finally:
        if tmp is not None:
            sink.close()
            os.unlink(tmp)
    t = Table(title=f"equivalence of {report.pairs} pairs from {path}")
    t.add_column("verdict")
    t.add_column("pairs", justify="right")
    for verdict, n in sorted(report.verdicts.items()):
        t.add_row(verdict, str(n))
    rate = report.pairs / report.seconds if report.seconds else 0.0
    t.caption = f"{report.seconds:.2f} s, {rate:,.1f} pairs/s, {workers} worker(s)"
    err_console.print(t)


def _render_table(report: object) -> Table:
    from ortrex.engine.documents import RenderReport

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


FormsOption = Annotated[str, typer.Option("--forms", help="Comma-separated: DP, DT, DPS.")]
KindsOption = Annotated[str, typer.Option("--kinds", help="Comma-separated: cpt, sft.")]


def _render_spec(forms: str, kinds: str, seed: int, near_duplicate: float,
                 contamination: float, db: Path | None = None, llm_base_url: str | None = None,
                 llm_model: str | None = None) -> object:
    from ortrex.engine.documents import RenderSpec
    from ortrex.render.documents import KINDS
    from ortrex.render.statement import FORMS

    cache = str(_db(db).resolve().parent / ".ortrex-cache" / "llm") if llm_base_url else None
    return RenderSpec(RenderSpec.parse(forms, FORMS, "form"),
                      RenderSpec.parse(kinds, KINDS, "kind"), seed, near_duplicate,
                      contamination, llm_base_url, llm_model, cache)


LlmUrlOption = Annotated[str | None, typer.Option(
    "--llm-base-url", help="OpenAI-compatible endpoint that rewrites statements (checked for "
    "fidelity; cached on disk).", show_default=False)]
LlmModelOption = Annotated[str | None, typer.Option("--llm-model", help="Model name for "
                                                    "--llm-base-url.", show_default=False)]


def _run_render(db: Path | None, spec: object, workers: int, limit: int | None) -> None:
    from ortrex.engine.documents import run_render
    from ortrex.engine.jobs import make_executor
    from ortrex.store import Store
    from ortrex.ui import console, stages

    executor = make_executor(workers)
    try:
        with Store(_db(db), create=True) as store, \
                stages({"render": "instances"}) as (on_stage, tick):
            report = run_render(store, spec, workers=workers, limit=limit,  # type: ignore
                                executor=executor, on_start=lambda n: on_stage("render", n),
                                on_result=lambda rep: tick("render"))
    finally:
        executor.close()
    console.print(_render_table(report))


@app.command("render")
def render_cmd(
    forms: FormsOption = "DP,DT,DPS",
    kinds: KindsOption = "cpt,sft",
    limit: Annotated[int | None, typer.Option(min=0, help="Instances to render at most.")]
    = None,
    workers: Annotated[int, typer.Option(help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
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
    _run_render(db, spec, workers, limit)


verify_app = typer.Typer(help="Verify stored artefacts again.", no_args_is_help=True)
app.add_typer(verify_app, name="verify")


@verify_app.command("documents")
def verify_documents_cmd(
    limit: Annotated[int | None, typer.Option(min=0, help="Documents to check at most.")]
    = None,
    workers: Annotated[int, typer.Option(help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
    db: DbOption = None,
) -> None:
    """Run every document's checks again and update its status."""
    from ortrex.engine.documents import recheck_documents
    from ortrex.engine.jobs import make_executor
    from ortrex.store import Store
    from ortrex.ui import console, stages

    executor = make_executor(workers)
    try:
        with Store(_db(db)) as store, stages({"verify": "documents"}) as (on_stage, tick):
            n = store.query("SELECT count(*) FROM documents WHERE statement IS NOT NULL").item()
            on_stage("verify", min(int(n), limit) if limit is not None else int(n))
            rep = recheck_documents(store, workers, limit, executor,
                                    on_result=lambda r: tick("verify"))
    finally:
        executor.close()
    t = Table(title="verify documents", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    for what, v in [("documents", rep.documents), ("pass", rep.passed),
                    *[(f"fail: {k}", c) for k, c in sorted(rep.failed.items())],
                    ("status changed", rep.changed), ("seconds", f"{rep.seconds:.1f}")]:
        t.add_row(what, str(v))
    console.print(t)


@app.command("pipeline")
def pipeline_cmd(
    count: Annotated[int, typer.Option(help="Accepted instances to generate.")] = 100,
    families: Annotated[str, typer.Option(help="'all' or a comma-separated list.")] = "all",
    size: Annotated[str, typer.Option(help="small, medium or large.")] = "small",
    seed: Annotated[int, typer.Option(help="Random seed (the job is deterministic).")] = 0,
    forms: FormsOption = "DP,DT,DPS",
    kinds: KindsOption = "cpt,sft",
    workers: Annotated[int, typer.Option(help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
    time_limit: Annotated[float, typer.Option(help="Seconds per solve.")] = 10.0,
    llm_base_url: LlmUrlOption = None,
    llm_model: LlmModelOption = None,
    db: DbOption = None,
) -> None:
    """Generate verified instances, then render and verify their documents (resumable: run it
    again to continue)."""
    from ortrex.engine.jobs import JobSpec

    spec = JobSpec(JobSpec.parse_families(families), count, seed, size, time_limit)
    render_spec = _render_spec(forms, kinds, seed, 0.85, 0.5, db, llm_base_url, llm_model)
    _run_generate(db, spec, workers, resume=True)
    _run_render(db, render_spec, workers, None)


@app.command("import-seeds")
def import_seeds_cmd(
    file: Annotated[Path, typer.Argument(help="JSONL of {id, problem, answer, metadata}.")],
    workers: Annotated[int, typer.Option(help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
    skip_bad: Annotated[bool, typer.Option(
        "--skip-bad", help="Skip malformed lines (listed) instead of stopping.")] = False,
    db: DbOption = None,
) -> None:
    """Import problem/answer seeds: run each answer program in the sandbox, capture its model,
    verify it with HiGHS and Gurobi, and store the instance and the text with provenance."""
    from ortrex.engine.jobs import make_executor
    from ortrex.engine.seeds import import_seeds, read_seeds
    from ortrex.store import Store
    from ortrex.ui import console, stages

    read_seeds(file, skip_bad)  # a malformed file stops here, before the store is touched
    executor = make_executor(workers)
    try:
        with Store(_db(db), create=True) as store, \
                stages({"seeds": "seeds"}) as (on_stage, tick):
            rep = import_seeds(store, file, workers, skip_bad, executor,
                               on_result=lambda r: tick("seeds"),
                               on_start=lambda n: on_stage("seeds", n))
    finally:
        executor.close()
    t = Table(title=f"seeds from {file}", show_header=False)
    t.add_column("what")
    t.add_column("count", justify="right")
    rows: list[tuple[str, object]] = [("seeds", rep.seeds), ("programs ran", rep.ran),
                                      ("models solved", rep.solved), ("accepted", rep.accepted)]
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
    workers: Annotated[int, typer.Option(help="Worker processes (default: CPU count).")]
    = os.cpu_count() or 1,
    time_limit: Annotated[float, typer.Option(help="Seconds per solve.")] = 10.0,
    db: DbOption = None,
) -> None:
    """Mutate selected instances for some rounds; every child is verified like a fresh one
    (run it again to resume)."""
    from ortrex.engine.evolve import MutateSpec, run_mutate, select_parents
    from ortrex.engine.jobs import make_executor
    from ortrex.store import Store
    from ortrex.ui import console, stages

    spec = MutateSpec(MutateSpec.parse_operators(operators), source, per_parent, rounds, seed,
                      time_limit)
    executor = make_executor(workers)
    try:
        with Store(_db(db)) as store:
            select_parents(store, spec.selection)  # bad or empty selections stop here
            with stages({f"round {r}": "children" for r in range(1, rounds + 1)}) as (
                    on_stage, tick):
                current = [""]

                def on_round(r: int, n: int) -> None:
                    current[0] = f"round {r}"
                    on_stage(current[0], n)

                rep = run_mutate(store, spec, workers, executor, on_round=on_round,
                                 on_result=lambda _: tick(current[0]))
    finally:
        executor.close()
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


@app.command("report")
def report_cmd(
    output: Annotated[Path, typer.Option("--output", help="HTML file to write.")]
    = Path("report.html"),
    db: DbOption = None,
) -> None:
    """Write a self-contained HTML corpus report: distributions, outcomes by stage, operator
    acceptance, verification latency."""
    from ortrex.store import Store
    from ortrex.store.report import write_report
    from ortrex.ui import console

    with Store(_db(db), read_only=True) as store:
        rep = write_report(store, output)
    console.print(f"wrote [bold]{output}[/] ({len(rep.html) / 1e6:.1f} MB, "
                  f"{len(rep.sections)} sections, {rep.seconds:.1f} s)")


@app.command("info")
def info_cmd(db: DbOption = None) -> None:
    """Row counts per table of the store."""
    from ortrex.store import Store
    from ortrex.ui import console

    path = _db(db)
    with Store(path, read_only=True) as store:
        counts = store.counts()
        version = store.schema_version
    t = Table(title=str(path), caption=f"schema v{version}, {path.stat().st_size / 1e6:.1f} MB")
    t.add_column("table")
    t.add_column("rows", justify="right")
    for name, n in counts.items():
        t.add_row(name, f"{n:,}")
    console.print(t)


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors print one line and exit 2; ``--debug`` shows tracebacks."""
    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args or os.environ.get("ORTREX_DEBUG") == "1"
    try:
        # Standalone mode: typer reports usage errors itself (exit 2) and exits via SystemExit.
        app(args=args, prog_name="ortrex")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        if debug:
            raise
        if isinstance(exc, _user_errors()):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        print(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)",
              file=sys.stderr)
        return 1
    return 0
