"""Evolution jobs: mutate selected instances for several rounds, verifying every child.

Round 1 takes the selected parents (accepted instances with a semantic model); each later round
takes the children accepted in the round before. For every parent, ``per_parent`` operators
are drawn by a diversity guard that favours family x operator x difficulty cells with few
accepted children so far. Each child is grounded and verified exactly like a fresh instance;
presentation-only children (domain shift, renaming) are stored as new semantic models of the
parent's instance. Lineage: parent semantic model(s) -> child ("mutated", operator, parameters)
-> instance ("grounded"). Task keys are content-derived, so a stopped job resumes.
"""

from __future__ import annotations

import json
import re
import time
import zlib
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

import duckdb
import numpy as np

from ortrex.engine.generate.job import (
    Executor,
    GenerateWriter,
    JobError,
    JobReport,
    TaskRecord,
    to_record,
)
from ortrex.engine.generate.mutate import (
    OPERATORS,
    NotApplicable,
    apply,
    family_values,
)
from ortrex.engine.generate.pipeline import TaskResult, verify
from ortrex.engine.operators.registry import Origin, made_from
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.jobs import TaskFailure, executor_for, unknown_names
from ortrex.jobs import run_job as run_batch
from ortrex.store.db import Store, utcnow
from ortrex.store.errors import QueryError
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
from ortrex.verifiers.solution import objective_value

_IDS = re.compile(r"^\s*[A-Za-z0-9_]{8,}\s*(,\s*[A-Za-z0-9_]{8,}\s*)*$")
PARENTS_SQL = """
SELECT l.parent_id AS semantic_id, i.id AS instance_id, i.family, i.domain, i.problem_class,
       i.difficulty, i.difficulty_band, i.n_vars, i.n_rows, i.nnz, i.objective, i.created_at,
       i.run_id
FROM lineage l JOIN instances i ON i.id = l.child_id
JOIN semantic_models s ON s.id = l.parent_id
WHERE l.relation = 'grounded' AND i.status = 'accepted'
"""


@dataclass(frozen=True)
class MutateSpec:
    """An evolution job: which operators, from which parents, how many children, how deep."""

    operators: tuple[str, ...]
    selection: str
    per_parent: int = 2
    rounds: int = 1
    seed: int = 0
    time_limit: float = 10.0

    def __post_init__(self) -> None:
        unknown = [o for o in self.operators if o not in OPERATORS]
        if unknown:
            raise unknown_names("operator" + ("s" if len(unknown) > 1 else ""), unknown,
                                list(OPERATORS), " or 'all'")
        if not self.operators:
            raise JobError("give at least one operator")
        if self.per_parent < 1 or self.rounds < 1:
            raise JobError("--per-parent and --rounds must be at least 1")
        if not self.selection.strip():
            raise JobError("--from is empty: give a SQL filter over parents or ids")

    @staticmethod
    def parse_operators(text: str) -> tuple[str, ...]:
        """``all`` (by name: the registry's order depends on import order) or a list."""
        if text.strip() == "all":
            return tuple(sorted(OPERATORS))
        return tuple(dict.fromkeys(t.strip() for t in text.split(",") if t.strip()))

    @property
    def run_id(self) -> str:
        """Content-derived: the same spec is the same run."""
        return content_id("run", "mutate", asdict(self))


@dataclass
class Parent:
    """A semantic model with the accepted instance it grounds to."""

    semantic_id: str
    instance_id: str
    family: str
    band: str | None


