"""The parent's own solve of a submitted model: what counts as a model that decides nothing,
unreadable submissions, and models only Gurobi reads."""

from __future__ import annotations

import numpy as np
import pytest

from ortrex.ir import CanonicalModel
from ortrex.ir.formats import dumps
from ortrex.verifiers.resolve import CaptureError, resolve_capture, trivial_reason

INF = np.inf


def model(obj: list[float], lb: list[float], ub: list[float], rows: list[list[float]] = (),
          lo: list[float] = (), hi: list[float] = (), const: float = 0.0) -> CanonicalModel:
    return CanonicalModel(var_names=[f"x{k}" for k in range(len(obj))], obj=obj, lb=lb, ub=ub,
                          A=np.array(rows, dtype=float).reshape(len(rows), len(obj)),
                          row_lower=list(lo), row_upper=list(hi), obj_constant=const)


@pytest.mark.parametrize(("m", "trivial"), [
    # The answer typed in as a bound, or as a one-variable equality row.
    (model([1.0], [42.0], [42.0]), True),
    (model([1.0, 0.0], [0.0, 0.0], [INF, 5.0], [[1.0, 0.0]], [42.0], [42.0]), True),
    (model([2.0, 3.0], [1.0, 2.0], [1.0, 2.0]), True),
    # Separable models with data decide something: a bound per variable, costs apply.
    (model([3.0, 5.0], [1.0, 2.0], [1e6, 1e6]), False),
    (model([1.0, 1.0], [-INF, -INF], [INF, INF], [[1.0, 1.0], [1.0, -1.0]], [42.0, 0.0],
           [INF, 0.0]), False),
    # A constant objective decides nothing, whatever made it constant.
    (model([0.0, 0.0], [0.0, 0.0], [1.0, 1.0], const=10_000.0), True),
])
def test_what_decides_nothing(m: CanonicalModel, trivial: bool) -> None:
    assert (trivial_reason(m) is not None) is trivial


def test_submissions_are_solved_here() -> None:
    m = model([-1.0, -2.0], [0.0, 0.0], [3.0, 2.0], [[1.0, 1.0]], [-INF], [4.0])
    res = resolve_capture(dumps(m, "mps").encode())
    assert (res.status, res.objective, res.trivial) == ("optimal", -6.0, None)
    for junk in (b"NAME x\nCOLUMNS\n    x obj one\nENDATA\n", b"\x00\xff" * 50):
        with pytest.raises(CaptureError, match="captured model"):
            resolve_capture(junk)


def test_models_with_general_constraints_go_to_gurobi() -> None:
    mps = b"""NAME
OBJSENSE MAX
ROWS
 N  OBJ
 L  GC1
COLUMNS
    x         OBJ       0
    x         GC1       1
    y         OBJ       0
    z         OBJ       1
    MARKER    'MARKER'                 'INTORG'
    b         OBJ       2
    MARKER    'MARKER'                 'INTEND'
RHS
    RHS1      GC1       2
BOUNDS
 UP BND1      x         5
 UP BND1      y         5
 BV BND1      b
INDICATORS
 IF GC1       b         1
GENCONS
 MAX GC0
    z
    x
    y
ENDATA
"""
    res = resolve_capture(mps)
    assert (res.status, res.objective, res.solver, res.trivial) == ("optimal", 7.0, "gurobi",
                                                                    None)


def test_a_hostile_file_for_gurobi_is_read_in_a_child() -> None:
    junk = b"NAME x\nROWS\n N obj\nINDICATORS\n IF \x00\xff garbage\nENDATA\n" * 3
    with pytest.raises(CaptureError, match="captured model"):
        resolve_capture(junk)
