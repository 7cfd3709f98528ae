"""Seed import: external problem/answer pairs (``{"id", "problem", "answer", "metadata"}``
lines) become verified instances and documents with provenance.

A seed may also carry ``files`` (relative path -> text: a ``data/`` tree, helper modules
beside ``solve.py``) and ``args`` (its command-line arguments). The file is checked in one
streaming pass (a bad line, bad UTF-8 or nesting deeper than 64 levels stops the import before
any write, or is skipped and counted with ``--skip-bad``), then streamed through the workers
and written as results come (a stopped import keeps every finished seed). A program failing
its static checks is rejected without running. The others run in the sandbox with their files
and the data files their problem text embeds (``### data.json`` followed by a fenced block).
Every model the program asks a solver to solve is captured at that moment, whatever its name
or scope; the solving that counts is done here, in the parent: HiGHS always, Gurobi where its
licence allows (``skipped_license`` otherwise), under the job's time limits and one time
budget per seed, each model filtered like a generated instance. The last model solved is the
seed's instance; an objective the program printed must agree with it. The problem and answer
are stored as a ``seed`` document whose checks say what happened (the program's outcome and
error line, the models captured, the licence refusing the sandbox's solve, each model's
verdict). Lineage: seed file (source) -> document (imported) -> instance (captured, one edge
per model).
"""

from __future__ import annotations

import hashlib
import json
import os
import posixpath
import re
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ortrex.engine.generate.pipeline import verification_rows, verify
from ortrex.ir.formats import ModelFileError, loads
from ortrex.ir.formats.errors import UnsupportedFeatureError, UnsupportedModelError
from ortrex.ir.formats.general import read_general
from ortrex.jobs import (
    IGNORE,
    REPLACE,
    BatchWriter,
    DriveStats,
    Executor,
    JobError,
    Policy,
    TaskFailure,
)
from ortrex.jobs import run_job as run_batch
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id
from ortrex.store.records import failure_row, instance_row, lineage_row, run_row
from ortrex.verifiers.checks.document import Check, check_row, sandbox
from ortrex.verifiers.checks.registry import DocContext, run_checks
from ortrex.verifiers.grounding import Grounds
from ortrex.verifiers.resolve import judge, trivial_reason
from ortrex.verifiers.sandbox.isolation import Limits, support
from ortrex.verifiers.sandbox.server import PRELOAD_SEEDS, Job
from ortrex.verifiers.solvers import MIP_GAP, SolveStatus, objectives_agree, solve
from ortrex.verifiers.static import check_program

# Static findings that are the rendered corpus's contract, not a seed's: seeds may build a
# model without solving it (the parent solves what was captured), name it as they like and
# write their LP file inside the sandbox, import standard modules and their own helpers, and
# plot (off-screen, or into a stand-in where the library is missing: see the harness), and
# name what a branch that never runs never defines (the run says if one does).
# Everything else (other imports, calls, file access, undefined names, gurobipy misuse)
# rejects the seed.
SEED_TOLERATED = frozenset({"no-optimize", "model-name", "file-write", "import-stdlib",
                            "import-local", "import-plot", "undefined"})
_MISSING = re.compile(r"ModuleNotFoundError: No module named '([\w.]+)'")
_PYTHON_TAG = re.compile(r"<python>\s*(.*?)\s*</python>", re.S)
_FENCED = re.compile(r"```(?:python|py)?[ \t]*\n(.*?)```", re.S)
_FILE_BLOCK = re.compile(r"#{2,4}\s*`?([\w./-]+\.(?:json|csv|txt|dat))`?\s*\n+```[\w]*\n(.*?)```",
                         re.S)
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
    files: dict[str, str] = field(default_factory=dict)  # carried beside the program
    args: tuple[str, ...] = ()


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
    files = obj.get("files") or {}
    if not isinstance(files, dict) or not all(isinstance(v, str) for v in files.values()):
        return "field 'files' must be an object of relative path -> file text"
    args = obj.get("args") or []
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        return "field 'args' must be a list of strings"
    sid = str(obj.get("id") or content_id("seed", obj["problem"], obj["answer"], files, args))
    return Seed(n, sid, obj["problem"], obj["answer"], meta, files, tuple(args))


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


