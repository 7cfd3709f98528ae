"""Commands on model files: import-lp, solve, equiv."""

from __future__ import annotations

import json
import os
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ortrex.cli.app import FORMATS, DbOption, UsageError, app, store_path
from ortrex.cli.options import (
    DEFAULT_WORKERS,
    CpusPerTaskOption,
    ExecutorOption,
    RayAddressOption,
    RetriesOption,
    WorkersOption,
    executor,
)


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
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
) -> None:
    """Import model files as instances, with file provenance as lineage."""
    from ortrex.benchmarks.registry import reference_model_paths
    from ortrex.engine.ingest.models import commit_import, prepare_import
    from ortrex.store import Store
    from ortrex.ui import console, stages

    paths: list[Path] = list(files or [])
    if not paths:
        paths = reference_model_paths()
        if not paths:
            raise UsageError("no FILES given and the shared reference LPs were not found "
                             "(set ORTREX_BENCHMARKS to the benchmarks folder)")
    path = store_path(db)
    # An existing store is checked first, so a lock or a bad file stops us before any work, and
    # released while we parse (DuckDB readers wait for a writer). A new store is created only
    # once every input has parsed, so bad input leaves nothing behind.
    if path.exists():
        Store(path).close()
    ex = executor(workers, executor_kind, ray_address, cpus_per_task, retries)
    try:
        with stages({"parse": "files", "solve": "instances"}) as (on_stage, tick):
            prep = prepare_import(paths, family=family, solve=solve, skip_bad=skip_bad,
                                  workers=workers, progress=tick, on_stage=on_stage,
                                  executor=ex)
    finally:
        ex.close()
    with Store(path, create=True) as store:
        report = commit_import(store, prep)
    console.print(_import_table(report, path))
    for line in report.skipped:
        console.print(f"[yellow]skipped[/] {line}")


def _import_table(report: object, path: Path) -> Table:
    from ortrex.engine.ingest.models import ImportReport

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
    from ortrex.ir.formats.errors import UnsupportedFeatureError

    try:
        model = read_model(file, fmt)
    except UnsupportedFeatureError as exc:
        # Indicators, SOS, general constraints: Gurobi reads them, in exact linear form.
        from ortrex.ir.formats.general import read_general_file

        model = read_general_file(file, exc)
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


@app.command("equiv")
def equiv_cmd(
    a: Annotated[Path | None, typer.Argument(help="Model A (LP, MPS or JSON).",
                                             show_default=False)] = None,
    b: Annotated[Path | None, typer.Argument(help="Model B.", show_default=False)] = None,
    pairs: Annotated[Path | None, typer.Option(
        help="JSONL file of {\"a\": path, \"b\": path, ...} lines (paths relative to it); "
             "one JSON result per line, in input order.", show_default=False)] = None,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    retries: RetriesOption = 2,
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
        ex = executor(workers, executor_kind, ray_address, cpus_per_task, retries)
        try:
            _equiv_pairs(pairs, ex, rel_tol, limit, output, certificate)
        finally:
            ex.close()
        return
    if a is None or b is None:
        raise UsageError("give two model files A B, or --pairs FILE")
    from ortrex.ui import console
    from ortrex.verifiers.equivalence.check import EQUIVALENT, UNDECIDED, check_equivalence

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


def _equiv_pairs(path: Path, ex: object, rel_tol: float, time_limit: float | None,
                 output: Path | None, certificate: bool) -> None:
    import tempfile

    from ortrex.ui import err_console, stages
    from ortrex.verifiers.equivalence.pairs import read_pairs, run_pairs

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
        from ortrex.ir.formats.text import umask_mode

        os.fchmod(fd, umask_mode())
        sink = os.fdopen(fd, "w", encoding="utf-8")
    try:
        with stages({"pairs": "pairs"}) as (on_stage, tick):
            on_stage("pairs", total)

            def emit(rec: dict[str, object]) -> None:
                sink.write(json.dumps(rec) + "\n")
                tick("pairs")

            report = run_pairs(read_pairs(path), emit, rel_tol=rel_tol,
                               time_limit=time_limit, certificate=certificate,
                               executor=ex)  # type: ignore[arg-type]
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
    t.caption = (f"{report.seconds:.2f} s, {rate:,.1f} pairs/s, {ex.workers} worker(s) "  # type: ignore[attr-defined]
                 f"on {ex.kind}")  # type: ignore[attr-defined]
    err_console.print(t)
