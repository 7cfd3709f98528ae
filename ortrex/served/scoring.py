"""Scoring one completion: extract the program, run it in the sandbox, re-solve the model it
left (or read the LP it wrote), compare, and name the failure.

The objective is never what the program printed or what its process reported: the model it
left behind is captured in the sandbox, read back and solved *here* (``verifiers.resolve``).
A program that leaves no model fails (``no_model``, whatever it printed); a capture that
cannot be read is ``bad_capture``; one the program tampered with or imitated is
``forged_capture``; a model whose optimum is set by a single number (a bound, a one-variable
row, the objective's constant: the answer typed in) is ``trivial_model``, and one whose optimum
rests on a number the problem statement and its data never give is ``ungrounded_model``
(``verifiers.dependence``). A failure of the scorer itself on one answer is that answer's
``scoring_error``, never the end of a run. Other
failure classes: ``no_code``, ``syntax``, ``runtime:<Exception>``, ``gurobi_api``,
``timeout``, ``no_objective``, ``infeasible``, ``wrong_objective``, ``no_lp``,
``not_equivalent``, ``undecided``, plus ``api_error`` (no completion) and ``unscoreable`` (no
usable ground truth).
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field
from typing import Any

from ortrex.benchmarks.base import Item
from ortrex.served.client import Completion
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool
from ortrex.verifiers.sandbox.server import Job, RunResult

_FENCE = re.compile(r"```[ \t]*(python3?|py)?[ \t]*\n(.*?)```", re.S | re.I)
_CONTRACT = re.compile(r"OPTIMAL_OBJECTIVE:\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?|nan|"
                       r"inf|-inf)", re.I)
_EXC = re.compile(r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning)|GurobiError)"
                  r"\b:?\s?(.*)$")


def _default(a: float, b: float) -> bool:
    return abs(a - b) <= max(1e-6 * abs(b), 1e-6)


def _abs(a: float, b: float) -> bool:
    return abs(a - b) <= 1e-6


def _round5(a: float, b: float) -> bool:
    ra, rb = round(a), round(b)
    return ra == rb or abs(ra - rb) <= 0.05 * abs(rb)


def _sirl(a: float, b: float) -> bool:
    return abs(a - b) / (abs(b) + 1) < 1e-6


# The declared rule first; the others are reported beside it, as other papers score.
RULES = {
    "default": ("|a - b| <= max(1e-6 |b|, 1e-6)", _default),
    "abs_1e-6": ("|a - b| <= 1e-6 (T-Rex)", _abs),
    "round_5pct": ("both rounded to integers, 5% relative (ORLM, OptMATH)", _round5),
    "sirl": ("|a - b| / (|b| + 1) < 1e-6 (SIRL)", _sirl),
}


@dataclass
class Verdict:
    """The outcome of one completion."""

    passed: bool
    failure: str | None = None  # the failure class (None when passed)
    detail: str = ""
    objective: float | None = None
    objective_source: str | None = None  # resolved:<solver>: the parent's own solve
    equivalence: str | None = None  # ORGEval: equivalent | not_equivalent | undecided
    rules: dict[str, bool] = field(default_factory=dict)  # every tolerance rule's outcome
    exec_s: float = 0.0
    program: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly."""
        return asdict(self)


def extract_program(completion: str) -> str | None:
    """The last fenced Python block after any reasoning (an untagged block that looks like
    Python when no tagged one exists)."""
    text = completion.rsplit("</think>", 1)[-1]
    blocks = _FENCE.findall(text)
    if not blocks:
        return None
    tagged = [b for tag, b in blocks if tag]
    if tagged:
        return tagged[-1].strip("\n") + "\n"
    code = [b for _, b in blocks if re.search(r"^\s*(import|from)\s", b, re.M)]
    return code[-1].strip("\n") + "\n" if code else None


def classify_error(stderr: str) -> tuple[str, str]:
    """(failure class, the exception line) of a program that raised."""
    lines = [ln for ln in stderr.strip().splitlines() if ln.strip()]
    for ln in reversed(lines):
        m = _EXC.match(ln.strip())
        if m:
            name = m.group(1).rsplit(".", 1)[-1]
            if name == "GurobiError" or "gurobipy" in ln or "GRB" in m.group(2):
                return "gurobi_api", ln.strip()[:300]
            return f"runtime:{name}", ln.strip()[:300]
    return "runtime:unknown", (lines[-1].strip()[:300] if lines else "no output")


def _compare(v: Verdict, answer: float, rule: str) -> Verdict:
    assert v.objective is not None
    v.rules = {name: bool(fn(v.objective, answer)) for name, (_, fn) in RULES.items()}
    v.passed = v.rules[rule]
    if not v.passed:
        v.failure, v.detail = "wrong_objective", f"objective {v.objective!r}, expected {answer!r}"
    return v


