"""Commands on the store: init, sql, lineage, info, report."""

from __future__ import annotations

import io
import sys
from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from ortrex.cli.app import DbOption, UsageError, app, atomic_write, store_path


@app.command()
def init(db: DbOption = None) -> None:
    """Create the store (or migrate an older one to the current schema)."""
    from ortrex.store import Store
    from ortrex.ui import console

    path = store_path(db)
    existed = path.exists()
    with Store(path, create=True, migrate=True) as store:
        counts = store.counts()
        console.print(f"{'opened' if existed else 'created'} store [bold]{path}[/] "
                      f"(schema v{store.schema_version}, {sum(counts.values())} rows)")


class OutFormat(StrEnum):
    """Output formats of ``ortrex sql``."""

    table = "table"
    csv = "csv"
    json = "json"
    parquet = "parquet"


class WalkFormat(StrEnum):
    """Output formats of ``ortrex lineage`` (it prints; ``ortrex sql`` writes files)."""

    table = "table"
    csv = "csv"
    json = "json"


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
    with Store(store_path(db), read_only=True) as store:
        df = store.query(query)
    if fmt is OutFormat.table:
        if output is not None:
            buf = io.StringIO()
            from rich.console import Console

            Console(file=buf, width=200).print(frame_table(df, max_rows=max_rows))
            atomic_write(output, buf.getvalue().encode())
        else:
            console.print(frame_table(df, max_rows=max_rows))
        return
    if fmt is OutFormat.parquet:
        buf_b = io.BytesIO()
        df.write_parquet(buf_b)
        atomic_write(output, buf_b.getvalue())  # type: ignore[arg-type]
        return
    text = printable(df, flat=True).write_csv() if fmt is OutFormat.csv else \
        printable(df).write_json()
    if fmt is OutFormat.json:
        text += "\n"
    if output is not None:
        atomic_write(output, text.encode())
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
    fmt: Annotated[WalkFormat, typer.Option("--format", help="table, csv or json.")]
    = WalkFormat.table,
    tree: Annotated[bool, typer.Option("--tree", help="Print the walk as a tree.")] = False,
) -> None:
    """Show the lineage of a node: its ancestors (default) and/or descendants."""
    import polars as pl

    from ortrex.store import Store
    from ortrex.store.lineage import node_labels, resolve_node, walk
    from ortrex.ui import console, frame_table

    directions = [d for d, on in (("ancestors", ancestors), ("descendants", descendants)) if on]
    with Store(store_path(db), read_only=True) as store:
        full = resolve_node(store, node_id)
        frames = [walk(store, full, d, depth).with_columns(direction=pl.lit(d))
                  for d in directions or ["ancestors"]]
        df = pl.concat(frames) if len(frames) > 1 else frames[0]
        labels = node_labels(store, sorted(set(df["parent_id"]) | set(df["child_id"])))
    if fmt is WalkFormat.csv:
        sys.stdout.write(df.write_csv())
        return
    if fmt is WalkFormat.json:
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


@app.command("info")
def info_cmd(db: DbOption = None) -> None:
    """Row counts per table of the store."""
    from ortrex.store import Store
    from ortrex.ui import console

    path = store_path(db)
    with Store(path, read_only=True) as store:
        counts = store.counts()
        version = store.schema_version
    t = Table(title=str(path), caption=f"schema v{version}, {path.stat().st_size / 1e6:.1f} MB")
    t.add_column("table")
    t.add_column("rows", justify="right")
    for name, n in counts.items():
        t.add_row(name, f"{n:,}")
    console.print(t)


def reference_statements() -> dict[str, list[str]]:
    """The problem statements of the shared public benchmarks, by title (none when the data
    is not beside the checkout)."""
    from ortrex.benchmarks.registry import TITLES, BenchmarkError, load, public_names

    out: dict[str, list[str]] = {}
    for name in public_names():
        try:
            items = load(name).items
        except (BenchmarkError, OSError):
            continue
        # bench4opt tells each reference model twice: both tellings count, once each.
        out[TITLES[name]] = list(dict.fromkeys(i.question for i in items))
    return out


@app.command("report")
def report_cmd(
    output: Annotated[Path, typer.Option("--output", help="HTML file to write.")]
    = Path("report.html"),
    review_seed: Annotated[int, typer.Option(
        "--review-seed", help="Seed of the operator review's sample of children.")] = 0,
    db: DbOption = None,
) -> None:
    """Write a self-contained HTML corpus report: distributions, outcomes by stage, operator
    acceptance and an operator review (rejections by reason, sampled children with a statement
    excerpt and their model's diff against the parent), the corpus by problem class,
    verification latency, and the corpus quality of the statements next to the public
    benchmarks."""
    from ortrex.engine.families import REGISTRY
    from ortrex.reports.corpus import write_report
    from ortrex.store import Store
    from ortrex.ui import console

    classes = {name: fam.classes for name, fam in REGISTRY.items()}
    with Store(store_path(db), read_only=True) as store:
        rep = write_report(store, output, reference_statements(), review_seed, classes)
    console.print(f"wrote [bold]{output}[/] ({len(rep.html) / 1e6:.1f} MB, "
                  f"{len(rep.sections)} sections, {rep.seconds:.1f} s)")
