"""What a run shows and leaves: a progress line (step, loss, tokens/s, MFU), a JSONL log (one
line per step, validation losses on their steps), a loss / learning-rate plot and a summary."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

LOG = "log.jsonl"
PLOT = "loss.png"


def read_log(path: Path) -> list[dict[str, Any]]:
    """The complete lines of a run log (a line cut by a kill is not one)."""
    if not path.is_file():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except ValueError:
            break
    return out


class Log:
    """The run's JSONL log; on resume, cut back to the checkpoint's step."""

    def __init__(self, path: Path, keep_until: int | None) -> None:
        self.path = path
        if keep_until is None:
            path.unlink(missing_ok=True)
        else:
            kept = [r for r in read_log(path) if r.get("step", 0) <= keep_until]
            tmp = path.with_suffix(".tmp")
            tmp.write_text("".join(json.dumps(r) + "\n" for r in kept), encoding="utf-8")
            os.replace(tmp, path)
        self.f = open(path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def write(self, record: dict[str, Any]) -> None:
        """Append one line, flushed (a kill loses at most the line being written)."""
        self.f.write(json.dumps(record) + "\n")
        self.f.flush()

    def close(self) -> None:
        """Close the file."""
        self.f.close()


def title(stage: str, out: Path) -> str:
    """The plot's title: the stage, and the run folder where it says more (a run in
    ``runs/cpt`` is "CPT", not "cpt cpt")."""
    name = out.resolve().name
    return stage.upper() if name.lower() in (stage.lower(), "") else f"{stage.upper()}: {name}"


def plot(log_path: Path, out: Path, title: str) -> Path | None:
    """Training and validation losses and the learning rate against the step (PNG)."""
    rows = read_log(log_path)
    steps = [r for r in rows if "loss" in r]
    if not steps:
        return None
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, lr_ax) = plt.subplots(2, 1, figsize=(8, 6), sharex=True,
                                    gridspec_kw={"height_ratios": [3, 1]})
    ax.plot([r["step"] for r in steps], [r["loss"] for r in steps], label="train", lw=1.2)
    names = sorted({k[6:] for r in rows for k in r if k.startswith("valid/")})
    for name in names:
        pts = [(r["step"], r[f"valid/{name}"]) for r in rows if f"valid/{name}" in r]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], "o-", label=f"valid: {name}")
    ax.set_ylabel("loss (nats/token)")
    ax.set_title(title)
    ax.legend()
    ax.grid(alpha=0.3)
    lr_ax.plot([r["step"] for r in steps], [r["lr"] for r in steps], color="tab:gray")
    lr_ax.set_ylabel("learning rate")
    lr_ax.set_xlabel("step")
    lr_ax.grid(alpha=0.3)
    fig.tight_layout()
    tmp = out.with_name(out.name + ".tmp.png")
    fig.savefig(tmp, dpi=110)
    plt.close(fig)
    os.replace(tmp, out)
    return out


@contextmanager
def progress(total: int, start: int, enabled: bool) -> Iterator[Any]:
    """A progress bar: steps done of ``total``, loss, learning rate, tokens/s, MFU, ETA."""
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        TextColumn,
        TimeElapsedColumn,
    )

    from ortrex.ui import EtaColumn, progress

    if not enabled:
        yield lambda **kw: None
        return
    # Off a terminal (nohup, a log) the same display prints a plain line at a steady interval.
    with progress(TextColumn("[bold]step"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("{task.fields[info]}"), TimeElapsedColumn(),
                  EtaColumn(), transient=True) as bar:
        task = bar.add_task("step", total=total, completed=start, info="")

        def update(step: int, loss: float, lr: float, tps: float, mfu: float | None) -> None:
            m = "" if mfu is None else f", MFU {100 * mfu:.2f}%"
            bar.update(task, completed=step,
                       info=f"loss {loss:.4f}, lr {lr:.2e}, {tps:,.0f} tok/s{m}")

        yield update
