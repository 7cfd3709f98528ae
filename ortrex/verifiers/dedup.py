"""Near-duplicate statements (MinHash LSH) and decontamination against public benchmarks.

A statement's signature is the MinHash of its word 5-grams (lower-cased, punctuation split off,
numbers kept, so the same story with other data stays apart), with the text of its data files
appended for DPS. The corpus index says whether a new statement is too close to one of another
instance; the benchmark index does the same against the problems of every registered benchmark
(``ortrex.benchmarks.registry``), and a structural-fingerprint set of their reference models
catches the same model under other words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

import numpy as np
from datasketch import MinHash, MinHashLSH

from ortrex.benchmarks.base import BenchmarkText
from ortrex.benchmarks.registry import decontamination_texts

NUM_PERM = 128
SHINGLE = 5
_TOKEN = re.compile(r"[a-z]+|\d+(?:\.\d+)?|[^\sa-z\d]")


def shingles(text: str, k: int = SHINGLE) -> set[bytes]:
    """Word ``k``-grams of the normalised text."""
    words = _TOKEN.findall(text.lower())
    if len(words) < k:
        return {" ".join(words).encode()}
    return {" ".join(words[i:i + k]).encode() for i in range(len(words) - k + 1)}


def signature(text: str, num_perm: int = NUM_PERM) -> np.ndarray:
    """MinHash signature (uint64 array) of ``text``: what workers send and the store keeps."""
    m = MinHash(num_perm=num_perm)
    m.update_batch(list(shingles(text)))
    return m.hashvalues.astype(np.uint64)


def statement_text(statement: str, files: dict[str, str] | None = None) -> str:
    """What a reader gets: the statement, then its data files."""
    return statement + "".join(f"\n{name}\n{body}" for name, body in sorted((files or {}).items()))


_PROBE = MinHash(num_perm=1)
_SCHEME = getattr(_PROBE, "scheme", None)  # datasketch >= 2 asks for it explicitly
_DTYPE = _PROBE.hashvalues.dtype


def _minhash(sig: np.ndarray) -> MinHash:
    values = sig.astype(_DTYPE)
    if _SCHEME is None:
        return MinHash(num_perm=sig.size, hashvalues=values)
    return MinHash(num_perm=sig.size, hashvalues=values, scheme=_SCHEME)


class NearDuplicateIndex:
    """An LSH index of statement signatures, keyed by document id, grouped by instance."""

    def __init__(self, threshold: float = 0.85, num_perm: int = NUM_PERM) -> None:
        if not 0.0 < threshold <= 1.0:
            raise ValueError(f"near-duplicate threshold must be in (0, 1], got {threshold}")
        self.threshold, self.num_perm = threshold, num_perm
        self.lsh = MinHashLSH(threshold=threshold, num_perm=num_perm)
        self.group: dict[str, str] = {}
        self.sigs: dict[str, np.ndarray] = {}

    def __len__(self) -> int:
        return len(self.group)

    def nearest(self, sig: np.ndarray, group: str) -> tuple[str, float] | None:
        """The most similar indexed document of another group at or above the threshold."""
        best: tuple[str, float] | None = None
        for key in self.lsh.query(_minhash(sig)):
            if self.group[key] == group:
                continue
            sim = float(np.mean(self.sigs[key] == sig))
            if sim >= self.threshold and (best is None or sim > best[1]):
                best = (key, sim)
        return best

    def add(self, key: str, sig: np.ndarray, group: str) -> None:
        """Index a document (a key seen before is ignored)."""
        if key in self.group:
            return
        self.lsh.insert(key, _minhash(sig))
        self.group[key] = group
        self.sigs[key] = sig


# ---------------------------------------------------------------- benchmarks
def benchmark_texts(root: Path) -> list[BenchmarkText]:
    """Problem texts of every registered benchmark under ``root`` (the registry's
    :func:`~ortrex.benchmarks.registry.decontamination_texts`)."""
    return decontamination_texts(root)


class Decontaminator:
    """Flags statements close to a public benchmark problem and models equal to a reference."""

    def __init__(self, texts: Iterable[BenchmarkText], fingerprints: Iterable[str] = (),
                 threshold: float = 0.5, num_perm: int = NUM_PERM) -> None:
        self.index = NearDuplicateIndex(threshold, num_perm)
        self.texts: dict[str, BenchmarkText] = {}
        for t in texts:
            key = f"{t.source}:{t.key}"
            self.texts[key] = t
            self.index.add(key, signature(t.text, num_perm), key)
        self.fingerprints = set(fingerprints)

    def check(self, sig: np.ndarray, structural_fp: str | None = None) -> str | None:
        """Why this document is contaminated, or None."""
        if structural_fp and structural_fp in self.fingerprints:
            return "the model is structurally identical to a bench4opt reference LP"
        hit = self.index.nearest(sig, group="")
        if hit is not None:
            return f"text similar to {hit[0]} (MinHash Jaccard {hit[1]:.2f})"
        return None
