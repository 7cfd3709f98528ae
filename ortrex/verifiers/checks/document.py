"""Verifying one rendered artefact: static checks, a sandbox run, the captured model's
equivalence with the instance, the statement's fidelity, completeness and language. Runs in
worker processes; ``ortrex.verifiers.checks.registry`` lists which apply to a document."""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import ModelFileError, loads
from ortrex.ir.semantic import SemanticModel
from ortrex.render.program import parse_output
from ortrex.verifiers.equivalence.check import check_equivalence
from ortrex.verifiers.fidelity import check_fidelity
from ortrex.verifiers.language import check_language
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.server import PRELOAD, Job, Sandbox
from ortrex.verifiers.solvers import objectives_agree
from ortrex.verifiers.static import check_program

_SANDBOXES: dict[tuple[str, ...], Sandbox] = {}
MIP_PRINT_GAP = 1e-4  # HiGHS's and Gurobi's default relative MIP gap


def sandbox(preload: tuple[str, ...] = PRELOAD) -> Sandbox:
    """This process's warm fork server for ``preload`` (started on first use, then reused)."""
    sb = _SANDBOXES.get(preload)
    if sb is None or sb.proc.poll() is not None:
        sb = _SANDBOXES[preload] = Sandbox(preload)
    return sb


@dataclass
class Check:
    """One verifier's verdict on a document."""

    verifier: str
    status: str  # pass | fail | skipped
    objective: float | None = None
    runtime_s: float | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        """Passed."""
        return self.status == "pass"


def program_static(code: str, files: dict[str, str], model_name: str = "model",
                   tolerated: frozenset[str] = frozenset()) -> tuple[Check, str]:
    """The static checks of a program: the verdict and the code to run. ``tolerated``
    findings (seed import's) are noted, not failed."""
    t0 = time.perf_counter()
    report = check_program(code, tuple(files), model_name)
    fatal = [f for f in report.findings if f.code not in tolerated]
    noted = [f for f in report.findings if f.code in tolerated]
    details: dict[str, Any] = {"notes": "; ".join(str(f) for f in noted)} if noted else {}
    if fatal:
        details["why"] = "; ".join(str(f) for f in fatal)
    return (Check("static", "fail" if fatal else "pass", runtime_s=time.perf_counter() - t0,
                  details=details), report.code or code)


def verify_run(code: str, files: dict[str, str], instance: CanonicalModel, objective: float,
               limits: Limits | None = None) -> list[Check]:
    """A sandbox run whose optimum must match ``objective`` and whose captured model must be
    structurally equivalent to ``instance`` (the code has passed its static checks)."""
    checks: list[Check] = []
    # The verifier's harness, not the taught code, asks Gurobi for a proven optimum.
    run = sandbox().run(Job(code, {**files, "gurobi.env": "MIPGap 1e-9\n"},
                            limits or Limits()))
    status, value = parse_output(run.stdout)
    # HiGHS stops within its default relative MIP gap (1e-4): a printed MIP optimum may be
    # that far off; the captured model is what is checked exactly.
    gap = MIP_PRINT_GAP if instance.is_mip else 0.0
    ok = run.status == "ok" and status == "optimal" and value is not None and (
        objectives_agree(value, objective) or
        abs(value - objective) <= gap * max(1.0, abs(objective)))
    why = "" if ok else (f"program {run.status}: {run.stderr.strip().splitlines()[-1][:300]}"
                         if run.status != "ok" and run.stderr.strip() else
                         f"program {run.status}; printed {status}"
                         + (f" {value!r}, verified optimum {objective!r}" if value is not None
                            else ""))
    checks.append(Check("sandbox", "pass" if ok else "fail", value, run.seconds,
                        {"run_status": run.status, "isolation": run.isolation,
                         **({"why": why} if why else {})}))
    if run.status != "ok":
        return checks
    t1 = time.perf_counter()
    if run.capture_status != "ok" or run.captured is None:
        checks.append(Check("equivalence", "fail", details={
            "why": f"no trusted model capture ({run.capture_status}): {run.capture_detail}"}))
        return checks
    try:
        captured = loads(run.captured.decode("utf-8", "replace"), "mps", "<captured model>")
        eq = check_equivalence(instance, captured, time_limit=30)
        checks.append(Check("equivalence", "pass" if eq else "fail",
                            runtime_s=time.perf_counter() - t1,
                            details={"verdict": eq.verdict, "why": eq.reason}))
    except ModelFileError as exc:
        checks.append(Check("equivalence", "fail", details={"why": f"captured model: {exc}"}))
    return checks


def verify_statement(sm: SemanticModel, form: str, text: str,
                     files: dict[str, str]) -> Check:
    """Fidelity of one statement."""
    from ortrex.render.situation import column_labels

    t0 = time.perf_counter()
    rep = check_fidelity(sm, form, text, files, column_labels(sm))
    return Check("fidelity", "pass" if rep.ok else "fail", runtime_s=time.perf_counter() - t0,
                 details={"why": rep.summary()} if not rep.ok else {})


def verify_language(sm: SemanticModel, text: str) -> Check:
    """The language gate over a document's prose (its names are not judged as words)."""
    t0 = time.perf_counter()
    names = frozenset(e for s in sm.sets for e in s.elements)
    rep = check_language(text, names)
    return Check("language", "pass" if rep.ok else "fail", runtime_s=time.perf_counter() - t0,
                 details={"why": rep.summary(),
                          "codes": sorted({f.code for f in rep.findings})} if not rep.ok else {})


def verify_completeness(sm: SemanticModel, text: str, layout: str,
                        account: dict[str, str]) -> Check:
    """A situation statement determines its model: every rule, the goal and every whole
    decision told (the account, kept in the details as evidence a re-check reads again), and
    nothing a modeller adds (auxiliaries, big-M, slacks) said. Specification layouts list
    everything by construction."""
    from ortrex.render.account import untold
    from ortrex.verifiers.language import artefacts

    t0 = time.perf_counter()
    if not layout.startswith("situation:"):
        return Check("completeness", "pass", details={"layout": layout})
    # A paraphrase keeps the data (fidelity) but words the rules its own way.
    found = untold(sm, text, account, verbatim=not layout.endswith("+llm"))
    found += [f"says {a!r}, which only a modeller would" for a in artefacts(text)]
    return Check("completeness", "fail" if found else "pass",
                 runtime_s=time.perf_counter() - t0,
                 details={"account": account, "layout": layout,
                          **({"why": "; ".join(found)} if found else {})})


def check_row(subject_id: str, c: Check) -> dict[str, Any]:
    """A ``verifications`` row (without run stamps)."""
    from ortrex.store.ids import verification_id

    return {"id": verification_id(subject_id, c.verifier), "subject_id": subject_id,
            "subject_kind": "document", "verifier": c.verifier, "status": c.status,
            "objective": c.objective, "runtime_s": c.runtime_s,
            "details": json.dumps(c.details, sort_keys=True, default=str)}
