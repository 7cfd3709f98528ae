"""The reviewer: an independent judgement that a repair is justified.

Two parts, both must pass:

* **the verifiers**: the repaired program's model is diffed against the verified instance like
  the first answer's was; every (mistake, family) it has that the first answer did not is a
  change the diagnosis did not ask for. Named reasons: a continuous family made integer or binary
  (``makes x integer without cause``), a constraint family (or part of its rows) the first answer
  had and the repair dropped (``deletes balance``), any other new difference (``changes bounds
  of s, which the diagnosis did not name``). A repair that reads files, imports or writes what
  the first answer did not is refused the same way.
* **the served reviewer** (when an endpoint is given): a second call with the reviewer prompt
  (the diagnosis, both programs, and in the Clean-CoT branch the reasoning); its reply must hold
  a JSON verdict ``{"verdict": "accept" | "reject", "reason": ...}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from ortrex.flywheel.answers import Problem, Scored, fenced, split_reasoning
from ortrex.flywheel.diagnose import Diagnosis
from ortrex.flywheel.repair import diagnosis_text
from ortrex.served.prompts import SYSTEM

REVIEW = """Review a repair. Judge whether every change from the first answer to the repaired \
one is justified by the diagnosis or by the problem statement. Reject a repair that makes a \
continuous quantity integer without cause, deletes a needed constraint, or changes what the \
diagnosis does not name{cot}.
Reply with one JSON object: {{"verdict": "accept" or "reject", "reason": "<one sentence>"}}.

Diagnosis:
{diagnosis}

First answer:
{first}

Repaired answer:
{repaired}
{reasoning}
Problem:
{question}
"""


class ReviewReplyError(ValueError):
    """The served reviewer's reply holds no verdict."""


@dataclass
class ReviewVerdict:
    """A review: pass or reject, the reason, and what each part said."""

    passed: bool
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)


_DOMAINS = {"C": "continuous", "I": "integer", "B": "binary"}


def verifier_review(problem: Problem, first: Scored, repaired: Scored) -> ReviewVerdict:
    """The verifiers' half: no difference from the verified model that the first answer did
    not have (the repair changes only what the diagnosis named)."""
    before = {d.key for d in first.diagnoses}
    reasons = []
    for d in repaired.diagnoses:
        if d.key in before or d.mistake in ("unknown",):
            continue
        reasons.append(_why(problem, d))
    if not reasons and repaired.captured is None and first.captured is not None:
        reasons.append("the repaired program leaves no model"
                       + (f" ({repaired.detail[:120]})" if repaired.detail else ""))
    return ReviewVerdict(not reasons, "; ".join(reasons),
                   {"new": [d.to_dict() for d in repaired.diagnoses if d.key not in before]})


def _why(problem: Problem, d: Diagnosis) -> str:
    sm = problem.sm
    fam = d.family
    if d.mistake == "domain" and fam in sm.var_map:
        v = sm.var_map[fam]
        got = " or ".join(_DOMAINS.get(g, g) for g in d.details.get("got", []))
        if v.vtype == "C":
            return (f"makes {fam} ({v.role or 'a quantity'}: {v.description}) {got} without "
                    "cause: the statement leaves it continuous")
        return f"changes the domain of {fam} to {got}, which the diagnosis did not name"
    if d.mistake in ("missing_constraint", "index_range") and d.kind == "constraint" and fam:
        c = next((c for c in sm.constraints if c.name == fam), None)
        role = f" ({c.role}: {c.meaning.rstrip('.')})" if c is not None and c.role else ""
        part = "" if d.mistake == "missing_constraint" else " some rows of"
        return f"deletes{part} {fam}{role}, a rule the first answer had"
    if d.mistake == "unsafe_data_access":
        return f"adds unsafe access: {d.evidence}"
    what = d.mistake.replace("_", " ")
    return f"changes the {what} of {fam or 'the model'}, which the diagnosis did not name"


def review_messages(problem: Problem, first_program: str | None, diagnoses: list[Diagnosis],
                    repaired_program: str, reasoning: str | None) -> list[dict[str, Any]]:
    """The chat messages asking the served reviewer for a verdict (``reasoning``: the
    Clean-CoT branch's thinking, judged too)."""
    user = REVIEW.format(
        cot=", or whose reasoning is not tied to the problem's data" if reasoning else "",
        diagnosis=diagnosis_text(diagnoses),
        first=fenced(first_program) if first_program else "(no program)",
        repaired=fenced(repaired_program),
        reasoning=f"\nReasoning of the repaired answer:\n{reasoning}\n" if reasoning else "",
        question=problem.question.strip())
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


_JSON = re.compile(r"\{[^{}]*\}", re.S)


def parse_verdict(text: str) -> tuple[bool, str]:
    """(accepted, reason) from a reviewer's reply: its last JSON object with a ``verdict`` of
    accept or reject; ``ReviewReplyError`` when there is none."""
    _, rest = split_reasoning(text)
    for blob in reversed(_JSON.findall(rest)):
        try:
            got = json.loads(blob)
        except ValueError:
            continue
        verdict = str(got.get("verdict", "")).strip().lower() if isinstance(got, dict) else ""
        if verdict in ("accept", "reject"):
            return verdict == "accept", str(got.get("reason", "")).strip()[:500]
    raise ReviewReplyError(f"the reviewer's reply holds no verdict: {rest.strip()[:120]!r}")
