"""The render job: accepted instances -> statements, programs and documents, each verified.

For every accepted instance with a semantic model, and every requested form, a worker renders
the statement (layout and wording drawn from a per-instance seed), checks its fidelity, writes
the programs (gurobipy for every document; highspy for some CPT layouts), checks and runs each
once in the warm sandbox, and builds the CPT document and the SFT example. The single writer
runs the check list's corpus-level entries (near-duplicate, decontamination) and commits
documents, verifications and lineage in batches. A document is accepted only if every check
passes; every rejection is stored with its reason. Resumable: instances already done by the
run are skipped.
"""

from __future__ import annotations

import json
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from ortrex import __version__
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.jobs import (
    IGNORE,
    REPLACE,
    BatchWriter,
    DriveStats,
    Executor,
    JobError,
    TaskFailure,
)
from ortrex.jobs import run_job as run_batch
from ortrex.render.documents import (
    CPT_LAYOUTS,
    KINDS,
    STYLES,
    Rendered,
    cpt_document,
    own_names,
    sft_example,
    solution_from,
)
from ortrex.render.program import Program, gurobipy_program, highspy_program
from ortrex.render.program_labels import labels_program, labels_style_fits
from ortrex.render.program_matrix import matrix_program, matrix_style_fits
from ortrex.render.statement import FORMS, render_statement
from ortrex.store.db import Store, utcnow
from ortrex.store.ids import content_id
from ortrex.store.records import (
    failed_reason,
    failure_row,
    finish_run,
    lineage_row,
    run_task_row,
    start_run,
    unpack_solution,
)
from ortrex.verifiers.checks.corpus_checks import CorpusContext, CorpusDoc
from ortrex.verifiers.checks.corpus_checks import build_decontaminator as corpus_decontaminator
from ortrex.verifiers.checks.document import Check, check_row, verify_statement
from ortrex.verifiers.checks.registry import DocContext, corpus_checks, run_checks
from ortrex.verifiers.dedup import Decontaminator, signature, statement_text

RENDERER = f"ortrex-render/{__version__}"



@dataclass(frozen=True)
class RenderSpec:
    """What to render: forms, kinds, the seed of every wording choice, dedup thresholds."""

    forms: tuple[str, ...] = FORMS
    kinds: tuple[str, ...] = KINDS
    seed: int = 0
    near_duplicate: float = 0.85
    contamination: float = 0.5
    llm_base_url: str | None = None  # an OpenAI-compatible endpoint rewrites statements
    llm_model: str | None = None
    llm_cache: str | None = None

    def __post_init__(self) -> None:
        if (self.llm_base_url is None) != (self.llm_model is None):
            raise JobError("give both --llm-base-url and --llm-model, or neither")
        for f in self.forms:
            if f not in FORMS:
                raise JobError(f"unknown form {f!r}; expected some of {', '.join(FORMS)}")
        for k in self.kinds:
            if k not in KINDS:
                raise JobError(f"unknown kind {k!r}; expected some of {', '.join(KINDS)}")
        if not self.forms or not self.kinds:
            raise JobError("give at least one form and one kind")
        for name, v in (("near-duplicate", self.near_duplicate),
                        ("contamination", self.contamination)):
            if not 0 < v <= 1:
                raise JobError(f"{name} threshold must be in (0, 1], got {v}")

    @staticmethod
    def parse(text: str, allowed: tuple[str, ...], what: str) -> tuple[str, ...]:
        """A comma-separated list, case-insensitive."""
        items = [t.strip() for t in text.split(",") if t.strip()]
        table = {a.lower(): a for a in allowed}
        bad = [t for t in items if t.lower() not in table]
        if bad:
            raise JobError(f"unknown {what} {bad[0]!r}; expected some of {', '.join(allowed)}")
        return tuple(dict.fromkeys(table[t.lower()] for t in items))

    @property
    def run_id(self) -> str:
        """Content-derived: the same spec is the same run (and resumes)."""
        return content_id("run", "render", asdict(self))


@dataclass
class RenderTask:
    """One instance and what the worker needs to render and verify it."""

    k: int
    instance_id: str
    family: str | None
    semantic: str
    model: bytes
    objective: float
    solution: bytes | None
    spec: RenderSpec
    semantic_id: str | None = None


@dataclass
class DocRecord:
    """A rendered and worker-verified document."""

    instance_id: str
    doc: Rendered
    statement: str
    files: dict[str, str]
    checks: list[Check]
    signature: bytes
    objective: float

    @property
    def id(self) -> str:
        """Content-derived id."""
        return content_id("doc", self.instance_id, self.doc.kind, self.doc.form, self.doc.text,
                          self.doc.program, self.files)


