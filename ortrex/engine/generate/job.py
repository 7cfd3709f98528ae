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
    IGNORE,
    MAX_WORKERS,
    REPLACE,
    BatchWriter,
    DriveStats,
    Executor,
    InlineExecutor,
    JobError,
    LocalExecutor,
    TaskFailure,
    make_executor,
    unknown_names,
)
from ortrex.jobs import run_job as run_batch
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id
from ortrex.store.records import (
    failed_reason,
    failure_row,
    finish_run,
    instance_row,
    lineage_row,
    load_instance,
    run_task_row,
    start_run,
)
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
            raise unknown_names("famil" + ("ies" if len(unknown) > 1 else "y"), unknown,
                                list(REGISTRY))
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


GENERATE_TABLES = {"instances": IGNORE, "semantic_models": IGNORE, "verifications": REPLACE,
                   "lineage": IGNORE, "run_tasks": IGNORE, "task_failures": REPLACE}


class GenerateWriter(BatchWriter):
    """The generate job's writer: accepts or rejects each task record (duplicates proven by the
    equivalence checker) and commits its rows in transactional batches. Two tasks can yield the
    same row (an identical instance, a repeated edge): the first is written."""

    def __init__(self, store: Store, spec: JobSpec, report: JobReport, batch: int = 256,
                 max_delay: float | None = 2.0,
                 on_result: Callable[[TaskRecord, bool, str | None, JobReport], None] | None
                 = None) -> None:
        super().__init__(store, GENERATE_TABLES, batch, max_delay)
        self.spec, self.report, self.on_result = spec, report, on_result
        self.run_id = spec.run_id
        self.db = store
        df = store.query("SELECT structural_fp, id FROM instances WHERE status = 'accepted' "
                         "ORDER BY created_at, id")
        # Fingerprint -> accepted instances with it (two only after a proven collision).
        self.accepted_fp: dict[str, list[str]] = {}
        for fp, iid in df.iter_rows():
            self.accepted_fp.setdefault(fp, []).append(iid)
        self.buffered_models: dict[str, bytes] = {}  # accepted, not yet committed
        self.collisions = 0  # equal fingerprints that the checker proved different
        self.accepted = 0  # accepted by this writer (the job stops at its target)
        # The cause of the latest tasks while none was accepted (a job whose every task fails
        # alike, as under a broken solver licence, would otherwise draw tasks for ever).
        self.streak: tuple[str | None, int] = (None, 0)

    def add(self, task: tuple[JobSpec, int], r: TaskRecord) -> None:
        """Buffer one finished task (the driver's call)."""
        ok, reason = self.record(r)
        self.accepted += ok
        self.note(None if ok else f"rejected: {reason}")
        if self.on_result:
            self.on_result(r, ok, reason, self.report)

    def record(self, r: TaskRecord) -> tuple[bool, str | None]:
        """Queue one task record; returns (accepted, rejection reason)."""
        report = self.report
        now = utcnow()
        iid, sid = r.instance_id, r.semantic_id
        reason, detail, duplicate_of = r.reason, r.detail, None
        if r.accepted:
            same = self.accepted_fp.setdefault(r.structural_fp, [])
            duplicate_of, detail = self.duplicate(r, same)
            if duplicate_of is not None:
                reason = "duplicate"
            else:
                same.append(iid)
                self.buffered_models[iid] = r.instance["model"]
        accepted = reason is None
        status = "accepted" if accepted else "rejected"
        stamp = {"created_at": now, "run_id": self.run_id}
        if duplicate_of != iid:  # an identical instance is already stored as it is
            self.put("instances", [{**r.instance, **stamp, "status": status,
                                    "reject_reason": reason, "reject_detail": detail,
                                    "duplicate_of": duplicate_of}])
        self.put("semantic_models", [{**r.semantic, **stamp}])
        self.put("verifications", ({**v, **stamp} for v in r.verifications))
        params = json.dumps({"task": r.task, "seed": self.spec.seed,
                             "size": self.spec.size_of(r.task)})
        self.put("lineage", (
            lineage_row(parent, pkind, child, ckind, rel,
                        operator=r.family if rel == "sampled" else None, params=params,
                        created_at=now, run_id=self.run_id)
            for parent, pkind, child, ckind, rel in (
                (self.run_id, "run", sid, "semantic_model", "sampled"),
                (sid, "semantic_model", iid, "instance", "grounded"),
                (self.run_id, "run", iid, "instance", "generated"))))
        self.put("run_tasks", [run_task_row(self.run_id, r.task, r.task, r.family, status,
                                            reason=reason, instance_id=iid, semantic_id=sid,
                                            created_at=now)])
        self.task_done()
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

    def fail(self, task: tuple[JobSpec, int], failure: TaskFailure) -> None:
        """Queue a task that failed on every attempt: a ``failed`` task and its failure row
        (the job goes on; a resume does not try it again)."""
        k = task[1]
        family = self.spec.family_of(k)
        self.put("task_failures", [failure_row(self.run_id, "generate", str(k), failure)])
        self.put("run_tasks", [run_task_row(self.run_id, k, k, family, "failed",
                                            reason=failed_reason(failure))])
        self.task_done()
        self.report.tasks += 1
        self.report.failed += 1
        self.report.by_family.setdefault(family, Counter())["failed"] += 1
        self.note(f"failed: {failed_reason(failure)}")

    def note(self, cause: str | None) -> None:
        """Count the latest task into the streak of one cause (an acceptance ends it)."""
        last, n = self.streak
        self.streak = (cause, n + 1 if cause == last else 1) if cause else (None, 0)

    def futile(self, accepted_before: int) -> bool:
        """Whether ``FUTILE`` tasks in a row failed or were rejected for one cause and the run
        never accepted anything: the job stops (and the command says why, exit 1)."""
        return (accepted_before == 0 and self.accepted == 0 and self.streak[1] >= FUTILE)

    def model(self, iid: str) -> CanonicalModel:
        """An accepted instance's model, from the buffer or the store."""
        blob = self.buffered_models.get(iid)
        if blob is None:
            return load_instance(self.db, iid)
        return CanonicalModel.from_bytes(zlib.decompress(blob))

    def duplicate(self, r: TaskRecord, same: list[str]) -> tuple[str | None, str | None]:
        """The accepted instance ``r`` duplicates, confirmed by the equivalence checker."""
        if r.instance_id in same:
            return r.instance_id, "identical to an accepted instance"
        if not same:
            return None, None
        model = CanonicalModel.from_bytes(zlib.decompress(r.instance["model"]))
        for other in same:
            result = check_equivalence(model, self.model(other), time_limit=EQUIV_TIME_LIMIT)
            if result.verdict == UNDECIDED:  # equal fingerprints and no proof either way
                return other, (f"same structural fingerprint as accepted instance {other[:16]}; "
                               f"equivalence undecided in {EQUIV_TIME_LIMIT:g} s")
            if result:
                return other, f"equivalent to accepted instance {other[:16]} (certificate checked)"
        self.collisions += 1
        return None, None

    def flush(self) -> None:
        """Commit everything buffered in one transaction (then the models come from the store)."""
        super().flush()
        self.buffered_models.clear()