def seed_files(seed: Seed) -> tuple[dict[str, str], str | None]:
    """The files a seed's program runs with (embedded in the problem text, then carried
    beside it), names normalised (``./data/a.csv`` is ``data/a.csv``); or what is wrong."""
    out: dict[str, str] = {}
    for name, body in [*extract_files(seed.problem).items(), *seed.files.items()]:
        norm = posixpath.normpath(name.strip().replace("\\", "/"))
        parts = norm.split("/")
        if not name.strip() or norm.startswith("/") or norm == "main.py" or \
                any(p in ("", ".", "..") or p.startswith(".") for p in parts) or "\0" in norm:
            return {}, f"file name {name!r} is not a plain relative path inside the program's " \
                       "directory"
        out[norm] = body
    return out, None


_ERROR_LINE = re.compile(r"^(?:[\w.]+\.)?\w*(?:Error|Exception|Exit|Interrupt)\b.*$", re.M)


def error_line(stderr: str, status: str, exit_code: int | None, wall_s: float) -> str:
    """The one line that says why a program stopped: its exception, else its limit, else its
    exit code (never just the last line of stderr)."""
    if status == "timeout":
        return f"ran past the {wall_s:g} s time limit"
    found = _ERROR_LINE.findall(stderr)
    if found:
        return found[-1].strip()[:300]
    limits = {"cpu_limit": "ran out of CPU time", "memory_limit": "ran out of memory",
              "output_limit": "wrote a file over the size limit",
              "disk_limit": "filled its disk quota",
              "killed": f"killed by signal {-(exit_code or 0)}"}
    if status in limits:
        return limits[status]
    tail = [ln.strip() for ln in stderr.splitlines() if ln.strip()]
    return f"exit code {exit_code}" + (f": {tail[-1][:200]}" if tail else "")


def reported_objective(stdout: str) -> float | None:
    """The last objective value a program printed, in any of the usual phrasings."""
    got = printed_objective(stdout)
    return None if got is None else got[0]


def printed_objective(stdout: str) -> tuple[float, float] | None:
    """The last objective value a program printed and half a unit of its last printed digit
    (``1.57``: 0.005; ``3095``: 0.5; ``1.2e+03``: 50): how far the true value may lie."""
    found = _REPORTED.findall(stdout)
    if not found:
        return None
    text = found[-1].replace(",", "")
    try:
        value = float(text)
    except ValueError:
        return None
    mant, _, exp = text.lower().partition("e")
    decimals = len(mant.split(".")[1]) if "." in mant else 0
    return value, 0.5 * 10.0 ** (int(exp or 0) - decimals)


def _printed_agrees(printed: tuple[float, float], objective: float) -> bool:
    """Whether an optimum rounds to what the program printed (or agrees with it)."""
    value, half = printed
    return objectives_agree(value, objective) or abs(value - objective) <= half * (1 + 1e-9)


@dataclass
class SeedResult:
    """What became of one seed (worker side)."""

    seed: Seed
    code: str
    files: dict[str, str]
    run_status: str
    checks: list[Check]
    instances: list[dict[str, Any]] = field(default_factory=list)  # every model, in order
    verifications: list[dict[str, Any]] = field(default_factory=list)
    accepted: bool = False
    reason: str | None = None
    detail: str | None = None
    objective: float | None = None
    captured: int = 0  # models the sandbox captured (before any was read or verified)

    chosen: int | None = None  # which of ``instances`` is the seed's (None: the last)

    @property
    def instance(self) -> dict[str, Any] | None:
        """The seed's instance: the last model whose optimum the program printed, else the
        last model it solved."""
        if not self.instances:
            return None
        return self.instances[-1 if self.chosen is None else self.chosen]


