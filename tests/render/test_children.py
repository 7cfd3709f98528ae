"""Mutation children are told as well as the families they come from: every change in plain
words, answers in the child's own names, objective wording that follows the signs, and one
quantifier per rule in every formulation."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.mutate import CROSSOVER_PARTNERS, OPERATORS, NotApplicable, apply
from ortrex.ir.semantic import SemanticModel
from ortrex.render.documents import decisions, own_names, sft_example, solution_from, walkthrough
from ortrex.render.program import gurobipy_program
from ortrex.render.statement import FORMS, render_statement
from tests.render.reading import SITUATIONS, assert_determines
from tests.samples import verified_parent


@pytest.fixture(scope="module")
def parents() -> dict[str, tuple]:
    return {f: verified_parent(f) for f in sorted(REGISTRY)}


def children(op: str, parents: dict[str, tuple]) -> list[tuple[str, SemanticModel]]:
    out = []
    for fam, (sm, _, values, _, _) in parents.items():
        other = None
        if op == "crossover":
            partners = CROSSOVER_PARTNERS.get(fam, ())
            if not partners:
                continue
            other = parents[partners[0]][0]
        for seed in (1, 2):
            try:
                out.append((fam, apply(op, sm, values, np.random.default_rng(seed), other).child))
            except NotApplicable:
                continue
    return out


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_children_are_told_in_plain_words(op: str, parents: dict[str, tuple]) -> None:
    made = children(op, parents)
    assert made, op
    for k, (fam, child) in enumerate(made):
        for form in FORMS:
            layout = SITUATIONS[(k + len(form)) % len(SITUATIONS)]
            st_ = render_statement(child, form, layout, seed=k)
            try:
                assert_determines(child, st_)
            except AssertionError as e:
                raise AssertionError(f"{op} on {fam} ({form}, {layout}): {e}") from e


SIGNED = ("objective_secondary", "on_off_binaries", "slack_penalty", "crossover",
          "cost_to_profit")


@pytest.mark.parametrize("op", SIGNED)
def test_objective_wording_follows_the_signs(op: str, parents: dict[str, tuple]) -> None:
    """A cost the operator adds reads "plus ..." when the model minimises it and "net of ..."
    when it maximises: the new term's coefficients carry the matching sign."""
    seen = set()
    for fam, child in children(op, parents):
        parent = parents[fam][0]
        o = child.objective
        c_new = child.ground()
        p_old = parents[fam][1]
        old = dict(zip(p_old.var_names, p_old.obj, strict=True))
        # The change in each variable's objective coefficient, in the child's sense.
        sign = 1.0 if o.sense == "min" else -1.0
        diffs = [sign * (c - old.get(n, 0.0)) for n, c in zip(c_new.var_names, c_new.obj,
                                                              strict=True)]
        if op == "cost_to_profit":
            assert parent.objective.sense == "min" and o.sense == "max"
            assert o.description.startswith("profit from sales net of ")
            seen.add(o.sense)
            continue
        tail = o.description[len(parent.objective.description):]
        if not tail and not any(diffs):
            continue  # a crossover that adds rules, not costs
        if o.sense == "min":
            assert tail.startswith(" plus "), o.description
        else:
            assert tail.startswith(" net of "), o.description
        assert any(d > 0 for d in diffs) and all(d >= -1e-9 for d in diffs), (fam, tail)
        seen.add(o.sense)
    assert seen, op


def test_max_parents_get_net_wording(parents: dict[str, tuple]) -> None:
    for fam in ("knapsack_01", "set_packing", "capital_budgeting"):
        sm, _, values, _, _ = parents[fam]
        assert sm.objective.sense == "max"
        m = apply("objective_secondary", sm, values, np.random.default_rng(0))
        assert " net of handling charges" in m.child.objective.description


