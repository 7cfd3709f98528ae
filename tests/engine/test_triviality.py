"""The triviality gate: trivial bounds, integral relaxations, per-family survival, the size mix."""

from __future__ import annotations

import dataclasses
from collections import Counter

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY, SIZES
from ortrex.engine.generate.filters import triviality_filter
from ortrex.engine.generate.job import JobSpec, mix_size
from ortrex.engine.generate.pipeline import run_task, task_seed, verify
from ortrex.ir.semantic import SemanticModel


def rebuilt(sm: SemanticModel, sizes: dict[str, int], values: dict[str, object]
            ) -> SemanticModel:
    """``sm`` with sets resized (elements renamed) and parameters replaced, in one step."""
    sets = tuple(dataclasses.replace(s, elements=tuple(f"{s.name.lower()}{k}"
                                                      for k in range(sizes[s.name])))
                 if s.name in sizes else s for s in sm.sets)
    params = tuple(dataclasses.replace(p, values=np.asarray(values[p.name], dtype=float))
                   if p.name in values else p for p in sm.params)
    return dataclasses.replace(sm, sets=sets, params=params)


def bin_packing(sizes: list[float], capacity: float, bins: int) -> SemanticModel:
    """A bin-packing instance with the given item sizes, capacity and bins offered."""
    sm = REGISTRY["bin_packing"].sample(task_seed(0, 1), "small")
    return rebuilt(sm, {"I": len(sizes), "B": bins},
                   {"size": np.array(sizes), "capacity": np.array(capacity)})


def test_bin_packing_using_every_bin_offered_is_trivial() -> None:
    # Three items of 60 in bins of 100: every bin holds one, so all three offered are used.
    trivial = bin_packing([60, 60, 60], 100, 3)
    out = verify(trivial.ground(), trivial)
    assert not out.accepted and out.rejection.reason == "trivial"
    assert out.rejection.detail == "all 3 bins offered are used"
    # Its twin with two items of 40 in four bins: 60+40 twice, two bins of four used.
    twin = bin_packing([60, 60, 40, 40], 100, 4)
    out = verify(twin.ground(), twin)
    assert out.accepted, out.rejection
    assert out.objective == pytest.approx(2.0)


def set_cover(covers: np.ndarray, cost: np.ndarray) -> SemanticModel:
    """A set-cover instance with the given membership (elements x sets) and costs."""
    sm = REGISTRY["set_cover"].sample(task_seed(0, 2), "small")
    nU, nS = covers.shape
    return rebuilt(sm, {"U": nU, "S": nS}, {"covers": covers, "cost": cost})


# An odd cycle: every element lies in two of three sets; the LP relaxation takes each at 1/2.
CYCLE = np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], dtype=float)


def test_set_cover_one_set_covering_everything_is_trivial() -> None:
    # The fourth set covers all three elements (and is dearer than two of the others: the
    # gate reads the data, not only the optimum).
    whole = np.hstack([CYCLE, np.ones((3, 1))])
    trivial = set_cover(whole, np.array([10.0, 10.0, 10.0, 25.0]))
    out = verify(trivial.ground(), trivial)
    assert not out.accepted and out.rejection.reason == "trivial"
    assert out.rejection.detail == "one set (s3) covers every element"
    twin = set_cover(CYCLE, np.array([10.0, 11.0, 12.0]))
    out = verify(twin.ground(), twin)
    assert out.accepted, out.rejection
    assert out.objective == pytest.approx(21.0)


def test_an_integral_relaxation_is_trivial_unless_the_family_is_unimodular() -> None:
    # A path of three elements (no odd cycle): the LP relaxation picks the middle set whole.
    path = np.array([[1, 0, 0], [1, 1, 0], [0, 1, 1]], dtype=float)
    small = set_cover(path, np.array([10.0, 10.0, 30.0]))
    # Rejected at every size, a small one (a textbook exercise) included.
    for size in SIZES:
        sm = dataclasses.replace(small, descriptors={**small.descriptors, "size": size})
        out = verify(sm.ground(), sm)
        assert "lp_relaxation_integral" in out.flags
        assert not out.accepted and out.rejection.reason == "trivial", size
        assert "LP relaxation is integral" in out.rejection.detail
    # Its twin on the odd cycle (relaxation at 1/2 each, 15 < 21) is accepted and not flagged.
    twin = set_cover(CYCLE, np.array([10.0, 11.0, 12.0]))
    out = verify(twin.ground(), twin)
    assert out.accepted and "lp_relaxation_integral" not in out.flags, out.rejection
    # The same integral relaxation in an assignment (totally unimodular) is its nature.
    assert REGISTRY["assignment"].natural_integrality.startswith("totally unimodular")
    assert not REGISTRY["set_cover"].natural_integrality
    sm = REGISTRY["assignment"].sample(task_seed(0, 1), "small")
    out = verify(sm.ground(), sm)
    assert "lp_relaxation_integral" in out.flags and out.accepted, out.rejection
    # And the gate itself: integral relaxation flagged, family decides.
    x = np.zeros(sm.ground().num_vars)
    x[:2] = 1.0
    model = sm.ground()
    assert triviality_filter(model, sm, x, relaxation_integral=True) is None
    for size in SIZES:
        renamed = dataclasses.replace(sm, family="unknown_family",
                                      descriptors={**sm.descriptors, "size": size})
        rej = triviality_filter(model, renamed, x, relaxation_integral=True)
        assert rej is not None and rej.reason == "trivial", size
        assert triviality_filter(model, renamed, x, relaxation_integral=False) is None


