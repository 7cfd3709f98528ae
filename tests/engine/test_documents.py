"""The render job: every document verified, rejections stored with reasons, resumable."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import pytest

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.documents.verify_job import recheck_documents
from ortrex.engine.generate.job import JobError, JobSpec, run_job
from ortrex.store import Store

FAMILIES = ("knapsack_01", "transportation", "lot_sizing", "portfolio", "min_cost_flow",
            "tsp_mtz")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "docs.duckdb", create=True) as s:
        run_job(s, JobSpec(FAMILIES, len(FAMILIES), seed=3))
        yield s


def _counts(s: Store) -> dict[str, int]:
    return dict(s.query("SELECT status, count(*) FROM documents GROUP BY ALL").iter_rows())


def test_render_verifies_every_document_and_resumes(store: Store) -> None:
    spec = RenderSpec()
    rep = run_render(store, spec, decontaminator=None)
    n = len(FAMILIES)
    assert rep.instances == n and rep.documents == n * 3 * 2 and rep.accepted == rep.documents
    docs = store.query("SELECT id, kind, form, statement, program, messages FROM documents")
    assert docs.height == n * 6
    checks = store.query(
        "SELECT verifier, status, count(*) FROM verifications WHERE subject_kind = 'document' "
        "GROUP BY ALL ORDER BY ALL").rows()
    verifiers = {v for v, _, _ in checks}
    assert {"static", "sandbox", "equivalence", "fidelity", "completeness", "language",
            "near_duplicate", "decontamination"} <= verifiers
    assert all(st in ("pass", "skipped") for _, st, _ in checks)
    sft = [json.loads(m) for k, m in zip(docs["kind"], docs["messages"], strict=True)
           if k == "sft"]
    assert all(m[0]["role"] == "user" and m[1]["role"] == "assistant" for m in sft)
    edges = store.query("SELECT count(*) FROM lineage WHERE relation = 'rendered'").item()
    assert edges == n * 6
    # A second run of the same spec has nothing left to do; the store is unchanged.
    before = store.counts()
    again = run_render(store, spec, decontaminator=None)
    assert again.instances == 0 and again.resumed_from == n and store.counts() == before


def test_a_wrong_verified_optimum_rejects_the_documents(store: Store) -> None:
    iid = store.query("SELECT id FROM instances WHERE family = 'knapsack_01'").item()
    store.conn.execute("UPDATE instances SET objective = objective + 1 WHERE id = ?", [iid])
    run_render(store, RenderSpec(forms=("DP",), kinds=("sft",)), decontaminator=None)
    rows = store.query("SELECT instance_id, status, reject_reason, reject_detail FROM "
                       "documents").rows()
    bad = [r for r in rows if r[0] == iid]
    assert len(bad) == 1 and bad[0][1:3] == ("rejected", "sandbox")
    assert "verified optimum" in bad[0][3]
    assert all(r[1] == "accepted" for r in rows if r[0] != iid)


def test_near_duplicates_of_another_instance_are_rejected(store: Store) -> None:
    # A second instance row with the same semantic model renders the same statements.
    iid = store.query("SELECT id FROM instances WHERE family = 'transportation'").item()
    cols = [c for c in store.query("SELECT * FROM instances LIMIT 0").columns if c != "id"]
    store.conn.execute(f"INSERT INTO instances (id, {', '.join(cols)}) SELECT 'twin-' || id, "
                       f"{', '.join(cols)} FROM instances WHERE id = ?", [iid])
    store.conn.execute("UPDATE instances SET created_at = created_at + INTERVAL 1 HOUR "
                       "WHERE id = ?", ["twin-" + iid])
    store.conn.execute("INSERT INTO lineage SELECT id || '-twin', parent_id, parent_kind, "
                       "'twin-' || child_id, child_kind, relation, operator, params, created_at, "
                       "run_id FROM lineage WHERE child_id = ? AND relation = 'grounded'", [iid])
    run_render(store, RenderSpec(forms=("DP", "DPS"), kinds=("cpt",)), decontaminator=None)
    twin = store.query("SELECT status, reject_reason, reject_detail FROM documents WHERE "
                       "instance_id = ?", ["twin-" + iid]).rows()
    assert len(twin) == 2, twin
    assert all(s == "rejected" and r == "near_duplicate" and "MinHash" in d
               for s, r, d in twin), twin


def test_recheck_finds_a_tampered_program(store: Store) -> None:
    run_render(store, RenderSpec(forms=("DT",), kinds=("sft",)), decontaminator=None)
    rep = recheck_documents(store)
    assert rep.documents == len(FAMILIES) and rep.passed == rep.documents and rep.changed == 0
    did = store.query("SELECT id FROM documents ORDER BY id LIMIT 1").item()
    store.conn.execute("UPDATE documents SET program = replace(program, 'model.optimize()', "
                       "'model.optimize()' || chr(10) || 'raise SystemExit(3)') WHERE id = ?",
                       [did])
    rep = recheck_documents(store)
    assert rep.failed == {"sandbox": 1} and rep.changed == 1
    assert store.query("SELECT status, reject_reason FROM documents WHERE id = ?",
                       [did]).row(0) == ("rejected", "sandbox")


def test_recheck_finds_a_statement_that_no_longer_tells_a_rule(store: Store) -> None:
    run_render(store, RenderSpec(forms=("DP",), kinds=("sft",)), decontaminator=None)
    rows = store.query("SELECT d.id, d.statement, v.details FROM documents d JOIN verifications "
                       "v ON v.subject_id = d.id AND v.verifier = 'completeness' "
                       "WHERE v.status = 'pass' ORDER BY d.id").rows()
    # A rule sentence with no number in it: dropping it leaves fidelity whole.
    target = next((did, st, key, sentence) for did, st, det in rows
                  for key, sentence in json.loads(det).get("account", {}).items()
                  if key != "objective" and not any(ch.isdigit() for ch in sentence)
                  and sentence[1:] in st)
    did, statement, key, sentence = target
    store.conn.execute("UPDATE documents SET statement = ? WHERE id = ?",
                       [statement.replace(sentence[1:], "", 1), did])
    rep = recheck_documents(store)
    assert rep.failed == {"completeness": 1}, rep.failed
    status, reason, detail = store.query("SELECT status, reject_reason, reject_detail FROM "
                                         "documents WHERE id = ?", [did]).row(0)
    assert (status, reason) == ("rejected", "completeness") and repr(key) in detail


def test_bad_specs() -> None:
    with pytest.raises(JobError, match="unknown form"):
        RenderSpec(forms=("XX",))
    with pytest.raises(JobError, match="both"):
        RenderSpec(llm_base_url="http://127.0.0.1:1")
    with pytest.raises(JobError, match="threshold"):
        RenderSpec(near_duplicate=0)
    with pytest.raises(JobError, match="unknown kind 'pdf'"):
        RenderSpec.parse("cpt,pdf", ("cpt", "sft"), "kind")


class _LLM(BaseHTTPRequestHandler):
    """An OpenAI-compatible endpoint: rewords faithfully, except that it alters numbers in
    every second request and fails the first request with a 503."""

    calls: ClassVar[list[str]] = []

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        _LLM.calls.append(self.path)
        if len(_LLM.calls) == 1:
            self.send_response(503)
            self.end_headers()
            return
        text = body["messages"][-1]["content"]
        if len(_LLM.calls) % 2 == 0:
            text = "Please read carefully.\n\n" + text
        else:
            text = text.replace("1", "7")  # a paraphrase that alters data
        reply = {"choices": [{"message": {"role": "assistant", "content": text}}]}
        data = json.dumps(reply).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


def test_llm_paraphrase_is_checked_and_cached(store: Store, tmp_path: Path) -> None:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _LLM)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    try:
        spec = RenderSpec(forms=("DP",), kinds=("sft",), llm_base_url=url, llm_model="m",
                          llm_cache=str(tmp_path / "cache"))
        run_render(store, spec, decontaminator=None)
        calls = len(_LLM.calls)
        rows = store.query("SELECT kind, template, status, reject_reason FROM documents").rows()
        llm_docs = [r for r in rows if r[0] == "sft" and r[1].endswith("+llm")]
        rejected = [r for r in rows if r[0] == "paraphrase"]
        assert llm_docs and all(r[2] == "accepted" for r in llm_docs)
        assert rejected and all(r[2:] == ("rejected", "fidelity") for r in rejected)
        assert len(llm_docs) + len(rejected) == len(FAMILIES)
        assert calls == len(FAMILIES) + 1  # one retry after the 503
        # The same requests again come from the disk cache.
        store.conn.execute("DELETE FROM run_tasks")
        run_render(store, spec, decontaminator=None)
        assert len(_LLM.calls) == calls
    finally:
        server.shutdown()
