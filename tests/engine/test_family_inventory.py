"""The inventory and planning families: each optimum obeys the client's rules when read back
from the solution, the large band is large, and sampled instances pass the generation gates."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.mutate import family_values
from ortrex.engine.generate.pipeline import task_seed, verify
from ortrex.render.statement import render_statement
from ortrex.verifiers.solvers import solve_highs

FAMILIES = ("backorder_planning", "workforce_planning", "multi_echelon", "bom_production")
TOL = 1e-6


def solved(family: str, seed: int, size: str = "small"
           ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray], float]:
    """A sample's data by name, its optimum by variable family (shaped) and the optimum."""
    sm = REGISTRY[family].sample(np.random.default_rng(seed), size)
    inst = sm.ground()
    r = solve_highs(inst, keep_solution=True)
    assert r.status.value == "optimal", (family, seed, r.status)
    data = {p.name: np.asarray(p.values, dtype=float) for p in sm.params}
    return data, family_values(sm, list(inst.var_names), r.x), float(r.objective)


def carried(before: np.ndarray, start: np.ndarray) -> np.ndarray:
    """Last period's value of a (item, period) array, the start value in the first period."""
    return np.concatenate([start[:, None], before[:, :-1]], axis=1)


@pytest.mark.parametrize("seed", range(4))
def test_backorders_are_cleared_and_output_waits_for_a_setup(seed: int) -> None:
    d, v, _ = solved("backorder_planning", seed, "medium")
    x, s, u, y = v["x"], v["s"], v["u"], v["y"]
    assert np.all(d["hours"] @ x <= d["capacity"] + TOL)  # within the line's hours
    assert np.all(u[:, -1] <= TOL)  # nothing owed after the last period
    assert np.all(x[y < 0.5] <= TOL)  # no output without a set-up
    assert np.all(np.isclose(y, np.round(y)))
    # Net stock (on hand less owed) carries over; none owed at the start.
    net = s - u
    assert np.allclose(carried(net, d["initial"]) + x - d["demand"], net, atol=1e-5)
    # Never both in stock and owing the same product at once: the penalty and the holding
    # cost both make that dearer than serving the orders.
    assert np.all(np.minimum(s, u) <= 1e-5)


def test_backorders_are_used_when_the_peak_outruns_the_line() -> None:
    late = [float(solved("backorder_planning", seed, "medium")[1]["u"].sum()) for seed in range(6)]
    assert sum(v > TOL for v in late) >= 4, late


@pytest.mark.parametrize("seed", range(4))
def test_workforce_covers_the_work_with_whole_staff(seed: int) -> None:
    d, v, _ = solved("workforce_planning", seed, "medium")
    w, h, f, o = v["w"], v["h"], v["f"], v["o"]
    for arr in (w, h, f):
        assert np.allclose(arr, np.round(arr)) and np.all(arr >= -TOL)
    assert np.allclose(carried(w, d["initial"]) + h - f, w)  # nobody moves between teams
    assert np.all(float(d["regular"]) * w + o >= d["demand"] - 1e-5)
    assert np.all(o <= float(d["ot_max"]) * w + 1e-5)
    assert np.all(h.sum(axis=0) <= d["hire_limit"] + TOL)
    assert not np.any((h > 0.5) & (f > 0.5))  # hiring and letting go at once never pays


def test_workforce_statements_say_staff_are_whole_and_overtime_is_not() -> None:
    sm = REGISTRY["workforce_planning"].sample(np.random.default_rng(2), "small")
    for seed in range(4):
        text = render_statement(sm, "DP", "situation:narrative", seed=seed).text
        assert re.search(r"whole (?:numbers of )?" + re.escape(sm.descriptors["words"]["staff"]),
                         text), text
        assert re.search(r"[Oo]vertime (?:can be any number of hours|hours need not be whole)",
                         text), text


@pytest.mark.parametrize("seed", range(4))
def test_supply_chain_serves_every_retailer_through_the_warehouses(seed: int) -> None:
    d, v, _ = solved("multi_echelon", seed, "medium")
    x, y, s = v["x"], v["y"], v["s"]
    assert np.all(y.sum(axis=0) >= d["demand"] - 1e-5)  # every retailer, every period
    assert np.all(x.sum(axis=0) <= d["plant_cap"] + 1e-5)
    assert np.all(s <= d["storage"][:, None] + 1e-5)
    assert np.all(y.sum(axis=1) <= d["dispatch"][:, None] + 1e-5)
    assert np.allclose(carried(s, d["initial"]) + x - y.sum(axis=1), s, atol=1e-5)


def test_supply_chain_builds_stock_ahead_of_the_peak() -> None:
    """The plant falls short in the peak: some stock is carried between periods."""
    held = []
    for seed in range(6):
        v = solved("multi_echelon", seed, "medium")[1]
        held.append(float(v["s"][:, :-1].sum()))
    assert sum(h > 1 for h in held) >= 4, held


@pytest.mark.parametrize("seed", range(4))
def test_bill_of_materials_is_respected_and_sales_stay_within_demand(seed: int) -> None:
    d, v, objective = solved("bom_production", seed, "medium")
    a, q, s, m, b, z = (v[k] for k in ("a", "q", "s", "m", "b", "z"))
    assert np.all(q <= d["demand"] + 1e-5)
    assert not np.all(q >= d["demand"] - 1e-5)  # the line cannot serve every order
    assert np.allclose(m + b, d["sub_use"].T @ a, atol=1e-5)  # each intermediate, each period
    assert np.allclose(z, d["part_use"].T @ m, atol=1e-5)  # raw materials for in-house work
    assert np.all(z <= d["part_limit"][:, None] + 1e-5)
    assert np.all(d["mhours"] @ m <= d["mcap"] + 1e-5)
    assert np.all(d["ahours"] @ a <= d["acap"] + 1e-5)
    assert np.allclose(carried(s, d["initial"]) + a - q, s, atol=1e-5)
    assert np.all(s[:, -1] <= 1e-5)  # nothing is made to be left over
    assert objective > 0
    # In-house processing is cheaper while the shop has hours: it is used.
    assert m.sum() > 0


def test_profit_pays_for_buying_ready_made_when_the_shop_is_full() -> None:
    bought = [float(solved("bom_production", seed, "medium")[1]["b"].sum()) for seed in range(6)]
    assert sum(v > TOL for v in bought) >= 4, bought


@pytest.mark.parametrize("family", FAMILIES)
def test_the_large_band_is_large(family: str) -> None:
    for seed in range(6):
        sm = REGISTRY[family].sample(np.random.default_rng(seed), "large")
        inst = sm.ground()
        assert 150 <= inst.num_vars <= 450, (family, seed, inst.num_vars)
        small = REGISTRY[family].sample(np.random.default_rng(seed), "small").ground()
        assert small.num_vars <= 60, (family, seed, small.num_vars)


@pytest.mark.parametrize("family", FAMILIES)
@pytest.mark.parametrize("size", ["small", "medium"])
def test_sampled_instances_pass_the_generation_gates(family: str, size: str) -> None:
    accepted = []
    for k in range(5):
        sm = REGISTRY[family].sample(task_seed(31, k), size)
        out = verify(sm.ground(), sm)
        accepted.append(out.accepted or out.rejection)
    assert sum(a is True for a in accepted) >= 4, (family, size, accepted)


def test_a_large_instance_passes_the_gates() -> None:
    for family in FAMILIES:
        sm = REGISTRY[family].sample(task_seed(32, 0), "large")
        out = verify(sm.ground(), sm)
        assert out.accepted, (family, out.rejection)
