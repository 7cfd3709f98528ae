"""A corpus problem as a served model is asked it, and one answer scored against it.

The prompt is ``ortrex eval``'s contract (``evaluation.prompts``); the answer is scored with
the evaluation's sandboxed scoring (the model the program left is captured and solved again
by ortrex, never what it printed), then held to the corpus's own verifiers: the static contract,
the verified optimum and the structural equivalence of the captured model with the instance.
Whatever is wrong becomes diagnoses (``ortrex.flywheel.diagnose``)."""

from __future__ import annotations

import json
import re
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from ortrex.benchmarks.base import Item
from ortrex.flywheel.diagnose import Diagnosis, ordered, program_diagnoses
from ortrex.flywheel.diff import diagnose_models
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.served.prompts import messages
from ortrex.served.scoring import extract_program, make_job, score_run
from ortrex.store.errors import QueryError
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool

_THINK = re.compile(r"^\s*<think>(.*?)</think>", re.S)
_PRINTED = re.compile(r"^OPTIMAL_OBJECTIVE:\s*\S+", re.M)


@dataclass
class Problem:
    """A verified corpus problem: an accepted SFT example's statement and its instance."""

    document_id: str
    instance_id: str
    semantic_id: str | None
    family: str | None
    form: str | None
    question: str  # the statement as the user turn shows it (DPS data inlined)
    files: dict[str, str]
    objective: float
    semantic: str  # the semantic model's JSON
    model: bytes  # the instance (zlib of the canonical serialisation)
    account: dict[str, str] = field(default_factory=dict)

    @cached_property
    def sm(self) -> SemanticModel:
        """The semantic model (its families name what is wrong)."""
        return SemanticModel.loads(self.semantic)

    @cached_property
    def instance(self) -> CanonicalModel:
        """The verified instance."""
        return CanonicalModel.from_bytes(zlib.decompress(self.model))

    @cached_property
    def item(self) -> Item:
        """The problem as an evaluation item (its prompt, data files and ground truth)."""
        return Item("ortrex-corpus", self.document_id, self.question, "objective",
                    self.objective, dict(self.files))

    def prompt(self) -> list[dict[str, Any]]:
        """The chat messages a served model is asked (``ortrex eval``'s contract)."""
        return messages(self.item)


@dataclass
class Scored:
    """One answer held to the verifiers."""

    outcome: str  # passed | mistaken
    failure: str | None
    detail: str
    program: str | None
    reasoning: str | None
    objective: float | None = None
    equivalence: str | None = None
    equivalence_reason: str | None = None
    diagnoses: list[Diagnosis] = field(default_factory=list)
    captured: bytes | None = None  # MPS of the model the program left
    names: dict[str, str] = field(default_factory=dict)  # semantic family -> program name
    exec_s: float = 0.0

    @property
    def mistake(self) -> str | None:
        """The first diagnosis class (priority order)."""
        return self.diagnoses[0].mistake if self.diagnoses else None

    def summary(self) -> dict[str, Any]:
        """What a repair's validation stores."""
        return {"outcome": self.outcome, "failure": self.failure, "detail": self.detail[:300],
                "objective": self.objective, "equivalence": self.equivalence,
                "mistakes": [d.mistake + (f":{d.family}" if d.family else "")
                             for d in self.diagnoses]}


def split_reasoning(text: str) -> tuple[str | None, str]:
    """(reasoning, the rest) of a completion (``<think>...</think>``, where the client put a
    server's ``reasoning_content``)."""
    m = _THINK.match(text)
    return (m.group(1).strip() or None, text[m.end():]) if m else (None, text)


def score_answer(problem: Problem, text: str, sandboxes: SandboxPool, limits: Limits
                 ) -> Scored:
    """Score and diagnose one completion (runs the program in this thread's warm sandbox).
    Whatever the answer does, it gets a verdict: a scorer that broke on it is the answer's
    ``scoring_error`` (stored like any verdict, so a rerun does not score it again)."""
    try:
        return _score_answer(problem, text, sandboxes, limits)
    except Exception as exc:
        reasoning, _ = split_reasoning(text)
        return Scored("mistaken", "scoring_error", f"{type(exc).__name__}: {exc}"[:300],
                      extract_program(text), reasoning)