MAX_MODELS = 16  # models verified per seed (a program re-solving in a loop stops counting)
SEED_LIMITS = Limits(wall_s=60.0, cpu_s=65, file_mb=128, disk_mb=1024)


def _no_capture_reason(run: Any) -> str:
    if run.capture_status == "forged":
        return "forged_capture"
    if run.capture_status == "too_large":
        return "capture_too_large"
    if run.capture_status == "unsupported":  # a solve with callback rows it could not carry
        return "unsupported_model"
    if run.status == "error" and _MISSING.search(run.stderr or ""):
        return "library_unavailable"  # a modelling library this machine does not have
    return "program_failed" if run.status != "ok" else "no_model_captured"


def process_seed(seed: Seed, wall_s: float = 60.0, solve_s: float = 30.0,
                 budget_s: float = 300.0) -> SeedResult:
    """Run a seed's program, capture every model it solves and verify them here (worker
    side), within ``budget_s`` in all. A seed whose program fails its static checks is
    rejected without running; the instances are only ever the models captured in the
    sandbox, solved again here."""
    t0 = time.monotonic()
    code = extract_program(seed.answer)
    files, bad_name = seed_files(seed)
    if bad_name:
        res = SeedResult(seed, code, {}, "not_run", [Check("files", "fail",
                                                          details={"why": bad_name})])
        res.reason, res.detail = "bad_file_name", bad_name
        return res
    # The document checks that apply to a seed (no semantic model, no instance yet): the
    # static checks, with the findings seeds are allowed only noted.
    checks = run_checks(DocContext(seed.problem, seed.problem, files, program=code,
                                   tolerated=SEED_TOLERATED))
    if not all(c.ok for c in checks):
        res = SeedResult(seed, code, files, "not_run", checks)
        res.reason = "static_check_failed"
        res.detail = "; ".join(str(c.details.get("why", c.verifier)) for c in checks
                               if not c.ok)[:500]
        return res
    static = check_program(code, tuple(files))
    limits = replace(SEED_LIMITS, wall_s=wall_s, cpu_s=int(wall_s) + 5)
    job = Job(static.code or code, files, limits, capture_at="solve", args=seed.args)
    run = sandbox(PRELOAD_SEEDS).run(job)
    res = SeedResult(seed, code, files, run.status, checks)
    shown = printed_objective(run.stdout) if run.status == "ok" else None
    printed = None if shown is None else shown[0]
    program = {"status": run.status, "exit_code": run.exit_code, "seconds": round(run.seconds, 3),
               "models_captured": len(run.captures), "notes": run.capture_notes,
               "capture": run.capture_status, "isolation": run.isolation}
    if run.status != "ok":
        program["error"] = error_line(run.stderr, run.status, run.exit_code, wall_s)
    if run.capture_detail:
        program["capture_detail"] = run.capture_detail
    checks.append(Check("sandbox", "pass" if run.captures else "fail", printed, run.seconds,
                        program))
    res.captured = len(run.captures)
    if not run.captures:
        res.reason = _no_capture_reason(run)
        res.detail = program.get("error") or run.capture_detail or run.status
        return res
    captures = run.captures[-MAX_MODELS:]  # the last ones: the seed's answer is the last
    own = ([None] * len(run.captures) + list(run.solved))[-len(captures):]
    grounds = Grounds.of(seed.problem, files)
    verdicts: list[dict[str, Any]] = []
    # A model solved again (a loop re-optimising it) keeps the verdict it had: no new solve.
    done: dict[str, tuple[tuple[bool, str | None, str | None, float | None], dict[str, Any]]] = {}
    Verdict = tuple[bool, str | None, str | None, float | None]
    inst_of: dict[str, int] = {}

    def judge_model(k: int, data: bytes) -> tuple[Verdict, int | None]:
        """The verdict on captured model ``k`` and the index of its instance row."""
        where = f"seed {seed.id} model {k + 1}"
        try:
            model = loads(data.decode("utf-8", "replace"), "mps", where)
        except UnsupportedFeatureError as exc:
            # Indicators, max/min/abs/and/or and SOS sets: read by Gurobi, written as exact
            # rows over new binaries, then verified by both solvers like any model.
            try:
                model = read_general(data)
            except (UnsupportedModelError, ImportError) as why:
                last = (False, "unsupported_model", f"{exc}; {why}"[:300], None)
                verdicts.append({"model": k + 1, "status": "unsupported", "why": last[2]})
                return last, None
        except ModelFileError as exc:
            last = (False, "model_unreadable", str(exc)[:300], None)
            verdicts.append({"model": k + 1, "status": "unreadable", "why": last[2]})
            return last, None
        model = model.replace(name=seed.id if len(captures) == 1 else f"{seed.id}#{k + 1}")
        iid = model.content_hash
        if iid in done:
            last, verdict = done[iid]
            verdicts.append({**verdict, "model": k + 1})
            return last, inst_of.get(iid)
        trivial = trivial_reason(model)
        if trivial:
            verdicts.append({"model": k + 1, "id": iid, "status": "trivial", "why": trivial})
            return (False, "trivial_model", trivial, None), None
        left = budget_s - (time.monotonic() - t0)
        if left < 1.0:
            last = (False, "time_limit", f"the seed's time budget of {budget_s:g} s was "
                    "spent before this model", None)
            verdicts.append({"model": k + 1, "id": iid, "status": "time_limit",
                             "why": last[2]})
            return last, None
        # Two solvers, the relaxation and the stability re-solve share what is left.
        limit = max(1.0, min(solve_s, left / 4))
        outcome = verify(model, time_limit=limit)
        reason = None if outcome.accepted else (
            outcome.rejection.reason if outcome.rejection else "rejected")
        detail = outcome.rejection.detail if outcome.rejection else None
        # An optimum set by one number, or by numbers no one stated, is named so, also where
        # the degenerate filter saw a constant objective or no active row first.
        if outcome.accepted or (reason == "degenerate" and any(
                r.status is SolveStatus.OPTIMAL for r in outcome.results)):
            why, what = _grounding(model, outcome, grounds, limit)
            if why:
                reason, detail = why, what
                outcome = replace(outcome, accepted=False)
        differs = _own_solve_differs(own[k], outcome.objective)
        if outcome.accepted and differs:
            reason, detail = "solve_mismatch", differs
            outcome = replace(outcome, accepted=False)
        last = (outcome.accepted, reason, detail, outcome.objective)
        verdicts.append({"model": k + 1, "id": iid, "status": "accepted" if outcome.accepted
                         else "rejected", "why": reason, "objective": outcome.objective,
                         "flags": outcome.flags})
        done[iid] = (last, verdicts[-1])
        inst_of[iid] = len(res.instances)
        res.instances.append(instance_row(
            model, family=str(seed.metadata.get("structure") or "seed"),
            status="accepted" if outcome.accepted else "rejected", reject_reason=reason,
            reject_detail=detail, objective=outcome.objective, difficulty=outcome.score,
            difficulty_band=outcome.band, domain=seed.metadata.get("domain"),
            flags=json.dumps(outcome.flags) if outcome.flags else None))
        res.verifications.extend(verification_rows(iid, outcome))
        return last, inst_of[iid]

    picks = [judge_model(k, data) for k, data in enumerate(captures)]
    # The seed's answer is the last model whose optimum the program printed (an accepted one
    # first: a program may print, then solve a fixed or infeasible variant), else the last.
    choice = len(picks) - 1
    if shown is not None:
        agree = [i for i, (v, _) in enumerate(picks) if v[3] is not None and
                 _printed_agrees(shown, v[3])]
        if agree:
            choice = next((i for i in reversed(agree) if picks[i][0][0]), agree[-1])
    (res.accepted, res.reason, res.detail, res.objective), res.chosen = picks[choice]
    if res.accepted and shown is not None and res.objective is not None and \
            not _printed_agrees(shown, res.objective):
        res.accepted, res.reason = False, "reported_objective_differs"
        res.detail = f"the program printed {printed!r}; the model it solved has optimum " \
                     f"{res.objective!r}"
    checks.append(Check("agreement", "pass" if res.accepted else "fail", res.objective,
                        details={"printed": printed, "why": res.reason, "detail": res.detail,
                                 "models": verdicts}))
    return res


