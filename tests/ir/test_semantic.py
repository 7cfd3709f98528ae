"""Semantic IR: validation, JSON round trip, LaTeX, and grounding details."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.pipeline import task_seed
from ortrex.ir.expr import Cond, Idx, P, V, expand, total
from ortrex.ir.semantic import (
    SCHEMA_VERSION,
    ConstraintFamily,
    IndexSet,
    ObjectiveSpec,
    Parameter,
    SemanticModel,
    VariableFamily,
)


def periods(n: int = 3) -> SemanticModel:
    """Stock balance over ordered periods: s[t] = s[t-1] + x[t] - d[t], first period from s0."""
    T = IndexSet("T", tuple(f"t{k}" for k in range(n)), "period")
    return SemanticModel(
        "demo", "test", "periods", (T,),
        (Parameter("d", ("T",), np.arange(1.0, n + 1)), Parameter("s0", (), np.array(2.0)),
         Parameter("cap", ("T",), np.full(n, 4.0))),
        (VariableFamily("x", (("t", "T"),), ub=P("cap", "t")), VariableFamily("s", (("t", "T"),))),
        (ConstraintFamily("first", "start", (("t", "T"),), V("s", "t") - V("x", "t"), "=",
                          P("s0") - P("d", "t"), (Cond("first", "t"),)),
         ConstraintFamily("rest", "carry", (("t", "T"),),
                          V("s", "t") - V("s", Idx("t") - 1) - V("x", "t"), "=", -P("d", "t"),
                          (Cond("not_first", "t"),))),
        ObjectiveSpec("min", total("t", "T", V("x", "t") + 0.5 * V("s", "t"))))


def test_grounding_with_shifts_conditions_and_parameter_bounds() -> None:
    m = periods().ground()
    assert m.var_names == ("x[t0]", "x[t1]", "x[t2]", "s[t0]", "s[t1]", "s[t2]")
    assert m.row_names == ("first[t0]", "rest[t1]", "rest[t2]")
    dense = m.A.toarray()
    assert dense[0].tolist() == [-1, 0, 0, 1, 0, 0]
    assert dense[2].tolist() == [0, 0, -1, 0, -1, 1]  # s[t2] - s[t1] - x[t2]
    assert m.row_lower.tolist() == [1.0, -2.0, -3.0] == m.row_upper.tolist()
    assert m.ub.tolist() == [4.0] * 3 + [math.inf] * 3
    assert m.obj.tolist() == [1, 1, 1, 0.5, 0.5, 0.5]


def test_filtered_variables_and_links() -> None:
    N = IndexSet("N", ("a", "b", "c"))
    A = IndexSet("A", ("a1", "a2"))
    sm = SemanticModel(
        "demo", "test", "links", (N, A),
        (Parameter("tail", ("A",), np.array([0.0, 1.0]), integer=True),),
        (VariableFamily("x", (("i", "N"), ("j", "N")), "B", where=(Cond("ne", "i", "j"),)),
         VariableFamily("f", (("a", "A"),))),
        (ConstraintFamily("out", "flow out", (("n", "N"),),
                          total("a", "A", V("f", "a"), Cond("link", "a", "n", param="tail")),
                          "<=", 1.0),
         ConstraintFamily("deg", "degree", (("i", "N"),),
                          total("j", "N", V("x", "i", "j"), Cond("ne", "i", "j")), "=", 1.0)),
        ObjectiveSpec("min", total("i", "N", total("j", "N", V("x", "i", "j"),
                                                   Cond("ne", "i", "j")))))
    m = sm.ground()
    assert m.num_vars == 6 + 2  # no x[i,i]
    assert "x[a,a]" not in m.var_names
    # node c has no outgoing arc: its (empty, feasible) row is dropped
    assert [r for r in m.row_names if r.startswith("out")] == ["out[a]", "out[b]"]


@pytest.mark.parametrize(("mutate", "message"), [
    (lambda sm: {"constraints": (ConstraintFamily("c", "m", (), V("x", "z"), "<=", 1.0),)},
     "unbound index 'z'"),
    (lambda sm: {"constraints": (ConstraintFamily("c", "m", (("t", "T"),), V("x"), "<=", 1.0),)},
     "takes 1 indices, got 0"),
    (lambda sm: {"constraints": (ConstraintFamily("c", "m", (("t", "Q"),), V("x", "t"), "<=",
                                                  1.0),)}, "unknown set 'Q'"),
    (lambda sm: {"constraints": (ConstraintFamily("c", "m", (("t", "T"),), V("y", "t"), "<=",
                                                  1.0),)}, "unknown variable 'y'"),
    (lambda sm: {"sets": (IndexSet("T", ("a b", "c")),)}, "not identifier-safe"),
    (lambda sm: {"objective": ObjectiveSpec("best", V("x", "t"))}, "objective sense"),
    (lambda sm: {"params": (Parameter("d", ("T",), np.array([1.0, math.nan, 3.0])),
                            Parameter("s0", (), np.array(2.0)),
                            Parameter("cap", ("T",), np.full(3, 4.0)))}, "NaN"),
])
def test_validation_names_the_problem(mutate, message: str) -> None:  # type: ignore[no-untyped-def]
    from dataclasses import replace

    sm = periods()
    with pytest.raises(ValueError, match=message):
        replace(sm, **mutate(sm))


@settings(max_examples=60)
@given(st.sampled_from(sorted(REGISTRY)), st.integers(0, 10_000),
       st.sampled_from(["small", "medium"]))
def test_json_round_trip_of_every_family(family: str, seed: int, size: str) -> None:
    sm = REGISTRY[family].sample(task_seed(seed, 0), size)
    text = sm.dumps()
    back = SemanticModel.loads(text)
    assert back.dumps() == text and back.content_id == sm.content_id
    assert back.ground() == sm.ground()
    assert json.loads(text)["schema_version"] == SCHEMA_VERSION


def test_newer_schema_is_refused() -> None:
    d = periods().to_json()
    d["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(ValueError, match="newer than this ortrex"):
        SemanticModel.from_json(d)


def test_latex_states_every_part() -> None:
    tex = REGISTRY["tsp_mtz"].sample(task_seed(1, 1), "small").latex()
    assert tex.startswith(r"\begin{aligned}") and r"\min" in tex
    assert r"\sum_{j \in N : i \neq j} x_{i,j} = 1 && \forall i \in N" in tex
    assert r"u_{i} - u_{j} + \mathit{n\_nodes} x_{i,j} \le \mathit{n\_nodes} - 1" in tex
    assert r"\{0, 1\}" in tex and r"\forall i \in N, j \in N: i \neq j" in tex


def test_expansion_distributes_products() -> None:
    e = 2 * (P("a", "i") + V("x", "i")) * V("y", "i")
    monos = expand(e)
    assert len(monos) == 2
    assert {len(m.vars) for m in monos} == {1, 2}


def test_sampling_is_deterministic() -> None:
    for family in REGISTRY:
        a = REGISTRY[family].sample(task_seed(7, 3), "small")
        b = REGISTRY[family].sample(task_seed(7, 3), "small")
        assert a.dumps() == b.dumps()


def test_every_family_offers_three_domains_and_all_sizes() -> None:
    for f in REGISTRY.values():
        assert len({v.domain for v in f.vocabularies}) >= 3 or len(f.vocabularies) >= 3
        for size in ("small", "medium", "large"):
            sm = f.sample(task_seed(11, 0), size)
            assert sm.descriptors["size"] == size and sm.descriptors["story"]
            for p in sm.params:
                # A pure number (a probability, a share, a weight) has no unit.
                assert p.description and (p.unit or re.match(
                    r"(probability|share|weight) of ", p.description)), (f.name, p.name)
            for v in sm.variables:
                assert v.description and v.unit, (f.name, v.name)
            for s in sm.sets:
                assert s.entity, (f.name, s.name)
            for c in sm.constraints:
                assert c.meaning.endswith("."), (f.name, c.name)
    classes = {f.problem_class for f in REGISTRY.values()}
    assert {"LP", "MILP", "BIP", "QP"} <= classes
