"""Ranges and equalities written as one row or as two one-sided rows: equivalent, with a
certificate of row sides that says so; near misses stay not equivalent."""

from __future__ import annotations

import dataclasses
import json
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from ortrex.ir import transforms as tf
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import loads, read_model, to_highs, write_model
from ortrex.verifiers.equivalence import encodings, sides
from ortrex.verifiers.equivalence.check import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    Certificate,
    EquivalenceResult,
    check_certificate,
    check_equivalence,
)
from ortrex.verifiers.equivalence.encodings import LOWER, UPPER
from ortrex.verifiers.equivalence.suite import disguise, random_milp
from ortrex.verifiers.solvers import objectives_agree, solve_highs
from tests.conftest import run_cli

HEAD = "Minimize\n obj: x + 2 y + 3 z\nSubject To\n"
TAIL = " c: x + z >= 1\nBounds\n x <= 8\n y <= 8\n z <= 8\nEnd\n"


def lp(rows: str) -> CanonicalModel:
    return loads(HEAD + rows + TAIL, "lp")


RANGED = lp(" R1: -5 <= x + 2 y <= 10\n")
TWO_ROWS = lp(" R1a: x + 2 y >= -5\n R1b: x + 2 y <= 10\n")


def check(a: CanonicalModel, b: CanonicalModel) -> EquivalenceResult:
    """The check both ways; the same verdict, and each certificate checked on its own."""
    r = check_equivalence(a, b, time_limit=60)
    back = check_equivalence(b, a, time_limit=60)
    assert r.verdict == back.verdict, (r.reason, back.reason)
    for x, y, res in ((a, b, r), (b, a, back)):
        if res.verdict == EQUIVALENT:
            assert res.certificate is not None
            assert check_certificate(x, y, res.certificate) == ""
    return r


def rows_of(r: EquivalenceResult) -> list[dict[str, object]]:
    return r.to_dict()["certificate"]["rows"]  # type: ignore[no-any-return]


# ---------------------------------------------------------------- a range vs two rows
def test_a_range_and_its_two_one_sided_rows_are_equivalent() -> None:
    r = check(RANGED, TWO_ROWS)
    assert r.verdict == EQUIVALENT
    assert "A's ranged row 'R1' is written in B as the one-sided rows 'R1a' and 'R1b'" \
        in r.reason
    assert rows_of(r) == [
        {"a": "R1", "a_side": ">=", "b": "R1a", "factor": 1.0},
        {"a": "R1", "a_side": "<=", "b": "R1b", "factor": 1.0},
        {"a": "c", "b": "c", "factor": 1.0}]
    assert r.to_dict()["certificate"]["encodings"] == [
        "A's ranged row 'R1' is written in B as the one-sided rows 'R1a' and 'R1b'"]
    back = check_equivalence(TWO_ROWS, RANGED)
    assert back.verdict == EQUIVALENT
    assert "B's ranged row 'R1' is written in A as the one-sided rows 'R1a' and 'R1b'" \
        in back.reason
    assert rows_of(back)[:2] == [{"a": "R1a", "b": "R1", "b_side": ">=", "factor": 1.0},
                                 {"a": "R1b", "b": "R1", "b_side": "<=", "factor": 1.0}]


@pytest.mark.parametrize(("rows", "factors"), [
    (" R1b: 2 x + 4 y <= 20\n R1a: -3 x - 6 y <= 15\n", {"R1a": -3.0, "R1b": 2.0}),
    (" R1a: 0.5 x + y >= -2.5\n R1b: -x - 2 y >= -10\n", {"R1a": 0.5, "R1b": -1.0}),
    (" R1b: -7 x - 14 y >= -70\n R1a: 4 x + 8 y >= -20\n", {"R1a": 4.0, "R1b": -7.0}),
])
def test_scaled_and_negated_one_sided_rows_match_the_range(rows: str,
                                                          factors: dict[str, float]) -> None:
    r = check(RANGED, lp(rows))
    assert r.verdict == EQUIVALENT, r.reason
    sides = {row["b"]: (row["a_side"], row["factor"]) for row in rows_of(r) if row["a"] == "R1"}
    assert sides == {"R1a": (">=", pytest.approx(factors["R1a"])),
                     "R1b": ("<=", pytest.approx(factors["R1b"]))}


