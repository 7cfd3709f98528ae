"""Pairing by name before any graph work: a candidate map like the search's, checked number by
number, that decides only when it holds; otherwise the search decides as before."""

from __future__ import annotations

import numpy as np
import pytest

from ortrex.ir import transforms as tf
from ortrex.ir.canonical import CanonicalModel
from ortrex.verifiers.equivalence import check as eq
from ortrex.verifiers.equivalence.check import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    check_certificate,
    check_equivalence,
)
from ortrex.verifiers.equivalence.suite import (
    SIX_CYCLE,
    TWO_TRIANGLES,
    labelled_pairs,
    random_milp,
    symmetric_cases,
    vertex_cover,
)

BY_NAME = "paired by name"


def _mixed() -> CanonicalModel:
    """Rows of every normalised kind: inequalities, equalities with and without a right-hand
    side (whose sign the normal form leaves open), ranged rows; integers and bounds."""
    return CanonicalModel(
        var_names=["x", "y", "z", "w"], var_types="CCIC", lb=[0, -2, 0, 0], ub=[9, 5, 4, np.inf],
        obj=[1.0, -2.0, 3.0, 0.5], sense="min",
        A=np.array([[1.0, 2.0, 0, 0], [0, 1.0, -1.0, 0], [3.0, 0, 0, -1.0], [1.0, 1.0, 1.0, 1.0],
                    [0, 2.0, 0, 5.0]]),
        row_names=["ge", "eq0", "eq1", "rng", "le"],
        row_lower=[1.0, 0.0, 2.0, -1.0, -np.inf], row_upper=[np.inf, 0.0, 2.0, 6.0, 8.0])


def _same_names_variants(m: CanonicalModel, seed: int) -> list[CanonicalModel]:
    rng = np.random.default_rng(seed)
    signs = rng.uniform(0.3, 5.0, m.num_rows) * rng.choice([-1.0, 1.0], m.num_rows)
    return [tf.scale_rows(m, signs), tf.flip_sense(m), tf.bounds_as_rows(m, -2.0),
            tf.shuffle(m, rng), tf.shuffle(tf.flip_sense(tf.scale_rows(m, signs)), rng)]


@pytest.mark.parametrize("seed", range(4))
def test_same_names_pair_by_name_with_a_checked_certificate(seed: int) -> None:
    for base in (_mixed(), random_milp(200, seed=seed)):
        for other in _same_names_variants(base, seed):
            r = check_equivalence(base, other)
            assert r.verdict == EQUIVALENT and BY_NAME in r.reason, r.reason
            assert "names" in r.timings and "search" not in r.timings
            assert r.certificate is not None
            assert check_certificate(base, other, r.certificate) == ""


def test_a_name_map_that_fails_leaves_the_search_to_find_another() -> None:
    """x and y swap roles in B while keeping their names: equivalent, but not by name."""
    a = CanonicalModel(var_names=["x", "y"], obj=[1.0, 2.0], A=np.array([[1.0, 3.0]]),
                       row_names=["c"], row_lower=[1.0], row_upper=[np.inf])
    b = CanonicalModel(var_names=["x", "y"], obj=[2.0, 1.0], A=np.array([[3.0, 1.0]]),
                       row_names=["c"], row_lower=[1.0], row_upper=[np.inf])
    r = check_equivalence(a, b)
    assert r.verdict == EQUIVALENT and BY_NAME not in r.reason
    assert "search" in r.timings
    assert r.certificate is not None and r.certificate.var_map.tolist() == [1, 0]


def test_same_names_different_models_are_still_told_apart() -> None:
    # Same names, sizes and numbers; only the structure differs: the search proves it.
    r = check_equivalence(vertex_cover(SIX_CYCLE, 6), vertex_cover(TWO_TRIANGLES, 6))
    assert r.verdict == NOT_EQUIVALENT and "exhaustive search" in r.reason
    for _, model, miss in symmetric_cases():
        if miss is not None and miss.var_names == model.var_names:
            assert check_equivalence(model, miss).verdict == NOT_EQUIVALENT


def test_pairing_by_name_changes_no_verdict(monkeypatch: pytest.MonkeyPatch) -> None:
    models = [random_milp(60, seed=s) for s in range(3)] + [_mixed()]
    pairs = labelled_pairs(models, seed=5)
    pairs += [eq_pair for m in models for eq_pair in
              ((m, v) for v in _same_names_variants(m, 1))]  # type: ignore[misc]
    with_names = [check_equivalence(*_ab(p)).verdict for p in pairs]
    monkeypatch.setattr(eq, "_name_map", lambda a, b: None)
    without = [check_equivalence(*_ab(p)).verdict for p in pairs]
    assert with_names == without
    assert with_names.count(EQUIVALENT) > len(models) * 5


def _ab(p: object) -> tuple[CanonicalModel, CanonicalModel]:
    return (p.a, p.b) if hasattr(p, "a") else p  # type: ignore[return-value,attr-defined]
