"""The LP reader's fast path: the same model as the full reader, or the full reader itself.

Every file the fast path reads must give the model the full reader gives (same content hash and
name); every file it does not handle goes to the full reader, so errors (file:line: message) and
warning lines are the full reader's, word for word.
"""

from __future__ import annotations

import random
import shutil
import struct
import warnings
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ortrex.ir import CanonicalModel
from ortrex.ir.formats import ModelFileError, dumps, lp_fast, read_model, to_gurobi
from ortrex.ir.formats.gurobi import quiet_env
from ortrex.ir.formats.lp_fast import read_fast
from ortrex.ir.formats.lp_read import parse_lp, parse_lp_full
from ortrex.ir.formats.lp_syntax import SENSES, bounds_from
from ortrex.ir.formats.text import decode_text, read_bytes
from ortrex.paths import benchmarks_dir
from tests.ir.test_formats import GUROBI_LP
from tests.strategies import models

ROOT = benchmarks_dir()
FILES: list[Path] = (
    sorted((ROOT / "bench4opt" / "lp_code").glob("*.lp"))
    + sorted((ROOT / "bench4opt_feasible" / "lp_code").glob("*.lp"))) if ROOT else []


def outcome(read: object, text: str) -> tuple[object, ...]:
    """What reading ``text`` gives: the model's content hash and name, or the error's words and
    line; and the warning lines."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            m = read(text, "t.lp")  # type: ignore[operator]
            got: tuple[object, ...] = ("model", m.content_hash, m.name)
        except ModelFileError as exc:
            got = ("error", type(exc).__name__, str(exc), exc.line)
    return (*got, tuple(str(w.message) for w in caught))


def scanned_as_python(text: str) -> bool:
    """Assert that where the compiled scanner takes ``text``, the model is the one the Python
    fast path makes (or neither makes one); return whether the scanner took it."""
    scanned = lp_fast._scan(text) if lp_fast._scan is not None else None
    if scanned is None:
        return False
    got = lp_fast._from_scan(scanned)
    want = lp_fast.read_python(text)
    assert want is not None
    assert (got.content_hash, got.name, got.var_names, got.row_names) == (
        want.content_hash, want.name, want.var_names, want.row_names)
    for x, y in zip(model_arrays(got), model_arrays(want), strict=True):
        assert x.dtype == y.dtype and x.shape == y.shape and x.tobytes() == y.tobytes()
    return True


def model_arrays(m: CanonicalModel) -> list:
    """Every array of a model, to compare bit for bit (dtype included)."""
    return [m.var_types, m.lb, m.ub, m.obj, m.row_lower, m.row_upper, m.csr.indptr,
            m.csr.indices, m.csr.data, *m.qobj, *m.qrows]


def edited(text: str, edits: list[tuple[str, float, str]]) -> str:
    """``text`` after each (insert | delete | replace, where in [0, 1), characters) edit."""
    for op, at, chars in edits:
        k = int(at * len(text))
        if op == "insert":
            text = text[:k] + chars + text[k:]
        elif op == "delete":
            text = text[:k] + text[k + 1:]
        else:
            text = text[:k] + chars + text[k + 1:]
    return text


def same_as_full(text: str) -> bool:
    """Assert ``parse_lp`` (fast path first) reads ``text`` as the full reader does, and the
    compiled scanner as the Python fast path does; return whether the fast path read it."""
    scanned_as_python(text)
    assert outcome(parse_lp, text) == outcome(parse_lp_full, text)
    fast = read_fast(text, "t.lp")
    if fast is not None:
        assert fast.content_hash == parse_lp_full(text, "t.lp").content_hash
    return fast is not None


@pytest.mark.shared
def test_every_shared_reference_lp_takes_the_fast_path_to_the_same_model() -> None:
    assert len(FILES) == 738
    scanned = 0
    for path in FILES:
        text = decode_text(read_bytes(path), str(path))
        scanned += scanned_as_python(text)
        fast = read_fast(text, str(path))
        assert fast is not None, path
        full = parse_lp_full(text, str(path))
        assert (fast.content_hash, fast.name) == (full.content_hash, full.name), path
    if lp_fast._scan is not None:  # all but the 16 with quadratic terms, which Python reads
        assert scanned == 722


@cache
def gurobi_written(tmp: Path) -> list[Path]:
    """Shared models and transformed copies of them written by Gurobi's own LP writer."""
    from ortrex.verifiers.equivalence.suite import labelled_pairs

    env = quiet_env()
    base = [read_model(p) for p in FILES[::40]]
    out = []
    for k, pair in enumerate(labelled_pairs(base, seed=3)):
        path = tmp / f"m{k}.lp"
        g = to_gurobi(pair.b, env)
        g.write(str(path))
        g.dispose()
        out.append(path)
    return out


