"""A tiny DeepSeek-V4 trains on a real ortrex export: CPT, then SFT from the CPT checkpoint;
the losses fall; the log, the plot and the store's lineage are there; the SFT loss is the mean
over assistant tokens only."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import torch

from ortrex.cli import main
from tests.trainers.conftest import GENERAL_SFT, losses, read_log, train_args


@pytest.mark.usefixtures("one_thread")
def test_cpt_then_sft_on_a_real_export(corpus: dict[str, Path], store: Path, tmp_path: Path,
                                       capsys: pytest.CaptureFixture[str]) -> None:
    from ortrex.store import Store

    cpt = tmp_path / "cpt"
    # An OR + general mixture, as `ortrex export mix` prints it (megatron-core's blend).
    mix = f"0.8 {corpus['cpt']} 0.2 {corpus['general']}"
    assert main(train_args(corpus, cpt, "--data", mix, "--valid", f"general={corpus['general']}",
                           "--valid", f"or={corpus['heldout']}", "--eval-samples", "2",
                           steps=8, db=store)) == 0
    out = capsys.readouterr().out
    assert "MFU" in out and "tokens / s" in out and "valid loss general" in out
    cl = losses(cpt)
    assert len(cl) == 8 and np.mean(cl[-2:]) < np.mean(cl[:2]) - 0.2, cl
    rows = read_log(cpt)
    first, last = rows[0], [x for x in rows if "valid/general" in x][-1]
    assert first["step"] == 0 and last["step"] == 8
    assert last["valid/general"] < first["valid/general"] - 0.05, (first, last)
    assert (cpt / "loss.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    step = cpt / "checkpoints" / "step_0000008"
    assert (step / ".metadata").is_file() and (step / "config.json").is_file()

    sft = tmp_path / "sft"
    assert main(train_args(corpus, sft, "--model", str(step), "--lr", "3e-3", stage="sft",
                           steps=5, db=store)) == 0
    sl = losses(sft)
    assert np.mean(sl[-2:]) < np.mean(sl[:2]) - 0.1, sl

    with Store(store, read_only=True) as s:
        trained = s.query("SELECT e.kind FROM lineage l JOIN exports e ON e.id = l.parent_id "
                          "WHERE l.relation = 'trained_on'")["kind"].to_list()
        runs = s.query("SELECT r.status, l.relation, count(*) AS n FROM runs r JOIN lineage l "
                       "ON l.run_id = r.id WHERE r.command = 'train' GROUP BY ALL").to_dicts()
    assert sorted(set(trained)) == ["cpt", "sft"]  # both exports -> their runs
    rel = {g["relation"]: g for g in runs}
    assert rel["checkpoint"]["n"] == 2 and rel["initialized_from"]["n"] == 1
    assert {g["status"] for g in runs} == {"complete"}


def test_sft_loss_is_the_mean_over_assistant_tokens(corpus: dict[str, Path]) -> None:
    from ortrex.export.tokenizers import load_tokenizer
    from ortrex.trainers import datasets as D
    from ortrex.trainers import model as M
    from ortrex.trainers import sources
    from ortrex.trainers.loop import micro_loss

    src = sources.inspect(str(corpus["general_sft"]))
    samples = D.SequentialSft(src, 100)
    tok = load_tokenizer(None)
    # The supervised tokens of every sample are exactly its assistant answer and EOS.
    for k, (_, answer) in enumerate(GENERAL_SFT):
        s = samples[k]
        kept = s.labels[s.labels != D.IGNORE]
        assert kept.tolist() == [*tok.encode(answer), tok.eos_id]
        assert (s.labels[: len(s.labels) - len(kept)] == D.IGNORE).all()

    model = M.build(M.resolve(str(corpus["model"])), seed=3)
    batch = D.collate([samples[k] for k in range(4)], 64, 1, shifted=False)
    with torch.no_grad():
        got = float(micro_loss(model, batch, False, batch["targets"].float(),
                               torch.device("cpu"), False))
        logits = model(input_ids=batch["input_ids"]).logits
    total, n = 0.0, 0
    labels = batch["labels"]
    for b in range(labels.shape[0]):
        for i in range(labels.shape[1] - 1):  # position i predicts token i + 1
            t = int(labels[b, i + 1])
            if t != D.IGNORE:
                total -= float(torch.log_softmax(logits[b, i].double(), dim=-1)[t])
                n += 1
    assert n == int(batch["targets"]) == sum(len(tok.encode(a)) + 1 for _, a in GENERAL_SFT[:4])
    assert abs(got - total / n) < 1e-5 * (total / n)


@pytest.mark.usefixtures("one_thread")
def test_ortrex_kernels_and_recomputation_match_eager(corpus: dict[str, Path],
                                                            tmp_path: Path) -> None:
    runs = {}
    for kernels in ("ortrex", "eager"):
        out = tmp_path / kernels
        assert main([*train_args(corpus, out, steps=2), "--kernels", kernels]) == 0
        meta = json.loads((out / "checkpoints" / "step_0000002" / "trainer.json").read_text())
        assert meta["kernels"] == kernels
        runs[kernels] = read_log(out)
    # Options from a YAML file (the command line still wins): activation checkpointing
    # recomputes the same forward.
    yaml = tmp_path / "train.yaml"
    yaml.write_text("activation_checkpointing: true\ntrain_iters: 99\nwarmup_iters: 0\n")
    out = tmp_path / "recompute"
    assert main([*train_args(corpus, out, steps=2), "--config", str(yaml)]) == 0
    meta = json.loads((out / "checkpoints" / "step_0000002" / "trainer.json").read_text())
    assert meta["identity"]["activation_checkpointing"] is True
    assert meta["identity"]["train_iters"] == 2
    runs["recompute"] = read_log(out)
    for other in ("ortrex", "recompute"):
        for a, b in zip(runs[other], runs["eager"], strict=True):
            assert a["loss"] == pytest.approx(b["loss"], rel=1e-6), other
            assert a["grad_norm"] == pytest.approx(b["grad_norm"], rel=1e-5), other
