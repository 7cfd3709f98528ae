"""``ortrex distill``: a served model answers verified corpus problems; every answer is scored
and diagnosed against the verified instance and stored with its lineage.

Requests go through the evaluation's client (``--concurrency`` in flight, retries with backoff,
every completion cached on disk before it is scored); answers are scored in ``--workers``
threads, each with a warm sandbox (``flywheel.answers``). Rows are written in small transactions
as answers come in, so a killed run keeps what it finished; a rerun of the same command skips
what is stored and takes what is cached from the disk, asking the endpoint only for the rest.
An item the endpoint could not answer (after its retries) or whose scoring raised is a
``task_failures`` row, asked again by the next run.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import zlib
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ortrex.flywheel.answers import Problem, Scored, problem_rows, score_answer
from ortrex.flywheel.diagnose import Diagnosis
from ortrex.jobs import JobError, TaskFailure
from ortrex.served.buffer import RowBuffer, StoreSink
from ortrex.served.client import Client, Sampling
from ortrex.served.prompts import template_hash
from ortrex.store.db import Store, utcnow
from ortrex.store.errors import QueryError
from ortrex.store.ids import content_id
from ortrex.store.records import failure_row, finish_run, lineage_row, start_run
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool

Progress = Callable[[int, int, str], None]


@dataclass
class Served:
    """An endpoint and how it is asked."""

    base_url: str
    concurrency: int = 16
    request_timeout: float = 600.0
    retries: int = 4
    api_key: str | None = None
    cache: Path | None = None  # completions on disk (default: beside the store)

    def client(self, sampling: Sampling, store_path: Path) -> Client:
        """A client for one model (the cache shared by every model of the endpoint)."""
        cache = self.cache or store_path.parent / "ortrex-cache" / "completions"
        return Client(self.base_url, sampling, cache, self.api_key, self.request_timeout,
                      self.retries, self.concurrency)


@dataclass
class DistillSpec:
    """What to ask, of which model."""

    served: Served
    sampling: Sampling
    where: str | None = None  # SQL filter over the problems
    limit: int | None = None
    workers: int = 2
    exec_timeout: float = 60.0

    def settings(self) -> dict[str, Any]:
        """What makes two runs the same run (and a resume valid)."""
        return {"base_url": self.served.base_url.rstrip("/"),
                "sampling": self.sampling.to_dict(), "where": self.where, "limit": self.limit,
                "exec_timeout": self.exec_timeout, "templates": template_hash()}

    @property
    def run_id(self) -> str:
        """Content-derived: the same command is the same run."""
        return content_id("run", "distill", self.settings())


# Rows a rerun rewrites: an item's failure (asked again) and an answer's stage row.
REWRITTEN = ("task_failures", "clean_stages")


def row_buffer(store: Store) -> RowBuffer:
    """The flywheel jobs' single writer: a transaction every 16 items or 1 s."""
    return RowBuffer(StoreSink(store, REWRITTEN), every=16, age_s=1.0)


def edge(parent: str, pkind: str, child: str, ckind: str, relation: str, operator: str | None,
         run_id: str, now: Any, params: dict[str, Any] | None = None) -> dict[str, Any]:
    """A lineage row (``ortrex.store.records.lineage_row``, params as JSON text)."""
    return lineage_row(parent, pkind, child, ckind, relation, operator=operator,
                       params=json.dumps(params or {}), created_at=now, run_id=run_id)


def item_failure(run_id: str, command: str, key: str, error: str, attempts: int = 1,
                 tb: str | None = None) -> dict[str, Any]:
    """A ``task_failures`` row for one item (a rerun asks it again)."""
    return failure_row(run_id, command, key, TaskFailure("error", error[:300], tb or error,
                                                         attempts))


def select_problems(store: Store, where: str | None, limit: int | None) -> list[Problem]:
    """The problems of ``--from`` (bad SQL or no match: ``JobError``)."""
    try:
        problems = problem_rows(store, where, limit)
    except QueryError as exc:
        raise JobError(str(exc) if where and str(exc).startswith("--from") else
                       f"--from {where!r}: {exc}") from None
    if not problems:
        raise JobError("no accepted SFT examples to ask about" +
                       (f" match --from {where!r}" if where else
                        " (run `ortrex pipeline` first)"))
    return problems


