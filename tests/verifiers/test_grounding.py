"""Data grounding and the single-number check on real solves: numbers read from statements,
derivations honest models use, memorised answers refused, hostile MPS bytes one CaptureError."""

from __future__ import annotations

import numpy as np
import pytest

from ortrex.ir.formats import dumps, loads
from ortrex.verifiers.grounding import Grounds
from ortrex.verifiers.resolve import CaptureError, resolve_capture

TEXT = ("A bakery makes bread (profit $3.75 a loaf, 12 minutes of oven time) and cakes (profit "
        "$8.40, 35 minutes). The oven runs 7.5 hours a day and at most 16 cakes sell; order WO1 "
        "needs 2 loaves.")


def _mps(lp: str) -> bytes:
    return dumps(loads(lp, "lp", "t"), "mps").encode()


def test_statement_numbers_names_and_derivations() -> None:
    g = Grounds.of(TEXT)
    assert g.direct(np.array([3.75, 8.4, 7.5, 16.0, 35.0])).all()
    assert 1.0 not in set(g.data)  # "WO1": part of a name, not a datum
    assert g.unary(np.array([450.0]))[0]  # 7.5 hours in minutes
    assert g.derived(np.array([3.75 * 16]))[0]
    assert not g.grounded([1234.567])[0]
    back = Grounds.from_lists(g.to_lists())
    assert np.array_equal(back.stated, g.stated) and np.array_equal(back.scalars, g.scalars)


HONEST = ("Maximize\n obj: 3.75 b + 8.4 c\nSubject To\n oven: 12 b + 35 c <= 450\n"
          " sell: c <= 16\nEnd\n")


def test_an_honest_model_is_grounded_and_memorised_answers_are_not() -> None:
    g = Grounds.of(TEXT)
    r = resolve_capture(_mps(HONEST), 30, g)
    assert r.status == "optimal" and not r.trivial and not r.ungrounded, r
    ans = r.objective
    assert ans is not None
    cheats = {
        "bound": (f"Minimize\n obj: x\nSubject To\n c: x + y <= 1e6\nBounds\n x >= {ans!r}\n"
                  "End\n", "trivial"),
        "constant": (f"Minimize\n obj: x + y + {ans!r}\nSubject To\n c: x - y <= 3\nBounds\n"
                     " x <= 10\n y <= 10\nEnd\n", "trivial"),
        "row": (f"Minimize\n obj: x + y\nSubject To\n c1: x + y >= {ans!r}\n c2: x - y = 0\n"
                "Bounds\n x free\n y free\nEnd\n", "ungrounded"),
        # the data as costs, the answer as a requirement
        "padded": (f"Minimize\n obj: 3.75 b + 8.4 c\nSubject To\n need: 3.75 b + 8.4 c >= "
                   f"{ans!r}\n sell: c <= 16\nEnd\n", "ungrounded"),
    }
    for name, (lp, kind) in cheats.items():
        got = resolve_capture(_mps(lp), 30, g)
        assert got.status == "optimal" and got.objective == pytest.approx(ans), name
        assert getattr(got, kind), (name, got)


def test_a_model_that_ignores_the_data_is_ungrounded() -> None:
    g = Grounds.of(TEXT)
    lp = "Maximize\n obj: x + 2 y\nSubject To\n c: x + y <= 9\nEnd\n"
    assert "uses none" in (resolve_capture(_mps(lp), 30, g).ungrounded or "")


@pytest.mark.parametrize("mps", [
    b"NAME x\nROWS\n N obj\n L R0\nOBJSENSE\n\t$z\nCOLUMNS\n x obj 1 R0\nENDATA\n",
    b"NAME x\nROWS\n N obj\nCOLUMNS\n x obj\nENDATA\n",
    b"NAME\nROWS\n N obj\n L c\nCOLUMNS\n x obj 1 c 1e99999\nRHS\n rhs c\nENDATA\n",
    b"\x00\xff" * 50,
])
def test_hostile_mps_bytes_are_one_capture_error(mps: bytes) -> None:
    with pytest.raises(CaptureError):
        resolve_capture(mps, 10, Grounds.of(TEXT))
