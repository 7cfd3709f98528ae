"""`ortrex train recipe`: CPT, SFT stage I (code-only targets), SFT stage II (Clean-CoT with
general instructions mixed in) and the matched comparison from the base model, on tiny data;
one selection table per stage on held-out OR and general losses and an eval score served
from each checkpoint by a real HTTP server."""

from __future__ import annotations

import json
import shlex
import socket
import sys
from pathlib import Path

import pytest

from ortrex.cli import main


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_recipe_runs_its_stages_and_selects(corpus: dict[str, Path], store: Path,
                                            tmp_path: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    server = Path(__file__).with_name("hf_server.py")
    serve = f"{shlex.quote(sys.executable)} {shlex.quote(str(server))} {{model_dir}} {{port}} " \
            "{name}"
    recipe = {
        "output": "out", "model": str(corpus["model"]), "kernels": "eager",
        "train": {"seq_length": 128, "micro_batch_size": 1, "global_batch_size": 2,
                  "eval_samples": 1, "data_workers": 0, "save_interval": 1},
        "data": {"cpt": {"prefix": str(corpus["cpt"])},
                 "sft_code": {"from_db": "style = 'code_only'"},
                 "sft_cot": {"from_db": "style <> 'code_only'"},
                 "sft_general": {"prefix": str(corpus["general_sft"])},
                 "general_share": 0.12},
        "valid": {"or": {"heldout": True}, "general": {"prefix": str(corpus["general"])}},
        "export": {"seq_length": 128, "long": "keep"},  # a toy length: cut, not dropped
        "stages": {"cpt": {"train_iters": 2, "lr": 5.0e-3, "seq_length": 64},
                   "sft1": {"train_iters": 1},
                   "sft2": {"train_iters": 1}},
        "compare": True,
        "eval": {"serve": serve, "port": _free_port(), "benchmarks": "ortrex-heldout",
                 "limit": 1, "max_tokens": 16, "stages": ["sft2"], "startup_timeout": 300},
    }
    path = tmp_path / "recipe.yaml"
    path.write_text(json.dumps(recipe))  # YAML is a superset of JSON
    assert main(["train", "recipe", str(path), "--db", str(store)]) == 0
    out = capsys.readouterr().out
    for title in ("cpt: cpt on cpt_text_document", "sft1: sft on sft_code",
                  "sft2: sft on sft_cot + general_sft", "base-sft1: sft on sft_code",
                  "base-sft2: sft on sft_cot + general_sft", "matched comparison"):
        assert title in out, title
    assert out.count("<- selected") == 5
    assert "loss or" in out and "loss general" in out and "held-out loss or" in out
    assert "eval pass@1" in out and "CPT effect" in out
    report = json.loads((tmp_path / "out" / "selection.json").read_text())
    stages = report["stages"]
    assert list(stages) == ["cpt", "sft1", "sft2", "base-sft1", "base-sft2"]
    cpt = stages["cpt"]["candidates"]
    assert [c["step"] for c in cpt] == [1, 2] and sum(c["selected"] for c in cpt) == 1
    assert all(set(c["losses"]) == {"or", "general"} for c in cpt)
    # Each stage starts from the checkpoint selected in the one before.
    sft1 = json.loads((tmp_path / "out" / "sft1" / "checkpoints" / "step_0000001" /
                       "trainer.json").read_text())["identity"]
    assert sft1["model"] == stages["cpt"]["selected"] and sft1["lr"] == 5.0e-7
    sft2 = json.loads((tmp_path / "out" / "sft2" / "checkpoints" / "step_0000001" /
                       "trainer.json").read_text())["identity"]
    assert sft2["data"].split()[0::2] == ["0.88", "0.12"] and sft2["lr"] == 1.0e-6
    base = json.loads((tmp_path / "out" / "base-sft1" / "checkpoints" / "step_0000001" /
                       "trainer.json").read_text())["identity"]
    assert base["model"] == str(corpus["model"]) and base["data"] == sft1["data"]
    scores = {s: [c["score"] for c in stages[s]["candidates"]] for s in stages}
    # Scored where the recipe asks (six greedy tokens of a tiny model solve nothing).
    assert scores == {"cpt": [None, None], "sft1": [None], "sft2": [0.0], "base-sft1": [None],
                      "base-sft2": [None]}
    assert (tmp_path / "out" / "sft2" / "eval" / "step_0000001" / "ortrex-heldout.jsonl"
            ).is_file()
    # A rerun finds every stage done and every score cached: the same selection, nothing
    # trained again.
    logs = {p: p.stat().st_mtime_ns for p in (tmp_path / "out").glob("*/log.jsonl")}
    assert main(["train", "recipe", str(path), "--db", str(store)]) == 0
    assert logs == {p: p.stat().st_mtime_ns for p in (tmp_path / "out").glob("*/log.jsonl")}
    again = json.loads((tmp_path / "out" / "selection.json").read_text())
    assert [s["selected"] for s in again["stages"].values()] == \
        [s["selected"] for s in stages.values()]
