"""The clean_cot reasoning: derived from the semantic model, the statement and the data; every
decision, bound, rule and big-M justified with the instance's own numbers; in the thinking
channel of the SFT example; clean English."""

from __future__ import annotations

import ast
import re

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.ir.expr import Param, as_expr
from ortrex.render.data import number
from ortrex.render.documents import Solution, sft_example, thinking
from ortrex.render.language import plural
from ortrex.render.program import gurobipy_program
from ortrex.render.statement import render_statement
from ortrex.render.telling import entity
from ortrex.verifiers.language import check_language


def _num(v: float) -> str:
    r = round(v)
    return number(float(r)) if abs(v - r) <= 1e-9 * max(1.0, abs(v)) else \
        number(round(v, 6))


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_reasoning_justifies_every_part_with_the_data(family: str) -> None:
    sm = REGISTRY[family].sample(np.random.default_rng(7), "small")
    st = render_statement(sm, "DP", seed=11)
    text = thinking(sm, st)
    g = sm.ground()
    for v in sm.variables:  # every decision, its domain and its bounds
        assert re.search(rf"\b{re.escape(v.name)}\b", text), v.name
        for b in (v.lb, v.ub):
            for p in [x for x in as_expr(b).walk() if isinstance(x, Param)]:
                first = float(np.asarray(sm.param_map[p.name].values).reshape(-1)[0])
                assert _num(first) in text, (v.name, p.name)
    for c in sm.constraints:  # every rule, with its first row written out in numbers
        assert re.search(rf"\b{re.escape(c.name)}\b", text), c.name
        rows = [k for k, n in enumerate(g.row_names) if n.split("[")[0] == c.name]
        if rows:
            assert g.row_names[rows[0]] in text, c.name
            lo, hi = g.row_lower[rows[0]], g.row_upper[rows[0]]
            rhs = lo if np.isfinite(lo) else hi
            assert _num(float(rhs)) in text, (c.name, rhs)
    code = re.findall(r"`([^`]*)`", text)
    for name, expr in sm.derived_params.items():  # every big-M and count, with its derivation
        assert f"`{name}`" in text, name
        first = float(np.asarray(sm.param_map[name].values).reshape(-1)[0])
        assert _num(first) in text, name
        # Told in words, with every parameter it reads named as code.
        read = {n.id for n in ast.walk(ast.parse(expr)) if isinstance(n, ast.Name)}
        for p in read & set(sm.param_map):
            assert f"`{p}`" in text, (name, p)
        for s in read & set(sm.set_map):  # a count of a set is said as one
            if f"range(len({s}))" not in expr:
                assert f"number of {plural(entity(sm, s))}" in text, (name, s)
    # No comprehension is quoted as if it were prose's code.
    assert not [c for c in code if " for " in c and " in " in c], family
    for key, sentence in st.account.items():  # the statement's own words
        if key == "objective" or key in {c.name for c in sm.constraints}:
            assert sentence.strip() in text, key
    names = frozenset(e for s in sm.sets for e in s.elements)
    assert check_language(text, names).ok, check_language(text, names).summary()
    assert thinking(sm, st) == text  # deterministic for a statement


def test_ratio_linearisation_shows_the_derived_coefficients() -> None:
    sm = REGISTRY["blending"].sample(np.random.default_rng(3), "small")
    text = thinking(sm, render_statement(sm, "DT", seed=2))
    content, low = sm.param_map["content"].values, sm.param_map["low"].values
    coef = content[0, 0] - low[0]  # first property, first stream: content minus the limit
    assert _num(float(coef)) in text


def test_clean_cot_example_puts_the_reasoning_in_the_thinking_channel() -> None:
    sm = REGISTRY["lot_sizing"].sample(np.random.default_rng(5), "small")
    st = render_statement(sm, "DP", seed=4)
    prog = gurobipy_program(sm).code
    ex = sft_example(sm, st, prog, "gurobipy", "clean_cot", Solution(123.0))
    answer = ex.messages[-1]
    assert answer["reasoning_content"] == thinking(sm, st)
    assert "big_m" in answer["reasoning_content"] and "```" not in answer["reasoning_content"]
    assert answer["content"].startswith("```python") and "Modelling checklist" not in ex.text
    assert answer["reasoning_content"] in ex.text
    from ortrex.export.contract import sft_contract

    assert sft_contract(ex.messages, prog, thinking=True) == []
    assert sft_contract(ex.messages, prog, thinking=False) == [
        "reasoning in an example without thinking"]


def _text(family: str, seed: int = 7) -> tuple[object, str]:
    sm = REGISTRY[family].sample(np.random.default_rng(seed), "small")
    return sm, thinking(sm, render_statement(sm, "DP", seed=11))


def test_the_relaxation_bound_follows_the_sense() -> None:
    from dataclasses import replace

    from ortrex.ir.expr import Neg
    from ortrex.render.reasoning import reasoning_claims

    sm = REGISTRY["knapsack_01"].sample(np.random.default_rng(7), "small")  # a maximisation
    for seed in range(6):
        text = reasoning_claims(sm, {}, seed=seed)[0]
        assert "upper bound" in text and "lower bound" not in text
    flipped = replace(sm, objective=replace(sm.objective, sense="min",
                                            expr=Neg(sm.objective.expr)))
    for seed in range(6):
        text = reasoning_claims(flipped, {}, seed=seed)[0]
        assert "lower bound" in text and "upper bound" not in text


def test_the_class_is_read_from_the_model() -> None:
    _, qp = _text("portfolio")
    assert "QP" in qp and "LP" not in qp.replace("LP relaxation", "")
    _, lp = _text("transportation")
    assert "LP" in lp and "mixed-integer" not in lp
    _, mip = _text("facility_location")
    assert "MILP" in mip or "mixed-integer linear" in mip


def test_each_justification_comes_from_the_variables_role() -> None:
    _, sp = _text("shortest_path")
    assert "totally unimodular" in sp and "meaningful" not in sp
    _, tsp = _text("tsp_mtz")
    assert "MTZ" in tsp
    sm, bp = _text("bin_packing")
    cap = float(sm.param_map["capacity"].values)
    assert "capacity of one" in bp and _num(cap) in bp
    assert "scaled by the given size" not in bp


def test_no_internal_name_is_a_word_of_the_prose() -> None:
    for family in sorted(REGISTRY):
        sm, text = _text(family)
        prose = re.sub(r"`[^`]*`|\[[^\]]*\]", "", text)
        for name in [c.name for c in sm.constraints] + [p.name for p in sm.params]:
            if "_" in name:
                assert not re.search(rf"\b{re.escape(name)}\b", prose), (family, name)
        assert not re.search(r"\bValues of \w+:", text), family