def select_parents(store: Store, selection: str) -> list[Parent]:
    """Parents by ids (semantic or instance ids, or unique prefixes) or by a SQL filter over
    the columns of ``PARENTS_SQL``; ``JobError`` when the filter fails or matches nothing."""
    base = f"SELECT semantic_id, instance_id, family, difficulty_band FROM ({PARENTS_SQL}) p"
    if _IDS.match(selection):
        ids = [t.strip() for t in selection.split(",")]
        cond = " OR ".join("semantic_id LIKE ? OR instance_id LIKE ?" for _ in ids)
        args = [x for t in ids for x in (f"{t}%", f"{t}%")]
        query, params = f"{base} WHERE {cond}", args
    else:
        query, params = f"{base} WHERE ({selection})", []
    try:
        df = store.query(f"{query} ORDER BY semantic_id", params)
    except (duckdb.Error, QueryError) as exc:
        raise JobError(store.filter_error("--from", selection, exc,
                                          f"SELECT * FROM ({PARENTS_SQL}) p")) from None
    if df.height == 0:
        raise JobError(f"--from {selection!r} selects no accepted instance with a semantic "
                       "model")
    return [Parent(*row) for row in df.iter_rows()]


@dataclass
class MutTask:
    """One child to make (worker side)."""

    key: str
    round: int
    parent: Parent
    operator: str
    seed: int
    semantic: str
    model: bytes
    solution: bytes | None
    other: str | None
    other_id: str | None
    time_limit: float


@dataclass
class MutRecord:
    """What became of one task: a verified child, or the reason the operator did not apply."""

    task: MutTask
    record: TaskRecord | None = None
    skipped: str | None = None
    params: dict[str, Any] = field(default_factory=dict)
    presentation: bool = False


def _own_grounding(parent: SemanticModel, inst: CanonicalModel, x: np.ndarray | None
                   ) -> tuple[CanonicalModel, np.ndarray | None]:
    """The parent's instance under the parent's own names, with its optimum (None: none
    stored). A new telling of a stored instance (renamed, shifted to another domain) names
    its variables its own way: its grounding stands for the instance when it is the same
    model column by column, else its optimum is unknown to the operators and the checks."""
    plan = np.asarray(x, dtype=np.float64) if x is not None and len(x) == inst.num_vars \
        else None
    own = parent.ground()
    if own.var_names == inst.var_names:
        return inst, plan
    same = own.num_vars == inst.num_vars and own.num_rows == inst.num_rows and \
        np.array_equal(own.obj, inst.obj) and np.array_equal(own.lb, inst.lb) and \
        np.array_equal(own.ub, inst.ub) and (own.A != inst.A).nnz == 0
    return own, plan if same else None


def mutate_task(t: MutTask) -> MutRecord:
    """Apply the operator, ground and verify the child (worker side)."""
    parent = SemanticModel.loads(t.semantic)
    inst, x = _own_grounding(parent, CanonicalModel.from_bytes(zlib.decompress(t.model)),
                             unpack_solution(t.solution))
    values = family_values(parent, list(inst.var_names), x)
    other = SemanticModel.loads(t.other) if t.other else None
    rng = np.random.default_rng(t.seed)
    start = time.perf_counter()
    try:
        m = apply(t.operator, parent, values, rng, other)
        child = m.child.ground()
    except NotApplicable as exc:
        return MutRecord(t, skipped=f"not applicable: {exc}")
    except ValueError as exc:  # a child that does not ground is a rejected child
        return MutRecord(t, skipped=f"invalid child: {exc}")
    # Children are as small as the generated parents: verified as they are (see ``verify``),
    # knowing their parent (whether an added rule binds, an added cost varies).
    with made_from(Origin(t.operator, parent, inst, x,
                          objective_value(inst, x) if x is not None else None)):
        outcome = verify(child, m.child, time_limit=t.time_limit, heuristics=False)
    res = TaskResult(0, m.child.family, m.child, child, outcome, time.perf_counter() - start)
    return MutRecord(t, to_record(res), params=m.params,
                     presentation=OPERATORS[t.operator].presentation)


@dataclass
class MutateReport(JobReport):
    """Counts of an evolution job."""

    skipped: Counter[str] = field(default_factory=Counter)
    by_operator: dict[str, Counter[str]] = field(default_factory=dict)
    rounds_done: int = 0
    same_instance: int = 0


