"""Fingerprint invariance and sensitivity, as property tests over random models."""

from __future__ import annotations

import math
import subprocess
import sys

import numpy as np
import scipy.sparse as sp
from hypothesis import assume, given
from hypothesis import strategies as st

from ortrex.ir import fingerprint
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import Tokens, distinct_rows, quantize, row_groups
from ortrex.ir.normalize import normalize
from tests.strategies import (
    binary_as_integer,
    bounds_as_rows,
    flip_sense,
    models,
    permute,
    rename,
    scale_rows,
)

FACTORS = st.sampled_from([2.0, -1.0, 3.7, -0.3, 1e3, -7.0 / 3.0, 0.001, 12.5])


def fps(m: CanonicalModel) -> tuple[str, str]:
    return m.structural_fingerprint, m.formulation_fingerprint


@given(models(), st.data())
def test_invariant_under_renaming_and_permutation(m: CanonicalModel, data: st.DataObject) -> None:
    vp = data.draw(st.permutations(list(range(m.num_vars))))
    rp = data.draw(st.permutations(list(range(m.num_rows))))
    other = permute(rename(m), vp, rp)
    assert other.content_hash != m.content_hash or (m.num_vars == 1 and m.num_rows == 0) is False
    assert fps(other) == fps(m)


@given(models(), st.data())
def test_invariant_under_row_scaling(m: CanonicalModel, data: st.DataObject) -> None:
    factors = data.draw(st.lists(FACTORS, min_size=m.num_rows, max_size=m.num_rows))
    assert fps(scale_rows(m, factors)) == fps(m)


@given(models())
def test_invariant_under_min_max(m: CanonicalModel) -> None:
    assert fps(flip_sense(m)) == fps(m)


@given(models(), FACTORS)
def test_invariant_under_bounds_as_rows(m: CanonicalModel, factor: float) -> None:
    assert fps(bounds_as_rows(m, factor)) == fps(m)


@given(models())
def test_binary_is_integer_in_zero_one(m: CanonicalModel) -> None:
    assert fps(binary_as_integer(m)) == fps(m)


@given(models(), st.data())
def test_invariant_under_all_transformations_at_once(m: CanonicalModel,
                                                     data: st.DataObject) -> None:
    t = bounds_as_rows(binary_as_integer(flip_sense(m)), data.draw(FACTORS))
    t = scale_rows(t, data.draw(st.lists(FACTORS, min_size=t.num_rows, max_size=t.num_rows)))
    t = permute(rename(t, "z"), data.draw(st.permutations(list(range(t.num_vars)))),
                data.draw(st.permutations(list(range(t.num_rows)))))
    assert fps(t) == fps(m)


def _row_with_two_terms(m: CanonicalModel, data: st.DataObject) -> int:
    rows = [r for r in range(m.num_rows) if m.A.indptr[r + 1] - m.A.indptr[r] >= 2]
    assume(rows)
    return data.draw(st.sampled_from(rows))


@given(models(generic=True), st.data())
def test_sensitive_to_one_coefficient(m: CanonicalModel, data: st.DataObject) -> None:
    r = _row_with_two_terms(m, data)
    p = data.draw(st.integers(m.A.indptr[r], m.A.indptr[r + 1] - 1))
    factor = data.draw(st.sampled_from([1.001, 0.5, -1.0, 1.0 + 1e-5, 3.0]))
    A = m.A.copy()
    A.data[p] *= factor
    changed = m.replace(A=A)
    assert changed.structural_fingerprint != m.structural_fingerprint


@given(models(generic=True), st.data())
def test_sensitive_to_objective_coefficient(m: CanonicalModel, data: st.DataObject) -> None:
    j = data.draw(st.integers(0, m.num_vars - 1))
    obj = m.obj.copy()
    obj[j] *= data.draw(st.sampled_from([1.0001, -1.0, 2.0]))
    assert m.replace(obj=obj).structural_fingerprint != m.structural_fingerprint


