"""One answer through the Clean / Clean-CoT flywheel (``ortrex clean``): repair rounds, per-branch
reviews, local validation and the export of each branch's example, with the rows each step
writes (repairs, reviews, lineage, documents). The job around it is ``flywheel.clean``."""

from __future__ import annotations

import asyncio
import json
import re
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ortrex import __version__
from ortrex.flywheel.answers import Problem, Scored, fenced, score_answer
from ortrex.flywheel.diagnose import Diagnosis
from ortrex.flywheel.distill import edge, item_failure
from ortrex.flywheel.repair import (
    Proposal,
    actionable,
    caution,
    deterministic,
    mechanical,
    repair_messages,
)
from ortrex.flywheel.review import (
    ReviewReplyError,
    ReviewVerdict,
    parse_verdict,
    review_messages,
    verifier_review,
)
from ortrex.served.buffer import RowBuffer
from ortrex.served.client import Client
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool

if TYPE_CHECKING:
    from ortrex.flywheel.clean_spec import CleanSpec

RENDERER = f"ortrex-clean/{__version__}"


@dataclass
class Answer:
    """A diagnosed answer as the cleaner reads it from the store."""

    id: str
    problem: Problem
    program: str | None
    captured: bytes | None
    diagnoses: list[Diagnosis]
    mistake: str

    def first(self) -> Scored:
        """The answer's own score (its diagnoses, program and captured model)."""
        return Scored("mistaken", None, "", self.program, None, diagnoses=self.diagnoses,
                      captured=self.captured)


@dataclass
class Branch:
    """How far one answer went in one branch."""

    name: str
    diagnosed: bool = False
    repaired: bool = False
    reviewer_passed: bool = False
    validated: bool = False
    exported: bool = False
    document_id: str | None = None
    failure: str | None = None
    accepted: tuple[dict[str, Any], Proposal, Scored] | None = None  # repair row, proposal


@dataclass
class Ctx:
    """What the answers of one clean run share: the store and its writer's batch, the scoring
    threads and their sandboxes, and the clients of the repairing and reviewing models."""

    store: Store
    spec: CleanSpec
    rows: RowBuffer
    pool: ThreadPoolExecutor
    sandboxes: SandboxPool
    limits: Limits
    repairer: Client | None
    reviewer: Client | None


def _norm(program: str | None) -> str:
    return re.sub(r"\s+", " ", program or "").strip()


async def clean_answer(ctx: Ctx, a: Answer) -> dict[str, Branch]:
    """Repair, review, validate and export one answer; how far each branch went."""
    spec = ctx.spec
    branches = {b: Branch(b) for b in spec.branches}
    acts = actionable(a.diagnoses)
    for b in branches.values():
        b.diagnosed = bool(acts)
    if not acts:
        _fail(branches, "the diagnosis names no family to repair")
        return branches
    use_det = spec.repair == "deterministic" or (spec.repair == "auto" and mechanical(acts))
    if use_det and not mechanical(acts):
        _fail(branches, "not mechanical (" + ", ".join(sorted({d.mistake for d in acts})) +
              "): a served model repairs it (--repair auto or served, with --base-url)")
        return branches
    if not use_det and ctx.repairer is None:
        _fail(branches, "needs a served model for " +
              ", ".join(sorted({d.mistake for d in acts})) + " (give --base-url and --model)")
        return branches
    loop = asyncio.get_running_loop()
    first = a.first()
    names = await loop.run_in_executor(ctx.pool, _names, a)
    candidates = deterministic(a.problem, a.program, acts, names) if use_det else []
    seen: dict[str, int] = {_norm(a.program): 0}
    feedback: list[tuple[str, str | None]] = []
    rounds = len(candidates) if use_det else spec.max_rounds
    tried = 0
    for rnd in range(1, rounds + 1):
        tried = rnd
        if use_det:
            proposal = candidates[rnd - 1]
        else:
            try:
                proposal = await _served_repair(ctx, a, acts, feedback)
            except _ItemError as exc:
                _fail(branches, str(exc), ctx, a.id)
                return branches
        repair_row = _repair_row(ctx, a, rnd, proposal)
        if proposal.program is None:
            ctx.rows.add("repairs", [repair_row])
            feedback.append(("the reply holds no program", None))
            continue
        key = _norm(proposal.program)
        if key in seen:
            repair_row["status"] = "repeat"
            ctx.rows.add("repairs", [repair_row])
            what = "the first answer" if seen[key] == 0 else f"round {seen[key]}"
            _fail(branches, f"the repair loops: round {rnd} repeats {what}")
            break
        seen[key] = rnd
        for b in branches.values():
            b.repaired = True
        try:
            validation = await loop.run_in_executor(
                ctx.pool, score_answer, a.problem, fenced(proposal.program), ctx.sandboxes,
                ctx.limits)
        except Exception as exc:  # a broken scorer fails this item, not the run
            _fail(branches, f"validation: {type(exc).__name__}: {exc}", ctx, a.id)
            return branches
        validated = validation.outcome == "passed"
        repair_row["validated"] = validated
        repair_row["validation"] = json.dumps(validation.summary(), default=str)
        ctx.rows.add("repairs", [repair_row])
        _lineage_repair(ctx, a, repair_row, proposal)
        reasons = []
        for b in branches.values():
            if b.accepted is not None:
                continue
            try:
                verdict = await _review(ctx, a, first, proposal, validation, b.name)
            except _ItemError as exc:
                _fail(branches, str(exc), ctx, a.id)
                return branches
            _review_row(ctx, a, repair_row, b.name, verdict)
            if verdict.passed:
                b.reviewer_passed = True
                if validated:
                    b.validated = True
                    b.accepted = (repair_row, proposal, validation)
            if not verdict.passed:
                reasons.append(verdict.reason)
        if all(b.accepted is not None for b in branches.values()):
            break
        why = "; ".join(dict.fromkeys(r for r in reasons if r)) or (
            "it does not validate: " + (", ".join(validation.summary()["mistakes"]) or
                                        validation.detail or validation.failure or "")
            if not validated else "")
        feedback.append((why, proposal.program))
    for b in branches.values():
        if b.accepted is not None:
            _export(ctx, a, b, names)
        elif b.failure is None:
            b.failure = f"no accepted repair after {tried} round{'s' if tried != 1 else ''}"
    return branches