def test_a_range_written_negated_matches_the_two_rows() -> None:
    negated = lp(" R1: -10 <= - x - 2 y <= 5\n")
    r = check(negated, TWO_ROWS)
    assert r.verdict == EQUIVALENT
    # The range's >= side (-x - 2y >= -10) is the upper row of B times -1.
    assert {row["b"]: (row["a_side"], row["factor"]) for row in rows_of(r)[:2]} == {
        "R1b": (">=", -1.0), "R1a": ("<=", -1.0)}


def test_ranges_in_both_models_keep_one_entry_per_row() -> None:
    """A range that is a range in B too is one certificate entry, its sides not spelt out,
    even when another row forces the comparison of split forms."""
    a = lp(" R1: -5 <= x + 2 y <= 10\n P: 1 <= x - z <= 4\n")
    b = lp(" R1: -20 <= -2 x - 4 y <= 10\n Pa: x - z >= 1\n Pb: 3 x - 3 z <= 12\n")
    r = check(a, b)
    assert r.verdict == EQUIVALENT
    assert rows_of(r)[0] == {"a": "R1", "b": "R1", "factor": -2.0}
    assert "A's ranged row 'P' is written in B as the one-sided rows 'Pa' and 'Pb'" in r.reason
    assert "'R1'" not in r.reason


def test_highs_lp_writer_splits_ranges_and_stays_equivalent(tmp_path: Path) -> None:
    m = lp(" R1: -5 <= x + 2 y <= 10\n E: x + z = 3\n")
    h = to_highs(m)
    h.writeModel(str(tmp_path / "highs.lp"))
    text = (tmp_path / "highs.lp").read_text()
    assert "R1lo" in text and "R1up" in text  # HiGHS writes the range as two rows
    r = check(m, read_model(tmp_path / "highs.lp"))
    assert r.verdict == EQUIVALENT
    assert "'R1lo' and 'R1up'" in r.reason


# ---------------------------------------------------------------- MPS RANGES
MPS = """NAME          ranged
ROWS
 N  obj
 G  R1
 L  R2
 E  R3
 E  R4
COLUMNS
    x         obj       1              R1        1
    x         R2        1              R3        1
    x         R4        1              c         1
    y         obj       2              R1        2
    y         R2        -1             R3        1
    y         R4        3
    z         obj       3              c         1
RHS
    rhs       R1        -5             R2        4
    rhs       R3        2              R4        3
    rhs       c         1
RANGES
    rng       R1        15             R2        6
    rng       R3        3              R4        -2
BOUNDS
 UP bnd       x         8
 UP bnd       y         8
 UP bnd       z         8
ENDATA
"""


def test_mps_ranges_of_every_row_type_match_two_lp_rows(tmp_path: Path) -> None:
    """RANGES on a G row [rhs, rhs + |R|], an L row [rhs - |R|, rhs], E rows with R > 0
    [rhs, rhs + R] and R < 0 [rhs + R, rhs]: each the two one-sided rows it stands for."""
    path = tmp_path / "ranged.mps"
    path.write_text(MPS.replace("ROWS\n", "ROWS\n G  c\n"))
    ranged = read_model(path)
    assert list(ranged.row_lower[1:]) == [-5.0, -2.0, 2.0, 1.0]
    assert list(ranged.row_upper[1:]) == [10.0, 4.0, 5.0, 3.0]
    two = lp(" R1a: x + 2 y >= -5\n R1b: x + 2 y <= 10\n R2a: x - y >= -2\n R2b: x - y <= 4\n"
             " R3a: 2 x + 2 y >= 4\n R3b: x + y <= 5\n R4a: x + 3 y >= 1\n"
             " R4b: -x - 3 y >= -3\n")
    r = check(ranged, two)
    assert r.verdict == EQUIVALENT, r.reason
    written = {row["a"]: row["b"] for row in rows_of(r) if "a_side" in row and
               row["a_side"] == ">="}
    assert written == {"R1": "R1a", "R2": "R2a", "R3": "R3a", "R4": "R4a"}
    sol_a, sol_b = solve_highs(ranged), solve_highs(two)
    assert sol_a.objective is not None and sol_b.objective is not None
    assert objectives_agree(sol_a.objective, sol_b.objective)  # type: ignore[arg-type]
    # Another sign of R4's range ([3, 5], R > 0) is another model.
    path.write_text(MPS.replace("ROWS\n", "ROWS\n G  c\n").replace("-2\n", "2\n"))
    assert check(read_model(path), two).verdict == NOT_EQUIVALENT


