"""Table definitions of the verification database (SQLModel, created through duckdb-engine).

Every id is content-derived (a hash of what the row means), so re-running a job is idempotent.
Floats are DOUBLE (SQLModel's default FLOAT is 32-bit), JSON columns use DuckDB's JSON type,
integer keys are not SERIAL (DuckDB has none) and times are UTC TIMESTAMPTZ.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlmodel import Field, SQLModel

from ortrex.store.tables import SCHEMA_VERSION  # noqa: F401 (defined with the names)


def _double(**kw: Any) -> Any:
    return Field(sa_type=sa.Double, **kw)


def _bigint(**kw: Any) -> Any:
    return Field(sa_type=sa.BigInteger, **kw)


def _json(**kw: Any) -> Any:
    return Field(sa_type=sa.JSON, **kw)


class SchemaVersion(SQLModel, table=True):
    """One row per applied schema version."""

    __tablename__ = "schema_version"
    version: int = Field(primary_key=True, sa_column_kwargs={"autoincrement": False})
    description: str
    applied_at: datetime


class Run(SQLModel, table=True):
    """A job invocation: command, configuration, counts."""

    __tablename__ = "runs"
    id: str = Field(primary_key=True)
    command: str
    config: dict | None = _json(default=None)
    counts: dict | None = _json(default=None)
    status: str
    ortrex_version: str
    started_at: datetime
    finished_at: datetime | None = None


class Source(SQLModel, table=True):
    """An input file a row came from: a path with given content (sha256 of its bytes)."""

    __tablename__ = "sources"
    id: str = Field(primary_key=True)
    path: str
    sha256: str
    format: str
    size_bytes: int = _bigint()
    first_seen_at: datetime
    run_id: str | None = None


class Instance(SQLModel, table=True):
    """A canonical model (id: its content hash) with fingerprints and size figures."""

    __tablename__ = "instances"
    id: str = Field(primary_key=True)
    structural_fp: str
    formulation_fp: str
    fp_version: int
    name: str
    family: str | None = None
    problem_class: str
    sense: str
    n_vars: int
    n_rows: int
    nnz: int = _bigint()
    n_int: int
    n_bin: int
    n_qobj: int
    n_qrows: int
    difficulty: float | None = _double(default=None)
    model: bytes = Field(sa_type=sa.LargeBinary)
    model_format: str
    created_at: datetime
    run_id: str | None = None
    # v2: generation outcome. status: imported | accepted | rejected.
    status: str | None = None
    reject_reason: str | None = None
    reject_detail: str | None = None
    duplicate_of: str | None = None
    difficulty_band: str | None = None
    objective: float | None = _double(default=None)
    semantic_id: str | None = None
    domain: str | None = None
    flags: dict | None = _json(default=None)


class SemanticModelRow(SQLModel, table=True):
    """A semantic (modeller-level) model with its descriptors."""

    __tablename__ = "semantic_models"
    id: str = Field(primary_key=True)
    family: str
    domain: str | None = None
    schema_version: int
    model: dict = _json()
    descriptors: dict | None = _json(default=None)
    created_at: datetime
    run_id: str | None = None


class Document(SQLModel, table=True):
    """A rendered artefact: statement, program, CPT document or SFT example."""

    __tablename__ = "documents"
    id: str = Field(primary_key=True)
    instance_id: str | None = None
    semantic_id: str | None = None
    kind: str
    form: str | None = None
    text: str
    data_files: dict | None = _json(default=None)
    program: str | None = None
    renderer: str | None = None
    template: str | None = None
    created_at: datetime
    run_id: str | None = None
    # v3: verification outcome, the statement as a reader sees it, SFT messages, dedup data.
    statement: str | None = None
    style: str | None = None
    solver: str | None = None
    messages: list | None = _json(default=None)
    status: str | None = None
    reject_reason: str | None = None
    reject_detail: str | None = None
    objective: float | None = _double(default=None)
    minhash: bytes | None = Field(default=None, sa_type=sa.LargeBinary)


class Verification(SQLModel, table=True):
    """One verifier's verdict on one subject (instance, document, ...)."""

    __tablename__ = "verifications"
    id: str = Field(primary_key=True)
    subject_id: str
    subject_kind: str
    verifier: str
    status: str
    objective: float | None = _double(default=None)
    runtime_s: float | None = _double(default=None)
    details: dict | None = _json(default=None)
    created_at: datetime
    run_id: str | None = None
    # v2: the solver's solution vector (zlib of little-endian float64) and version.
    solution: bytes | None = Field(default=None, sa_type=sa.LargeBinary)
    solver_version: str | None = None


class LineageEdge(SQLModel, table=True):
    """A lineage edge parent -> child (seed -> mutation -> instance -> document -> export)."""

    __tablename__ = "lineage"
    id: str = Field(primary_key=True)
    parent_id: str
    parent_kind: str
    child_id: str
    child_kind: str
    relation: str
    operator: str | None = None
    params: dict | None = _json(default=None)
    created_at: datetime
    run_id: str | None = None


