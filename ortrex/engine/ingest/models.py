"""Import job: model files -> canonical instances with provenance (and optional HiGHS verdicts)."""

from __future__ import annotations

import hashlib
import os
import time
from collections import Counter
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import ModelFileError, detect_format, loads
from ortrex.ir.formats.errors import UnsupportedFeatureError
from ortrex.ir.formats.general import read_general_file
from ortrex.ir.formats.text import decode_text, read_bytes
from ortrex.jobs import Executor, TaskFailure, executor_for
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id, verification_id
from ortrex.store.records import instance_row, lineage_row, run_row
from ortrex.verifiers.solvers import solve_highs

MODEL_SUFFIXES = (".lp", ".mps", ".json", ".lp.gz", ".mps.gz", ".json.gz", ".lp.bz2",
                  ".mps.bz2")


@dataclass
class ParsedFile:
    """One input file after parsing (model is None when it failed)."""

    path: str
    sha256: str
    size: int
    fmt: str
    model: CanonicalModel | None = None
    error: ModelFileError | None = None


@dataclass
class ImportReport:
    """What an import did, for the summary table."""

    run_id: str
    files: int = 0
    imported: int = 0
    new_instances: int = 0
    known_instances: int = 0
    duplicate_files: int = 0
    structural_groups: int = 0
    formulation_groups: int = 0
    classes: Counter[str] = field(default_factory=Counter)
    statuses: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0


def expand_inputs(paths: Iterable[str | Path]) -> list[Path]:
    """Files named directly, plus model files found (recursively) under named directories."""
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            found = sorted(f for f in p.rglob("*") if f.is_file()
                           and f.name.lower().endswith(MODEL_SUFFIXES))
            if not found:
                raise ModelFileError(str(p), "directory holds no .lp, .mps or .json files")
            out.extend(found)
        else:
            out.append(p)
    return out


def parse_file(path: str) -> ParsedFile:
    """Read, hash and parse one file; errors are captured, not raised."""
    try:
        data = read_bytes(path)
    except ModelFileError as exc:
        return ParsedFile(path, "", 0, "", error=exc)
    digest = hashlib.sha256(data).hexdigest()
    rec = ParsedFile(path, digest, len(data), "")
    try:
        text = decode_text(data, path)
        rec.fmt = detect_format(path, text)
        try:
            model = loads(text, rec.fmt, path)
        except UnsupportedFeatureError as exc:
            # Indicators, SOS, general constraints, piecewise objectives: read by Gurobi and
            # written as exact rows over new binaries (or refused, naming why).
            if rec.fmt not in ("lp", "mps"):
                raise
            model = read_general_file(path, exc)
        if not model.name:
            model = model.replace(name=Path(path).name.split(".")[0])
        _ = model.structural_fingerprint  # computed in the worker, cached on the model
        rec.model = model
    except ModelFileError as exc:
        rec.error = exc
    return rec


def _highs_verdict(model: CanonicalModel) -> dict[str, Any]:
    return solve_highs(model).to_dict()


def _map(fn: Callable[[Any], Any], items: list[Any], executor: Executor | None,
         progress: Callable[[str], None] | None, stage: str) -> list[Any]:
    """``fn`` over ``items`` in order, on the executor when there is one and it pays off."""
    out = []
    few = executor is None or (executor.kind == "local" and len(items) < 2 * executor.workers)
    results: Iterable[Any] = map(fn, items) if few else executor.map(fn, items)  # type: ignore
    for res in results:
        out.append(res)
        if progress:
            progress(stage)
    return out


@dataclass
class PreparedImport:
    """Parsed (and optionally solved) files, ready to be written in one transaction."""

    files: list[str]
    parsed: list[ParsedFile]
    family: str | None
    solve: bool
    skip_bad: bool
    verdicts: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0
    started_at: datetime = field(default_factory=utcnow)


def prepare_import(paths: Iterable[str | Path], *, family: str | None = None,
                   solve: bool = False, skip_bad: bool = False, workers: int = 1,
                   progress: Callable[[str], None] | None = None,
                   on_stage: Callable[[str, int], None] | None = None,
                   executor: Executor | None = None) -> PreparedImport:
    """Read and parse every file (and solve each distinct instance with HiGHS when asked).

    Without ``skip_bad`` the first bad file raises :class:`ModelFileError`, before anything
    touches the store. ``on_stage(name, total)`` announces a stage, ``progress(name)`` ticks it.
    """
    start, started_at = time.perf_counter(), utcnow()
    files = [str(p) for p in expand_inputs(paths)]
    if on_stage:
        on_stage("parse", len(files))
    # One worker and no executor given: everything runs here, no executor at all.
    pool: AbstractContextManager[Executor | None] = (
        executor_for(executor, workers) if executor is not None or workers > 1
        else nullcontext(None))
    with pool as ex:
        parsed: list[ParsedFile] = [
            ParsedFile(f, "", 0, "?", error=ModelFileError(f"{f}: reading it {r.line()}"))
            if isinstance(r, TaskFailure) else r
            for f, r in zip(files, _map(parse_file, files, ex, progress, "parse"),
                            strict=True)]
        prep = _solve(files, parsed, family, solve, skip_bad, started_at, ex, progress,
                      on_stage)
    prep.seconds = time.perf_counter() - start
    return prep


