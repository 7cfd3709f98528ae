"""Bad input to `ortrex train`: one line naming what is wrong, exit 2, nothing written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ortrex.cli import main
from tests.trainers.conftest import TINY, train_args


def _copy_export(src: Path, dst: Path) -> None:
    for f in src.parent.glob(f"{src.name}*"):
        shutil.copyfile(f, dst / f.name)


def _fails(args: list[str], message: str, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(args)
    err = capsys.readouterr().err
    assert rc == 2, err
    assert err.startswith("error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1, err


def test_train_bad_input(corpus: dict[str, Path], tmp_path: Path,
                         capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "run"
    data = tmp_path / "data"
    data.mkdir()
    _copy_export(corpus["cpt"].parent / "cpt", data)
    (data / "cpt_text_document.bin").unlink()
    small = tmp_path / "small.json"
    small.write_text(json.dumps({**TINY, "vocab_size": 1000}))
    yaml = tmp_path / "train.yaml"
    yaml.write_text("stage: cpt\nlearning_rate: 0.1\n")
    base = train_args(corpus, out)
    cases = [
        (["--data", str(data / "cpt_text_document")], "cpt_text_document.bin: missing"),
        (["--data", str(tmp_path / "nothing")], "nothing: no dataset here"),
        (["--model", str(small)], "does not fit the model's vocabulary of 1,000"),
        (["--data", str(corpus["sft"])], "an SFT export"),
        (["--stage", "sft"], "a CPT dataset (one token stream, no labels); train it with "
         "--stage cpt"),
        (["--stage", "sft", "--data", str(corpus["sft"]), "--seq-length", "16"],
         "do not fit --seq-length 16"),
        (["--data", f"0.5 {corpus['cpt']} x {corpus['general']}"], "no dataset here"),
        (["--config", str(yaml)], "train.yaml: unknown field 'learning_rate'"),
        (["--global-batch-size", "3", "--micro-batch-size", "2"], "not a multiple of "
         "--micro-batch-size 2"),
        (["--kernels", "fast"], "--kernels must be one of"),
        (["--model", str(tmp_path / "nowhere.json")], "nowhere.json: not a preset"),
    ]
    for extra, message in cases:
        _fails(base + extra, message, capsys)
    assert not out.exists()


def test_held_out_export_is_the_split_and_only_it(corpus: dict[str, Path], tmp_path: Path,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from ortrex.store import Store
    from ortrex.trainers.sources import inspect

    with Store(corpus["db"], read_only=True) as store:
        held = store.query("SELECT count(*) FROM documents d JOIN lineage l ON l.parent_id = "
                           "d.id AND l.relation = 'held_out' WHERE d.kind = 'sft' AND "
                           "d.status = 'accepted'").item()
        total = store.query("SELECT count(*) FROM documents WHERE kind = 'sft' AND "
                            "status = 'accepted'").item()
    assert 0 < held < total
    assert inspect(str(corpus["heldout"])).sequences == held
    assert inspect(str(corpus["sft"])).sequences == total - held
    _fails(["export", "sft", "--output-prefix", str(tmp_path / "x"), "--input",
            str(corpus["general_sft_jsonl"]), "--held-out"], "--held-out selects the store's "
           "held-out split: give --from-db", capsys)
    assert not list(tmp_path.iterdir())
