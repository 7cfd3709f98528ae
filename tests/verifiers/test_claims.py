"""The reasoning's claims re-derived from the model: for every family, in both senses, each
claim holds; each false claim a reader found, put back into a real document's reasoning, is
rejected with its own reason (``reasoning_claim``)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.mutate import apply
from ortrex.ir.expr import Neg
from ortrex.ir.semantic import SemanticModel
from ortrex.render.documents import Solution, cpt_document, sft_example, thinking
from ortrex.render.program import gurobipy_program
from ortrex.render.reasoning import reasoning_claims
from ortrex.render.statement import Statement, render_statement
from ortrex.verifiers.checks.claims import REASON, _Facts, claim_findings, reasoning_region
from ortrex.verifiers.checks.registry import DocContext, document_checks, run_checks
from tests.samples import verified_parent


def twin(sm: SemanticModel) -> SemanticModel:
    """The same model optimised the other way (the objective negated)."""
    o = sm.objective
    flip = "max" if o.sense == "min" else "min"
    return replace(sm, objective=replace(o, sense=flip, expr=Neg(o.expr)))


def document(sm: SemanticModel, seed: int = 11) -> tuple[Statement, str]:
    """A real clean_cot SFT document of ``sm``: its statement and its whole text."""
    st = render_statement(sm, "DP", seed=seed)
    ex = sft_example(sm, st, gurobipy_program(sm).code, "gurobipy", "clean_cot",
                     Solution(1.0))
    return st, ex.text


def rederive(sm: SemanticModel, kind: str, subject: str, value: str) -> bool:
    """Whether one recorded claim holds, computed from the model by the test itself."""
    g = sm.ground()
    f = _Facts(sm, g)
    if kind == "sense":
        return value == str(g.sense)
    if kind == "class":
        ints = bool(np.isin(g.var_types, ("I", "B")).any())
        mi = "MI" if ints else ""
        if g.qrows[0].size:  # quadratic rows, whatever the objective
            return value == f"{mi}QCP"
        if g.qobj[0].size:
            return value == f"{mi}QP"
        return value == ("MILP" if ints else "LP")
    if kind == "relaxation":
        return bool(np.isin(g.var_types, ("I", "B")).any()) and \
            value == ("lower" if str(g.sense) == "min" else "upper")
    if kind == "domain":
        return value == sm.var_map[subject].vtype
    if kind == "justify":
        return {"order": f.is_order, "epigraph": f.is_epigraph, "slack": f.is_slack,
                "forced": f.is_forced, "network": lambda v: f.network_integral(),
                "divisible": lambda v: not f.yes_no(v),
                "share": lambda v: bool(np.all(g.ub[f.cols[v]] <= 1)),
                "yes_no": f.yes_no}[value](subject)
    if kind == "switch":
        return sm.var_map[value].vtype == "B" and any(
            g.var_names[int(j)].split("[")[0] == value
            for k in f.rows[subject] for j in f.row(k)[0])
    raise AssertionError(kind)


MODELS = [(fam, sense) for fam in sorted(REGISTRY) for sense in ("parent", "twin")]


@pytest.mark.parametrize(("family", "sense"), MODELS)
def test_every_claim_of_the_reasoning_holds_on_its_model(family: str, sense: str) -> None:
    sm = REGISTRY[family].sample(np.random.default_rng(7), "small")
    sm = sm if sense == "parent" else twin(sm)
    st = render_statement(sm, "DP", seed=11)
    text, claims = reasoning_claims(sm, st.account, seed=5)
    kinds = {c.kind for c in claims}
    assert {"sense", "class", "domain"} <= kinds, kinds
    # Every continuous decision is justified.
    assert {c.subject for c in claims if c.kind == "justify"} == {
        v.name for v in sm.variables if v.vtype == "C"}
    assert ("relaxation" in kinds) == sm.ground().is_mip
    for c in claims:
        assert rederive(sm, *c), c
    # The checker reads the same text back and finds nothing false in it.
    doc = st.text + "\n\n" + text
    assert reasoning_region(doc, st.text) == text
    assert claim_findings(sm, sm.ground(), doc, st.text) == []
    # Whichever phrasings a seed draws, each claim still holds.
    for seed in range(12):
        text, claims = reasoning_claims(sm, st.account, seed=seed)
        assert all(rederive(sm, *c) for c in claims), seed
        doc = st.text + "\n\n" + text
        assert claim_findings(sm, sm.ground(), doc, st.text) == [], seed


def test_documents_carrying_the_reasoning_pass_the_check() -> None:
    for family in ("knapsack_01", "portfolio", "tsp_mtz", "shortest_path", "bin_packing"):
        sm = REGISTRY[family].sample(np.random.default_rng(3), "small")
        st = render_statement(sm, "DT", seed=2)
        prog = gurobipy_program(sm).code
        docs = [sft_example(sm, st, prog, "gurobipy", "clean_cot", Solution(1.0)).text,
                cpt_document(sm, st, prog, "gurobipy", "notes", Solution(1.0)).text]
        for text in docs:
            assert thinking(sm, st) in text
            assert reasoning_region(text, st.text) == thinking(sm, st)
            assert claim_findings(sm, sm.ground(), text, st.text) == [], family


@pytest.mark.parametrize("op", ["objective_minmax", "slack_penalty"])
def test_children_with_modelling_devices_are_justified_by_their_role(op: str) -> None:
    sm, _, values, _, _ = verified_parent("transportation")
    child = apply(op, sm, values, np.random.default_rng(0)).child
    text, claims = reasoning_claims(child, {}, seed=1)
    new = [v.name for v in child.variables if v.name not in sm.var_map]
    assert ("justify", new[0], "epigraph" if op == "objective_minmax" else "slack") in claims
    assert "only its order matters" not in text
    for c in claims:
        assert rederive(child, *c), c
    st = render_statement(child, "DP", seed=3)
    doc = st.text + "\n\n" + thinking(child, st)
    assert claim_findings(child, child.ground(), doc, st.text) == []


def inject(text: str, statement: str, anchor: str, sentence: str) -> str:
    """``text`` with ``sentence`` added to the reasoning paragraph holding ``anchor``."""
    region = reasoning_region(text, statement)
    paras = region.split("\n\n")
    at = next(k for k, p in enumerate(paras) if anchor in p)
    paras[at] += " " + sentence
    return text.replace(region, "\n\n".join(paras))


def rejected(sm: SemanticModel, st: Statement, text: str) -> list[str]:
    """The findings of the check list's reasoning_claim entry on a document."""
    ctx = DocContext(text, st.text, st.files, "DP", None, "gurobipy", sm, sm.ground(), None,
                     st.layout, st.account)
    got = [c for c in run_checks(ctx) if c.verifier == REASON]
    assert len(got) == 1
    return [] if got[0].ok else got[0].details["why"].split("; ")


