"""`ortrex launch`: valid MindSpeed-LLM and Megatron-LM scripts for a DeepSeek-V4-Flash-shaped
configuration (run through bash with a stand-in torchrun, since no cluster exists here), and
every invalid size refused with one line, exit 2 and no script."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ortrex.cli import main

V4_FLASH = ["--model-size", "v4-flash", "--nodes", "8", "--devices-per-node", "16",
            "--parallel", "tp=1,pp=4,ep=32,cp=1", "--noop-layers", "1"]


def _manifest(prefix: Path) -> str:
    return f"{prefix}.manifest.json"


def _stand_in(tmp: Path) -> Path:
    """A bin folder whose `torchrun` records its arguments (no devices here) and whose
    `python` is this interpreter (the script calls `python -m ortrex`)."""
    bin_dir = tmp / "bin"
    bin_dir.mkdir()
    (bin_dir / "torchrun").write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@" > '
                                      f'{shlex.quote(str(tmp / "torchrun.args"))}\n')
    (bin_dir / "torchrun").chmod(0o755)
    (bin_dir / "python").write_text(f'#!/bin/sh\nexec {shlex.quote(sys.executable)} "$@"\n')
    (bin_dir / "python").chmod(0o755)
    return bin_dir


def _run(script: Path, tmp: Path, **env: str) -> subprocess.CompletedProcess[str]:
    full = {k: v for k, v in os.environ.items() if k not in ("NODE_RANK", "ORTREX_DB")}
    full.update({"PATH": f"{_stand_in(tmp) if not (tmp / 'bin').exists() else tmp / 'bin'}"
                 f":{os.environ['PATH']}", "MASTER_ADDR": "10.0.0.1",
                 "MINDSPEED_LLM_DIR": str(tmp / "MindSpeed-LLM"),
                 "MEGATRON_LM_DIR": str(tmp / "Megatron-LM"), **env})
    return subprocess.run(["bash", str(script)], env=full, capture_output=True, text=True,
                          timeout=300, cwd=tmp)


def test_mindspeed_sft_script_runs_its_steps(corpus: dict[str, Path], tmp_path: Path,
                                             capsys: pytest.CaptureFixture[str]) -> None:
    from ortrex.export.indexmap import build_indexmap
    from ortrex.trainers.sources import inspect

    # The SFT export is copied: the script writes its index map beside the data.
    data = tmp_path / "data"
    data.mkdir()
    for f in corpus["sft"].parent.glob("sft*"):
        (data / f.name).write_bytes(f.read_bytes())
    script = tmp_path / "sft.sh"
    rc = main(["launch", "mindspeed", "--stage", "sft", "--manifest", _manifest(data / "sft"),
               *V4_FLASH, "--train-iters", "3", "--global-batch-size", "32",
               "--save", str(tmp_path / "ckpt"), "--output", str(script)])
    err = capsys.readouterr().err
    assert rc == 0, err
    assert "chat mode" in err  # the manifest says reasoning is not in the targets
    text = script.read_text()
    for flag in ("--swiglu-limit 10", "--moe-permute-fusion", "--noop-layers 43",
                 "--expert-model-parallel-size 32", "--pipeline-model-parallel-size 4",
                 "--is-instruction-dataset", "--prompt-type deepseek4", "--split 100,0,0",
                 "posttrain_gpt.py", "--use-fused-swiglu", "--use-fused-rmsnorm"):
        assert flag in text, flag
    for defect in ("--fix-router", "--ckpt-step", "torch.distributed.launch",
                   "--sequence-parallel", "--no-save-optim", "--no-save-rng"):
        assert defect not in text, defect
    r = _run(script, tmp_path, NODE_RANK="0")
    assert r.returncode == 0, r.stderr
    n = inspect(str(data / "sft")).sequences
    imap = data / "sft_train_indexmap_96ns_1234s_shuffle_decoder_packed_idx.npy"
    assert (imap.parent / (imap.name + ".ready")).is_file()
    assert np.array_equal(np.load(imap), build_indexmap(n, 96, 1234))
    args = (tmp_path / "torchrun.args").read_text().splitlines()
    assert args[args.index("--data-path") + 1] == str(data / "sft")  # no weight, no _packed_
    assert args[args.index("--num-layers") + 1] == "44"
    assert "--load" not in args  # a first start from scratch
    # A later node waits for the marker (already there); a restart resumes from --save.
    (tmp_path / "ckpt" / "latest_checkpointed_iteration.txt").write_text("2")
    r = _run(script, tmp_path, NODE_RANK="1")
    assert r.returncode == 0, r.stderr
    args = (tmp_path / "torchrun.args").read_text().splitlines()
    assert args[args.index("--load") + 1] == str(tmp_path / "ckpt")
    assert "--no-load-optim" not in args
    # A dataset file gone: the script stops before any device is touched.
    (data / "sft_packed_labels_document.bin").unlink()
    (tmp_path / "torchrun.args").unlink()
    r = _run(script, tmp_path, NODE_RANK="0")
    assert r.returncode == 2 and "sft_packed_labels_document.bin: missing" in r.stderr
    assert not (tmp_path / "torchrun.args").exists()


def test_cpt_scripts_for_both_engines(corpus: dict[str, Path], tmp_path: Path,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    ms, mg = tmp_path / "ms.sh", tmp_path / "mg.sh"
    assert main(["launch", "mindspeed", "--stage", "cpt", "--manifest",
                 _manifest(corpus["cpt"].parent / "cpt"), *V4_FLASH,
                 "--valid-manifest", _manifest(corpus["general"].parent / "general"),
                 "--hf-model", str(tmp_path / "hf"), "--output", str(ms)]) == 0
    text = ms.read_text()
    assert "pretrain_deepseek4.py" in text and "convert_ckpt_v2.py" in text
    assert "--train-data-path $DATA_PATH" in text and "--valid-data-path $VALID_PATH" in text
    assert "--compress-ratios 0 0 4 128" in text and "--data-cache-path" in text
    assert subprocess.run(["bash", "-n", str(ms)]).returncode == 0
    assert main(["launch", "megatron", "--stage", "cpt", "--manifest",
                 _manifest(corpus["cpt"].parent / "cpt"), "--model-size", "v4-flash",
                 "--nodes", "4", "--devices-per-node", "8",
                 "--parallel", "tp=2,pp=1,ep=16,cp=2", "--output", str(mg)]) == 0
    assert "MLA + MoE GPT" in capsys.readouterr().err
    text = mg.read_text()
    for flag in ("--activation-func-clamp-value 10", "--no-bias-swiglu-fusion",
                 "--moe-permute-fusion", "--sequence-parallel", "--context-parallel-size 2",
                 "--ckpt-format torch_dist", "--tokenizer-type HuggingFaceTokenizer"):
        assert flag in text, flag
    r = _run(mg, tmp_path, NODE_RANK="0")
    assert r.returncode == 0, r.stderr
    args = (tmp_path / "torchrun.args").read_text().splitlines()
    assert args[:2] == ["--nnodes", "4"]
    assert args[args.index("--data-path") + 1] == str(corpus["cpt"])
    # A mixture (`ortrex export mix`): its weighted data path, every source's files checked.
    from ortrex.export.mix import run_mix

    recipe = tmp_path / "mix.yaml"
    text_file = corpus["root"] / "general_cpt.jsonl"
    recipe.write_text(f"output: mix\nappend_eod: true\nsources:\n"
                      f"  - {{name: general, share: 0.3, input: {text_file}}}\n"
                      f"  - {{name: notes, share: 0.7, input: {text_file}}}\n")
    run_mix(recipe, None)
    mix = tmp_path / "mix.sh"
    assert main(["launch", "mindspeed", "--stage", "cpt", "--manifest",
                 str(tmp_path / "mix" / "mixture.json"), *V4_FLASH, "--output", str(mix)]) == 0
    r = _run(mix, tmp_path, NODE_RANK="0")
    assert r.returncode == 0, r.stderr
    args = (tmp_path / "torchrun.args").read_text().splitlines()
    got = args[args.index("--data-path") + 1:args.index("--split")]
    assert got == ["0.3", str(tmp_path / "mix" / "general_text_document"), "0.7",
                   str(tmp_path / "mix" / "notes_text_document")]


BAD = [
    (["--parallel", "tp=1,pp=4,ep=32"], "43 layers are not divisible by PP x VPP = 4 x 1 = 4; "
     "pad with --noop-layers 1"),
    (["--parallel", "tp=1,pp=2,vpp=2,ep=32", "--noop-layers", "3"],
     "46 layers (3 no-op) are not divisible by PP x VPP = 2 x 2 = 4"),
    (["--parallel", "tp=1,pp=1,vpp=2"], "VPP = 2 needs pipeline parallelism"),
    (["--parallel", "tp=1,pp=1,ep=48", "--nodes", "6"], "256 experts are not divisible by EP"),
    (["--parallel", "tp=3,pp=1", "--nodes", "6"], "64 attention heads are not divisible by TP "
     "= 3"),
    (["--parallel", "tp=1,pp=1,ep=32", "--global-batch-size", "100"],
     "global batch 100 is not divisible by DP x micro-batch = 128 x 1"),
    (["--parallel", "tp=1,pp=1,cp=2", "--seq-length", "4095"],
     "sequence length 4095 is not divisible by CP = 2"),
    (["--parallel", "tp=4,pp=1,cp=1", "--nodes", "1", "--devices-per-node", "6"],
     "world size 6 is not divisible by TP x PP x CP"),
    (["--parallel", "tp=1,pp=1,ep=256", "--nodes", "1"], "EP x ETP = 256 x 1 must divide"),
    (["--parallel", "tp=1,pp=1,cp=3", "--nodes", "6"], "Ulysses context parallelism splits "
     "heads"),
    (["--parallel", "tp=two"], "tp='two' is not a whole number"),
    (["--parallel", "xp=2"], "'xp=2' is not one of"),
]


@pytest.mark.parametrize(("extra", "message"), BAD, ids=[b[1][:30] for b in BAD])
def test_invalid_sizes_are_refused(corpus: dict[str, Path], tmp_path: Path, extra: list[str],
                                   message: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "x.sh"
    base = ["launch", "mindspeed", "--stage", "cpt", "--manifest",
            _manifest(corpus["cpt"].parent / "cpt"), "--model-size", "v4-flash",
            "--nodes", "8", "--devices-per-node", "16", "--output", str(out)]
    rc = main(base + extra)
    err = capsys.readouterr().err
    assert rc == 2 and err.startswith("error: ") and message in err, err
    assert len(err.strip().splitlines()) == 1
    assert not out.exists() and not list(tmp_path.iterdir())


def test_launch_bad_input(corpus: dict[str, Path], tmp_path: Path,
                          capsys: pytest.CaptureFixture[str]) -> None:
    cpt, sft = _manifest(corpus["cpt"].parent / "cpt"), _manifest(corpus["sft"])
    cases = [
        (["mindspeed", "--stage", "sft", "--manifest", cpt], "a cpt export; launch it with "
         "--stage cpt"),
        (["megatron", "--stage", "sft", "--manifest", sft], "Megatron-LM cannot read packed "
         "SFT datasets"),
        (["megatron", "--stage", "cpt", "--manifest", cpt, "--parallel", "pp=4",
          "--noop-layers", "1"], "--noop-layers is a MindSpeed-LLM feature"),
        (["mindspeed", "--stage", "cpt", "--manifest", str(tmp_path / "none.manifest.json")],
         "none.manifest.json: cannot read"),
        (["mindspeed", "--stage", "cpt", "--manifest", cpt, "--model-size", "v9-giant"],
         "--model-size v9-giant: not a preset"),
    ]
    for args, message in cases:
        rc = main(["launch", *args, "--output", str(tmp_path / "x.sh")])
        err = capsys.readouterr().err
        assert rc == 2 and message in err and len(err.strip().splitlines()) == 1, (args, err)
    assert not list(tmp_path.iterdir())
