"""Batch jobs: determinism, resume, duplicates, lineage."""

from __future__ import annotations

import dataclasses
import subprocess
import sys
from pathlib import Path

import pytest

from ortrex.engine.generate.job import (
    GenerateWriter,
    JobError,
    JobSpec,
    make_executor,
    run_job,
    to_record,
)
from ortrex.engine.generate.pipeline import run_task
from ortrex.store import Store
from ortrex.store.records import load_instance, unpack_solution
from ortrex.verifiers.solution import check_solution

FAMILIES = ("transportation", "knapsack_01", "lot_sizing", "portfolio", "tsp_mtz")


def tasks_of(store: Store, run_id: str) -> list[tuple]:  # type: ignore[type-arg]
    return store.query("SELECT task, family, instance_id, outcome, reason FROM run_tasks "
                       "WHERE run_id = ? ORDER BY task", [run_id]).rows()


def test_same_seed_same_corpus_whatever_the_workers(tmp_path: Path) -> None:
    spec = JobSpec(FAMILIES, 30, seed=5)
    got = []
    for workers in (1, 2):
        with Store(tmp_path / f"w{workers}.duckdb", create=True) as s:
            report = run_job(s, spec, workers=workers)
            assert report.accepted == 30 and report.complete
            got.append((tasks_of(s, spec.run_id),
                        s.query("SELECT id FROM instances ORDER BY id")["id"].to_list()))
    assert got[0] == got[1]
    other = JobSpec(FAMILIES, 30, seed=6)
    with Store(tmp_path / "other.duckdb", create=True) as s:
        run_job(s, other)
        assert s.query("SELECT id FROM instances ORDER BY id")["id"].to_list() != got[0][1]


def test_interrupted_job_resumes_to_the_same_result(tmp_path: Path) -> None:
    spec = JobSpec(FAMILIES, 40, seed=3)
    with Store(tmp_path / "full.duckdb", create=True) as s:
        run_job(s, spec, batch=8)
        expected = tasks_of(s, spec.run_id)

    class Crash(Exception):
        pass

    def crash_after_20(record, ok, reason, report):  # type: ignore[no-untyped-def]
        if report.tasks == 20:
            raise Crash

    with Store(tmp_path / "broken.duckdb", create=True) as s:
        with pytest.raises(Crash):
            run_job(s, spec, batch=8, on_result=crash_after_20)
        done = tasks_of(s, spec.run_id)
        assert len(done) == 16  # two whole batches committed, the third lost with the crash
        with pytest.raises(JobError, match="pass --resume"):
            run_job(s, spec)
        report = run_job(s, spec, resume=True, batch=8)
        assert report.resumed_from == 16 and report.accepted == 40
        assert tasks_of(s, spec.run_id) == expected
        # A finished job run again changes nothing.
        before = s.counts()
        assert run_job(s, spec).accepted == 40 and s.counts() == before


def test_duplicates_are_rejected_and_recorded(tmp_path: Path) -> None:
    spec = JobSpec(("knapsack_01",), 5)
    rec = to_record(run_task("knapsack_01", "small", 0, 0, 10.0))
    twin = dataclasses.replace(rec, task=1, instance_id="f" * 64,
                               instance={**rec.instance, "id": "f" * 64})
    with Store(tmp_path / "d.duckdb", create=True) as s:
        from ortrex.engine.generate.job import JobReport

        w = GenerateWriter(s, spec, JobReport(spec.run_id))
        assert w.record(rec) == (True, None)
        assert w.record(twin) == (False, "duplicate")
        w.flush()
        row = s.query("SELECT status, reject_reason, duplicate_of FROM instances WHERE id = ?",
                      ["f" * 64]).row(0)
        assert row == ("rejected", "duplicate", rec.instance_id)
        # Reopening the writer remembers the accepted fingerprints from the store.
        w2 = GenerateWriter(s, spec, JobReport(spec.run_id))
        assert w2.record(dataclasses.replace(twin, task=2))[1] == "duplicate"