def _child(op: str, family: str) -> SemanticModel:
    sm, _, values, _, _ = verified_parent(family)
    return apply(op, sm, values, np.random.default_rng(0)).child


def _aux(sm: SemanticModel) -> str:
    """The decision paragraph's mark of the model's modelling device."""
    return "`" + next(v.name for v in sm.variables if v.role == "auxiliary") + "`"


def _false_claims() -> list[tuple[str, object, object, str, str]]:
    """(label, model maker, anchor in the paragraph, false sentence, what the finding says)."""
    return [
        ("lower bound on a max", lambda: REGISTRY["knapsack_01"].sample(
            np.random.default_rng(7), "small"), "`x`",
         "A relaxation that drops the integrality of `x` would be a lower bound only.",
         "lower bound on a maximisation"),
        ("plain LP for a QP", lambda: REGISTRY["portfolio"].sample(
            np.random.default_rng(7), "small"), "`w`",
         "No integrality anywhere: a plain LP over `w`.", "calls the model an LP"),
        ("MTZ order for a min-max bound", lambda: _child("objective_minmax", "transportation"),
         _aux, "It can stay continuous: only its order matters, not its value.",
         "an MTZ order variable"),
        ("MTZ order for a slack", lambda: _child("slack_penalty", "transportation"),
         _aux, "It can stay continuous: only its order matters, not its value.",
         "an MTZ order variable"),
        ("a fraction of a trip", lambda: REGISTRY["shortest_path"].sample(
            np.random.default_rng(7), "small"), "`x`",
         "The variable `x` measures trips; a fraction of one is meaningful, so continuous.",
         "divisible amount"),
        ("big-M scaled by the size", lambda: REGISTRY["bin_packing"].sample(
            np.random.default_rng(7), "small"), "capacity_limit[",
         "It switches the quantity off unless the choice is made, scaled by the given size "
         "({size}).", "gives the switch"),
        ("values of value", lambda: REGISTRY["knapsack_01"].sample(
            np.random.default_rng(7), "small"), "capacity_limit",
         "Values of value: between {lo} for A and {hi} for B.", "internal name 'value'"),
        ("supply_limit as a word", lambda: REGISTRY["transportation"].sample(
            np.random.default_rng(7), "small"), "supply_limit[",
         "Next, supply_limit.", "internal name 'supply_limit'"),
        ("Rule each_task ties", lambda: REGISTRY["assignment"].sample(
            np.random.default_rng(7), "small"), "each_task[",
         "Rule each_task ties every task to its taker.", "internal name 'each_task'"),
        ("a number not in the model", lambda: REGISTRY["transportation"].sample(
            np.random.default_rng(7), "small"), "supply_limit[",
         "In all, 987654.321 tonnes can move.", "quotes 987654.321"),
    ]


@pytest.mark.parametrize("case", _false_claims(), ids=lambda c: c[0])
def test_each_false_claim_put_back_is_rejected(case: tuple) -> None:
    _, make, anchor, sentence, finding = case
    sm = make()
    st, text = document(sm)
    assert rejected(sm, st, text) == []  # the honest document passes
    if "{size}" in sentence:
        sizes = np.asarray(sm.param_map["size"].values)
        els = sm.set_map["I"].elements
        sentence = sentence.format(size=", ".join(f"{e} {v:g}" for e, v in
                                                  zip(els, sizes, strict=False)))
    if "{lo}" in sentence:
        vals = np.asarray(sm.param_map["value"].values)
        sentence = sentence.format(lo=f"{vals.min():g}", hi=f"{vals.max():g}")
    bad = inject(text, st.text, anchor(sm) if callable(anchor) else anchor, sentence)
    assert bad != text
    why = rejected(sm, st, bad)
    assert any(finding in w for w in why), why


def test_the_check_is_in_the_one_list_and_skips_seeds() -> None:
    entry = next(c for c in document_checks() if c.name == REASON)
    assert entry.scope == "document" and "import-seeds" in entry.not_in