class MutationWriter(GenerateWriter):
    """The generate writer with mutation lineage and same-instance children; it numbers the
    job's tasks from ``k`` (across rounds) and commits every ``batch`` tasks."""

    def __init__(self, store: Store, spec: MutateSpec, report: MutateReport, batch: int,
                 k: int, on_result: Callable[[MutateReport], None] | None) -> None:
        super().__init__(store, spec, report, batch, max_delay=None)  # type: ignore[arg-type]
        self.report: MutateReport = report
        self.k, self.progress = k, on_result

    def add(self, task: MutTask, m: MutRecord) -> None:  # type: ignore[override]
        """Buffer one finished task (the driver's call)."""
        self.add_mutation(m, self.report, self.k)
        self.next_task()

    def fail(self, task: MutTask, failure: TaskFailure) -> None:  # type: ignore[override]
        """Queue a task that failed on every attempt: a ``failed`` task and its failure row."""
        self.put("task_failures", [failure_row(self.run_id, "mutate", task.key, failure)])
        self.put("run_tasks", [run_task_row(self.run_id, task.key, self.k, task.parent.family,
                                            "failed", reason=failed_reason(failure))])
        self.task_done()
        self.report.tasks += 1
        self.report.failed += 1
        self.report.by_operator.setdefault(task.operator, Counter())["failed"] += 1
        self.next_task()

    def next_task(self) -> None:
        """The next task's number, and progress."""
        self.k += 1
        if self.progress:
            self.progress(self.report)

    def add_mutation(self, m: MutRecord, report: MutateReport, k: int) -> bool:
        """Queue one mutation outcome as task ``k``; returns whether the child was accepted."""
        now = utcnow()
        t = m.task
        stamp = {"created_at": now, "run_id": self.run_id}
        op = report.by_operator.setdefault(t.operator, Counter())
        op["tasks"] += 1
        report.tasks += 1
        if m.record is None:
            report.skipped[(m.skipped or "?").split(":")[0]] += 1
            op["skipped"] += 1
            self.put("run_tasks", [run_task_row(self.run_id, t.key, k, t.parent.family,
                                                "skipped", reason=(m.skipped or "")[:500],
                                                created_at=now)])
            self.task_done()
            return False
        r = m.record
        iid, sid = r.instance_id, r.semantic_id
        reason, detail, duplicate_of = r.reason, r.detail, None
        if r.accepted:
            same = self.accepted_fp.setdefault(r.structural_fp, [])
            # A new telling is first compared with its parent's instance (another equivalent
            # instance may be stored too: the telling belongs to its parent's).
            order = sorted(same, key=lambda i: i != t.parent.instance_id) if m.presentation \
                else same
            duplicate_of, detail = self.duplicate(r, order)
            if duplicate_of is not None and not m.presentation:
                reason = "duplicate"
            elif duplicate_of is None:
                same.append(iid)
                self.buffered_models[iid] = r.instance["model"]
        accepted = reason is None
        status = "accepted" if accepted else "rejected"
        target = duplicate_of if (m.presentation and duplicate_of) else iid
        if duplicate_of is None or not accepted:
            if duplicate_of != iid:
                self.put("instances", [{**r.instance, **stamp, "status": status,
                                        "reject_reason": reason, "reject_detail": detail,
                                        "duplicate_of": duplicate_of}])
            self.put("verifications", ({**v, **stamp} for v in r.verifications))
        else:
            report.same_instance += 1  # a new telling of an instance already stored
        self.put("semantic_models", [{**r.semantic, **stamp}])
        params = json.dumps({"round": t.round, "seed": t.seed, **m.params}, default=str)
        parents = [t.parent.semantic_id] + ([t.other_id] if t.other_id else [])
        edges = [(p, "semantic_model", sid, "semantic_model", "mutated", t.operator)
                 for p in parents]
        edges += [(sid, "semantic_model", target, "instance", "grounded", None),
                  (self.run_id, "run", sid, "semantic_model", "generated", t.operator)]
        self.put("lineage", (lineage_row(parent, pkind, child, ckind, rel, operator=oper,
                                         params=params, created_at=now, run_id=self.run_id)
                             for parent, pkind, child, ckind, rel, oper in edges))
        self.put("run_tasks", [run_task_row(self.run_id, t.key, k, t.parent.family, status,
                                            reason=reason, instance_id=target,
                                            semantic_id=sid, created_at=now)])
        self.task_done()
        if accepted:
            report.accepted += 1
            report.bands[r.band] += 1
            op["accepted"] += 1
        else:
            report.rejected[reason or "?"] += 1
            op[f"rejected:{reason}"] += 1
        report.solver_seconds += r.solver_seconds
        report.worker_seconds += r.seconds
        return accepted


