"""LP, MPS and JSON reading and writing; conversions to and from HiGHS and Gurobi."""

from __future__ import annotations

import math
import re
from pathlib import Path

import gurobipy as gp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ortrex.ir import CanonicalModel
from ortrex.ir.formats import (
    ModelFileError,
    UnsupportedModelError,
    dumps,
    from_gurobi,
    from_highs,
    loads,
    read_model,
    to_gurobi,
    to_highs,
    write_model,
)
from ortrex.ir.formats.errors import ModelFileWarning
from ortrex.ir.formats.gurobi import quiet_env
from tests.strategies import model_diff, models, quadratic_rows_last

GUROBI_LP = r"""\ Model demo model
\ LP format - for model browsing. Use MPS format to capture full model detail.
Maximize
  2 x[0] + 3 y + 10 Constant + [ 2 x[0] * y + 4 y ^2 ] / 2
Subject To
 rng: x[0] + y + Rgrng = 4
 e: x[0] - y = 0
 q: y + [ x[0] ^2 ] <= 3
 R3: - x[0] - 2 y >= -20
 empty: <= 0
Bounds
 -3 <= x[0] <= 5
 y free
 Rgrng <= 5
 Constant = 1
 -infinity <= z <= 7
Generals
 y
Binaries
 b
End
"""


def test_gurobi_dialect() -> None:
    m = loads(GUROBI_LP, "lp")
    assert m.name == "demo model"
    assert m.var_names == ("x[0]", "y", "z", "b")  # Constant and Rgrng are folded away
    assert m.sense.value == "max" and m.obj_constant == 10.0
    assert list(zip(*m.qobj, strict=True)) == [(0, 1, 1.0), (1, 1, 2.0)]
    cons = {c.name: c for c in m.constraints()}
    assert (cons["rng"].lower, cons["rng"].upper) == (-1.0, 4.0)
    assert cons["q"].quad == {("x[0]", "x[0]"): 1.0} and cons["q"].upper == 3.0
    assert cons["R3"].terms == {"x[0]": -1.0, "y": -2.0} and cons["R3"].lower == -20.0
    assert cons["empty"].terms == {} and cons["empty"].upper == 0.0
    v = {x.name: x for x in m.variables()}
    assert (v["x[0]"].lb, v["x[0]"].ub) == (-3.0, 5.0)
    assert (v["y"].vtype, v["y"].lb, v["y"].ub) == ("I", -math.inf, math.inf)
    assert (v["z"].lb, v["z"].ub) == (-math.inf, 7.0)
    assert (v["b"].vtype, v["b"].lb, v["b"].ub) == ("B", 0.0, 1.0)


def test_gurobi_reads_the_same_model(tmp_path: Path) -> None:
    path = tmp_path / "demo.lp"
    path.write_text(GUROBI_LP)
    ours = read_model(path)
    theirs = from_gurobi(gp.read(str(path), quiet_env()))
    assert theirs == quadratic_rows_last(ours), model_diff(theirs, quadratic_rows_last(ours))


def test_cplex_style_extensions() -> None:
    text = """min
 obj: x + 2y - 3 + 4
st
 c1: 3 <= x + y <= 8
 c2: 2 >= x
 x - y >= -1
 x + y + 5 <= 9
bounds
 0 <= x <= 1e30
 y >= -1e31
end
"""
    with pytest.warns(ModelFileWarning) as caught:
        m = loads(text, "lp")
    cons = {c.name: c for c in m.constraints()}
    assert m.obj_constant == 1.0
    assert (cons["c1"].lower, cons["c1"].upper) == (3.0, 8.0)
    assert (cons["c2"].lower, cons["c2"].upper) == (-math.inf, 2.0)
    # A constant on a row's left-hand side is dropped, as HiGHS drops it (and Gurobi reads a
    # variable named "5", which the solver sets to 0): one warning line says so.
    assert cons["R2"].lower == -1.0 and cons["R3"].upper == 9.0
    assert len(caught) == 1 and "left-hand side dropped" in str(caught[0].message)
    assert "objective read as its constant" in str(caught[0].message)
    # "2y" is 2 times y, as HiGHS and CPLEX read it (Gurobi reads a name): the line says so.
    assert m.var_names == ("x", "y")
    assert "a number glued to a name read as its coefficient" in str(caught[0].message)
    assert m.ub[0] == math.inf and m.lb[1] == -math.inf and m.obj[1] == 2.0


def test_repeated_row_names_stay_addressable() -> None:
    m = loads("Minimize\n x\nSubject To\n c: x >= 1\n c: x <= 5\n c#1: x <= 9\nEnd\n", "lp")
    assert m.row_names == ("c", "c#1", "c#1#1")