@pytest.mark.shared
def test_files_gurobi_writes_take_the_fast_path_to_the_same_model(tmp_path: Path) -> None:
    paths = gurobi_written(tmp_path)
    assert len(paths) > 150
    for path in paths:
        assert same_as_full(path.read_text()), path


@given(models())
@settings(max_examples=60, deadline=None)
def test_files_ortrex_writes_take_the_fast_path_to_the_same_model(m: CanonicalModel) -> None:
    text = dumps(m, "lp")
    assert same_as_full(text)
    assert parse_lp(text) == m


FAST_CORNERS = {
    "gurobi dialect": GUROBI_LP,
    "signs joined to right-hand sides and bounds": (
        "Minimize\n x + y\nSubject To\n c1: x - y >= -20\n c2: x + y <= +5\n c3: - x >= -inf\n"
        " c4: x <= infinity\nBounds\n -3 <= x <= 1e31\n -Infinity <= y <= 7\nEnd\n"),
    "labels with brackets, an objective label": (
        "Maximize\n obj: 2 x[1,2] + 3 y[a:b]\nSubject To\n c[1,2]: x[1,2] + y[a:b] <= 4\nEnd\n"),
    "repeated terms and a zero coefficient": (
        "Minimize\n x + x - 0 y\nSubject To\n c: x + 2 x - x >= 1\n d: 0 x + y = 0\nEnd\n"),
    "repeated row names, an unnamed row, an empty row": (
        "Minimize\n x\nSubject To\n c: x >= 1\n c: x <= 5\n x + y >= 2\n e: <= 0\nEnd\n"),
    "comments at the top and between sections, blank lines, text after End": (
        "\\ Model my model\n\\ a comment\n\nMinimize\n x\n\n\\ another\nSubject To\n c: x >= 1"
        "\nEnd\nanything at all\n"),
    "quadratic objective halved, quadratic rows": (
        "Minimize\n x + [ x ^2 + 2 x * y - y ^ 2 ] / 2\nSubject To\n q: x + [ x * y ] <= 4\n"
        " q2: [ - 3 y ^2 ] >= -9\nEnd\n"),
    "generals and binaries after bounds": (
        "Minimize\n x + y + z\nSubject To\n c: x + y + z >= 1\nBounds\n x <= 10\n z >= -2\n"
        " y free\nGenerals\n x z\nBinaries\n y\nEnd\n"),
    "other header spellings": (
        "MAX\n x\nst\n c: x <= 1\nbound\n x >= -1\ngen\n x\nend\n"),
    "numbers in every form": (
        "Minimize\n 1e3 x + .5 y + 2. z + 1E-2 w + 3e+2 v\nSubject To\n"
        " c: x + y + z + w + v >= 1.5e0\nEnd\n"),
}

SLOW_CORNERS = {
    "a constant in the objective (a warning)": "Minimize\n x + 4\nEnd\n",
    "a constant on a row's left-hand side (a warning)": (
        "Minimize\n x\nSubject To\n c: x + 5 <= 9\nEnd\n"),
    "the objective on the header's line": "Minimize x + y\nSubject To\n c: x + y >= 1\nEnd\n",
    "a whole model on one line": "Minimize x Subject To c: x >= 1 Bounds x <= 3 End",
    "lower bound first in a row": "Minimize\n x\nSubject To\n c: 3 <= x + y <= 8\nEnd\n",
    "a number glued to its name": "Minimize\n 2x + y\nEnd\n",
    "two signs in a row": "Minimize\n x - - y\nSubject To\n c: x >= - - 2\nEnd\n",
    "a comment after a term": "Minimize\n x \\ the cost\nSubject To\n c: x >= 1\nEnd\n",
    "Windows line ends": "Minimize\r\n x\r\nSubject To\r\n c: x >= 1\r\nEnd\r\n",
    "a name that is not ASCII": "Minimize\n x\u00e9\nEnd\n",
    "semi-continuous variables": (
        "Minimize\n x\nSubject To\n c: x >= 1\nBounds\n x <= 9\nSemi-continuous\n x\nEnd\n"),
    "a variable named like a section": "Minimize\n x + bounds\nEnd\n",
    "a variable named inf": "Minimize\n x\nSubject To\n c: inf >= x\nEnd\n",
    "a variable named free": "Minimize\n free\nBounds\n free <= 4\nEnd\n",
    "underscores in a number": "Minimize\n 1_0 x\nEnd\n",
    "a name starting with a dot": "Minimize\n .x\nEnd\n",
    "a second objective": "Minimize\n x\nMaximize\n y\nEnd\n",
    "an indented header": "Minimize\n x\n Subject To\n c: x >= 1\nEnd\n",
}


