"""CPT and SFT exports: MindSpeed's rules, packing, index maps, training-time reading."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import ClassVar

import numpy as np
import pytest

from ortrex.export.cpt import CptOptions, run_cpt
from ortrex.export.errors import ExportError
from ortrex.export.indexed import megatron, read_index
from ortrex.export.indexmap import build_indexmap, indexmap_path, write_indexmap
from ortrex.export.sft import SftOptions, greedy_knapsack, pack_rows, run_sft
from ortrex.export.tokenizers import load_tokenizer
from ortrex.export.verify import verify_export, verify_sft

TOK = load_tokenizer()


def jsonl(path: Path, rows: list[object]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def read(prefix: str) -> list[list[int]]:
    ds = megatron().IndexedDataset(prefix)
    return [np.asarray(ds[k]).tolist() for k in range(len(ds))]


def test_cpt_drop_matches_mindspeed(tmp_path: Path) -> None:
    texts = ["short one", "", "word " * 80, "another short text", "x " * 5]
    src = jsonl(tmp_path / "d.jsonl", [{"text": t} for t in texts])
    rep = run_cpt(tmp_path / "o", inputs=[src],
                  opts=CptOptions(seq_length=32, long="drop", append_eod=True))
    expect = [[*TOK.encode(t, special=True), 1] for t in texts if t]
    kept = [e for e in expect if len(e) < 32]
    assert read(str(tmp_path / "o_text_document")) == kept
    ix = read_index(tmp_path / "o_text_document.idx")
    # the long document leaves an empty entry; the empty text leaves none
    assert ix.documents.tolist() == [0, 1, 1, 2, 3]
    assert rep.counts["dropped (too long)"] == 1 and rep.counts["empty (filtered out)"] == 1
    manifest = json.loads((tmp_path / "o.manifest.json").read_text())
    assert manifest["documents"]["documents written"] == 3
    assert manifest["tokenizer"]["sha256"] == TOK.sha256
    assert set(manifest["files"]) == {"o_text_document.bin", "o_text_document.idx"}


def test_cpt_split_keeps_long_documents(tmp_path: Path) -> None:
    text = "\n\n".join(f"Paragraph {k}: " + "alpha beta gamma " * 6 for k in range(12))
    src = jsonl(tmp_path / "d.jsonl", [{"body": text}, {"body": "tiny"}])
    rep = run_cpt(tmp_path / "s", inputs=[src], opts=CptOptions(("body",), seq_length=64,
                                                                append_eod=True))
    seqs = read(str(tmp_path / "s_body_document"))
    assert rep.counts["split (too long)"] == 1 and len(seqs) == rep.counts["documents written"]
    assert all(len(s) < 64 and s[-1] == 1 for s in seqs)
    joined = [t for s in seqs[:-1] for t in s[:-1]]
    assert TOK.tokenizer.decode(joined).replace("\n\n", "") == text.replace("\n\n", "")


def test_cpt_several_keys_write_one_dataset_each(tmp_path: Path) -> None:
    rows = [{"title": f"Model {k}", "body": f"minimise cost {k}"} for k in range(5)]
    src = jsonl(tmp_path / "d.jsonl", rows)
    rep = run_cpt(tmp_path / "m", inputs=[src], opts=CptOptions(("title", "body")))
    for key in ("title", "body"):
        assert read(str(tmp_path / f"m_{key}_document")) == \
            [TOK.encode(r[key], special=True) for r in rows]
    assert rep.counts["documents in"] == 10


def test_cpt_workers_give_identical_bytes(tmp_path: Path) -> None:
    rows = [{"text": f"Document {k}: " + "cost flow " * (k % 17)} for k in range(300)]
    src = jsonl(tmp_path / "d.jsonl", rows)
    for w in (1, 2):
        run_cpt(tmp_path / f"w{w}", inputs=[src], opts=CptOptions(append_eod=True), workers=w)
    for ext in (".bin", ".idx"):
        assert (tmp_path / f"w1_text_document{ext}").read_bytes() == \
            (tmp_path / f"w2_text_document{ext}").read_bytes()


def test_bad_input_is_reported_and_leaves_nothing(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "bad.jsonl", [{"text": "ok"}, "{broken", {"nope": 1}, {"text": 5}])
    with pytest.raises(ExportError, match=r"bad.jsonl:2: not valid JSON"):
        run_cpt(tmp_path / "o", inputs=[src])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl"]
    rep = run_cpt(tmp_path / "o", inputs=[src], opts=CptOptions(skip_bad=True))
    assert rep.counts["bad lines skipped"] == 3 and rep.counts["documents written"] == 1
    assert any("bad.jsonl:3: missing key 'text'" in b for b in rep.bad)
    assert any("bad.jsonl:4: key 'text' must be text" in b for b in rep.bad)
    empty = jsonl(tmp_path / "empty.jsonl", [{"text": ""}])
    with pytest.raises(ExportError, match="empty corpus"):
        run_cpt(tmp_path / "e", inputs=[empty])
    with pytest.raises(ExportError, match="does not exist"):
        run_cpt(tmp_path / "missing" / "o", inputs=[src])
    with pytest.raises(ExportError, match=r"no tokenizer\.json"):
        run_cpt(tmp_path / "t", inputs=[src], tokenizer=str(tmp_path))
    ro = tmp_path / "ro"
    ro.mkdir()
    ro.chmod(0o555)
    try:
        if not os.access(ro, os.W_OK):  # root writes anywhere: the check cannot apply
            with pytest.raises(ExportError, match="not writable"):
                run_cpt(ro / "o", inputs=[src])
    finally:
        ro.chmod(0o755)


def test_killed_export_leaves_no_final_files(tmp_path: Path) -> None:
    rows = [{"text": "flow " * 400 + str(k)} for k in range(20000)]
    src = jsonl(tmp_path / "big.jsonl", rows)
    code = ("from ortrex.export.cpt import run_cpt; from pathlib import Path; "
            f"run_cpt(Path({str(tmp_path / 'k')!r}), inputs=[Path({str(src)!r})])")
    proc = subprocess.Popen([sys.executable, "-c", code])
    deadline = time.time() + 60
    while time.time() < deadline and not list(tmp_path.glob("k_text_document.tmp-*.bin")):
        time.sleep(0.05)
    assert list(tmp_path.glob("k_text_document.tmp-*.bin")), "the export never started writing"
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert not (tmp_path / "k_text_document.bin").exists()
    assert not (tmp_path / "k_text_document.idx").exists()
    assert not (tmp_path / "k.manifest.json").exists()


def test_gpt_dataset_reads_a_cpt_export(tmp_path: Path) -> None:
    from megatron.core.datasets.blended_megatron_dataset_builder import (
        BlendedMegatronDatasetBuilder,
    )
    from megatron.core.datasets.gpt_dataset import GPTDataset, GPTDatasetConfig

    rows = [{"text": f"Instance {k} ships {k * 3} pallets from W{k} to S{k}."} for k in range(40)]
    run_cpt(tmp_path / "g", inputs=[jsonl(tmp_path / "d.jsonl", rows)],
            opts=CptOptions(append_eod=True))
    prefix = str(tmp_path / "g_text_document")
    docs = read(prefix)

    class _Tok:
        eod, pad, vocab_size = 1, 1, TOK.vocab_size
        unique_identifiers: ClassVar[dict[str, str]] = {"class": "deepseek-v4"}

    cfg = GPTDatasetConfig(random_seed=7, sequence_length=16, blend=([prefix], None),
                           split="100,0,0", tokenizer=_Tok(), reset_position_ids=False,
                           reset_attention_mask=False, eod_mask_loss=False,
                           path_to_cache=str(tmp_path / "cache"), mid_level_dataset_surplus=0.005)
    train = BlendedMegatronDatasetBuilder(GPTDataset, [12, 0, 0], lambda: True, cfg).build()[0]
    stream = [t for d in train.document_index for t in docs[int(d)]]
    text = " ".join(map(str, stream))
    for k in range(len(train)):
        s = train[k]
        tokens, labels = s["tokens"].tolist(), s["labels"].tolist()
        assert tokens[1:] == labels[:-1]  # labels are the window shifted by one
        assert " ".join(map(str, tokens + labels[-1:])) in text


def conv(k: int, extra: int = 0) -> dict[str, object]:
    return {"messages": [{"role": "system", "content": "You are an OR expert."},
                         {"role": "user", "content": f"Solve model {k}. " + "data " * extra},
                         {"role": "assistant", "content": f"The optimum is {k * 7}."}]}


def test_sft_unpacked(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "s.jsonl", [conv(k, k * 3) for k in range(30)])
    rep = run_sft(tmp_path / "u", inputs=[src], opts=SftOptions(seq_length=64))
    ids = read(str(tmp_path / "u_packed_input_ids_document"))
    labels = read(str(tmp_path / "u_packed_labels_document"))
    mask = read(str(tmp_path / "u_packed_attention_mask_document"))
    assert len(ids) == rep.counts["samples written"] == 30 - rep.counts["dropped (too long)"]
    for a, b, c in zip(ids, labels, mask, strict=True):
        assert a[0] == 0 and len(a) <= 63 and set(c) == {1}
        assert all(y in (-100, x) for x, y in zip(a, b, strict=True))
        assert b[-1] == 1 or rep.counts["truncated"]  # the supervised span ends with EOS
    assert verify_sft(tmp_path / "u", 64) == []


def test_knapsack_and_packing(tmp_path: Path) -> None:
    assert greedy_knapsack([5, 3, 7, 2, 9, 1], 9) == [[9], [7, 2], [5, 3, 1]]
    assert pack_rows([4, 4, 2], 8) == [[1, 0], [2]]  # LIFO among equal lengths
    src = jsonl(tmp_path / "s.jsonl", [conv(k, k % 9) for k in range(25)])
    rows = {}
    for neat in (False, True):
        p = tmp_path / f"p{neat}"
        run_sft(p, inputs=[src], opts=SftOptions(seq_length=96, pack=True, neat_pack=neat))
        rows[neat] = [read(str(p) + f"_packed_{f}_document")
                      for f in ("input_ids", "attention_mask", "labels")]
        assert verify_sft(p, 96) == [] and all(v.ok for v in verify_export(p, 96))
    plain_ids, plain_mask, plain_labels = rows[False]
    neat_ids, neat_mask, neat_labels = rows[True]
    assert plain_ids == neat_ids and plain_labels == neat_labels  # same bins, same order
    for ids, pm, nm, lab in zip(plain_ids, plain_mask, neat_mask, plain_labels, strict=True):
        assert len(ids) == 96 and set(pm) == {1}  # plain pack: every position attends
        used = sum(1 for v in nm if v)
        segs = [v for v in nm if v]
        assert segs == sorted(segs) and segs[0] == 1 and nm[used:] == [0] * (96 - used)
        assert ids[used:] == [TOK.pad_id] * (96 - used) and lab[used:] == [-100] * (96 - used)
        starts = [k for k in range(used) if k == 0 or nm[k] != nm[k - 1]]
        assert all(ids[k] == 0 for k in starts)  # every packed sample starts with BOS


def test_indexmap(tmp_path: Path) -> None:
    src = jsonl(tmp_path / "s.jsonl", [conv(k) for k in range(7)])
    run_sft(tmp_path / "i", inputs=[src], opts=SftOptions(seq_length=128))
    path, docs, samples = write_indexmap(tmp_path / "i", train_iters=5, global_batch_size=4,
                                         seed=1234)
    assert samples == 20
    assert path == indexmap_path(tmp_path / "i", 20, 1234)
    assert path.name == "i_train_indexmap_20ns_1234s_shuffle_decoder_packed_idx.npy"
    arr = np.load(path)
    assert docs == 7 and arr.dtype == np.int64 and len(arr) == 21  # whole epochs
    rng = np.random.RandomState(1234)
    expect = []
    for _ in range(3):
        e = np.arange(7, dtype=np.int64)
        rng.shuffle(e)
        expect.append(e)
    assert arr.tolist() == np.concatenate(expect).tolist()
    assert np.array_equal(build_indexmap(7, 20, 1234), arr)
    assert Path(f"{path}.ready").read_text().strip()
