"""What a ``--data`` or ``--valid`` path is: a CPT dataset (one token stream, read through
megatron-core's GPTDataset) or an SFT export (three aligned ``_packed_*`` datasets); its
manifest, sizes and largest token id, checked before anything is built."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ortrex.trainers.errors import TrainError

SFT_FIELDS = ("input_ids", "attention_mask", "labels")
_SFT_FILE = re.compile(r"^(?P<export>.*)_packed_(input_ids|attention_mask|labels)_document$")
_CPT_FILE = re.compile(r"^(?P<export>.*)_(?P<key>[^/]+)_document$")


@dataclass
class DataSource:
    """One dataset a run reads."""

    kind: str  # cpt | sft
    prefix: str  # cpt: the dataset prefix (.bin/.idx); sft: the export prefix
    export_prefix: str  # the prefix `ortrex export` was given (its manifest's name)
    manifest: dict[str, Any] | None
    sequences: int
    tokens: int
    max_id: int
    longest: int = 0

    @property
    def name(self) -> str:
        """The dataset's file name part."""
        return Path(self.prefix).name

    @property
    def tokenizer(self) -> dict[str, Any]:
        """The export's tokenizer facts (empty when there is no manifest)."""
        return (self.manifest or {}).get("tokenizer") or {}

    @property
    def seq_length(self) -> int | None:
        """The export's --seq-length, where it had one."""
        opts = (self.manifest or {}).get("options") or {}
        return opts.get("seq_length")


def parse_data_path(text: str) -> tuple[list[str], list[float] | None]:
    """Megatron's rule: an even list whose odd positions are all numbers is a weighted blend,
    anything else a list of prefixes."""
    parts = text.split()
    if len(parts) % 2 == 0 and parts:
        try:
            weights = [float(w) for w in parts[0::2]]
        except ValueError:
            return parts, None
        if any(w < 0 for w in weights) or sum(weights) <= 0:
            raise TrainError(f"--data: weights must be non-negative and not all zero: {text!r}")
        return parts[1::2], weights
    return parts, None


def _manifest(export_prefix: str) -> dict[str, Any] | None:
    path = Path(f"{export_prefix}.manifest.json")
    if not path.is_file():
        return None
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrainError(f"{path}: not a readable manifest ({exc})") from None
    return data if isinstance(data, dict) else None


def _pair(prefix: str) -> tuple[Any, int]:
    """The parsed index of ``prefix`` and its largest token id."""
    from ortrex.export.errors import ExportError
    from ortrex.export.indexed import read_index

    for ext in (".idx", ".bin"):
        if not Path(prefix + ext).is_file():
            raise TrainError(f"{prefix}{ext}: missing (an export writes .bin and .idx "
                             "together)")
    try:
        ix = read_index(Path(prefix + ".idx"))
    except ExportError as exc:
        raise TrainError(str(exc)) from None
    if ix.dtype_code != 4:
        raise TrainError(f"{prefix}.idx: dtype code {ix.dtype_code}, ortrex and MindSpeed "
                         "write int32 (4)")
    tokens = int(ix.lengths.sum(dtype=np.int64))
    size = Path(prefix + ".bin").stat().st_size
    if size != tokens * 4:
        raise TrainError(f"{prefix}.bin: {size} bytes, its index needs {tokens * 4}")
    if not len(ix.lengths):
        raise TrainError(f"{prefix}: the dataset has no sequences")
    data = np.memmap(prefix + ".bin", dtype="<i4", mode="r") if tokens else np.zeros(1, "<i4")
    return ix, int(data.max())


def _sft(export: str) -> DataSource:
    ixs = {}
    max_id = 0
    for f in SFT_FIELDS:
        ix, top = _pair(f"{export}_packed_{f}_document")
        ixs[f] = ix
        if f == "input_ids":
            max_id = top
    n = {f: len(ix.lengths) for f, ix in ixs.items()}
    if len(set(n.values())) != 1:
        raise TrainError(f"{export}: the packed datasets disagree on the number of samples "
                         f"({', '.join(f'{k} {v}' for k, v in n.items())})")
    ids, labels = ixs["input_ids"].lengths, ixs["labels"].lengths
    if not np.array_equal(ids, labels):
        k = int(np.argmax(ids != labels))
        raise TrainError(f"{export}: sample {k} has {ids[k]} input ids but {labels[k]} labels")
    return DataSource("sft", export, export, _manifest(export), n["input_ids"],
                  int(ids.sum(dtype=np.int64)), max_id, int(ids.max()))