_PARAPHRASER: Any = None


def _paraphraser(spec: RenderSpec) -> Any:
    """This process's LLM client (one per worker, created on first use)."""
    global _PARAPHRASER
    if _PARAPHRASER is None or _PARAPHRASER.cfg.base_url != spec.llm_base_url:
        from pathlib import Path

        from ortrex.render.llm import LLMConfig, Paraphraser

        _PARAPHRASER = Paraphraser(LLMConfig(
            spec.llm_base_url or "", spec.llm_model or "",
            cache_dir=Path(spec.llm_cache) if spec.llm_cache else None))
    return _PARAPHRASER


def _paraphrase(task: RenderTask, sm: SemanticModel, st: Any, out: list[DocRecord]
                ) -> tuple[Any, Check | None]:
    """The statement rewritten by the LLM if it passes fidelity; a failed rewrite is kept as a
    rejected ``paraphrase`` record and the template statement is used instead."""
    from dataclasses import replace

    from ortrex.render.llm import LLMError

    try:
        text = _paraphraser(task.spec).paraphrase(st.text)
    except LLMError as exc:
        return st, Check("llm", "fail", details={"why": str(exc)})
    check = verify_statement(sm, st.form, text, st.files)
    if check.ok:
        return replace(st, text=text, layout=f"{st.layout}+llm"), None
    doc = Rendered("paraphrase", st.form, f"{st.layout}+llm", text, None, "", "none")
    sig = signature(statement_text(text, st.files)).astype("<u8").tobytes()
    out.append(DocRecord(task.instance_id, doc, text, st.files, [check], sig, task.objective))
    return st, None


# Shares of the gurobipy styles among the models each style can write.
STYLE_SHARES = {"matrix": 0.3, "labels": 0.4}


def gurobipy_style(sm: SemanticModel, rng: np.random.Generator) -> Callable[..., Program]:
    """The program style of one document: matrix form (numpy data, addMVar) or name-keyed
    (addVars, x.sum, quicksum over names) where they fit, index loops otherwise."""
    r = rng.random()
    if r < STYLE_SHARES["matrix"] and matrix_style_fits(sm):
        return matrix_program
    if r < STYLE_SHARES["matrix"] + STYLE_SHARES["labels"] and labels_style_fits(sm):
        return labels_program
    return gurobipy_program


def _seed(task: RenderTask, form: str) -> int:
    # From the semantic model, not the instance row: the same model renders the same way.
    return int(content_id("seed", task.semantic, form, task.spec.seed)[-8:], 16)


def render_task(task: RenderTask) -> list[DocRecord]:
    """Render and verify every document of one instance (worker side)."""
    sm = SemanticModel.loads(task.semantic)
    instance = CanonicalModel.from_bytes(zlib.decompress(task.model))
    # The decisions under this telling's own names (a re-told child shares the instance).
    sol = solution_from(own_names(sm, instance), unpack_solution(task.solution), task.objective)
    out: list[DocRecord] = []
    cache: dict[Any, Any] = {}  # verdicts shared by a statement's or a program's documents
    for form in task.spec.forms:
        seed = _seed(task, form)
        rng = np.random.default_rng(seed)
        st = render_statement(sm, form, seed=seed)
        if task.spec.llm_base_url:
            st, _ = _paraphrase(task, sm, st, out)
        mode = "json" if form == "DPS" else "literal"
        programs = {"gurobipy": gurobipy_style(sm, rng)(sm, mode).code}
        cpt_layout = CPT_LAYOUTS[int(rng.integers(len(CPT_LAYOUTS)))]
        # HiGHS solves no quadratic rows and no MIQP: those are taught with gurobipy only.
        quadratic_objective = any(len(m.vars) == 2 for m in _monomials(sm.objective.expr))
        use_highs = "cpt" in task.spec.kinds and cpt_layout == "worked_example" and \
            not any(len(m.vars) == 2 for c in sm.constraints for m in _monomials(c.lhs)) and \
            not (quadratic_objective and any(v.vtype != "C" for v in sm.variables))
        if use_highs:
            programs["highspy"] = highspy_program(sm, mode).code
        docs: list[Rendered] = []
        if "cpt" in task.spec.kinds:
            solver = "highspy" if use_highs else "gurobipy"
            docs.append(cpt_document(sm, st, programs[solver], solver, cpt_layout, sol))
        if "sft" in task.spec.kinds:
            style = STYLES[int(rng.integers(len(STYLES)))]
            docs.append(sft_example(sm, st, programs["gurobipy"], "gurobipy", style, sol))
        sig = signature(statement_text(st.text, st.files)).astype("<u8").tobytes()
        for d in docs:
            checks = run_checks(DocContext(
                d.text, st.text, st.files, form, programs[d.solver], d.solver, sm, instance,
                task.objective, st.layout, st.account), cache)
            out.append(DocRecord(task.instance_id, d, st.text, st.files, checks, sig,
                                 task.objective))
    return out


