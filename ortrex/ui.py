"""Terminal output: progress bars with rates on stderr, tables of DataFrames on stdout."""

from __future__ import annotations

import base64
import json
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from typing import TYPE_CHECKING, Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

if TYPE_CHECKING:  # polars costs ~0.1 s to import; only the table helpers need it
    import polars as pl

console = Console()
err_console = Console(stderr=True)


WARMUP = 3.0  # seconds of samples before a rate or an ETA is shown (the first are noise)
SPEED_WINDOW = 60.0  # the rate is items per second over about the last minute


def steady_speed(task: Task) -> float | None:
    """Items per second over the task's recent samples, once they span ``WARMUP`` seconds (a
    burst of results in the first moments reads as thousands per second otherwise)."""
    if task.finished_speed:
        return task.finished_speed
    with task._lock:
        samples = list(task._progress)
    if len(samples) < 2 or samples[-1].timestamp - samples[0].timestamp < WARMUP:
        return None
    return task.speed


def eta(task: Task) -> float | None:
    """Seconds left at the steady rate (None while it warms up or without a total)."""
    speed = steady_speed(task)
    if task.total is None or not speed:
        return None
    return max(task.total - task.completed, 0) / speed


class RateColumn(ProgressColumn):
    """Items per second (smoothed; blank while it warms up)."""

    def render(self, task: Task) -> Text:
        speed = steady_speed(task)
        return Text("" if speed is None else f"{speed:,.1f}/s", style="progress.data.speed")


class EtaColumn(ProgressColumn):
    """Time left at the steady rate."""

    def render(self, task: Task) -> Text:
        left = eta(task)
        text = "-:--:--" if left is None else str(timedelta(seconds=int(left)))
        return Text(text, style="progress.remaining")


def _fields(task: Task) -> str:
    parts = []
    for key, value in task.fields.items():
        if key == "unit":
            continue
        if isinstance(value, str):
            if value.strip():
                parts.append(value.strip())
        elif isinstance(value, int | float):
            parts.append(f"{_FIELD_NAMES.get(key, key)} {value:,}")
    return "; ".join(parts)


_FIELD_NAMES = {"docs": "documents", "tok": "tokens"}


def plain_line(task: Task) -> str:
    """One progress line for a log: done/total, percent, rate, elapsed, ETA, outcomes."""
    done = f"{int(task.completed):,}"
    if task.total is not None:
        done += f"/{int(task.total):,}"
    if task.fields.get("unit"):
        done += f" {task.fields['unit']}"
    if task.total is not None:
        done += f" ({task.percentage:.0f}%)"
    parts = [f"{task.description}: {done}"]
    speed = steady_speed(task)
    if speed is not None:
        parts.append(f"{speed:,.1f}/s")
    parts.append(f"elapsed {timedelta(seconds=int(task.elapsed or 0))}")
    left = eta(task)
    if left is not None and not task.finished:
        parts.append(f"ETA {timedelta(seconds=int(left))}")
    extra = _fields(task)
    return " · ".join(parts) + (f" · {extra}" if extra else "")


def progress_every() -> float:
    """Seconds between plain progress lines (``ORTREX_PROGRESS_EVERY``, default 10)."""
    try:
        return max(float(os.environ.get("ORTREX_PROGRESS_EVERY", "10")), 0.05)
    except ValueError:
        return 10.0


class PlainProgress(Progress):
    """Progress off a terminal (a pipe, a log, nohup, CI): no live display, a plain line per
    task at a steady interval and once at the end, so a long job never looks hung."""

    def __init__(self, *columns: Any, every: float | None = None, **kwargs: Any) -> None:
        kwargs.pop("auto_refresh", None)
        kwargs.pop("transient", None)
        kwargs.setdefault("speed_estimate_period", SPEED_WINDOW)
        super().__init__(*columns, disable=True, **kwargs)
        self.every = progress_every() if every is None else every
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._said: dict[int, str] = {}
        self._failed = False

    def start(self) -> None:
        """Start the interval printer."""
        self._thread = threading.Thread(target=self._loop, name="ortrex-progress", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the printer and print each task's last line (not when the job failed: its
        error is then the one line that matters)."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        if not self._failed:
            self.say(final=True)

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self._failed = exc_type is not None
        super().__exit__(exc_type, exc, tb)

    def _loop(self) -> None:
        while not self._done.wait(self.every):
            self.say()

    def say(self, final: bool = False) -> None:
        """Print a line per started task (at the end only those that changed since)."""
        for task in self.tasks:
            if not task.visible or (task.total is None and not task.completed and
                                    not _fields(task)):
                continue
            line = plain_line(task)
            key = int(task.id)
            if final and self._said.get(key, "").split(" · ")[0] == line.split(" · ")[0]:
                continue  # the count has not moved since its last line
            self._said[key] = line
            self.console.print(line, markup=False, highlight=False, soft_wrap=True)


def progress(*columns: Any, **kwargs: Any) -> Progress:
    """A rich progress display on a terminal, ``PlainProgress`` lines anywhere else."""
    con = kwargs.setdefault("console", err_console)
    kwargs.setdefault("speed_estimate_period", SPEED_WINDOW)
    if con.is_terminal:
        return Progress(*columns, **kwargs)
    return PlainProgress(*columns, **kwargs)


@contextmanager
def stages(units: dict[str, str] | None = None) -> Iterator[
        tuple[Callable[[str, int], None], Callable[..., None]]]:
    """A progress display driven by ``on_stage(name, total)`` and ``tick(name, note)``
    callbacks (the note: outcomes so far, such as accepted / rejected / failed)."""
    units = units or {}
    with progress(TextColumn("[bold]{task.description:<8}"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[unit]}"), RateColumn(), TimeElapsedColumn(),
                  EtaColumn(), TextColumn("{task.fields[note]}"), transient=True) as bar:
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
    with progress(TextColumn("[bold]accepted"), BarColumn(), MofNCompleteColumn(),
                  RateColumn(), TimeElapsedColumn(), EtaColumn(),
                  TextColumn("{task.fields[rejected]}"), transient=True) as bar:
        task = bar.add_task("accepted", total=total, completed=done, rejected="")

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
