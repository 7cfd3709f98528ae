"""The equivalence checker's two ways of tokenising numbers give the same verdicts, and reading
and comparing model files does not pay for scipy."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from ortrex.ir import CanonicalModel
from ortrex.ir import transforms as tf
from ortrex.ir.formats import read_model
from ortrex.paths import benchmarks_dir
from ortrex.verifiers import equivalence as eq
from ortrex.verifiers.equivalence import EQUIVALENT, check_equivalence
from ortrex.verifiers.equivalence_suite import labelled_pairs

ROOT = benchmarks_dir()
FILES = sorted((ROOT / "bench4opt" / "lp_code").glob("*.lp"))[::13] if ROOT else []


@pytest.mark.shared
def test_each_models_own_tokens_and_the_joint_grouping_agree(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Pairs whose numbers are equal or far apart use each model's own (cached) tokens, graph
    and colouring; forcing the joint grouping instead must not change a verdict."""
    pairs = labelled_pairs([read_model(p) for p in FILES], seed=5)
    own = [check_equivalence(p.a, p.b) for p in pairs]
    monkeypatch.setattr(eq, "_own_sides", lambda *args: None)
    joint = [check_equivalence(p.a, p.b) for p in pairs]
    for p, x, y in zip(pairs, own, joint, strict=True):
        assert x.verdict == y.verdict == (EQUIVALENT if p.equivalent else "not_equivalent"), \
            (p.cls, x.reason, y.reason)
    monkeypatch.undo()
    on_own = sum(eq._own_sides(p.a, p.b, 1e-6) is not None for p in pairs)
    assert len(pairs) > 200 and len(pairs) // 2 < on_own < len(pairs)  # both ways exercised


def test_numbers_within_tolerance_take_the_joint_grouping() -> None:
    """A copy whose numbers moved by less than the tolerance cannot be tokenised on its own
    (its tokens would differ from the original's), and is still equivalent."""
    a = CanonicalModel(var_names=["x", "y"], obj=[3.0, 2.0], A=[[1.0, 1.0], [1.0, -1.0]],
                       row_lower=[-np.inf, 0.0], row_upper=[4.0, np.inf])
    nudged = a.replace(obj=a.obj * (1 + 1e-9), name="nudged")
    assert eq._own_sides(a, nudged, 1e-6) is None
    assert check_equivalence(a, nudged).verdict == EQUIVALENT
    assert eq._own_sides(a, tf.shuffle(a, np.random.default_rng(0)), 1e-6) is not None
    moved = a.replace(obj=a.obj * (1 + 1e-4))
    assert eq._own_sides(a, moved, 1e-6) is not None
    assert check_equivalence(a, moved).verdict == "not_equivalent"


def test_reading_and_comparing_files_does_not_import_scipy(tmp_path: Path) -> None:
    lp = tmp_path / "m.lp"
    lp.write_text("Maximize\n 3 x + 2 y + 10 Constant\nSubject To\n c: x + y + Rgc = 4\n"
                  " d: x - y >= -2\nBounds\n Rgc <= 2\n Constant = 1\nGenerals\n x\nEnd\n")
    code = ("import sys\n"
            "from ortrex.ir.formats import read_model\n"
            "from ortrex.verifiers.equivalence import check_equivalence\n"
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
