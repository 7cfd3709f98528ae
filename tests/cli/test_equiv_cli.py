"""``ortrex equiv``: one pair with exit codes, and batches of pairs from a JSONL file."""

from __future__ import annotations

import json
from pathlib import Path

from ortrex.ir import transforms as tf
from ortrex.ir.formats import write_model
from ortrex.verifiers.equivalence.pairs import read_pairs, run_pairs
from ortrex.verifiers.equivalence.suite import assignment, disguise, random_milp
from tests.conftest import run_cli


def write_models(d: Path) -> dict[str, Path]:
    d.mkdir(parents=True, exist_ok=True)
    m = random_milp(300, seed=1)
    files = {
        "a": (m, "a.lp"),
        "same": (disguise(m, 2), "same.mps"),
        "other": (tf.change_coefficient(m, 5, rel=1e-3), "other.json"),
        "sym": (assignment(12), "sym.lp"),
        "sym2": (disguise(assignment(12), 3), "sym2.lp"),
    }
    out = {}
    for key, (model, name) in files.items():
        write_model(model, d / name)
        out[key] = d / name
    (d / "broken.lp").write_text("Minimize\n obj: 2 x +\nSubject To\n c1: x >= 1\nEnd\n")
    out["broken"] = d / "broken.lp"
    return out


def test_one_pair_exit_codes_and_json(tmp_path: Path) -> None:
    f = write_models(tmp_path)
    r = run_cli("equiv", str(f["a"]), str(f["same"]))
    assert r.returncode == 0, r.stderr
    assert "equivalent" in r.stdout and "certificate" in r.stdout

    r = run_cli("equiv", str(f["a"]), str(f["same"]), "--json")
    assert r.returncode == 0
    d = json.loads(r.stdout)
    assert d["verdict"] == "equivalent" and len(d["certificate"]["variables"]) == 30
    assert {row["a"] for row in d["certificate"]["rows"]} == {f"r{i}" for i in range(30)}

    r = run_cli("equiv", str(f["a"]), str(f["other"]), "--json")
    assert r.returncode == 1
    d = json.loads(r.stdout)
    assert d["verdict"] == "not_equivalent" and "differ" in d["reason"]

    r = run_cli("equiv", str(f["sym"]), str(f["sym2"]), "--time-limit", "0.000001")
    assert r.returncode == 3, r.stdout + r.stderr
    assert "undecided" in r.stdout


def test_one_pair_bad_input(tmp_path: Path) -> None:
    f = write_models(tmp_path)
    for args, needle in (
        ((str(f["a"]), str(f["broken"])), "broken.lp:2"),
        ((str(f["a"]), str(tmp_path / "missing.lp")), "missing.lp"),
        ((str(f["a"]),), "give two model files"),
        ((str(f["a"]), str(f["same"]), "--pairs", str(f["a"])), "not both"),
    ):
        r = run_cli("equiv", *args)
        assert r.returncode == 2, (args, r.stderr)
        lines = r.stderr.strip().splitlines()
        assert len(lines) == 1 and needle in lines[0], r.stderr
        assert "Traceback" not in r.stderr


def test_pairs_in_order_with_errors_and_pass_through(tmp_path: Path) -> None:
    f = write_models(tmp_path / "models")
    lines = [
        {"a": "models/a.lp", "b": "models/same.mps", "id": 1, "label": "eq"},
        {"a": "models/a.lp", "b": "models/other.json", "id": 2},
        "this is not json",
        {"a": "models/a.lp", "b": "models/missing.lp", "id": 4},
        {"a": "models/broken.lp", "b": "models/a.lp", "id": 5},
        {"a": "models/a.lp", "id": 6},
        {"a": str(f["sym"]), "b": "models/sym2.lp", "id": 7},
    ] + [{"a": "models/same.mps", "b": "models/a.lp", "id": 8 + k} for k in range(20)]
    pairs = tmp_path / "pairs.jsonl"
    pairs.write_text("\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n")
    out = tmp_path / "out" / "results.jsonl"
    r = run_cli("equiv", "--pairs", str(pairs), "--workers", "2", "--output", str(out))
    assert r.returncode == 0, r.stderr
    assert "pairs/s" in r.stderr and "equivalent" in r.stderr
    recs = [json.loads(x) for x in out.read_text().splitlines()]
    assert [rec["line"] for rec in recs] == list(range(1, len(lines) + 1))
    assert recs[0]["verdict"] == "equivalent" and recs[0]["label"] == "eq" and recs[0]["id"] == 1
    assert recs[1]["verdict"] == "not_equivalent"
    assert recs[2]["verdict"] == "error" and "not valid JSON" in recs[2]["reason"]
    assert recs[3]["verdict"] == "error" and "missing.lp" in recs[3]["reason"]
    assert recs[4]["verdict"] == "error" and "broken.lp:2" in recs[4]["reason"]
    assert recs[5]["verdict"] == "error" and "'b'" in recs[5]["reason"]
    assert recs[6]["verdict"] == "equivalent"
    assert all(rec["verdict"] == "equivalent" for rec in recs[7:])
    assert "certificate" not in recs[0]
    assert not [p for p in out.parent.iterdir() if p.name != out.name]  # no temp left behind

    # Streamed to stdout, with certificates on request.
    r = run_cli("equiv", "--pairs", str(pairs), "--workers", "1", "--certificate")
    recs2 = [json.loads(x) for x in r.stdout.splitlines()]
    assert [x["verdict"] for x in recs2] == [x["verdict"] for x in recs]
    assert recs2[0]["certificate"]["variables"]