def test_ranges_written_to_mps_and_read_back(tmp_path: Path) -> None:
    m = lp(" R1: -5 <= x + 2 y <= 10\n R2: 1 <= x - y + z <= 4\n")
    write_model(m, tmp_path / "m.mps")
    assert "RANGES" in (tmp_path / "m.mps").read_text()
    two = lp(" R1a: x + 2 y >= -5\n R1b: x + 2 y <= 10\n R2a: x - y + z >= 1\n"
             " R2b: x - y + z <= 4\n")
    assert check(read_model(tmp_path / "m.mps"), two).verdict == EQUIVALENT


# ---------------------------------------------------------------- equalities
def test_an_equality_and_two_inequalities_are_equivalent() -> None:
    eq = lp(" E: x + 2 y = 4\n")
    two = lp(" Ea: x + 2 y <= 4\n Eb: 2 x + 4 y >= 8\n")
    r = check(eq, two)
    assert r.verdict == EQUIVALENT
    assert "A's equality 'E' is written in B as the one-sided rows 'Ea' and 'Eb'" in r.reason
    assert rows_of(r)[:2] == [{"a": "E", "a_side": ">=", "b": "Eb", "factor": 2.0},
                              {"a": "E", "a_side": "<=", "b": "Ea", "factor": 1.0}]
    back = check_equivalence(two, eq)
    assert "B's equality 'E' is written in A as the one-sided rows 'Ea' and 'Eb'" in back.reason
    assert rows_of(back)[:2] == [{"a": "Ea", "b": "E", "b_side": "<=", "factor": 1.0},
                                 {"a": "Eb", "b": "E", "b_side": ">=", "factor": 0.5}]


def test_an_equality_with_a_zero_or_negative_right_hand_side() -> None:
    zero = lp(" E: x - y = 0\n")
    assert check(zero, lp(" Ea: x - y <= 0\n Eb: 2 y - 2 x <= 0\n")).verdict == EQUIVALENT
    assert check(zero, lp(" Ea: x - y >= 0\n Eb: 3 x - 3 y <= 0\n")).verdict == EQUIVALENT
    negative = lp(" E: x + 2 y = -3\n")
    r = check(negative, lp(" Ea: -x - 2 y <= 3\n Eb: 2 x + 4 y <= -6\n"))
    assert r.verdict == EQUIVALENT
    assert [row["factor"] for row in rows_of(r)[:2]] == [-1.0, 2.0]


def test_equalities_written_differently_in_each_model() -> None:
    """A writes P as one row and Q as two, B the other way round: the counts of rows and of
    equalities are the same, so only the comparison of split forms tells."""
    a = lp(" P: x + 2 y = 4\n Qa: y - z <= 1\n Qb: z - y <= -1\n")
    b = lp(" Pa: x + 2 y <= 4\n Pb: - x - 2 y <= -4\n Q: 2 y - 2 z = 2\n")
    r = check(a, b)
    assert r.verdict == EQUIVALENT
    assert "A's equality 'P' is written in B as the one-sided rows 'Pa' and 'Pb'" in r.reason
    assert "B's equality 'Q' is written in A as the one-sided rows 'Qa' and 'Qb'" in r.reason


def test_mirrored_rows_within_the_tolerance_join() -> None:
    eq = lp(" E: x + 2 y = 4\n")
    assert check(eq, lp(" Ea: x + 2 y <= 4\n Eb: x + 2.000000002 y >= 4\n")).verdict \
        == EQUIVALENT
    assert check(eq, lp(" Ea: x + 2 y <= 4\n Eb: x + 2.0002 y >= 4\n")).verdict \
        == NOT_EQUIVALENT


