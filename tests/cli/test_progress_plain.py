"""Off a terminal (a pipe, a log) long jobs print plain progress lines while they run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import time
from pathlib import Path

from rich.progress import Progress

from ortrex.ui import PlainProgress, plain_line, steady_speed

LINE = re.compile(r"^render: (\d+)/(\d+) instances \(\d+%\) · .*elapsed \d+:\d\d:\d\d")


def test_a_piped_pipeline_prints_progress_lines_while_it_runs(tmp_path: Path) -> None:
    env = {k: v for k, v in os.environ.items() if k != "ORTREX_DB"}
    env.update({"ORTREX_PROGRESS_EVERY": "0.5", "COLUMNS": "120"})
    cmd = [sys.executable, "-m", "ortrex", "pipeline", "--count", "8", "--families",
           "knapsack_01,diet", "--size", "small", "--workers", "1",
           "--db", str(tmp_path / "p.duckdb")]
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    assert proc.stderr is not None
    arrivals: list[tuple[float, str]] = []
    for line in proc.stderr:  # read as it comes: a line printed only at the end fails this
        arrivals.append((time.monotonic(), line.rstrip("\n")))
    proc.wait(timeout=600)
    ended = time.monotonic()
    assert proc.returncode == 0, "\n".join(t for _, t in arrivals)
    renders = [(t, m) for t, text in arrivals if (m := LINE.match(text))]
    assert len(renders) >= 3, [t for _, t in arrivals]
    # More than one line came before the job ended, and the counts only grow to the total.
    assert sum(1 for t, _ in renders if ended - t > 0.3) >= 2
    counts = [int(m.group(1)) for _, m in renders]
    assert counts == sorted(counts) and counts[-1] == int(renders[-1][1].group(2)) == 8
    assert any(text.startswith("accepted: 8/8 (100%)") for _, text in arrivals)
    assert not any("\x1b[" in text for _, text in arrivals)  # no terminal escapes in a log


def test_the_first_rate_readings_are_withheld_until_they_mean_something() -> None:
    bar = Progress(disable=True)
    task_id = bar.add_task("x", total=1000)
    task = bar.tasks[0]
    bar.advance(task_id, 50)  # a burst of results in the first milliseconds
    bar.advance(task_id, 50)
    assert task.speed is not None and task.speed > 1000  # rich's own reading: noise
    assert steady_speed(task) is None
    assert "/s" not in plain_line(task) and "ETA" not in plain_line(task)


def test_plain_progress_prints_at_an_interval_and_once_at_the_end() -> None:
    from io import StringIO

    from rich.console import Console

    out = StringIO()
    bar = PlainProgress(console=Console(file=out, width=200), every=0.1)
    with bar:
        t = bar.add_task("verify", total=4, unit="documents", note="")
        for i in range(4):
            bar.update(t, completed=i + 1, note=f"accepted {i + 1}")
            time.sleep(0.25)
    lines = out.getvalue().splitlines()
    assert lines[-1].startswith("verify: 4/4 documents (100%)")
    assert "accepted 4" in lines[-1]
    assert len(lines) >= 4  # one per interval while it ran, not only the last
    assert len(set(lines)) >= 3
