"""The rostering and several-objectives group: a days-off staff roster, a plan scored by a
weighted sum of objectives and a lexicographic plan. Each optimum read back keeps the story's
rules and is checked by code that shares nothing with the families (the roster against a
MILP built here from the data alone, the weighted plan against every plan of each period, the
lexicographic plan against every assignment, ranked by count first and cost second with no
weight at all), the large band is large enough and within the licence, and sampled instances
pass the generation gates."""

from __future__ import annotations

from itertools import product

import numpy as np
import pytest
from scipy.optimize import Bounds, LinearConstraint, milp

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.rostering import day_patterns
from ortrex.engine.generate.pipeline import task_seed
from ortrex.render.statement import render_statement
from tests.engine.family_checks import (
    assert_answer_in_own_names,
    gate_outcomes,
    large_band,
    rejection_reason,
    solved,
    values,
    with_param,
)
from tests.samples import verified_parent

FAMILIES = ("nurse_rostering", "weighted_objectives", "lexicographic_plan")


def test_patterns_are_cyclic_runs_of_working_days() -> None:
    works = day_patterns(5)
    assert works.shape == (7, 7) and np.all(works.sum(axis=1) == 5)
    assert np.all(works.sum(axis=0) == 5)  # every day worked by five rotations
    for row in works:  # the two days off are adjacent (cyclically)
        off = np.flatnonzero(row == 0)
        assert (off[1] - off[0]) in (1, 6)


@pytest.mark.parametrize(("size", "seed"), [("small", 0), ("small", 1), ("medium", 2),
                                            ("medium", 3)])