def _own_solve_differs(own: tuple[float, float] | None, objective: float | None) -> str | None:
    """Why the parent's optimum of a captured model is not the one the program's own solve
    reached (None: it is, or the program reached none): the capture missed part of what was
    solved (a callback's rows, a parameter that changes the model)."""
    if own is None or objective is None:
        return None
    value, bound = own
    # The program's optimum lies between its bound and its incumbent; the parent's re-solve
    # within its own gap of that.
    lo, hi = min(value, bound), max(value, bound)
    slack = MIP_GAP * max(1.0, abs(value)) + 1e-6 * max(1.0, abs(value))
    if lo - slack <= objective <= hi + slack or objectives_agree(value, objective):
        return None
    return (f"the program's own solve reached {value:.12g}; the captured model's optimum is "
            f"{objective:.12g}: the capture misses part of what the program solved")


def _grounding(model: Any, outcome: Any, grounds: Grounds, solve_s: float
               ) -> tuple[str | None, str | None]:
    """(reason, detail) of an accepted model whose optimum is no answer to its problem
    (``verifiers.resolve.judge``), else (None, None)."""
    best = next(r for r in outcome.results if r.status is SolveStatus.OPTIMAL)

    def again(m: Any) -> tuple[str, float | None]:
        r = solve(m, best.solver, time_limit=solve_s, threads=1)
        return r.status.value, r.objective

    verdict = judge(model, best.x, outcome.objective, grounds, again)
    if verdict.trivial:
        return "trivial_model", verdict.trivial[:300]
    if verdict.ungrounded:
        return "ungrounded_model", verdict.ungrounded[:300]
    return None, None


