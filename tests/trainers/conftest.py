"""A real corpus for the trainer tests, built once per session (shared by the xdist workers
through a file lock): `ortrex pipeline` into a store, a held-out split, then CPT and SFT exports
of the store and of small general-domain JSONL files."""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from filelock import FileLock

from tests.conftest import run_cli

# A DeepSeek-V4 with every part of the architecture (sliding and compressed attention with
# its indexer, hash and learned routing, shared expert, mHC) at the smallest sizes, and the
# DeepSeek-V4 tokenizer's vocabulary so exported ids fit.
TINY = {"model_type": "deepseek_v4", "vocab_size": 129280, "hidden_size": 32,
        "moe_intermediate_size": 32, "num_hidden_layers": 2, "num_attention_heads": 2,
        "head_dim": 32, "q_lora_rank": 16, "n_routed_experts": 4, "num_experts_per_tok": 2,
        "o_groups": 2, "o_lora_rank": 16, "index_n_heads": 2, "index_head_dim": 16,
        "index_topk": 4, "sliding_window": 16, "hc_mult": 2,
        "layer_types": ["sliding_attention", "compressed_sparse_attention"],
        "mlp_layer_types": ["hash_moe", "moe"]}
GENERAL_SFT = [("Name a prime number above 10.", "11 is prime."),
               ("What colour is the sky on a clear day?", "Blue."),
               ("Spell the word cat backwards.", "tac"),
               ("How many legs does a spider have?", "Eight."),
               ("What is 7 times 6?", "42"),
               ("Give the opposite of cold.", "Hot.")]
SFT_SEQ = 128


def _jsonl(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def _build(root: Path) -> None:
    from ortrex.export.cpt import CptOptions, run_cpt
    from ortrex.export.sft import SftOptions, run_sft

    db = root / "corpus.duckdb"
    r = run_cli("pipeline", "--count", "4", "--families", "transportation,knapsack_01",
                "--workers", "1", "--db", str(db), timeout=900)
    assert r.returncode == 0, r.stderr
    # Hold out one instance or two (a seed for which the split's hash picks that many).
    from ortrex.benchmarks.heldout import _held, make_split
    from ortrex.store import Store

    with Store(db, read_only=True) as store:
        ids = [i for (i,) in store.query("SELECT DISTINCT instance_id FROM documents WHERE "
                                         "kind = 'sft' AND status = 'accepted'").iter_rows()]
    seed = next(s for s in range(1000) if 1 <= sum(_held(i, 0.3, s) for i in ids) <= 2)
    assert make_split(db, 0.3, seed)["instances"] >= 1
    ex = root / "exp"
    ex.mkdir()
    sft = SftOptions(seq_length=SFT_SEQ)
    run_cpt(ex / "cpt", db=str(db), opts=CptOptions(append_eod=True))
    run_sft(ex / "sft", db=str(db), opts=sft)
    run_sft(ex / "heldout", db=str(db), opts=sft, held_out=True)
    general = _jsonl(root / "general_sft.jsonl", [
        {"messages": [{"role": "user", "content": q}, {"role": "assistant", "content": a}]}
        for q, a in GENERAL_SFT])
    run_sft(ex / "general_sft", inputs=[general], opts=sft, record_db=str(db))
    text = _jsonl(root / "general_cpt.jsonl", [
        {"text": f"Note {k}. The river runs east past the old mill, and the market opens at "
                 f"{k + 6} o'clock every morning except on holidays."} for k in range(12)])
    run_cpt(ex / "general", inputs=[text], opts=CptOptions(append_eod=True),
            record_db=str(db))
    (root / "tiny_v4.json").write_text(json.dumps(TINY))
    (root / "ready").write_text("ok")


@pytest.fixture(scope="session")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Paths of the shared corpus: store, exports, general data, the tiny model config."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    root = shared / "trainer-corpus"
    with FileLock(str(root) + ".lock"):
        if not (root / "ready").is_file():
            root.mkdir(exist_ok=True)
            _build(root)
    ex = root / "exp"
    return {"root": root, "db": root / "corpus.duckdb", "cpt": ex / "cpt_text_document",
            "sft": ex / "sft", "heldout": ex / "heldout", "general_sft": ex / "general_sft",
            "general": ex / "general_text_document", "model": root / "tiny_v4.json",
            "general_sft_jsonl": root / "general_sft.jsonl"}


@pytest.fixture
def store(corpus: dict[str, Path], tmp_path: Path) -> Path:
    """A private copy of the corpus store (DuckDB has one writer: tests on other workers
    must not find it locked)."""
    dst = tmp_path / "store.duckdb"
    shutil.copyfile(corpus["db"], dst)
    return dst


@pytest.fixture
def one_thread() -> Iterator[None]:
    """In-process runs on one thread, as the subprocesses (OMP_NUM_THREADS=1) they are
    compared with bit for bit, and as two test workers on two cores want."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


def train_args(corpus: dict[str, Path], out: Path, *extra: str, stage: str = "cpt",
               steps: int = 4, db: Path | None = None) -> list[str]:
    """An `ortrex train` command line on the shared corpus (recording in ``db``, else in a
    copy of the corpus store beside ``out``)."""
    if db is None:
        db = out.parent / f"{out.name}-store.duckdb"
        if not db.exists():
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(corpus["db"], db)
    data = corpus["cpt"] if stage == "cpt" else corpus["sft"]
    seq = "64" if stage == "cpt" else str(SFT_SEQ)
    return ["train", "--stage", stage, "--data", str(data), "--model", str(corpus["model"]),
            "--seq-length", seq, "--global-batch-size", "2", "--micro-batch-size", "1",
            "--train-iters", str(steps), "--lr", "5e-3", "--data-workers", "0",
            "--kernels", "eager", "--output", str(out), "--db", str(db), *extra]


def read_log(path: Path) -> list[dict[str, Any]]:
    """The run log's records."""
    return [json.loads(x) for x in (path / "log.jsonl").read_text().splitlines()]


def losses(path: Path) -> list[float]:
    """Training loss per step."""
    return [r["loss"] for r in read_log(path) if "loss" in r]
