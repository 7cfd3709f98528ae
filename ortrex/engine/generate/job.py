"""The generate job: a spec, its worker and the single writer, driven by ``ortrex.jobs``.

The spec says *what* to generate (families, count, seed, size); an executor says *where* the
tasks run (inline, local processes, Ray). Task ``k`` draws from its own random stream seeded by
(seed, k), so results do not depend on the executor or the number of workers. The writer
consumes results strictly in task order, commits them in transactional batches with a
``run_tasks`` row per task, and stops once ``count`` instances are accepted; a killed job
resumes after its last committed task. A task that fails on every attempt is a ``failed`` task
with a ``task_failures`` row, and the job goes on.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
import zlib
from collections import Counter
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from ortrex.engine.families import REGISTRY, SIZES
from ortrex.engine.generate.pipeline import TaskResult, run_task, verification_rows
from ortrex.ir.canonical import CanonicalModel
from ortrex.jobs import (
    MAX_WORKERS,
    Executor,
    InlineExecutor,
    JobError,
    LocalExecutor,
    TaskFailure,
    drive,
    make_executor,
)
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id, edge_id
from ortrex.store.records import failure_row, finish_run, instance_row, load_instance, start_run
from ortrex.verifiers.equivalence.check import UNDECIDED, check_equivalence

MIX = (("small", 0.30), ("medium", 0.45), ("large", 0.25))  # the default size mix
EQUIV_TIME_LIMIT = 10.0  # seconds to confirm that equal fingerprints mean a duplicate


@dataclass(frozen=True)
class JobSpec:
    """What to generate. Tasks cycle through ``families``; ``count`` accepted instances."""

    families: tuple[str, ...]
    count: int
    seed: int = 0
    size: str = "small"
    time_limit: float = 10.0

    def __post_init__(self) -> None:
        unknown = [f for f in self.families if f not in REGISTRY]
        if unknown:
            raise JobError(f"unknown famil{'ies' if len(unknown) > 1 else 'y'} "
                           f"{', '.join(unknown)}; known: {', '.join(sorted(REGISTRY))}")
        if not self.families:
            raise JobError("no families selected")
        if self.count <= 0:
            raise JobError(f"--count must be positive, got {self.count}")
        if self.size not in (*SIZES, "mix"):
            raise JobError(f"unknown size {self.size!r}; expected one of "
                           f"{', '.join(SIZES)} or mix")
        if not self.time_limit > 0:
            raise JobError(f"time limit must be positive, got {self.time_limit}")

    @classmethod
    def parse_families(cls, text: str) -> tuple[str, ...]:
        """``all`` or a comma-separated list (order kept, duplicates dropped)."""
        if text.strip() == "all":
            return tuple(sorted(REGISTRY))
        names = [t.strip() for t in text.split(",") if t.strip()]
        return tuple(dict.fromkeys(names))

    @property
    def run_id(self) -> str:
        """Content-derived run id: the same spec is the same run (and can be resumed). The
        count is not part of it: tasks are the same whatever the target, so a larger count
        continues the same run."""
        return content_id("run", "generate", {k: v for k, v in asdict(self).items()
                                              if k != "count"})

    def family_of(self, task: int) -> str:
        """Family of task ``task`` (round robin)."""
        return self.families[task % len(self.families)]

    def size_of(self, task: int) -> str:
        """Size band of task ``task``: the spec's, or for ``mix`` one drawn from ``MIX``."""
        return mix_size(self.seed, task) if self.size == "mix" else self.size


def mix_size(seed: int, task: int) -> str:
    """The size band task ``task`` of a ``mix`` job draws: small, medium or large (30/45/25,
    so medium is the median). A hash of (seed, task), not the task's random stream, so the
    instance's own draws stay as they are for a given band, and reruns draw the same bands."""
    digest = hashlib.blake2b(f"size-mix:{seed}:{task}".encode(), digest_size=8).digest()
    u = int.from_bytes(digest, "little") / 2**64
    for band, share in MIX:
        u -= share
        if u < 0:
            return band
    return MIX[-1][0]


def _task(args: tuple[JobSpec, int]) -> TaskRecord:
    spec, k = args
    return to_record(run_task(spec.family_of(k), spec.size_of(k), spec.seed, k,
                              spec.time_limit, threads=1))


