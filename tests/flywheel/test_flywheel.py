"""The Clean / Clean-CoT flywheel end to end, against a real OpenAI-compatible server on
loopback (tests/evaluation/openai_server.py) that serves deliberately flawed answers of every
mistake class, their repairs (justified and not) and reviewer verdicts: ``ortrex distill``
diagnoses each class in the right family, ``ortrex clean`` repairs (deterministically or
through the server), reviews, validates and exports, the stage table counts what happened, and
``ortrex sql`` answers which mistakes the model makes and which repairs were rejected."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ortrex.flywheel.answers import Problem, problem_rows
from ortrex.store import Store
from tests.conftest import run_cli
from tests.engine.flaws import (
    PROGRAM,
    SEMANTIC,
    answer,
    cli,
    flawed_program,
    program,
    shared_store,
)
from tests.evaluation.openai_server import Server, State, key_of, question_of

FAMILIES = ("transportation", "blending", "production_planning")
# Which problem of each family (in id order) gets which mistake.
PLAN = {
    "transportation": ["domain", "objective_sense", "constraint_sense", "units",
                       "extra_constraint", "coefficients"],
    "blending": ["bounds", "ratio", "code_error"],
    "production_planning": ["missing_constraint", "objective_term", "index_range",
                            "output_contract", "unsafe_data_access", "gurobi_api"],
}
assert {m for ms in PLAN.values() for m in ms} == set(SEMANTIC) | set(PROGRAM)
# Served repairs that are not justified, and why the reviewer must reject them.
UNJUSTIFIED = {
    "extra_constraint": "integer",  # drops the extra row but integer-ises the flow
    "objective_term": "balance",  # restores the holding cost but deletes the balance rows
    "index_range": "other",  # restores the last period but caps an undiagnosed family
}
SERVED_REJECTS = "coefficients"  # a right repair the served reviewer rejects anyway


def sql(db: Path, query: str) -> list[dict[str, Any]]:
    """Rows of a query, read in this process (``ortrex sql`` itself is run where the tests
    ask what a user would)."""
    with Store(db, read_only=True) as s:
        return s.query(query).to_dicts()


def ortrex_sql(db: Path, query: str) -> list[dict[str, Any]]:
    """Rows of ``ortrex sql QUERY --format json``."""
    r = run_cli("sql", query, "--db", str(db), "--format", "json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small verified corpus: 6 instances of 3 families, an SFT example per form (built once
    per session)."""
    def build(db: Path) -> None:
        r = run_cli("pipeline", "--count", "6", "--families", ",".join(FAMILIES), "--kinds", "sft",
                "--size", "small", "--workers", "1", "--seed", "1", "--db", str(db))
        assert r.returncode == 0, r.stderr

    return shared_store(tmp_path_factory, "flywheel-corpus", build)


def _problems(db: Path) -> dict[str, list[Problem]]:
    with Store(db, read_only=True) as s:
        got = problem_rows(s, None, None)
    return {f: [p for p in got if p.family == f] for f in FAMILIES}


def _repair(p: Problem, mistake: str) -> str:
    """The served model's repair of ``mistake`` on ``p`` (justified, or the planned slip)."""
    sm = p.sm
    how = UNJUSTIFIED.get(mistake)
    if how == "integer":
        sm = replace(sm, variables=tuple(replace(v, vtype="I") for v in sm.variables))
    elif how == "balance":
        sm = replace(sm, constraints=tuple(c for c in sm.constraints if c.name != "balance"))
    elif how == "other":
        sm = replace(sm, variables=tuple(replace(v, ub=1e4) if v.name == "s" else v
                                         for v in sm.variables))
    return answer(program(sm), "Fix what the diagnosis names.")


class Scenario:
    """What the server answers: flawed answers, repairs and verdicts by question."""

    def __init__(self, problems: dict[str, list[Problem]]) -> None:
        self.mistake: dict[str, str] = {}
        self.answers: dict[str, str] = {}
        self.repairs: dict[str, str] = {}
        self.family: dict[str, str] = {}
        for fam, ms in PLAN.items():
            assert len(problems[fam]) >= len(ms), (fam, len(problems[fam]))
            for p, m in zip(problems[fam], ms, strict=False):
                key = key_of(p.question.strip())
                self.mistake[key], self.family[key] = m, fam
                self.answers[key] = answer(flawed_program(p.sm, m))
                self.repairs[key] = _repair(p, m)
            for p in problems[fam][len(ms):]:  # the others are answered right
                self.answers[key_of(p.question.strip())] = answer(program(p.sm))
        self.reviews: list[str] = []

    def flawed(self, messages: list[dict[str, Any]]) -> str | tuple[str, str]:
        key = key_of(question_of(messages))
        text = self.answers.get(key, "no answer registered")
        if self.mistake.get(key) == "ratio":  # a reasoning server: reasoning_content apart
            return "The blend's average must hold.", text.split("</think>", 1)[1]
        return text

    def tutor(self, messages: list[dict[str, Any]]) -> str:
        text = messages[-1]["content"]
        key = key_of(question_of(messages))
        if text.startswith("Review a repair"):
            self.reviews.append(key)
            if self.mistake.get(key) == SERVED_REJECTS:
                return '<think>Hmm.</think>{"verdict": "reject", "reason": "the supply data ' \
                       'was changed without a word of justification"}'
            return 'Looks fine. {"verdict": "accept", "reason": "only the named family ' \
                   'changed"}'
        if text.startswith("A first answer"):
            return self.repairs[key]
        return "unexpected prompt"


