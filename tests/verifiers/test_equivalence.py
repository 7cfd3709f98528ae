"""The equivalence checker: ORGEval's failure list case by case, certificates, properties."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ortrex.ir import transforms as tf
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import ModelFileError, loads, to_gurobi, to_highs, write_model
from ortrex.verifiers.equivalence.check import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    UNDECIDED,
    check_certificate,
    check_equivalence,
)
from ortrex.verifiers.equivalence.suite import (
    DIFFERENT_CLASSES,
    EQUIVALENT_CLASSES,
    SIX_CYCLE,
    TWO_TRIANGLES,
    assignment,
    disguise,
    labelled_pairs,
    random_milp,
    symmetric_cases,
    vertex_cover,
)
from tests.strategies import models


def lp(text: str) -> CanonicalModel:
    return loads(text, "lp")


def verdict(a: CanonicalModel, b: CanonicalModel) -> str:
    return check_equivalence(a, b, time_limit=60).verdict


KNAPSACK = """{sense}
 obj: {c1} x + 5 y + 2 z
Subject To
 cap: 2 x + 3 y + 4 z <= 6
 link: x - y = 0
Bounds
 z <= 3
General
 z
End
"""


def knapsack(sense: str = "Maximize", c1: str = "3") -> CanonicalModel:
    return lp(KNAPSACK.format(sense=sense, c1=c1))


# ---------------------------------------------------------------- ORGEval's failure list
def test_min_vs_max_with_the_same_objective_is_not_equivalent() -> None:
    r = check_equivalence(knapsack("Maximize"), knapsack("Minimize"))
    assert r.verdict == NOT_EQUIVALENT
    assert "objective sense differs" in r.reason


def test_min_vs_max_with_the_negated_objective_is_equivalent() -> None:
    a = knapsack("Maximize")
    assert verdict(a, tf.flip_sense(a)) == EQUIVALENT


def test_quadratic_objective_terms_count() -> None:
    a = lp("Minimize\n obj: x + y + [ x ^ 2 + 2 x * y ] / 2\nSubject To\n c: x + y >= 1\nEnd\n")
    b = lp("Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\nEnd\n")
    c = lp("Minimize\n obj: x + y + [ x ^ 2 + 4 x * y ] / 2\nSubject To\n c: x + y >= 1\nEnd\n")
    r = check_equivalence(a, b)
    assert r.verdict == NOT_EQUIVALENT and "quadratic objective terms" in r.reason
    assert verdict(a, c) == NOT_EQUIVALENT
    assert verdict(a, tf.shuffle(a, np.random.default_rng(1))) == EQUIVALENT


def test_quadratic_constraint_terms_count() -> None:
    a = lp("Minimize\n obj: x + y\nSubject To\n q: x + y + [ x ^ 2 ] <= 4\nEnd\n")
    b = lp("Minimize\n obj: x + y\nSubject To\n q: x + y + [ y ^ 2 ] <= 4\nEnd\n")
    c = lp("Minimize\n obj: x + y\nSubject To\n q: x + y + [ 2 x ^ 2 ] <= 4\nEnd\n")
    d = lp("Minimize\n obj: y + x\nSubject To\n q: -2 x - 2 y - [ 2 x ^ 2 ] >= -8\nEnd\n")
    assert verdict(a, b) == EQUIVALENT  # x and y swap roles: the same model
    assert verdict(a, c) == NOT_EQUIVALENT
    assert verdict(a, d) == EQUIVALENT  # scaled by -2 with the quadratic part


def test_rows_scaled_and_sign_flipped_with_nonzero_rhs() -> None:
    a = lp("Maximize\n obj: x + y\nSubject To\n c: 2 x + 3 y <= 6\nEnd\n")
    b = lp("Maximize\n obj: x + y\nSubject To\n c: -4 x - 6 y >= -12\nEnd\n")
    c = lp("Maximize\n obj: x + y\nSubject To\n c: 2 x + 3 y >= 6\nEnd\n")
    r = check_equivalence(a, b)
    assert r.verdict == EQUIVALENT
    assert r.certificate is not None
    assert r.certificate.factor.tolist() == pytest.approx([-2.0])
    assert verdict(a, c) == NOT_EQUIVALENT


def test_x_minus_y_equals_zero_vs_y_minus_x() -> None:
    a = lp("Minimize\n obj: x + 2 y\nSubject To\n e: x - y = 0\n c: x + y >= 1\nEnd\n")
    b = lp("Minimize\n obj: x + 2 y\nSubject To\n e: y - x = 0\n c: x + y >= 1\nEnd\n")
    c = lp("Minimize\n obj: x + 2 y\nSubject To\n e: x - 2 y = 0\n c: x + y >= 1\nEnd\n")
    r = check_equivalence(a, b)
    assert r.verdict == EQUIVALENT
    assert r.certificate is not None and r.certificate.factor[0] == pytest.approx(-1.0)
    assert verdict(a, c) == NOT_EQUIVALENT


def test_ranged_rows_in_either_orientation() -> None:
    a = lp("Minimize\n obj: x + 2 y\nSubject To\n r: 1 <= x - y <= 3\nEnd\n")
    b = lp("Minimize\n obj: x + 2 y\nSubject To\n r: -3 <= y - x <= -1\nEnd\n")
    c = lp("Minimize\n obj: x + 2 y\nSubject To\n r: -3 <= x - y <= -1\nEnd\n")
    assert verdict(a, b) == EQUIVALENT
    assert verdict(a, c) == NOT_EQUIVALENT


def test_binary_vs_integer_in_zero_one() -> None:
    a = lp("Maximize\n obj: x + 2 y\nSubject To\n c: x + y <= 1\nBinary\n x y\nEnd\n")
    b = lp("Maximize\n obj: x + 2 y\nSubject To\n c: x + y <= 1\nBounds\n x <= 1\n y <= 1\n"
           "General\n x y\nEnd\n")
    c = lp("Maximize\n obj: x + 2 y\nSubject To\n c: x + y <= 1\nBounds\n x <= 2\n y <= 1\n"
           "General\n x y\nEnd\n")
    assert verdict(a, b) == EQUIVALENT
    assert verdict(a, c) == NOT_EQUIVALENT


def test_six_cycle_vs_two_triangles() -> None:
    """Colour refinement cannot tell these apart (both 2-regular); the search can."""
    cycle, triangles = vertex_cover(SIX_CYCLE, 6), vertex_cover(TWO_TRIANGLES, 6)
    r = check_equivalence(cycle, triangles)
    assert r.verdict == NOT_EQUIVALENT
    assert "exhaustive search" in r.reason
    assert verdict(cycle, disguise(cycle, 3)) == EQUIVALENT
    assert verdict(triangles, disguise(triangles, 4)) == EQUIVALENT


def test_long_cycle_vs_two_cycles_is_fast_with_automorphism_pruning() -> None:
    n = 120
    one = vertex_cover([(i, (i + 1) % n) for i in range(n)], n)
    h = n // 2
    two = vertex_cover([(i, (i + 1) % h) for i in range(h)]
                       + [(h + i, h + (i + 1) % h) for i in range(h)], n)
    # Without pruning this is n refinements of n / 2 rounds each; the limit would be hit.
    r = check_equivalence(one, two, time_limit=20)
    assert r.verdict == NOT_EQUIVALENT, r.reason


def test_numbers_match_with_relative_tolerance() -> None:
    base = "Minimize\n obj: x + y\nSubject To\n c: {v} x + y >= 1\nEnd\n"
    assert verdict(lp(base.format(v="123456789")), lp(base.format(v="123456790"))) == EQUIVALENT
    assert verdict(lp(base.format(v="1e-7")), lp(base.format(v="4e-7"))) == NOT_EQUIVALENT
    assert verdict(lp(base.format(v="3")), lp(base.format(v="3.001"))) == NOT_EQUIVALENT
    assert verdict(lp(base.format(v="0.333333")),
                   lp(base.format(v="0.3333333333333333"))) == EQUIVALENT


def test_tolerance_is_an_argument() -> None:
    base = "Minimize\n obj: x + y\nSubject To\n c: {v} x + y >= 1\nEnd\n"
    a, b = lp(base.format(v="3")), lp(base.format(v="3.001"))
    assert check_equivalence(a, b, rel_tol=1e-3).verdict == EQUIVALENT
    assert check_equivalence(a, b, rel_tol=1e-4).verdict == NOT_EQUIVALENT


def test_joint_grouping_keeps_close_numbers_together() -> None:
    """Numbers that straddle any fixed bucket edge still match: groups come from both models."""
    rng = np.random.default_rng(5)
    m = random_milp(400, seed=2)
    A = m.A.copy()
    A.data = A.data * (1 + rng.uniform(-2e-7, 2e-7, A.data.size)) + rng.uniform(0, 1, A.data.size)
    a = m.replace(A=A)
    jiggled = a.A.copy()
    jiggled.data = jiggled.data * (1 + rng.uniform(-2e-7, 2e-7, A.data.size))
    assert verdict(a, disguise(a.replace(A=jiggled), 7)) == EQUIVALENT


def test_an_infinite_bound_never_matches_a_finite_one() -> None:
    a = lp("Minimize\n obj: - x\nSubject To\n c: x + y <= 5\nBounds\n x <= 970652.08\nEnd\n")
    b = lp("Minimize\n obj: - x\nSubject To\n c: x + y <= 5\nEnd\n")
    r = check_equivalence(a, b)
    assert r.verdict == NOT_EQUIVALENT and "upper bounds" in r.reason


def test_single_variable_rows_become_bounds() -> None:
    a = lp("Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\n b: -2 x <= 4\nBounds\n"
           "x >= -5\nEnd\n")
    b = lp("Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\nBounds\n x >= -2\nEnd\n")
    declared = lp("Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\n r: x >= 0\nBounds\n"
                  "x >= 5\nEnd\n")
    tighter = lp("Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\nBounds\n x >= 5\nEnd\n")
    assert verdict(a, b) == EQUIVALENT
    assert verdict(declared, tighter) == EQUIVALENT  # intersected, not overwritten


def test_integer_bounds_are_rounded_inward() -> None:
    a = lp("Maximize\n obj: x + y\nSubject To\n c: x + 2 y <= 7\nBounds\n x <= 3.5\n"
           "General\n x\nEnd\n")
    b = lp("Maximize\n obj: x + y\nSubject To\n c: x + 2 y <= 7\nBounds\n x <= 3\n"
           "General\n x\nEnd\n")
    assert verdict(a, b) == EQUIVALENT


def test_duplicate_rows_are_merged_and_counts_reported() -> None:
    a = lp("Minimize\n obj: x + 2 y\nSubject To\n c: x + y >= 1\n d: 2 x + 2 y >= 2\n"
           " e: x - y <= 3\nEnd\n")
    b = lp("Minimize\n obj: x + 2 y\nSubject To\n c: x + y >= 1\n e: x - y <= 3\nEnd\n")
    c = lp("Minimize\n obj: x + 2 y\nSubject To\n c: x + y >= 1\nEnd\n")
    r = check_equivalence(a, b)
    assert r.verdict == EQUIVALENT
    assert r.certificate is not None and len(r.certificate.row_a) == 3  # both copies listed
    r = check_equivalence(b, c)
    assert r.verdict == NOT_EQUIVALENT
    assert r.reason == "after normalisation: 2 rows vs 1"


def test_objective_constant_and_infeasible_empty_rows() -> None:
    a = lp("Minimize\n obj: x + y + 4\nSubject To\n c: x + y >= 1\nEnd\n")
    b = lp("Minimize\n obj: x + y\nSubject To\n c: x + y >= 1\nEnd\n")
    assert "objective constants differ" in check_equivalence(a, b).reason
    empty = b.replace(A=__import__("scipy.sparse", fromlist=["vstack"]).vstack(
        [b.A, np.zeros((1, 2))], format="csr"), row_names=["c", "never"],
        row_lower=[1.0, 1.0], row_upper=[np.inf, np.inf])
    r = check_equivalence(empty, b)
    assert r.verdict == NOT_EQUIVALENT and "infeasible empty rows" in r.reason


def test_references_orgeval_cannot_match_with_themselves(shared_benchmarks: Path) -> None:
    """bench4opt 286/287 and 360/361 are undecidable for ORGEval against themselves."""
    for k in (286, 287, 360, 361):
        path = next((shared_benchmarks / "bench4opt" / "lp_code").glob(f"model_{k}_*.lp"))
        r = check_equivalence(path, path)
        assert r.verdict == EQUIVALENT, (k, r.reason)
        m = r.models[0]  # type: ignore[index]
        assert verdict(m, disguise(m, k)) == EQUIVALENT


# ---------------------------------------------------------------- certificates
def test_certificate_maps_names_rows_and_factors() -> None:
    a = knapsack()
    b = tf.rename(tf.permute(tf.scale_rows(a, [2.0, -3.0]), [2, 0, 1], [1, 0]), "v")
    r = check_equivalence(a, b)
    assert r.verdict == EQUIVALENT and r.certificate is not None
    d = r.to_dict()
    assert d["certificate"]["variables"] == {"x": "v_1", "y": "v_2", "z": "v_0"}
    rows = {row["a"]: (row["b"], row["factor"]) for row in d["certificate"]["rows"]}
    assert rows["cap"] == ("vr_1", pytest.approx(2.0))
    assert rows["link"][0] == "vr_0" and abs(rows["link"][1]) == pytest.approx(3.0)
    assert check_certificate(a, b, r.certificate) == ""


def test_a_wrong_mapping_is_rejected() -> None:
    a = knapsack()
    b = disguise(a, 9)
    cert = check_equivalence(a, b).certificate
    assert cert is not None and check_certificate(a, b, cert) == ""
    swapped = cert.var_map.copy()
    swapped[[0, 2]] = swapped[[2, 0]]
    why = check_certificate(a, b, dataclasses.replace(cert, var_map=swapped))
    assert why.startswith(("lower bound", "upper bound", "objective coefficient", "type",
                           "row")), why
    bad_factor = cert.factor.copy()
    bad_factor[0] *= 2
    assert "factor" in check_certificate(a, b, dataclasses.replace(cert, factor=bad_factor))
    flipped = cert.factor.copy()
    flipped[0] *= -1
    assert check_certificate(a, b, dataclasses.replace(cert, factor=flipped)) != ""
    rows = dataclasses.replace(cert, row_a=cert.row_a[:1], row_b=cert.row_b[:1],
                               factor=cert.factor[:1])
    assert "leaves rows of A out" in check_certificate(a, b, rows)
    not_onto = cert.var_map.copy()
    not_onto[1] = not_onto[0]
    assert "one-to-one" in check_certificate(a, b, dataclasses.replace(cert, var_map=not_onto))


def test_certificate_checking_sees_a_changed_number() -> None:
    a = knapsack()
    b = disguise(a, 2)
    cert = check_equivalence(a, b).certificate
    assert cert is not None
    changed = tf.change_coefficient(b, 0, rel=1e-3)
    assert check_certificate(a, changed, cert) != ""


# ---------------------------------------------------------------- inputs and limits
def test_inputs_files_and_solver_objects(tmp_path: Path) -> None:
    a = knapsack()
    b = disguise(a, 1)
    for suffix in (".lp", ".mps", ".json"):
        write_model(b, tmp_path / f"b{suffix}")
        assert check_equivalence(a, tmp_path / f"b{suffix}").verdict == EQUIVALENT
        assert check_equivalence(str(tmp_path / f"b{suffix}"), a).verdict == EQUIVALENT
    assert check_equivalence(to_gurobi(b), a).verdict == EQUIVALENT
    assert check_equivalence(a, to_highs(b)).verdict == EQUIVALENT
    # The library's snippet: both sides as paths, the certificate checked on the same paths
    # (the models read for the check have no owner but the check itself).
    write_model(a, tmp_path / "a.lp")
    r = check_equivalence(tmp_path / "a.lp", tmp_path / "b.lp")
    assert r.verdict == EQUIVALENT and r.certificate is not None
    assert check_certificate(str(tmp_path / "a.lp"), tmp_path / "b.lp", r.certificate) == ""
    with pytest.raises(TypeError, match="cannot compare a list"):
        check_equivalence(a, [1, 2])


def test_bad_files_raise_a_clear_error(tmp_path: Path) -> None:
    bad = tmp_path / "bad.lp"
    bad.write_text("Minimize\n obj: x +\nSubject To\n c: x >= \nEnd\n")
    with pytest.raises(ModelFileError, match=r"bad\.lp"):
        check_equivalence(bad, knapsack())
    with pytest.raises(ModelFileError, match=r"missing\.lp"):
        check_equivalence(knapsack(), tmp_path / "missing.lp")


def test_undecided_only_when_the_time_limit_is_hit() -> None:
    a = assignment(12)
    r = check_equivalence(a, disguise(a, 1), time_limit=1e-9)
    assert r.verdict == UNDECIDED and "time limit" in r.reason
    assert check_equivalence(a, disguise(a, 1), time_limit=60).verdict == EQUIVALENT


# ---------------------------------------------------------------- benchmark classes, small
def test_symmetric_models_against_permuted_copies_and_near_misses() -> None:
    for name, model, miss in symmetric_cases():
        assert verdict(model, disguise(model, 11)) == EQUIVALENT, name
        assert verdict(model, miss) == NOT_EQUIVALENT, name
        assert verdict(disguise(model, 12), miss) == NOT_EQUIVALENT, name


def test_random_milp_against_permuted_rescaled_copy() -> None:
    m = random_milp(5000, seed=4)
    r = check_equivalence(m, disguise(m, 5))
    assert r.verdict == EQUIVALENT
    assert check_certificate(m, disguise(m, 5), r.certificate) == ""  # type: ignore[arg-type]
    assert verdict(m, tf.change_coefficient(disguise(m, 5), 17)) == NOT_EQUIVALENT


def test_labelled_suite_small(reference_lps: list[Path]) -> None:
    from ortrex.ir.formats import read_model

    models, seen = [], set()
    for path in reference_lps[::23]:
        m = read_model(path)
        if m.content_hash not in seen:
            seen.add(m.content_hash)
            models.append(m)
    pairs = labelled_pairs(models, seed=1)
    classes = {p.cls for p in pairs}
    assert classes == set(EQUIVALENT_CLASSES) | set(DIFFERENT_CLASSES)
    wrong = [(p.cls, p.a.name, check_equivalence(p.a, p.b, time_limit=30).reason)
             for p in pairs
             if (check_equivalence(p.a, p.b, time_limit=30).verdict == EQUIVALENT)
             != p.equivalent]
    assert not wrong


# ---------------------------------------------------------------- properties
@given(models(), st.data())
def test_transformed_models_stay_equivalent(m: CanonicalModel, data: st.DataObject) -> None:
    rng = np.random.default_rng(data.draw(st.integers(0, 2**16)))
    b = tf.binary_as_integer(m)
    if data.draw(st.booleans()):
        b = tf.bounds_as_rows(b, data.draw(st.sampled_from([1.0, -2.0, 0.5])))
    if data.draw(st.booleans()):
        b = tf.flip_sense(b)
    b = disguise(b, int(rng.integers(1 << 30)))
    r = check_equivalence(m, b, time_limit=60)
    assert r.verdict == EQUIVALENT, r.reason
    assert check_certificate(m, b, r.certificate) == ""  # type: ignore[arg-type]


@settings(max_examples=80)
@given(models(generic=True), st.data())
def test_perturbed_models_are_not_equivalent(m: CanonicalModel, data: st.DataObject) -> None:
    """Generic models (distinct objective coefficients) have no symmetry to undo a change."""
    rows = [r for r in range(m.num_rows) if m.A.indptr[r + 1] - m.A.indptr[r] >= 2]
    assume(rows)
    r = data.draw(st.sampled_from(rows))
    p = data.draw(st.integers(int(m.A.indptr[r]), int(m.A.indptr[r + 1]) - 1))
    changed = tf.change_coefficient(m, p, rel=data.draw(st.sampled_from([1e-4, -1e-3, 0.5])))
    assume(np.isfinite(m.row_lower[r]) or np.isfinite(m.row_upper[r]))
    assert verdict(m, disguise(changed, 3)) == NOT_EQUIVALENT
    assert verdict(m, disguise(tf.flip_objective_sense(m), 4)) == NOT_EQUIVALENT
    assert verdict(m, disguise(tf.change_type(m, 0), 5)) == NOT_EQUIVALENT
