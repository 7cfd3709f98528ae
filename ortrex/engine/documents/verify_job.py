"""Re-verification of stored documents: their static, sandbox, equivalence, fidelity,
completeness and language checks run again (after a change to a verifier, or to audit a
store), status updated."""

from __future__ import annotations

import json
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.jobs import BatchWriter, DriveStats, Executor, Policy, TaskFailure
from ortrex.jobs import run_job as run_batch
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id
from ortrex.store.records import failure_row, finish_run, start_run
from ortrex.verifiers.checks.document import Check, check_row
from ortrex.verifiers.checks.registry import DocContext, corpus_checks, run_checks

REPLACE_LAST = Policy("replace", keep="last")  # a document is re-checked once per run


@dataclass
class RecheckTask:
    """A stored document and what its checks need."""

    doc_id: str
    form: str
    statement: str
    files: dict[str, str]
    program: str
    solver: str
    objective: float
    semantic: str
    model: bytes
    text: str = ""  # the whole document (the language gate reads its prose)
    # The completeness verdict's evidence as rendering stored it (None: none was stored).
    completeness: dict[str, Any] | None = None


def recheck_task(t: RecheckTask) -> list[Check]:
    """The worker-side checks of a stored document, run again: the same list rendering runs
    (``ortrex.verifiers.checks.registry``), with what the store kept of the statement's account."""
    comp = t.completeness or {}
    return run_checks(DocContext(
        t.text or t.statement, t.statement, t.files, t.form, t.program, t.solver,
        SemanticModel.loads(t.semantic), CanonicalModel.from_bytes(zlib.decompress(t.model)),
        t.objective, comp.get("layout") if t.completeness is not None else None,
        comp.get("account", {})))


@dataclass
class RecheckReport:
    """What re-verification found."""

    documents: int = 0
    passed: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    changed: int = 0
    task_failures: int = 0  # documents whose re-check raised or crashed on every attempt
    seconds: float = 0.0
    run_id: str = ""


class RecheckWriter(BatchWriter):
    """Status updates and verdict rows, committed in batches (the single writer)."""

    def __init__(self, store: Store, run_id: str, before: dict[str, str],
                 corpus_fail: dict[str, tuple[str, str | None]], report: RecheckReport,
                 batch: int) -> None:
        super().__init__(store, {"verifications": REPLACE_LAST, "task_failures": REPLACE_LAST},
                         batch)
        self.db, self.run_id, self.before = store, run_id, before
        self.corpus_fail, self.report = corpus_fail, report
        self.updates: list[tuple[str, str | None, str | None, str]] = []

    def add(self, t: RecheckTask, checks: list[Check]) -> None:
        """Buffer one document's new verdicts and status."""
        failed = next((c for c in checks if not c.ok), None)
        reason, detail = (failed.verifier, failed.details.get("why")) if failed else \
            self.corpus_fail.get(t.doc_id, (None, None))
        status = "accepted" if reason is None else "rejected"
        self.updates.append((t.doc_id, reason, detail, status))
        now = utcnow()
        self.put("verifications", ({**check_row(t.doc_id, c), "created_at": now,
                                    "run_id": self.run_id} for c in checks))
        self.task_done()
        self.report.documents += 1
        self.report.changed += self.before[t.doc_id] != status
        if failed is None:
            self.report.passed += 1
        else:
            self.report.failed[failed.verifier] += 1

    def fail(self, t: RecheckTask, failure: TaskFailure) -> None:
        """Record a re-check that raised or crashed on every attempt."""
        # The document keeps its status: a re-check that could not run proves nothing.
        self.put("task_failures", [failure_row(self.run_id, "verify documents", t.doc_id,
                                               failure)])
        self.task_done()
        self.report.documents += 1
        self.report.task_failures += 1

    def write_more(self) -> None:
        """The documents' new statuses."""
        if self.updates:
            self.db.conn.executemany(
                "UPDATE documents SET status = ?, reject_reason = ?, reject_detail = ? "
                "WHERE id = ?", [(s, r, d, i) for i, r, d, s in self.updates])
        self.updates.clear()


PAGE = 256


def _tasks(store: Store, ids: list[str]) -> Iterator[RecheckTask]:
    """The re-check tasks of ``ids``, in order, read from the store a page at a time."""
    for p in range(0, len(ids), PAGE):
        page = ids[p:p + PAGE]
        df = store.query(
            "SELECT d.id, d.form, d.statement, d.data_files, d.program, d.solver, d.objective, "
            "s.model AS semantic, i.model, d.text, c.details FROM documents d "
            "JOIN instances i ON i.id = d.instance_id "
            "LEFT JOIN verifications c ON c.subject_id = d.id AND c.verifier = 'completeness' "
            "JOIN semantic_models s ON s.id = coalesce(d.semantic_id, i.semantic_id) "
            "WHERE d.id IN (SELECT unnest(?))", [page])
        got = {r[0]: r for r in df.iter_rows()}
        for did in page:
            _, form, st, files, prog, solver, obj, sem, model, text, comp = got[did]
            yield RecheckTask(did, form, st, json.loads(files) if files else {}, prog,
                              solver or "gurobipy", float(obj), sem, model, text or "",
                              json.loads(comp) if comp else None)


def recheck_documents(store: Store, workers: int = 1, limit: int | None = None,
                      executor: Executor | None = None,
                      on_result: Callable[[RecheckReport], None] | None = None,
                      batch: int = 128) -> RecheckReport:
    """Run the worker-side checks of stored documents again and update their status
    (corpus-level verdicts, near-duplicate and contamination, are kept)."""
    start = time.perf_counter()
    # Ids and statuses up front; the documents and their models a page at a time (the
    # driver's memory stays flat however large the store).
    df = store.query(
        "SELECT d.id, d.status FROM documents d JOIN instances i ON i.id = d.instance_id "
        "WHERE d.statement IS NOT NULL AND d.program IS NOT NULL ORDER BY d.created_at, d.id" +
        (f" LIMIT {int(limit)}" if limit is not None else ""))
    before = dict(df.iter_rows())
    tasks = _tasks(store, list(before))
    corpus_names = sorted({v for c in corpus_checks() for v in c.verifiers})
    corpus = store.query(
        "SELECT subject_id, verifier, details FROM verifications WHERE subject_kind = "
        "'document' AND verifier IN (SELECT unnest(?)) AND status = 'fail'", [corpus_names])
    corpus_fail = {sid: (ver, json.loads(det or "{}").get("why"))
                   for sid, ver, det in corpus.iter_rows()}
    # Each re-check is its own run (the documents' verdicts as of now).
    run_id = content_id("run", "verify-documents", limit, utcnow().isoformat())
    report = RecheckReport(run_id=run_id)
    writer = RecheckWriter(store, run_id, before, corpus_fail, report, batch)

    def finish(_: DriveStats) -> None:
        report.seconds = time.perf_counter() - start
        finish_run(store, run_id, {"documents": report.documents, "passed": report.passed,
                                   "changed": report.changed, "failed": dict(report.failed),
                                   "task_failures": report.task_failures})

    run_batch(tasks, recheck_task, writer, executor=executor, workers=workers,
              start=lambda: start_run(store, run_id, "verify documents",
                                      {"workers": workers, "limit": limit}),
              finish=finish, on_result=(lambda _t, _r: on_result(report)) if on_result else None)
    return report
