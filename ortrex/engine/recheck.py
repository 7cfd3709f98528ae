"""Re-verification of stored documents: their static, sandbox, equivalence, fidelity,
completeness and language checks run again (after a change to a verifier, or to audit a
store), status updated."""

from __future__ import annotations

import json
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ortrex.engine.jobs import Executor, make_executor
from ortrex.engine.verify_doc import (
    Check,
    check_row,
    verify_completeness,
    verify_language,
    verify_program,
    verify_statement,
)
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.store.db import Store, utcnow


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
    """The worker-side checks of a stored document, run again (worker side)."""
    sm = SemanticModel.loads(t.semantic)
    instance = CanonicalModel.from_bytes(zlib.decompress(t.model))
    fidelity = verify_statement(sm, t.form, t.statement, t.files)
    prog = verify_program(t.program, t.files, instance, t.objective,
                          "model" if t.solver == "gurobipy" else "h")
    checks = [fidelity]
    if t.completeness is not None:
        checks.append(verify_completeness(sm, t.statement, t.completeness.get("layout", ""),
                                          t.completeness.get("account", {})))
    return [*checks, verify_language(sm, t.text or t.statement), *prog.checks]


@dataclass
class RecheckReport:
    """What re-verification found."""

    documents: int = 0
    passed: int = 0
    failed: Counter[str] = field(default_factory=Counter)
    changed: int = 0
    seconds: float = 0.0


def recheck_documents(store: Store, workers: int = 1, limit: int | None = None,
                      executor: Executor | None = None,
                      on_result: Callable[[RecheckReport], None] | None = None,
                      batch: int = 128) -> RecheckReport:
    """Run the static, sandbox, equivalence and fidelity checks of stored documents again and
    update their status (corpus-level verdicts, near-duplicate and contamination, are kept)."""
    start = time.perf_counter()
    df = store.query(
        "SELECT d.id, d.form, d.statement, d.data_files, d.program, d.solver, d.objective, "
        "s.model AS semantic, i.model, d.text, c.details, d.status FROM documents d "
        "JOIN instances i ON i.id = d.instance_id "
        "LEFT JOIN verifications c ON c.subject_id = d.id AND c.verifier = 'completeness' "
        "JOIN semantic_models s ON s.id = coalesce(d.semantic_id, i.semantic_id) "
        "WHERE d.statement IS NOT NULL AND d.program IS NOT NULL ORDER BY d.created_at, d.id" +
        (f" LIMIT {int(limit)}" if limit is not None else ""))
    rows = list(df.iter_rows())
    tasks = [RecheckTask(did, form, st, json.loads(files) if files else {}, prog, solver or
                         "gurobipy", float(obj), sem, model, text or "",
                         json.loads(comp) if comp else None)
             for did, form, st, files, prog, solver, obj, sem, model, text, comp, _ in rows]
    before = {r[0]: r[-1] for r in rows}
    corpus = store.query(
        "SELECT subject_id, verifier, details FROM verifications WHERE subject_kind = "
        "'document' AND verifier IN ('near_duplicate', 'decontamination') AND status = 'fail'")
    corpus_fail = {sid: (ver, json.loads(det or "{}").get("why"))
                   for sid, ver, det in corpus.iter_rows()}
    report = RecheckReport()
    own = executor is None
    executor = executor or make_executor(workers)
    now = utcnow()
    updates: list[tuple[str, str | None, str | None, str]] = []
    ver_rows: list[dict[str, Any]] = []

    def flush() -> None:
        if not updates:
            return
        with store.transaction():
            store.insert("verifications", ver_rows, on_conflict="replace")
            store.conn.executemany(
                "UPDATE documents SET status = ?, reject_reason = ?, reject_detail = ? "
                "WHERE id = ?", [(s, r, d, i) for i, r, d, s in updates])
        updates.clear()
        ver_rows.clear()

    try:
        for t, checks in zip(tasks, executor.map(recheck_task, tasks), strict=False):
            failed = next((c for c in checks if not c.ok), None)
            reason, detail = (failed.verifier, failed.details.get("why")) if failed else \
                corpus_fail.get(t.doc_id, (None, None))
            status = "accepted" if reason is None else "rejected"
            updates.append((t.doc_id, reason, detail, status))
            ver_rows.extend({**check_row(t.doc_id, c), "created_at": now, "run_id": None}
                            for c in checks)
            report.documents += 1
            report.changed += before[t.doc_id] != status
            if failed is None:
                report.passed += 1
            else:
                report.failed[failed.verifier] += 1
            if on_result:
                on_result(report)
            if len(updates) >= batch:
                flush()
        flush()
    finally:
        if own:
            executor.close()
    report.seconds = time.perf_counter() - start
    return report