@dataclass
class JobReport:
    """Final counts of a job."""

    run_id: str
    tasks: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    failed: int = 0
    by_family: dict[str, Counter[str]] = field(default_factory=dict)
    bands: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    resumed_from: int = 0
    seconds: float = 0.0
    solver_seconds: float = 0.0
    worker_seconds: float = 0.0
    writer_cpu_seconds: float = 0.0
    workers: int = 1
    complete: bool = False

    def summary(self) -> dict[str, Any]:
        """Counts and rates as a JSON-friendly dict."""
        busy = self.seconds * max(1, self.workers)
        return {"run_id": self.run_id, "tasks": self.tasks, "accepted": self.accepted,
                "rejected": dict(self.rejected), "failed": self.failed,
                "bands": dict(self.bands),
                "seconds": self.seconds, "resumed_from": self.resumed_from,
                "solver_share": self.solver_seconds / busy if busy else 0.0}


@dataclass
class TaskRecord:
    """A task's outcome as ready-made rows, built in the worker so the writer stays cheap."""

    task: int
    family: str
    instance_id: str
    semantic_id: str
    structural_fp: str
    accepted: bool
    reason: str | None
    detail: str | None
    band: str
    statuses: list[tuple[str, str]]
    solver_seconds: float
    seconds: float
    instance: dict[str, Any]
    semantic: dict[str, Any]
    verifications: list[dict[str, Any]]


def to_record(r: TaskResult) -> TaskRecord:
    """Serialise a task result into rows (everything but run-specific columns)."""
    m, sm, o = r.model, r.semantic, r.outcome
    iid = m.content_hash
    instance = instance_row(m, family=r.family, difficulty=o.score, difficulty_band=o.band,
                            objective=o.objective, semantic_id=sm.content_id, domain=sm.domain,
                            flags=json.dumps(o.flags) if o.flags else None)
    semantic = {"id": sm.content_id, "family": sm.family, "domain": sm.domain,
                "schema_version": sm.schema_version, "model": sm.dumps(),
                "descriptors": json.dumps(dict(sm.descriptors), sort_keys=True)}
    verifications = verification_rows(iid, o)
    return TaskRecord(
        r.task, r.family, iid, sm.content_id, m.structural_fingerprint, o.accepted,
        o.rejection.reason if o.rejection else None, o.rejection.detail if o.rejection else None,
        o.band, [(res.solver, res.status.value) for res in o.results], o.solver_seconds,
        r.seconds, instance, semantic, verifications)


