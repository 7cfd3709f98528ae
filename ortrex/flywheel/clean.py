"""``ortrex clean``: the Clean / Clean-CoT flywheel over diagnosed answers.

For each mistaken answer (``ortrex distill``): a repair is proposed (``flywheel.repair``:
deterministic from the semantic model where every diagnosed mistake is mechanical, else by the
served model with the diagnosis), validated locally (the repaired program scored like an
answer: static contract, sandboxed run, the verified optimum, structural equivalence) and
reviewed per branch (``flywheel.review``: the verifiers, plus the served reviewer when there is
an endpoint). A branch takes the first round whose review passes and whose validation passes;
until every branch has one, a served repair gets another round with the reason it was not
accepted, up to ``--max-rounds``, and a repair that repeats an earlier one (or the first answer)
stops the loop. Accepted repairs become SFT examples that must meet the export contract:

* **clean**: the prompt the model was asked, and the repaired program;
* **clean_cot**: the same, with reasoning in the thinking channel (``reasoning_content``):
  ``render.reasoning`` over the semantic model, the statement's account and the data, ending
  with what the diagnosis teaches.

Every answer and branch leaves a ``clean_stages`` row (diagnosed, repaired, reviewer passed,
validated, exported, or the failure that stopped it): the run's stage table per mistake class.
Lineage: answer -> diagnosis -> repair -> review -> example. One answer's rounds are
``flywheel.rounds``.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from ortrex.flywheel.answers import problem_rows
from ortrex.flywheel.clean_spec import CleanSpec
from ortrex.flywheel.diagnose import Diagnosis
from ortrex.flywheel.distill import Progress, row_buffer
from ortrex.flywheel.rounds import Answer, Ctx, clean_answer
from ortrex.jobs import JobError
from ortrex.served.buffer import RowBuffer
from ortrex.served.client import Sampling
from ortrex.store.db import Store, utcnow
from ortrex.store.errors import QueryError
from ortrex.store.records import finish_run, start_run
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool


def select_answers(store: Store, spec: CleanSpec) -> list[Answer]:
    """The mistaken answers of ``--from`` not yet cleaned by this run."""
    sql = ("SELECT a.* FROM answers a WHERE a.outcome = 'mistaken' AND a.id NOT IN "
           "(SELECT answer_id FROM clean_stages WHERE run_id = ?) "
           f"AND ({spec.where or 'true'}) ORDER BY a.id")
    try:
        rows = store.query(sql, [spec.run_id]).to_dicts()
    except QueryError as exc:
        raise JobError(store.filter_error("--from", spec.where or "true", exc,
                                          "SELECT * FROM answers")) from None
    if spec.limit:
        rows = rows[:spec.limit]
    if not rows:
        return []
    docs = sorted({r["document_id"] for r in rows})
    quoted = ", ".join("'" + d.replace("'", "''") + "'" for d in docs)
    problems = {p.document_id: p for p in problem_rows(store, f"document_id IN ({quoted})",
                                                        None)}
    diags: dict[str, list[Diagnosis]] = {}
    for d in store.query("SELECT * FROM diagnoses WHERE answer_id IN (SELECT unnest(?)) "
                         "ORDER BY answer_id, seq", [[r["id"] for r in rows]]).to_dicts():
        details = d["details"] if isinstance(d["details"], dict) else \
            json.loads(d["details"] or "{}")
        diags.setdefault(d["answer_id"], []).append(Diagnosis(
            d["mistake"], d["kind"], d["family"], d["role"], d["evidence"], details))
    out = []
    for r in rows:
        p = problems.get(r["document_id"])
        if p is None:  # its problem left the corpus (rejected, held out): nothing to teach
            continue
        cap = zlib.decompress(r["captured"]) if r["captured"] else None
        out.append(Answer(r["id"], p, r["program"], cap, diags.get(r["id"], []),
                          r["mistake"] or "unknown"))
    return out


def run_clean(store: Store, spec: CleanSpec, progress: Progress | None = None
              ) -> dict[str, Any]:
    """Clean every selected answer (or resume); the stage table and summary."""
    answers = select_answers(store, spec)
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    rows = row_buffer(store)
    t0 = time.perf_counter()
    try:
        asyncio.run(_clean(store, spec, answers, rows, progress))
    finally:
        rows.flush()
    table = stage_table(store, spec.run_id)
    summary = {"run_id": spec.run_id, "answers": len(answers), "stages": table,
               "seconds": round(time.perf_counter() - t0, 2),
               "failures": store.query(
                   "SELECT failure, count(DISTINCT answer_id) AS answers FROM clean_stages "
                   "WHERE run_id = ? AND failure IS NOT NULL GROUP BY ALL ORDER BY 2 DESC",
                   [spec.run_id]).to_dicts()}
    finish_run(store, spec.run_id, summary)
    return summary


async def _clean(store: Store, spec: CleanSpec, answers: list[Answer], rows: RowBuffer,
                 progress: Progress | None) -> None:
    served = spec.served
    repairer = reviewer = None
    if served is not None and spec.model is not None:
        sampling = Sampling(spec.model, spec.temperature, 1.0, spec.max_tokens, spec.seed)
        repairer = served.client(sampling, store.path)
        reviewer = served.client(Sampling(spec.reviewer or spec.model, spec.temperature, 1.0,
                                          spec.max_tokens, spec.seed), store.path)
    ctx = Ctx(store, spec, rows, ThreadPoolExecutor(max(1, spec.workers)), SandboxPool(),
               Limits(wall_s=spec.exec_timeout, cpu_s=int(spec.exec_timeout) + 1),
               repairer, reviewer)
    done = [0]
    tally: dict[str, int] = {}

    async def one(a: Answer) -> None:
        branches = await clean_answer(ctx, a)
        now = utcnow()
        for b in branches.values():
            rows.add("clean_stages", [{
                "id": f"{spec.run_id}:{a.id}:{b.name}", "run_id": spec.run_id,
                "answer_id": a.id, "branch": b.name, "mistake": a.mistake,
                "diagnosed": b.diagnosed, "repaired": b.repaired,
                "reviewer_passed": b.reviewer_passed, "validated": b.validated,
                "exported": b.exported, "document_id": b.document_id, "failure": b.failure,
                "created_at": now}])
            key = "exported" if b.exported else ("failed" if b.failure else "rejected")
            tally[key] = tally.get(key, 0) + 1
        rows.finished()
        done[0] += 1
        if progress:
            progress(done[0], len(answers), ", ".join(f"{k} {v}" for k, v in tally.items()))

    try:
        # The endpoint and both models are checked before anything is written.
        if repairer is not None:
            await repairer.check()
        if reviewer is not None:
            await reviewer.check()
        start_run(store, spec.run_id, "clean", spec.settings())
        if progress:
            progress(0, len(answers), "")
        await asyncio.gather(*(one(a) for a in answers))
    finally:
        ctx.pool.shutdown(wait=True)
        ctx.sandboxes.close()
        for c in (repairer, reviewer):
            if c is not None:
                await c.close()


def stage_table(store: Store, run_id: str) -> list[dict[str, Any]]:
    """The run's stage table: per branch and mistake class, how many answers reached each
    stage."""
    return store.query(
        "SELECT branch, mistake, count(*) AS input, count(*) FILTER (WHERE diagnosed) AS "
        "diagnosed, count(*) FILTER (WHERE repaired) AS repaired, count(*) FILTER (WHERE "
        "reviewer_passed) AS reviewer_passed, count(*) FILTER (WHERE validated) AS validated, "
        "count(*) FILTER (WHERE exported) AS exported FROM clean_stages WHERE run_id = ? "
        "GROUP BY ALL ORDER BY branch, input DESC, mistake", [run_id]).to_dicts()