def _progress_so_far(store: Store, run_id: str) -> tuple[int, int]:
    df = store.query("SELECT count(*) AS n, count(*) FILTER (WHERE outcome = 'accepted') AS a, "
                     "max(task) AS last FROM run_tasks WHERE run_id = ?", [run_id])
    n, a, last = df.row(0)
    if n and last != n - 1:
        raise JobError(f"run {run_id} has gaps in its tasks; it cannot be resumed")
    return int(n or 0), int(a or 0)


FUTILE = 64  # tasks in a row with one cause and nothing accepted: the job cannot succeed


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
    target = spec.count - accepted
    writer = GenerateWriter(store, spec, report, batch=batch, on_result=on_result)

    def finish(_: DriveStats) -> None:
        report.complete = True
        report.seconds = time.perf_counter() - start
        report.writer_cpu_seconds = time.process_time() - cpu0
        _load_totals(store, report)
        finish_run(store, run_id, _counts(report))

    run_batch(((spec, k) for k in range(done, 2**31)), _task, writer, executor=executor,
              workers=workers, finish=finish,
              stop=lambda: writer.accepted >= target or writer.futile(accepted))
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
__all__ = ["MAX_WORKERS", "Executor", "GenerateWriter", "InlineExecutor", "JobError", "JobReport",
           "JobSpec", "LocalExecutor", "TaskRecord", "make_executor", "mix_size", "run_job",
           "to_record"]
