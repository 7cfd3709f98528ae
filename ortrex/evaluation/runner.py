"""An evaluation run: completions from the endpoint, scored in warm sandboxes, one JSONL line
per (item, sample), resumable.

Completions are requested concurrently (asyncio, the client's semaphore); each is scored in a
thread that owns a warm sandbox (``workers`` of them), so waiting for the model and running
programs overlap. A line is appended to ``<benchmark>.jsonl`` as soon as its sample is scored;
a rerun with the same settings and output skips every (item, sample) already there and takes
completions it already has from the cache, so a killed run loses nothing and scores nothing
twice. Samples that got no completion (``api_error``: the endpoint failed after its retries)
are asked again by the rerun.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ortrex.benchmarks.base import Benchmark, BenchmarkError, Item
from ortrex.benchmarks.registry import load
from ortrex.evaluation.results import read_results
from ortrex.jobs import Executor, TaskFailure
from ortrex.served.buffer import JsonlSink, RowBuffer
from ortrex.served.client import Client, Completion, Sampling
from ortrex.served.prompts import Pool, messages, template_hash
from ortrex.served.scoring import (
    RULES,
    SandboxPool,
    Verdict,
    score_completion,
    score_task,
)
from ortrex.verifiers.sandbox.isolation import Limits


@dataclass
class EvalSpec:
    """Everything that defines a run (all but ``workers``, ``limit`` and ``output`` go into
    its settings hash)."""

    benchmarks: list[str]
    base_url: str
    sampling: Sampling
    output: Path | None = None
    limit: int | None = None
    workers: int = 2
    data_dir: str | None = None
    rule: str = "default"
    shots: int = 0
    pool: Path | None = None
    exec_timeout: float = 120.0
    request_timeout: float = 600.0
    concurrency: int = 16
    api_key: str | None = None
    db: str | None = None  # the store (ortrex-heldout)
    retries: int = 4  # per request, on 429 / 5xx / timeouts / connection errors

    def settings(self) -> dict[str, Any]:
        """What makes two runs comparable and a resume valid."""
        return {"base_url": self.base_url.rstrip("/"), "sampling": self.sampling.to_dict(),
                "rule": self.rule, "shots": self.shots,
                "pool": str(self.pool) if self.pool else None,
                "exec_timeout": self.exec_timeout, "templates": template_hash()}

    def settings_hash(self) -> str:
        """Short content hash of :meth:`settings`."""
        return hashlib.sha256(json.dumps(self.settings(), sort_keys=True).encode()
                              ).hexdigest()[:10]


@dataclass
class Timing:
    """Where the run's time went."""

    waiting_s: float = 0.0  # summed over requests: waiting for completions
    exec_s: float = 0.0  # summed over samples: sandboxed run, objective and equivalence checks
    wall_s: float = 0.0
    requests: int = 0
    cached: int = 0


@dataclass
class BenchRun:
    """One benchmark of a run: its loaded items and results file."""

    bench: Benchmark
    items: list[Item]
    path: Path
    done: set[tuple[str, int]] = field(default_factory=set)


def default_output(spec: EvalSpec) -> Path:
    """``eval-runs/<model>-<settings hash>``: the same settings resume the same folder."""
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec.sampling.model)
    return Path("eval-runs") / f"{safe}-{spec.settings_hash()}"


def load_benchmarks(spec: EvalSpec) -> list[Benchmark]:
    """The benchmarks of a run, loaded (errors before any work)."""
    return [load(name, spec.data_dir, spec.db) for name in spec.benchmarks]


def _timed_score(item: Item, comp: Completion, sandboxes: SandboxPool, limits: Limits,
                 rule: str) -> tuple[Verdict, float]:
    """:func:`score_completion` and its seconds in the scoring thread (queueing excluded)."""
    t0 = time.perf_counter()
    v = score_completion(item, comp, sandboxes, limits, rule)
    return v, time.perf_counter() - t0