class Export(SQLModel, table=True):
    """An exported dataset file set with its manifest."""

    __tablename__ = "exports"
    id: str = Field(primary_key=True)
    kind: str
    path: str
    n_docs: int
    sha256: str
    manifest: dict | None = _json(default=None)
    created_at: datetime
    run_id: str | None = None


class RunTask(SQLModel, table=True):
    """One task of a batch job (v2): what it produced; a job resumes after the last one."""

    __tablename__ = "run_tasks"
    id: str = Field(primary_key=True)
    run_id: str
    task: int
    family: str
    instance_id: str | None = None
    semantic_id: str | None = None
    outcome: str
    reason: str | None = None
    created_at: datetime


class TaskFailureRow(SQLModel, table=True):
    """A task that raised or crashed its worker on every attempt (v5): the job went on
    without it; ``digest`` groups failures of one cause."""

    __tablename__ = "task_failures"
    id: str = Field(primary_key=True)  # run id : task key
    run_id: str
    command: str
    task_key: str
    kind: str  # error | crash
    error: str
    digest: str
    traceback: str | None = None
    attempts: int
    created_at: datetime


class AnswerRow(SQLModel, table=True):
    """A served model's answer to a corpus problem (v6), scored and diagnosed against the
    verified instance (``ortrex distill``)."""

    __tablename__ = "answers"
    id: str = Field(primary_key=True)
    run_id: str
    document_id: str  # the corpus problem: an accepted SFT document
    instance_id: str | None = None
    semantic_id: str | None = None
    family: str | None = None
    form: str | None = None
    model: str
    sample: int
    prompt: list | None = _json(default=None)  # the chat messages asked
    completion: str | None = None
    reasoning: str | None = None  # reasoning_content or <think>, when the reply had it
    program: str | None = None
    outcome: str  # passed | mistaken
    failure: str | None = None  # the scoring failure class (wrong_objective, infeasible, ...)
    detail: str | None = None
    objective: float | None = _double(default=None)
    expected: float | None = _double(default=None)
    equivalence: str | None = None
    equivalence_reason: str | None = None
    mistake: str | None = None  # the first diagnosis class (priority order)
    captured: bytes | None = Field(default=None, sa_type=sa.LargeBinary)  # zlib of MPS
    exec_s: float | None = _double(default=None)
    created_at: datetime


class DiagnosisRow(SQLModel, table=True):
    """One mistake of an answer (v6): its class, the family it is in, the evidence."""

    __tablename__ = "diagnoses"
    id: str = Field(primary_key=True)
    answer_id: str
    seq: int
    mistake: str
    family: str | None = None
    role: str | None = None
    kind: str  # variable | constraint | objective | program
    evidence: str
    details: dict | None = _json(default=None)
    created_at: datetime


class RepairRow(SQLModel, table=True):
    """A proposed repair of an answer (v6): how it was made, and its local validation."""

    __tablename__ = "repairs"
    id: str = Field(primary_key=True)
    run_id: str
    answer_id: str
    round: int
    method: str  # deterministic:patch | deterministic:ir | served
    program: str | None = None
    completion: str | None = None
    reasoning: str | None = None
    status: str  # proposed | no_program | repeat | error
    detail: str | None = None
    validated: bool | None = None
    validation: dict | None = _json(default=None)
    created_at: datetime


class ReviewRow(SQLModel, table=True):
    """The reviewer's judgement of a repair in one branch (v6): pass or reject, and why."""

    __tablename__ = "reviews"
    id: str = Field(primary_key=True)
    run_id: str
    repair_id: str
    answer_id: str
    branch: str  # clean | clean_cot
    reviewer: str  # verifiers, or verifiers+<served model>
    verdict: str  # pass | reject
    reason: str | None = None
    details: dict | None = _json(default=None)
    created_at: datetime


class CleanStageRow(SQLModel, table=True):
    """How far one answer went in one branch of a clean run (v6): the stage table's rows."""

    __tablename__ = "clean_stages"
    id: str = Field(primary_key=True)  # run id : answer id : branch
    run_id: str
    answer_id: str
    branch: str
    mistake: str
    diagnosed: bool
    repaired: bool
    reviewer_passed: bool
    validated: bool
    exported: bool
    document_id: str | None = None
    failure: str | None = None
    created_at: datetime


TABLES: dict[str, type[SQLModel]] = {
    m.__tablename__: m  # type: ignore[misc]
    for m in (SchemaVersion, Run, Source, Instance, SemanticModelRow, Document, Verification,
              LineageEdge, Export, RunTask, TaskFailureRow, AnswerRow, DiagnosisRow, RepairRow,
              ReviewRow, CleanStageRow)
}
