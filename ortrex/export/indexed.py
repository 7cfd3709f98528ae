"""Megatron indexed datasets (``.bin``/``.idx``): written through megatron-core's
``IndexedDatasetBuilder`` (int32, as MindSpeed-LLM writes) under temporary names renamed at the
end, and verified byte by byte plus by reading everything back with ``IndexedDataset``."""

from __future__ import annotations

import os
import struct
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ortrex.export.errors import ExportError, require

MAGIC = b"MMIDIDX\x00\x00"
HEADER = 34  # magic 9, version u64, dtype u8, S u64, D1 u64
INT32 = 4


def megatron() -> Any:
    """megatron-core's indexed_dataset module (imported quietly: it warns about Apex)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from megatron.core.datasets import indexed_dataset
    except ImportError:
        raise ExportError("export needs megatron-core and torch: pip install -e '.[export]'"
                          ) from None
    return indexed_dataset


class Writer:
    """One dataset being written (``prefix.bin``/``.idx`` appear only on :meth:`commit`)."""

    def __init__(self, prefix: str | Path) -> None:
        self.torch: Any = require("torch")
        self.prefix = str(prefix)
        self.tmp = f"{self.prefix}.tmp-{os.getpid()}"
        self.builder = megatron().IndexedDatasetBuilder(f"{self.tmp}.bin", dtype=np.int32)
        self.sequences = 0
        self.tokens = 0
        self.closed = False

    def add(self, ids: np.ndarray | list[int]) -> None:
        """One sequence that is a whole document."""
        arr = np.asarray(ids, dtype=np.int32)
        if not arr.flags.writeable:  # from Ray's object store: read-only, torch would warn
            arr = arr.copy()
        self.builder.add_item(self.torch.from_numpy(arr))
        self.builder.end_document()
        self.sequences += 1
        self.tokens += int(arr.size)

    def add_many(self, flat: np.ndarray, lengths: np.ndarray) -> None:
        """Many one-sequence documents at once (``flat`` holds them back to back)."""
        if not len(lengths):
            return
        b = self.builder
        b.data_file.write(np.ascontiguousarray(flat, dtype=np.int32).tobytes(order="C"))
        start = len(b.sequence_lengths)
        b.sequence_lengths.extend(int(n) for n in lengths)
        b.document_indices.extend(range(start + 1, start + len(lengths) + 1))
        self.sequences += len(lengths)
        self.tokens += int(np.sum(lengths))

    def empty_document(self) -> None:
        """A document without sequences (MindSpeed's mark of a dropped sample)."""
        self.builder.end_document()

    def abort(self) -> None:
        """Remove the temporary files."""
        if not self.closed:
            with suppress(Exception):
                self.builder.data_file.close()
        for ext in (".bin", ".idx"):
            Path(f"{self.tmp}{ext}").unlink(missing_ok=True)


@contextmanager
def writers(prefixes: list[str]) -> Iterator[list[Writer]]:
    """Writers that commit together on success and leave nothing behind on failure."""
    ws: list[Writer] = []
    try:
        for p in prefixes:
            ws.append(Writer(p))
        yield ws
    except BaseException:
        for w in ws:
            w.abort()
        raise


def commit_all(ws: list[Writer]) -> list[Path]:
    """Commit every writer (indexes first, then the renames, so a crash leaves no pair)."""
    for w in ws:
        w.builder.finalize(f"{w.tmp}.idx")
        w.closed = True
    out = []
    for w in ws:
        for ext in (".bin", ".idx"):
            os.replace(f"{w.tmp}{ext}", f"{w.prefix}{ext}")
            out.append(Path(f"{w.prefix}{ext}"))
    return out


# ---------------------------------------------------------------- verification
@dataclass
class Index:
    """The parsed ``.idx`` of a dataset."""

    dtype_code: int
    lengths: np.ndarray
    pointers: np.ndarray
    documents: np.ndarray


@dataclass
class DatasetCheck:
    """What the verifier found about one dataset (or a set of SFT datasets)."""

    prefix: str
    problems: list[str] = field(default_factory=list)
    sequences: int = 0
    documents: int = 0
    tokens: int = 0

    @property
    def ok(self) -> bool:
        """No problems."""
        return not self.problems


def read_index(path: Path) -> Index:
    """Parse an ``.idx`` file (``ExportError`` naming the first broken field)."""
    data = path.read_bytes()
    if len(data) < HEADER:
        raise ExportError(f"{path}: {len(data)} bytes, shorter than the 34-byte header")
    if data[:9] != MAGIC:
        raise ExportError(f"{path}: bad magic {data[:9]!r}")
    (version,) = struct.unpack_from("<Q", data, 9)
    if version != 1:
        raise ExportError(f"{path}: version {version}, expected 1")
    code = data[17]
    s, d1 = struct.unpack_from("<QQ", data, 18)
    need = HEADER + 12 * s + 8 * d1
    if len(data) != need:
        raise ExportError(f"{path}: {len(data)} bytes, the header's counts (S={s}, D1={d1}) "
                          f"need {need}")
    lengths = np.frombuffer(data, "<i4", s, HEADER)
    pointers = np.frombuffer(data, "<i8", s, HEADER + 4 * s)
    documents = np.frombuffer(data, "<i8", d1, HEADER + 12 * s)
    return Index(code, lengths, pointers, documents)


def verify_dataset(prefix: str | Path, itemsize: int = INT32) -> DatasetCheck:
    """The byte-level checks of spec §1.5, then a full read-back with ``IndexedDataset``."""
    prefix = str(prefix)
    v = DatasetCheck(prefix)
    idx_path, bin_path = Path(f"{prefix}.idx"), Path(f"{prefix}.bin")
    for p in (idx_path, bin_path):
        if not p.is_file():
            v.problems.append(f"{p}: missing")
    if v.problems:
        return v
    try:
        ix = read_index(idx_path)
    except ExportError as exc:
        v.problems.append(str(exc))
        return v
    v.sequences, v.documents = len(ix.lengths), len(ix.documents) - 1
    v.tokens = int(ix.lengths.sum(dtype=np.int64))
    if ix.dtype_code != 4:
        v.problems.append(f"{idx_path}: dtype code {ix.dtype_code}, MindSpeed writes 4 (int32)")
    if len(ix.lengths) and (ix.lengths <= 0).any():
        v.problems.append(f"{idx_path}: sequence {int(np.argmax(ix.lengths <= 0))} is empty "
                          "(MTFDataset requires every item to be non-empty)")
    expect = np.concatenate([[0], np.cumsum(ix.lengths.astype(np.int64) * itemsize)[:-1]]) \
        if len(ix.lengths) else np.zeros(0, np.int64)
    if not np.array_equal(ix.pointers, expect):
        bad = int(np.argmax(ix.pointers != expect))
        v.problems.append(f"{idx_path}: pointer {bad} is {int(ix.pointers[bad])}, expected "
                          f"{int(expect[bad])}")
    docs = ix.documents
    if not len(docs) or docs[0] != 0:
        v.problems.append(f"{idx_path}: document index does not start with 0")
    elif (np.diff(docs) < 0).any():
        v.problems.append(f"{idx_path}: document index decreases at entry "
                          f"{int(np.argmax(np.diff(docs) < 0)) + 1}")
    elif docs[-1] != len(ix.lengths):
        v.problems.append(f"{idx_path}: document index ends at {int(docs[-1])}, there are "
                          f"{len(ix.lengths)} sequences")
    size = bin_path.stat().st_size
    if size != v.tokens * itemsize:
        v.problems.append(f"{bin_path}: {size} bytes, the index needs {v.tokens * itemsize}")
    if v.problems:
        return v
    try:  # an independent reader: megatron-core itself
        ds = megatron().IndexedDataset(prefix)
        if len(ds) != v.sequences:
            v.problems.append(f"IndexedDataset sees {len(ds)} sequences, the index {v.sequences}")
        raw = np.memmap(bin_path, dtype="<i4", mode="r")
        for k in range(len(ds)):
            got = np.asarray(ds[k])
            start = int(ix.pointers[k]) // itemsize
            if not np.array_equal(got, raw[start:start + int(ix.lengths[k])]):
                v.problems.append(f"IndexedDataset reads sequence {k} differently")
                break
    except Exception as exc:  # megatron's reader raises assertions and plain errors
        v.problems.append(f"IndexedDataset cannot read {prefix}: {type(exc).__name__}: {exc}")
    return v
