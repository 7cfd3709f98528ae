"""``ortrex export verify PREFIX``: every dataset of an export checked (spec §1.5 and §8)."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ortrex.export.errors import ExportError
from ortrex.export.indexed import DatasetCheck, megatron, read_index, verify_dataset
from ortrex.export.templates import IGNORE


def datasets_of(prefix: str | Path) -> list[str]:
    """The dataset prefixes an export wrote (an SFT triple, CPT keys, or PREFIX itself)."""
    p = Path(prefix)
    if Path(f"{p}.idx").exists():
        return [str(p)]
    found = sorted(str(x)[:-4] for x in p.parent.glob(f"{p.name}_*_document.idx"))
    if not found:
        raise ExportError(f"{prefix}: no .idx files under this prefix")
    return found


def verify_sft(prefix: str | Path, seq_length: int | None = None, bos: int | None = 0,
               packed: bool | None = None) -> list[str]:
    """Cross-file checks of an SFT triple: equal sequence counts and lengths, labels either
    -100 or the token at the same position; BOS first and lengths below ``seq_length``
    unpacked, exactly ``seq_length`` packed."""
    problems: list[str] = []
    names = {f: f"{prefix}_packed_{f}_document" for f in ("input_ids", "attention_mask",
                                                         "labels")}
    idx = {f: read_index(Path(f"{p}.idx")) for f, p in names.items()}
    lens = {f: i.lengths for f, i in idx.items()}
    if not (np.array_equal(lens["input_ids"], lens["labels"]) and
            np.array_equal(lens["input_ids"], lens["attention_mask"])):
        problems.append("the three SFT files differ in sequence count or lengths")
        return problems
    ds = {f: megatron().IndexedDataset(p) for f, p in names.items()}
    n = len(lens["input_ids"])
    if packed is None:
        packed = bool(n) and seq_length is not None and bool(np.all(lens["input_ids"] ==
                                                                    seq_length))
    for k in range(n):
        ids, labels = np.asarray(ds["input_ids"][k]), np.asarray(ds["labels"][k])
        ok = (labels == IGNORE) | (labels == ids)
        if not ok.all():
            problems.append(f"sample {k}: label at {int(np.argmin(ok))} is neither -100 nor "
                            "the input token")
            break
        if not packed and bos is not None and ids[0] != bos:
            problems.append(f"sample {k}: starts with {int(ids[0])}, not BOS {bos}")
            break
        if seq_length is not None:
            if packed and ids.size != seq_length:
                problems.append(f"packed row {k}: {ids.size} tokens, not {seq_length}")
                break
            if not packed and ids.size > seq_length - 1:
                problems.append(f"sample {k}: {ids.size} tokens, more than seq_length - 1")
                break
    return problems


def verify_export(prefix: str | Path, seq_length: int | None = None) -> list[DatasetCheck]:
    """Every dataset of an export, plus the SFT cross-file checks when it is SFT."""
    out = [verify_dataset(p) for p in datasets_of(prefix)]
    sft = Path(f"{prefix}_packed_input_ids_document.idx")
    if sft.exists() and all(v.ok for v in out):
        extra = verify_sft(prefix, seq_length)
        if extra:
            out.append(DatasetCheck(f"{prefix} (SFT)", extra))
    return out
