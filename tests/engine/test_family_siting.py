"""The siting families read as a modeller would read their optima: a p-median opens exactly p
sites and serves every customer whole within the capacities, a p-centre's worst case is the
best any p sites allow (checked against every choice of sites), a maximal covering counts
exactly the points its sites reach within the budget (checked against every affordable
choice), a network design balances every node on built arcs only; the large bands keep their
size and most draws pass the generation gates."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.mutate import family_values
from ortrex.engine.generate.pipeline import task_seed, verify
from ortrex.ir.semantic import SemanticModel
from ortrex.render.statement import render_statement
from ortrex.verifiers.solvers import solve_highs

FAMILIES = ("p_median", "p_center", "max_covering", "network_design")
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


@pytest.mark.parametrize("family", FAMILIES)
def test_the_large_band_is_large(family: str) -> None:
    for k in range(6):
        g = REGISTRY[family].sample(task_seed(8, k), "large").ground()
        assert g.num_vars >= 150, (family, k, g.num_vars)
        assert g.num_vars <= 420, (family, k, g.num_vars)
    sm = REGISTRY[family].sample(task_seed(8, 0), "large")
    out = verify(sm.ground(), sm)
    assert out.accepted, out.rejection


def test_p_median_opens_exactly_p_sites_and_serves_everyone_whole() -> None:
    for size in ("small", "medium"):
        for k in range(5):
            sm = REGISTRY["p_median"].sample(task_seed(5, k), size)
            v, objective = _solved(sm)
            x, y = v["x"], v["y"]
            demand, dist = _p(sm, "demand"), _p(sm, "dist")
            p, cap = int(_p(sm, "n_open")), float(_p(sm, "capacity"))
            assert 2 <= p < len(sm.set_map["F"])
            assert np.allclose(x, np.round(x)) and np.allclose(y, np.round(y))
            assert round(x.sum()) == p  # exactly p sites
            assert np.allclose(y.sum(axis=0), 1.0)  # every customer whole, by one site
            assert np.all(y <= x[:, None] + TOL)  # only from an open site
            assert np.all(y @ demand <= cap + TOL)  # within the capacity
            assert objective == pytest.approx(float(np.sum(demand[None, :] * dist * y)))
            # The capacities bind: p sites only just hold the demand.
            assert demand.sum() <= p * cap < 1.25 * demand.sum()


def _worst_case(dist: np.ndarray, sites: tuple[int, ...]) -> float:
    return float(dist[list(sites)].min(axis=0).max())


def test_p_center_attains_the_best_worst_case_of_any_p_sites() -> None:
    for k in range(6):
        sm = REGISTRY["p_center"].sample(task_seed(6, k), "small")
        v, objective = _solved(sm)
        dist, p = _p(sm, "dist"), int(_p(sm, "n_open"))
        x, y = np.round(v["x"]), np.round(v["y"])
        assert round(x.sum()) == p and np.allclose(y.sum(axis=0), 1.0)
        opened = tuple(int(f) for f in np.flatnonzero(x > 0.5))
        # The worst case is the longest distance from a customer to its own site, and no
        # customer is farther from its site than it.
        served = (dist * y).sum(axis=0)
        assert objective == pytest.approx(float(served.max()))
        assert objective == pytest.approx(_worst_case(dist, opened))
        best = min(_worst_case(dist, s) for s in combinations(range(dist.shape[0]), p))
        assert objective == pytest.approx(best)
        # Not a trivial bound: opening every site would do better still.
        assert objective > float(dist.min(axis=0).max()) + TOL


def test_max_covering_counts_what_its_sites_reach_within_the_budget() -> None:
    for k in range(6):
        sm = REGISTRY["max_covering"].sample(task_seed(7, k), "small")
        v, objective = _solved(sm)
        covers, demand = _p(sm, "covers"), _p(sm, "demand")
        cost, budget = _p(sm, "cost"), float(_p(sm, "budget"))
        x, z = np.round(v["x"]), np.round(v["z"])
        assert cost @ x <= budget + TOL
        reached = (covers @ x) > 0.5
        assert np.all(z <= reached)  # nothing counts that no chosen site reaches
        assert objective == pytest.approx(float(demand @ reached))
        assert not reached.all()  # the budget binds: some point is left out
        nF = cost.size
        best = max(float(demand @ (covers[:, list(s)].sum(axis=1) > 0))
                   for r in range(nF + 1) for s in combinations(range(nF), r)
                   if cost[list(s)].sum() <= budget + TOL)
        assert objective == pytest.approx(best)


def test_network_design_balances_every_node_on_built_arcs_only() -> None:
    for size in ("small", "medium", "large"):
        for k in range(3):
            sm = REGISTRY["network_design"].sample(task_seed(9, k), size)
            v, objective = _solved(sm)
            x, y = v["x"], np.round(v["y"])
            tail, head = _p(sm, "tail").astype(int), _p(sm, "head").astype(int)
            supply, cap = _p(sm, "supply"), _p(sm, "capacity")
            assert supply.sum() == 0 and (supply > 0).any() and (supply < 0).any()
            net = np.zeros(supply.size)
            np.add.at(net, tail, x)
            np.subtract.at(net, head, x)
            assert np.allclose(net, supply, atol=1e-6)
            assert np.all(x <= cap * y + TOL)  # flow only on built arcs, within capacity
            assert 0 < y.sum() < y.size  # some arcs, not every arc
            fixed, cost = _p(sm, "fixed"), _p(sm, "cost")
            assert objective == pytest.approx(float(fixed @ y + cost @ x))


@pytest.mark.parametrize("family", FAMILIES)
def test_statements_say_the_rules_in_business_words(family: str) -> None:
    for k in range(4):
        sm = REGISTRY[family].sample(task_seed(12, k), "small")
        text = render_statement(sm, "DP", "situation:narrative", seed=k).text
        low = text.lower()
        for word in ("variable", "binary", "big-m", "assignment variable", "y[", "x["):
            assert word not in low, (family, word, text)
        if family in ("p_median", "p_center"):
            p = int(_p(sm, "n_open"))
            assert f"exactly {p} " in low, text
