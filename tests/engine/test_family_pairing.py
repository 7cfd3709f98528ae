"""The pairing group: generalized assignment, graph colouring, weighted matching and crew
pairing. Each optimum read back from the solution keeps the story's rules, the large band is
large enough (and within the size-limited Gurobi licence), and sampled instances pass the
generation gates."""

from __future__ import annotations

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.pairing import (
    candidate_duties,
    clash_graph,
    fits,
    greedy_colours,
    task_day,
)
from ortrex.engine.generate.pipeline import task_seed
from ortrex.ir.semantic import SemanticModel
from ortrex.render.statement import render_statement
from ortrex.verifiers.solvers import objectives_agree, solve_highs
from tests.engine.family_checks import (
    assert_answer_in_own_names,
    gate_outcomes,
    large_band,
    solved,
)

FAMILIES = ("generalized_assignment", "graph_colouring", "weighted_matching", "crew_pairing")


def relaxed_gap(sm: SemanticModel, objective: float) -> float:
    """How far the LP relaxation's optimum lies from the integer optimum."""
    inst = sm.ground()
    lp = inst.replace(validate=False, var_types=np.full(inst.num_vars, "C"))
    res = solve_highs(lp)
    assert res.objective is not None
    return abs(objective - float(res.objective))


def _edges(sm: SemanticModel) -> list[tuple[int, int]]:
    a, b = sm.param_map["end_a"].values, sm.param_map["end_b"].values
    return [(int(i), int(j)) for i, j in zip(a, b, strict=True)]


@pytest.mark.parametrize("seed", range(6))
def test_generalized_assignment_keeps_every_capacity_and_gives_each_task_once(seed: int
                                                                              ) -> None:
    sm = REGISTRY["generalized_assignment"].sample(task_seed(31, seed), "medium")
    values, objective = solved(sm)
    x = np.round(values["x"])
    use, cost = sm.param_map["use"].values, sm.param_map["cost"].values
    capacity = sm.param_map["capacity"].values
    assert np.array_equal(x.sum(axis=0), np.ones(x.shape[1]))  # every task exactly once
    load = (use * x).sum(axis=1)
    assert np.all(load <= capacity + 1e-6)
    assert objectives_agree(float((cost * x).sum()), objective)
    # Capacity decides: the cheapest agent of every task would overload someone.
    cheapest = np.zeros_like(x)
    cheapest[np.argmin(cost, axis=0), np.arange(x.shape[1])] = 1.0
    assert np.any((use * cheapest).sum(axis=1) > capacity)
    assert np.all(use > 0) and np.all(cost > 0)


@pytest.mark.parametrize("seed", range(6))
def test_a_colouring_never_puts_two_clashing_nodes_together(seed: int) -> None:
    sm = REGISTRY["graph_colouring"].sample(task_seed(32, seed), "medium")
    values, objective = solved(sm)
    x, w = np.round(values["x"]), np.round(values["w"])
    assert np.array_equal(x.sum(axis=1), np.ones(x.shape[0]))
    colour = x.argmax(axis=1)
    edges = _edges(sm)
    assert edges and all(colour[i] != colour[j] for i, j in edges)
    assert objective == len(set(colour.tolist())) == w.sum()
    assert np.all(w[colour] == 1)  # only used colours are counted, and all are
    assert np.all(np.diff(w) <= 0)  # in order
    # More colours offered than needed, and more than two needed (the graph is no bipartite
    # one): the LP relaxation says two, the optimum more.
    offered = len(sm.set_map["C"])
    assert offered == greedy_colours(len(sm.set_map["V"]), edges) + 1 > objective >= 3
    assert relaxed_gap(sm, objective) > 0.5


def test_clash_graphs_have_no_lonely_node_and_no_repeated_pair() -> None:
    for seed in range(30):
        n = 6 + seed % 20
        pairs = clash_graph(np.random.default_rng(seed), n)
        assert len(set(pairs)) == len(pairs) and all(i < j for i, j in pairs)
        assert {v for p in pairs for v in p} == set(range(n))