@pytest.mark.parametrize("text", FAST_CORNERS.values(), ids=FAST_CORNERS.keys())
def test_dialect_corners_the_fast_path_reads(text: str) -> None:
    assert same_as_full(text)


@pytest.mark.parametrize("text", SLOW_CORNERS.values(), ids=SLOW_CORNERS.keys())
def test_dialect_corners_go_to_the_full_reader(text: str) -> None:
    assert not same_as_full(text)


BAD = [
    "Minimize\n x + y\nSubject To\n c1: x + y <= \nEnd\n",
    "Minimize\n x + y\nSubject To\n c1: x + y 5\nEnd\n",
    "Minimize\n x y\nEnd\n",
    "Minimize\n nan x\nEnd\n",
    "Minimize\n x\nSubject To\n c: inf x >= 1\nEnd\n",
    "Minimize\n x\nSubject To\n c: x >= nan\nEnd\n",
    "Minimize\n x\nSubject To\n c: [ x ^ 3 ] <= 1\nEnd\n",
    "Minimize\n x\nSubject To\n c: x * y <= 1\nEnd\n",
    "Minimize\n x\nBounds\n x <== 3\nEnd\n",
    "Minimize\n x\nSOS\n s1: S1:: x:1\nEnd\n",
    "Minimize\n x\nSubject To\n c: b = 1 -> x <= 1\nEnd\n",
    "hello world\n",
    "Minimize\n x\nBounds\n x <= -5\nEnd\n",
    "Minimize\n x\nBounds\n x = 1e31\nEnd\n",
    "Minimize\n 1e999 x\nEnd\n",
    "Minimize\n x\nSubject To\n c: x + [ x ^2 ] / 0 <= 1\nEnd\n",
    "Minimize\n x\nSubject To\n c: x >=\n",
    "Subject To\n c: x >= 1\nEnd\n",
]


@pytest.mark.parametrize("text", BAD)
def test_bad_input_gets_the_full_readers_error_line(text: str) -> None:
    assert read_fast(text, "t.lp") is None
    want = outcome(parse_lp_full, text)
    assert want[0] == "error"
    assert outcome(parse_lp, text) == want


BASES = [GUROBI_LP, FAST_CORNERS["quadratic objective halved, quadratic rows"],
         FAST_CORNERS["signs joined to right-hand sides and bounds"]]
EDIT_CHARS = [*" \n\t+-:[]^*/2e._\\<=>x1", "inf", "nan", "free", " bounds ", "R1:"]


@given(st.sampled_from(BASES), st.lists(st.tuples(
    st.sampled_from(["insert", "delete", "replace"]), st.floats(0, 1),
    st.sampled_from(EDIT_CHARS)), min_size=1, max_size=3))
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
def test_edited_files_read_as_the_full_reader_reads_them(
        base: str, edits: list[tuple[str, float, str]]) -> None:
    same_as_full(edited(base, edits))


def test_the_compiled_scanner_is_built_where_a_compiler_is() -> None:
    if shutil.which("cc") is None and shutil.which("gcc") is None:
        pytest.skip("no C compiler: the install keeps the pure-Python fast path")
    assert lp_fast._scan is not None, "pip install -e . should have built ortrex.ir.formats._lpscan"


needs_scanner = pytest.mark.skipif(lp_fast._scan is None, reason="the scanner is not built")

SCANNED = ["gurobi dialect, linear", "signs joined to right-hand sides and bounds",
           "labels with brackets, an objective label", "repeated row names",
           "generals and binaries after bounds", "other header spellings",
           "numbers in every form"]
NOT_SCANNED = {  # the Python fast path reads these, the scanner leaves them to it
    "an unnamed row": "Minimize\n x\nSubject To\n x + y >= 2\nEnd\n",
    "a comment between sections": "Minimize\n x\n\\ c\nSubject To\n c: x >= 1\nEnd\n",
    "quadratic terms": FAST_CORNERS["quadratic objective halved, quadratic rows"],
    "a variable twice in a row": FAST_CORNERS["repeated terms and a zero coefficient"],
    "a coefficient with a joined sign": "Minimize\n x + -2 y\nEnd\n",
}


FAST_CORNERS["repeated row names"] = (
    "Minimize\n x\nSubject To\n c: x >= 1\n c: x <= 5\n c#1: x + y <= 9\n c: y >= 0.5\nEnd\n")
