"""The nonlinear group: the risk-limited portfolio, pooling, lot sizes under a space limit and
the quadratic assignment problem. HiGHS takes none of them (quadratic rows, a quadratic
objective over binaries), so each optimum is read back from Gurobi and checked against the
story's rules, and where it can be, against an optimum found another way (the square-root law
with its multiplier, every permutation of a small layout). The large band is large where the
class allows it (and within the size-limited Gurobi licence), and sampled instances pass the
generation gates."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.pipeline import task_seed, verify
from ortrex.ir.semantic import SemanticModel
from ortrex.render.statement import render_statement
from ortrex.verifiers.solvers import SolveStatus, objectives_agree, solve_gurobi, solve_highs
from tests.engine.family_checks import (
    assert_answer_in_own_names,
    gate_outcomes,
    large_band,
    solved,
)

FAMILIES = ("risk_limited_portfolio", "pooling", "lot_size_space", "quadratic_assignment")
TOL = 1e-5


def data(sm: SemanticModel) -> dict[str, np.ndarray]:
    return {p.name: np.asarray(p.values, dtype=float) for p in sm.params}


@pytest.mark.parametrize("family", FAMILIES)
def test_highs_declines_and_the_instances_are_flagged_single_solver(family: str) -> None:
    sm = REGISTRY[family].sample(task_seed(40, 0), "small")
    inst = sm.ground()
    assert solve_highs(inst).status is SolveStatus.UNSUPPORTED
    assert "single_solver" in verify(inst, sm, heuristics=False).flags


# ------------------------------------------------------------------ risk-limited portfolio
@pytest.mark.parametrize(("seed", "size"), [(s, z) for s in range(4) for z in ("small",
                                                                               "medium")])
def test_the_portfolio_keeps_its_risk_within_the_limit_and_the_limit_binds(seed: int,
                                                                            size: str) -> None:
    sm = REGISTRY["risk_limited_portfolio"].sample(task_seed(41, seed), size)
    values, objective = solved(sm, solve_gurobi)
    p = data(sm)
    w = values["w"]
    assert abs(w.sum() - 1.0) <= TOL and np.all(w >= -TOL)
    assert np.all(w <= p["limit"] + TOL)
    assert np.all(p["member"] @ w <= p["sector_cap"] + TOL)
    assert np.array_equal(p["member"].sum(axis=0), np.ones(w.size))  # one sector each
    variance = float(w @ p["cov"] @ w)
    cap = float(p["risk_cap"])
    assert variance <= cap * (1 + 1e-6)
    assert variance >= cap * (1 - 1e-4)  # the limit is what holds the return back
    assert objectives_agree(float(p["mean"] @ w), objective)
    assert np.sum(w > 1e-4) >= 2  # spread, not everything in one asset
    # The covariance is symmetric and positive definite: the limit is a convex rule.
    assert np.allclose(p["cov"], p["cov"].T) and np.linalg.eigvalsh(p["cov"]).min() > 0


# ------------------------------------------------------------------ pooling
@pytest.mark.parametrize(("seed", "size"), [(s, z) for s in range(4) for z in ("small",
                                                                               "medium")])
def test_pooling_keeps_every_spec_and_each_pool_is_the_mix_of_its_inflows(seed: int,
                                                                         size: str) -> None:
    sm = REGISTRY["pooling"].sample(task_seed(42, seed), size)
    values, objective = solved(sm, solve_gurobi)
    p = data(sm)
    x, y, z, quality = values["x"], values["y"], values["z"], values["p"]
    assert min(x.min(), y.min(), z.min()) >= -TOL
    # Only along pipes, every pool passes on what it gets, within its throughput.
    assert np.all(x[p["pipe"].T < 0.5] <= TOL)
    inflow, outflow = x.sum(axis=0), y.sum(axis=1)
    assert np.allclose(inflow, outflow, atol=1e-4)
    assert np.all(outflow <= p["pool_cap"] + 1e-4)
    # A pool's quality is the flow-weighted average of what is poured into it.
    used = inflow > 1e-3
    assert used.any()  # the pools carry something
    mix = (p["quality"] @ x)[used] / inflow[used]
    assert np.allclose(quality[used], mix, rtol=1e-4, atol=1e-4)
    # Every product within its limit, counting the pools' output and the kept sources.
    made = y.sum(axis=0) + z.sum(axis=0)
    content = quality @ y + p["quality_k"] @ z
    assert np.all(content <= p["limit"] * made + 1e-3)
    assert np.all(made <= p["demand"] + 1e-4)
    assert np.all(z.sum(axis=1) <= p["supply_k"] + 1e-4)
    profit = p["price"] @ made - p["cost"] @ x.sum(axis=1) - p["cost_k"] @ z.sum(axis=1)
    assert objectives_agree(float(profit), objective, rel=1e-5, abs_tol=1e-3)
    assert objective > 0


def test_pools_differ_in_pipes_and_mix_clean_with_dirty() -> None:
    mixed = 0
    for seed in range(6):
        sm = REGISTRY["pooling"].sample(task_seed(43, seed), "medium")
        p = data(sm)
        pipe = p["pipe"]
        assert len({tuple(row) for row in pipe}) == pipe.shape[0]  # no two pools alike
        assert np.all(pipe.sum(axis=0) >= 1)  # every source reaches a pool
        assert np.all(pipe.sum(axis=1) >= 2)  # every pool's quality is a choice
        values, _ = solved(sm, solve_gurobi)
        x = values["x"]
        # A pool fed by sources of different quality at once: pooling, not routing.
        mixed += int(any(np.sum(x[:, q] > 1e-3) >= 2 for q in range(x.shape[1])))
    assert mixed >= 4


# ------------------------------------------------------------------ lot sizing under space
def square_root_law(p: dict[str, np.ndarray]) -> tuple[np.ndarray, float]:
    """The lots of the space-limited EOQ by its multiplier (bisection on the room used):
    q(lam) = max(min_lot, sqrt(2 K D / (h + 2 lam a)))."""
    def lots(lam: float) -> np.ndarray:
        return np.maximum(p["min_lot"],
                          np.sqrt(2 * p["setup"] * p["demand"] / (p["hold"] + 2 * lam *
                                                                    p["space"])))
    lo, hi = 0.0, 1.0
    while p["space"] @ lots(hi) > p["room"]:
        hi *= 2
    for _ in range(200):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if p["space"] @ lots(mid) > p["room"] else (lo, mid)
    return lots(hi), hi


@pytest.mark.parametrize(("seed", "size"), [(s, z) for s in range(4) for z in ("small",
                                                                               "medium")])
def test_lot_sizes_follow_the_square_root_law_squeezed_by_the_room(seed: int,
                                                                   size: str) -> None:
    sm = REGISTRY["lot_size_space"].sample(task_seed(44, seed), size)
    values, objective = solved(sm, solve_gurobi)
    p = data(sm)
    q, n = values["q"], values["n"]
    assert np.all(q >= p["min_lot"] - TOL) and np.all(p["min_lot"] > 0)
    assert np.all(n * q >= p["demand"] * (1 - 1e-6))  # the orders cover the demand
    assert np.allclose(n, p["demand"] / q, rtol=1e-4)  # and no more
    used = float(p["space"] @ q)
    assert used <= p["room"] * (1 + 1e-5) and used >= p["room"] * (1 - 1e-4)  # binds
    cost = p["setup"] @ (p["demand"] / q) + 0.5 * p["hold"] @ q
    assert objectives_agree(float(cost), objective, rel=1e-5)
    # The same lots from the multiplier of the space limit: one price of room for every
    # item whose minimum does not bind, and the room squeezes every lot below its EOQ.
    lots, lam = square_root_law(p)
    assert lam > 0
    assert np.allclose(q, lots, rtol=2e-3, atol=0.05)
    eoq = np.sqrt(2 * p["setup"] * p["demand"] / p["hold"])
    free = q > p["min_lot"] + 1e-3
    assert free.any() and np.all(q[free] < eoq[free])
    best = p["setup"] @ (p["demand"] / lots) + 0.5 * p["hold"] @ lots
    assert objectives_agree(float(best), objective, rel=1e-5)


# ------------------------------------------------------------------ quadratic assignment
def layout_cost(flow: np.ndarray, dist: np.ndarray, where: np.ndarray) -> np.ndarray:
    """flow x distance of each assignment (rows of ``where``: facility -> location)."""
    return np.einsum("ik,pik->p", flow, dist[where[:, :, None], where[:, None, :]])


@pytest.mark.parametrize(("seed", "size"), [(s, z) for s in range(3) for z in ("small",
                                                                               "medium")])
def test_the_layout_is_a_permutation_and_no_other_is_cheaper(seed: int, size: str) -> None:
    sm = REGISTRY["quadratic_assignment"].sample(task_seed(45, seed), size)
    values, objective = solved(sm, solve_gurobi)
    p = data(sm)
    x = np.round(values["x"])
    assert np.abs(values["x"] - x).max() <= 1e-6
    assert np.array_equal(x.sum(axis=0), np.ones(len(x))) and \
        np.array_equal(x.sum(axis=1), np.ones(len(x)))
    where = x.argmax(axis=1)
    flow, dist = p["flow"], p["dist"]
    assert np.allclose(flow, flow.T) and np.all(np.diag(flow) == 0)
    assert np.all(flow.sum(axis=1) > 0)  # every facility trades with someone
    told = sum(flow[i, k] * dist[where[i], where[k]] for i in range(len(x))
               for k in range(len(x)))
    assert objectives_agree(float(told), objective)
    # Every permutation (at most 7! of them): Gurobi's is the cheapest, and the layout
    # matters (the worst costs more: a few percent at four facilities, more beyond).
    perms = np.array(list(itertools.permutations(range(len(x)))))
    costs = layout_cost(flow, dist, perms)
    assert objectives_agree(float(costs.min()), objective)
    assert costs.max() > 1.03 * costs.min()


# ------------------------------------------------------------------ all four
@pytest.mark.parametrize(("family", "least"), [
    ("risk_limited_portfolio", 150), ("pooling", 150), ("lot_size_space", 150),
    # n^2 binaries: Gurobi proves n = 8 in a second or two, n = 9 took up to 55 s and 150
    # variables would be n = 13, so the class stops the large band at 64 variables.
    ("quadratic_assignment", 64)])
def test_the_large_band_is_large_and_fits_the_licence(family: str, least: int) -> None:
    assert min(m.num_vars for m in large_band(family, 46)) >= least, family


@pytest.mark.parametrize(("family", "size"), [(f, z) for f in FAMILIES
                                              for z in ("small", "medium", "large")])
def test_sampled_instances_pass_the_gates(family: str, size: str) -> None:
    # Rejected only by a limit the optimum leaves far from used (a market, a sector).
    outs = gate_outcomes(family, size, 47, n=4, allowed=("postcheck:slack_capacity",),
                         heuristics=False)
    assert all("single_solver" in o.flags for o in outs)
    assert sum(o.accepted for o in outs) >= 3, (family, size)


def test_statements_tell_the_rules_a_modeller_needs() -> None:
    sm = REGISTRY["pooling"].sample(task_seed(48, 0), "small")
    for seed in range(3):
        text = render_statement(sm, "DP", "situation:narrative", seed=seed).text
        assert all(e in text for s in ("I", "K", "L", "J") for e in sm.set_map[s].elements)
        assert "average" in text  # a pool's quality is the mix of its inflows
    sm = REGISTRY["lot_size_space"].sample(task_seed(48, 1), "small")
    text = render_statement(sm, "DP", "situation:narrative", seed=0).text
    assert "half a lot" in text
    sm = REGISTRY["quadratic_assignment"].sample(task_seed(48, 2), "small")
    text = render_statement(sm, "DP", "situation:narrative", seed=0).text
    assert "both directions" in text or "Both directions" in text
    sm = REGISTRY["risk_limited_portfolio"].sample(task_seed(48, 3), "small")
    text = render_statement(sm, "DP", "situation:narrative", seed=0).text
    assert f"{float(sm.param_map['risk_cap'].values):g}" in text and "covariance" in text


@pytest.mark.parametrize("family", FAMILIES)
def test_the_answer_is_told_in_the_statements_names(family: str) -> None:
    sm = REGISTRY[family].sample(task_seed(49, 0), "small")
    assert_answer_in_own_names(sm, solve_gurobi)