def _score_answer(problem: Problem, text: str, sandboxes: SandboxPool, limits: Limits
                  ) -> Scored:
    from ortrex.ir.formats import ModelFileError, loads
    from ortrex.verifiers.equivalence.check import check_equivalence
    from ortrex.verifiers.static import check_program

    reasoning, _ = split_reasoning(text)
    program = extract_program(text)
    if program is None:
        return Scored("mistaken", "no_code", "no fenced Python block in the reply", None,
                      reasoning, diagnoses=program_diagnoses(
                          [], "no_code", "no fenced Python block in the reply", False))
    report = check_program(program, tuple(problem.files))
    findings = [(f.code, f.line, f.message) for f in report.findings]
    if any(c == "syntax" for c, _, _ in findings):
        return Scored("mistaken", "syntax", report.summary(), program, reasoning,
                      diagnoses=ordered(program_diagnoses(findings, None, "", True)))
    r = sandboxes.get().run(make_job(problem.item, program, limits))
    v = score_run(problem.item, program, r)
    printed = bool(_PRINTED.search(r.stdout))
    structural_outcome = v.failure in ("wrong_objective", "infeasible", "no_objective")
    found = program_diagnoses(findings, None if structural_outcome else v.failure, v.detail,
                              printed)
    out = Scored("mistaken", v.failure, v.detail, program, reasoning, v.objective,
                 exec_s=r.seconds)
    if r.captured is not None and r.capture_status == "ok":
        out.captured = r.captured
        try:
            cap = loads(r.captured.decode("utf-8", "replace"), "mps", "<captured model>")
        except ModelFileError as exc:
            found += program_diagnoses([], "bad_capture", str(exc)[:300], printed)
        else:
            eq = check_equivalence(problem.instance, cap, time_limit=30)
            out.equivalence, out.equivalence_reason = eq.verdict, eq.reason[:500]
            if eq.verdict != "equivalent":
                structural, al = diagnose_models(problem.sm, problem.sm.ground(), cap)
                out.names = dict(al.prefix)
                found += structural or [Diagnosis(
                    "unknown", "variable", None, None,
                    f"the equivalence checker says {eq.verdict}: {eq.reason[:300]}")]
            else:
                from ortrex.flywheel.align import align

                out.names = dict(align(problem.sm, problem.sm.ground(), cap).prefix)
    out.diagnoses = ordered(found)
    if v.passed and out.equivalence == "equivalent" and not out.diagnoses:
        out.outcome = "passed"
    return out


def fenced(program: str) -> str:
    """A program as a reply holds it."""
    return f"```python\n{program.rstrip()}\n```"


def problem_rows(store: Any, where: str | None, limit: int | None) -> list[Problem]:
    """The corpus problems a filter selects: one per accepted SFT statement (held-out
    instances and the flywheel's own examples left out), in id order."""
    from ortrex.benchmarks.heldout import RELATION

    sql = f"""
    WITH p AS (
      SELECT d.id AS document_id, d.instance_id, d.semantic_id, i.family, d.form, i.domain,
             i.difficulty_band, i.n_vars, i.n_rows, i.objective, d.style, d.messages,
             d.data_files, s.model AS semantic, i.model
      FROM documents d JOIN instances i ON i.id = d.instance_id
      JOIN semantic_models s ON s.id = d.semantic_id
      WHERE d.kind = 'sft' AND d.status = 'accepted' AND i.objective IS NOT NULL
        AND coalesce(d.renderer, '') NOT LIKE 'ortrex-clean%'
        AND d.instance_id NOT IN (SELECT x.instance_id FROM documents x JOIN lineage l
                                  ON l.parent_id = x.id AND l.relation = '{RELATION}'))
    SELECT * FROM p WHERE ({{where}}) ORDER BY document_id"""
    try:
        rows = store.query(sql.replace("{where}", where or "true")).to_dicts()
    except QueryError as exc:
        if not where:
            raise
        # The columns the filter can name: those of ``p`` (messages and models left out).
        raise QueryError(store.filter_error("--from", where, exc, sql.replace(
            "{where}", "true").replace("SELECT * FROM p", "SELECT * EXCLUDE (messages, "
                                       "data_files, semantic, model) FROM p"))) from None
    out, seen = [], set()
    for r in rows:
        msgs = r["messages"] if isinstance(r["messages"], list) else json.loads(r["messages"])
        question = next(m["content"] for m in msgs if m["role"] == "user")
        key = (r["instance_id"], question)
        if key in seen:
            continue
        seen.add(key)
        files = r["data_files"] if isinstance(r["data_files"], dict) else \
            json.loads(r["data_files"] or "{}")
        semantic = r["semantic"] if isinstance(r["semantic"], str) else json.dumps(r["semantic"])
        out.append(Problem(r["document_id"], r["instance_id"], r["semantic_id"], r["family"],
                           r["form"], question, {k: str(v) for k, v in (files or {}).items()},
                           float(r["objective"]), semantic, bytes(r["model"])))
        if limit and len(out) >= limit:
            break
    _accounts(store, out)
    return out


def _accounts(store: Any, problems: list[Problem]) -> None:
    """Each problem's statement account (kept in its completeness verdict), where it has one."""
    if not problems:
        return
    ids = [p.document_id for p in problems]
    rows = store.query("SELECT subject_id, details FROM verifications WHERE verifier = "
                       "'completeness' AND subject_id IN (SELECT unnest(?))", [ids]).to_dicts()
    by = {}
    for r in rows:
        d = r["details"] if isinstance(r["details"], dict) else json.loads(r["details"] or "{}")
        by[r["subject_id"]] = {str(k): str(v) for k, v in (d.get("account") or {}).items()}
    for p in problems:
        p.account = by.get(p.document_id, {})
