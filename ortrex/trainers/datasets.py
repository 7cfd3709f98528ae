"""Training and validation samples from ortrex exports.

CPT: megatron-core's ``GPTDataset`` through ``BlendedMegatronDatasetBuilder`` (the weighted
``--data-path`` blend, MindSpeed-LLM's shuffling and windows of ``seq_length + 1`` tokens); its
labels come shifted. SFT: the ``_packed_{input_ids,labels}`` datasets read as MindSpeed-LLM
reads them (the stored attention mask is not used, labels are not shifted: the loss drops the
first label and the last logit), in the order of MindSpeed's train index map (the file `ortrex
export indexmap` wrote when it matches, else the same map built here). Several SFT exports
with weights are blended with megatron-core's blending helper (MindSpeed takes one).

A sample is addressed by its global position: step ``s`` of global batch ``G`` takes positions
``[s*G, (s+1)*G)``; rank ``r`` of ``dp`` takes micro-batch after micro-batch from its share, so
the samples of a step do not depend on the number of processes and resuming is a position.
"""

from __future__ import annotations

import logging
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import torch

from ortrex.trainers.errors import TrainError
from ortrex.trainers.sources import DataSource

IGNORE = -100


@dataclass
class Sample:
    """One sample: token ids and labels (``shifted``: label ``i`` is the target of position
    ``i``; otherwise label ``i`` is token ``i``'s own id, as MindSpeed stores SFT labels)."""

    input_ids: np.ndarray
    labels: np.ndarray


def _quiet_megatron() -> None:
    logging.getLogger("megatron").setLevel(logging.WARNING)
    warnings.filterwarnings("ignore", message=".*Transformer Engine and Apex.*")
    warnings.filterwarnings("ignore", message="The pad token id in the tokenizer collides")


@contextmanager
def _process_group() -> Iterator[None]:
    """A one-process group while megatron-core builds a weighted blend: its BlendedDataset
    asks for the rank when it caches indices, whether or not a group exists (one process
    runs without one; several have theirs from torchrun)."""
    import torch.distributed as tdist

    if tdist.is_initialized():
        yield
        return
    tdist.init_process_group("gloo", store=tdist.HashStore(), rank=0, world_size=1)
    try:
        yield
    finally:
        tdist.destroy_process_group()


class _Tok:
    """The few tokenizer facts GPTDataset reads (no ``pad``: megatron then pads with -1,
    which never collides with EOS)."""

    unique_identifiers: ClassVar[dict[str, str]] = {}

    def __init__(self, eod: int, vocab_size: int, name: str) -> None:
        self.eod = eod
        self.vocab_size = vocab_size
        self.unique_identifiers = {"class": "ortrex", "name": name}


class CptSamples:
    """GPT windows of a (blended) set of CPT datasets, via megatron-core."""

    shifted = True

    def __init__(self, sources: list[DataSource], weights: list[float] | None, seq_length: int,
                 num_samples: int, seed: int, cache: Path, eod: int, vocab_size: int
                 ) -> None:
        _quiet_megatron()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from megatron.core.datasets.blended_megatron_dataset_builder import (
                BlendedMegatronDatasetBuilder,
            )
            from megatron.core.datasets.gpt_dataset import GPTDataset, GPTDatasetConfig
        tok = _Tok(eod, vocab_size, str((sources[0].tokenizer or {}).get("sha256", "unknown")))
        cfg = GPTDatasetConfig(
            random_seed=seed, sequence_length=seq_length,
            blend=([s.prefix for s in sources], weights), split="100,0,0", tokenizer=tok,
            reset_position_ids=False, reset_attention_mask=False, eod_mask_loss=False,
            create_attention_mask=False, path_to_cache=str(cache),
            mid_level_dataset_surplus=0.005)
        with warnings.catch_warnings(), _process_group():
            warnings.simplefilter("ignore")
            # Every rank reads the data; with several processes megatron-core builds the
            # index cache on rank 0 first, then the others load it (a shared file system).
            self.dataset = BlendedMegatronDatasetBuilder(
                GPTDataset, [num_samples, 0, 0], lambda: True, cfg).build()[0]
        self.size = num_samples

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, k: int) -> Sample:
        s = self.dataset[int(k)]
        labels = s["labels"].numpy().copy()
        labels[s["loss_mask"].numpy() == 0] = IGNORE
        return Sample(s["tokens"].numpy(), labels)


class PackedSft:
    """One SFT export's input ids and labels (megatron-core's IndexedDataset, memory-mapped)."""

    def __init__(self, source: DataSource) -> None:
        _quiet_megatron()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from megatron.core.datasets.indexed_dataset import IndexedDataset
        self.ids = IndexedDataset(f"{source.prefix}_packed_input_ids_document")
        self.labels = IndexedDataset(f"{source.prefix}_packed_labels_document")

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, k: int) -> Sample:
        return Sample(np.asarray(self.ids[int(k)]), np.asarray(self.labels[int(k)]))


