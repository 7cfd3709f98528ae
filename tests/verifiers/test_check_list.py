"""The one document-check list: every entry runs in rendering, ``verify documents`` and seed
import (or says why it cannot), and a plugin's check is picked up by a render run."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import ortrex.plugins
from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.documents.verify_job import recheck_documents
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.engine.ingest.seeds import import_seeds
from ortrex.store import Store
from ortrex.verifiers.checks.registry import CHECKS, JOBS, checks
from tests.engine.test_seeds import PROGRAM  # the honest seed program


def honest_seed() -> str:
    problem = "Choose x and y.\n\n### data.json\n```json\n{\"cap\": 4.0}\n```\n"
    return json.dumps({"id": "honest", "problem": problem,
                       "answer": f"<python>\n{PROGRAM}</python>",
                       "metadata": {"mode": "DPS", "structure": "toy"}})


def verifiers_of(store: Store, command: str) -> set[str]:
    return set(store.query(
        "SELECT DISTINCT v.verifier FROM verifications v JOIN runs r ON r.id = v.run_id "
        "WHERE r.command = ? AND v.subject_kind = 'document'", [command])["verifier"])


def test_every_check_runs_in_every_document_job(tmp_path: Path) -> None:
    seeds = tmp_path / "seeds.jsonl"
    seeds.write_text(honest_seed() + "\n")
    with Store(tmp_path / "c.duckdb", create=True) as s:
        run_job(s, JobSpec(("knapsack_01", "transportation"), 2, seed=3))
        # A re-check replaces the verdicts it runs again: each job's rows are read after it.
        seen: dict[str, set[str]] = {}
        run_render(s, RenderSpec(forms=("DP",)), decontaminator=None)
        seen["render"] = verifiers_of(s, "render")
        recheck_documents(s)
        seen["verify documents"] = verifiers_of(s, "verify documents")
        assert import_seeds(s, seeds).accepted == 1
        seen["import-seeds"] = verifiers_of(s, "import-seeds")
    for entry in checks():
        assert set(entry.not_in) <= set(JOBS), entry.name
        for job in JOBS:
            if job in entry.not_in:
                assert len(entry.not_in[job]) > 20, (entry.name, job)  # a reason, stated
            else:
                assert set(entry.verifiers) <= seen[job], (entry.name, job, seen[job])


TOY = '''from ortrex.verifiers.checks.document import Check
from ortrex.verifiers.checks.registry import CHECKS, DocCheck


def words(c, state):
    n = len(c.text.split())
    return [Check("toy_words", "pass" if n >= 5 else "fail", details={"words": n})]


CHECKS.append(DocCheck("toy_words", "document", lambda c: True, words))
'''


@pytest.fixture
def toy_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    (tmp_path / "toy_check_plugin.py").write_text(TOY)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("ORTREX_PLUGINS", "toy_check_plugin")
    before = list(CHECKS)
    ortrex.plugins._loaded.discard("toy_check_plugin")
    yield "toy_words"
    CHECKS[:] = before
    ortrex.plugins._loaded.discard("toy_check_plugin")
    sys.modules.pop("toy_check_plugin", None)


def test_a_plugin_check_is_recorded_by_a_render_run(tmp_path: Path, toy_plugin: str) -> None:
    with Store(tmp_path / "p.duckdb", create=True) as s:
        run_job(s, JobSpec(("knapsack_01",), 1, seed=3))
        rep = run_render(s, RenderSpec(forms=("DP",), kinds=("sft",)), decontaminator=None)
        rows = s.query("SELECT status, details FROM verifications WHERE verifier = ?",
                       [toy_plugin]).rows()
        assert len(rows) == rep.documents == 1
        assert rows[0][0] == "pass" and json.loads(rows[0][1])["words"] >= 5