class _ItemError(Exception):
    """This answer cannot go on (the endpoint failed, the reviewer said nothing usable)."""


def _fail(branches: dict[str, Branch], why: str, ctx: Ctx | None = None,
          answer_id: str | None = None) -> None:
    for b in branches.values():
        if b.failure is None:
            b.failure = why[:300]
    if ctx is not None and answer_id is not None:
        ctx.rows.add("task_failures", [item_failure(ctx.spec.run_id, "clean", answer_id, why)])


def _names(a: Answer) -> dict[str, str]:
    """The program's name of each semantic family (from the captured model's names)."""
    if a.captured is None:
        return {}
    from ortrex.flywheel.align import align
    from ortrex.ir.formats import ModelFileError, loads

    try:
        cap = loads(a.captured.decode("utf-8", "replace"), "mps", "<captured model>")
    except ModelFileError:
        return {}
    sm = a.problem.sm
    return dict(align(sm, sm.ground(), cap).prefix)


async def _served_repair(ctx: Ctx, a: Answer, acts: list[Diagnosis],
                         feedback: list[tuple[str, str | None]]) -> Proposal:
    from ortrex.flywheel.answers import split_reasoning
    from ortrex.served.scoring import extract_program

    assert ctx.repairer is not None
    msgs = repair_messages(a.problem, a.program, acts, feedback)
    comp = await ctx.repairer.complete(msgs, 0)
    if comp.text is None:
        raise _ItemError(f"endpoint: {comp.error}")
    reasoning, _ = split_reasoning(comp.text)
    program = extract_program(comp.text)
    return Proposal("served", program, comp.text, reasoning,
                    "proposed" if program else "no_program",
                    "" if program else "no fenced Python block in the reply")


async def _review(ctx: Ctx, a: Answer, first: Scored, proposal: Proposal,
                  validation: Scored, branch: str) -> ReviewVerdict:
    """The reviewer's verdict in one branch: the verifiers, then the served reviewer."""
    assert proposal.program is not None
    v = verifier_review(a.problem, first, validation)
    details: dict[str, Any] = {"verifiers": {"passed": v.passed, "reason": v.reason,
                                             **v.details}}
    reasoning = None
    if branch == "clean_cot":
        reasoning = _reasoning(a, validation)
        lang = _language(a, reasoning)
        if lang:
            v = ReviewVerdict(False, "; ".join(x for x in (v.reason, f"reasoning: {lang}") if x))
        details["reasoning"] = reasoning
    if ctx.reviewer is None:
        return ReviewVerdict(v.passed, v.reason, details)
    msgs = review_messages(a.problem, a.program, actionable(a.diagnoses), proposal.program,
                           reasoning)
    comp = await ctx.reviewer.complete(msgs, 0)
    if comp.text is None:
        raise _ItemError(f"reviewer endpoint: {comp.error}")
    try:
        ok, reason = parse_verdict(comp.text)
    except ReviewReplyError as exc:
        raise _ItemError(str(exc)) from None
    details["served"] = {"accepted": ok, "reason": reason}
    passed = v.passed and ok
    why = "; ".join(x for x in (v.reason, "" if ok else f"reviewer: {reason}") if x)
    return ReviewVerdict(passed, why, details)