def test_distill_then_clean(corpus: Path, tmp_path: Path) -> None:
    """One flow (the server keeps its counts): distill, then clean, then a rerun of clean."""
    import shutil

    db = tmp_path / "s.duckdb"
    shutil.copy(corpus, db)
    scenario = Scenario(_problems(db))
    state = State({})
    state.scripts = {"flawed": scenario.flawed, "tutor": scenario.tutor}
    with Server(state) as srv:
        r = run_cli("distill", "--base-url", srv.url, "--model", "flawed", "--db", str(db),
                    "--workers", "2", "--exec-timeout", "20", timeout=600)
        assert r.returncode == 0, r.stderr
        assert "answers by mistake class" in r.stdout
        check_distill(db, scenario, state)
        check_clean(db, scenario, state, srv.url)


def check_distill(db: Path, scenario: Scenario, state: State) -> None:
    """Every class diagnosed in its family; which mistakes the model makes; lineage."""
    answers = sql(db, "SELECT a.id, a.outcome, a.mistake, a.prompt, a.failure, a.reasoning "
                      "FROM answers a")
    assert len(answers) == len(scenario.answers)
    right = [a for a in answers if a["outcome"] == "passed"]
    assert len(right) == len(scenario.answers) - len(scenario.mistake)
    assert all(a["mistake"] is None for a in right)
    answers = [a for a in answers if a["outcome"] != "passed"]
    want = {m: (fam, SEMANTIC[m][2] if m in SEMANTIC else None)
            for fam, ms in PLAN.items() for m in ms}
    for a in answers:
        prompt = a["prompt"] if isinstance(a["prompt"], list) else json.loads(a["prompt"])
        key = key_of(question_of(prompt))
        mistake = scenario.mistake[key]
        assert a["outcome"] == "mistaken" and a["mistake"] == mistake, (mistake, a)
        # The reasoning is kept, whether inline or as the server's reasoning_content.
        assert a["reasoning"] == ("The blend's average must hold." if mistake == "ratio"
                                  else "Let me model this."), a["reasoning"]
        first = sql(db, f"SELECT mistake, family, role, evidence FROM diagnoses WHERE "
                        f"answer_id = '{a['id']}' ORDER BY seq")[0]
        assert first["mistake"] == mistake and first["family"] == want[mistake][1], first
        assert first["evidence"]
    # Roles name the family's meaning; evidence carries the numbers.
    dom = sql(db, "SELECT role, evidence FROM diagnoses WHERE mistake = 'domain'")[0]
    assert dom["role"] == "quantity" and "continuous in the verified model" in dom["evidence"]
    ratio = sql(db, "SELECT role, evidence FROM diagnoses WHERE mistake = 'ratio'")[0]
    assert ratio["role"] == "ratio" and "in the verified model" in ratio["evidence"]
    # Which mistakes the served model makes most: one query.
    most = ortrex_sql(db, "SELECT d.mistake, count(*) AS n FROM diagnoses d JOIN answers a ON "
                   "a.id = d.answer_id WHERE a.model = 'flawed' GROUP BY ALL ORDER BY n DESC")
    assert {r["mistake"] for r in most} >= set(scenario.mistake.values())
    # Lineage: problem document -> answer -> diagnosis.
    edges = sql(db, "SELECT relation, count(*) AS n FROM lineage WHERE relation IN "
                    "('answered', 'diagnosed') GROUP BY ALL ORDER BY ALL")
    assert edges[0] == {"relation": "answered", "n": len(scenario.answers)}
    assert state.by_model["flawed"] == len(scenario.answers)


