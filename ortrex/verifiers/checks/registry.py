"""The one list of document checks, shared by rendering, ``verify documents`` and seed import.

``CHECKS`` holds two kinds of entry. A ``DocCheck`` runs in the workers on one document: it says
what it needs (a semantic model, an instance, a stored account) and how far its verdict reaches
(one per statement, per program or per document, so rendering computes a statement's fidelity
once for all its documents); a job runs every one that applies to what it has. A
``CorpusCheck`` (near-duplicate, decontamination: ``corpus.py``) needs the whole corpus and runs
in the job's single writer. An entry that cannot apply to one of the three jobs says so, and
why, in ``not_in``. A new check is one entry appended here (a plugin module named by
``$ORTREX_PLUGINS`` or the ``ortrex.plugins`` entry points may append it): no job can forget
it, and a re-check can never accept what rendering rejected with a check the re-check does not
know.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from dataclasses import dataclass, field
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.plugins import load_plugins
from ortrex.verifiers.checks.claims import verify_claims
from ortrex.verifiers.checks.corpus_checks import CORPUS_CHECKS, CorpusCheck
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


# The three jobs that verify documents, by the command names of their runs.
JOBS = ("render", "verify documents", "import-seeds")


@dataclass(frozen=True)
class DocCheck:
    """A per-document check: its name, the scope of its verdict, when it applies, the run, the
    verifier names of its rows (default: its name) and the jobs it never applies in (job ->
    why)."""

    name: str
    scope: str  # statement | program | document
    applies: Callable[[DocContext], bool]
    run: Callable[[DocContext, dict[str, Any]], list[Check]]
    produces: tuple[str, ...] = ()
    not_in: dict[str, str] = field(default_factory=dict)

    @property
    def verifiers(self) -> tuple[str, ...]:
        """The verifier names of its verdict rows."""
        return self.produces or (self.name,)


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


NO_SEMANTICS = "a seed has no semantic model: nothing says what its statement must mean"

CHECKS: list[DocCheck | CorpusCheck] = [
    DocCheck("fidelity", "statement", lambda c: c.sm is not None and c.form is not None,
             lambda c, _: [verify_statement(c.sm, c.form, c.statement, c.files)],  # type: ignore[arg-type]
             not_in={"import-seeds": NO_SEMANTICS}),
    DocCheck("completeness", "statement", lambda c: c.sm is not None and c.layout is not None,
             lambda c, _: [verify_completeness(c.sm, c.statement, c.layout or "",  # type: ignore[arg-type]
                                               c.account)],
             not_in={"import-seeds": NO_SEMANTICS}),
    DocCheck("language", "document", lambda c: c.sm is not None,
             lambda c, _: [verify_language(c.sm, c.text)],  # type: ignore[arg-type]
             not_in={"import-seeds": NO_SEMANTICS}),
    # Every claim of the modelling reasoning, re-derived from the model (reasoning_claim).
    DocCheck("reasoning_claim", "document", lambda c: c.sm is not None,
             lambda c, _: [verify_claims(c.sm, c.instance, c.text, c.statement)],  # type: ignore[arg-type]
             not_in={"import-seeds": NO_SEMANTICS}),
    DocCheck("static", "program", lambda c: c.program is not None, _static),
    # The sandbox run, the printed optimum and the captured model's equivalence with the
    # instance (a seed has no instance yet: its capture is what becomes the instance).
    DocCheck("run", "program",
             lambda c: c.program is not None and c.instance is not None and
             c.objective is not None, _run, produces=("sandbox", "equivalence"),
             not_in={"import-seeds": "seed import runs the program itself and captures every "
                                     "model it solves: there is no instance before the run, "
                                     "the capture becomes it"}),
    *CORPUS_CHECKS,
]


def checks() -> list[DocCheck | CorpusCheck]:
    """The check list, plugins' entries included (loaded on first use, also in workers)."""
    load_plugins()
    return CHECKS


def document_checks() -> list[DocCheck]:
    """The per-document entries (run in the workers)."""
    return [c for c in checks() if isinstance(c, DocCheck)]


def corpus_checks() -> list[CorpusCheck]:
    """The corpus-level entries (run in a job's writer)."""
    return [c for c in checks() if isinstance(c, CorpusCheck)]


def run_checks(ctx: DocContext, cache: dict[Hashable, tuple[list[Check], dict[str, Any]]]
               | None = None) -> list[Check]:
    """Every check that applies to ``ctx``, in list order; ``cache`` shares verdicts between
    documents of one statement or one program (a rendering task's documents)."""
    cache = {} if cache is None else cache
    out: list[Check] = []
    state: dict[str, Any] = {}
    for chk in document_checks():
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


__all__ = ["CHECKS", "JOBS", "CorpusCheck", "DocCheck", "DocContext", "checks", "corpus_checks",
           "document_checks", "run_checks"]
