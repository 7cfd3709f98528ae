"""A sharded CPT export (tokenized on an executor's workers, shards merged with megatron-core's
add_index) is byte for byte the single-process export: local processes and a real local Ray,
long documents dropped or split, empty texts, several keys, bad lines, the store as input."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from ortrex.export.cpt import CptOptions, run_cpt
from ortrex.export.errors import ExportError
from ortrex.export.verify import verify_export
from ortrex.jobs import LocalExecutor, make_executor
from tests.export.test_cpt_sft import jsonl

pytestmark = pytest.mark.xdist_group("ray")


@pytest.fixture(scope="module")
def ray_ex() -> Iterator[Any]:
    os.environ["RAY_AUTH_MODE"] = "disabled"
    pytest.importorskip("ray")
    ex = make_executor(2, "ray")
    try:
        yield ex
    finally:
        ex.close()


@pytest.fixture(autouse=True)
def small_shards(monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks of 4 kB and 3 chunks a shard: a few dozen shards, some ending mid-file."""
    import ortrex.export.shards as shards
    import ortrex.export.sources as sources

    monkeypatch.setattr(sources, "CHUNK_BYTES", 4096)
    monkeypatch.setattr(shards, "SHARD_CHUNKS", 3)


def corpus(tmp_path: Path) -> list[Path]:
    long = "\n\n".join(f"Paragraph {k}: " + "ship pallets from depots " * 9 for k in range(30))
    rows: list[object] = []
    for k in range(3000):
        if k % 97 == 0:
            rows.append({"text": long, "title": f"Long {k}"})
        elif k % 89 == 0:
            rows.append({"text": "", "title": ""})
        else:
            rows.append({"text": f"Plan {k}: minimise cost " + "flow " * (k % 23),
                         "title": f"Instance {k}"})
    # Two files, the first cut in small chunks so shards end mid-file and span files.
    half = len(rows) // 2
    return [jsonl(tmp_path / "a.jsonl", rows[:half]), jsonl(tmp_path / "b.jsonl", rows[half:])]


def _same(a: Path, b: Path, keys: tuple[str, ...]) -> None:
    for key in keys:
        for ext in (".bin", ".idx"):
            x = Path(f"{a}_{key}_document{ext}").read_bytes()
            y = Path(f"{b}_{key}_document{ext}").read_bytes()
            assert x == y, (key, ext, len(x), len(y))


@pytest.mark.parametrize("opts", [
    CptOptions(("text", "title"), seq_length=128, long="drop", append_eod=True),
    CptOptions(("text",), seq_length=128, long="split", append_eod=True),
    CptOptions(("text",)),
])
def test_sharded_export_is_byte_identical_on_local_processes(tmp_path: Path,
                                                             opts: CptOptions) -> None:
    files = corpus(tmp_path)
    run_cpt(tmp_path / "one", inputs=files, opts=opts)
    ex = LocalExecutor(2)
    try:
        rep = run_cpt(tmp_path / "sh", inputs=files, opts=opts, executor=ex)
    finally:
        ex.close()
    _same(tmp_path / "one", tmp_path / "sh", opts.keys)
    assert rep.counts["documents written"] > 2900
    assert rep.counts["shards"] >= 20
    assert not list(tmp_path.glob(".sh.shards-*"))  # the shards are gone
    assert all(v.ok for v in verify_export(str(tmp_path / "sh")))


def test_sharded_export_on_ray_is_byte_identical(tmp_path: Path, ray_ex: Any) -> None:
    files = corpus(tmp_path)
    opts = CptOptions(("text", "title"), seq_length=128, long="drop", append_eod=True)
    run_cpt(tmp_path / "one", inputs=files, opts=opts)
    rep = run_cpt(tmp_path / "ray", inputs=files, opts=opts, executor=ray_ex)
    _same(tmp_path / "one", tmp_path / "ray", opts.keys)
    assert rep.counts["dropped (too long)"] > 0


def test_a_bad_line_stops_a_sharded_export_and_leaves_nothing(tmp_path: Path) -> None:
    rows: list[object] = [{"text": f"doc {k}"} for k in range(50)]
    rows[33] = "{broken"
    src = jsonl(tmp_path / "bad.jsonl", rows)
    ex = LocalExecutor(2)
    try:
        with pytest.raises(ExportError, match=r"bad.jsonl:34: not valid JSON"):
            run_cpt(tmp_path / "x", inputs=[src], executor=ex)
        rep = run_cpt(tmp_path / "y", inputs=[src], executor=ex,
                      opts=CptOptions(skip_bad=True))
    finally:
        ex.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "y.manifest.json",
                                                           "y_text_document.bin",
                                                           "y_text_document.idx"]
    assert rep.counts["bad lines skipped"] == 1 and rep.counts["documents written"] == 49


def test_sft_encoded_on_ray_is_byte_identical(tmp_path: Path, ray_ex: Any) -> None:
    from ortrex.export.sft import SftOptions, run_sft
    from tests.export.test_cpt_sft import conv

    src = jsonl(tmp_path / "c.jsonl", [conv(k, k % 7) for k in range(400)])
    for pack in (False, True):
        opts = SftOptions(pack=pack, seq_length=512)
        run_sft(tmp_path / f"one{pack}", inputs=[src], opts=opts)
        run_sft(tmp_path / f"ray{pack}", inputs=[src], opts=opts, executor=ray_ex)
        for name in ("input_ids", "attention_mask", "labels"):
            for ext in (".bin", ".idx"):
                a = tmp_path / f"one{pack}_packed_{name}_document{ext}"
                b = tmp_path / f"ray{pack}_packed_{name}_document{ext}"
                assert a.read_bytes() == b.read_bytes(), (pack, name, ext)
