"""CanonicalModel construction, validation messages, views and serialization."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given

from ortrex.ir import CanonicalModel, Constraint, Objective, Variable
from tests.strategies import models


def small() -> CanonicalModel:
    return CanonicalModel.from_items(
        [Variable("x", lb=-1, ub=4), Variable("y", "I", 0, 10), Variable("b", "B")],
        Objective("max", {"x": 2, "y": 3}, 1.5, {("x", "y"): 0.5, ("b", "b"): -1.0}),
        [Constraint.from_sense("cap", {"x": 1, "y": 1}, "<=", 4),
         Constraint.from_sense("bal", {"x": 1, "y": -1}, "=", 0),
         Constraint("rng", {"x": 1, "b": 2}, -1.0, 3.0),
         Constraint.from_sense("q", {"y": 1}, ">=", 1, quad={("x", "x"): 2.0})],
        name="small")


def test_views_and_stats() -> None:
    m = small()
    assert m.num_vars == 3 and m.num_rows == 4 and m.nnz == 7
    assert m.row_senses == ("<=", "=", "range", ">=")
    s = m.stats()
    assert (s.n_int, s.n_bin, s.n_qobj, s.n_qrows, s.problem_class) == (1, 1, 2, 1, "MIQCP")
    cons = {c.name: c for c in m.constraints()}
    assert cons["rng"].terms == {"x": 1.0, "b": 2.0} and cons["rng"].sense == "range"
    assert cons["q"].quad == {("x", "x"): 2.0}
    obj = m.objective()
    assert obj.sense == "max" and obj.constant == 1.5 and obj.quad[("x", "y")] == 0.5


def test_arrays_are_read_only_and_canonical() -> None:
    m = CanonicalModel(var_names=["a", "b"],
                       A=sp.csr_matrix(([1.0, 2.0, 0.0, -0.0], ([0, 0, 0, 0], [1, 1, 0, 0])),
                                       shape=(1, 2)),
                       qobj=([1, 0, 1], [0, 1, 1], [1.0, 2.0, 0.0]))
    assert m.nnz == 1 and m.A.data[0] == 3.0  # duplicates summed, zeros dropped
    assert list(zip(*m.qobj, strict=True)) == [(0, 1, 3.0)]  # (1, 0) folded into (0, 1)
    with pytest.raises(ValueError):
        m.lb[0] = 5.0


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"obj": [math.nan, 0]}, "variable 'a': objective coefficient is NaN"),
    ({"obj": [math.inf, 0]}, "variable 'a': objective coefficient is infinite"),
    ({"lb": [3, 0], "ub": [1, 1]}, "variable 'a': lb 3.0 > ub 1.0"),
    ({"lb": [math.nan, 0]}, "variable 'a': lb is NaN"),
    ({"var_types": "CB", "ub": [1, 2]}, "variable 'b': binary with bounds [0.0, 2.0]"),
    ({"var_types": "CX"}, "variable 'b': unknown type 'X'"),
    ({"var_names": ["a", "a"]}, "duplicate variable name 'a'"),
    ({"A": sp.csr_matrix([[1.0, math.nan]]), "row_names": ["r"]},
     "constraint 'r': coefficient of 'b' is NaN"),
    ({"A": sp.csr_matrix([[1.0, math.inf]]), "row_names": ["r"]},
     "constraint 'r': coefficient of 'b' is infinite"),
    ({"A": sp.csr_matrix([[1.0, 1.0], [1.0, 0.0]]), "row_names": ["r", "r"]},
     "duplicate constraint name 'r'"),
    ({"A": sp.csr_matrix([[1.0, 1.0]]), "row_names": ["r"], "row_lower": [2], "row_upper": [1]},
     "constraint 'r': lower 2.0 > upper 1.0"),
    ({"qobj": ([0], [1], [math.nan])}, "quadratic coefficient of 'a'*'b' is not finite"),
    ({"sense": "maximize"}, "unknown objective sense"),
])
def test_validation_names_the_offender(kwargs: dict, message: str) -> None:
    base = {"var_names": ["a", "b"]}
    with pytest.raises(ValueError, match=message.replace("[", r"\[").replace("*", r"\*")):
        CanonicalModel(**{**base, **kwargs})


def test_unknown_variable_in_items() -> None:
    with pytest.raises(ValueError, match="constraint 'c': unknown variable 'z'"):
        CanonicalModel.from_items(["x"], None, [Constraint.from_sense("c", {"z": 1}, "<=", 1)])


@given(models())
def test_bytes_round_trip(m: CanonicalModel) -> None:
    back = CanonicalModel.from_bytes(m.to_bytes())
    assert back == m and back.name == m.name
    assert back.structural_fingerprint == m.structural_fingerprint
    assert back.row_senses == m.row_senses


def test_content_hash_sees_names_and_order_but_not_the_model_name() -> None:
    m = small()
    assert m.replace(name="other").content_hash == m.content_hash
    assert m.replace(var_names=["x", "y", "c"]).content_hash != m.content_hash
    swapped = m.replace(row_names=["bal", "cap", "rng", "q"])
    assert swapped.content_hash != m.content_hash


def test_negative_zero_is_zero() -> None:
    a = CanonicalModel(var_names=["x"], lb=[-0.0], obj=[-0.0])
    b = CanonicalModel(var_names=["x"], lb=[0.0], obj=[0.0])
    assert a.content_hash == b.content_hash


def test_a_million_nonzeros_is_comfortable() -> None:
    rng = np.random.default_rng(0)
    n, m, nnz = 100_000, 50_000, 1_000_000
    A = sp.csr_matrix((rng.uniform(1, 10, nnz), (rng.integers(0, m, nnz),
                                                 rng.integers(0, n, nnz))), shape=(m, n))
    model = CanonicalModel(var_names=[f"x{j}" for j in range(n)], obj=rng.uniform(-1, 1, n),
                           A=A, row_upper=rng.uniform(10, 100, m))
    assert model.nnz == A.nnz and len(model.content_hash) == 64