def _solve(files: list[str], parsed: list[ParsedFile], family: str | None, solve: bool,
           skip_bad: bool, started_at: datetime, executor: Executor | None,
           progress: Callable[[str], None] | None,
           on_stage: Callable[[str, int], None] | None) -> PreparedImport:
    """Stop at the first bad file (unless ``skip_bad``); then each distinct instance solved
    with HiGHS when asked."""
    bad = [r for r in parsed if r.error is not None]
    if bad and not skip_bad:
        raise bad[0].error  # type: ignore[misc]
    prep = PreparedImport(files, parsed, family, solve, skip_bad, started_at=started_at)
    if solve:
        unique: dict[str, CanonicalModel] = {}
        for r in parsed:
            if r.model is not None:
                unique.setdefault(r.model.content_hash, r.model)
        if on_stage:
            on_stage("solve", len(unique))
        verdicts = _map(_highs_verdict, list(unique.values()), executor, progress, "solve")
        prep.verdicts = {k: v if not isinstance(v, TaskFailure) else
                         {"solver": "highs", "status": "error", "message": v.line()}
                         for k, v in zip(unique, verdicts, strict=True)}
    return prep


def commit_import(store: Store, prep: PreparedImport) -> ImportReport:
    """Write a prepared import in one transaction; ids are content hashes (idempotent)."""
    start = time.perf_counter()
    good = [r for r in prep.parsed if r.model is not None]
    bad = [r for r in prep.parsed if r.error is not None]
    family = prep.family
    config = {"family": family, "solve": prep.solve, "skip_bad": prep.skip_bad}
    run_id = content_id("run", "import-lp", config, sorted(r.sha256 for r in prep.parsed))
    report = ImportReport(run_id=run_id, files=len(prep.files), imported=len(good),
                          skipped=[str(r.error) for r in bad])
    now = utcnow()
    instances: dict[str, dict[str, Any]] = {}
    sources: dict[str, dict[str, Any]] = {}
    edges: dict[str, dict[str, Any]] = {}
    for r in good:
        m = r.model
        assert m is not None
        iid = m.content_hash
        if iid in instances:
            report.duplicate_files += 1
        else:
            instances[iid] = instance_row(m, family=family, run_id=run_id, created_at=now)
        # A source is a file at a path with given content: the same bytes at two paths are two
        # sources of one instance, and an edited file is a new source.
        path = os.path.abspath(r.path)
        sid = content_id("src", path, r.sha256)
        sources.setdefault(sid, {"id": sid, "path": path, "sha256": r.sha256, "format": r.fmt,
                                 "size_bytes": r.size, "first_seen_at": now, "run_id": run_id})
        edge = lineage_row(sid, "source", iid, "instance", "imported",
                           params={"path": path, "sha256": r.sha256, "format": r.fmt},
                           created_at=now, run_id=run_id)
        edges.setdefault(edge["id"], edge)
        report.classes[m.stats().problem_class] += 1
    verifications = []
    for iid, v in prep.verdicts.items():
        verifications.append({"id": verification_id(iid, "highs"), "subject_id": iid,
                              "subject_kind": "instance", "verifier": "highs",
                              "status": v["status"], "objective": v["objective"],
                              "runtime_s": v["runtime_s"],
                              "details": {"message": v["message"],
                                          "solver_version": v["solver_version"]},
                              "created_at": now, "run_id": run_id})
        report.statuses[v["status"]] += 1
    report.structural_groups = len({row["structural_fp"] for row in instances.values()})
    report.formulation_groups = len({row["formulation_fp"] for row in instances.values()})
    with store.transaction():
        report.new_instances = store.insert("instances", list(instances.values()))
        report.known_instances = len(instances) - report.new_instances
        store.insert("sources", list(sources.values()))
        store.insert("lineage", list(edges.values()))
        store.insert("verifications", verifications, on_conflict="replace")
        report.seconds = prep.seconds + time.perf_counter() - start
        counts = {"files": report.files, "imported": report.imported,
                  "new_instances": report.new_instances, "skipped": len(report.skipped)}
        store.insert("runs", [run_row(run_id, "import-lp", config, status="ok", counts=counts,
                                      started_at=prep.started_at, finished_at=utcnow())])
    return report


def import_files(store: Store, paths: Iterable[str | Path], **options: Any) -> ImportReport:
    """Parse and write in one call (see :func:`prepare_import` for the options)."""
    return commit_import(store, prepare_import(paths, **options))
