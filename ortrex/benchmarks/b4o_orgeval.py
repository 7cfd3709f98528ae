"""B4O-ORGEval: bench4opt's problems, scored by the equivalence of the written LP with the
reference LP."""

from __future__ import annotations

from ortrex.benchmarks.base import register
from ortrex.benchmarks.bench4opt import Bench4Opt


@register
class B4OORGEval(Bench4Opt):
    """``bench4opt/``: ``reference_lp_path`` is the ground truth."""

    name = "b4o-orgeval"
    title = "B4O-ORGEval"
    scoring = "lp"
    folder = "bench4opt"
    files = ("bench4opt/test.jsonl",)
    reference_dirs = ("bench4opt/lp_code",)
    text_source = "bench4opt"