def _cell_counts(store: Store) -> Counter[tuple[str, str, str]]:
    """Accepted mutation children per (family, operator, difficulty band)."""
    df = store.query(
        "SELECT i.family, l.operator, coalesce(i.difficulty_band, '?'), count(*) "
        "FROM lineage l JOIN lineage g ON g.parent_id = l.child_id AND g.relation = 'grounded' "
        "JOIN instances i ON i.id = g.child_id "
        "WHERE l.relation = 'mutated' AND i.status = 'accepted' GROUP BY ALL")
    return Counter({(f, o, b): int(n) for f, o, b, n in df.iter_rows()})


def _choose(ops: tuple[str, ...], family: str, band: str | None,
            cells: Counter[tuple[str, str, str]], rng: np.random.Generator) -> str:
    """Diversity guard: operators weighted by 1 / (1 + accepted children in their cell)."""
    w = np.array([1.0 / (1 + cells[(family, o, band or "?")]) for o in ops])
    return ops[int(rng.choice(len(ops), p=w / w.sum()))]


def _load(store: Store, parents: list[Parent]) -> dict[str, tuple[str, bytes, bytes | None]]:
    """Semantic JSON, instance bytes and a solution of each parent."""
    if not parents:
        return {}
    sids = [p.semantic_id for p in parents]
    df = store.query(
        "SELECT s.id, s.model AS semantic, i.model, (SELECT v.solution FROM verifications v WHERE "
        "v.subject_id = i.id AND v.solution IS NOT NULL ORDER BY v.verifier LIMIT 1) AS sol "
        "FROM semantic_models s JOIN lineage l ON l.parent_id = s.id AND l.relation = "
        "'grounded' JOIN instances i ON i.id = l.child_id WHERE s.id IN (SELECT unnest(?))",
        [sids])
    return {sid: (sem, model, sol) for sid, sem, model, sol in df.iter_rows()}


def _partners(store: Store, operators: tuple[str, ...]
              ) -> dict[str, list[tuple[str, str, SemanticModel]]]:
    """Accepted (semantic id, semantic JSON, model) per family that a two-parent operator
    among ``operators`` may take as its second parent."""
    fams = sorted({f for o in operators for v in OPERATORS[o].partners.values() for f in v})
    if not fams:
        return {}
    df = store.query(
        "SELECT i.family, s.id, s.model FROM lineage l JOIN instances i ON i.id = l.child_id "
        "JOIN semantic_models s ON s.id = l.parent_id WHERE l.relation = 'grounded' AND "
        "i.status = 'accepted' AND i.family IN (SELECT unnest(?)) ORDER BY s.id", [fams])
    out: dict[str, list[tuple[str, str, SemanticModel]]] = {}
    for fam, sid, sem in df.iter_rows():
        out.setdefault(fam, []).append((sid, sem, SemanticModel.loads(sem)))
    return out


def _round_children(store: Store, run_id: str, rnd: int) -> list[Parent]:
    df = store.query(
        "SELECT t.semantic_id, t.instance_id, i.family, i.difficulty_band FROM run_tasks t "
        "JOIN instances i ON i.id = t.instance_id WHERE t.run_id = ? AND t.outcome = "
        "'accepted' AND t.id LIKE ? ORDER BY t.semantic_id", [run_id, f"{run_id}:r{rnd}:%"])
    return [Parent(*row) for row in df.iter_rows()]


