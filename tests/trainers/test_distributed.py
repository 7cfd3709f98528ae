"""The same command on one process and under torchrun with two (FSDP2 over gloo) trains the
same model; a run killed with -9 and resumed equals an uninterrupted one; a checkpoint becomes
a Hugging Face model that transformers reloads and generates with."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch

from ortrex.cli import main
from tests.trainers.conftest import losses, read_log, train_args

pytestmark = pytest.mark.xdist_group("trainer-reference")
STEPS = 3


@pytest.fixture(scope="module")
def reference(corpus: dict[str, Path], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One process (this one, on one thread as the subprocesses): the run the others must
    equal."""
    out = tmp_path_factory.mktemp("ref") / "run"
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        assert main(train_args(corpus, out, steps=STEPS)) == 0
    finally:
        torch.set_num_threads(before)
    return out


def test_two_processes_equal_one(corpus: dict[str, Path], reference: Path,
                                 tmp_path: Path) -> None:
    out = tmp_path / "fsdp"
    env = {k: v for k, v in os.environ.items() if k != "ORTREX_DB"}
    env.update({"OMP_NUM_THREADS": "1", "COLUMNS": "120"})
    # Its own process group, so a hang is killed with every rank, not just the launcher.
    proc = subprocess.Popen([sys.executable, "-m", "torch.distributed.run", "--standalone",
                             "--nproc-per-node", "2", "-m", "ortrex",
                             *train_args(corpus, out, steps=STEPS)],
                            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        _, err = proc.communicate(timeout=600)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise
    assert proc.returncode == 0, err[-3000:]
    one, two = read_log(reference), read_log(out)
    assert len(losses(out)) == STEPS
    for a, b in zip(one, two, strict=True):
        assert a["step"] == b["step"]
        # Sharded gradients are reduced in another order: the norm moves in the 6th digit.
        for key, rel in (("loss", 1e-6), ("grad_norm", 1e-4)):
            if key in a:
                assert b[key] == pytest.approx(a[key], rel=rel), (key, a, b)
    # Two ranks wrote their shards; the checkpoint holds both.
    shards = sorted(p.name for p in (out / "checkpoints" / f"step_{STEPS:07d}").glob("*.distcp"))
    assert shards == ["__0_0.distcp", "__1_0.distcp"]


@pytest.mark.usefixtures("one_thread")
def test_kill_9_and_resume_equals_an_uninterrupted_run(
        corpus: dict[str, Path], reference: Path, tmp_path: Path,
        capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "killed"
    args = train_args(corpus, out, "--save-interval", "1", steps=STEPS)
    env = {k: v for k, v in os.environ.items() if k != "ORTREX_DB"}
    env["OMP_NUM_THREADS"] = "1"
    proc = subprocess.Popen([sys.executable, "-m", "ortrex", *args], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    target = out / "checkpoints" / "step_0000001"
    deadline = time.monotonic() + 400
    while not target.is_dir() and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed"
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    done = sorted(p.name for p in (out / "checkpoints").glob("step_*"))
    assert done and done[-1] < f"step_{STEPS:07d}", done  # killed mid-run
    # The same command without --resume refuses to overwrite the run.
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "--resume" in err and len(err.splitlines()) == 1
    assert main([*args, "--resume"]) == 0
    assert "resumed at" in capsys.readouterr().out
    assert losses(out) == losses(reference)  # bit for bit
    assert [x.get("grad_norm") for x in read_log(out)] == \
        [x.get("grad_norm") for x in read_log(reference)]


def test_corrupt_checkpoints(reference: Path, corpus: dict[str, Path], tmp_path: Path,
                             capsys: pytest.CaptureFixture[str]) -> None:
    run = tmp_path / "run"
    shutil.copytree(reference, run)
    step = run / "checkpoints" / f"step_{STEPS:07d}"
    shard = step / "__0_0.distcp"
    data = shard.read_bytes()
    shard.write_bytes(data[: len(data) // 3])

    def fails(args: list[str], message: str) -> None:
        assert main(args) == 2
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and len(err.splitlines()) == 1, err

    fails(["train", "export-hf", str(step), str(tmp_path / "hf")], "corrupt checkpoint")
    assert not (tmp_path / "hf").exists() and not list(tmp_path.glob(".hf.tmp*"))
    fails(train_args(corpus, run, "--resume", steps=STEPS), "corrupt checkpoint")
    fails(train_args(corpus, run, "--resume", steps=STEPS + 1),
          f"made with other settings (train_iters: {STEPS} there, {STEPS + 1} now)")
    (step / "trainer.json").unlink()
    fails(["train", "export-hf", str(step), str(tmp_path / "hf")],
          "corrupt checkpoint (trainer.json is missing)")
    fails(["train", "export-hf", str(tmp_path), str(tmp_path / "hf")],
          "corrupt checkpoint (ortrex-checkpoint.json is missing)")


def test_export_hf_reloads_with_transformers_and_generates(corpus: dict[str, Path],
                                                            reference: Path,
                                                            tmp_path: Path) -> None:
    from transformers import AutoModelForCausalLM, AutoTokenizer

    from ortrex.trainers import checkpoint as ckpt
    from ortrex.trainers import model as M

    step = reference / "checkpoints" / f"step_{STEPS:07d}"
    hf = tmp_path / "hf"
    db = reference.parent / "run-store.duckdb"  # the store the reference run recorded in
    assert main(["train", "export-hf", str(step), str(hf), "--db", str(db)]) == 0
    assert sorted(p.name for p in hf.iterdir()) == [
        "config.json", "generation_config.json", "model.safetensors", "tokenizer.json",
        "tokenizer_config.json"]
    model = AutoModelForCausalLM.from_pretrained(hf)
    tok = AutoTokenizer.from_pretrained(hf)
    ids = tok("Minimise the shipping cost from the two mines.", return_tensors="pt")
    ours = M.build(M.resolve(str(step)), seed=0)
    ckpt.load_weights(step, ours)
    with torch.no_grad():
        a = model(**ids).logits
        b = ours(input_ids=ids["input_ids"]).logits
    assert torch.equal(a, b)
    out = model.generate(**ids, max_new_tokens=4, do_sample=False)
    assert out.shape == (1, ids["input_ids"].shape[1] + 4)
    assert isinstance(tok.decode(out[0]), str)
    q = "SELECT count(*) AS n FROM lineage WHERE relation = 'exported_hf' AND params->>'path' = ?"
    from ortrex.store import Store

    with Store(db, read_only=True) as store:
        assert store.query(q, [str(hf.resolve())]).item() == 1
    assert json.loads((hf / "generation_config.json").read_text())["eos_token_id"] == 1
