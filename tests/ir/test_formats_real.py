"""Files the solvers read, read as they read them: the names Gurobi writes (netlib's 5C0ST,
B/A.GPBA, FLAV*1, rows named ``...`` or ``001``), right-hand sides and fractions, compressed
files, MPS negative UP bounds, and what the IR refuses. Each case is a small file written here,
read by ortrex and by gurobipy / highspy, and compared: the model, the optimum, the names."""

from __future__ import annotations

import bz2
import contextlib
import gzip
import io
import math
import pickle
import warnings
from pathlib import Path

import gurobipy as gp
import highspy
import pytest
from gurobipy import GRB
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ortrex.ir import CanonicalModel
from ortrex.ir.formats import (
    ModelFileError,
    ModelFileWarning,
    UnsupportedFeatureError,
    from_gurobi,
    loads,
    read_model,
    write_model,
)
from ortrex.ir.formats import text as text_module
from ortrex.ir.formats.gurobi import quiet_env
from ortrex.ir.formats.lp_fast import read_fast
from ortrex.verifiers.solvers import SolveStatus, solve_highs
from tests.ir.test_lp_fast import edited, same_as_full
from tests.strategies import model_diff, quadratic_rows_last

DIGIT_NAMES = "names that start with a number read whole"


def gurobi_read(path: Path) -> gp.Model:
    """gurobipy's own reading of a file (its log kept off the test's output)."""
    with contextlib.redirect_stdout(io.StringIO()):
        m = gp.read(str(path), quiet_env())
    m.update()
    return m


def gurobi_optimum(path: Path) -> float:
    m = gurobi_read(path)
    m.optimize()
    assert m.Status == GRB.OPTIMAL
    return float(m.ObjVal)


def gurobi_rows(path: Path) -> dict[str, tuple[dict[str, float], str, float]]:
    """Each row's terms, sense and right-hand side as gurobipy reads them."""
    m = gurobi_read(path)
    out = {}
    for c in m.getConstrs():
        e = m.getRow(c)
        terms: dict[str, float] = {}
        for k in range(e.size()):
            terms[e.getVar(k).VarName] = terms.get(e.getVar(k).VarName, 0.0) + e.getCoeff(k)
        out[c.ConstrName] = (terms, c.Sense, float(c.RHS))
    return out


def highs_read(path: Path) -> highspy.Highs | None:
    """highspy's reading of a file, or None where it refuses it."""
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    return None if h.readModel(str(path)) == highspy.HighsStatus.kError else h