@pytest.mark.parametrize("seed", range(6))
def test_a_matching_never_uses_a_node_twice(seed: int) -> None:
    sm = REGISTRY["weighted_matching"].sample(task_seed(33, seed), "medium")
    values, objective = solved(sm)
    chosen = np.flatnonzero(np.round(values["x"]) == 1)
    edges = _edges(sm)
    ends = [v for e in chosen for v in edges[e]]
    assert len(ends) == len(set(ends)) > 0
    score = sm.param_map["score"].values
    assert objectives_agree(float(score[chosen].sum()), objective)
    # Odd groups of good pairs: the relaxation pairs them by halves and promises more.
    assert relaxed_gap(sm, objective) > 1e-6


@pytest.mark.parametrize("seed", range(6))
def test_chosen_duties_cover_every_task_exactly_once(seed: int) -> None:
    sm = REGISTRY["crew_pairing"].sample(task_seed(34, seed), "medium")
    values, objective = solved(sm)
    y = np.round(values["y"])
    covers = sm.param_map["covers"].values
    assert np.array_equal(y @ covers, np.ones(covers.shape[1]))
    assert objectives_agree(float(sm.param_map["cost"].values @ y), objective)
    sizes = covers.sum(axis=1)
    assert sizes.min() >= 2 and sizes.max() <= 4  # a duty is two to four tasks


def test_candidate_duties_are_legal_days_and_include_a_partition() -> None:
    for seed in range(10):
        rng = np.random.default_rng(seed)
        tasks, days = task_day(rng, 8)
        duties = candidate_duties(rng, tasks, days, 80)
        assert sorted(k for d in days for k in d) == list(range(len(tasks)))
        assert set(days) <= set(duties) and len(set(duties)) == len(duties)
        for d in duties:
            assert 2 <= len(d) <= 4 and fits(tasks, d) and list(d) == sorted(d)
        assert all(0.5 <= e - s <= 2.0 for s, e in tasks)


@pytest.mark.parametrize("family", FAMILIES)
def test_the_large_band_is_large_and_fits_the_licence(family: str) -> None:
    assert min(m.num_vars for m in large_band(family, 35)) >= 150, family


@pytest.mark.parametrize(("family", "size", "least"), [
    ("generalized_assignment", "small", 5), ("generalized_assignment", "medium", 5),
    ("graph_colouring", "small", 5), ("graph_colouring", "medium", 5),
    ("weighted_matching", "small", 5), ("weighted_matching", "medium", 5),
    ("crew_pairing", "small", 2), ("crew_pairing", "medium", 4)])
def test_sampled_instances_pass_the_gates(family: str, size: str, least: int) -> None:
    # Rejected only by the triviality gate (an integral relaxation), or (a generalized
    # assignment) a capacity that happens to keep 10% spare.
    allowed = ("trivial", "postcheck:slack_capacity") if family == "generalized_assignment" \
        else ("trivial",)
    accepted = sum(o.accepted for o in gate_outcomes(family, size, 36, allowed=allowed))
    assert accepted >= least, (family, size, accepted)


def test_statements_tell_the_slots_offered_and_every_duty() -> None:
    sm = REGISTRY["graph_colouring"].sample(task_seed(37, 0), "small")
    colours = sm.set_map["C"].elements
    for seed in range(4):
        text = render_statement(sm, "DP", "situation:narrative", seed=seed).text
        assert all(c in text for c in colours)
    sm = REGISTRY["crew_pairing"].sample(task_seed(37, 1), "small")
    text = render_statement(sm, "DP", "situation:narrative", seed=0).text
    assert all(d in text for d in sm.set_map["D"].elements)
    assert "exactly one" in text or "more than once" in text


@pytest.mark.parametrize("family", FAMILIES)
def test_the_answer_is_told_in_the_statements_names(family: str) -> None:
    sm = REGISTRY[family].sample(task_seed(38, 0), "small")
    assert_answer_in_own_names(sm)