def test_fingerprint_collisions_are_confirmed_by_the_equivalence_checker(tmp_path: Path) -> None:
    """A 6-cycle and two triangles share a WL fingerprint but are different models."""
    from ortrex.engine.generate.job import JobReport
    from ortrex.store.records import instance_row
    from ortrex.verifiers.equivalence.suite import (
        SIX_CYCLE,
        TWO_TRIANGLES,
        disguise,
        vertex_cover,
    )

    cycle, triangles = vertex_cover(SIX_CYCLE, 6), vertex_cover(TWO_TRIANGLES, 6)
    assert cycle.structural_fingerprint == triangles.structural_fingerprint
    spec = JobSpec(("knapsack_01",), 5)
    rec = to_record(run_task("knapsack_01", "small", 0, 0, 10.0))

    def record(model: object, task: int) -> object:
        row = instance_row(model)  # type: ignore[arg-type]
        return dataclasses.replace(rec, task=task, instance_id=row["id"],
                                   structural_fp=row["structural_fp"],
                                   instance={**rec.instance, **row, "status": None})

    with Store(tmp_path / "c.duckdb", create=True) as s:
        rep = JobReport(spec.run_id)
        w = GenerateWriter(s, spec, rep)
        assert w.record(record(cycle, 0)) == (True, None)
        assert w.record(record(triangles, 1)) == (True, None)
        assert w.collisions == 1
        w.flush()
        # After the flush the accepted models come from the store.
        w2 = GenerateWriter(s, spec, rep)
        assert w2.record(record(disguise(triangles, 3), 2)) == (False, "duplicate")
        assert w2.record(record(disguise(cycle, 4), 3)) == (False, "duplicate")
        w2.flush()
        rows = s.query("SELECT duplicate_of, reject_detail FROM instances "
                       "WHERE reject_reason = 'duplicate' ORDER BY duplicate_of").rows()
        assert sorted(d for d, _ in rows) == sorted([cycle.content_hash, triangles.content_hash])
        assert all("certificate checked" in detail for _, detail in rows)


def test_rows_lineage_and_stored_solutions(tmp_path: Path) -> None:
    spec = JobSpec(FAMILIES, 10, seed=1)
    with Store(tmp_path / "l.duckdb", create=True) as s:
        run_job(s, spec)
        rels = dict(s.query("SELECT relation, count(*) FROM lineage GROUP BY ALL").rows())
        assert rels == {"sampled": 10, "grounded": 10, "generated": 10}
        ver = s.query("SELECT subject_id, verifier, status, objective, solution, solver_version "
                      "FROM verifications")
        assert ver.height == 20 and set(ver["verifier"]) == {"highs", "gurobi"}
        for iid, verifier, status, obj, blob, version in ver.rows():
            x = unpack_solution(blob)
            chk = check_solution(load_instance(s, iid), x)
            assert status == "optimal" and chk.ok and version
            assert abs(chk.objective - obj) <= 1e-6 * max(1, abs(obj)), verifier
        inst = s.query("SELECT status, difficulty, difficulty_band, objective, semantic_id, domain "
                       "FROM instances")
        assert set(inst["status"]) == {"accepted"}
        assert inst["semantic_id"].null_count() == 0 and inst["difficulty"].min() > 0
        sem = s.query("SELECT count(*) FROM semantic_models").item()
        assert sem == 10


def test_bad_specs() -> None:
    with pytest.raises(JobError, match="unknown family 'nope'; known: assignment"):
        JobSpec(("nope",), 5)
    # A typo gets its closest name.
    with pytest.raises(JobError, match=r"'knapsak_01' \(did you mean 'knapsack_01'\?\)"):
        JobSpec(("knapsak_01",), 5)
    with pytest.raises(JobError, match="--count must be positive"):
        JobSpec(FAMILIES, 0)
    with pytest.raises(JobError, match="unknown size"):
        JobSpec(FAMILIES, 3, size="huge")
    with pytest.raises(JobError, match="--workers must be between"):
        make_executor(100_000)
    assert JobSpec.parse_families("knapsack_01, tsp_mtz,knapsack_01") == ("knapsack_01",
                                                                          "tsp_mtz")


def test_stopping_early_never_hangs_the_interpreter_exit(tmp_path: Path) -> None:
    """A job that stops while workers are writing large results must still exit (terminating
    a worker mid-write used to leave the pool's manager thread waiting forever)."""
    script = tmp_path / "early.py"
    script.write_text(
        "from ortrex.engine.generate.job import LocalExecutor\n\n"
        "def big(k):\n    return b'x' * (40 << 20)\n\n"
        "if __name__ == '__main__':\n"
        "    ex = LocalExecutor(2, max_chunk=1)\n"
        "    for _ in ex.map(big, range(100)):\n        break\n"
        "    ex.close()\n")
    for _ in range(3):
        r = subprocess.run([sys.executable, str(script)], capture_output=True, timeout=60)
        assert r.returncode == 0, r.stderr
