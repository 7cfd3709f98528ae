"""What a mutated child's statement tells: a removed rule is no longer told and the kept ones
still are; a demand turned into a market is told as sales within the demand."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ortrex.engine.generate.mutate import apply
from ortrex.ir.semantic import SemanticModel
from ortrex.render.situation import SITUATION_LAYOUTS, column_labels
from ortrex.render.statement import render_statement
from ortrex.render.telling import Rule, Words, fill
from ortrex.render.tellings import TELLINGS
from tests.samples import verified_parent

# The renderer swaps these equivalent phrases at random ("must" / "will have to"): folded to
# one wording before a telling is looked for in a statement.
_FOLD = ((r"will have to", "must"), (r"may not|must not|can never", "cannot"),
         (r"no more than|not more than", "at most"), (r"no less than|not less than", "at least"),
         (r"\beach\b", "every"), (r"go beyond|go over", "exceed"))


def folded(text: str) -> str:
    """``text`` lower-cased, with the renderer's equivalent phrases folded and spaces joined."""
    text = text.lower()
    for rx, to in _FOLD:
        text = re.sub(rx, to, text)
    return re.sub(r"\s+", " ", text)


def tellings(sm: SemanticModel, rule: Rule) -> list[str]:
    """Every wording of ``rule`` filled with ``sm``'s words, folded, without its full stop."""
    words = Words(sm, "DP", column_labels(sm))
    out = []
    for t in rule.tellings:
        try:
            out.append(folded(fill(t, words)).rstrip("."))
        except KeyError:
            continue
    return out


def rule_of(family: str, name: str) -> Rule:
    """The telling's rule that covers constraint family ``name``."""
    return next(r for r in TELLINGS[family].rules if name in r.covers)


# (family, the rule removed, a rule kept): each told on its own in the family's telling.
REMOVALS = [("transportation", "supply_limit", "demand_met"),
            ("capital_budgeting", "prerequisite", "budget_limit"),
            ("production_planning", "capacity_limit", "balance")]


@pytest.mark.parametrize(("family", "removed", "kept"), REMOVALS)
def test_a_removed_rule_is_no_longer_told_and_a_kept_one_is(family: str, removed: str,
                                                             kept: str) -> None:
    sm, _, values = verified_parent(family)[:3]
    child = next(m.child for seed in range(20)
                 if (m := apply("remove_constraint", sm, values, np.random.default_rng(seed))
                     ).params["constraint"] == removed)
    assert removed not in {c.name for c in child.constraints}
    gone, stays = tellings(child, rule_of(family, removed)), tellings(child, rule_of(family, kept))
    assert gone and stays
    for k, layout in enumerate(SITUATION_LAYOUTS):
        st = render_statement(child, "DP", f"situation:{layout}", seed=k)
        text = folded(st.text)
        assert removed not in st.account
        assert not [t for t in gone if t in text], (layout, st.text)
        # The kept rule is told in one of its own wordings.
        assert folded(st.account[kept]).rstrip(".") in stays, st.account[kept]
        assert any(t in text for t in stays), (layout, st.text)
        # The parent, rendered alike, tells the removed rule: the check can fail.
        parent = render_statement(sm, "DP", f"situation:{layout}", seed=k)
        assert any(t in folded(parent.text) for t in gone), parent.text


# An opening, context line or fact lead that takes a rule for granted is tied to it
# (``Telling.presumes``) and goes with it.
def test_no_context_sentence_presumes_a_removed_rule() -> None:
    sm, _, values = verified_parent("capital_budgeting")[:3]
    child = apply("remove_constraint", sm, values, np.random.default_rng(0)).child
    assert "prerequisite" not in {c.name for c in child.constraints}
    hint = "only make sense if another goes ahead first"
    texts = [render_statement(child, "DP", f"situation:{layout}", seed=k).text
             for k in range(12) for layout in SITUATION_LAYOUTS]
    assert not [t for t in texts if hint in t]


@pytest.mark.parametrize("family", ["production_planning", "lot_sizing"])
def test_a_demand_turned_market_is_told_as_sales_within_it(family: str) -> None:
    sm, _, values = verified_parent(family)[:3]
    child = apply("cost_to_profit", sm, values, np.random.default_rng(0)).child
    balance = tellings(child, rule_of(family, "balance"))
    for k, layout in enumerate(SITUATION_LAYOUTS):
        st = render_statement(child, "DP", f"situation:{layout}", seed=k)
        text = folded(st.text)
        # The new rule is told, and the family's "demand must be met" is not.
        assert "sales stay within the demand" in folded(st.account["sales_limit"])
        assert all("sales" in folded(st.account[c.name]) for c in child.constraints
                   if c.role == "balance")
        assert not [t for t in balance if t in text], (layout, st.text)
        # The parent tells the family's balance.
        parent = render_statement(sm, "DP", f"situation:{layout}", seed=k)
        assert any(t in folded(parent.text) for t in balance), parent.text


def test_every_presumed_rule_is_a_sentence_and_a_rule_of_its_family() -> None:
    from ortrex.engine.families import REGISTRY
    from ortrex.render.tellings import TELLINGS

    seen = 0
    for family, t in TELLINGS.items():
        if family not in REGISTRY:
            continue
        sm = REGISTRY[family].sample(np.random.default_rng(1), "small")
        names = {c.name for c in sm.constraints}
        leads = {lead for f in t.facts.values() for lead in f.lead}
        for sentence, rules in t.presumes.items():
            assert sentence in (*t.openings, *t.context, *leads), (family, sentence)
            assert rules and set(rules) <= names, (family, rules)
            seen += 1
    assert seen >= 8


@pytest.mark.parametrize(("family", "lead"), [("blending", "We need exactly"),
                                              ("unit_commitment", "We must supply")])
def test_a_fact_that_states_a_lost_rule_is_told_by_its_label(family: str, lead: str) -> None:
    sm, _, values = verified_parent(family)[:3]
    child = apply("cost_to_profit", sm, values, np.random.default_rng(0)).child
    texts = [render_statement(child, "DP", f"situation:{layout}", seed=k).text
             for k in range(10) for layout in SITUATION_LAYOUTS]
    assert not [t for t in texts if lead in t]
    parents = [render_statement(sm, "DP", f"situation:{layout}", seed=k).text
               for k in range(10) for layout in SITUATION_LAYOUTS]
    assert any(lead in t for t in parents)  # the parent still says it