def _monomials(e: Any) -> list[Any]:
    from ortrex.ir.expr import expand

    return expand(e)


# ---------------------------------------------------------------- writer
@dataclass
class RenderReport:
    """Counts of a render job."""

    run_id: str
    instances: int = 0
    documents: int = 0
    accepted: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    failed: int = 0  # instances whose task failed on every attempt
    by_form: Counter[str] = field(default_factory=Counter)
    by_kind: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    sandbox_seconds: list[float] = field(default_factory=list)
    resumed_from: int = 0
    decontamination: str = "on"


RENDER_TABLES = {"documents": REPLACE, "verifications": REPLACE, "lineage": IGNORE,
                 "run_tasks": IGNORE, "task_failures": REPLACE}


class RenderWriter(BatchWriter):
    """The render job's writer: the corpus-level checks of the check list (near-duplicate,
    decontamination), in task order, then batched, transactional inserts."""

    def __init__(self, store: Store, spec: RenderSpec, decontaminator: Decontaminator | None,
                 report: RenderReport, batch: int = 128, max_delay: float = 2.0) -> None:
        # A batch waits at most ``max_delay`` seconds, so a reader watching the store sees
        # the corpus grow while the job runs.
        super().__init__(store, RENDER_TABLES, batch, max_delay)
        self.spec, self.report = spec, report
        ctx = CorpusContext(store, spec.near_duplicate, decontaminator)
        self.judges = [c.start(ctx) for c in corpus_checks()]

    def add(self, task: RenderTask, records: list[DocRecord]) -> None:
        """Judge and buffer one instance's documents."""
        report = self.report
        now = utcnow()
        stamp = {"created_at": now, "run_id": self.spec.run_id}
        accepted = 0
        for r in records:
            did = r.id
            doc = CorpusDoc(did, r.instance_id, np.frombuffer(r.signature, dtype="<u8"))
            checks = list(r.checks)
            reason = detail = None
            for c in checks:
                if not c.ok:
                    reason, detail = c.verifier, c.details.get("why", c.status)
                    break
            corpus = [j.judge(doc) for j in self.judges]
            checks += corpus
            if reason is None:
                for c in corpus:
                    if c.status == "fail":
                        reason, detail = c.verifier, c.details.get("why")
                        break
            status = "accepted" if reason is None else "rejected"
            if status == "accepted":
                for j in self.judges:
                    j.admit(doc)
                accepted += 1
            d = r.doc
            self.put("documents", [{
                "id": did, "instance_id": r.instance_id, "semantic_id": task.semantic_id,
                "kind": d.kind,
                "form": d.form, "text": d.text, "data_files": json.dumps(r.files) if r.files
                else None, "program": d.program, "renderer": RENDERER, "template": d.template,
                "statement": r.statement, "style": d.style, "solver": d.solver,
                "messages": json.dumps(d.messages) if d.messages is not None else None,
                "status": status, "reject_reason": reason, "reject_detail": detail,
                "objective": r.objective, "minhash": r.signature, **stamp}])
            self.put("verifications", ({**check_row(did, c), **stamp} for c in checks))
            self.put("lineage", [lineage_row(
                r.instance_id, "instance", did, "document", "rendered",
                operator=f"{d.kind}:{d.form}:{d.template}",
                params=json.dumps({"seed": self.spec.seed, "style": d.style,
                                   "solver": d.solver}), created_at=now,
                run_id=self.spec.run_id)])
            report.documents += 1
            report.by_form[d.form] += 1
            report.by_kind[d.kind] += 1
            if status == "accepted":
                report.accepted += 1
            else:
                report.rejected[reason or "?"] += 1
            for c in checks:
                if c.verifier == "sandbox" and c.runtime_s is not None:
                    report.sandbox_seconds.append(c.runtime_s)
        self.put("run_tasks", [run_task_row(
            self.spec.run_id, task.k, task.k, task.family or "",
            "accepted" if accepted else "rejected",
            reason=None if accepted else "no document accepted",
            instance_id=task.instance_id, semantic_id=task.semantic_id, created_at=now)])
        report.instances += 1
        self.task_done()

    def fail(self, task: RenderTask, failure: TaskFailure) -> None:
        """Queue a task that failed on every attempt: a ``failed`` task and its failure row."""
        self.put("task_failures", [failure_row(self.spec.run_id, "render", str(task.k),
                                               failure)])
        self.put("run_tasks", [run_task_row(
            self.spec.run_id, task.k, task.k, task.family or "", "failed",
            reason=failed_reason(failure), instance_id=task.instance_id,
            semantic_id=task.semantic_id)])
        self.report.instances += 1
        self.report.failed += 1
        self.task_done()


