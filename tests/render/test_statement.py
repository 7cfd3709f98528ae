"""Statements in every form and layout read back exactly; documents carry every part."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.render.data import number
from ortrex.render.documents import (
    CPT_LAYOUTS,
    STYLES,
    cpt_document,
    sft_example,
    solution_from,
)
from ortrex.render.program import gurobipy_program
from ortrex.render.statement import FORMS, LAYOUTS, plural, render_statement
from ortrex.verifiers.fidelity import check_fidelity, numbers_in, parse_tables


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_every_form_and_layout_reads_back(family: str) -> None:
    for size, seed in (("small", 1), ("medium", 2)):
        sm = REGISTRY[family].sample(np.random.default_rng(seed), size)
        for form in FORMS:
            for layout in LAYOUTS:
                st = render_statement(sm, form, layout, seed=seed)
                rep = check_fidelity(sm, form, st.text, st.files)
                assert rep.ok, (form, layout, rep.summary())
                for c in sm.constraints:  # every constraint family is stated
                    assert c.meaning.rstrip(".").lower()[5:] in st.text.lower()
                assert sm.objective.description in st.text


def test_forms_put_the_data_where_they_say() -> None:
    sm = REGISTRY["transportation"].sample(np.random.default_rng(4), "small")
    cost = sm.param_map["cost"].values
    dp = render_statement(sm, "DP", "narrative", seed=1)
    dt = render_statement(sm, "DT", "narrative", seed=1)
    dps = render_statement(sm, "DPS", "narrative", seed=1)
    assert number(cost[0, 0]) in dp.text and not parse_tables(dp.text) and not dp.files
    assert len(parse_tables(dt.text)) >= 2 and not dt.files
    assert set(dps.files) == {"data.json", "supply.csv", "demand.csv", "cost.csv"}
    assert number(cost[0, 0]) not in dps.text  # the prose restates no data
    data = json.loads(dps.files["data.json"])
    assert data["parameters"]["cost"]["M1" if "M1" in data["sets"]["S"] else
                                     data["sets"]["S"][0]][data["sets"]["D"][0]] == cost[0, 0]
    assert dps.files["cost.csv"].splitlines()[0].endswith(",cost")


def test_layouts_and_wording_vary_with_the_seed() -> None:
    sm = REGISTRY["knapsack_01"].sample(np.random.default_rng(4), "small")
    texts = {render_statement(sm, "DP", seed=s).text for s in range(12)}
    layouts = {render_statement(sm, "DP", seed=s).layout for s in range(40)}
    assert len(texts) >= 6 and layouts == set(LAYOUTS)
    assert render_statement(sm, "DP", seed=3) == render_statement(sm, "DP", seed=3)
    with pytest.raises(ValueError, match="unknown form"):
        render_statement(sm, "XX")
    with pytest.raises(ValueError, match="unknown layout"):
        render_statement(sm, "DP", "poem")


def test_fidelity_catches_altered_missing_and_stray_numbers() -> None:
    sm = REGISTRY["transportation"].sample(np.random.default_rng(5), "small")
    st = render_statement(sm, "DP", "narrative", seed=1)
    demand = sm.param_map["demand"].values
    d0 = number(demand[0])
    altered = st.text.replace(f" {d0},", f" {number(demand[0] + 1)},", 1)
    assert altered != st.text
    rep = check_fidelity(sm, "DP", altered)
    assert not rep.ok and any("stray number" in p for p in rep.problems)
    assert any("appears 0 time" in p or "not found" in p for p in rep.problems)
    assert not check_fidelity(sm, "DP", st.text + "\nThere are also 777 trucks.").ok
    assert "placeholder" in check_fidelity(sm, "DP", st.text + " {money}").summary()
    cost = sm.param_map["cost"].values
    a, b = number(cost[0, 0]), number(cost[0, 1])
    swapped = st.text.replace(f" {a}, ", " @@, ", 1).replace(f" {b};", f" {a};", 1) \
        .replace(" @@, ", f" {b}, ", 1)
    if swapped != st.text:  # two values of one row swapped: same numbers, wrong places
        assert not check_fidelity(sm, "DP", swapped).ok


def test_fidelity_of_tables_and_files() -> None:
    sm = REGISTRY["transportation"].sample(np.random.default_rng(5), "small")
    dt = render_statement(sm, "DT", "sections", seed=1)
    cost = sm.param_map["cost"].values
    a, b = number(cost[0, 0]), number(cost[0, 1])
    swapped = dt.text.replace(f"| {a} | {b} |", f"| {b} | {a} |", 1)
    assert swapped != dt.text and "cell by cell" in check_fidelity(sm, "DT", swapped).summary()
    dps = render_statement(sm, "DPS", "memo", seed=1)
    data = json.loads(dps.files["data.json"])
    key = next(iter(data["parameters"]["supply"]))
    data["parameters"]["supply"][key] += 1
    bad = {**dps.files, "data.json": json.dumps(data)}
    assert "supply" in check_fidelity(sm, "DPS", dps.text, bad).summary()
    bad_csv = {**dps.files, "cost.csv": dps.files["cost.csv"].replace(a, number(cost[0, 0] + 1),
                                                                       1)}
    assert "cost.csv" in check_fidelity(sm, "DPS", dps.text, bad_csv).summary()
    missing = {k: v for k, v in dps.files.items() if k != "cost.csv"}
    assert "not provided" in check_fidelity(sm, "DPS", dps.text, missing).summary()
    assert "never named" in check_fidelity(sm, "DPS", dps.text,
                                           {**dps.files, "extra.csv": "a,b\n"}).summary()


def test_numbers_in_skips_names_and_list_markers() -> None:
    assert numbers_in("1. W1 has 12.5 and x_3 needs 1,200 (Table 2)") == [12.5, 1200.0]
    assert numbers_in("-3 and 4e-05") == [-3.0, 4e-05]


def test_documents_in_every_style_and_layout() -> None:
    sm = REGISTRY["portfolio"].sample(np.random.default_rng(2), "small")
    inst = sm.ground()
    st = render_statement(sm, "DPS", "sections", seed=2)
    prog = gurobipy_program(sm, "json").code
    sol = solution_from(list(inst.var_names), np.full(inst.num_vars, 0.25), 3.5)
    for style in STYLES:
        d = sft_example(sm, st, prog, "gurobipy", style, sol)
        assert d.messages is not None and [m["role"] for m in d.messages] == ["user",
                                                                              "assistant"]
        assert "File `data.json`" in d.messages[0]["content"]  # small files are inlined
        answer = d.messages[1]["content"]
        assert ("```python" in answer) == (style != "math_model")
        assert ("\\begin{aligned}" in answer) == style.startswith("math_model")
        assert ("checklist" in answer.lower()) == (style == "clean_cot")
    for layout in CPT_LAYOUTS:
        d = cpt_document(sm, st, prog, "gurobipy", layout, sol)
        assert st.text.splitlines()[0] in d.text and "```python" in d.text
        assert "The optimal variance of the return is 3.5." in d.text
    assert plural("power plant") == "power plants" and plural("facility") == "facilities"
    assert plural("box") == "boxes" and plural("day") == "days"
