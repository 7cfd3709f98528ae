"""The clean_cot reasoning reads as a modeller writes: pairs of elements named as pairs, no
self-distance quoted as data, no name read as an article, no doubled quantifier, rules kept to
some elements said as such, and enough variety of wording across a corpus."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.ir.semantic import SemanticModel
from ortrex.render.data import readable
from ortrex.render.reasoning import amounts, counted, reasoning
from ortrex.reports.quality import measure
from ortrex.verifiers.language import check_language

SEEDS = range(12)


def _model(family: str, seed: int = 7) -> SemanticModel:
    return REGISTRY[family].sample(np.random.default_rng(seed), "small")


def _renamed(sm: SemanticModel, set_name: str, names: list[str]) -> SemanticModel:
    """``sm`` with the elements of one set renamed (labels only: the data keep their order)."""
    sets = tuple(replace(s, elements=tuple(names)) if s.name == set_name else s
                 for s in sm.sets)
    return replace(sm, sets=sets)


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=[.!?])\s+", text)


def test_pairs_of_elements_are_named_as_pairs() -> None:
    sm = _model("portfolio")
    assets = sm.set_map["A"].elements
    cov = np.asarray(sm.param_map["cov"].values, dtype=float)
    i, j = divmod(int(np.argmax(cov)), len(assets))
    k, m = divmod(int(np.argmin(cov)), len(assets))
    # The largest covariance is a variance (an asset with itself), the smallest a pair.
    assert (i, j) == (i, i) and k != m

    for seed in SEEDS:
        text = reasoning(sm, {}, seed=seed)
        prose = re.sub(r"`[^`]*`", "", text)
        assert f"{assets[i]} with itself" in prose, seed
        assert f"{assets[k]} and {assets[m]}" in prose, seed
        for a in assets:  # no two names side by side ("FLUX FLUX", "JOVI FLUX")
            assert not re.search(rf"\b{a} (?:{'|'.join(assets)})\b", prose), (seed, a)
        assert check_language(text).ok, check_language(text).summary()


def test_a_tour_quotes_no_distance_from_a_place_to_itself() -> None:
    sm = _model("tsp_mtz")
    nodes = sm.set_map["N"].elements
    dist = np.asarray(sm.param_map["dist"].values, dtype=float)
    assert not np.diag(dist).any()
    off = np.where(np.eye(len(nodes), dtype=bool), np.inf, dist)
    i, j = divmod(int(np.argmin(off)), len(nodes))
    for seed in SEEDS:
        text = reasoning(sm, {}, seed=seed)
        prose = re.sub(r"`[^`]*`", "", text)
        # The smallest distance quoted is the smallest between two different places.
        assert f"{readable(float(off[i, j]))} " in prose and f"{nodes[i]} and {nodes[j]}" in prose
        assert "with itself" not in prose and not re.search(r"\b0 \((?:for )?\w+ and", prose)
        assert check_language(text).ok, check_language(text).summary()


def test_an_element_named_like_an_article_passes_the_language_gate() -> None:
    sm = _model("knapsack_01")
    items = list(sm.set_map["I"].elements)
    value = np.asarray(sm.param_map["value"].values, dtype=float)
    lo, hi = int(np.argmin(value)), int(np.argmax(value))
    # The ends of the value range the reasoning quotes are named "A" and "An".
    items[lo], items[hi] = "A", "An"
    sm = _renamed(sm, "I", items)
    for seed in SEEDS:
        text = reasoning(sm, {}, seed=seed)
        ends = re.findall(r"\((?:for )?(An?)\)", text)
        assert sorted(ends) == ["A", "An"], (seed, ends)
        assert check_language(text).ok, (seed, check_language(text).summary())


def test_no_quantifier_is_doubled() -> None:
    # "For each crate we decide whether each crate goes", "from each hole to each hole":
    # the same "each X" twice in one clause (a list or a second phrase may repeat it).
    doubled = re.compile(r"\beach ([a-z]+(?: [a-z]+)?)\b[^,;:()]*?\beach \1\b")
    for family in ("bin_packing", "tsp_mtz", "machine_scheduling", "capital_budgeting",
                   "facility_location", "assignment", "knapsack_01", "shortest_path"):
        sm = _model(family)
        for seed in range(6):
            text = reasoning(sm, {}, seed=seed)
            for s in _sentences(re.sub(r"`[^`]*`", "X", text)):
                for clause in re.split(r"\band (?:the|each)\b|\btimes\b", s):
                    assert not doubled.search(clause), (family, seed, s)


def test_a_rule_kept_to_some_elements_says_which() -> None:
    sm = _model("max_flow")
    first = sm.set_map["N"].elements[0]
    for seed in SEEDS:
        text = reasoning(sm, {}, seed=seed)
        para = next(p for p in text.split("\n\n") if f"`source[{first}]`" in p)
        # One row, for the first router only: never "for every router ... only for the first".
        assert "for the first router only" in para, (seed, para)
        assert not re.search(r"\b(?:every|each) router\b[^.;]*\bonly\b", para), (seed, para)
        assert not re.search(r"\b1 rows\b|\bare 1\b", text), seed


def test_a_derived_parameter_is_derived_in_words() -> None:
    sm = _model("multicommodity_flow")
    expr = sm.derived_params["supply"]
    assert " for " in expr  # a comprehension: the program's, not the reasoning's
    for seed in range(6):
        text = reasoning(sm, {}, seed=seed)
        assert expr not in text and "range(len" not in text, seed
        # Its parts named as code, its cases said: at the origin, at the destination, else 0.
        assert re.search(r"`amount` where the \w+(?: \w+)? is its `origin`", text), seed
        assert "`destination`" in text and "0 elsewhere" in text, seed


def test_units_are_counted_as_plurals_once() -> None:
    assert counted("containers a week") == "containers a week"  # never "containerss"
    assert counted("share of demand") == "shares of demand"
    assert counted("person-hours") == "person-hours"
    assert counted("kg") == "kg" and amounts("kg") == "amounts in kg"  # never "kgs"
    assert amounts("tonnes") == "tonnes"


# Families of every kind: flows, assignments, knapsacks, schedules, tours, plans, blends.
VARIETY = ("transportation", "facility_location", "knapsack_01", "knapsack_multidim",
           "assignment", "set_cover", "machine_scheduling", "tsp_mtz", "lot_sizing",
           "production_planning", "blending", "diet", "portfolio", "max_flow",
           "min_cost_flow", "unit_commitment")


def test_the_wording_varies_across_a_corpus() -> None:
    texts, groups = [], []
    for family in VARIETY:
        for k in range(4):
            sm = _model(family, seed=k)
            texts.append(reasoning(sm, {}, seed=1000 + k))
            groups.append(family)
    # Measured 0.45 over these 64 texts (0.404 with the phrasings before issue 19's work);
    # the floor leaves room for data drawn differently, not for a return to one skeleton.
    assert measure(texts, groups).distinct_4 >= 0.43