@pytest.mark.parametrize(("text", "line", "message"), [
    ("Minimize\n x + y\nSubject To\n c1: x + y <= \nEnd\n", 4, "expected a right-hand side"),
    ("Minimize\n x + y\nSubject To\n c1: x + y 5\nEnd\n", 4, "no comparison"),
    ("Minimize\n x y\nEnd\n", 2, "expected '+' or '-' before 'y'"),
    ("Minimize\n nan x\nEnd\n", 2, "NaN coefficient of 'x'"),
    ("Minimize\n x\nSubject To\n c: inf x >= 1\nEnd\n", 4, "infinite coefficient of 'x'"),
    ("Minimize\n x\nSubject To\n c: x >= nan\nEnd\n", 4, "NaN where a right-hand side"),
    ("Minimize\n x\nSubject To\n c: [ x ^ 3 ] <= 1\nEnd\n", 4, "only squares"),
    ("Minimize\n x\nSubject To\n c: x * y <= 1\nEnd\n", 4, "inside [ ]"),
    ("Minimize\n x\nBounds\n x <== 3\nEnd\n", 4, "expected a bound"),
    ("Minimize\n x\nSOS\n s1: S1:: x:1\nEnd\n", 3, "SOS constraints are not supported"),
    ("Minimize\n x\nSubject To\n c: b = 1 -> x <= 1\nEnd\n", 4, "indicator constraints"),
    ("hello world\n", 1, "expected Minimize or Maximize"),
    ("Minimize\n x\nBounds\n x <= -5\nEnd\n", None, "variable 'x': lb 0.0 > ub -5.0"),
])
def test_lp_errors_name_the_line(text: str, line: int | None, message: str) -> None:
    with pytest.raises(ModelFileError, match=re.escape(message)) as info:
        loads(text, "lp", "bad.lp")
    assert info.value.line == line and info.value.path == "bad.lp"
    assert str(info.value).startswith(f"bad.lp:{line}:" if line else "bad.lp:")


MPS = """NAME          TESTR
* a comment
OBJSENSE
    MAX
ROWS
 N  COST
 L  LIM1
 G  LIM2
 E  MYEQN
 E  MYEQ2
COLUMNS
    MARKER                 'MARKER'                 'INTORG'
    X1        COST         1.0   LIM1         1.0
    MARKER                 'MARKER'                 'INTEND'
    X2        COST         2.0   LIM2         1.0
    X2        MYEQN       -1.0   MYEQ2        1.0
    X3        COST         1.0
RHS
    RHS       LIM1         4.0   LIM2         1.0
    RHS       MYEQN        7.0   MYEQ2        3.0
    RHS       COST        -2.5
RANGES
    RNG       LIM1         2.5   LIM2         3.0
    RNG       MYEQN       -2.0   MYEQ2        2.0
BOUNDS
 UP BND       X2          -1.0
 BV BND       X3
QUADOBJ
    X2        X2           4.0
    X2        X3           1.0
ENDATA
"""


def test_mps_sections() -> None:
    with pytest.warns(ModelFileWarning, match="negative UP bounds") as caught:
        m = loads(MPS, "mps")
    assert len(caught) == 1  # HiGHS reads X2's bounds as [0, -1]: the one line says so
    assert m.sense.value == "max" and m.obj_constant == 2.5
    assert list(m.var_types) == ["I", "C", "B"]
    assert (m.lb[0], m.ub[0]) == (0.0, 1.0)  # a marker integer without bounds: [0, 1]
    assert (m.lb[1], m.ub[1]) == (-math.inf, -1.0)  # negative UP: lower bound -inf
    assert list(m.row_lower) == [1.5, 1.0, 5.0, 3.0]
    assert list(m.row_upper) == [4.0, 4.0, 7.0, 5.0]
    assert list(zip(*m.qobj, strict=True)) == [(1, 1, 2.0), (1, 2, 1.0)]


def fixed_line(kind: str, *fields: str) -> str:
    """A data line in the fixed MPS columns (2-3, 5-12, 15-22, 25-36, 40-47, 50-61)."""
    widths = [(4, 8), (14, 8), (24, 12), (39, 8), (49, 12)]
    line = list(f" {kind:<2}".ljust(62))
    for (start, width), text in zip(widths, fields, strict=False):
        line[start:start + width] = text.ljust(width)
    return "".join(line).rstrip()


def test_fixed_mps_with_spaces_in_names() -> None:
    text = "\n".join(["NAME          FIX", "ROWS", fixed_line("N", "obj"),
                     fixed_line("L", "my row"), "COLUMNS",
                     fixed_line("", "x 1", "obj", "1.0", "my row", "2.0"), "RHS",
                     fixed_line("", "RHS", "my row", "4.0"), "ENDATA"]) + "\n"
    m = loads(text, "mps")
    assert m.var_names == ("x 1",) and m.row_names == ("my row",) and m.A[0, 0] == 2.0