def _objective(r: RunResult, v: Verdict, item: Item) -> Verdict:
    """The parent's optimum of the model the program left (see the module docstring)."""
    from ortrex.verifiers.grounding import Grounds
    from ortrex.verifiers.resolve import CaptureError, resolve_capture

    if r.capture_status != "ok" or r.captured is None:
        v.failure = "forged_capture" if r.capture_status == "forged" else "no_model"
        printed = _CONTRACT.findall(r.stdout)
        v.detail = (r.capture_detail or "no model was captured") + (
            f" (it printed OPTIMAL_OBJECTIVE: {printed[-1]}, which is not a score)"
            if printed else "")
        return v
    try:
        res = resolve_capture(r.captured, grounds=Grounds.of(item.question, item.files))
    except CaptureError as exc:
        v.failure, v.detail = "bad_capture", str(exc)[:300]
        return v
    if res.status == "optimal" and res.objective is not None:
        if res.trivial:  # an optimum no data decides is no answer
            v.failure, v.detail = "trivial_model", res.trivial[:300]
            return v
        if res.ungrounded:  # nor one resting on a number the problem never gives
            v.failure, v.detail = "ungrounded_model", res.ungrounded[:300]
            return v
        v.objective, v.objective_source = res.objective, f"resolved:{res.solver}"
        return v
    if res.status in ("infeasible", "unbounded", "infeasible_or_unbounded"):
        v.failure, v.detail = "infeasible", f"the model is {res.status}"
    elif res.status == "time_limit":
        v.failure, v.detail = "timeout", "the model was not solved within the parent's time limit"
    else:
        v.failure, v.detail = "no_objective", f"the parent's solve ended {res.status}"
    return v


def make_job(item: Item, program: str, limits: Limits) -> Job:
    """The sandbox job of a program for an item (its data files; ``model.lp`` collected for
    ORGEval)."""
    return Job(program, dict(item.files), limits, capture=item.kind == "objective",
               collect=("model.lp",) if item.kind == "lp" else ())


def score_run(item: Item, program: str, r: RunResult, rule: str = "default",
              equivalence_timeout: float = 10.0) -> Verdict:
    """The verdict of a program's sandbox run."""
    v = Verdict(False, program=program, exec_s=r.seconds)
    if r.status in ("timeout", "cpu_limit"):
        v.failure, v.detail = "timeout", f"{r.status} after {r.seconds:.1f} s"
    elif r.status == "error":
        v.failure, v.detail = classify_error(r.stderr)
    elif r.status != "ok":  # memory_limit, output_limit, killed
        v.failure, v.detail = f"runtime:{r.status}", r.stderr.strip()[-300:]
    if v.failure is not None:
        return v
    if item.kind == "lp":
        return _score_lp(item, r, v, equivalence_timeout)
    v = _objective(r, v, item)
    if v.failure is not None or item.answer is None:
        return v
    return _compare(v, item.answer, rule)


def _score_lp(item: Item, r: RunResult, v: Verdict, timeout: float) -> Verdict:
    from ortrex.ir.formats import loads
    from ortrex.verifiers.equivalence.check import check_equivalence

    lp = r.files.get("model.lp")
    if not lp:
        v.failure, v.detail = "no_lp", "the program wrote no model.lp"
        return v
    try:
        written = loads(lp.decode("utf-8", "replace"), "lp", "model.lp")
    except Exception as exc:
        v.failure, v.detail = "no_lp", f"model.lp unreadable: {exc}"[:300]
        return v
    assert item.reference_lp is not None
    res = check_equivalence(written, item.reference_lp, time_limit=timeout)
    v.equivalence = res.verdict
    v.passed = res.verdict == "equivalent"
    if not v.passed:
        v.failure, v.detail = res.verdict, res.reason[:300]
    return v


def syntax_error(program: str) -> str | None:
    """The syntax error of a program, or None."""
    try:
        compile(program, "main.py", "exec")
    except SyntaxError as exc:
        return f"line {exc.lineno}: {exc.msg}"
    except ValueError as exc:  # null bytes
        return str(exc)
    return None


_PROCESS_SANDBOXES: SandboxPool | None = None


def score_task(task: tuple[Item, Completion, Limits, str]) -> tuple[Verdict, float]:
    """One completion scored in a job executor's worker (its own warm sandbox), and the
    seconds it took: the evaluation's scoring on local processes or Ray."""
    global _PROCESS_SANDBOXES
    if _PROCESS_SANDBOXES is None:
        _PROCESS_SANDBOXES = SandboxPool()
    item, comp, limits, rule = task
    t0 = time.perf_counter()
    v = score_completion(item, comp, _PROCESS_SANDBOXES, limits, rule)
    return v, time.perf_counter() - t0


def score_completion(item: Item, comp: Completion, sandboxes: SandboxPool, limits: Limits,
                     rule: str) -> Verdict:
    """The verdict of one completion (extraction, syntax, sandbox run, comparison)."""
    if comp.text is None:
        return Verdict(False, "api_error", comp.error or "no completion")
    program = extract_program(comp.text)
    if program is None:
        return Verdict(False, "no_code", "no fenced Python block in the completion")
    err = syntax_error(program)
    if err:
        return Verdict(False, "syntax", err, program=program)
    try:
        r = sandboxes.get().run(make_job(item, program, limits))
        v = score_run(item, program, r, rule)
    except Exception as exc:  # one answer's failure is its verdict, never the run's end
        return Verdict(False, "scoring_error", f"{type(exc).__name__}: {exc}"[:300],
                       program=program)
    if item.unscoreable and v.passed:
        v.passed, v.failure, v.detail = False, "unscoreable", item.unscoreable
    return v