class Writer:
    """The single writer: buffers task records and commits them in transactional batches."""

    def __init__(self, store: Store, spec: JobSpec, batch: int = 256,
                 max_delay: float = 2.0) -> None:
        self.store, self.spec = store, spec
        self.batch, self.max_delay = batch, max_delay
        self.rows: dict[str, list[dict[str, Any]]] = {}
        self.pending = 0
        self.last_flush = time.monotonic()
        self.run_id = spec.run_id
        df = store.query("SELECT structural_fp, id FROM instances WHERE status = 'accepted' "
                         "ORDER BY created_at, id")
        # Fingerprint -> accepted instances with it (two only after a proven collision).
        self.accepted_fp: dict[str, list[str]] = {}
        for fp, iid in df.iter_rows():
            self.accepted_fp.setdefault(fp, []).append(iid)
        self.buffered_models: dict[str, bytes] = {}  # accepted, not yet committed
        self.collisions = 0  # equal fingerprints that the checker proved different

    def add(self, r: TaskRecord, report: JobReport) -> tuple[bool, str | None]:
        """Queue one task; returns (accepted, rejection reason)."""
        now = utcnow()
        iid, sid = r.instance_id, r.semantic_id
        reason, detail, duplicate_of = r.reason, r.detail, None
        if r.accepted:
            same = self.accepted_fp.setdefault(r.structural_fp, [])
            duplicate_of, detail = self._duplicate(r, same)
            if duplicate_of is not None:
                reason = "duplicate"
            else:
                same.append(iid)
                self.buffered_models[iid] = r.instance["model"]
        accepted = reason is None
        status = "accepted" if accepted else "rejected"
        stamp = {"created_at": now, "run_id": self.run_id}
        put = self.rows.setdefault
        if duplicate_of != iid:  # an identical instance is already stored as it is
            put("instances", []).append({**r.instance, **stamp, "status": status,
                                         "reject_reason": reason, "reject_detail": detail,
                                         "duplicate_of": duplicate_of})
        put("semantic_models", []).append({**r.semantic, **stamp})
        put("verifications", []).extend({**v, **stamp} for v in r.verifications)
        params = json.dumps({"task": r.task, "seed": self.spec.seed,
                             "size": self.spec.size_of(r.task)})
        for parent, pkind, child, ckind, rel in (
                (self.run_id, "run", sid, "semantic_model", "sampled"),
                (sid, "semantic_model", iid, "instance", "grounded"),
                (self.run_id, "run", iid, "instance", "generated")):
            put("lineage", []).append({
                "id": edge_id(parent, child, rel), "parent_id": parent, "parent_kind": pkind,
                "child_id": child, "child_kind": ckind, "relation": rel,
                "operator": r.family if rel == "sampled" else None, "params": params, **stamp})
        put("run_tasks", []).append({
            "id": f"{self.run_id}:{r.task}", "run_id": self.run_id, "task": r.task,
            "family": r.family, "instance_id": iid, "semantic_id": sid, "outcome": status,
            "reason": reason, "created_at": now})
        self.pending += 1
        report.tasks += 1
        report.solver_seconds += r.solver_seconds
        report.worker_seconds += r.seconds
        fam = report.by_family.setdefault(r.family, Counter())
        if accepted:
            report.accepted += 1
            report.bands[r.band] += 1
            fam["accepted"] += 1
        else:
            report.rejected[reason or "?"] += 1
            fam[f"rejected:{reason}"] += 1
        for solver, st in r.statuses:
            report.statuses[f"{solver}:{st}"] += 1
        return accepted, reason

    def fail(self, task: int, family: str, failure: TaskFailure, report: JobReport,
             command: str = "generate") -> None:
        """Queue a task that failed on every attempt: a ``failed`` task and its failure row
        (the job goes on; a resume does not try it again)."""
        key = str(task)
        self.rows.setdefault("task_failures", []).append(
            failure_row(self.run_id, command, key, failure))
        self.rows.setdefault("run_tasks", []).append({
            "id": f"{self.run_id}:{key}", "run_id": self.run_id, "task": task,
            "family": family, "instance_id": None, "semantic_id": None, "outcome": "failed",
            "reason": f"{failure.kind}: {failure.error}"[:500], "created_at": utcnow()})
        self.pending += 1
        report.tasks += 1
        report.failed += 1
        report.by_family.setdefault(family, Counter())["failed"] += 1

    def _model(self, iid: str) -> CanonicalModel:
        blob = self.buffered_models.get(iid)
        if blob is None:
            return load_instance(self.store, iid)
        return CanonicalModel.from_bytes(zlib.decompress(blob))

    def _duplicate(self, r: TaskRecord, same: list[str]) -> tuple[str | None, str | None]:
        """The accepted instance ``r`` duplicates, confirmed by the equivalence checker."""
        if r.instance_id in same:
            return r.instance_id, "identical to an accepted instance"
        if not same:
            return None, None
        model = CanonicalModel.from_bytes(zlib.decompress(r.instance["model"]))
        for other in same:
            result = check_equivalence(model, self._model(other), time_limit=EQUIV_TIME_LIMIT)
            if result.verdict == UNDECIDED:  # equal fingerprints and no proof either way
                return other, (f"same structural fingerprint as accepted instance {other[:16]}; "
                               f"equivalence undecided in {EQUIV_TIME_LIMIT:g} s")
            if result:
                return other, f"equivalent to accepted instance {other[:16]} (certificate checked)"
        self.collisions += 1
        return None, None

    def due(self) -> bool:
        """Whether the buffer should be committed now."""
        return self.pending >= self.batch or (
            self.pending > 0 and time.monotonic() - self.last_flush > self.max_delay)

    def flush(self) -> None:
        """Commit everything buffered in one transaction."""
        if not self.pending:
            return
        with self.store.transaction():
            for table in ("instances", "semantic_models", "verifications", "lineage",
                          "run_tasks", "task_failures"):
                # Two tasks can yield the same row (an identical instance, a repeated edge).
                rows = list({r["id"]: r for r in reversed(self.rows.get(table, []))}.values())
                rows.reverse()
                if rows:
                    self.store.insert(table, rows,
                                      on_conflict="replace" if table in (
                                          "verifications", "task_failures") else "ignore")
        self.rows.clear()
        self.buffered_models.clear()
        self.pending = 0
        self.last_flush = time.monotonic()


