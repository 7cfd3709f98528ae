"""Terminal output: progress bars with rates on stderr, tables of DataFrames on stdout."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # polars costs ~0.1 s to import; only the table helpers need it
    import polars as pl

console = Console()
err_console = Console(stderr=True)


class RateColumn(ProgressColumn):
    """Items per second."""

    def render(self, task: Task) -> Text:
        speed = task.finished_speed or task.speed
        return Text("" if speed is None else f"{speed:,.1f}/s", style="progress.data.speed")


@contextmanager
def stages(units: dict[str, str] | None = None) -> Iterator[
        tuple[Callable[[str, int], None], Callable[..., None]]]:
    """A progress display driven by ``on_stage(name, total)`` and ``tick(name, note)``
    callbacks (the note: outcomes so far, such as accepted / rejected / failed)."""
    units = units or {}
    with Progress(TextColumn("[bold]{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[unit]}"), RateColumn(), TimeElapsedColumn(),
                  TimeRemainingColumn(), TextColumn("{task.fields[note]}"),
                  console=err_console, transient=True,
                  # Off a terminal nothing is shown until the end: a refresh thread would
                  # render the table ten times a second for no one.
                  auto_refresh=err_console.is_terminal) as bar:
        tasks: dict[str, object] = {}

        def on_stage(name: str, total: int) -> None:
            tasks[name] = bar.add_task(name, total=total, unit=units.get(name, "items"),
                                       note="")

        def tick(name: str, note: str | None = None) -> None:
            bar.advance(tasks[name])  # type: ignore[arg-type]
            if note is not None:
                bar.update(tasks[name], note=note)  # type: ignore[arg-type]

        yield on_stage, tick


@contextmanager
def job_progress(total: int, done: int = 0) -> Iterator[Callable[..., None]]:
    """Progress of a generation job: accepted of ``total``, rate, ETA, rejections by reason
    and failed tasks."""
    with Progress(TextColumn("[bold]accepted"), BarColumn(), MofNCompleteColumn(),
                  RateColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                  TextColumn("{task.fields[rejected]}"), console=err_console,
                  transient=True, auto_refresh=err_console.is_terminal) as bar:
        task = bar.add_task("generate", total=total, completed=done, rejected="")

        def update(accepted: int, tasks: int, rejected: dict[str, int], failed: int = 0
                   ) -> None:
            text = ", ".join(f"{k} {v}" for k, v in sorted(rejected.items()))
            bar.update(task, completed=accepted,
                       rejected=f"{tasks} tasks" + (f"; rejected: {text}" if text else "") +
                       (f"; failed: {failed}" if failed else ""))

        yield update


def _cell(value: object, width: int) -> str:
    if value is None:
        return "∅"
    if isinstance(value, bytes):
        return f"<{len(value)} bytes>"
    text = str(value)
    return text if len(text) <= width else text[: width - 1] + "…"


def frame_table(df: pl.DataFrame, title: str | None = None, max_rows: int = 100,
                width: int = 48) -> Table:
    """A rich Table of (the first ``max_rows`` rows of) ``df``."""
    table = Table(title=title, show_lines=False, header_style="bold")
    for name, dtype in zip(df.columns, df.dtypes, strict=True):
        table.add_column(name, justify="right" if dtype.is_numeric() else "left",
                         overflow="fold")
    for row in df.head(max_rows).iter_rows():
        table.add_row(*(_cell(v, width) for v in row))
    if df.height > max_rows:
        table.caption = f"{df.height - max_rows} more rows not shown (of {df.height})"
    elif title is None:
        table.caption = f"{df.height} row{'s' if df.height != 1 else ''}"
    return table


def printable(df: pl.DataFrame, flat: bool = False) -> pl.DataFrame:
    """``df`` with binary columns as base64 text (for CSV and JSON); ``flat`` (CSV): nested
    columns (lists, structs) as their JSON text, since a CSV cell holds one value."""
    import polars as pl

    binary = [c for c, t in zip(df.columns, df.dtypes, strict=True) if t == pl.Binary]
    if binary:
        df = df.with_columns(
            pl.col(c).map_elements(lambda b: base64.b64encode(b).decode(),
                                   return_dtype=pl.String) for c in binary)
    nested = [c for c, t in zip(df.columns, df.dtypes, strict=True) if t.is_nested()]
    if flat and nested:
        df = df.with_columns(pl.col(c).map_elements(
            lambda v: json.dumps(v.to_list() if isinstance(v, pl.Series) else v, default=str),
            return_dtype=pl.String) for c in nested)
    return df
