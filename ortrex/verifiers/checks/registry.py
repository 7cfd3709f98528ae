"""The one list of document checks, shared by rendering, ``verify documents`` and seed import.

Each check says what it needs (a semantic model, an instance, a stored account) and how far
its verdict reaches (one per statement, per program or per document, so rendering computes a
statement's fidelity once for all its documents); a job runs every check that applies to what
it has. A new check is one entry here: no job can forget it, and a re-check can never accept
what rendering rejected with a check the re-check does not know.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.checks.document import (
    Check,
    program_static,
    verify_completeness,
    verify_language,
    verify_run,
    verify_statement,
)


@dataclass
class DocContext:
    """What a job knows about one document (``None``: it does not know it)."""

    text: str  # the whole document, as a reader sees it
    statement: str
    files: dict[str, str]
    form: str | None = None
    program: str | None = None
    solver: str = "gurobipy"
    sm: SemanticModel | None = None  # generated documents have one; seeds do not
    instance: CanonicalModel | None = None  # the verified instance the program must build
    objective: float | None = None
    layout: str | None = None  # None: no account known (an old store)
    account: dict[str, str] = field(default_factory=dict)
    tolerated: frozenset[str] = frozenset()  # static findings this job only notes (seeds)

    def scope_key(self, scope: str) -> Hashable:
        """What makes two documents share a verdict of ``scope``."""
        if scope == "statement":
            return (self.form, self.statement)
        if scope == "program":
            return (self.form, self.solver, self.program)
        return (self.form, self.text, self.solver, self.program)


@dataclass(frozen=True)
class DocCheck:
    """A check: its name, the scope of its verdict, when it applies, and the run."""

    name: str
    scope: str  # statement | program | document
    applies: Callable[[DocContext], bool]
    run: Callable[[DocContext, dict[str, Any]], list[Check]]


def _static(c: DocContext, state: dict[str, Any]) -> list[Check]:
    check, code = program_static(c.program or "", c.files,
                                 "model" if c.solver == "gurobipy" else "h", c.tolerated)
    state["code"] = code if check.ok else None
    return [check]


def _run(c: DocContext, state: dict[str, Any]) -> list[Check]:
    code = state.get("code")
    if code is None:  # the static check failed: the program is not run
        return []
    assert c.instance is not None and c.objective is not None
    return verify_run(code, c.files, c.instance, c.objective)


DOCUMENT_CHECKS: tuple[DocCheck, ...] = (
    DocCheck("fidelity", "statement", lambda c: c.sm is not None and c.form is not None,
             lambda c, _: [verify_statement(c.sm, c.form, c.statement, c.files)]),  # type: ignore[arg-type]
    DocCheck("completeness", "statement", lambda c: c.sm is not None and c.layout is not None,
             lambda c, _: [verify_completeness(c.sm, c.statement, c.layout or "",  # type: ignore[arg-type]
                                               c.account)]),
    DocCheck("language", "document", lambda c: c.sm is not None,
             lambda c, _: [verify_language(c.sm, c.text)]),  # type: ignore[arg-type]
    DocCheck("static", "program", lambda c: c.program is not None, _static),
    # The sandbox run, the printed optimum and the captured model's equivalence with the
    # instance (a seed has no instance yet: its capture is what becomes the instance).
    DocCheck("run", "program",
             lambda c: c.program is not None and c.instance is not None and
             c.objective is not None, _run),
)


def run_checks(ctx: DocContext, cache: dict[Hashable, tuple[list[Check], dict[str, Any]]]
               | None = None) -> list[Check]:
    """Every check that applies to ``ctx``, in list order; ``cache`` shares verdicts between
    documents of one statement or one program (a rendering task's documents)."""
    cache = {} if cache is None else cache
    out: list[Check] = []
    state: dict[str, Any] = {}
    for chk in DOCUMENT_CHECKS:
        if not chk.applies(ctx):
            continue
        key = (chk.name, ctx.scope_key(chk.scope))
        if key not in cache:
            got = chk.run(ctx, state)
            cache[key] = (got, dict(state))
        got, saved = cache[key]
        state.update(saved)
        out.extend(got)
    return out


__all__ = ["DOCUMENT_CHECKS", "DocCheck", "DocContext", "run_checks"]
