"""The equivalence checker's ways of tokenising numbers (each model's own exact tokens, B in A's
tokens, one joint grouping) give the same verdicts, and reading and comparing model files does
not pay for scipy."""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from ortrex.ir import CanonicalModel
from ortrex.ir import transforms as tf
from ortrex.ir.formats import read_model
from ortrex.paths import benchmarks_dir
from ortrex.verifiers.equivalence import check as eq
from ortrex.verifiers.equivalence import sides
from ortrex.verifiers.equivalence.check import EQUIVALENT, check_equivalence
from ortrex.verifiers.equivalence.suite import labelled_pairs

ROOT = benchmarks_dir()
FILES = sorted((ROOT / "bench4opt" / "lp_code").glob("*.lp"))[::13] if ROOT else []


def _path(a: CanonicalModel, b: CanonicalModel) -> str:
    """Which tokenisation the checker uses for a pair."""
    found = sides.cached_sides(a, b, 1e-6)
    return "joint" if found is None else "own" if found[2] is sides.exact_tokens else "mapped"


@pytest.mark.shared
def test_each_models_own_tokens_and_the_joint_grouping_agree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs whose numbers are equal or far apart use each model's own (cached) tokens, graph
    and colouring, pairs with close numbers B in A's tokens; forcing the joint grouping instead
    must not change a verdict (nor, for B in A's tokens, a reason: the number a reason names
    is picked by token order, which is the joint grouping's there)."""
    pairs = labelled_pairs([read_model(p) for p in FILES], seed=5)
    paths = [_path(p.a, p.b) for p in pairs]
    cached = [check_equivalence(p.a, p.b) for p in pairs]
    monkeypatch.setattr(eq, "cached_sides", lambda *args: None)
    joint = [check_equivalence(p.a, p.b) for p in pairs]
    for p, path, x, y in zip(pairs, paths, cached, joint, strict=True):
        assert x.verdict == y.verdict == (EQUIVALENT if p.equivalent else "not_equivalent"), \
            (p.cls, x.reason, y.reason)
        assert path != "mapped" or x.reason == y.reason
    count = Counter(paths)
    assert len(pairs) > 200 and count["own"] > len(pairs) // 2 and count["mapped"] > 20, count


KNAPSACK = CanonicalModel(var_names=["x", "y"], obj=[3.0, 2.0], A=[[1.0, 1.0], [1.0, -1.0]],
                          row_lower=[-np.inf, 0.0], row_upper=[4.0, np.inf])


def test_numbers_within_tolerance_take_b_in_a_tokens() -> None:
    """A copy whose numbers moved by less than the tolerance cannot be tokenised on its own
    (its tokens would differ from the original's): it takes the tokens of the numbers of A it
    is close to, and is still equivalent."""
    a = KNAPSACK
    nudged = a.replace(obj=a.obj * (1 + 1e-9), name="nudged")
    sa, sb, _ = sides.cached_sides(a, nudged, 1e-6)  # type: ignore[misc]
    assert sa is sides.own_side(a, 1e-6) and np.array_equal(sa.tk.flat, sb.tk.flat)
    assert _path(a, nudged) == "mapped" and check_equivalence(a, nudged).verdict == EQUIVALENT
    assert _path(a, tf.shuffle(a, np.random.default_rng(0))) == "own"
    moved = a.replace(obj=a.obj * (1 + 1e-4))
    assert _path(a, moved) == "own" and check_equivalence(a, moved).verdict == "not_equivalent"


def test_close_numbers_within_a_take_the_joint_grouping() -> None:
    """Two different numbers of A in one tolerance group: A's exact tokens would split what
    the tolerance joins, so both models are grouped jointly."""
    a = KNAPSACK.replace(obj=[3.0, 3.0 * (1 + 1e-9)])
    b = a.replace(obj=[3.0 * (1 + 1e-9), 3.0])
    assert _path(a, b) == "joint" and check_equivalence(a, b).verdict == EQUIVALENT
    assert _path(b, a) == "joint"


def test_b_in_a_tokens_gives_the_joint_groupings_words(monkeypatch: pytest.MonkeyPatch) -> None:
    """A difference found with B in A's tokens is reported as the joint grouping reports it,
    and B's numbers that no number of A is close to keep tokens of their own."""
    a = KNAPSACK.replace(lb=[0.0, 1.0])
    b = a.replace(obj=a.obj * (1 + 1e-9), lb=[0.0, 2.0], ub=[7.0, np.inf])
    assert _path(a, b) == "mapped"
    _, sb, _ = sides.cached_sides(a, b, 1e-6)  # type: ignore[misc]
    assert sb.tk["ub"][0] == sides.exact_tokens(np.array([7.0]))[0]
    mapped = check_equivalence(a, b)
    monkeypatch.setattr(eq, "cached_sides", lambda *args: None)
    joint = check_equivalence(a, b)
    assert mapped.verdict == joint.verdict == "not_equivalent"
    assert mapped.reason == joint.reason and "bounds differ" in mapped.reason


def test_reading_and_comparing_files_does_not_import_scipy(tmp_path: Path) -> None:
    lp = tmp_path / "m.lp"
    lp.write_text("Maximize\n 3 x + 2 y + 10 Constant\nSubject To\n c: x + y + Rgc = 4\n"
                  " d: x - y >= -2\nBounds\n Rgc <= 2\n Constant = 1\nGenerals\n x\nEnd\n")
    code = ("import sys\n"
            "from ortrex.ir.formats import read_model\n"
            "from ortrex.verifiers.equivalence.check import check_equivalence\n"
            f"m = read_model({str(lp)!r})\n"
            "r = check_equivalence(m, m.replace(name='b'))\n"
            "assert r.verdict == 'equivalent', r.reason\n"
            "assert m.obj_constant == 10.0 and m.num_vars == 2, m  # Gurobi idioms folded\n"
            "print('scipy' in sys.modules)\n"
            "m.A\n"
            "print('scipy' in sys.modules)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["False", "True"]  # made on first use of .A, not before
