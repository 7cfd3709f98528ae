"""Seed import: external problem/answer pairs (``{"id", "problem", "answer", "metadata"}``
lines) become verified instances and documents with provenance.

The file is checked in one streaming pass (a bad line, bad UTF-8 or nesting deeper than 64
levels stops the import before any write, or is skipped and counted with ``--skip-bad``), then
streamed through the workers and written in batches. A program failing its static checks is
rejected without running. The others run in the sandbox with the data files their problem text
embeds (``### data.json`` followed by a fenced block); the model captured there is the only
source of the instance: it is solved again by HiGHS and Gurobi and filtered like a generated
instance, and an objective the program printed must agree with that solve. The problem and
answer are stored as a ``seed`` document. Lineage: seed file (source) -> document (imported) ->
instance (captured).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex import __version__
from ortrex.engine.checks import DocContext, run_checks
from ortrex.engine.pipeline import verify
from ortrex.engine.runs import failure_row
from ortrex.engine.verify_doc import Check, check_row, sandbox
from ortrex.ir.formats import ModelFileError, loads
from ortrex.jobs import Executor, JobError, TaskFailure, drive, make_executor
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id, edge_id, verification_id
from ortrex.store.records import instance_row, pack_solution
from ortrex.verifiers.isolation import Limits, support
from ortrex.verifiers.resolve import trivial_reason
from ortrex.verifiers.sandbox import PRELOAD_SEEDS, Job
from ortrex.verifiers.solvers import objectives_agree
from ortrex.verifiers.static import check_program

# Static findings that are the rendered corpus's contract, not a seed's: seeds may build a
# model without solving it (the parent solves what was captured), name it as they like and
# write their LP file inside the sandbox. Everything else (imports, calls, file access,
# undefined names, gurobipy misuse) rejects the seed.
SEED_TOLERATED = frozenset({"no-optimize", "model-name", "file-write"})
_PYTHON_TAG = re.compile(r"<python>\s*(.*?)\s*</python>", re.S)
_FENCED = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)
_FILE_BLOCK = re.compile(r"#{2,4}\s*`?([\w./-]+\.(?:json|csv))`?\s*\n+```[\w]*\n(.*?)```", re.S)
_REPORTED = re.compile(
    r"(?:objective|optimal[_ ]value|optimal|obj)[^\n=:]*[=:]\s*"
    r"([-+]?\d[\d,]*\.?\d*(?:[eE][-+]?\d+)?)", re.I)


class SeedFileError(ValueError):
    """A malformed seed file: one line per bad entry, with its line number."""

    def __init__(self, path: str, problems: list[tuple[int, str]]) -> None:
        self.path, self.problems = path, problems
        lines = [f"{path}:{n}: {msg}" for n, msg in problems[:20]]
        if len(problems) > 20:
            lines.append(f"... and {len(problems) - 20} more bad lines")
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class Seed:
    """One seed: where it came from and what it says."""

    line: int
    id: str
    problem: str
    answer: str
    metadata: dict[str, Any]


MAX_DEPTH = 64  # nesting of a seed's JSON beyond which it is refused (metadata is stored)


def _depth(obj: Any, limit: int) -> bool:
    """Whether ``obj`` nests deeper than ``limit`` (iteratively: no recursion on hostile
    input)."""
    stack = [(obj, 1)]
    while stack:
        cur, d = stack.pop()
        if d > limit:
            return True
        if isinstance(cur, dict):
            stack.extend((v, d + 1) for v in cur.values())
        elif isinstance(cur, list):
            stack.extend((v, d + 1) for v in cur)
    return False


def _parse(raw: bytes, n: int) -> Seed | str:
    """One line: a Seed, or what is wrong with it."""
    try:
        line = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return f"not UTF-8 text (byte {exc.start + 1} of the line: {exc.reason})"
    if not line.strip():
        return ""
    try:
        obj = json.loads(line)
    except RecursionError:
        return f"JSON nests deeper than {MAX_DEPTH} levels"
    except json.JSONDecodeError as exc:
        return f"not valid JSON ({exc.msg})"
    if not isinstance(obj, dict):
        return "expected a JSON object"
    if _depth(obj, MAX_DEPTH):
        return f"JSON nests deeper than {MAX_DEPTH} levels"
    missing = [k for k in ("problem", "answer") if not isinstance(obj.get(k), str)
               or not obj[k].strip()]
    if missing:
        return f"field {missing[0]!r} must be non-empty text"
    meta = obj.get("metadata") or {}
    if not isinstance(meta, dict):
        return "field 'metadata' must be an object"
    sid = str(obj.get("id") or content_id("seed", obj["problem"], obj["answer"]))
    return Seed(n, sid, obj["problem"], obj["answer"], meta)


def _lines(path: Path) -> Iterator[tuple[int, bytes]]:
    try:
        f = open(path, "rb")  # noqa: SIM115 - closed by the generator
    except OSError as exc:
        raise SeedFileError(str(path), [(0, f"cannot read: {exc.strerror or exc}")]) from None
    with f:
        yield from enumerate(f, start=1)


@dataclass
class SeedScan:
    """A seed file checked line by line: its size, hash, seed count and the bad lines."""

    path: Path
    seeds: int
    size: int
    sha256: str
    skipped: list[str]


def scan_seeds(path: Path, skip_bad: bool = False) -> SeedScan:
    """Check every line of a seed file in one streaming pass (memory flat in its size);
    without ``skip_bad`` any bad line raises :class:`SeedFileError` listing them."""
    h, size, count = hashlib.sha256(), 0, 0
    problems: list[tuple[int, str]] = []
    for n, raw in _lines(path):
        h.update(raw)
        size += len(raw)
        got = _parse(raw, n)
        if isinstance(got, Seed):
            count += 1
        elif got:
            problems.append((n, got))
    if problems and not skip_bad:
        raise SeedFileError(str(path), problems)
    if not count and not problems:
        raise SeedFileError(str(path), [(0, "no seeds in the file")])
    return SeedScan(path, count, size, h.hexdigest(),
                    [f"{path}:{n}: {m}" for n, m in problems])


def iter_seeds(path: Path) -> Iterator[Seed]:
    """The good seeds of a file, streamed (bad lines, already reported by the scan, are
    passed over)."""
    for n, raw in _lines(path):
        got = _parse(raw, n)
        if isinstance(got, Seed):
            yield got


def read_seeds(path: Path, skip_bad: bool = False) -> tuple[list[Seed], list[str]]:
    """Seeds of a JSONL file, and the bad lines skipped (``skip_bad``); otherwise any bad line
    raises :class:`SeedFileError` listing every bad line."""
    scan = scan_seeds(path, skip_bad)
    return list(iter_seeds(path)), scan.skipped


def extract_program(answer: str) -> str:
    """The program of an answer: a ``<python>`` section, else a fenced block, else the text."""
    m = _PYTHON_TAG.search(answer)
    if m:
        body = m.group(1)
        fenced = _FENCED.search(body)
        return fenced.group(1) if fenced else body
    fenced = _FENCED.findall(answer)
    return fenced[0] if len(fenced) == 1 else answer


def extract_files(problem: str) -> dict[str, str]:
    """Data files a problem text embeds (``### data.json`` then a fenced block)."""
    return {name: body for name, body in _FILE_BLOCK.findall(problem)}


def reported_objective(stdout: str) -> float | None:
    """The last objective value a program printed, in any of the usual phrasings."""
    found = _REPORTED.findall(stdout)
    if not found:
        return None
    try:
        return float(found[-1].replace(",", ""))
    except ValueError:
        return None


@dataclass
class SeedResult:
    """What became of one seed (worker side)."""

    seed: Seed
    code: str
    files: dict[str, str]
    run_status: str
    checks: list[Check]
    instance: dict[str, Any] | None = None
    verifications: list[dict[str, Any]] = field(default_factory=list)
    accepted: bool = False
    reason: str | None = None
    objective: float | None = None


def process_seed(seed: Seed, wall_s: float = 60.0) -> SeedResult:
    """Run a seed's program, capture and verify its model (worker side). A seed whose program
    fails its static checks is rejected without running; the instance is only ever the model
    captured in the sandbox, solved again here."""
    code = extract_program(seed.answer)
    files = extract_files(seed.problem)
    # The document checks that apply to a seed (no semantic model, no instance yet): the
    # static checks, with the findings seeds are allowed only noted.
    checks = run_checks(DocContext(seed.problem, seed.problem, files, program=code,
                                   tolerated=SEED_TOLERATED))
    if not all(c.ok for c in checks):
        res = SeedResult(seed, code, files, "not_run", checks)
        res.reason = "static_check_failed"
        return res
    static = check_program(code, tuple(files))
    job = Job(static.code or code, files, Limits(wall_s=wall_s, cpu_s=int(wall_s) + 5))
    run = sandbox(PRELOAD_SEEDS).run(job)
    res = SeedResult(seed, code, files, run.status, checks)
    printed = reported_objective(run.stdout)
    if run.status != "ok" or run.capture_status != "ok" or run.captured is None:
        tail = run.stderr.strip().splitlines()[-1:] or [run.status]
        why = f"program {run.status}: {tail[0][:300]}" if run.status != "ok" else \
            f"capture {run.capture_status}: {run.capture_detail}"
        checks.append(Check("sandbox", "fail", runtime_s=run.seconds,
                            details={"why": why, "isolation": run.isolation}))
        res.reason = "program_failed" if run.status != "ok" else (
            "forged_capture" if run.capture_status == "forged" else "no_model_captured")
        return res
    checks.append(Check("sandbox", "pass", printed, run.seconds,
                        {"isolation": run.isolation}))
    try:
        model = loads(run.captured.decode("utf-8", "replace"), "mps", f"seed {seed.id}")
    except ModelFileError as exc:
        res.reason = "model_unreadable"
        checks.append(Check("capture", "fail", details={"why": str(exc)}))
        return res
    model = model.replace(name=seed.id)
    trivial = trivial_reason(model)
    if trivial:
        res.reason = "trivial_model"
        checks.append(Check("capture", "fail", details={"why": trivial}))
        return res
    outcome = verify(model, time_limit=30.0)
    iid = model.content_hash
    res.objective = outcome.objective
    res.accepted = outcome.accepted
    res.reason = None if outcome.accepted else (
        outcome.rejection.reason if outcome.rejection else "rejected")
    if outcome.accepted and printed is not None and outcome.objective is not None and \
            not objectives_agree(printed, outcome.objective):
        res.accepted, res.reason = False, "reported_objective_differs"
    checks.append(Check("agreement", "pass" if res.accepted else "fail", outcome.objective,
                        details={"printed": printed, "why": res.reason} if res.reason else
                        {"printed": printed}))
    res.instance = instance_row(
        model, family=str(seed.metadata.get("structure") or "seed"),
        status="accepted" if outcome.accepted else "rejected",
        reject_reason=None if outcome.accepted else res.reason, objective=outcome.objective,
        difficulty=outcome.score, difficulty_band=outcome.band,
        domain=seed.metadata.get("domain"))
    for r in outcome.results:
        res.verifications.append({
            "id": verification_id(iid, r.solver), "subject_id": iid, "subject_kind": "instance",
            "verifier": r.solver, "status": r.status.value, "objective": r.objective,
            "runtime_s": r.runtime_s, "details": json.dumps({"message": r.message}),
            "solution": pack_solution(r.x), "solver_version": r.solver_version})
    return res


@dataclass
class SeedReport:
    """Counts of a seed import."""

    seeds: int = 0
    ran: int = 0
    solved: int = 0
    accepted: int = 0
    reasons: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0


def _process(seed: Seed) -> SeedResult:
    return process_seed(seed)


BATCH = 256  # seeds per write transaction: memory stays flat in the file's size


def _rows(res: SeedResult, sid: str, stamp: dict[str, Any], out: dict[str, Any]) -> None:
    """The store rows of one seed's outcome, added to ``out``."""
    s = res.seed
    form = str(s.metadata.get("mode") or "")
    did = content_id("doc", "seed", s.id, s.problem, s.answer)
    out["documents"].append({
        "id": did, "instance_id": res.instance["id"] if res.instance else None,
        "semantic_id": None, "kind": "seed", "form": form or None, "text": s.problem,
        "data_files": json.dumps(res.files) if res.files else None, "program": res.code,
        "renderer": f"seed:{s.metadata.get('seed_stage', 'external')}",
        "template": s.metadata.get("answer_style"), "statement": s.problem,
        "style": s.metadata.get("answer_style"), "solver": "gurobipy",
        "messages": json.dumps([{"role": "user", "content": s.problem},
                                {"role": "assistant", "content": s.answer}]),
        "status": "accepted" if res.accepted else "rejected",
        "reject_reason": res.reason, "reject_detail": None, "objective": res.objective,
        "minhash": None, **stamp})
    out["verifications"].extend({**check_row(did, c), **stamp} for c in res.checks)
    params = json.dumps({"line": s.line, "seed_id": s.id, "metadata": s.metadata})
    out["lineage"].append({"id": edge_id(sid, did, "imported"), "parent_id": sid,
                           "parent_kind": "source", "child_id": did, "child_kind": "document",
                           "relation": "imported", "operator": "seed", "params": params,
                           **stamp})
    if res.instance:
        iid = res.instance["id"]
        out["instances"].setdefault(iid, {**res.instance, **stamp})
        out["verifications"].extend({**v, **stamp} for v in res.verifications)
        out["lineage"].append({"id": edge_id(did, iid, "captured"), "parent_id": did,
                               "parent_kind": "document", "child_id": iid,
                               "child_kind": "instance", "relation": "captured",
                               "operator": "sandbox", "params": params, **stamp})


def _write(store: Store, batch: list[SeedResult], sid: str, stamp: dict[str, Any],
           source: dict[str, Any]) -> None:
    """One batch of outcomes in one transaction (content ids: a rerun rewrites the same)."""
    out: dict[str, Any] = {"documents": [], "verifications": [], "lineage": [],
                           "instances": {}}
    for res in batch:
        _rows(res, sid, stamp, out)
    with store.transaction():
        store.insert("sources", [source])
        store.insert("instances", list(out["instances"].values()))
        store.insert("documents", out["documents"], on_conflict="replace")
        store.insert("verifications", out["verifications"], on_conflict="replace")
        store.insert("lineage", out["lineage"])


class _SeedWriter:
    """Seed outcomes and failures, written in batches (content ids: reruns rewrite the same)."""

    def __init__(self, store: Store, sid: str, run_id: str, stamp: dict[str, Any],
                 source: dict[str, Any], report: SeedReport,
                 on_result: Callable[[SeedReport], None] | None) -> None:
        self.store, self.sid, self.run_id = store, sid, run_id
        self.stamp, self.source, self.report, self.on_result = stamp, source, report, on_result
        self.batch: list[SeedResult] = []
        self.failures: list[dict[str, Any]] = []

    def add(self, seed: Seed, res: SeedResult) -> None:
        self.batch.append(res)
        r = self.report
        r.ran += res.run_status == "ok"
        r.solved += res.objective is not None
        r.accepted += res.accepted
        if not res.accepted:
            r.reasons[res.reason or "?"] += 1
        if self.on_result:
            self.on_result(r)

    def fail(self, seed: Seed, failure: TaskFailure) -> None:
        self.failures.append(failure_row(self.run_id, "import-seeds", seed.id, failure))
        self.report.reasons["task_failed"] += 1
        if self.on_result:
            self.on_result(self.report)

    def due(self) -> bool:
        return len(self.batch) + len(self.failures) >= BATCH

    def flush(self) -> None:
        if self.failures:
            with self.store.transaction():
                self.store.insert("task_failures", self.failures, on_conflict="replace")
            self.failures = []
        _write(self.store, self.batch, self.sid, self.stamp, self.source)
        self.batch = []


def import_seeds(store: Store, path: Path, workers: int = 1, skip_bad: bool = False,
                 executor: Executor | None = None,
                 on_result: Callable[[SeedReport], None] | None = None,
                 on_start: Callable[[int], None] | None = None) -> SeedReport:
    """Import every seed of ``path`` (checked first in one streaming pass: a bad line stops
    the import before any write unless ``skip_bad``), streamed through the workers and
    written in batches; ids are content hashes, so running it again changes nothing."""
    start = time.perf_counter()
    scan = scan_seeds(path, skip_bad)
    abspath = os.path.abspath(path)
    sid = content_id("src", abspath, scan.sha256)
    run_id = content_id("run", "import-seeds", scan.sha256)
    report = SeedReport(seeds=scan.seeds, skipped=scan.skipped)
    if on_start:
        on_start(scan.seeds)
    now = utcnow()
    stamp = {"created_at": now, "run_id": run_id}
    source = {"id": sid, "path": abspath, "sha256": scan.sha256, "format": "seed-jsonl",
              "size_bytes": scan.size, "first_seen_at": now, "run_id": run_id}
    own = executor is None
    executor = executor or make_executor(workers)
    writer = _SeedWriter(store, sid, run_id, stamp, source, report, on_result)
    try:
        drive(iter_seeds(path), _process, writer, executor)
    finally:
        if own:
            executor.close()
    report.seconds = time.perf_counter() - start
    with store.transaction():
        store.insert("runs", [{"id": run_id, "command": "import-seeds",
                               "config": {"path": abspath, "workers": workers,
                                          "sandbox": support()},
                               "counts": {"seeds": report.seeds, "ran": report.ran,
                                          "solved": report.solved,
                                          "accepted": report.accepted,
                                          "failed": report.reasons.get("task_failed", 0),
                                          "bad_lines_skipped": len(scan.skipped)},
                               "status": "complete", "ortrex_version": __version__,
                               "started_at": now, "finished_at": utcnow()}])
    return report


__all__ = ["JobError", "SeedFileError", "import_seeds", "iter_seeds", "read_seeds", "scan_seeds"]