def diagnosis_rows(answer_id: str, found: list[Diagnosis], run_id: str, now: Any
                   ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(diagnoses rows, lineage answer -> diagnosis)."""
    rows, edges = [], []
    for k, d in enumerate(found):
        did = content_id("diag", answer_id, k, d.mistake, d.family)
        rows.append({"id": did, "answer_id": answer_id, "seq": k, "mistake": d.mistake,
                     "family": d.family, "role": d.role, "kind": d.kind,
                     "evidence": d.evidence, "details": json.dumps(d.details, default=str),
                     "created_at": now})
        edges.append(edge(answer_id, "answer", did, "diagnosis", "diagnosed", d.mistake,
                          run_id, now))
    return rows, edges


def answer_rows(spec: DistillSpec, p: Problem, sample: int, text: str, s: Scored,
                prompt: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    """Every row one scored answer writes."""
    now = utcnow()
    run_id = spec.run_id
    aid = content_id("answer", spec.sampling.to_dict(), p.document_id, sample, text)
    answer = {"id": aid, "run_id": run_id, "document_id": p.document_id,
              "instance_id": p.instance_id, "semantic_id": p.semantic_id, "family": p.family,
              "form": p.form, "model": spec.sampling.model, "sample": sample,
              "prompt": json.dumps(prompt), "completion": text, "reasoning": s.reasoning,
              "program": s.program, "outcome": s.outcome, "failure": s.failure,
              "detail": s.detail[:1000] if s.detail else None, "objective": s.objective,
              "expected": p.objective, "equivalence": s.equivalence,
              "equivalence_reason": s.equivalence_reason, "mistake": s.mistake,
              "captured": zlib.compress(s.captured) if s.captured else None,
              "exec_s": s.exec_s, "created_at": now}
    diags, edges = diagnosis_rows(aid, s.diagnoses, run_id, now)
    edges.insert(0, edge(p.document_id, "document", aid, "answer", "answered",
                         spec.sampling.model, run_id, now, {"sample": sample}))
    return {"answers": [answer], "diagnoses": diags, "lineage": edges}


def run_distill(store: Store, spec: DistillSpec, progress: Progress | None = None
                ) -> dict[str, Any]:
    """Ask, score, diagnose and store (or resume); the run's summary."""
    if spec.sampling.k < 1:
        raise JobError("--k must be at least 1")
    problems = select_problems(store, spec.where, spec.limit)
    run_id = spec.run_id
    done = {(r["document_id"], int(r["sample"])) for r in store.query(
        "SELECT document_id, sample FROM answers WHERE run_id = ?", [run_id]).to_dicts()}
    todo = [(p, s) for p in problems for s in range(spec.sampling.k)
            if (p.document_id, s) not in done]
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    stats: Counter[str] = Counter()
    rows = row_buffer(store)
    t0 = time.perf_counter()
    try:
        asyncio.run(_distill(store, spec, todo, len(problems) * spec.sampling.k,
                             len(problems) * spec.sampling.k - len(todo), rows, stats,
                             progress))
    finally:
        rows.flush()
    summary = distill_summary(store, run_id)
    summary["seconds"] = round(time.perf_counter() - t0, 2)
    summary["requests"] = {k: v for k, v in stats.items()}
    finish_run(store, run_id, summary)
    return summary


async def _distill(store: Store, spec: DistillSpec, todo: list[tuple[Problem, int]],
                   total: int, finished: int, rows: RowBuffer, stats: Counter[str],
                   progress: Progress | None) -> None:
    client = spec.served.client(spec.sampling, store.path)
    sandboxes = SandboxPool()
    pool = ThreadPoolExecutor(max(1, spec.workers), thread_name_prefix="distill")
    limits = Limits(wall_s=spec.exec_timeout, cpu_s=int(spec.exec_timeout) + 1)
    loop = asyncio.get_running_loop()
    count = [finished]
    outcomes: Counter[str] = Counter()

    async def one(p: Problem, sample: int) -> None:
        key = f"{p.document_id}:{sample}"
        prompt = p.prompt()
        comp = await client.complete(prompt, sample)
        stats["cached" if comp.cached else "asked"] += 1
        if comp.text is None:
            rows.add("task_failures", [item_failure(spec.run_id, "distill", key,
                                                    f"endpoint: {comp.error}",
                                                    spec.served.retries + 1)])
            outcomes["failed"] += 1
        else:
            try:
                scored = await loop.run_in_executor(pool, score_answer, p, comp.text,
                                                    sandboxes, limits)
            except Exception as exc:  # a scorer that broke is this item's failure, not the run's
                import traceback

                rows.add("task_failures", [item_failure(
                    spec.run_id, "distill", key, f"scoring: {type(exc).__name__}: {exc}",
                    tb=traceback.format_exc()[-4000:])])
                outcomes["failed"] += 1
            else:
                for table, got in answer_rows(spec, p, sample, comp.text, scored,
                                              prompt).items():
                    rows.add(table, got)
                rows.drop("task_failures", [f"{spec.run_id}:{key}"])
                outcomes[scored.outcome if scored.outcome == "passed" else
                         (scored.mistake or "mistaken")] += 1
        rows.finished()
        count[0] += 1
        if progress:
            progress(count[0], total, ", ".join(f"{k} {v}" for k, v in outcomes.most_common(4)))

    try:
        await client.check()  # before anything is written: a bad endpoint leaves no trace
        start_run(store, spec.run_id, "distill", spec.settings())
        if progress:
            progress(count[0], total, "")
        await asyncio.gather(*(one(p, s) for p, s in todo))
    finally:
        pool.shutdown(wait=True)
        sandboxes.close()
        await client.close()


def distill_summary(store: Store, run_id: str) -> dict[str, Any]:
    """Answers of a run by outcome and by mistake class (first diagnosis), and every
    diagnosis by class; item failures."""
    by_class = store.query(
        "SELECT coalesce(mistake, 'passed') AS mistake, count(*) AS answers, "
        "count(*) FILTER (WHERE failure IS NULL OR failure = 'wrong_objective') AS ran, "
        "count(DISTINCT document_id) AS problems FROM answers WHERE run_id = ? "
        "GROUP BY ALL ORDER BY answers DESC, mistake", [run_id]).to_dicts()
    diags = store.query(
        "SELECT d.mistake, count(*) AS diagnoses, count(DISTINCT d.family) AS families "
        "FROM diagnoses d JOIN answers a ON a.id = d.answer_id WHERE a.run_id = ? "
        "GROUP BY ALL ORDER BY diagnoses DESC, d.mistake", [run_id]).to_dicts()
    failed = store.query("SELECT task_key, error FROM task_failures WHERE run_id = ? "
                         "ORDER BY task_key", [run_id]).to_dicts()
    n = sum(r["answers"] for r in by_class)
    passed = next((r["answers"] for r in by_class if r["mistake"] == "passed"), 0)
    return {"run_id": run_id, "answers": n, "passed": passed, "by_class": by_class,
            "diagnoses": diags, "failed": failed}