def test_pairs_file_that_cannot_be_read(tmp_path: Path) -> None:
    r = run_cli("equiv", "--pairs", str(tmp_path / "nope.jsonl"))
    assert r.returncode == 2 and "nope.jsonl" in r.stderr and "Traceback" not in r.stderr


def test_run_pairs_uses_a_few_long_lived_workers(tmp_path: Path) -> None:
    """Many pairs, two worker processes: no process start per pair, and inline for one."""
    import os

    write_models(tmp_path / "models")
    pairs = tmp_path / "p.jsonl"
    pairs.write_text("".join(json.dumps({"a": "models/a.lp", "b": "models/same.mps", "k": k})
                             + "\n" for k in range(64)))
    seen: list[dict[str, object]] = []
    report = run_pairs(read_pairs(pairs), seen.append, workers=2)
    assert report.verdicts == {"equivalent": 64}
    assert [r["k"] for r in seen] == list(range(64))
    assert 1 <= len(report.worker_pids) <= 2 and os.getpid() not in report.worker_pids
    inline = run_pairs(read_pairs(pairs), lambda r: None, workers=1)
    assert inline.worker_pids == {os.getpid()}


def test_references_far_apart_are_read_once(tmp_path: Path) -> None:
    """An evaluation's order: every problem's sample 1, then every sample 2, ... Each of 80
    references recurs 160 files later; all 80 + 240 files are parsed once (a cache of the 64
    most recent models parsed the references again at every sample)."""
    from ortrex.verifiers.equivalence import pairs as pairs_mod

    refs = [random_milp(6, seed=k) for k in range(80)]
    lines = []
    for sample in range(3):
        for k, ref in enumerate(refs):
            write_model(ref, tmp_path / f"ref{k}.lp")
            write_model(disguise(ref, sample), tmp_path / f"s{sample}_{k}.lp")
            lines.append(json.dumps({"a": f"ref{k}.lp", "b": f"s{sample}_{k}.lp"}))
    path = tmp_path / "pairs.jsonl"
    path.write_text("\n".join(lines) + "\n")
    before = pairs_mod._cache.reads
    seen: list[dict[str, object]] = []
    report = run_pairs(read_pairs(path), seen.append, workers=1)
    assert report.verdicts == {"equivalent": 240}
    assert pairs_mod._cache.reads - before == 80 + 240


def test_model_cache_stays_within_its_budget(tmp_path: Path) -> None:
    """Past the budget (variables + rows + coefficients) the least recently used model goes."""
    from ortrex.verifiers.equivalence.pairs import ModelCache

    paths = []
    for k in range(6):  # five files of one model (one size), then another model
        p = tmp_path / f"m{k}.lp"
        write_model(random_milp(10 if k < 5 else 14, seed=0 if k < 5 else 9), p)
        paths.append(str(p))
    one = ModelCache().get(paths[0])
    weight = one.num_vars + one.num_rows + one.nnz
    cache = ModelCache(budget=3 * weight)
    for p in paths[:3] + paths[:3]:
        cache.get(p)
    assert cache.reads == 3  # all three fit: read once each
    cache.get(paths[3])  # the least recently used (m0) leaves
    assert cache.size <= cache.budget
    cache.get(paths[1])
    assert cache.reads == 4
    cache.get(paths[0])
    assert cache.reads == 5
    (tmp_path / "m1.lp").write_text((tmp_path / "m5.lp").read_text())  # a changed file is
    assert cache.get(paths[1]).num_vars == ModelCache().get(paths[5]).num_vars  # read again
    assert cache.reads == 6
    # The new model took the old one's place: the size counts each kept model once.
    assert cache.size == sum(w for _, _, w in cache._models.values()) <= cache.budget


def test_model_cache_keeps_at_most_its_count(tmp_path: Path) -> None:
    from ortrex.verifiers.equivalence.pairs import ModelCache

    paths = []
    for k in range(4):
        p = tmp_path / f"m{k}.lp"
        write_model(random_milp(5, seed=k), p)
        paths.append(str(p))
    cache = ModelCache(models=2)
    for p in paths + paths[2:]:
        cache.get(p)
    assert cache.reads == 4 and len(cache._models) == 2