@dataclass
class SeedReport:
    """Counts of a seed import."""

    seeds: int = 0
    ran: int = 0
    solved: int = 0
    accepted: int = 0
    captured: int = 0  # seeds with at least one model captured
    models: int = 0  # models verified, counted per seed (two seeds may share a model)
    reasons: Counter[str] = field(default_factory=Counter)
    skipped: list[str] = field(default_factory=list)
    seconds: float = 0.0


@dataclass(frozen=True)
class SeedLimits:
    """The time limits of a seed import: the program's run, each solver run, the whole
    seed (program and every solve)."""

    program_s: float = 60.0
    solve_s: float = 30.0
    budget_s: float = 300.0

    def __call__(self, seed: Seed) -> SeedResult:
        return process_seed(seed, self.program_s, self.solve_s, self.budget_s)


BATCH = 256  # seeds per write transaction: memory stays flat in the file's size
FLUSH_S = 2.0  # the longest a finished seed waits to be written


SEED_TABLES = {"task_failures": REPLACE, "sources": IGNORE, "instances": IGNORE,
               "documents": Policy("replace", keep="last"),
               "verifications": Policy("replace", keep="last"), "lineage": IGNORE}


class SeedWriter(BatchWriter):
    """Seed outcomes and failures, written in batches (content ids: reruns rewrite the same);
    every flush records the seed file as a source."""

    def __init__(self, store: Store, sid: str, run_id: str, stamp: dict[str, Any],
                 source: dict[str, Any], report: SeedReport) -> None:
        # Seeds take seconds each: a batch is also due every few seconds, so a stopped import
        # keeps what it finished.
        super().__init__(store, SEED_TABLES, BATCH, FLUSH_S)
        self.sid, self.run_id = sid, run_id
        self.stamp, self.source, self.report = stamp, source, report

    def add(self, seed: Seed, res: SeedResult) -> None:
        """Buffer one seed's rows and count its outcome."""
        self.rows_of(res)
        self.task_done()
        r = self.report
        r.ran += res.run_status == "ok"
        r.solved += res.objective is not None
        r.accepted += res.accepted
        r.captured += res.captured > 0
        r.models += len(res.instances)
        if not res.accepted:
            r.reasons[res.reason or "?"] += 1

    def fail(self, seed: Seed, failure: TaskFailure) -> None:
        """Record a seed whose task raised or crashed on every attempt."""
        self.put("task_failures", [failure_row(self.run_id, "import-seeds", seed.id, failure)])
        self.task_done()
        self.report.reasons["task_failed"] += 1

    def rows_of(self, res: SeedResult) -> None:
        """The store rows of one seed's outcome. The problem is stored once as the text and
        once in the messages (the SFT export's input); embedded data files are not stored
        again (they are in the text), carried ones are."""
        s, stamp = res.seed, self.stamp
        form = str(s.metadata.get("mode") or "")
        did = content_id("doc", "seed", s.id, s.problem, s.answer, s.files, s.args)
        self.put("documents", [{
            "id": did, "instance_id": res.instance["id"] if res.instance else None,
            "semantic_id": None, "kind": "seed", "form": form or None, "text": s.problem,
            "data_files": json.dumps(s.files) if s.files else None, "program": res.code,
            "renderer": f"seed:{s.metadata.get('seed_stage', 'external')}",
            "template": s.metadata.get("answer_style"), "statement": None,
            "style": s.metadata.get("answer_style"), "solver": "gurobipy",
            "messages": json.dumps([{"role": "user", "content": s.problem},
                                    {"role": "assistant", "content": s.answer}]),
            "status": "accepted" if res.accepted else "rejected",
            "reject_reason": res.reason, "reject_detail": res.detail,
            "objective": res.objective, "minhash": None, **stamp}])
        self.put("verifications", ({**check_row(did, c), **stamp} for c in res.checks))
        params = {"line": s.line, "seed_id": s.id, "metadata": s.metadata,
                  "args": list(s.args)}
        self.put("lineage", [lineage_row(self.sid, "source", did, "document", "imported",
                                         operator="seed", params=json.dumps(params),
                                         **stamp)])
        self.put("verifications", ({**v, **stamp} for v in res.verifications))
        for k, inst in enumerate(res.instances):
            iid = inst["id"]
            self.put("instances", [{**inst, **stamp}])
            self.put("lineage", [lineage_row(
                did, "document", iid, "instance", "captured", operator="sandbox",
                params=json.dumps({**params, "model": k + 1, "models": len(res.instances)}),
                **stamp)])

    def flush(self) -> None:
        """Commit what is buffered, with the source row, in one transaction."""
        self.put("sources", [self.source])
        super().flush()


