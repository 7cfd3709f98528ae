"""The completeness gate: a situation statement that leaves out a rule, the goal or a whole
decision, or says what only a modeller would, is named and rejected."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.render.account import devices, untold
from ortrex.render.statement import render_statement
from ortrex.verifiers.checks.document import verify_completeness


def _told(family: str, seed: int = 5):  # type: ignore[no-untyped-def]
    sm = REGISTRY[family].sample(np.random.default_rng(seed), "small")
    return sm, render_statement(sm, "DP", "situation:narrative", seed=seed)


def test_a_whole_statement_has_nothing_untold() -> None:
    for family in sorted(REGISTRY):
        sm, st_ = _told(family)
        assert untold(sm, st_.text, st_.account) == [], family
        assert verify_completeness(sm, st_.text, st_.layout, st_.account).ok, family


def test_a_dropped_rule_sentence_and_a_missing_account_entry_are_named() -> None:
    sm, st_ = _told("facility_location")
    rule = next(c.name for c in sm.constraints if c.name not in devices(sm))
    text = st_.text.replace(st_.account[rule][1:], "")
    assert untold(sm, text, st_.account) == [f"rule {rule!r}: its sentence is not in the text"]
    # A paraphrase words its rules its own way; what it must still account for is every rule.
    assert untold(sm, text, st_.account, verbatim=False) == []
    partial = {k: v for k, v in st_.account.items() if k not in (rule, "objective")}
    assert untold(sm, st_.text, partial, verbatim=False) == [
        f"rule {rule!r} is not told", "the goal is not told"]
    check = verify_completeness(sm, text, st_.layout, st_.account)
    assert not check.ok and repr(rule) in check.details["why"]
    assert check.details["account"] == st_.account  # the evidence a re-check reads again


def test_wholeness_is_part_of_what_a_statement_must_say() -> None:
    # Shipments made whole (as change_var_type does): the statement must now say so.
    sm = REGISTRY["transportation"].sample(np.random.default_rng(2), "small")
    sm = replace(sm, variables=tuple(replace(v, vtype="I") for v in sm.variables))
    st_ = render_statement(sm, "DP", "situation:letter", seed=3)
    assert untold(sm, st_.text, st_.account) == []
    partial = {k: v for k, v in st_.account.items() if k != "x"}
    assert untold(sm, st_.text, partial) == ["the wholeness of 'x' is not told"]


def test_modelling_artefacts_fail_a_situation_but_a_specification_lists_them() -> None:
    sm, st_ = _told("facility_location")
    text = st_.text + "\nUse a big-M of 1000 for the linking rows.\n"
    check = verify_completeness(sm, text, st_.layout, st_.account)
    assert not check.ok and "big-M" in check.details["why"]
    spec = render_statement(sm, "DP", "specification:sections", seed=5)
    assert verify_completeness(sm, spec.text, spec.layout, spec.account).ok
