"""The SFT train index map MindSpeed-LLM would build (spec §4.2-4.3), written ahead of training:
``PREFIX_train_indexmap_{N}ns_{seed}s_shuffle_decoder_packed_idx.npy`` plus a ``.ready`` marker,
with the document count taken from the ``.idx`` (never from a JSONL line count)."""

from __future__ import annotations

import os
import time
from pathlib import Path

import numpy as np

from ortrex.export.errors import ExportError
from ortrex.export.indexed import read_index


def indexmap_path(prefix: str | Path, num_samples: int, seed: int) -> Path:
    """The file name MindSpeed-LLM looks for."""
    return Path(f"{prefix}_train_indexmap_{num_samples}ns_{seed}s_shuffle_decoder_packed_idx.npy")


def build_indexmap(n_docs: int, num_samples: int, seed: int) -> np.ndarray:
    """Whole shuffled epochs (one RandomState stream across epochs) until num_samples."""
    if n_docs <= 0:
        raise ExportError("the dataset has no sequences")
    rng = np.random.RandomState(seed)
    parts, total = [], 0
    while total < num_samples:
        epoch = np.arange(0, n_docs, dtype=np.int64)
        rng.shuffle(epoch)
        parts.append(epoch)
        total += n_docs
    return np.concatenate(parts)


def sequence_count(prefix: str | Path) -> int:
    """Sequences of the first (sorted) ``PREFIX_packed_*_document.idx``."""
    p = Path(prefix)
    idx = sorted(p.parent.glob(f"{p.name}_packed_*_document.idx"))
    if not idx:
        raise ExportError(f"{prefix}: no {p.name}_packed_*_document.idx (an SFT export prefix)")
    return len(read_index(idx[0]).lengths)


def write_indexmap(prefix: str | Path, train_iters: int, global_batch_size: int,
                   seed: int = 1234) -> tuple[Path, int, int]:
    """Write the index map atomically, then its ``.ready`` marker; (path, docs, samples)."""
    if train_iters < 1 or global_batch_size < 1:
        raise ExportError("--train-iters and --global-batch-size must be positive")
    n_docs = sequence_count(prefix)
    num_samples = train_iters * global_batch_size
    arr = build_indexmap(n_docs, num_samples, seed)
    path = indexmap_path(prefix, num_samples, seed)
    tmp = path.with_name(path.name + f".tmp-{os.getpid()}")
    with open(tmp, "wb") as f:
        np.save(f, arr)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)
    Path(f"{path}.ready").write_text(f"{time.time():.3f}\n")
    return path, n_docs, num_samples
