"""The corpus-level document checks: near-duplicate and decontamination.

Their verdicts need the whole corpus (the documents accepted so far, the benchmarks), so they
run in a job's single writer, one document at a time in task order, not in the workers; they
are entries of the same check list as the per-document checks (``registry.CHECKS``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import numpy as np

from ortrex.store.db import Store
from ortrex.verifiers.checks.document import Check
from ortrex.verifiers.dedup import Decontaminator, NearDuplicateIndex


@dataclass(frozen=True)
class CorpusDoc:
    """What a corpus-level check sees of one document."""

    id: str
    instance_id: str
    signature: np.ndarray  # the statement's MinHash (uint64)


@dataclass(frozen=True)
class CorpusContext:
    """What a job gives its corpus-level checks: the store and the thresholds."""

    store: Store
    near_duplicate: float = 0.85
    decontaminator: Decontaminator | None = None  # None: the shared benchmarks are absent


class CorpusJudge(Protocol):
    """A corpus-level check's state over one job."""

    def judge(self, doc: CorpusDoc) -> Check:
        """The verdict on one document."""
        ...

    def admit(self, doc: CorpusDoc) -> None:
        """An accepted document joins the corpus."""


@dataclass(frozen=True)
class CorpusCheck:
    """A corpus-level entry of the check list: its name, its judge's start, and the jobs it
    does not run in (job -> why)."""

    name: str
    start: Callable[[CorpusContext], CorpusJudge]
    not_in: dict[str, str] = field(default_factory=dict)

    @property
    def verifiers(self) -> tuple[str, ...]:
        """The verifier names of its verdict rows."""
        return (self.name,)


class NearDuplicates:
    """Rejects a statement too close (MinHash Jaccard) to an accepted one of another instance."""

    def __init__(self, ctx: CorpusContext) -> None:
        self.index = NearDuplicateIndex(ctx.near_duplicate)
        df = ctx.store.query("SELECT id, instance_id, minhash FROM documents WHERE status = "
                             "'accepted' AND minhash IS NOT NULL")
        for did, iid, blob in df.iter_rows():
            self.index.add(did, np.frombuffer(blob, dtype="<u8"), iid)

    def judge(self, doc: CorpusDoc) -> Check:
        """Fail with the nearest accepted document of another instance, if any."""
        near = self.index.nearest(doc.signature, doc.instance_id)
        return Check("near_duplicate", "fail" if near else "pass",
                     details={"why": f"near-duplicate of document {near[0]} "
                                     f"(MinHash Jaccard {near[1]:.2f})"} if near else {})

    def admit(self, doc: CorpusDoc) -> None:
        """Index an accepted document."""
        self.index.add(doc.id, doc.signature, doc.instance_id)


class Decontamination:
    """Rejects a statement close to a benchmark problem, or an instance of a benchmark's
    reference model; skipped (said so) where the shared benchmarks are absent."""

    def __init__(self, ctx: CorpusContext) -> None:
        self.decon = ctx.decontaminator
        fps = ctx.store.query("SELECT id, structural_fp FROM instances")
        self.fp: dict[str, Any] = dict(fps.iter_rows()) if fps.height else {}

    def judge(self, doc: CorpusDoc) -> Check:
        """Fail with the benchmark item matched, if any."""
        if self.decon is None:
            return Check("decontamination", "skipped",
                         details={"why": "shared benchmarks not found"})
        why = self.decon.check(doc.signature, self.fp.get(doc.instance_id))
        return Check("decontamination", "fail" if why else "pass",
                     details={"why": why} if why else {})

    def admit(self, doc: CorpusDoc) -> None:
        """Nothing: the benchmarks do not grow with the corpus."""


def build_decontaminator(threshold: float) -> Decontaminator | None:
    """Benchmark texts and reference-model fingerprints, or None when the data is absent."""
    from ortrex.benchmarks.registry import decontamination_texts, reference_model_paths
    from ortrex.ir.formats import read_model
    from ortrex.paths import benchmarks_dir

    root = benchmarks_dir()
    if root is None:
        return None
    fps = set()
    for f in reference_model_paths(root):
        try:
            fps.add(read_model(f).structural_fingerprint)
        except ValueError:
            continue
    return Decontaminator(decontamination_texts(root), fps, threshold)


# Why the corpus-level checks do not run in two of the three document jobs.
RECHECK_KEEPS = ("a re-check keeps the corpus-level verdict rendering recorded (it re-runs "
                 "what one document decides; the corpus around it is unchanged)")
SEEDS_AS_GIVEN = ("seeds are external problems imported as they are, with their provenance: "
                  "they are not rendered statements")

CORPUS_CHECKS: tuple[CorpusCheck, ...] = (
    CorpusCheck("decontamination", Decontamination,
                {"verify documents": RECHECK_KEEPS, "import-seeds": SEEDS_AS_GIVEN}),
    CorpusCheck("near_duplicate", NearDuplicates,
                {"verify documents": RECHECK_KEEPS,
                 "import-seeds": SEEDS_AS_GIVEN + " (and carry no MinHash signature)"}),
)


__all__ = ["CORPUS_CHECKS", "CorpusCheck", "CorpusContext", "CorpusDoc", "CorpusJudge",
           "Decontamination", "NearDuplicates", "build_decontaminator"]
