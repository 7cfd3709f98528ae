"""The equivalence checker's shortcuts against the general code they stand for: the pair refiner
and its memo against refining the union, the one-sort row comparison against the row-by-row
one."""

from __future__ import annotations

import numpy as np
import pytest

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import Refiner
from ortrex.verifiers.equivalence import check as eq
from ortrex.verifiers.equivalence import sides
from ortrex.verifiers.equivalence.check import EQUIVALENT, check_equivalence
from ortrex.verifiers.equivalence.isomorphism import MAX_SEARCH_ROUNDS, HalfMemo, PairRefiner
from ortrex.verifiers.equivalence.rowmatch import close, rows_match
from ortrex.verifiers.equivalence.suite import (
    SIX_CYCLE,
    TWO_TRIANGLES,
    assignment,
    disguise,
    random_milp,
    symmetric_cases,
    vertex_cover,
)

TOL = 1e-6


def _pairs() -> list[tuple[CanonicalModel, CanonicalModel]]:
    """Equivalent pairs, near misses, and two graphs colour refinement cannot tell apart."""
    out = [(m, disguise(m, 3)) for _, m, _ in symmetric_cases()]
    out += [(m, miss) for _, m, miss in symmetric_cases()]
    out.append((random_milp(300, seed=1), disguise(random_milp(300, seed=1), 2)))
    out.append((vertex_cover(SIX_CYCLE, 6), vertex_cover(TWO_TRIANGLES, 6)))
    return out


@pytest.mark.parametrize("k", range(7))
def test_pair_refiner_gives_the_union_refiners_colours(k: int) -> None:
    """Individualise an A node and a B node (of its class, or of another, so that the halves
    part), refine: the pair refiner's colours are the union refiner's, bit for bit, with an
    empty memo and again when the memo holds A's rounds."""
    a, b = _pairs()[k]
    sa, sb = sides.own_side(a, TOL), sides.own_side(b, TOL)
    n_a = sa.graph[0].size
    union = Refiner.union(sa.refiner, sb.refiner, n_a)
    memo = HalfMemo()
    pair = PairRefiner(sa.refiner, sb.refiner, n_a, memo)
    start = np.concatenate([sa.stable, sb.stable])
    rng = np.random.default_rng(k)
    parted = 0
    for _ in range(12):
        u = int(rng.integers(n_a))
        same = np.flatnonzero(start[n_a:] == start[u])
        v = n_a + int(rng.choice(same) if same.size and rng.random() < 0.7
                      else rng.integers(start.size - n_a))
        trial = start.copy()
        trial[u] = trial[v] = np.uint64(0xABCDEF + u)
        want = union(trial, MAX_SEARCH_ROUNDS, split=n_a)
        assert np.array_equal(pair(trial, MAX_SEARCH_ROUNDS, split=n_a), want)
        assert np.array_equal(pair(trial, MAX_SEARCH_ROUNDS, split=n_a), want)  # from the memo
        parted += not np.array_equal(np.sort(want[:n_a]), np.sort(want[n_a:]))
    assert memo.rounds and memo.size > 0
    assert k < 3 or parted  # near misses and random B nodes part the halves


def test_a_full_memo_stops_remembering(monkeypatch: pytest.MonkeyPatch) -> None:
    a = assignment(6)
    monkeypatch.setattr(HalfMemo, "LIMIT", 1)
    r = check_equivalence(a, disguise(a, 1))
    assert r.verdict == EQUIVALENT
    memo = sides.own_side(a, TOL).memo
    assert len(memo.rounds) + len(memo.cells) == 1  # the first entry fills it


def test_searches_against_many_copies_find_the_mappings_a_fresh_search_finds() -> None:
    """A symmetric model against several copies: the memo that the first search leaves on A
    changes no mapping of the later ones (each compared with a search from a fresh A)."""
    a = assignment(7)
    copies = [disguise(a, s) for s in range(4)]
    warm = [check_equivalence(a, c) for c in copies]
    assert len(sides.own_side(a, TOL).memo.rounds) > 10
    for c, w in zip(copies, warm, strict=True):
        fresh = check_equivalence(a.replace(name="fresh"), c)
        assert w.verdict == fresh.verdict == EQUIVALENT
        assert np.array_equal(w.certificate.var_map, fresh.certificate.var_map)  # type: ignore[union-attr]


def _sides_and_map(a: CanonicalModel, b: CanonicalModel
                   ) -> tuple[sides.Side, sides.Side, eq._Map]:
    r = check_equivalence(a, b)
    assert r.verdict == EQUIVALENT, r.reason
    found = sides.cached_sides(a, b, TOL)
    assert found is not None
    sa, sb, _ = found
    m = eq._map_from_certificate(sa, sb, r.certificate)  # type: ignore[arg-type]
    assert isinstance(m, eq._Map)
    return sa, sb, m


def _row_by_row(sa: sides.Side, sb: sides.Side, m: eq._Map) -> bool:
    return bool(rows_match(sa.nm, sa.rows, sb.nm, m.target, m.sign, m.var_map, TOL).all())