def sft_order(source: DataSource, num_samples: int, seed: int) -> np.ndarray:
    """MindSpeed's train index map for ``num_samples`` samples: the `.npy` that `ortrex export
    indexmap` wrote (with its `.ready` marker) when it is there, else the same map built."""
    from ortrex.export.indexmap import build_indexmap, indexmap_path

    path = indexmap_path(source.prefix, num_samples, seed)
    if path.is_file() and Path(f"{path}.ready").is_file():
        try:
            arr = np.load(path, allow_pickle=False)
        except (OSError, ValueError) as exc:
            raise TrainError(f"{path}: not a readable index map ({exc})") from None
        if arr.ndim != 1 or len(arr) < num_samples or (len(arr) and (
                arr.min() < 0 or arr.max() >= source.sequences)):
            raise TrainError(f"{path}: does not index {num_samples} samples of "
                             f"{source.sequences} sequences (rebuild it with `ortrex export "
                             "indexmap`)")
        return arr[:num_samples].astype(np.int64)
    return build_indexmap(source.sequences, num_samples, seed)[:num_samples]


class SftSamples:
    """Samples of one or several (weighted) SFT exports in MindSpeed's order."""

    shifted = False

    def __init__(self, sources: list[DataSource], weights: list[float] | None, num_samples: int,
                 seed: int) -> None:
        self.sets = [PackedSft(s) for s in sources]
        if len(sources) == 1:
            self.which = np.zeros(num_samples, np.int16)
            self.index = sft_order(sources[0], num_samples, seed)
        else:
            from megatron.core.datasets import helpers

            w = np.asarray(weights if weights else [s.sequences for s in sources], np.float64)
            w = w / w.sum()
            self.which = np.zeros(num_samples, np.int16)
            local = np.zeros(num_samples, np.int64)
            helpers.build_blending_indices(self.which, local, w, len(sources), num_samples,
                                           False)
            self.index = np.zeros(num_samples, np.int64)
            for d, s in enumerate(sources):
                sel = self.which == d
                need = int(local[sel].max()) + 1 if sel.any() else 0
                if need:
                    self.index[sel] = sft_order(s, need, seed + d)[local[sel]]
        self.size = num_samples

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, k: int) -> Sample:
        return self.sets[int(self.which[k])][int(self.index[k])]


class SequentialSft:
    """Every sample of an SFT export in stored order (validation)."""

    shifted = False

    def __init__(self, source: DataSource, limit: int) -> None:
        self.set = PackedSft(source)
        self.size = min(limit, len(self.set))
        self.longest = source.longest

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, k: int) -> Sample:
        return self.set[k]


def collate(samples: list[Sample], seq_length: int, pad: int, shifted: bool
            ) -> dict[str, torch.Tensor]:
    """Right-padded to ``seq_length`` (pad id, -100 labels); longer samples are cut."""
    n = len(samples)
    ids = np.full((n, seq_length), pad, np.int64)
    labels = np.full((n, seq_length), IGNORE, np.int64)
    cut = 0
    for i, s in enumerate(samples):
        m = min(len(s.input_ids), seq_length)
        cut += len(s.input_ids) > seq_length
        ids[i, :m] = s.input_ids[:m]
        labels[i, :m] = s.labels[:m]
    targets = labels if shifted else labels[:, 1:]
    return {"input_ids": torch.from_numpy(ids), "labels": torch.from_numpy(labels),
            "targets": torch.tensor(int((targets != IGNORE).sum())),
            "cut": torch.tensor(cut)}


class StepBatches(torch.utils.data.Dataset):  # type: ignore[type-arg]
    """Micro-batch ``j`` of this rank, counted from the first step of the run."""

    def __init__(self, samples: Any, micro: int, dp: int, rank: int, accum: int,
                 seq_length: int, pad: int) -> None:
        self.samples, self.micro, self.dp, self.rank, self.accum = samples, micro, dp, rank, accum
        self.seq_length, self.pad = seq_length, pad

    def __len__(self) -> int:
        return len(self.samples) // (self.micro * self.dp)

    def positions(self, j: int) -> range:
        """Global sample positions of this rank's micro-batch ``j``."""
        step, a = divmod(j, self.accum)
        start = step * self.micro * self.dp * self.accum + a * self.micro * self.dp + \
            self.rank * self.micro
        return range(start, start + self.micro)

    def __getitem__(self, j: int) -> dict[str, torch.Tensor]:
        return collate([self.samples[k] for k in self.positions(j)], self.seq_length,
                       self.pad, self.samples.shifted)


def loader(batches: StepBatches, start_step: int, workers: int) -> Iterator[
        dict[str, torch.Tensor]]:
    """Micro-batches from ``start_step`` on, prefetched by ``workers`` processes."""
    first = start_step * batches.accum
    sampler = range(first, len(batches))
    dl = torch.utils.data.DataLoader(batches, batch_size=None, sampler=sampler,
                                     num_workers=workers, persistent_workers=False,
                                     prefetch_factor=4 if workers else None)
    return iter(dl)


def valid_batches(samples: Any, micro: int, dp: int, rank: int, seq_length: int, pad: int
                  ) -> Iterator[dict[str, torch.Tensor]]:
    """This rank's share of a validation set (positions ``rank, rank + dp, ...``), in
    micro-batches; every rank yields the same number of batches (a rank out of samples gets
    one without targets), since sharded forwards need every rank."""
    mine = list(range(rank, len(samples), dp))
    per_rank = -(-len(samples) // dp)
    for i in range(0, per_rank, micro):
        chunk = mine[i:i + micro]
        if chunk:
            yield collate([samples[k] for k in chunk], seq_length, pad, samples.shifted)
        else:
            empty = Sample(np.full(1, pad, np.int64), np.full(1, IGNORE, np.int64))
            yield collate([empty], seq_length, pad, samples.shifted)