def ortrex_read(path: Path) -> tuple[CanonicalModel, list[str]]:
    """ortrex's reading of a file and its warning lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = read_model(path)
    return m, [str(w.message) for w in caught if issubclass(w.category, ModelFileWarning)]


def same_as_gurobi(ours: CanonicalModel, path: Path) -> None:
    theirs = from_gurobi(gurobi_read(path)).replace(name=ours.name)
    assert theirs == quadratic_rows_last(ours), model_diff(theirs, quadratic_rows_last(ours))


def optimum(m: CanonicalModel) -> float:
    r = solve_highs(m)
    assert r.status is SolveStatus.OPTIMAL
    assert r.objective is not None
    return r.objective


# Names from netlib and MIPLIB files (25fv47, greenbea, boeing1, egout) and the ones the
# CPLEX rules forbid but Gurobi writes and reads back.
VAR_NAMES = ["1st_shift", "21st_shift", "5C0ST", "3e2x", "2e", ".5x", "B/A.GPBA", "FLAV*1",
             ".ETHSD", "...100", "F....001", "I.001...", "x"]
ROW_NAMES = ["...", "001", "2", "U.001...", "5C0ST", "1e2", "B/A...BA", "FLAV*1"]


def gurobi_written_names(path: Path) -> None:
    """An LP file Gurobi writes for a model with those names (coefficients 1 and others)."""
    m = gp.Model("netlib names", env=quiet_env())
    v = {n: m.addVar(ub=10 + k, name=n) for k, n in enumerate(VAR_NAMES)}
    m.setObjective(gp.quicksum((1 if k % 2 else k + 2) * v[n] for k, n in enumerate(VAR_NAMES)))
    for k, row in enumerate(ROW_NAMES):
        names = VAR_NAMES[k::3]
        m.addConstr(gp.quicksum((1 if j % 2 else 2.5) * v[n] for j, n in enumerate(names))
                    >= k + 1, name=row)
    m.write(str(path))


def test_names_gurobi_writes_are_read_as_gurobi_reads_them(tmp_path: Path) -> None:
    path = tmp_path / "names.lp"
    gurobi_written_names(path)
    text = path.read_text()
    assert "+ 21st_shift" in text and "2 1st_shift" in text  # both forms are in it
    ours, said = ortrex_read(path)
    same_as_gurobi(ours, path)
    assert sorted(ours.var_names) == sorted(VAR_NAMES)
    assert ours.row_names == tuple(ROW_NAMES)
    assert optimum(ours) == pytest.approx(gurobi_optimum(path), rel=1e-9)
    # One warning line: HiGHS would read 21st_shift as 21 st_shift.
    assert len(said) == 1 and DIGIT_NAMES in said[0]
    assert not same_as_full(text)  # the fast path hands these names to the full reader


@pytest.mark.parametrize(("terms", "want"), [
    ("2 1st_shift", {"1st_shift": 2.0}),
    ("21st_shift", {"21st_shift": 1.0}),
    ("3e2x", {"3e2x": 1.0}),
    ("3e2 x", {"x": 300.0}),
    ("3e+2x", {"3e+2x": 1.0}),
    ("2 12", {"12": 2.0}),
    ("2 .5x", {".5x": 2.0}),
    ("2 2e + 2.5.x", {"2e": 2.0, "2.5.x": 1.0}),
    ("2x + 2*y", {"2x": 1.0, "2*y": 1.0}),
    ("3 FLAV*1 - B/A.GPBA", {"FLAV*1": 3.0, "B/A.GPBA": -1.0}),
    (".ETHSD + 4 ...100", {".ETHSD": 1.0, "...100": 4.0}),
])
def test_a_term_is_read_as_gurobi_reads_it(tmp_path: Path, terms: str,
                                           want: dict[str, float]) -> None:
    path = tmp_path / "t.lp"
    # Gurobi's header: a file Gurobi wrote is read as Gurobi reads it.
    path.write_text(f"\\ Model t\nMinimize\n obj: x\nSubject To\n c: {terms} >= 1\nEnd\n")
    assert gurobi_rows(path)["c"] == (want, ">", 1.0)
    ours, said = ortrex_read(path)
    assert next(ours.constraints()).terms == want
    same_as_gurobi(ours, path)
    numeric = any(n[0].isdigit() or (n[0] == "." and n[1:2].isdigit()) for n in want)
    assert len(said) == numeric and all(DIGIT_NAMES in s for s in said)
    same_as_full(path.read_text())


def test_highs_reads_a_leading_number_as_a_coefficient(tmp_path: Path) -> None:
    """What the warning line says HiGHS does with the names Gurobi reads whole."""
    path = tmp_path / "t.lp"
    path.write_text("Minimize\n obj: z\nSubject To\n c: 21st_shift + 5C0ST >= 1\nEnd\n")
    h = highs_read(path)
    assert h is not None
    lp = h.getLp()
    assert list(lp.col_names_) == ["z", "st_shift", "C0ST"]
    assert list(lp.a_matrix_.value_) == [21.0, 5.0]
    path.write_text("Minimize\n obj: z\nSubject To\n c: 2 1st_shift >= 1\nEnd\n")
    assert highs_read(path) is None  # a number after a coefficient: HiGHS refuses the file


EGOUT = """NAME          EGOUTMINI
ROWS
 N  COST
 G  ...
 E  001
 E  002
 L  U.001...
 L  U.002...
COLUMNS
    MARK0000  'MARKER'                 'INTORG'
    I.001...  COST             28.21   U.001...       -117.04
    I.002...  COST             21.16   U.002...       -117.04
    MARK0001  'MARKER'                 'INTEND'
    F....001  ...                  1   001                 -1
    F....002  ...                  1   002                 -1
    F.001...  COST             0.979   001                  1
    F.001...  U.001...             1
    F.002...  COST             0.914   002                  1
    F.002...  U.002...             1
RHS
    RHS       ...                  6
BOUNDS
 UP BOUNDS    I.001...             1
 UP BOUNDS    I.002...             1
 UP BOUNDS    F....001           3.5
 UP BOUNDS    F....002           3.5