FAST_CORNERS["gurobi dialect, linear"] = (
    GUROBI_LP.replace(" + [ 2 x[0] * y + 4 y ^2 ] / 2", "").replace(" + [ x[0] ^2 ]", ""))


@needs_scanner
@pytest.mark.parametrize("name", SCANNED)
def test_the_scanner_reads_the_common_dialect_as_python_does(name: str) -> None:
    assert scanned_as_python(FAST_CORNERS[name])


@needs_scanner
@pytest.mark.parametrize("text", NOT_SCANNED.values(), ids=NOT_SCANNED.keys())
def test_the_scanner_leaves_the_rest_to_python(text: str) -> None:
    assert not scanned_as_python(text)
    assert lp_fast.read_python(text) is not None
    assert same_as_full(text)


def _bits(x: float) -> bytes:
    return struct.pack("<d", x)


@needs_scanner
@given(st.floats(min_value=0, allow_nan=False, allow_infinity=False),
       st.sampled_from(["{!r}", "{:.17g}", "{:.15g}", "{:.6f}", "{:.20e}", "{:.3E}"]))
@settings(max_examples=400, deadline=None)
def test_scanned_numbers_are_floats_value_bit_for_bit(x: float, form: str) -> None:
    token = form.format(x)
    if token.startswith("inf"):
        return
    scanned = lp_fast._scan(f"Minimize\n {token} x\nSubject To\n c: x >= {token}\nEnd\n")
    if len(token) >= 64 or float(token) == float("inf"):
        assert scanned is None  # long tokens go to the Python path; an infinite cost is an error
        return
    assert scanned is not None, token
    obj, lows = scanned[6], scanned[8]
    assert _bits(obj[0]) == _bits(float(token)) and _bits(lows[0]) == _bits(float(token)), token


@needs_scanner
@given(st.text("0123456789.eE+-", min_size=1, max_size=30))
@settings(max_examples=400, deadline=None)
def test_scanned_digit_strings_read_as_float_or_not_at_all(token: str) -> None:
    scanned = lp_fast._scan(f"Minimize\n x\nSubject To\n c: x >= {token}\nEnd\n")
    try:
        want: float | None = float(token)
    except ValueError:
        want = None
    if scanned is None:
        return  # refused: the Python path decides
    assert want is not None and want != float("inf"), token  # a row's lower end at +inf: no
    lower = bounds_from(">=", want, flipped=False)[0]  # -1e30 and below: -inf
    assert _bits(scanned[8][0]) == _bits(lower + 0.0), token  # -0.0 is kept as 0.0


_VALUES = ["0", "1", "2.5", "-3", "1e30", "-1e30", "1e31", "-inf", "inf", "+inf", "-Infinity",
           "0.1", "7", "-0", "1E-3", "5.", "- 4", "+ 2", "12345678901234567"]
_NAMES = ["x", "y[1]", "z#2", "w_3", "X", "b.1"]


def random_lp(rng: random.Random) -> str:
    """A file of the common dialect's grammar with random parts: signs, numbers, repeated
    terms and row names, every bound form, sections in any order after the rows."""
    def value() -> str:
        return rng.choice(_VALUES)

    def terms(names: list[str], label: str) -> str:
        return label + " ".join(
            f"{rng.choice(['+', '-', ''] if i == 0 else ['+', '-'])} "
            f"{rng.choice(['', '3', '1.5', '0', '0.25'])} {v}" for i, v in enumerate(names))

    vs = rng.sample(_NAMES, rng.randint(1, len(_NAMES)))
    lines = [rng.choice(["Minimize", "Maximize", "MIN", "maximise"]),
             "  " + terms(vs, rng.choice(["", "obj: "])), rng.choice(["Subject To", "st"])]
    for r in range(rng.randint(0, 4)):
        row = [rng.choice(vs) for _ in range(rng.randint(0, 3))]
        lines.append(" " + terms(row, f"r{r % 3}: ") + f" {rng.choice(list(SENSES))} {value()}")
    for section in rng.sample(["Bounds", "Generals", "Binaries"], rng.randint(0, 3)):
        lines.append(section)
        for v in rng.sample(vs, rng.randint(0, len(vs))):
            lines.append(rng.choice([
                f" {v} <= {value()}", f" {v} >= {value()}", f" {v} = {value()}", f" {v} free",
                f" {value()} <= {v} <= {value()}", f" {value()} >= {v}"])
                if section == "Bounds" else f" {v}")
    return "\n".join([*lines, "End", ""])


@given(st.randoms(use_true_random=False))
@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
def test_random_files_of_the_dialect_read_alike_on_every_path(rng: random.Random) -> None:
    same_as_full(random_lp(rng))