async def _score(item: Item, comp: Completion, executor: ThreadPoolExecutor,
                 sandboxes: SandboxPool, limits: Limits, rule: str,
                 jobs: Executor | None) -> tuple[Verdict, float]:
    """Score in a thread of this process (its warm sandbox), or as a task of a job executor
    (local processes, Ray): a scorer that died is a verdict, not a lost sample."""
    if jobs is None:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(executor, _timed_score, item, comp, sandboxes,
                                          limits, rule)
    got = await asyncio.wrap_future(jobs.submit(score_task, (item, comp, limits, rule)))
    if isinstance(got, TaskFailure):
        return Verdict(False, "scoring_error", got.line()), 0.0
    return got


async def _run_bench(br: BenchRun, client: Client, spec: EvalSpec, pool: Pool | None,
                     executor: ThreadPoolExecutor, sandboxes: SandboxPool, timing: Timing,
                     progress: Callable[[str, int, int], None] | None,
                     jobs: Executor | None = None) -> None:
    limits = Limits(wall_s=spec.exec_timeout, cpu_s=int(spec.exec_timeout) + 1)
    k = spec.sampling.k
    todo = [(it, s) for it in br.items for s in range(k) if (it.id, s) not in br.done]
    total = len(br.items) * k
    finished = total - len(todo)
    if progress:
        progress(br.bench.name, finished, total)
    out = open(br.path, "a", encoding="utf-8")  # noqa: SIM115 - closed in finally
    # A line per sample, written as soon as it is scored: a killed run keeps every line.
    lines = RowBuffer(JsonlSink({br.bench.name: out}), every=1)

    prompts: dict[str, tuple[list[Any], list[dict[str, Any]]]] = {}  # per item, not sample

    async def one(item: Item, sample: int) -> None:
        nonlocal finished
        if item.id not in prompts:
            chosen = pool.select(item, spec.shots) if pool and spec.shots else []
            prompts[item.id] = (chosen, messages(item, chosen))
        shots, msgs = prompts[item.id]
        comp = await client.complete(msgs, sample)
        timing.requests += 1
        timing.cached += comp.cached
        timing.waiting_s += comp.seconds
        try:
            v, secs = await _score(item, comp, executor, sandboxes, limits, spec.rule, jobs)
        except Exception as exc:  # one answer's failure is its verdict, never the run's end
            v, secs = Verdict(False, "scoring_error", f"{type(exc).__name__}: {exc}"[:300]), 0.0
        timing.exec_s += secs
        row = {"benchmark": br.bench.name, "id": item.id, "sample": sample,
               "passed": v.passed, "failure": v.failure, "detail": v.detail,
               "objective": v.objective, "objective_source": v.objective_source,
               "answer": item.answer, "equivalence": v.equivalence, "rules": v.rules,
               "exec_s": round(v.exec_s, 4), "shots": [s.id for s in shots],
               "prompt": msgs[-1]["content"], "completion": comp.text, "program": v.program,
               "usage": comp.usage}
        lines.add(br.bench.name, [row])
        lines.finished()
        finished += 1
        if progress:
            progress(br.bench.name, finished, total)

    try:
        await asyncio.gather(*(one(it, s) for it, s in todo))
    finally:
        lines.flush()
        out.close()


def prepare(spec: EvalSpec) -> tuple[Path, list[BenchRun]]:
    """Load the benchmarks, check (or create) the output folder; errors before any work."""
    if spec.rule not in RULES:
        raise BenchmarkError(f"unknown tolerance rule {spec.rule!r}; expected one of "
                             f"{', '.join(RULES)}")
    if spec.shots and spec.pool is None:
        raise BenchmarkError("--shots needs --pool (a JSONL of question/answer examples)")
    benches = load_benchmarks(spec)
    out = spec.output or default_output(spec)
    manifest = out / "manifest.json"
    if manifest.is_file():
        old = json.loads(manifest.read_text()).get("settings")
        if old != spec.settings():
            raise BenchmarkError(f"{out}: holds a run with other settings; give another "
                                 "--output")
    runs = []
    for b in benches:
        items = b.items[:spec.limit] if spec.limit else b.items
        br = BenchRun(b, items, out / f"{b.name}.jsonl")
        br.done = {(r["id"], int(r["sample"])) for r in read_results(br.path)
                   if r.get("failure") != "api_error"}
        runs.append(br)
    return out, runs


