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


def _gurobi_mps(build: object) -> bytes:
    """The MPS Gurobi writes for a model ``build(m, gp)`` fills in, beside an unrelated general
    constraint (which sends the capture down Gurobi's own reader path)."""
    import tempfile

    gp = pytest.importorskip("gurobipy")
    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        build(m, gp)  # type: ignore[operator]
        d, e = m.addVar(ub=5, name="d"), m.addVar(ub=5, name="e")
        m.addGenConstrMax(e, [d], 0)
        with tempfile.TemporaryDirectory() as tmp:
            m.write(f"{tmp}/m.mps")
            return open(f"{tmp}/m.mps", "rb").read()


def test_both_reader_paths_refuse_a_sum_of_stated_numbers_typed_in() -> None:
    g = Grounds.of(TEXT)
    # 51 = 35 + 16: derivable from the statement, but no honest model needs it as a side.
    lp = ("Minimize\n obj: x + y\nSubject To\n c1: x + y >= 51\n c2: x - y = 0\n"
          " oven: 12 d + 35 e <= 450\nBounds\n x free\n y free\n d <= 16\nEnd\n")

    def cheat(m: object, gp: object) -> None:
        x = m.addVar(lb=-gp.GRB.INFINITY, name="x")  # type: ignore[attr-defined]
        y = m.addVar(lb=-gp.GRB.INFINITY, name="y")  # type: ignore[attr-defined]
        m.addConstr(x + y >= 51, name="c1")  # type: ignore[attr-defined]
        m.addConstr(x - y == 0, name="c2")  # type: ignore[attr-defined]
        m.setObjective(x + y)  # type: ignore[attr-defined]

    for mps in (_mps(lp), _gurobi_mps(cheat)):
        got = resolve_capture(mps, 30, g)
        assert got.objective == pytest.approx(51) and not got.trivial, got
        assert "51" in (got.ungrounded or ""), got


def test_free_variables_are_not_fixed_on_gurobis_path() -> None:
    # The honest bakery with free variables (their signs as rows) beside a general constraint:
    # an infinite range is no fixing, and every number is the statement's.
    def honest(m: object, gp: object) -> None:
        b = m.addVar(lb=-gp.GRB.INFINITY, name="bread")  # type: ignore[attr-defined]
        c = m.addVar(lb=-gp.GRB.INFINITY, name="cakes")  # type: ignore[attr-defined]
        m.addConstr(12 * b + 35 * c <= 450, name="oven")  # type: ignore[attr-defined]
        m.addConstr(c <= 16, name="sell")  # type: ignore[attr-defined]
        m.addConstr(b >= 2, name="order")  # type: ignore[attr-defined]
        m.addConstr(c >= 0, name="sign")  # type: ignore[attr-defined]
        m.setObjective(3.75 * b + 8.4 * c, gp.GRB.MAXIMIZE)  # type: ignore[attr-defined]

    got = resolve_capture(_gurobi_mps(honest), 30, g := Grounds.of(TEXT))
    assert g.data.size and got.status == "optimal", got
    assert not got.trivial and not got.ungrounded, got


def test_citations_model_file_headers_and_0_1_models_ground_nothing() -> None:
    g = Grounds.of("From Williams, pp. 266-267, 320-321, © 2020: cover every 45th node.",
                   {"stein9.mps": "*ROWS: 13\n*COLUMNS: 9\nNAME stein9\nENDATA\n"})
    assert sorted(g.data.tolist()) == [45.0]
    # A covering model of 0s and 1s uses none of the stated numbers, and needs none.
    g = Grounds.of("Cover the 3 sites; the survey of 2019 counted 17 roads and 23 bridges.")
    lp = ("Minimize\n obj: x + y + z\nSubject To\n a: x + y >= 1\n b: y + z >= 1\n"
          " c: x + z >= 1\nBinary\n x y z\nEnd\n")
    got = resolve_capture(_mps(lp), 30, g)
    assert got.objective == pytest.approx(2.0) and not got.ungrounded, got
    # With a real datum in a row the rule still holds: 9 is given nowhere.
    lp = lp.replace("c: x + z >= 1", "c: x + 9 z >= 1")
    assert "uses none" in (resolve_capture(_mps(lp), 30, g).ungrounded or "")
