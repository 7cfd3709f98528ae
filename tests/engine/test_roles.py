"""Roles in the semantic IR: set by every family, kept by grounding and mutation, and obeyed
by the operators (protected rows never removed or softened, revenue only on what is sold)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.base import SIZES
from ortrex.engine.generate.mutate import CROSSOVER_PARTNERS, OPERATORS, NotApplicable, apply
from ortrex.ir.expr import Var
from ortrex.ir.roles import CONSTRAINT_ROLES, PRICEABLE, PROTECTED, VARIABLE_ROLES
from ortrex.ir.semantic import SemanticModel
from tests.samples import verified_parent


@pytest.mark.parametrize("size", SIZES)
def test_every_family_gives_every_part_a_role(size: str) -> None:
    for name, fam in sorted(REGISTRY.items()):
        sm = fam.sample(np.random.default_rng(3), size)
        assert all(v.role in VARIABLE_ROLES for v in sm.variables), name
        assert all(c.role in CONSTRAINT_ROLES for c in sm.constraints), name
        assert SemanticModel.loads(sm.dumps()).to_json() == sm.to_json()


def test_an_unknown_role_is_refused() -> None:
    sm = REGISTRY["knapsack_01"].sample(np.random.default_rng(0), "small")
    with pytest.raises(ValueError, match="unknown role 'decorative'"):
        replace(sm, constraints=(replace(sm.constraints[0], role="decorative"),))


PARENTS = {f: verified_parent(f)[:3] for f in sorted(REGISTRY)}
CHANGING = sorted(n for n, op in OPERATORS.items() if not op.presentation)


def _child(op: str, family: str, seed: int) -> tuple[SemanticModel, SemanticModel, dict] | None:
    sm, _, values = PARENTS[family]
    other = None
    if op == "crossover":
        partners = CROSSOVER_PARTNERS.get(family, ())
        if not partners:
            return None
        other = PARENTS[partners[0]][0]
    try:
        m = apply(op, sm, values, np.random.default_rng(seed), other)
    except NotApplicable:
        return None
    return sm, m.child, m.params


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(CHANGING), family=st.sampled_from(sorted(REGISTRY)),
       seed=st.integers(0, 10_000))
def test_protected_rows_survive_every_operator(op: str, family: str, seed: int) -> None:
    made = _child(op, family, seed)
    if made is None:
        return
    parent, child, _ = made
    kept = {c.name: c for c in child.constraints}
    for c in parent.constraints:
        if c.role in PROTECTED:
            if op == "cost_to_profit" and c.name not in kept:
                # A demand turned into a market: the balance now covers what is sold (a
                # ``sold`` variable in the demand's place), under a name of its own.
                k = kept.get(f"{c.name}_sold")
                assert k is not None and (k.sense, k.role) == (c.sense, c.role), (op, c.name)
                assert "sold" in repr(k.lhs) and "sales" in k.meaning, (op, c.name)
                continue
            assert c.name in kept, (op, c.name)
            k = kept[c.name]
            if op != "crossover":  # crossover rewrites a supply row into an opening link
                assert (k.lhs, k.sense, k.rhs, k.role) == (c.lhs, c.sense, c.rhs, c.role), \
                    (op, c.name)
    assert all(v.role for v in child.variables) and all(c.role for c in child.constraints), op


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_roles_follow_the_child(op: str) -> None:
    """New parts get their role from the operator; old parts keep theirs."""
    seen = 0
    for family in sorted(REGISTRY):
        made = _child(op, family, 1)
        if made is None:
            continue
        parent, child, _ = made
        seen += 1
        before = {x.name: x.role for x in (*parent.variables, *parent.constraints)}
        for x in (*child.variables, *child.constraints):
            assert x.role, (op, x.name)
            if x.name in before and op != "crossover":
                assert x.role == before[x.name], (op, x.name)
    assert seen, op


def test_revenue_lands_only_on_what_is_sold_or_chosen() -> None:
    for family in sorted(REGISTRY):
        for seed in range(6):
            made = _child("cost_to_profit", family, seed)
            if made is None:
                continue
            _, child, params = made
            priced = {v.name: v for v in child.variables}[params["variable"]]
            assert priced.role in PRICEABLE, (family, priced.name, priced.role)
    # Only a cost in money becomes a profit: not a count of bins, not a variance.
    for family in ("bin_packing", "portfolio", "cutting_stock"):
        with pytest.raises(NotApplicable, match="not a cost in money"):
            apply("cost_to_profit", *PARENTS[family][::2], np.random.default_rng(0))
    # Stock carried between periods is held, not sold, and output is sold only through the
    # sales that take the demand's place: revenue lands on those.
    for seed in range(10):
        made = _child("cost_to_profit", "production_planning", seed)
        assert made is not None and made[2]["variable"] == "sold"
        assert made[1].var_map["sold"].role == "quantity"
    # The tour of a TSP has positions: none of them is ever priced.
    for seed in range(10):
        made = _child("cost_to_profit", "tsp_mtz", seed)
        assert made is None or made[2]["variable"] != "u"


def test_min_max_only_over_comparable_quantities() -> None:
    for family in sorted(REGISTRY):
        made = _child("objective_minmax", family, 0)
        if made is None:
            continue
        parent = made[0]
        roles = {v.name: (v.role, v.vtype) for v in parent.variables}
        inside = {e.name for e in parent.objective.expr.walk() if isinstance(e, Var)}
        assert all(roles[n][0] == "quantity" and roles[n][1] != "B" for n in inside), family
    with pytest.raises(NotApplicable, match="not comparable quantities"):
        apply("objective_minmax", *PARENTS["set_packing"][::2], np.random.default_rng(0))


def test_ratios_never_on_relaxed_indicators() -> None:
    from ortrex.engine.operators.base import Context
    from ortrex.engine.operators.constraints import _ratio

    sm, _, values = PARENTS["unit_commitment"]
    for seed in range(10):
        try:
            m = _ratio(Context(sm, values, np.random.default_rng(seed)))
        except NotApplicable:
            continue
        assert m.params["variable"] == "p"  # the output, never the relaxed start-ups
