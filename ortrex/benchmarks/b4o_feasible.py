"""B4O-Feasible: bench4opt's feasible problems, scored by their optimal objective."""

from __future__ import annotations

from ortrex.benchmarks.base import register
from ortrex.benchmarks.bench4opt import Bench4Opt


@register
class B4OFeasible(Bench4Opt):
    """``bench4opt_feasible/``: ``optimal_value`` is the ground truth."""

    name = "b4o-feasible"
    title = "B4O-Feasible"
    folder = "bench4opt_feasible"
    files = ("bench4opt_feasible/test.jsonl",)
    reference_dirs = ("bench4opt_feasible/lp_code",)
    text_source = "bench4opt_feasible"