@given(models(generic=True), st.data())
def test_sensitive_to_a_sense(m: CanonicalModel, data: st.DataObject) -> None:
    r = _row_with_two_terms(m, data)
    lo, hi = m.row_lower.copy(), m.row_upper.copy()
    assume(math.isinf(lo[r]) != math.isinf(hi[r]))
    lo[r], hi[r] = (hi[r], math.inf) if math.isinf(lo[r]) else (-math.inf, lo[r])
    assert m.replace(row_lower=lo, row_upper=hi).structural_fingerprint != \
        m.structural_fingerprint


@given(models(generic=True), st.data())
def test_sensitive_to_a_type(m: CanonicalModel, data: st.DataObject) -> None:
    j = data.draw(st.integers(0, m.num_vars - 1))
    types = m.var_types.copy()
    types[j] = "C" if types[j] != "C" else "I"
    changed = m.replace(var_types=types)
    assert fps(changed)[0] != fps(m)[0]
    assert fps(changed)[1] != fps(m)[1]


@given(models(generic=True), st.data())
def test_sensitive_to_an_added_row(m: CanonicalModel, data: st.DataObject) -> None:
    assume(m.num_vars >= 2)
    i, j = data.draw(st.permutations(list(range(m.num_vars))))[:2]
    row = sp.csr_matrix(([1.0, 7.123456789], ([0, 0], [i, j])), shape=(1, m.num_vars))
    changed = m.replace(A=sp.vstack([m.A, row], format="csr"),
                        row_names=[*m.row_names, "extra"],
                        row_lower=np.append(m.row_lower, 2.5),
                        row_upper=np.append(m.row_upper, math.inf))
    assert fps(changed)[0] != fps(m)[0]
    assert fps(changed)[1] != fps(m)[1]


@given(models(generic=True, quadratic=False), st.data())
def test_formulation_ignores_the_data(m: CanonicalModel, data: st.DataObject) -> None:
    """Positive factors on every number keep signs and structure: same formulation only."""
    nm = normalize(m)
    assume(distinct_rows(nm).size == nm.num_rows)
    f = data.draw(st.lists(st.sampled_from([1.5, 0.25, 3.0, 1.1]), min_size=4, max_size=4))
    A = m.A.copy()
    A.data *= np.resize(f, A.data.size)
    vf = np.resize(f[::-1], m.num_vars)
    rf = np.resize(f, m.num_rows)
    types = m.var_types
    # Integer bounds keep their meaning only when they stay put; scale continuous ones.
    lb = np.where(types == "C", m.lb * vf, m.lb)
    ub = np.where(types == "C", m.ub * vf, m.ub)
    other = m.replace(A=A, obj=m.obj * vf[::-1], lb=lb, ub=ub, row_lower=m.row_lower * rf,
                      row_upper=m.row_upper * rf, obj_constant=m.obj_constant * 2 + 1)
    nm2 = normalize(other)
    assume(distinct_rows(nm2).size == nm2.num_rows)
    assume(np.array_equal(np.sign(nm.lb), np.sign(nm2.lb)))
    assume(np.array_equal(np.sign(nm.ub), np.sign(nm2.ub)))
    assert other.formulation_fingerprint == m.formulation_fingerprint
    if other.content_hash != m.content_hash:
        assert other.structural_fingerprint != m.structural_fingerprint


def test_quantize_is_relative() -> None:
    x = np.array([1.0, 1.0 + 1e-12, 1e-7, 1e-7 * (1 + 1e-12), 123456789.0, 123456790.0,
                  1e-7, 4e-7, 3.0, 3.001, 0.0, -0.0, math.inf, -math.inf])
    t = quantize(x)
    assert t[0] == t[1] and t[2] == t[3]
    assert t[4] != t[5] and t[6] != t[7] and t[8] != t[9]
    assert t[10] == t[11] and len({t[12], t[13], t[10]}) == 3


