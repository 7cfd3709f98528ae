"""The benchmarks' self-test: score each reference program as if a model had answered with it,
and list the items that can never pass, with why.

B4O-Feasible runs ``reference_code`` with its data and compares the optimum with
``optimal_value``; B4O-ORGEval runs ``reference_code`` (which writes ``model.lp``) and checks
the LP against ``reference_lp_path`` with the equivalence checker. NL4OPT and OptiBench have no
reference programs: only items without a usable ground truth are listed.
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from ortrex.benchmarks.base import Benchmark, Item
from ortrex.served.client import Completion
from ortrex.served.scoring import score_completion
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool


@dataclass
class SelfTest:
    """What the self-test found for one benchmark."""

    benchmark: str
    items: int
    never_pass: list[dict[str, Any]] = field(default_factory=list)  # id, failure, detail
    twins: list[tuple[str, str]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly."""
        return {"benchmark": self.benchmark, "items": self.items,
                "never_pass": self.never_pass, "twins": [list(t) for t in self.twins]}


def reference_completion(item: Item) -> str:
    """A completion that answers an item with its reference program."""
    return f"Reference program.\n```python\n{item.reference_code}\n```\n"


def self_test(bench: Benchmark, workers: int = 2, rule: str = "default",
              exec_timeout: float = 120.0,
              progress: Callable[[int, int], None] | None = None) -> SelfTest:
    """Score every reference program of ``bench``."""
    st = SelfTest(bench.name, len(bench.items))
    st.twins = sorted({tuple(sorted((i.id, i.twin))) for i in bench.items if i.twin})  # type: ignore[misc]
    todo = [i for i in bench.items if i.reference_code]
    for it in bench.items:
        if it.unscoreable:
            st.never_pass.append({"id": it.id, "failure": "unscoreable",
                                  "detail": it.unscoreable})
    if not todo:
        return st
    limits = Limits(wall_s=exec_timeout, cpu_s=int(exec_timeout) + 1)
    sandboxes = SandboxPool()
    done = 0
    try:
        with ThreadPoolExecutor(max(1, workers)) as ex:
            futures = [ex.submit(score_completion, it, Completion(reference_completion(it)),
                                 sandboxes, limits, rule) for it in todo]
            for it, fut in zip(todo, futures, strict=True):
                v = fut.result()
                if not v.passed and not it.unscoreable:
                    st.never_pass.append({"id": it.id, "failure": v.failure,
                                          "detail": v.detail})
                done += 1
                if progress:
                    progress(done, len(todo))
    finally:
        sandboxes.close()
    st.never_pass.sort(key=lambda r: r["id"])
    return st


def conflicts(benches: list[Benchmark], rule: str = "default") -> list[dict[str, Any]]:
    """Questions that appear verbatim in two benchmarks with ground truths that disagree
    under ``rule`` (NL4OPT and OptiBench share most of NL4OPT's test questions)."""
    from ortrex.served.scoring import RULES

    same = RULES[rule][1]
    seen: dict[str, Item] = {}
    out = []
    for b in benches:
        for it in b.items:
            q = " ".join(it.question.split())
            other = seen.get(q)
            if other is not None and other.benchmark != it.benchmark and \
                    other.answer is not None and it.answer is not None and \
                    not same(it.answer, other.answer):
                out.append({"a": other.id, "a_answer": other.answer, "b": it.id,
                            "b_answer": it.answer})
            seen.setdefault(q, it)
    return out