# ---------------------------------------------------------------- near misses
@pytest.mark.parametrize("rows", [
    " R1a: x + 2 y >= -5\n R1b: x + 2 y <= 11\n",  # another upper bound
    " R1a: x + 2 y >= -4\n R1b: x + 2 y <= 10\n",  # another lower bound
    " R1a: x + 2 y >= -5\n R1b: 2 x + 4 y <= 10\n",  # one side scaled, its bound not
    " R1a: x + 2 y >= -5\n R1b: x + 3 y <= 10\n",  # another left-hand side on one side
    " R1a: x + 2 y >= -5\n R1b: x + 2 y >= 10\n",  # both sides >=
    " R1a: x + 2 y >= -5\n R1b: 3 x + 6 y >= -15\n",  # the same side twice
    " R1a: x + 2 y >= -5\n",  # one side only
    " R1b: x + 2 y <= 10\n",
    " R1a: x + 2 y >= -5\n R1b: x + 2 y <= 10\n R1c: x + y <= 9\n",  # three rows vs two
    " R1: -5 <= x + 2 y <= 10\n R1c: x + y <= 9\n",
    " R1: x + 2 y = 10\n",
])
def test_near_misses_of_a_range_are_not_equivalent(rows: str) -> None:
    assert check(RANGED, lp(rows)).verdict == NOT_EQUIVALENT
    assert check(TWO_ROWS, lp(rows)).verdict == NOT_EQUIVALENT


@pytest.mark.parametrize("rows", [
    " Ea: x + 2 y <= 4\n Eb: x + 2 y >= 3\n",  # a range, not the equality
    " Ea: x + 2 y <= 4\n Eb: 2 x + 4 y >= 4\n",  # scaled side with its bound not scaled
    " Ea: x + 2 y <= 4\n Eb: x + 3 y >= 4\n",  # another left-hand side
    " Ea: x + 2 y <= 4\n Eb: 2 x + 4 y <= 8\n",  # the same side twice
    " Ea: x + 2 y <= 4\n",
    " E: 4 <= x + 2 y <= 5\n",
    " Ea: x + 2 y <= 4\n Eb: x + 2 y >= 4\n Ec: x + y >= 1\n",  # three rows vs two
])
def test_near_misses_of_an_equality_are_not_equivalent(rows: str) -> None:
    assert check(lp(" E: x + 2 y = 4\n"), lp(rows)).verdict == NOT_EQUIVALENT


def test_a_duplicated_side_is_merged_like_any_duplicate_row() -> None:
    """Duplicate rows are one row (as everywhere in the checker): the range against its two
    rows with one of them repeated (scaled) is equivalent; without the other side it is not."""
    dup = lp(" R1a: x + 2 y >= -5\n R1b: x + 2 y <= 10\n R1c: 2 x + 4 y <= 20\n")
    r = check(RANGED, dup)
    assert r.verdict == EQUIVALENT
    assert check(RANGED, lp(" R1a: x + 2 y >= -5\n R1c: 2 x + 4 y >= -10\n")).verdict \
        == NOT_EQUIVALENT


# ---------------------------------------------------------------- certificates
def test_a_tampered_certificate_of_sides_is_rejected() -> None:
    r = check_equivalence(RANGED, TWO_ROWS)
    cert = r.certificate
    assert cert is not None and cert.part_a is not None
    assert check_certificate(RANGED, TWO_ROWS, cert) == ""
    swapped = cert.part_a.copy()
    swapped[[0, 1]] = swapped[[1, 0]]  # R1's >= side onto R1b and its <= side onto R1a
    assert check_certificate(RANGED, TWO_ROWS, dataclasses.replace(cert, part_a=swapped)) != ""
    bad = cert.factor.copy()
    bad[1] = 2.0
    assert "factor" in check_certificate(RANGED, TWO_ROWS, dataclasses.replace(cert, factor=bad))
    one = dataclasses.replace(cert, row_a=cert.row_a[1:], row_b=cert.row_b[1:],
                              factor=cert.factor[1:], part_a=cert.part_a[1:],
                              part_b=cert.part_b[1:])  # type: ignore[index]
    assert "leaves rows of A out" in check_certificate(RANGED, TWO_ROWS, one)
    whole = dataclasses.replace(cert, part_a=np.zeros_like(cert.part_a))
    assert check_certificate(RANGED, TWO_ROWS, whole) != ""  # a range is not one one-sided row
    # The same map against a model whose upper side moved fails on a number.
    moved = lp(" R1a: x + 2 y >= -5\n R1b: x + 2 y <= 10.5\n")
    assert check_certificate(RANGED, moved, cert) != ""