@pytest.mark.parametrize(("text", "line", "message"), [
    ("NAME x\nROWS\n N obj\n Q r\nENDATA\n", 4, "unknown row type 'Q'"),
    ("NAME x\nROWS\n N obj\nCOLUMNS\n    x obj abc\nENDATA\n", 5, "expected a number"),
    ("NAME x\nROWS\n N obj\nCOLUMNS\n    x obj nan\nENDATA\n", 5, "is NaN"),
    ("NAME x\nROWS\n N obj\nCOLUMNS\n    x obj 1\n", None, "missing ENDATA"),
    ("NAME x\nROWS\n N obj\nBOUNDS\n SC BND x\nENDATA\n", 5, "expected a number for bound SC"),
    ("NAME x\nROWS\n N obj\nBOUNDS\n SC BND x 0\nENDATA\n", 5, "positive finite upper"),
    ("NAME x\nFOO\nENDATA\n", 2, "unknown MPS section 'FOO'"),
])
def test_mps_errors_name_the_line(text: str, line: int | None, message: str) -> None:
    with pytest.raises(ModelFileError, match=message) as info:
        loads(text, "mps", "bad.mps")
    assert info.value.line == line


@pytest.mark.parametrize(("text", "message"), [
    ('{"version": 1, "variables": [{"name": "x"}], "objective": {"sense": "up"}}',
     "objective.sense: expected min, max or feasibility"),
    ('{"variables": [{"name": "x"}], "objective": {"sense": "min", "function": {"type": '
     '"ScalarAffineFunction", "terms": [{"coefficient": 1, "variable": "y"}], "constant": 0}}}',
     r"objective.function.terms\[0\].variable: unknown variable 'y'"),
    ('{"variables": [{"name": "x"}], "objective": {"sense": "min", "function": {"type": '
     '"ScalarAffineFunction", "terms": [{"coefficient": NaN, "variable": "x"}]}}}',
     "NaN is not a number"),
    ('{"variables": [{"name": "x"}, {"name": "x"}], "objective": {"sense": "feasibility"}}',
     r"variables\[1\].name: duplicate variable name 'x'"),
    ('{"variables": [], "objective": {"sense": "min", "function": {"type": "Cone"}}}',
     "unsupported function type 'Cone'"),
])
def test_json_errors_name_the_field(text: str, message: str) -> None:
    with pytest.raises(ModelFileError, match=message):
        loads(text, "json", "bad.json")


def test_json_syntax_error_has_a_line() -> None:
    with pytest.raises(ModelFileError) as info:
        loads('{\n "variables": [\n oops\n]}', "json", "bad.json")
    assert info.value.line == 3


@given(models(), st.sampled_from(["lp", "mps", "json"]))
def test_round_trip_is_exact(m: CanonicalModel, fmt: str) -> None:
    back = loads(dumps(m, fmt), fmt)
    assert back == m and back.name == m.name


@given(models(short_names=True))
def test_fixed_mps_round_trip(m: CanonicalModel) -> None:
    # Fixed columns hold 12 characters per number, so compare with a tolerance.
    back = loads(dumps(m, "mps-fixed"), "mps-fixed")
    assert back.var_names == m.var_names and back.row_names == m.row_names
    assert np.array_equal(back.var_types, m.var_types)
    for a, b in ((back.lb, m.lb), (back.ub, m.ub), (back.obj, m.obj),
                 (back.row_lower, m.row_lower), (back.row_upper, m.row_upper),
                 (back.A.toarray(), m.A.toarray())):
        np.testing.assert_allclose(a, b, rtol=1e-9)


@given(models())
def test_gurobi_reads_what_we_write(m: CanonicalModel) -> None:
    env = quiet_env()
    for fmt in ("lp", "mps"):
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            path = Path(d) / f"m.{fmt}"
            write_model(m, path)
            theirs = from_gurobi(gp.read(str(path), env))
            assert theirs == quadratic_rows_last(m), model_diff(theirs, quadratic_rows_last(m))


@given(models())
def test_gurobi_objects(m: CanonicalModel) -> None:
    back = from_gurobi(to_gurobi(m, quiet_env()))
    assert back == quadratic_rows_last(m), model_diff(back, quadratic_rows_last(m))


@given(models())
def test_highs_objects(m: CanonicalModel) -> None:
    if m.has_quadratic_rows:
        with pytest.raises(UnsupportedModelError):
            to_highs(m)
        return
    back = from_highs(to_highs(m))
    # HiGHS has no binary type: binaries come back as integers in [0, 1].
    assert back == m.replace(var_types=np.where(m.var_types == "B", "I", m.var_types))


def test_unwritable_names_are_refused() -> None:
    m = CanonicalModel(var_names=["a b"])
    with pytest.raises(UnsupportedModelError, match="cannot be written in LP"):
        dumps(m, "lp")
    with pytest.raises(UnsupportedModelError, match="cannot be written in MPS"):
        dumps(m, "mps")
    assert loads(dumps(m, "json"), "json") == m


def test_write_model_is_atomic(tmp_path: Path) -> None:
    m = CanonicalModel(var_names=["x"], obj=[1.0])
    target = tmp_path / "m.lp.gz"
    write_model(m, target)
    assert read_model(target) == m.replace(name="m")
    assert [p.name for p in tmp_path.iterdir()] == ["m.lp.gz"]