def write_manifest(out: Path, spec: EvalSpec, runs: list[BenchRun], timing: Timing) -> None:
    """``manifest.json``: benchmark hashes, tolerance rule, sampling, solver versions, counts."""
    import gurobipy

    from ortrex import __version__
    from ortrex.ir.formats.text import write_atomic
    from ortrex.verifiers.sandbox.isolation import support
    from ortrex.verifiers.solvers import highs_version

    data = {
        "ortrex_version": __version__, "settings": spec.settings(),
        "tolerance_rule": {"name": spec.rule, "rule": RULES[spec.rule][0],
                           "also_reported": {k: v[0] for k, v in RULES.items()}},
        "pass_at_k": "pass@k: any of k samples passes; mean@k: mean pass rate over samples; "
                     "pass@1: sample 0",
        "solvers": {"gurobipy": ".".join(map(str, gurobipy.gurobi.version())),
                    "highspy": highs_version()},
        "scoring": "the optimum of the model each program left, captured in the sandbox and "
                   "solved again by ortrex; printed lines and self-reported solves never count",
        "sandbox": support(),
        "benchmarks": {br.bench.name: {"sha256": br.bench.sha256, "source": br.bench.source,
                                       "items": len(br.bench.items),
                                       "evaluated": len(br.items),
                                       "unscoreable": sum(1 for i in br.items
                                                          if i.unscoreable)}
                       for br in runs},
        "timing": asdict(timing),
    }
    write_atomic(out / "manifest.json", (json.dumps(data, indent=2) + "\n").encode())


async def _main(spec: EvalSpec, out: Path, runs: list[BenchRun], timing: Timing,
                progress: Callable[[str, int, int], None] | None,
                jobs: Executor | None = None) -> None:
    client = Client(spec.base_url, spec.sampling, out / "cache", spec.api_key,
                    spec.request_timeout, spec.retries, spec.concurrency)
    try:
        pool = Pool(spec.pool) if spec.pool and spec.shots else None
        await client.check()
        out.mkdir(parents=True, exist_ok=True)  # only once the endpoint answers
        lock = _lock(out)
        write_manifest(out, spec, runs, timing)  # settings first: a resume checks them
        sandboxes = SandboxPool()
        executor = ThreadPoolExecutor(max(1, spec.workers), thread_name_prefix="score")
        try:
            for br in runs:
                await _run_bench(br, client, spec, pool, executor, sandboxes, timing, progress,
                                 jobs)
        finally:
            executor.shutdown(wait=True)
            sandboxes.close()
            lock.close()
    finally:
        await client.close()


def _lock(out: Path) -> Any:
    """An exclusive lock on the run folder: two runs appending to one file would interleave."""
    import fcntl

    f = open(out / ".lock", "w")  # noqa: SIM115 - held for the run, closed by the caller
    try:
        fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        f.close()
        raise BenchmarkError(f"{out}: another run is writing to this folder") from None
    return f


def run_eval(spec: EvalSpec, progress: Callable[[str, int, int], None] | None = None,
             executor: Executor | None = None) -> tuple[Path, dict[str, Any]]:
    """Run (or resume) an evaluation; the output folder and its summary. Completions are
    scored in ``spec.workers`` threads of this process, or on ``executor`` (Ray)."""
    from ortrex.evaluation.summary import write_summary

    os.environ.setdefault("OMP_NUM_THREADS", "1")
    out, runs = prepare(spec)
    timing = Timing()
    t0 = time.perf_counter()
    asyncio.run(_main(spec, out, runs, timing, progress, executor))
    timing.wall_s = time.perf_counter() - t0
    write_manifest(out, spec, runs, timing)
    summary = write_summary(out, spec, runs)
    return out, summary