def _progress_so_far(store: Store, run_id: str) -> tuple[int, int]:
    df = store.query("SELECT count(*) AS n, count(*) FILTER (WHERE outcome = 'accepted') AS a, "
                     "max(task) AS last FROM run_tasks WHERE run_id = ?", [run_id])
    n, a, last = df.row(0)
    if n and last != n - 1:
        raise JobError(f"run {run_id} has gaps in its tasks; it cannot be resumed")
    return int(n or 0), int(a or 0)


class _GenerateWriter:
    """The driver's view of the generate writer (task index in, rows and counts out)."""

    def __init__(self, writer: Writer, spec: JobSpec, report: JobReport,
                 on_result: Callable[[TaskRecord, bool, str | None, JobReport], None] | None
                 ) -> None:
        self.writer, self.spec, self.report, self.on_result = writer, spec, report, on_result
        self.accepted = 0

    def add(self, task: tuple[JobSpec, int], r: TaskRecord) -> None:
        ok, reason = self.writer.add(r, self.report)
        self.accepted += ok
        if self.on_result:
            self.on_result(r, ok, reason, self.report)

    def fail(self, task: tuple[JobSpec, int], failure: TaskFailure) -> None:
        k = task[1]
        self.writer.fail(k, self.spec.family_of(k), failure, self.report)

    def due(self) -> bool:
        return self.writer.due()

    def flush(self) -> None:
        self.writer.flush()


def run_job(store: Store, spec: JobSpec, workers: int = 1, resume: bool = False,
            executor: Executor | None = None,
            on_result: Callable[[TaskRecord, bool, str | None, JobReport], None] | None = None,
            batch: int = 256) -> JobReport:
    """Run (or resume) ``spec`` against ``store``; returns the final report."""
    start, cpu0 = time.perf_counter(), time.process_time()
    run_id = spec.run_id
    done, accepted = _progress_so_far(store, run_id)
    if done and not resume and accepted < spec.count:
        raise JobError(f"this job was started before and stopped after {done} tasks; "
                       "pass --resume to continue it")
    report = JobReport(run_id=run_id, resumed_from=done, accepted=0, workers=workers)
    start_run(store, run_id, "generate",
              {**asdict(spec), "families": list(spec.families), "workers": workers})
    if accepted >= spec.count:
        report.complete = True
        _load_totals(store, report)
        return report
    own = executor is None
    executor = executor or make_executor(workers)
    target = spec.count - accepted
    gw = _GenerateWriter(Writer(store, spec, batch=batch), spec, report, on_result)
    try:
        drive(((spec, k) for k in range(done, 2**31)), _task, gw, executor,
              stop=lambda: gw.accepted >= target)
    finally:
        if own:
            executor.close()
    report.complete = True
    report.seconds = time.perf_counter() - start
    report.writer_cpu_seconds = time.process_time() - cpu0
    _load_totals(store, report)
    finish_run(store, run_id, _counts(report))
    return report


def _load_totals(store: Store, report: JobReport) -> None:
    """Counts over every committed task of the run (including earlier, resumed parts)."""
    df = store.query("SELECT t.family, t.outcome, t.reason, i.difficulty_band FROM run_tasks t "
                     "LEFT JOIN instances i ON i.id = t.instance_id WHERE t.run_id = ?",
                     [report.run_id])
    report.tasks = df.height
    report.accepted = 0
    report.rejected, report.bands, report.by_family = Counter(), Counter(), {}
    report.failed = 0
    for fam, outcome, reason, band in df.iter_rows():
        c = report.by_family.setdefault(fam, Counter())
        if outcome == "failed":
            report.failed += 1
            c["failed"] += 1
        elif outcome == "accepted":
            report.accepted += 1
            report.bands[band or "?"] += 1
            c["accepted"] += 1
        else:
            report.rejected[reason or "?"] += 1
            c[f"rejected:{reason}"] += 1


def _counts(report: JobReport) -> dict[str, Any]:
    return {"tasks": report.tasks, "accepted": report.accepted, "failed": report.failed,
            "rejected": dict(report.rejected), "bands": dict(report.bands)}


def default_workers() -> int:
    """One worker per core."""
    return max(1, os.cpu_count() or 1)


# The executors moved to ``ortrex.jobs``; these names stay importable from here.
__all__ = ["MAX_WORKERS", "Executor", "InlineExecutor", "JobError", "JobReport", "JobSpec",
           "LocalExecutor", "TaskRecord", "Writer", "make_executor", "mix_size", "run_job",
           "to_record"]
