"""The served-model jobs' buffered writer: flush points, one transaction per flush, JSONL lines."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ortrex.flywheel.distill import row_buffer
from ortrex.jobs import TaskFailure
from ortrex.served.buffer import JsonlSink, RowBuffer, TableRows
from ortrex.store.db import Store
from ortrex.store.records import failure_row


class Recorder:
    """A sink that keeps every flush."""

    def __init__(self) -> None:
        self.flushes: list[tuple[TableRows, dict[str, list[str]]]] = []

    def write(self, rows: TableRows, drops: dict[str, list[str]]) -> None:
        """Keep one flush."""
        self.flushes.append((rows, drops))


def test_a_flush_every_n_items_and_nothing_when_empty() -> None:
    sink = Recorder()
    buf = RowBuffer(sink, every=3, age_s=3600)
    buf.flush()
    assert sink.flushes == []
    for k in range(7):
        buf.add("t", [{"id": k}])
        buf.finished()
    assert [[r["id"] for r in rows["t"]] for rows, _ in sink.flushes] == [[0, 1, 2], [3, 4, 5]]
    buf.flush()
    assert [r["id"] for r in sink.flushes[-1][0]["t"]] == [6]
    assert buf.pending == 0 and not buf.rows


def test_a_flush_once_the_batch_is_old(monkeypatch: pytest.MonkeyPatch) -> None:
    now = [100.0]
    monkeypatch.setattr("ortrex.served.buffer.time.monotonic", lambda: now[0])
    sink = Recorder()
    buf = RowBuffer(sink, every=100, age_s=1.0)
    buf.add("t", [{"id": 1}])
    buf.finished()
    assert sink.flushes == []
    now[0] += 1.5
    buf.add("t", [{"id": 2}])
    buf.finished()
    assert len(sink.flushes) == 1 and len(sink.flushes[0][0]["t"]) == 2


def _failure(key: str) -> dict[str, Any]:
    return failure_row("run", "distill", key, TaskFailure("error", "boom", "boom", 1))


def test_the_store_sink_drops_then_inserts_in_one_transaction(tmp_path: Path) -> None:
    with Store(tmp_path / "s.duckdb", create=True) as store:
        buf = row_buffer(store)
        buf.add("task_failures", [_failure("a"), _failure("b")])
        buf.flush()
        buf.drop("task_failures", ["run:a"])
        again = _failure("b") | {"error": "boom again"}
        buf.add("task_failures", [again])  # replaced: a rerun's failure is the newest
        buf.flush()
        rows = store.query("SELECT id, error FROM task_failures ORDER BY id").to_dicts()
    assert rows == [{"id": "run:b", "error": "boom again"}]


def test_the_jsonl_sink_appends_lines_and_cannot_delete(tmp_path: Path) -> None:
    path = tmp_path / "bench.jsonl"
    with path.open("a", encoding="utf-8") as out:
        buf = RowBuffer(JsonlSink({"bench": out}), every=1)
        buf.add("bench", [{"id": "x", "sample": 0}])
        buf.finished()
        assert path.read_text() == json.dumps({"id": "x", "sample": 0}) + "\n"  # flushed
        buf.drop("bench", ["x"])
        with pytest.raises(ValueError):
            buf.flush()