ENDATA
"""


def test_egout_names_in_a_gurobi_written_lp(tmp_path: Path) -> None:
    """Rows named ``...`` and ``001`` (MIPLIB egout) through Gurobi's LP writer."""
    mps, lp = tmp_path / "egout.mps", tmp_path / "egout.lp"
    mps.write_text(EGOUT)
    gurobi_read(mps).write(str(lp))
    assert " ...: " in lp.read_text() and " 001: " in lp.read_text()
    ours, said = ortrex_read(lp)
    assert said == []  # HiGHS reads these names as Gurobi does
    same_as_gurobi(ours, lp)
    assert ours.row_names == ("...", "001", "002", "U.001...", "U.002...")
    h = highs_read(mps)
    assert h is not None and h.run() == highspy.HighsStatus.kOk
    assert optimum(ours) == pytest.approx(h.getInfo().objective_function_value, rel=1e-9)
    assert optimum(ours) == pytest.approx(gurobi_optimum(lp), rel=1e-9)


@pytest.mark.parametrize(("row", "cause"), [
    ("R1: x + y >= z", "variable 'z' on the right-hand side"),
    ("R1: x >= 2 z", "'z' after the right-hand side '2'"),
    ("R1: x + y >= 1 + z", "'+' after the right-hand side '1'"),
])
def test_variables_on_the_right_are_refused_naming_the_cause(tmp_path: Path, row: str,
                                                             cause: str) -> None:
    path = tmp_path / "rhs.lp"
    path.write_text(f"Minimize\n obj: x\nSubject To\n {row}\n R2: y <= 3\nEnd\n")
    with pytest.raises(gp.GurobiError):
        gurobi_read(path)
    assert highs_read(path) is None
    with pytest.raises(ModelFileError) as info:
        read_model(path)
    assert info.value.line == 4 and cause in info.value.message
    assert "no comparison" not in str(info.value)
    assert str(info.value).startswith(f"{path}:4: ")


def test_a_fraction_over_one_is_read_as_gurobi_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "frac.lp"
    path.write_text("Maximize\n obj: x + y\nSubject To\n c: 53/1 x + y <= 106/1\n"
                    "Bounds\n y <= 53/1\nEnd\n")
    assert gurobi_rows(path)["c"] == ({"x": 53.0, "y": 1.0}, "<", 106.0)
    assert highs_read(path) is None
    ours, said = ortrex_read(path)
    assert next(ours.constraints()).terms == {"x": 53.0, "y": 1.0} and ours.ub[1] == 53.0
    assert len(said) == 1 and "fractions p/1 read as p" in said[0] and "3x" in said[0]
    same_as_gurobi(ours, path)
    assert optimum(ours) == pytest.approx(gurobi_optimum(path), rel=1e-9)


def test_other_fractions_are_refused_naming_the_cause(tmp_path: Path) -> None:
    path = tmp_path / "frac.lp"
    path.write_text("Maximize\n obj: x\nSubject To\n c: 2 x <= 53/2\nEnd\n")
    # Gurobi's number reader stops at "/": it reads 53, not 26.5.
    assert gurobi_rows(path)["c"] == ({"x": 2.0}, "<", 53.0)
    assert highs_read(path) is None
    with pytest.raises(ModelFileError, match=r"'53/2' is a fraction: write it as a decimal") \
            as info:
        read_model(path)
    assert info.value.line == 4


LP = "Maximize\n obj: x + 2 y\nSubject To\n c: x + y <= 4\nBounds\n y <= 3\nEnd\n"


@pytest.mark.parametrize("suffix", [".lp.gz", ".lp.bz2", ".mps.gz", ".mps.bz2"])
def test_compressed_files_read_as_gurobi_reads_them(tmp_path: Path, suffix: str) -> None:
    plain = loads(LP, "lp")
    path = tmp_path / f"m{suffix}"
    write_model(plain, path)
    raw = path.read_bytes()
    assert raw[:2] == b"\x1f\x8b" if suffix.endswith(".gz") else raw[:3] == b"BZh"
    ours, said = ortrex_read(path)
    assert said == [] and ours.name == "m"
    assert ours.replace(name="") == plain.replace(name="")
    same_as_gurobi(ours, path)  # gurobipy reads the same compressed file
    assert optimum(ours) == pytest.approx(gurobi_optimum(path)) == 7.0


