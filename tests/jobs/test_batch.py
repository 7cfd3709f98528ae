"""The batch writer and ``run_job``: per-table policies on a real store, executor lifetime."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ortrex.jobs import IGNORE, REPLACE, BatchWriter, InlineExecutor, Policy, TaskFailure, run_job
from ortrex.store import Store
from ortrex.store.records import failure_row, lineage_row, run_task_row


def edge(child: str, op: str) -> dict[str, Any]:
    return lineage_row("p", "x", child, "y", "rendered", operator=op, run_id="r")


def test_policies_dedup_and_conflicts(tmp_path: Path) -> None:
    with Store(tmp_path / "b.duckdb", create=True) as s:
        w = BatchWriter(s, {"lineage": IGNORE, "run_tasks": Policy("replace", keep="last")}, 2)
        first, second = edge("c", "sft:a"), edge("c", "sft:b")  # one id (the kind), two rows
        w.put("lineage", [first, second])
        w.put("run_tasks", [run_task_row("r", 0, 0, "f", "rejected"),
                            run_task_row("r", 0, 0, "f", "accepted")])
        w.task_done()
        assert not w.due()
        w.task_done()
        assert w.due()
        w.flush()
        assert s.query("SELECT operator FROM lineage").item() == "sft:a"  # first kept
        assert s.query("SELECT outcome FROM run_tasks").item() == "accepted"  # last kept
        # ignore keeps the stored row; replace overwrites it.
        w.put("lineage", [second])
        w.put("run_tasks", [run_task_row("r", 0, 0, "f", "failed")])
        w.task_done()
        w.flush()
        assert s.query("SELECT operator FROM lineage").item() == "sft:a"
        assert s.query("SELECT outcome FROM run_tasks").item() == "failed"
        assert not w.pending and not w.rows


class Sums(BatchWriter):
    def add(self, task: int, result: int) -> None:
        self.put("run_tasks", [run_task_row("r", task, task, "f", "accepted",
                                            reason=str(result))])
        self.task_done()

    def fail(self, task: int, failure: TaskFailure) -> None:
        self.put("task_failures", [failure_row("r", "test", str(task), failure)])
        self.task_done()


def boom(k: int) -> int:
    if k == 2:
        raise ValueError("two")
    return k * k


def test_run_job_hooks_and_executor_lifetime(tmp_path: Path) -> None:
    events: list[str] = []

    class Watched(InlineExecutor):
        def close(self) -> None:
            events.append("closed")

    with Store(tmp_path / "j.duckdb", create=True) as s:
        w = Sums(s, {"run_tasks": IGNORE, "task_failures": REPLACE}, batch=2)
        stats = run_job(range(5), boom, w, executor=Watched(),
                        start=lambda: events.append("start"),
                        finish=lambda st: events.append(f"finish {st.tasks} {st.failed}"))
        assert (stats.tasks, stats.failed) == (5, 1)
        assert events == ["start", "finish 5 1"]  # a given executor stays open
        assert s.query("SELECT count(*) FROM run_tasks").item() == 4
        assert s.query("SELECT task_key FROM task_failures").item() == "2"