@pytest.mark.parametrize("op", ["rename_entities", "domain_shift"])
def test_presentation_children_answer_in_their_own_names(op: str,
                                                         parents: dict[str, tuple]) -> None:
    done = 0
    for fam, child in children(op, parents):
        sm, inst, _, x, objective = parents[fam]
        theirs = {e for s in sm.sets for e in s.elements}
        mine = {e for s in child.sets for e in s.elements}
        gone = theirs - mine
        if not gone:
            continue
        sol = solution_from(own_names(child, inst), x, objective, limit=10**6)
        said = " ".join(decisions(child, sol))
        words = set(re.findall(r"[A-Za-z][\w-]*", said))
        assert not words & gone, (fam, words & gone)
        assert words & mine, (fam, said)
        st_ = render_statement(child, "DP", "situation:narrative", seed=3)
        ex = sft_example(child, st_, gurobipy_program(child).code, "gurobipy",
                         "math_model_with_code", sol)
        answer = ex.messages[1]["content"] if ex.messages else ""
        assert not set(re.findall(r"[A-Za-z][\w-]*", answer)) & gone, fam
        done += 1
    assert done >= 2, op


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_bullets_and_aligned_formulations_agree_on_quantifiers(family: str) -> None:
    sm = REGISTRY[family].sample(np.random.default_rng(4), "small")
    aligned = sm.latex()
    bullets = walkthrough(sm)
    for c in sm.constraints:
        q = c.quantifier_latex()
        if not q:
            continue
        assert rf"\forall {q} \\" in aligned, (c.name, q)
        line = next(ln for ln in bullets.splitlines() if ln.startswith(f"- {c.meaning}"))
        assert line.endswith(f"for all ${q}$."), (c.name, line)


STALE_MIN = re.compile(r"cheapest|lowest cost|least cost|minimum (?:total )?cost|as few|fewest|"
                       r"minimi[sz]", re.I)


@pytest.mark.parametrize("op", ["cost_to_profit", "objective_minmax"])
def test_a_changed_goal_is_told_anew(op: str, parents: dict[str, tuple]) -> None:
    """No stale "at minimum cost" once a mutation has changed the goal: the summary is
    regenerated from the child's objective, openings and context naming the old goal are
    passed over."""
    made = children(op, parents)
    assert made, op
    for k, (fam, child) in enumerate(made):
        verb = "Minimise" if child.objective.sense == "min" else "Maximise"
        assert child.descriptors["summary"] == f"{verb} the {child.objective.description}."
        for seed in range(6):
            layout = SITUATIONS[(k + seed) % len(SITUATIONS)]
            text = render_statement(child, "DP", layout, seed=seed).text
            if child.objective.sense == "max":
                assert not STALE_MIN.search(text), (op, fam, STALE_MIN.search(text))
        spec = render_statement(child, "DP", "specification:narrative", seed=k).text
        if child.objective.sense == "max":
            assert not STALE_MIN.search(spec), (op, fam, STALE_MIN.search(spec))


# Goal words that contradict a sense: a maximisation never asks for the lowest anything, a
# minimisation never for the most (statement openings, context, goals and requests alike).
_AGAINST = {"max": re.compile(r"cheapest|lowest|(?<!at )\bleast\b|fewest|minimi[sz]|as few|"
                              r"as little|at minimum", re.I),
            "min": re.compile(r"maximi[sz]|greatest|as much as|(?<!at )\bmost\b", re.I)}


@pytest.mark.parametrize("op", ["cost_to_profit", "objective_minmax"])
def test_a_changed_goal_is_told_anew_in_its_own_sense(op: str,
                                                      parents: dict[str, tuple]) -> None:
    made = children(op, parents)
    assert len({fam for fam, _ in made}) >= 2, op
    for k, (fam, child) in enumerate(made):
        sense = child.objective.sense
        verb = "Minimise" if sense == "min" else "Maximise"
        assert child.descriptors["summary"] == f"{verb} the {child.objective.description}."
        for form in FORMS:
            for layout in SITUATIONS:
                text = render_statement(child, form, layout, seed=k).text
                # The story and the request: the first and last paragraphs (data labels such
                # as "lowest average" are facts, not goals).
                paras = [p for p in text.split("\n\n") if p.strip()]
                bad = _AGAINST[sense].search(paras[0] + "\n" + paras[-1])
                assert bad is None, f"{op} on {fam} ({form}, {layout}) says {bad.group()!r} " \
                                    f"on a {sense}imisation:\n{text}"