def check_clean(db: Path, scenario: Scenario, state: State, url: str) -> None:
    """Repairs (deterministic and served), reviews with reasons, validation, export, the stage
    table, lineage, the thinking channel, a resumed rerun."""
    r = run_cli("clean", "--base-url", url, "--model", "tutor", "--db", str(db), "--workers",
                "2", "--max-rounds", "2", "--exec-timeout", "20", timeout=600)
    assert r.returncode == 0, r.stderr
    assert "stage table" in r.stdout
    stages = sql(db, "SELECT branch, mistake, input, diagnosed, repaired, reviewer_passed, "
                     "validated, exported FROM (SELECT branch, mistake, count(*) AS input, "
                     "count(*) FILTER (WHERE diagnosed) AS diagnosed, count(*) FILTER (WHERE "
                     "repaired) AS repaired, count(*) FILTER (WHERE reviewer_passed) AS "
                     "reviewer_passed, count(*) FILTER (WHERE validated) AS validated, "
                     "count(*) FILTER (WHERE exported) AS exported FROM clean_stages GROUP BY "
                     "ALL) ORDER BY ALL")
    rejected = set(UNJUSTIFIED) | {SERVED_REJECTS}
    for row in stages:
        ok = int(row["mistake"] not in rejected)
        assert (row["input"], row["diagnosed"], row["repaired"]) == (1, 1, 1), row
        assert (row["reviewer_passed"], row["validated"], row["exported"]) == (ok, ok, ok), (
            row, sql(db, "SELECT branch, verdict, reason, details FROM reviews"))
    assert {(s["branch"], s["mistake"]) for s in stages} == {
        (b, m) for b in ("clean", "clean_cot") for m in scenario.mistake.values()}
    # Mechanical mistakes were repaired without the server; the others through it.
    methods = {x["mistake"]: x["method"] for x in sql(
        db, "SELECT a.mistake, r.method FROM repairs r JOIN answers a ON a.id = r.answer_id "
            "WHERE r.validated")}
    for m in ("domain", "objective_sense", "constraint_sense", "bounds", "units",
              "output_contract"):
        assert methods[m].startswith("deterministic"), (m, methods[m])
    assert methods["domain"] == "deterministic:patch"  # the answer's own program, one keyword
    for m in ("missing_constraint", "ratio", "code_error", "gurobi_api"):
        assert methods[m] == "served", (m, methods[m])
    # The reviewer rejected the unjustified repairs, each with its reason.
    reasons = {x["mistake"]: x["reason"] for x in sql(
        db, "SELECT a.mistake, v.reason FROM reviews v JOIN answers a ON a.id = v.answer_id "
            "WHERE v.verdict = 'reject' AND v.branch = 'clean'")}
    assert "integer without cause" in reasons["extra_constraint"]
    assert "deletes balance" in reasons["objective_term"]
    assert "which the diagnosis did not name" in reasons["index_range"]
    assert "reviewer: the supply data was changed" in reasons[SERVED_REJECTS]
    loops = sql(db, "SELECT DISTINCT failure FROM clean_stages WHERE failure IS NOT NULL")
    assert any("the repair loops: round 2 repeats round 1" in f["failure"] for f in loops)
    # Exported examples: both branches, thinking only in Clean-CoT, the validated program.
    docs = sql(db, "SELECT style, messages, program, objective FROM documents WHERE renderer "
                   "LIKE 'ortrex-clean%'")
    n_ok = len(scenario.mistake) - len(rejected)
    assert sorted(d["style"] for d in docs) == ["clean"] * n_ok + ["clean_cot"] * n_ok
    for d in docs:
        msgs = d["messages"] if isinstance(d["messages"], list) else json.loads(d["messages"])
        assert [m["role"] for m in msgs] == ["system", "user", "assistant"]
        assert d["program"].strip() in msgs[-1]["content"]
        assert ("reasoning_content" in msgs[-1]) == (d["style"] == "clean_cot")
    cot = next(json.loads(d["messages"]) if isinstance(d["messages"], str) else d["messages"]
               for d in docs if d["style"] == "clean_cot")
    assert len(cot[-1]["reasoning_content"]) > 300
    # Lineage: exported example <- review <- repair <- diagnosis <- answer <- problem.
    doc_id = sql(db, "SELECT id FROM documents WHERE renderer LIKE 'ortrex-clean%' LIMIT 1"
                 )[0]["id"]
    kinds = {x["parent_kind"] for x in sql(
        db, f"SELECT * FROM lineage_ancestors('{doc_id}')")}
    assert kinds >= {"review", "repair", "diagnosis", "answer", "document"}
    # Which repairs the reviewer rejects: one query.
    assert len(sql(db, "SELECT reason, count(*) AS n FROM reviews WHERE verdict = 'reject' "
                       "GROUP BY ALL")) >= len(rejected)
    # A Clean-CoT example trains its reasoning in the thinking channel: deepseek4 with
    # --enable-thinking (the real tokenizer and template) labels reasoning, </think>, answer.
    from ortrex.export.templates import encode_example
    from ortrex.export.tokenizers import load_tokenizer

    tok = load_tokenizer()
    ex = encode_example(tok, cot, "deepseek4", thinking=True)
    target = tok.tokenizer.decode([t for t in ex.labels if t != -100], skip_special_tokens=False)
    head = cot[-1]["reasoning_content"][:60]
    assert target.startswith(head) and "</think>```python" in target
    plain = encode_example(tok, cot, "deepseek4", thinking=False)
    assert head not in tok.tokenizer.decode([t for t in plain.labels if t != -100])
    # A rerun resumes: nothing left, nothing asked.
    asked = sum(state.by_model.values())
    r = cli("clean", "--base-url", url, "--model", "tutor", "--db", str(db), "--workers", "2",
            "--max-rounds", "2", "--exec-timeout", "20")
    assert r.returncode == 0 and "0 answers cleaned" in r.stdout, r.stdout
    assert sum(state.by_model.values()) == asked
