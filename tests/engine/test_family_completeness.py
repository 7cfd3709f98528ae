"""Every registered family is complete in every domain it declares: a statement telling that
tells it there (an opening, each rule and the goal in the domain's own words, never the
family's meanings instead), and a role on every part it declares. A family without a telling
cannot be rendered at all."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.base import Builder, Family, Vocabulary
from ortrex.ir.roles import CONSTRAINT_ROLES, VARIABLE_ROLES
from ortrex.ir.semantic import SemanticModel
from ortrex.render.account import devices
from ortrex.render.situation import Teller
from ortrex.render.statement import render_statement
from ortrex.render.tellings import MissingTelling, telling_of

CASES = [(name, v.domain) for name, fam in sorted(REGISTRY.items()) for v in fam.vocabularies]


def in_domain(fam: Family, vocab: Vocabulary, seed: int = 0) -> SemanticModel:
    """A small instance of ``fam`` framed in ``vocab`` (what ``sample`` draws at random)."""
    rng = np.random.default_rng(seed)
    dims = {k: int(rng.integers(lo, hi + 1)) for k, (lo, hi) in fam.sizes["small"].items()}
    b = Builder(fam, vocab, dims, "small", rng.spawn(1)[0])
    fam.build(b, rng)
    return b.model


def test_every_family_declares_its_domains() -> None:
    for name, fam in REGISTRY.items():
        domains = [v.domain for v in fam.vocabularies]
        assert len(domains) == len(set(domains)) >= 3, name


@pytest.mark.parametrize(("family", "domain"), CASES)
def test_every_family_is_told_in_every_domain(family: str, domain: str) -> None:
    fam = REGISTRY[family]
    sm = in_domain(fam, next(v for v in fam.vocabularies if v.domain == domain))
    assert sm.domain == domain
    telling = telling_of(family)  # MissingTelling names the family and where one goes
    teller = Teller(sm, "DP", np.random.default_rng(0))
    teller.say(telling.openings)  # KeyError: no opening fills with this domain's words
    assert telling.goals and telling.objective
    # Each rule is told by the telling, in this domain's words, not recited from its meaning.
    hidden = devices(sm)
    for c in sm.constraints:
        if c.name in hidden:
            continue
        rules = [r for r in telling.rules if c.name in r.covers]
        assert rules, f"{family}: no rule of its telling covers {c.name!r}"
        assert any(teller.try_say(r.tellings) for r in rules), \
            f"{family} ({domain}): no wording of the rule covering {c.name!r} fits"
    assert all(v.role in VARIABLE_ROLES for v in sm.variables), family
    assert all(c.role in CONSTRAINT_ROLES for c in sm.constraints), family
    st = render_statement(sm, "DP", layout="situation:narrative", seed=1)
    assert set(st.account) >= {c.name for c in sm.constraints if c.name not in hidden}


def test_a_family_without_a_telling_cannot_be_rendered() -> None:
    sm = REGISTRY["diet"].sample(np.random.default_rng(0), "small")
    stray = replace(sm, family="no_such_family")
    for layout in ("situation:narrative", "specification:sections"):
        with pytest.raises(MissingTelling, match="family 'no_such_family' has no statement "
                                                 "telling"):
            render_statement(stray, "DP", layout=layout)


def test_a_part_declared_without_a_role_fails_at_build_time() -> None:
    fam = REGISTRY["diet"]
    b = Builder(fam, fam.vocabularies[0], {"F": 3, "N": 2}, "small")
    b.set("F")
    with pytest.raises(ValueError, match=r"family 'diet': variable 'x' has no role; declare "
                                         r"it with b\.var\('x', \.\.\., role=\.\.\.\)"):
        b.var("x", (("f", "F"),), "amount of {F} f")
    with pytest.raises(ValueError, match=r"family 'diet': constraint 'c' has no role; declare "
                                         r"it with b\.con\('c', \.\.\., role=\.\.\.\)"):
        b.con("c", "A rule.", (), 0.0, "<=", 1.0)


def test_an_index_named_like_a_wordings_value_fails_at_build_time() -> None:
    # A solution wording fills {v} with the value: an index v made every answer of that
    # family fail to render ("multiple values for keyword argument 'v'").
    fam = REGISTRY["diet"]
    b = Builder(fam, fam.vocabularies[0], {"F": 3, "N": 2}, "small")
    b.set("F")
    with pytest.raises(ValueError, match=r"variable 'x' uses index 'v'"):
        b.var("x", (("v", "F"),), "amount of {F} v", role="quantity")
    b.var("x", (("f", "F"),), "amount of {F} f", role="quantity")
    assert [v.name for v in b.vars] == ["x"]