def _reasoning(a: Answer, validation: Scored) -> str:
    from ortrex.render.reasoning import reasoning

    sm = a.problem.sm
    seed = int(content_id("seed", a.id)[-8:], 16)
    cautions = [caution(sm, d) for d in actionable(a.diagnoses)]
    return reasoning(sm, a.problem.account, seed=seed, names=validation.names,
                     cautions=list(dict.fromkeys(cautions)))


def _language(a: Answer, text: str) -> str:
    from ortrex.verifiers.language import check_language

    names = frozenset(e for s in a.problem.sm.sets for e in s.elements)
    rep = check_language(text, names)
    return "" if rep.ok else rep.summary()


def _repair_row(ctx: Ctx, a: Answer, rnd: int, p: Proposal) -> dict[str, Any]:
    return {"id": content_id("repair", a.id, rnd, p.method, p.program), "run_id":
            ctx.spec.run_id, "answer_id": a.id, "round": rnd, "method": p.method,
            "program": p.program, "completion": p.completion, "reasoning": p.reasoning,
            "status": p.status, "detail": p.detail or None, "validated": None,
            "validation": None, "created_at": utcnow()}


def _lineage_repair(ctx: Ctx, a: Answer, repair: dict[str, Any], p: Proposal) -> None:
    now = utcnow()
    edges = []
    for k, d in enumerate(a.diagnoses):
        if d.mistake in ("unknown", "unaligned"):
            continue
        did = content_id("diag", a.id, k, d.mistake, d.family)
        edges.append(edge(did, "diagnosis", repair["id"], "repair", "repaired", p.method,
                          ctx.spec.run_id, now, {"round": repair["round"]}))
    ctx.rows.add("lineage", edges)


def _review_row(ctx: Ctx, a: Answer, repair: dict[str, Any], branch: str,
                v: ReviewVerdict) -> None:
    reviewer = "verifiers" + (f"+{ctx.spec.reviewer or ctx.spec.model}"
                              if ctx.reviewer is not None else "")
    rid = content_id("review", repair["id"], branch, reviewer)
    now = utcnow()
    ctx.rows.add("reviews", [{"id": rid, "run_id": ctx.spec.run_id, "repair_id": repair["id"],
                              "answer_id": a.id, "branch": branch, "reviewer": reviewer,
                              "verdict": "pass" if v.passed else "reject",
                              "reason": v.reason or None,
                              "details": json.dumps(v.details, default=str),
                              "created_at": now}])
    ctx.rows.add("lineage", [edge(repair["id"], "repair", rid, "review", "reviewed", branch,
                                  ctx.spec.run_id, now)])


def _export(ctx: Ctx, a: Answer, b: Branch, names: dict[str, str]) -> None:
    """The branch's SFT example, if it meets the export contract."""
    from ortrex.export.contract import sft_contract
    from ortrex.served.prompts import messages as prompt_messages

    assert b.accepted is not None
    repair, proposal, validation = b.accepted
    p = a.problem
    assert proposal.program is not None
    answer: dict[str, Any] = {"role": "assistant", "content": fenced(proposal.program)}
    if b.name == "clean_cot":  # the reasoning the reviewer saw (deterministic for the answer)
        answer["reasoning_content"] = _reasoning(a, validation)
    msgs = [*prompt_messages(p.item), answer]
    problems = sft_contract(msgs, proposal.program, thinking=b.name == "clean_cot")
    if problems:
        b.failure = "export contract: " + "; ".join(problems)
        return
    text = "\n\n".join((m.get("reasoning_content", "") + "\n\n" if m.get("reasoning_content")
                        else "") + m["content"] for m in msgs[1:])
    doc_id = content_id("doc", p.instance_id, "sft", p.form, text, proposal.program, p.files)
    now = utcnow()
    review_id = content_id("review", repair["id"], b.name, "verifiers" + (
        f"+{ctx.spec.reviewer or ctx.spec.model}" if ctx.reviewer is not None else ""))
    ctx.rows.add("documents", [{
        "id": doc_id, "instance_id": p.instance_id, "semantic_id": p.semantic_id, "kind": "sft",
        "form": p.form, "text": text, "data_files": json.dumps(p.files),
        "program": proposal.program, "renderer": RENDERER,
        "template": f"{b.name}:{proposal.method}", "created_at": now, "run_id": ctx.spec.run_id,
        "statement": p.question, "style": b.name, "solver": "gurobipy",
        "messages": json.dumps(msgs), "status": "accepted", "objective": validation.objective,
        "minhash": None}])
    ctx.rows.add("lineage", [edge(review_id, "review", doc_id, "document", "cleaned", b.name,
                                  ctx.spec.run_id, now)])
    b.exported, b.document_id = True, doc_id
