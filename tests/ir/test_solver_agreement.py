"""Each reader corner against the solvers themselves: a small file per feature, read by ortrex
and solved, read by highspy / gurobipy directly and solved; the optima must agree, and where
the solvers warn, ortrex warns in one line too."""

from __future__ import annotations

import contextlib
import io
import warnings
from pathlib import Path

import gurobipy as gp
import highspy
import pytest

from ortrex.ir.formats import dumps, loads, read_model
from ortrex.ir.formats.errors import ModelFileWarning
from ortrex.verifiers.equivalence.check import check_equivalence
from ortrex.verifiers.solvers import SolveStatus, solve_highs

QSECTION = """NAME qsec
ROWS
 N obj
 G c1
COLUMNS
 x obj -1 c1 1
 y obj -1 c1 1
RHS
 rhs c1 1
BOUNDS
 UP bnd x 4
 UP bnd y 4
QSECTION obj
 x x 2
 x y 1
 y y 2
ENDATA
"""

QUADOBJ = QSECTION.replace("QSECTION obj", "QUADOBJ")
QMATRIX = QSECTION.replace("QSECTION obj\n x x 2\n x y 1\n y y 2",
                           "QMATRIX\n x x 2\n x y 1\n y x 1\n y y 2")

REPEATED = """NAME rep
ROWS
 N obj
 L c1
COLUMNS
 x obj -9 c1 1
 x obj -8
 x c1 2
RHS
 rhs c1 4
BOUNDS
 UP bnd x 10
ENDATA
"""

UNDECLARED = """NAME undecl
ROWS
 N obj
 L c1
COLUMNS
 x obj -1 c1 1
 x ghost 5
RHS
 rhs c1 4
 rhs ghost 1
ENDATA
"""

D_EXPONENT = """NAME dexp
ROWS
 N obj
 L c1
COLUMNS
 x obj -1.0D0 c1 1.0D0
RHS
 rhs c1 2.5D1
ENDATA
"""

# Fixed columns, comments after the fields ($ and *), as in HiGHS's comment.mps; Gurobi reads it.
DOLLAR = """NAME          DOLLAR
ROWS
 N  COST $the cost
 L  LIM  $limit row
COLUMNS
    X         COST          -1.0       LIM          1.0 $x enters both
    Y         COST          -2.0 $one entry
    Y         LIM            1.0 *another
RHS
    RHS       LIM            7.0 $seven
BOUNDS
 UP BND       Y              2.0 $cap
ENDATA
"""

SEMI_MPS = """NAME semi
ROWS
 N obj
 G c1
COLUMNS
 x obj 1 c1 1
 y obj 3 c1 1
 MARKER 'MARKER' 'INTORG'
 z obj 2 c1 1
 MARKER 'MARKER' 'INTEND'
RHS
 rhs c1 2.5
BOUNDS
 SC bnd x 10
 LO bnd x 3
 UP bnd y 10
 SI bnd z 10
 LO bnd z 2
ENDATA
"""

SEMI_LP = """Minimize
 obj: x + 3 y + 2 z
Subject To
 c1: x + y + z >= 2.5
Bounds
 3 <= x <= 10
 y <= 10
 2 <= z <= 10
Generals
 z
Semi-continuous
 x z
End
"""

# What HiGHS writes for a MIP saved as LP: an empty semi section, always.
EMPTY_SEMI = """\\ File written by HiGHS .lp file handler
min
 obj: +1 c0 +2 c1
st
 r0: +1 c0 +1 c1 >= +1.5
bounds
 c0 <= 4
 c1 <= 4
bin
gen
 c0
semi
end
"""

OBJ_ON_HEADER = """Minimize -24 a - 10 b
Subject To
 c1: 3 a + b <= 12
 c2: a + b <= 5
End
"""

LHS_CONSTANT = """Minimize
 obj: - x
Subject To
 c1: x + 3 <= 12
End
"""

# Gurobi reads a one-line model (HiGHS's 1449b.lp); HiGHS refuses it.
ONE_LINE = "Minimize 2 a + b subject to a + b >= 1\n"