def test_one_sort_row_comparison_agrees_with_row_by_row() -> None:
    """Where it applies it says what the row-by-row comparison says, for a right map and for
    maps that break a row (two variables swapped, a row's sign flipped)."""
    a = random_milp(400, seed=3)
    sa, sb, m = _sides_and_map(a, disguise(a, 9))
    assert eq._every_row_matches(sa, sb, m, TOL) and _row_by_row(sa, sb, m)
    swapped = m.var_map.copy()
    swapped[[0, 1]] = swapped[[1, 0]]
    flipped = m.sign.copy()
    flipped[0] *= -1
    for bad in (eq._Map(swapped, m.target, m.sign), eq._Map(m.var_map, m.target, flipped)):
        assert not eq._every_row_matches(sa, sb, bad, TOL) and not _row_by_row(sa, sb, bad)
    assert eq._check(sa, sb, bad, TOL).startswith("row ")  # the flipped row, named


def test_one_sort_row_comparison_steps_aside_for_merged_and_quadratic_rows() -> None:
    """Merged duplicate rows and quadratic rows leave it to the row-by-row comparison, which
    still accepts the right map."""
    base = random_milp(200, seed=5)
    dup = base.replace(A=np.vstack([base.A.toarray(), base.A.toarray()[:1]]),
                       row_names=[*base.row_names, "dup"],
                       row_lower=np.append(base.row_lower, base.row_lower[0]),
                       row_upper=np.append(base.row_upper, base.row_upper[0]))
    quad = base.replace(qrows=([0], [0], [1], [2.0]))
    for a in (dup, quad):
        sa, sb, m = _sides_and_map(a, disguise(a, 4))
        assert not eq._every_row_matches(sa, sb, m, TOL)
        assert _row_by_row(sa, sb, m) and eq._check(sa, sb, m, TOL) == ""


EDGES = [0.0, -0.0, 1.0, -1.0, 1 + 1e-7, 1 + 1e-5, -1 - 1e-7, 1e-13, -1e-13, 2e-12, 1e300,
         1e300 * (1 + 1e-7), 1.7e308, -1.7e308, np.inf, -np.inf, np.nan, 3.0, 3.0 * (1 + 2e-6)]


@pytest.mark.parametrize("seed", range(40))
def test_near_distinct_is_the_close_test_on_neighbours(seed: int) -> None:
    """The cheap test on sorted numbers agrees with close() on every pair of neighbours, with
    zeros of both signs, numbers near the absolute floor, infinities, nan and numbers whose
    difference would overflow."""
    rng = np.random.default_rng(seed)
    x = np.concatenate([rng.choice(EDGES, int(rng.integers(0, 6))),
                        rng.integers(-3, 4, int(rng.integers(0, 8))) * 1.0,
                        rng.normal(0, 10, int(rng.integers(0, 4)))])
    s = np.sort(x)
    want = bool(((s[:-1] != s[1:]) & close(s[:-1], s[1:], TOL)).any()) if s.size > 1 else False
    assert sides.near_distinct(s, TOL) == want


def test_one_model_checked_on_threads_against_many_copies() -> None:
    """Threads sharing A's memo (its rounds extended under a lock) find the mappings that
    searches from a fresh A find one by one."""
    from concurrent.futures import ThreadPoolExecutor

    a = assignment(7)
    copies = [disguise(a, s) for s in range(8)]
    with ThreadPoolExecutor(4) as pool:
        shared = list(pool.map(lambda c: check_equivalence(a, c), copies))
    for c, r in zip(copies, shared, strict=True):
        fresh = check_equivalence(a.replace(name="fresh"), c)
        assert r.verdict == fresh.verdict == EQUIVALENT
        assert np.array_equal(r.certificate.var_map, fresh.certificate.var_map)  # type: ignore[union-attr]


@pytest.mark.parametrize("seed", range(30))
def test_permutation_check_is_one_to_one_onto(seed: int) -> None:
    """The sort-based check says what one_to_one says for maps of the full size: permutations,
    repeats, values out of range (negative or too large)."""
    from ortrex.verifiers.equivalence.rowmatch import one_to_one

    rng = np.random.default_rng(seed)
    n = int(rng.integers(0, 6))
    m = rng.permutation(n).astype(np.int64)
    if n and seed % 3 == 1:
        m[int(rng.integers(n))] = int(rng.choice([-1, n, m[0]]))
    assert eq._is_permutation(m, n) == one_to_one(m, n)
    assert not eq._is_permutation(m[:-1], n) or n == 0


def test_compared_models_are_freed_without_the_cycle_collector() -> None:
    """What a check caches on a model refers back to it weakly: a model dropped after a check
    is freed at once (a cycle would leave every checked model to the collector, which then
    spends its time scanning them; a batch of 3,125 pairs left 120,000 such objects)."""
    import gc
    import weakref

    a = random_milp(40, seed=3)
    b = disguise(a, 1)
    assert check_equivalence(a, b).verdict == EQUIVALENT
    assert sides.own_side(a, TOL).model is a
    refs = [weakref.ref(a), weakref.ref(b)]
    enabled = gc.isenabled()
    gc.disable()
    try:
        del a, b
        assert [r() for r in refs] == [None, None]
    finally:
        if enabled:
            gc.enable()
