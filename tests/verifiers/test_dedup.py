"""Near-duplicates by MinHash LSH; decontamination against the public benchmarks."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.render.statement import render_statement
from ortrex.verifiers.dedup import (
    Decontaminator,
    NearDuplicateIndex,
    benchmark_texts,
    signature,
    statement_text,
)


def test_near_duplicates_across_instances_only() -> None:
    sm = REGISTRY["transportation"].sample(np.random.default_rng(1), "medium")
    other = REGISTRY["transportation"].sample(np.random.default_rng(2), "medium")
    st = render_statement(sm, "DP", "narrative", seed=1)
    idx = NearDuplicateIndex(0.85)
    idx.add("d1", signature(st.text), "inst1")
    assert idx.nearest(signature(st.text), "inst1") is None  # same instance: not a duplicate
    hit = idx.nearest(signature(st.text + " Thanks."), "inst2")
    assert hit is not None and hit[0] == "d1" and hit[1] > 0.85
    # The same story with other data is not a near-duplicate.
    assert idx.nearest(signature(render_statement(other, "DP", "narrative", seed=1).text),
                       "inst2") is None
    # DPS statements differ only in their files: the files count.
    a = render_statement(sm, "DPS", "memo", seed=1)
    b = render_statement(other, "DPS", "memo", seed=1)
    idx.add("d2", signature(statement_text(a.text, a.files)), "inst1")
    assert idx.nearest(signature(statement_text(b.text, b.files)), "inst3") is None


def test_decontamination(shared_benchmarks: Path) -> None:
    texts = benchmark_texts(shared_benchmarks)
    assert {t.source for t in texts} == {"nl4opt", "optibench", "bench4opt",
                                         "bench4opt_feasible"}
    assert len(texts) == 289 + 600 + 394 + 344
    sample = [t for t in texts if t.source in ("nl4opt", "bench4opt")][:60]
    d = Decontaminator(sample, fingerprints={"abc"}, threshold=0.5)
    copied = sample[3].text.replace(".", ". ").replace("  ", " ")
    assert d.check(signature(copied)) is not None
    assert d.check(signature("A completely new story about shipping apples to stores."),
                   "xyz") is None
    assert "bench4opt reference" in (d.check(signature("anything"), "abc") or "")
    sm = REGISTRY["diet"].sample(np.random.default_rng(3), "small")
    assert d.check(signature(render_statement(sm, "DP", seed=1).text)) is None
