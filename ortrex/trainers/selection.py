"""Checkpoint selection on several objectives at once: held-out losses (lower is better) and
an evaluation score (higher is better). The candidates on the Pareto front are ranked per
objective; the one with the best mean rank is selected (the later step on a tie), so no
objective's scale outweighs another's."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass
class Candidate:
    """One checkpoint and its objective values (None: not measured)."""

    step: int
    path: str
    losses: dict[str, float] = field(default_factory=dict)
    score: float | None = None
    pareto: bool = False
    mean_rank: float | None = None
    selected: bool = False

    def values(self, names: list[str], scored: bool) -> list[float]:
        """Objective values, all to be minimised."""
        v = [self.losses.get(n, float("inf")) for n in names]
        if scored:
            v.append(-(self.score if self.score is not None else float("-inf")))
        return v


def _dominates(a: list[float], b: list[float]) -> bool:
    return all(x <= y for x, y in zip(a, b, strict=True)) and any(
        x < y for x, y in zip(a, b, strict=True))


def select(cands: list[Candidate]) -> Candidate | None:
    """Mark the Pareto front, the mean ranks and the selected candidate; return it."""
    if not cands:
        return None
    names = sorted({n for c in cands for n in c.losses})
    scored = any(c.score is not None for c in cands)
    vals = {c.step: c.values(names, scored) for c in cands}
    if not names and not scored:
        best = max(cands, key=lambda c: c.step)
        best.selected = best.pareto = True
        return best
    for c in cands:
        c.pareto = not any(_dominates(vals[o.step], vals[c.step]) for o in cands if o is not c)
    k = len(vals[cands[0].step])
    ranks: dict[int, list[float]] = {c.step: [] for c in cands}
    for j in range(k):
        order = sorted(cands, key=lambda c: vals[c.step][j])
        for r, c in enumerate(order):
            ranks[c.step].append(r + 1)
    for c in cands:
        c.mean_rank = sum(ranks[c.step]) / k
    front = [c for c in cands if c.pareto]
    best = min(front, key=lambda c: (c.mean_rank, -c.step))
    best.selected = True
    return best


def table(title: str, cands: list[Candidate]) -> Any:
    """A rich table: one row per checkpoint, the selected one marked."""
    from rich.table import Table

    names = sorted({n for c in cands for n in c.losses})
    scored = any(c.score is not None for c in cands)
    t = Table(title=title, caption="losses on the held-out sets; the selected checkpoint is "
                                   "on the Pareto front with the best mean rank")
    t.add_column("checkpoint", justify="right", no_wrap=True)
    for n in names:
        t.add_column(f"loss {n}", justify="right", no_wrap=True)
    if scored:
        t.add_column("eval pass@1", justify="right")
    t.add_column("Pareto", justify="center")
    t.add_column("mean rank", justify="right")
    t.add_column("", justify="left", no_wrap=True, min_width=11)
    for c in sorted(cands, key=lambda c: c.step):
        row = [f"step {c.step}"] + [f"{c.losses[n]:.4f}" if n in c.losses else "" for n in names]
        if scored:
            row.append("" if c.score is None else f"{100 * c.score:.1f}%")
        row += ["yes" if c.pareto else "", "" if c.mean_rank is None else f"{c.mean_rank:.2f}",
                "<- selected" if c.selected else ""]
        t.add_row(*row, style="bold" if c.selected else None)
    return t