def test_a_single_nonzero_decision_is_trivial() -> None:
    sm = REGISTRY["knapsack_01"].sample(task_seed(0, 3), "small")
    model = sm.ground()
    x = np.zeros(model.num_vars)
    x[2] = 1.0
    rej = triviality_filter(model, sm, x)
    assert rej is not None and rej.detail == f"a single decision ({model.var_names[2]}) " \
                                             "attains the optimum"
    x[:] = 1.0  # every item taken
    assert triviality_filter(model, sm, x).detail.startswith("every item is taken")


def test_samplers_avoid_the_trivial_bounds() -> None:
    for k in range(10):
        for size in SIZES:
            rng = task_seed(3, k)
            bp = REGISTRY["bin_packing"].sample(rng, size)
            size_, cap = bp.param_map["size"].values, float(bp.param_map["capacity"].values)
            assert len(bp.set_map["B"]) > np.ceil(size_.sum() / cap)  # room to spare
            sc = REGISTRY["set_cover"].sample(task_seed(3, k), size)
            assert not sc.param_map["covers"].values.all(axis=0).any()
            cb = REGISTRY["capital_budgeting"].sample(task_seed(3, k), size)
            spend, budget = cb.param_map["spend"].values, cb.param_map["budget"].values
            assert (spend <= budget[None, :]).all()  # every project fits every year
            for name in ("knapsack_01", "knapsack_bounded"):
                ks = REGISTRY[name].sample(task_seed(3, k), size)
                w, c = ks.param_map["weight"].values, float(ks.param_map["capacity"].values)
                copies = ks.param_map["copies"].values if name == "knapsack_bounded" else 1.0
                assert w.max() <= c < (w * copies).sum()


def test_capital_budgeting_projects_spend_when_they_start_and_never_nothing() -> None:
    """Every project needs money in its first year and until its build is done, zeros only
    after it (a project of no cost is no decision); the instances stay solvable."""
    accepted = 0
    for size in SIZES:
        for k in range(25):
            sm = REGISTRY["capital_budgeting"].sample(task_seed(4, k), size)
            spend = sm.param_map["spend"].values
            assert (spend[:, 0] >= 5).all(), spend
            assert (spend.sum(axis=1) >= 5).all()
            building = spend > 0
            # Once a project stops spending it never spends again: no gap, no late start.
            assert not (~building[:, :-1] & building[:, 1:]).any(), spend
        out = verify(sm.ground(), sm)
        accepted += out.accepted
    assert accepted >= 2


SURVIVAL_SEEDS = 6


@pytest.mark.parametrize("size", ["small", "medium"])
def test_the_gate_kills_no_family(size: str) -> None:
    """Every family keeps some accepted instances at each size (large: see the slow test)."""
    rates = {}
    for name in sorted(REGISTRY):
        acc = sum(run_task(name, size, 11, k, 10.0).outcome.accepted
                  for k in range(SURVIVAL_SEEDS))
        rates[name] = acc
    print(size, rates)
    assert all(v >= 1 for v in rates.values()), rates


def test_the_size_mix_is_deterministic_with_medium_the_median() -> None:
    spec = JobSpec(("knapsack_01",), 10, seed=5, size="mix")
    again = JobSpec(("knapsack_01",), 10, seed=5, size="mix")
    drawn = [spec.size_of(k) for k in range(4000)]
    assert drawn == [again.size_of(k) for k in range(4000)]
    assert drawn != [JobSpec(("knapsack_01",), 10, seed=6, size="mix").size_of(k)
                     for k in range(4000)]
    counts = Counter(drawn)
    order = {s: i for i, s in enumerate(SIZES)}
    assert sorted(drawn, key=order.__getitem__)[len(drawn) // 2] == "medium"
    assert 0.25 < counts["small"] / 4000 < 0.35 and 0.40 < counts["medium"] / 4000 < 0.50
    assert set(counts) == set(SIZES)
    assert mix_size(5, 17) == spec.size_of(17)
    # A fixed size stays fixed, and the run id (content-derived) tells mix from small.
    assert {JobSpec(("knapsack_01",), 10, seed=5, size="large").size_of(k)
            for k in range(50)} == {"large"}
    assert spec.run_id != JobSpec(("knapsack_01",), 10, seed=5, size="small").run_id
