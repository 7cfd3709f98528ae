"""The word-problem families read as a modeller would read their optima: the ratio rules of a
product mix bind and hold, a fleet has strictly more of its first type in whole units and a
fractional relaxation, a goal programme pays exactly its weighted misses, and purchases under
quantity discounts fill their tiers in order; the large bands keep their size and most draws
pass the generation gates."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.mutate import family_values
from ortrex.engine.generate.pipeline import task_seed, verify
from ortrex.ir.semantic import SemanticModel
from ortrex.render.statement import render_statement
from ortrex.verifiers.solvers import solve_highs

FAMILIES = ("product_mix_ratio", "fleet_mix", "goal_programming", "piecewise_procurement")
TOL = 1e-6


def _solved(sm: SemanticModel) -> tuple[dict[str, np.ndarray], float]:
    """The optimum of ``sm`` by variable family, and its objective."""
    g = sm.ground()
    res = solve_highs(g, keep_solution=True)
    assert res.status.value == "optimal" and res.x is not None
    return family_values(sm, list(g.var_names), res.x), float(res.objective)


def _p(sm: SemanticModel, name: str) -> np.ndarray:
    return np.asarray(sm.param_map[name].values, dtype=float)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("size", ["small", "medium"])
def test_most_draws_pass_the_generation_gates(family: str, size: str) -> None:
    accepted = sum(verify((sm := REGISTRY[family].sample(task_seed(31, k), size)).ground(),
                          sm).accepted for k in range(8))
    assert accepted >= 7, (family, size, accepted)


def test_product_mix_rules_hold_and_a_ratio_rule_binds() -> None:
    binding = 0
    draws = 0
    for size in ("small", "medium", "large"):
        for k in range(8):
            sm = REGISTRY["product_mix_ratio"].sample(task_seed(5, k), size)
            x, objective = _solved(sm)
            x = x["x"]
            draws += 1
            use, avail = _p(sm, "use"), _p(sm, "avail")
            assert np.all(use @ x <= avail + TOL)
            assert np.sum(x > TOL) >= 2  # a mix, not one product
            if sm.var_map["x"].vtype == "I":
                assert np.allclose(x, np.round(x), atol=TOL)
                assert "budget" in sm.param_map  # whole pieces and ads come with a budget
            tight = False
            if "share" in sm.param_map:
                share = float(_p(sm, "share"))
                assert 100 * x[0] >= share * x.sum() - TOL
                tight |= abs(100 * x[0] - share * x.sum()) <= 1e-6 * max(1.0, 100 * x.sum())
            if "ratio" in sm.param_map:
                ratio = float(_p(sm, "ratio"))
                assert x[-1] <= ratio * x[0] + TOL
                tight |= abs(x[-1] - ratio * x[0]) <= 1e-6 * max(1.0, x.sum())
            assert {"share", "ratio"} & set(sm.param_map), "no ratio rule"
            if "total_cap" in sm.param_map:
                assert x.sum() <= float(_p(sm, "total_cap")) + TOL
            assert objective == pytest.approx(float(_p(sm, "gain") @ x))
            binding += tight
    # Whole units can leave a rule a little slack; continuous plans meet them exactly.
    assert binding >= 0.6 * draws, (binding, draws)


def test_product_mix_says_how_whole_its_decisions_are() -> None:
    seen = set()
    for k in range(40):
        sm = REGISTRY["product_mix_ratio"].sample(task_seed(6, k), "small")
        if sm.domain in seen:
            continue
        seen.add(sm.domain)
        text = render_statement(sm, "DP", "situation:narrative", seed=k).text
        if sm.var_map["x"].vtype == "I":
            assert re.search(r"whole (?:pieces|ads)", text), text
        else:
            assert re.search(r"[Ff]ractions|need not be whole", text), text
    assert seen == {"manufacturing", "agriculture", "marketing", "food"}


def test_fleet_has_strictly_more_of_its_first_type_in_whole_units() -> None:
    for size in ("small", "medium", "large"):
        for k in range(8):
            sm = REGISTRY["fleet_mix"].sample(task_seed(7, k), size)
            values, objective = _solved(sm)
            x = values["x"]
            assert np.allclose(x, np.round(x), atol=TOL)
            assert x[0] >= x[-1] + 1 - TOL  # "more than", in whole units
            assert _p(sm, "capacity") @ x >= float(_p(sm, "demand")) - TOL
            if "max_last" in sm.param_map:
                assert x[-1] <= float(_p(sm, "max_last")) + TOL
            if "budget" in sm.param_map:  # fewest units within the budget
                assert _p(sm, "cost") @ x <= float(_p(sm, "budget")) + TOL
                assert objective == pytest.approx(x.sum())
            else:
                assert objective == pytest.approx(float(_p(sm, "cost") @ x))
            # Integrality matters: the relaxation is strictly better than the whole plan.
            relaxed = solve_highs(sm.ground().replace(
                var_types=np.full(sm.ground().num_vars, "C")))
            assert relaxed.objective < objective - 1e-6 * max(1.0, abs(objective))


def test_fleet_statement_tells_the_strict_rule() -> None:
    sm = REGISTRY["fleet_mix"].sample(task_seed(7, 1), "small")
    first, last = sm.set_map["K"].elements[0], sm.set_map["K"].elements[-1]
    for seed in range(6):
        st = render_statement(sm, "DP", "situation:narrative", seed=seed)
        rule = st.account["more_first"]
        assert first in rule and last in rule
        assert re.search(r"strictly greater|same number of each is not enough", rule), rule


def test_goal_programme_pays_exactly_its_weighted_misses() -> None:
    for size in ("small", "medium", "large"):
        for k in range(6):
            sm = REGISTRY["goal_programming"].sample(task_seed(8, k), size)
            v, objective = _solved(sm)
            x = v["x"]
            profit = float(_p(sm, "profit") @ x)
            short = max(0.0, float(_p(sm, "profit_target")) - profit)
            vol_short = max(0.0, float(_p(sm, "volume_target")) - x.sum())
            over = np.maximum(0.0, _p(sm, "hours") @ x - _p(sm, "hours_target"))
            # At the optimum no goal is both missed and beaten: the deviations are exact.
            for a, b in (("profit_short", "profit_extra"), ("volume_short", "volume_extra"),
                         ("idle", "overtime")):
                assert np.all(np.minimum(v[a], v[b]) <= 1e-6), (a, b)
            penalty = float(_p(sm, "w_profit")) * short + float(_p(sm, "w_volume")) * \
                vol_short + float(_p(sm, "w_over") @ over)
            assert objective == pytest.approx(penalty, rel=1e-6, abs=1e-6)
            assert objective > 1e-6  # some goal is missed: a real trade-off
            assert np.all(_p(sm, "use") @ x <= _p(sm, "avail") + TOL)
            assert np.sum(x > TOL) >= 2


def test_goal_programme_meeting_every_goal_is_trivial() -> None:
    sm = REGISTRY["goal_programming"].sample(task_seed(8, 0), "small")
    fam = REGISTRY["goal_programming"]
    zero = {n: np.zeros(1) for n in ("profit_short", "volume_short", "overtime")}
    assert fam.trivial(sm, zero) == "every goal is met: the targets are no trade-off"
    assert fam.trivial(sm, {**zero, "overtime": np.array([2.0])}) is None


def _tiers_in_order(q: np.ndarray, size: np.ndarray) -> bool:
    """Every used tier of every (material, supplier) follows full tiers before it."""
    nM, nS, nT = q.shape
    for m in range(nM):
        for s in range(nS):
            for t in range(1, nT):
                if q[m, s, t] > TOL and q[m, s, t - 1] < size[s, t - 1] - 1e-5:
                    return False
    return True


def test_purchases_fill_their_discount_tiers_in_order() -> None:
    reached = 0
    for size in ("small", "medium"):
        for k in range(6):
            sm = REGISTRY["piecewise_procurement"].sample(task_seed(9, k), size)
            v, objective = _solved(sm)
            q, y = v["q"], v["y"]
            tier = _p(sm, "size")
            assert np.all(q <= tier[None, :, :] + TOL)
            assert _tiers_in_order(q, tier)
            assert np.all(q.sum(axis=(1, 2)) >= _p(sm, "demand") - TOL)
            assert np.all(q.sum(axis=(0, 2)) <= _p(sm, "cap") + TOL)
            assert objective == pytest.approx(float(np.sum(_p(sm, "price") * q)))
            reached += bool(np.any(y[:, :, 1:] > 0.5))
            # Without the tier binaries the cheaper later tiers would be filled first.
            relaxed = solve_highs(sm.ground().replace(
                var_types=np.full(sm.ground().num_vars, "C")))
            assert relaxed.objective < objective
    assert reached == 12  # every draw buys at a discount (the trivial bound is refused)


def test_piecewise_trivial_when_no_discount_is_reached() -> None:
    sm = REGISTRY["piecewise_procurement"].sample(task_seed(9, 0), "small")
    n = len(sm.set_map["M"]) * len(sm.set_map["S"]) * len(sm.set_map["T"])
    y = np.zeros(n).reshape(-1, 3)
    y[:, 0] = 1.0
    fam = REGISTRY["piecewise_procurement"]
    assert fam.trivial(sm, {"y": y.reshape(-1)}) == "no purchase reaches a discount tier"
    y[0, 1] = 1.0
    assert fam.trivial(sm, {"y": y.reshape(-1)}) is None


def test_the_large_bands_keep_their_size() -> None:
    for k in range(3):
        buy = REGISTRY["piecewise_procurement"].sample(task_seed(10, k), "large").ground()
        assert buy.num_vars >= 150 and buy.stats().n_bin == buy.num_vars // 2
        gp_ = REGISTRY["goal_programming"].sample(task_seed(10, k), "large")
        assert 8 <= len(gp_.set_map["P"]) <= 12 and 4 <= len(gp_.set_map["D"]) + 2 <= 6
        # Word problems stay small: four or five decisions at the large band.
        for name in ("product_mix_ratio", "fleet_mix"):
            g = REGISTRY[name].sample(task_seed(10, k), "large").ground()
            assert 4 <= g.num_vars <= 5
    sm = REGISTRY["piecewise_procurement"].sample(task_seed(10, 0), "large")
    assert verify(sm.ground(), sm).accepted