@pytest.mark.parametrize(("suffix", "data", "message"), [
    (".lp.bz2", b"BZh91AY&SY not bzip2 at all", "not a valid bzip2 file"),
    (".lp.gz", gzip.compress(LP.encode(), mtime=0)[:-12], "not a valid gzip file"),
    (".lp.gz", b"plain text, no gzip header", "not a valid gzip file"),
], ids=["bz2-garbage", "gz-truncated", "gz-plain"])  # ids: xdist workers must collect alike
def test_corrupt_compressed_files_name_the_codec(tmp_path: Path, suffix: str, data: bytes,
                                                 message: str) -> None:
    path = tmp_path / f"bad{suffix}"
    path.write_bytes(data)
    with pytest.raises(ModelFileError, match=message) as info:
        read_model(path)
    assert info.value.path == str(path)


def test_a_decompression_bomb_stops_at_the_limit(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(text_module, "MAX_TEXT_BYTES", 1 << 20)
    bomb = tmp_path / "bomb.lp.bz2"
    bomb.write_bytes(bz2.compress(LP.encode() + b" " * (64 << 20)))
    assert bomb.stat().st_size < 4096  # 64 MiB of text in a few hundred bytes
    with pytest.raises(ModelFileError, match="decompresses to more than the readers' limit"):
        read_model(bomb)
    plain = tmp_path / "big.lp"
    plain.write_bytes(LP.encode() + b" " * (2 << 20))
    with pytest.raises(ModelFileError, match="larger than the readers' limit"):
        read_model(plain)
    small = tmp_path / "small.lp.gz"
    small.write_bytes(gzip.compress(LP.encode() + b" " * ((1 << 20) - len(LP) - 1)))
    assert read_model(small).num_vars == 2  # just under the limit: read


NEG_UP = """NAME negup
ROWS
 N obj
 G c1
COLUMNS
 x obj 1 c1 1
 y obj 1 c1 1
 MARKER 'MARKER' 'INTORG'
 z obj 1 c1 1
 MARKER 'MARKER' 'INTEND'
RHS
 rhs c1 -10
BOUNDS
 UP bnd x -2
 LO bnd y -5
 UP bnd y -1
 UI bnd z -3
 LO bnd z -4
ENDATA
"""


def test_a_negative_up_bound_is_read_as_gurobi_reads_it(tmp_path: Path) -> None:
    path = tmp_path / "negup.mps"
    path.write_text(NEG_UP)
    g = gurobi_read(path)
    assert [(v.LB, v.UB) for v in g.getVars()] == [(-math.inf, -2.0), (-5.0, -1.0),
                                                   (-4.0, -3.0)]
    h = highs_read(path)
    assert h is not None
    lp = h.getLp()
    assert (lp.col_lower_[0], lp.col_upper_[0]) == (0.0, -2.0)  # HiGHS: no value fits
    h.run()
    assert h.getModelStatus() == highspy.HighsModelStatus.kInfeasible
    ours, said = ortrex_read(path)
    assert list(zip(ours.lb, ours.ub, strict=True)) == [(-math.inf, -2.0), (-5.0, -1.0),
                                                       (-4.0, -3.0)]
    # One line, for x alone: y and z get their lower bounds, as both solvers read them.
    assert len(said) == 1 and "negative UP bounds" in said[0] and "HiGHS keeps 0" in said[0]
    assert "UP x -2" in said[0] and "2x" not in said[0]
    same_as_gurobi(ours, path)
    assert optimum(ours) == pytest.approx(gurobi_optimum(path))


def _fixed(kind: str = "", *fields: str) -> str:
    """A data line in the fixed MPS columns."""
    widths = [(4, 8), (14, 8), (24, 12), (39, 8), (49, 12)]
    line = list(f" {kind:<2}".ljust(62))
    for (start, width), text in zip(widths, fields, strict=False):
        line[start:start + width] = text.ljust(width)
    return "".join(line).rstrip()


def test_format_detection_issues_one_warning_line() -> None:
    """A fixed-format file the free reading reads to its end, then fails to build."""
    text = "\n".join([
        "NAME          AUTO", "ROWS", " N  COST", " L  LIM", "COLUMNS",
        _fixed("", "X", "COST", "1.0", "LIM", "1.0"), _fixed("", "X", "LIM", "2.0"),
        "RHS", _fixed("", "RHS", "LIM", "4.0"), "BOUNDS",
        # Free fields read both as bounds of a column "2": lb 5 > ub 3.
        _fixed("LO", "", "X 2", "5"), _fixed("UP", "", "Y 2", "3"), "ENDATA", ""])
    with pytest.raises(ModelFileError, match=r"'2': lb 5\.0 > ub 3\.0"):
        loads(text, "mps-free")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = loads(text, "mps", "auto.mps")
    assert m.var_names == ("X", "X 2", "Y 2")
    with pytest.warns(ModelFileWarning, match="repeated entries"):
        assert m == loads(text, "mps-fixed", "auto.mps")  # the fixed reading's model
    assert [str(w.message) for w in caught] == [
        "auto.mps: repeated entries: the first value kept, as HiGHS and Gurobi keep it "
        "(line 7: X LIM)"]


def _base() -> tuple[gp.Model, gp.Var, gp.Var, gp.Var]:
    m = gp.Model("f", env=quiet_env())
    x, y = m.addVar(ub=4, name="x"), m.addVar(ub=4, name="y")
    b = m.addVar(vtype=GRB.BINARY, name="b")
    m.setObjective(x + 2 * y - b, GRB.MAXIMIZE)
    m.addConstr(x + y <= 5, "c0")
    return m, x, y, b


def _sos(m: gp.Model, x: gp.Var, y: gp.Var, b: gp.Var) -> None:
    m.addSOS(GRB.SOS_TYPE1, [x, y], [1, 2])


def _indicator(m: gp.Model, x: gp.Var, y: gp.Var, b: gp.Var) -> None:
    m.addGenConstrIndicator(b, True, x + y <= 3, name="ind")


def _max(m: gp.Model, x: gp.Var, y: gp.Var, b: gp.Var) -> None:
    m.addGenConstrMax(m.addVar(name="z"), [x, y], name="mx")


def _pwl(m: gp.Model, x: gp.Var, y: gp.Var, b: gp.Var) -> None:
    m.setPWLObj(x, [0, 2, 4], [0, 1, 5])


@pytest.mark.parametrize("suffix", [".lp", ".mps"])
@pytest.mark.parametrize(("add", "feature", "marker"), [
    (_sos, "SOS constraints", "SOS"),
    (_indicator, "indicator constraints", {".lp": "->", ".mps": "INDICATORS"}),
    (_max, "general constraints", {".lp": "General Constraints", ".mps": "GENCONS"}),
    (_pwl, "piecewise-linear objectives", {".lp": "PWLObj", ".mps": "PWLOBJ"}),
])
def test_what_the_ir_does_not_hold_is_refused_for_gurobi_to_read(
        tmp_path: Path, suffix: str, add: object, feature: str,
        marker: str | dict[str, str]) -> None:
    m, x, y, b = _base()
    add(m, x, y, b)  # type: ignore[operator]
    path = tmp_path / f"feature{suffix}"
    m.write(str(path))
    with pytest.raises(UnsupportedFeatureError) as info:
        read_model(path)
    err = info.value
    assert err.feature == feature and err.path == str(path)
    assert str(err) == f"{path}:{err.line}: {err.message}" and feature in err.message
    word = marker if isinstance(marker, str) else marker[suffix]
    assert err.line is not None and word in path.read_text().splitlines()[err.line - 1]
    again = pickle.loads(pickle.dumps(err))  # from a worker process, intact
    assert (type(again), again.feature, again.line, str(again)) == (
        UnsupportedFeatureError, feature, err.line, str(err))
    # What a caller does with it: the file goes to Gurobi's reader, which holds the feature.
    g = gurobi_read(path)
    assert g.NumSOS + g.NumGenConstrs > 0 or g.getAttr("NumPWLObjVars") > 0


# Corners of this change the fast path must read as the full reader does (or leave to it).
FAST_AGREES = {
    "names with * and / (greenbea, boeing1)": (
        "Minimize\n obj: 3 FLAV*1 + B/A.GPBA\nSubject To\n B/A...BA: FLAV*1 - B/A.GPBA >= 1\n"
        "Bounds\n FLAV*1 <= 4\nEnd\n"),
    "names starting with a digit": (
        "Minimize\n obj: 2 5C0ST + 1st\nSubject To\n c: 5C0ST >= 1\nEnd\n"),
    "rows named ... and 001": "Minimize\n obj: x\nSubject To\n ...: x >= 1\n 001: x <= 3\nEnd\n",
    "a fraction": "Minimize\n obj: x\nSubject To\n c: 53/1 x >= 1\nEnd\n",
    "a term after the right-hand side": "Minimize\n obj: x\nSubject To\n c: x >= 2 z\nEnd\n",
    "a product glued in a bracket": "Minimize\n obj: x\nSubject To\n c: [ x*y ] <= 1\nEnd\n",
}


@pytest.mark.parametrize("text", FAST_AGREES.values(), ids=FAST_AGREES.keys())
def test_the_fast_path_agrees_on_these_corners(text: str) -> None:
    fast = same_as_full(text)
    # Names with "*" and "/" stay on the fast path; the rest is the full reader's.
    assert fast == ("FLAV*1" in text)
    if fast:
        assert read_fast(text, "t.lp") is not None


NETLIB = ("\\ Model netlib\nMinimize\n obj: 3 FLAV*1 + B/A.GPBA + 2 x.y\nSubject To\n"
          " B/A...BA: FLAV*1 - B/A.GPBA + x.y >= 1\n c2: 2.5 x.y + FLAV*1 <= 8\n"
          "Bounds\n FLAV*1 <= 4\n -1 <= x.y <= 3\nEnd\n")
EDITS = [*" \n*/.:+-<=12e", "5C0ST", "1st_", "53/1", "53/2", "...", "001: ", "->", " z", "x*y"]


@given(st.lists(st.tuples(st.sampled_from(["insert", "delete", "replace"]), st.floats(0, 1),
                          st.sampled_from(EDITS)), min_size=1, max_size=3))
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
def test_edited_netlib_names_read_alike_on_every_path(edits: list[tuple[str, float, str]]) -> None:
    assert read_fast(NETLIB, "t.lp") is not None  # the base file is on the fast path
    same_as_full(edited(NETLIB, edits))


def test_quadratic_terms_with_star_names(tmp_path: Path) -> None:
    """``FLAV*1 ^2`` is Gurobi's square of FLAV*1; ``x0*x1`` alone (HiGHS's qcqp.lp, which
    neither solver reads) stays the product ortrex always read it as."""
    m = gp.Model("q", env=quiet_env())
    f, x = m.addVar(ub=3, name="FLAV*1"), m.addVar(ub=2, name="x")
    m.setObjective(f * f + 2 * f * x - f - x)
    m.addConstr(f * x + x * x <= 3, "q")
    path = tmp_path / "q.lp"
    m.write(str(path))
    assert "FLAV*1 ^2" in path.read_text()
    ours, said = ortrex_read(path)
    assert said == []
    same_as_gurobi(ours, path)
    glued = loads("Minimize\n 10 x1 + [ 6 x0*x1 ] / 2\nSubject To\n c: [ x0* x1 ] <= 1\nEnd\n",
                  "lp")
    assert [(int(i), int(j), float(v)) for i, j, v in zip(*glued.qobj, strict=True)] == [
        (0, 1, 3.0)]
    assert glued.var_names == ("x1", "x0") and len(glued.qrows[0]) == 1


@pytest.mark.parametrize(("terms", "want"), [
    ("2y", {"y": 2.0}),
    ("21st_shift", {"st_shift": 21.0}),
    ("3e2x + x1", {"x": 300.0, "x1": 1.0}),
    ("2 1st_shift", {"1st_shift": 2.0}),  # after a coefficient a word is the name
])
def test_a_hand_written_file_reads_a_glued_number_as_a_coefficient(
        terms: str, want: dict[str, float]) -> None:
    # No Gurobi header: "2y" is 2 times y, as CPLEX, HiGHS and people writing LP mean it;
    # one warning line names the difference from Gurobi's reading.
    import warnings

    from ortrex.ir.formats import loads

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        m = loads(f"Minimize\n obj: x\nSubject To\n c: {terms} >= 1\nEnd\n", "lp", "t")
    assert next(m.constraints()).terms == want
    assert len(caught) == 1