# (name, suffix, text, solvers that must agree, ortrex warns)
CASES = [
    ("qsection", ".mps", QSECTION, ("highs", "gurobi"), False),
    ("quadobj", ".mps", QUADOBJ, ("highs", "gurobi"), False),
    ("qmatrix", ".mps", QMATRIX, ("highs", "gurobi"), False),
    ("repeated entries", ".mps", REPEATED, ("highs", "gurobi"), True),
    ("undeclared row", ".mps", UNDECLARED, ("gurobi",), True),
    ("fortran exponent", ".mps", D_EXPONENT, ("highs",), True),
    ("dollar comment", ".mps", DOLLAR, ("gurobi",), False),
    ("semi mps", ".mps", SEMI_MPS, ("gurobi",), False),
    ("semi lp", ".lp", SEMI_LP, ("highs", "gurobi"), False),
    ("empty semi section", ".lp", EMPTY_SEMI, ("highs", "gurobi"), False),
    ("objective on header", ".lp", OBJ_ON_HEADER, ("highs", "gurobi"), False),
    ("lhs constant", ".lp", LHS_CONSTANT, ("highs",), True),
    ("one line", ".lp", ONE_LINE, ("gurobi",), False),
]


def _highs_optimum(path: Path) -> float:
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    assert h.readModel(str(path)) != highspy.HighsStatus.kError
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kOptimal
    return float(h.getInfo().objective_function_value)


def _gurobi_optimum(path: Path) -> float:
    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    with contextlib.redirect_stdout(io.StringIO()):
        m = gp.read(str(path), env)
    m.optimize()
    assert m.Status == gp.GRB.OPTIMAL
    return float(m.ObjVal)


@pytest.mark.parametrize(("name", "suffix", "text", "solvers", "warns"), CASES,
                         ids=[c[0] for c in CASES])
def test_ortrex_reads_as_the_solvers_read(tmp_path: Path, name: str, suffix: str, text: str,
                                          solvers: tuple[str, ...], warns: bool) -> None:
    path = tmp_path / f"model{suffix}"
    path.write_text(text)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = read_model(path)
    said = [w for w in caught if issubclass(w.category, ModelFileWarning)]
    assert len(said) == (1 if warns else 0), [str(w.message) for w in said]
    if warns:
        assert "\n" not in str(said[0].message) and str(path) in str(said[0].message)
    ours = solve_highs(model)
    assert ours.status is SolveStatus.OPTIMAL
    for solver in solvers:
        theirs = (_highs_optimum if solver == "highs" else _gurobi_optimum)(path)
        assert ours.objective == pytest.approx(theirs, rel=1e-7, abs=1e-7), solver


def test_qsection_is_not_a_full_symmetric_matrix(tmp_path: Path) -> None:
    """QSECTION / QUADOBJ give each off-diagonal term once (the upper triangle); QMATRIX gives
    both: the three files are one model."""
    a, b, c = (loads(t, "mps") for t in (QSECTION, QUADOBJ, QMATRIX))
    assert bool(check_equivalence(a, b)) and bool(check_equivalence(a, c))


def test_semi_variables_round_trip_in_every_format() -> None:
    original = loads(SEMI_MPS, "mps")
    assert list(original.var_types) == ["S", "C", "N"]
    for fmt in ("lp", "mps", "mps-fixed", "json"):
        with warnings.catch_warnings():
            warnings.simplefilter("error", ModelFileWarning)
            back = loads(dumps(original, fmt), fmt)
        assert list(back.var_types) == ["S", "C", "N"], fmt
        assert bool(check_equivalence(original, back)), fmt


def test_semi_differs_from_plain_bounds() -> None:
    """A semi-continuous x in [3, 10] may also be 0: not the model with x in [3, 10]."""
    semi = loads(SEMI_LP, "lp")
    plain = loads(SEMI_LP.replace("Semi-continuous\n x z\n", ""), "lp")
    assert not bool(check_equivalence(semi, plain))
    assert solve_highs(semi).objective == pytest.approx(3)  # x = 3 alone, z = 0
    assert solve_highs(plain).objective == pytest.approx(3 + 2 * 2)  # x = 3 and z = 2 forced


def test_highs_reads_what_ortrex_writes_for_semi_models(tmp_path: Path) -> None:
    original = loads(SEMI_MPS, "mps")
    want = solve_highs(original).objective
    for fmt, suffix in (("lp", ".lp"), ("mps", ".mps")):
        path = tmp_path / f"semi{suffix}"
        path.write_text(dumps(original, fmt))
        assert _gurobi_optimum(path) == pytest.approx(want), fmt
