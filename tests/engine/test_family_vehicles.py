"""The vehicle routing families read as a dispatcher reads them: routes from the depot that
serve every stop once within the vehicle's capacity, starts inside the promised windows,
every pickup before its delivery; the large band's size; and the generation gates."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.pipeline import task_seed, verify
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.solvers import objectives_agree, solve_highs

FAMILIES = ("cvrp", "vrptw", "pickup_delivery")
HOME = "<home>"


def _solve(sm: SemanticModel) -> dict[str, float]:
    """The optimum of ``sm`` by HiGHS, variable name -> value."""
    g = sm.ground()
    res = solve_highs(g, keep_solution=True, threads=1)
    assert res.status.value == "optimal", res.message
    return dict(zip(g.var_names, res.x, strict=True))


def _routes(sm: SemanticModel, x: dict[str, float], stops: str) -> list[list[str]]:
    """The routes of an optimum, each the stops in order from the depot back to it."""
    names = sm.set_map[stops].elements
    succ: dict[str, str] = {}
    for name, v in x.items():
        if v < 0.5:
            continue
        fam, _, rest = name.partition("[")
        ends = rest.rstrip("]").split(",")
        if fam == "x":
            succ[ends[0]] = ends[1]
        elif fam == "back":
            succ[ends[0]] = HOME
    firsts = [n for n in names if x[f"start[{n}]"] > 0.5]
    routes = []
    for first in firsts:
        route, at = [], first
        while at != HOME:
            assert at not in route, f"a loop that never returns to the depot at {at}"
            route.append(at)
            at = succ[at]
        routes.append(route)
    return routes


def _draws(family: str, size: str, n: int) -> list[SemanticModel]:
    return [REGISTRY[family].sample(task_seed(31, k), size) for k in range(n)]


@pytest.mark.parametrize("size", ["small", "medium"])
def test_cvrp_routes_serve_everyone_once_within_capacity(size: str) -> None:
    for sm in _draws("cvrp", size, 4):
        x = _solve(sm)
        routes = _routes(sm, x, "C")
        stops = sm.set_map["C"].elements
        served = [c for r in routes for c in r]
        assert sorted(served) == sorted(stops)  # every stop once, no stop twice
        demand = dict(zip(stops, sm.param_map["demand"].values, strict=True))
        cap = float(sm.param_map["cap"].values)
        loads = [sum(demand[c] for c in r) for r in routes]
        assert max(loads) <= cap + 1e-9, (loads, cap)
        # Every vehicle goes out, and the fleet is the fewest the load needs: it binds.
        fleet = float(sm.param_map["fleet"].values)
        assert len(routes) == fleet
        assert sum(loads) > (fleet - 1) * cap


@pytest.mark.parametrize("size", ["small", "medium"])
def test_vrptw_starts_lie_in_the_windows_along_the_routes(size: str) -> None:
    for sm in _draws("vrptw", size, 4):
        x = _solve(sm)
        routes = _routes(sm, x, "C")
        stops = list(sm.set_map["C"].elements)
        pos = {c: k for k, c in enumerate(stops)}
        pm = sm.param_map
        early, late = pm["earliest"].values, pm["latest"].values
        service, travel, home = pm["service"].values, pm["travel"].values, pm["home_time"].values
        demand, cap = pm["demand"].values, float(pm["cap"].values)
        assert sorted(c for r in routes for c in r) == sorted(stops)
        for route in routes:
            assert sum(demand[pos[c]] for c in route) <= cap + 1e-9
            # The earliest schedule of the route (leave at 0, wait where early) keeps every
            # window, and the model's starts are no earlier than it.
            clock, prev = 0.0, None
            for c in route:
                k = pos[c]
                arrive = home[k] if prev is None else clock + service[prev] + travel[prev, k]
                clock = max(arrive, early[k])
                assert clock <= late[k] + 1e-6, (c, clock, late[k])
                t = x[f"t[{c}]"]
                assert early[k] - 1e-6 <= t <= late[k] + 1e-6
                assert t >= clock - 1e-6
                clock, prev = t, k


def test_vrptw_windows_decide_the_routes_in_most_draws() -> None:
    """Without the windows the shortest routes are other ones: the windows bind."""
    binding = 0
    draws = _draws("vrptw", "medium", 6)
    for sm in draws:
        loose = replace(sm, constraints=tuple(c for c in sm.constraints if c.name not in (
            "window_close", "first_visit", "time_order")),
            variables=tuple(v for v in sm.variables if v.name != "t"))
        a, b = solve_highs(sm.ground(), threads=1), solve_highs(loose.ground(), threads=1)
        assert b.objective <= a.objective + 1e-6
        binding += not objectives_agree(a.objective, b.objective)
    assert binding >= len(draws) // 2


@pytest.mark.parametrize("size", ["small", "medium"])
def test_pickup_delivery_collects_before_it_delivers_and_never_overloads(size: str) -> None:
    for sm in _draws("pickup_delivery", size, 4):
        x = _solve(sm)
        routes = _routes(sm, x, "N")
        stops = sm.set_map["N"].elements
        assert len(routes) == 1 and sorted(routes[0]) == sorted(stops)  # one round, all
        place = {s: k for k, s in enumerate(routes[0])}
        pm = sm.param_map
        pick = [stops[int(v)] for v in pm["pickup"].values]
        drop = [stops[int(v)] for v in pm["dropoff"].values]
        size_ = pm["size"].values
        cap = float(pm["cap"].values)
        assert all(place[p] < place[d] for p, d in zip(pick, drop, strict=True))
        on_board, most = 0.0, 0.0
        change = dict.fromkeys(stops, 0.0)
        for p, d, q in zip(pick, drop, size_, strict=True):
            change[p] += q
            change[d] -= q
        for s in routes[0]:
            on_board += change[s]
            most = max(most, on_board)
            assert -1e-9 <= on_board <= cap + 1e-9
        assert on_board == pytest.approx(0.0)  # empty again at the depot
        # Carrying everything at once does not fit: the capacity is a real limit.
        assert cap < size_.sum()


def test_pickup_delivery_capacity_decides_the_round_in_most_draws() -> None:
    binding = 0
    draws = _draws("pickup_delivery", "medium", 6)
    for sm in draws:
        roomy = replace(sm, params=tuple(replace(p, values=p.values * 100) if p.name == "cap"
                                         else p for p in sm.params))
        a, b = solve_highs(sm.ground(), threads=1), solve_highs(roomy.ground(), threads=1)
        binding += not objectives_agree(a.objective, b.objective)
    assert binding >= len(draws) // 2


@pytest.mark.parametrize(("family", "least"), [("cvrp", 143), ("vrptw", 180),
                                               ("pickup_delivery", 130)])
def test_the_large_band_is_large(family: str, least: int) -> None:
    for k in range(4):
        g = REGISTRY[family].sample(task_seed(8, k), "large").ground()
        assert g.num_vars >= least and g.num_rows >= least - 20, (g.num_vars, g.num_rows)


@pytest.mark.parametrize("family", FAMILIES)
def test_sampled_instances_pass_the_generation_gates(family: str) -> None:
    accepted = 0
    for k in range(5):
        for size in ("small", "medium"):
            sm = REGISTRY[family].sample(task_seed(13, k), size)
            out = verify(sm.ground(), sm, heuristics=False)
            accepted += out.accepted
    assert accepted >= 9, accepted


@pytest.mark.parametrize("family", FAMILIES)
def test_the_depot_is_a_word_of_the_story_never_a_stop(family: str) -> None:
    """Every stop of the data has a real load or request: no element stands for the depot."""
    for k in range(6):
        sm = REGISTRY[family].sample(np.random.default_rng(k), "small")
        home = sm.descriptors["words"]["home"]
        assert all(home not in e for s in sm.sets for e in s.elements)
        if family == "pickup_delivery":
            ends = np.concatenate([sm.param_map["pickup"].values,
                                   sm.param_map["dropoff"].values])
            assert sorted(ends) == list(range(len(sm.set_map["N"])))  # each stop one end
        else:
            assert (sm.param_map["demand"].values > 0).all()