# ---------------------------------------------------------------- the job
PAGE = 256  # render tasks fetched from the store at a time (the driver's memory stays flat)


def pending_tasks(store: Store, spec: RenderSpec, limit: int | None
                  ) -> tuple[Iterator[RenderTask], int, int]:
    """(semantic model, accepted instance) pairs this run has not rendered yet, in a stable
    order, how many there are, and how many it has rendered already. An instance told by
    several semantic models (a domain shift, a renaming) is rendered once per model. Only the
    ids are read up front; models come from the store a page at a time."""
    done = int(store.query("SELECT count(*) FROM run_tasks WHERE run_id = ?",
                           [spec.run_id]).item())
    df = store.query(
        "SELECT i.id, s.id AS sid FROM lineage l JOIN instances i ON i.id = l.child_id "
        "JOIN semantic_models s ON s.id = l.parent_id "
        "WHERE l.relation = 'grounded' AND i.status = 'accepted' AND i.objective IS NOT NULL "
        "AND NOT EXISTS (SELECT 1 FROM run_tasks t WHERE t.run_id = ? AND "
        "t.instance_id = i.id AND t.semantic_id = s.id) "
        "ORDER BY i.created_at, i.id, s.created_at, s.id", [spec.run_id])
    pairs = list(df.iter_rows())
    if limit is not None:
        pairs = pairs[:max(0, limit - done)]

    def tasks() -> Iterator[RenderTask]:
        for p in range(0, len(pairs), PAGE):
            page = pairs[p:p + PAGE]
            rows = store.query(
                "SELECT i.id, s.id AS sid, i.family, s.model AS semantic, i.model, "
                "i.objective, (SELECT v.solution FROM verifications v WHERE v.subject_id = i.id "
                "AND v.verifier IN ('gurobi', 'highs') AND v.solution IS NOT NULL ORDER BY "
                "v.verifier LIMIT 1) AS sol FROM (SELECT unnest(?) AS iid, unnest(?) AS sid) p "
                "JOIN instances i ON i.id = p.iid JOIN semantic_models s ON s.id = p.sid",
                [[i for i, _ in page], [s for _, s in page]])
            got = {(iid, sid): r for iid, sid, *r in rows.iter_rows()}
            for k, key in enumerate(page):
                fam, sem, model, obj, sol = got[key]
                yield RenderTask(done + p + k, key[0], fam, sem, model, float(obj), sol, spec,
                                 key[1])

    return tasks(), len(pairs), done


def build_decontaminator(spec: RenderSpec) -> Decontaminator | None:
    """The spec's decontaminator (``verifiers.checks.corpus_checks``), or None without data."""
    return corpus_decontaminator(spec.contamination)


def run_render(store: Store, spec: RenderSpec, workers: int = 1, limit: int | None = None,
               executor: Executor | None = None,
               on_result: Callable[[RenderReport], None] | None = None,
               decontaminator: Decontaminator | bool | None = True,
               batch: int = 64, on_start: Callable[[int], None] | None = None) -> RenderReport:
    """Render and verify documents for accepted instances; returns the report."""
    start = time.perf_counter()
    tasks, n, done = pending_tasks(store, spec, limit)
    if on_start:
        on_start(n)
    report = RenderReport(spec.run_id, resumed_from=done)
    start_run(store, spec.run_id, "render", {**asdict(spec), "workers": workers, "limit": limit})
    decon = build_decontaminator(spec) if decontaminator is True else (
        decontaminator or None)
    report.decontamination = "on" if decon is not None else "off (shared benchmarks not found)"
    writer = RenderWriter(store, spec, decon, report, batch)

    def finish(_: DriveStats) -> None:
        report.seconds = time.perf_counter() - start
        finish_run(store, spec.run_id, {
            "instances": report.instances, "documents": report.documents,
            "accepted": report.accepted, "failed": report.failed,
            "rejected": dict(report.rejected)})

    run_batch(tasks, render_task, writer, executor=executor, workers=workers, finish=finish,
              on_result=(lambda _t, _r: on_result(report)) if on_result else None)
    return report