def import_seeds(store: Store, path: Path, workers: int = 1, skip_bad: bool = False,
                 executor: Executor | None = None,
                 on_result: Callable[[SeedReport], None] | None = None,
                 on_start: Callable[[int], None] | None = None,
                 limits: SeedLimits | None = None) -> SeedReport:
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
    writer = SeedWriter(store, sid, run_id, stamp, source, report)

    def finish(_: DriveStats) -> None:
        report.seconds = time.perf_counter() - start
        # A seed import records its run once done (a rerun keeps the first record).
        with store.transaction():
            store.insert("runs", [run_row(
                run_id, "import-seeds",
                {"path": abspath, "workers": workers, "limits": vars(limits or SeedLimits()),
                 "sandbox": support()},
                status="complete", started_at=now, finished_at=utcnow(),
                counts={"seeds": report.seeds, "ran": report.ran, "captured": report.captured,
                        "models": report.models, "solved": report.solved,
                        "accepted": report.accepted,
                        "failed": report.reasons.get("task_failed", 0),
                        "bad_lines_skipped": len(scan.skipped)})])

    run_batch(iter_seeds(path), limits or SeedLimits(), writer, executor=executor,
              workers=workers, finish=finish,
              on_result=(lambda _t, _r: on_result(report)) if on_result else None)
    return report


__all__ = ["JobError", "SeedFileError", "SeedLimits", "import_seeds", "iter_seeds", "read_seeds",
           "scan_seeds"]
