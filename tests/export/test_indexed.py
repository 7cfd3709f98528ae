"""The .bin/.idx layout byte for byte (spec §1.4), and the verifier's checks (§1.5, §8)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from ortrex.export.indexed import commit_all, read_index, verify_dataset, writers

IDX_HEX = (
    "4d4d4944494458000001000000000000000404000000000000000400000000000000"
    "0400000002000000030000000200000000000000000000001000000000000000"
    "180000000000000024000000000000000000000000000000010000000000000003"
    "000000000000000400000000000000")


def spec_dataset(prefix: Path) -> None:
    """doc0 = [10,11,12,1]; doc1 = [20,21] and [22,23,24]; doc2 = [30,1] (spec §1.4)."""
    with writers([str(prefix)]) as (w,):
        w.add([10, 11, 12, 1])
        w.builder.add_document(np.array([20, 21, 22, 23, 24], np.int32), [2, 3])
        w.add([30, 1])
        commit_all([w])


def test_byte_layout_of_the_spec(tmp_path: Path) -> None:
    p = tmp_path / "d"
    spec_dataset(p)
    idx = (tmp_path / "d.idx").read_bytes()
    assert len(idx) == 34 + 12 * 4 + 8 * 4 == 114
    assert idx.hex() == IDX_HEX
    assert (tmp_path / "d.bin").read_bytes() == np.array(
        [10, 11, 12, 1, 20, 21, 22, 23, 24, 30, 1], "<i4").tobytes()
    assert np.array([-100], "<i4").tobytes() == bytes.fromhex("9cffffff")
    v = verify_dataset(p)
    assert v.ok and (v.sequences, v.documents, v.tokens) == (4, 3, 11)


def test_empty_document_entries_for_dropped_samples(tmp_path: Path) -> None:
    with writers([str(tmp_path / "q")]) as (w,):
        w.add([5, 6])
        w.empty_document()
        w.add([7])
        commit_all([w])
    ix = read_index(tmp_path / "q.idx")
    assert ix.documents.tolist() == [0, 1, 1, 2]
    assert verify_dataset(tmp_path / "q").ok  # the reader accepts it, as MindSpeed's does


def _corrupt(path: Path, offset: int, value: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] = value
    path.write_bytes(bytes(data))


@pytest.mark.parametrize(("what", "offset", "value", "needle"), [
    ("magic", 0, 0x4E, "bad magic"),
    ("version", 9, 2, "version 2"),
    ("dtype", 17, 8, "dtype code 8"),
    ("pointer", 34 + 16 + 8, 0x11, "pointer 1"),
    ("document index", 34 + 48 + 16, 9, "document index decreases"),
])
def test_verifier_catches_a_flipped_byte(tmp_path: Path, what: str, offset: int, value: int,
                                         needle: str) -> None:
    p = tmp_path / "d"
    spec_dataset(p)
    _corrupt(tmp_path / "d.idx", offset, value)
    v = verify_dataset(p)
    assert not v.ok and needle in " ".join(v.problems), (what, v.problems)


def test_verifier_catches_truncated_and_mismatched_files(tmp_path: Path) -> None:
    p = tmp_path / "d"
    spec_dataset(p)
    data = (tmp_path / "d.bin").read_bytes()
    (tmp_path / "d.bin").write_bytes(data[:-4])
    assert "bytes, the index needs" in " ".join(verify_dataset(p).problems)
    (tmp_path / "d.bin").write_bytes(data)
    (tmp_path / "d.idx").write_bytes((tmp_path / "d.idx").read_bytes()[:-8])
    assert "need" in " ".join(verify_dataset(p).problems)
    (tmp_path / "d.idx").unlink()
    assert "missing" in " ".join(verify_dataset(p).problems)
    spec_dataset(p)
    _corrupt(tmp_path / "d.bin", 0, 0x0B)  # a token changed: the layout still holds
    assert verify_dataset(p).ok


def test_a_failed_write_leaves_nothing(tmp_path: Path) -> None:
    with pytest.raises(RuntimeError), writers([str(tmp_path / "x")]) as (w,):
        w.add([1, 2, 3])
        raise RuntimeError("boom")
    assert list(tmp_path.iterdir()) == []