def test_a_certificate_of_whole_ranges_checks_against_split_forms() -> None:
    """A range named whole on both sides stands for both of its sides (swapped by a negative
    factor), as the certificate of two ranges says it."""
    b = lp(" R1: -20 <= -2 x - 4 y <= 10\n")
    plain = check_equivalence(RANGED, b).certificate
    assert plain is not None and plain.part_a is None
    as_pieces = Certificate(plain.var_map, plain.row_a, plain.row_b, plain.factor,
                            np.zeros(plain.row_a.size, np.int8),
                            np.zeros(plain.row_a.size, np.int8))
    assert check_certificate(RANGED, b, as_pieces) == ""
    flipped = dataclasses.replace(as_pieces, factor=-as_pieces.factor)
    assert check_certificate(RANGED, b, flipped) != ""
    sides = dataclasses.replace(as_pieces, row_a=np.array([0, 0, 1]),
                                row_b=np.array([0, 0, 1]), factor=np.array([-2.0, -2.0, 1.0]),
                                part_a=np.array([LOWER, UPPER, 0], np.int8),
                                part_b=np.array([UPPER, LOWER, 0], np.int8))
    assert check_certificate(RANGED, b, sides) == ""


# ---------------------------------------------------------------- whole models
def _with_two_sided_rows(m: CanonicalModel, rng: np.random.Generator) -> CanonicalModel:
    """``m`` (all rows ``<=``) with a third of its rows ranged and a sixth equalities."""
    lo, hi = m.row_lower.copy(), m.row_upper.copy()
    kind = rng.integers(0, 6, m.num_rows)
    ranged, equal = kind < 2, kind == 2
    lo[ranged] = hi[ranged] - rng.integers(1, 200, int(ranged.sum()))
    lo[equal] = hi[equal]
    return m.replace(row_lower=lo, row_upper=hi)


def _split(m: CanonicalModel, rng: np.random.Generator,
           nudge: float = 0.0) -> CanonicalModel:
    """Every two-sided row as a ``>=`` and a ``<=`` row, each scaled by its own positive
    factor; ``nudge`` moves the upper bound of the first split row (relatively)."""
    A = m.A.tocsr()
    rows, lo, hi, names = [], [], [], []
    for r in range(m.num_rows):
        a, low, h, name = A[r], m.row_lower[r], m.row_upper[r], m.row_names[r]
        if np.isfinite(low) and np.isfinite(h):
            f, g = rng.uniform(0.25, 4.0, 2)
            h, nudge = h + nudge * max(1.0, abs(h)), 0.0
            rows += [a * f, a * g]
            lo += [low * f, -np.inf]
            hi += [np.inf, h * g]
            names += [f"{name}_lo", f"{name}_up"]
        else:
            rows.append(a)
            lo.append(low)
            hi.append(h)
            names.append(name)
    return m.replace(A=sp.vstack(rows, format="csr"), row_names=names, row_lower=lo,
                     row_upper=hi)


@pytest.mark.parametrize("seed", range(6))
def test_models_with_ranges_and_equalities_against_their_split_copies(seed: int) -> None:
    rng = np.random.default_rng(seed)
    m = _with_two_sided_rows(random_milp(240, seed=seed, per_row=6), rng)
    assert np.count_nonzero(m.row_lower == m.row_upper) and np.count_nonzero(
        np.isfinite(m.row_lower) & (m.row_lower < m.row_upper))
    split = _split(m, rng)
    for a, b in ((m, disguise(split, seed)), (disguise(m, seed + 1), split)):
        r = check(a, b)
        assert r.verdict == EQUIVALENT, r.reason
        assert "written in B as the one-sided rows" in r.reason
    # The LP relaxations solved: the same optimum (the integer programs are often infeasible).
    relax = [x.replace(var_types="C" * x.num_vars) for x in (m, split)]
    sa, sb = (solve_highs(x) for x in relax)
    assert sa.status == sb.status
    if sa.objective is not None:
        assert objectives_agree(sa.objective, sb.objective)  # type: ignore[arg-type]
    moved = _split(m, rng, nudge=1e-3)  # one side's bound moved
    dropped = tf.drop_row(split, next(k for k, n in enumerate(split.row_names)
                                      if n.endswith("_up")))
    for miss in (moved, dropped):
        assert check(m, disguise(miss, seed)).verdict == NOT_EQUIVALENT