def test_the_counts_roster_covers_every_day_at_the_least_cost(size: str, seed: int) -> None:
    sm = REGISTRY["nurse_rostering"].sample(task_seed(61, seed), size)
    v, objective = solved(sm)
    works, need, cost = values(sm, "works"), values(sm, "need"), values(sm, "cost")
    x = np.round(v["x"]).reshape(cost.shape)  # pattern x shift
    assert np.all(x >= 0)
    assert np.all(works.T @ x >= need - 1e-9)  # day x shift
    assert float((cost * x).sum()) == pytest.approx(objective, rel=1e-9)
    # Independently: the shifts do not interact, so each is a covering MILP of its own.
    best = 0.0
    for k in range(cost.shape[1]):
        res = milp(cost[:, k], constraints=LinearConstraint(works.T, need[:, k], np.inf),
                   integrality=np.ones(len(cost)), bounds=Bounds(0, np.inf))
        assert res.status == 0
        best += res.fun
    assert objective == pytest.approx(best, rel=1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_the_named_roster_gives_each_one_pattern_and_charges_the_refused_days(seed: int
                                                                             ) -> None:
    sm = REGISTRY["nurse_rostering"].sample(task_seed(62, seed), "large")
    v, objective = solved(sm)
    works, need, cost = values(sm, "works"), values(sm, "need"), values(sm, "cost")
    request, refusal = values(sm, "request"), float(values(sm, "refusal"))
    nS, nP = request.shape[0], works.shape[0]
    y = np.round(v["y"]).reshape(nS, nP)
    assert np.all(y.sum(axis=1) <= 1)
    worked = y @ works  # staff x day
    assert np.all(worked.sum(axis=0) >= need)
    refused = float((worked * request).sum())
    assert float(y.sum(axis=0) @ cost) + refusal * refused == pytest.approx(objective, rel=1e-9)
    # Independently: a MILP over (staff, pattern) built here from the data alone.
    charge = (cost[None, :] + refusal * request @ works.T).ravel()
    one = np.kron(np.eye(nS), np.ones(nP))
    cover = np.tile(works.T, nS)
    res = milp(charge, constraints=[LinearConstraint(one, -np.inf, 1),
                                    LinearConstraint(cover, need, np.inf)],
               integrality=np.ones(nS * nP), bounds=Bounds(0, 1))
    assert res.status == 0
    assert objective == pytest.approx(res.fun, rel=1e-9)


@pytest.mark.parametrize("seed", range(3))
def test_the_weighted_plan_is_the_best_of_every_plan_period_by_period(seed: int) -> None:
    sm = REGISTRY["weighted_objectives"].sample(task_seed(63, seed), "small")
    v, objective = solved(sm)
    hours, margin, emis = values(sm, "hours"), values(sm, "margin"), values(sm, "emis")
    demand, capacity, max_ot = values(sm, "demand"), values(sm, "capacity"), values(sm, "max_ot")
    w_p, w_e, w_o = (float(values(sm, k)) for k in ("w_profit", "w_emis", "w_ot"))
    x = np.round(v["x"]).reshape(demand.shape)
    o = v["o"].reshape(capacity.shape)
    assert np.all(x <= demand) and np.all(o <= max_ot + 1e-9)
    assert np.all(hours @ x - o <= capacity + 1e-6)
    score = w_p * margin @ x.sum(axis=1) - w_e * emis @ x.sum(axis=1) - w_o * o.sum()
    assert score == pytest.approx(objective, rel=1e-7)
    # Independently: nothing carries from one period to the next, so the best plan is the
    # best of each period, found over every whole plan of that period; the overtime a plan
    # needs is what its hours take beyond the regular ones.
    best = 0.0
    for t in range(demand.shape[1]):
        plans = np.array(list(product(*(range(int(d) + 1) for d in demand[:, t]))))
        over = np.maximum(0.0, plans @ hours.T - capacity[:, t])  # plan x machine
        ok = np.all(over <= max_ot[:, t] + 1e-9, axis=1)
        scores = plans @ (w_p * margin - w_e * emis) - w_o * over.sum(axis=1)
        best += float(scores[ok].max())
    assert objective == pytest.approx(best, rel=1e-7)


@pytest.mark.parametrize("seed", range(3))
def test_the_lexicographic_plan_serves_the_most_orders_then_costs_the_least(seed: int
                                                                          ) -> None:
    sm = REGISTRY["lexicographic_plan"].sample(task_seed(64, seed), "small")
    v, objective = solved(sm)
    load, cost, cap = values(sm, "load"), values(sm, "cost"), values(sm, "capacity")
    nO, nL = cost.shape
    x = np.round(v["x"]).reshape(nO, nL)
    got = (int(x.sum()), float((cost * x).sum()))
    assert np.all(x.T @ load <= cap + 1e-9)
    # Independently, with no weight: every assignment (or none) of each order, ranked by the
    # count served first and by cost only between equal counts.
    best: tuple[int, float] | None = None
    for where in product(range(nL + 1), repeat=nO):  # nL: not served
        w = np.array(where)
        used = np.bincount(w, weights=load, minlength=nL + 1)[:nL]
        if np.any(used > cap + 1e-9):
            continue
        served = w < nL
        key = (int(served.sum()), -float(cost[np.flatnonzero(served), w[served]].sum()))
        best = key if best is None or key > best else best
    assert best is not None
    assert got == (best[0], pytest.approx(-best[1], rel=1e-9))
    assert objective == pytest.approx(float(values(sm, "weight")) * got[0] - got[1], rel=1e-9)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_large_band_is_large_and_fits_the_licence(family: str) -> None:
    assert np.median([m.num_vars for m in large_band(family, 65, n=5)]) >= 150, family


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("size", ["small", "large"])
def test_sampled_instances_pass_the_gates(family: str, size: str) -> None:
    # Rejected only by the triviality gate (an integral relaxation, every order served).
    accepted = sum(o.accepted for o in gate_outcomes(family, size, 46))
    assert accepted >= 4, accepted


def test_statements_tell_the_refusal_cost_the_weights_and_the_priorities() -> None:
    sm = REGISTRY["nurse_rostering"].sample(task_seed(66, 0), "large")
    text = render_statement(sm, "DP", "situation:narrative", seed=0).text
    assert f"{float(values(sm, 'refusal')):g}" in text and "off" in text, text
    sm = REGISTRY["weighted_objectives"].sample(task_seed(66, 1), "small")
    text = render_statement(sm, "DP", "situation:narrative", seed=1).text
    for k in ("w_profit", "w_emis", "w_ot"):
        assert f"{float(values(sm, k)):g}" in text, (k, text)
    sm = REGISTRY["lexicographic_plan"].sample(task_seed(66, 2), "small")
    for seed in range(4):
        text = render_statement(sm, "DP", "situation:narrative", seed=seed).text
        assert "first" in text.lower() or "priorit" in text.lower(), text


@pytest.mark.parametrize("family", FAMILIES)
def test_the_answer_is_told_in_the_statements_names(family: str) -> None:
    sm = REGISTRY[family].sample(task_seed(67, 0), "small")
    assert_answer_in_own_names(sm)


def test_the_post_checks_reject_a_bad_child_and_accept_its_parent() -> None:
    sm = verified_parent("weighted_objectives")[0]
    assert rejection_reason(sm) is None
    # Overtime limits fifty times over: no limit is anywhere near used.
    bad = with_param(sm, "max_ot", values(sm, "max_ot") * 50.0)
    assert rejection_reason(bad) == "postcheck:slack_capacity"
    sm = verified_parent("lexicographic_plan")[0]
    assert rejection_reason(sm) is None
    # An order larger than every line: a choice no plan can ever take.
    load = values(sm, "load").copy()  # not the parent's own array
    load[0] = values(sm, "capacity").max() + 1
    assert rejection_reason(with_param(sm, "load", load)) == "postcheck:unusable_item"
    sm = verified_parent("nurse_rostering")[0]
    assert rejection_reason(sm) is None
    # No cover needed: the empty roster, a plan that decides nothing.
    assert rejection_reason(with_param(sm, "need", values(sm, "need") * 0.0)) == "degenerate"