def inspect(path: str) -> DataSource:
    """The dataset at ``path`` (an export prefix or a dataset prefix), checked."""
    prefix = str(Path(path).expanduser())
    m = _SFT_FILE.match(prefix)
    if m and Path(prefix + ".idx").is_file():
        return _sft(m.group("export"))
    if Path(f"{prefix}_packed_input_ids_document.idx").is_file() or \
            Path(f"{prefix}_packed_labels_document.idx").is_file():
        return _sft(prefix)
    if Path(prefix + ".idx").is_file() or Path(prefix + ".bin").is_file():
        ix, top = _pair(prefix)
        m = _CPT_FILE.match(prefix)
        export = m.group("export") if m else prefix
        return DataSource("cpt", prefix, export, _manifest(export), len(ix.lengths),
                      int(ix.lengths.sum(dtype=np.int64)), top)
    p = Path(prefix)
    keyed = sorted(str(q)[:-4] for q in p.parent.glob(f"{p.name}_*_document.idx")
                   if "_packed_" not in q.name) if p.parent.is_dir() else []
    if len(keyed) == 1:
        return inspect(keyed[0])
    if keyed:
        raise TrainError(f"{prefix}: several CPT datasets ({', '.join(Path(k).name for k in keyed)}"
                         "); give one of them")
    raise TrainError(f"{prefix}: no dataset here (neither {p.name}.bin/.idx, nor "
                     f"{p.name}_packed_*_document.bin/.idx, nor {p.name}_<key>_document.bin/.idx)")


def for_stage(stage: str, paths: list[str]) -> list[DataSource]:
    """The training sources of a stage, each of the stage's kind."""
    out = []
    for path in paths:
        src = inspect(path)
        if stage == "cpt" and src.kind == "sft":
            raise TrainError(f"{src.prefix}: an SFT export ({Path(src.prefix).name}_packed_"
                             "{input_ids,attention_mask,labels}_document); train it with "
                             "--stage sft")
        if stage == "sft" and src.kind == "cpt":
            raise TrainError(f"{src.prefix}: a CPT dataset (one token stream, no labels); "
                             "train it with --stage cpt")
        out.append(src)
    return out


def check_vocab(sources: list[DataSource], vocab_size: int, model: str) -> None:
    """Every token id of every source fits the model's embedding."""
    for s in sources:
        if s.max_id >= vocab_size:
            tok = s.tokenizer
            told = f" (exported with {tok.get('name')}, {tok.get('vocab_size'):,} tokens)" \
                if tok.get("vocab_size") else ""
            raise TrainError(f"{s.prefix}: token id {s.max_id:,} does not fit the model's "
                             f"vocabulary of {vocab_size:,} ({model}){told}; train a model "
                             "whose vocab_size covers the export's tokenizer")


def check_lengths(sources: list[DataSource], seq_length: int) -> None:
    """SFT samples fit the training length (a cut sample loses its answer: its targets come
    last)."""
    for s in sources:
        if s.kind == "sft" and s.longest > seq_length:
            raise TrainError(f"{s.prefix}: samples of up to {s.longest:,} tokens do not fit "
                             f"--seq-length {seq_length:,} (their answers would be cut); "
                             f"train with --seq-length {s.longest:,} or export with a "
                             f"smaller --seq-length")


def special_ids(sources: list[DataSource]) -> tuple[int, int]:
    """(eos, pad) from the first manifest that has them; DeepSeek-V4's 1 and 1 otherwise."""
    for s in sources:
        tok = s.tokenizer
        if tok.get("eos_id") is not None:
            eos = int(tok["eos_id"])
            return eos, int(tok["pad_id"]) if tok.get("pad_id") is not None else eos
    return 1, 1