def test_pairs_that_need_no_split_forms_do_not_build_them() -> None:
    """Equivalent pairs, and pairs that differ beyond their rows, never build the comparison
    forms (the suite's speed); pairs that differ in rows build A's (once per model), and B's
    only where B could become A's: with a range, or with more rows than A."""
    m = random_milp(200, seed=3)
    same = disguise(m, 1)
    assert "encodings" not in check_equivalence(m, same).timings
    for b in (same, m.replace(obj=m.obj + 1.0), m.replace(ub=m.ub + 1.0)):
        assert check_equivalence(m, b).verdict == (EQUIVALENT if b is same else NOT_EQUIVALENT)
        assert "_encodings" not in b.__dict__
    assert [what for what, _ in sides.own_side(m, 1e-6).counts[sides.ROWS:sides.RANGED + 1:2]] \
        == ["rows", "ranged rows"]
    fresh = m.replace(name="fresh")
    moved = fresh.replace(row_upper=fresh.row_upper + 1.0)
    r = check_equivalence(fresh, moved)
    assert r.verdict == NOT_EQUIVALENT and "encodings" in r.timings
    assert encodings.encoding(fresh, 1e-6).plain  # nothing to split or join
    assert "_encodings" not in moved.__dict__  # as many rows as A and no range: not needed
    bigger = fresh.replace(name="bigger")
    assert check_equivalence(tf.drop_row(fresh, 0), bigger).verdict == NOT_EQUIVALENT
    assert "_encodings" in bigger.__dict__  # more rows than A: B's is needed


def test_cli_reports_the_split_range(tmp_path: Path) -> None:
    a, b, c = tmp_path / "a.lp", tmp_path / "b.lp", tmp_path / "c.lp"
    a.write_text(HEAD + " R1: -5 <= x + 2 y <= 10\n E: x + z = 3\n" + TAIL)
    b.write_text(HEAD + " E_lo: x + z >= 3\n R1lo: x + 2 y >= -5\n R1up: 2 x + 4 y <= 20\n"
                 " E_up: -x - z >= -3\n" + TAIL)
    c.write_text(HEAD + " E_lo: x + z >= 3\n R1lo: x + 2 y >= -5\n R1up: 2 x + 4 y <= 10\n"
                 " E_up: -x - z >= -3\n" + TAIL)
    r = run_cli("equiv", str(a), str(b), "--json")
    assert r.returncode == 0, r.stdout + r.stderr
    d = json.loads(r.stdout)
    assert d["verdict"] == "equivalent"
    assert d["certificate"]["encodings"] == [
        "A's ranged row 'R1' is written in B as the one-sided rows 'R1lo' and 'R1up'",
        "A's equality 'E' is written in B as the one-sided rows 'E_lo' and 'E_up'"]
    sides = {(row["a"], row.get("a_side")): (row["b"], row["factor"])
             for row in d["certificate"]["rows"]}
    assert sides == {("R1", ">="): ("R1lo", 1.0), ("R1", "<="): ("R1up", 2.0),
                     ("E", ">="): ("E_lo", 1.0), ("E", "<="): ("E_up", -1.0),
                     ("c", None): ("c", 1.0)}
    r = run_cli("equiv", str(a), str(b))
    text = re.sub(r"[│\s]+", " ", r.stdout)  # the table's wrapped lines, joined
    assert r.returncode == 0 and "A's ranged row 'R1' is written in B as the one-sided" in text
    r = run_cli("equiv", str(a), str(c), "--json")
    assert r.returncode == 1
    assert json.loads(r.stdout)["verdict"] == "not_equivalent"