def test_ranged_and_zero_equality_rows_have_no_preferred_sign() -> None:
    base = CanonicalModel(var_names=["x", "y"], obj=[1.0, 2.0],
                          A=sp.csr_matrix([[1.0, -1.0], [2.0, 3.0]]),
                          row_lower=[0.0, -4.0], row_upper=[0.0, 5.0])
    flipped = scale_rows(base, [-1.0, -2.0])
    assert fps(flipped) == fps(base)
    other = base.replace(row_upper=[0.0, 5.5])
    assert other.structural_fingerprint != base.structural_fingerprint


@given(models(), st.data())
def test_cheap_duplicate_check_agrees_with_full_signatures(m: CanonicalModel,
                                                          data: st.DataObject) -> None:
    """Rows grouped with the cheap pre-check (no duplicates possible: done) and with the full
    signatures alone give the same groups, on models with rows copied, negated and scaled."""
    if m.num_rows:
        picks = data.draw(st.lists(st.integers(0, m.num_rows - 1), max_size=3))
        factors = data.draw(st.lists(FACTORS, min_size=len(picks), max_size=len(picks)))
        A = m.A.toarray()
        lo, hi = list(m.row_lower), list(m.row_upper)
        extra = []
        for r, f in zip(picks, factors, strict=True):
            extra.append(A[r] * f)
            lo.append(min(m.row_lower[r] * f, m.row_upper[r] * f))
            hi.append(max(m.row_lower[r] * f, m.row_upper[r] * f))
        if extra:
            m = m.replace(A=sp.csr_matrix(np.vstack([A, *extra])), row_lower=lo, row_upper=hi,
                          row_names=[*m.row_names, *(f"copy{k}" for k in range(len(extra)))])
    nm = normalize(m)
    tk = Tokens(nm, quantize)
    cheap = row_groups(nm, tk)
    orig = fingerprint._distinct_rows
    try:
        fingerprint._distinct_rows = lambda *args: False  # type: ignore[assignment]
        full = row_groups(nm, tk)
    finally:
        fingerprint._distinct_rows = orig
    assert np.array_equal(cheap[0], full[0]) and np.array_equal(cheap[1], full[1])


def test_stable_across_processes() -> None:
    m = CanonicalModel.from_bytes(
        CanonicalModel(var_names=["a", "b", "c"], var_types="CIB", lb=[0, -2, 0], ub=[5, 9, 1],
                       obj=[1.5, -2.0, 3.0], A=sp.csr_matrix([[1.0, 2.0, 0.0], [0, 1.0, -1.0]]),
                       row_lower=[-math.inf, 0.0], row_upper=[4.0, 0.0],
                       qobj=([0], [1], [0.5])).to_bytes())
    code = ("import sys; from ortrex.ir.canonical import CanonicalModel as C; "
            "m = C.from_bytes(sys.stdin.buffer.read()); "
            "print(m.content_hash, m.structural_fingerprint, m.formulation_fingerprint)")
    outs = set()
    for seed in ("0", "12345"):
        out = subprocess.run([sys.executable, "-c", code], input=m.to_bytes(),
                             capture_output=True, check=True, env={"PYTHONHASHSEED": seed,
                                                                   "PATH": "/usr/bin:/bin"})
        outs.add(out.stdout.decode().strip())
    assert outs == {f"{m.content_hash} {m.structural_fingerprint} {m.formulation_fingerprint}"}


@given(models())
def test_plain_graph_is_the_general_graph(m: CanonicalModel) -> None:
    """The model graph built the short way (no open-sign row, nothing quadratic) is the one
    the general construction builds, array for array; models where it does not apply take
    the general way."""
    nm = normalize(m)
    tk = Tokens(nm, quantize)
    rows = np.arange(nm.num_rows)
    short = fingerprint.model_graph(nm, rows, tk, exact=True)
    orig = fingerprint._plain
    try:
        fingerprint._plain = lambda nm: False  # type: ignore[assignment]
        general = fingerprint.model_graph(nm, rows, tk, exact=True)
    finally:
        fingerprint._plain = orig
    for x, y in zip(short, general, strict=True):
        assert x.dtype == y.dtype and np.array_equal(x, y)
