"""Jobs on a real local Ray (``ray.init(num_cpus=2)``): the same store contents as the local
executor for the same seed, and hostile programs still contained inside Ray workers."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import ortrex
from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.generate.evolve import MutateSpec, run_mutate
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.jobs import LocalExecutor, make_executor
from ortrex.store import Store
from tests.jobs.workers import sandboxed
from tests.verifiers.hostile import marker, unix_listener, wait_until_gone

PACKAGE = str(Path(ortrex.__file__).parent)  # ortrex's own code is not reachable from inside
pytestmark = pytest.mark.xdist_group("ray")  # one Ray at a time on a 2-core machine


@pytest.fixture(scope="module")
def ray_ex() -> Iterator[Any]:
    os.environ["RAY_AUTH_MODE"] = "disabled"
    ray = pytest.importorskip("ray")
    ex = make_executor(2, "ray")
    try:
        yield ex
    finally:
        ex.close()
        assert not ray.is_initialized()


FAMILIES = ("knapsack_01", "transportation", "tsp_mtz", "set_cover", "lot_sizing")

# The rows that say what a job made (times and measured runtimes differ from run to run).
CONTENT = {
    "instances": "id, status, reject_reason, objective, structural_fp, semantic_id",
    "semantic_models": "id, model",
    "documents": "id, status, reject_reason, text, program, statement",
    "lineage": "id, parent_id, child_id, relation, operator, params",
    "run_tasks": "id, task, family, instance_id, semantic_id, outcome, reason",
    "verifications": "id, subject_id, verifier, status, objective",
    "task_failures": "id",
}


def _jobs(db: Path, ex: Any) -> dict[str, list[tuple[Any, ...]]]:
    with Store(db, create=True) as s:
        run_job(s, JobSpec(FAMILIES, 15, seed=11, size="small"), executor=ex)
        run_render(s, RenderSpec(forms=("DP", "DT"), kinds=("sft",), seed=2), executor=ex,
                   decontaminator=False)
        run_mutate(s, MutateSpec(("scale_data", "rename_entities", "add_constraint"),
                                 "family IN ('knapsack_01', 'transportation')", per_parent=1,
                                 seed=4), executor=ex)
        return {t: s.query(f"SELECT {cols} FROM {t} ORDER BY ALL").rows()
                for t, cols in CONTENT.items()}


def test_every_job_makes_the_same_store_on_ray_as_on_local_processes(
        tmp_path: Path, ray_ex: Any) -> None:
    local = LocalExecutor(2)
    try:
        a = _jobs(tmp_path / "local.duckdb", local)
    finally:
        local.close()
    b = _jobs(tmp_path / "ray.duckdb", ray_ex)
    assert len(a["instances"]) >= 15 and len(a["documents"]) >= 30
    assert any(r[3] == "mutated" for r in a["lineage"])
    for table in CONTENT:
        assert a[table] == b[table], table


def test_hostile_programs_stay_contained_inside_ray_workers(tmp_path: Path,
                                                            ray_ex: Any) -> None:
    outside = tmp_path / "written-from-the-sandbox"
    mark = marker()
    with unix_listener(tmp_path) as host:
        programs = [
            # A pathname Unix socket on the host (root on the other side).
            f"import socket\ntry:\n    s = socket.socket(socket.AF_UNIX)\n"
            f"    s.connect({host.path!r}); print('CONNECTED')\n"
            f"except OSError as e:\n    print('refused', e.errno)\n",
            # A write outside the run's directory.
            f"try:\n    open({str(outside)!r}, 'w').write('x'); print('WROTE')\n"
            f"except OSError as e:\n    print('refused', e.errno)\n",
            # A reader of the host: the store, the repository, the environment.
            "import os\nprint(sorted(os.environ))\n"
            f"print(os.path.exists({str(tmp_path)!r}), os.path.exists({PACKAGE!r}))\n",
            # A child that leaves its session to outlive the run.
            f"import os, time\nif os.fork() == 0:\n    os.setsid()\n"
            f"    os.execvp('sleep', ['sleep', '60', {mark!r}])\nprint('parent done')\n",
        ]
        results = list(ray_ex.map(sandboxed, programs))
        hits = host.hits
    assert hits == 0
    sock, write, reader, escapee = results
    assert "CONNECTED" not in sock[1] and "refused" in sock[1], sock
    assert not outside.exists() and "WROTE" not in write[1], write
    assert reader[0] == "ok" and "False False" in reader[1], reader
    assert "ORTREX" not in reader[1] and "KEY" not in reader[1], reader
    assert escapee[0] == "ok", escapee
    assert wait_until_gone(mark.encode()) == []  # the setsid child died with its run
    # The next honest program in the same workers is still correct.
    ok = list(ray_ex.map(sandboxed, ["print(6 * 7)"] * 2))
    assert all(r[0] == "ok" and r[1].strip() == "42" for r in ok), ok


@pytest.mark.usefixtures("shared_benchmarks")
def test_eval_scored_on_ray_equals_local_and_cheats_still_score_zero(tmp_path: Path,
                                                                     ray_ex: Any) -> None:
    from ortrex.benchmarks.registry import load
    from ortrex.evaluation.results import read_results
    from ortrex.evaluation.runner import EvalSpec, run_eval
    from ortrex.served.client import Sampling
    from tests.evaluation.openai_server import (
        CHEATS,
        GROUNDING_CHEATS,
        Server,
        State,
        oracle_answers,
    )

    bench = load("nl4opt")
    state = State({})
    with Server(state) as srv:
        state.set_answers(oracle_answers([bench]))
        rows = {}
        for name, ex in (("local", None), ("ray", ray_ex)):
            spec = EvalSpec(("nl4opt",), srv.url, Sampling("oracle"), tmp_path / name, 24)
            _, summary = run_eval(spec, executor=ex)
            # honest programs pass, memorised answers do not: the same on both executors
            assert summary["benchmarks"]["nl4opt"]["pass@1"] > 0, (name, summary)
            rows[name] = sorted((r["id"], r["passed"], r["objective"], r["failure"])
                                for r in read_results(tmp_path / name / "nl4opt.jsonl"))
        assert rows["local"] == rows["ray"]
        state.set_cheats([bench])  # answers read from disk, forged models, lying ObjVal...
        for cheat in CHEATS:
            if cheat == "copy-reference" or cheat in GROUNDING_CHEATS:  # ORGEval's; the
                # grounding cheats run on items whose answer is hidden (test_hostile_cli)
                continue
            spec = EvalSpec(("nl4opt",), srv.url, Sampling(f"cheat-{cheat}"),
                            tmp_path / cheat, 6)
            _, summary = run_eval(spec, executor=ray_ex)
            assert summary["benchmarks"]["nl4opt"]["pass@1"] == 0.0, (cheat, summary)