PAGE = 256  # parents whose models are read from the store at a time


def _round_tasks(store: Store, spec: MutateSpec, rnd: int, parents: list[Parent],
                 cells: Counter[tuple[str, str, str]],
                 partners: dict[str, list[tuple[str, str, SemanticModel]]], done: set[str]
                 ) -> Iterator[MutTask]:
    """The round's tasks in order, the parents' models read a page at a time (the diversity
    guard's counts follow the same order as ever, so the choices are the same)."""
    for start in range(0, len(parents), PAGE):
        page = parents[start:start + PAGE]
        data = _load(store, page)
        for p in page:
            if p.semantic_id not in data:
                continue
            sem, model, sol = data[p.semantic_id]
            for j in range(spec.per_parent):
                key = f"r{rnd}:{p.semantic_id}:{j}"
                seed = int(content_id("seed", spec.seed, key)[-8:], 16)
                rng = np.random.default_rng(seed)
                op = _choose(spec.operators, p.family, p.band, cells, rng)
                cells[(p.family, op, p.band or "?")] += 1  # spread within the round
                other = other_id = None
                if OPERATORS[op].parents == 2:  # a second parent of a partner family
                    cands = [c for f in OPERATORS[op].partners.get(p.family, ())
                             for c in partners.get(f, [])]
                    fits = OPERATORS[op].compatible
                    if fits is not None and cands:  # units and stories agree
                        mine = SemanticModel.loads(sem)
                        cands = [c for c in cands if fits(mine, c[2])]
                    if cands:
                        other_id, other, _ = cands[int(rng.integers(len(cands)))]
                if f"{spec.run_id}:{key}" in done:
                    continue
                yield MutTask(key, rnd, p, op, seed, sem, model, sol, other, other_id,
                              spec.time_limit)


def run_mutate(store: Store, spec: MutateSpec, workers: int = 1,
               executor: Executor | None = None,
               on_round: Callable[[int, int], None] | None = None,
               on_result: Callable[[MutateReport], None] | None = None,
               batch: int = 128) -> MutateReport:
    """Run (or resume) an evolution job; returns the report."""
    start = time.perf_counter()
    # The first start freezes the selection: a resumed job keeps its parents even though its
    # own children now match the same filter.
    prev = store.query("SELECT config FROM runs WHERE id = ?", [spec.run_id])
    frozen = json.loads(prev.item()).get("parents") if prev.height else None
    parents = [Parent(*p) for p in frozen] if frozen else select_parents(store, spec.selection)
    report = MutateReport(run_id=spec.run_id, workers=workers)
    start_run(store, spec.run_id, "mutate",
              {**asdict(spec), "workers": workers,
               "parents": [list(asdict(p).values()) for p in parents]})
    done = {row[0] for row in store.query("SELECT id FROM run_tasks WHERE run_id = ?",
                                          [spec.run_id]).iter_rows()}
    report.resumed_from = len(done)
    writer = MutationWriter(store, spec, report, batch, len(done), on_result)
    cells = _cell_counts(store)
    partners = _partners(store, spec.operators)
    # One executor for every round (a round's tasks depend on the round before).
    with executor_for(executor, workers) as ex:
        for rnd in range(1, spec.rounds + 1):
            if rnd > 1:
                parents = _round_children(store, spec.run_id, rnd - 1)
                if not parents:
                    break
            if on_round:
                on_round(rnd, sum(f"{spec.run_id}:r{rnd}:{p.semantic_id}:{j}" not in done
                                  for p in parents for j in range(spec.per_parent)))
            run_batch(_round_tasks(store, spec, rnd, parents, cells, partners, done),
                      mutate_task, writer, executor=ex)
            report.rounds_done = rnd
    report.seconds = time.perf_counter() - start
    report.complete = True
    finish_run(store, spec.run_id, {"tasks": report.tasks, "accepted": report.accepted,
                                    "rejected": dict(report.rejected),
                                    "skipped": dict(report.skipped)})
    return report
