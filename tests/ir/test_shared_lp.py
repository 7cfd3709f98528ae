"""Every shared reference LP file (394 + 344): exact round trips and HiGHS vs Gurobi objectives."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import gurobipy as gp
import numpy as np
import pytest

from ortrex.ir import CanonicalModel
from ortrex.ir.formats import dumps, from_gurobi, loads, read_model
from ortrex.ir.formats.gurobi import quiet_env
from ortrex.paths import benchmarks_dir
from ortrex.verifiers.solvers import SolveResult, objectives_agree, solve_highs
from tests.conftest import need_shared
from tests.strategies import model_diff, quadratic_rows_last

ROOT = benchmarks_dir()
FILES: list[Path] = (
    sorted((ROOT / "bench4opt" / "lp_code").glob("*.lp"))
    + sorted((ROOT / "bench4opt_feasible" / "lp_code").glob("*.lp"))) if ROOT else []
IDS = [f"{p.parent.parent.name}/{p.name}" for p in FILES]
ENV = None


def env() -> gp.Env:
    global ENV
    if ENV is None:
        ENV = quiet_env()
    return ENV


def test_all_reference_files_are_there() -> None:
    root = need_shared()
    assert len(list((root / "bench4opt" / "lp_code").glob("*.lp"))) == 394
    assert len(list((root / "bench4opt_feasible" / "lp_code").glob("*.lp"))) == 344


@pytest.mark.shared
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_round_trip_and_gurobi_agree(path: Path) -> None:
    m = read_model(path)
    for fmt in ("lp", "mps", "json"):
        back = loads(dumps(m, fmt), fmt)
        assert back == m, (fmt, model_diff(back, m))
    theirs = from_gurobi(gp.read(str(path), env()))
    assert theirs == quadratic_rows_last(m), model_diff(theirs, quadratic_rows_last(m))


@cache
def highs_verdict(content_hash: str, path: str) -> SolveResult:
    return solve_highs(read_model(path))


def truly_unsupported_by_highs(m: CanonicalModel) -> bool:
    """Quadratic constraints, MIQP, or a quadratic objective that is not convex."""
    if m.has_quadratic_rows or (m.has_quadratic_objective and m.is_mip):
        return True
    if not m.has_quadratic_objective:
        return False
    qi, qj, qv = m.qobj
    H = np.zeros((m.num_vars, m.num_vars))
    np.add.at(H, (qi, qj), qv)
    H = H + H.T
    eig = np.linalg.eigvalsh(-H if m.sense.value == "max" else H)
    return bool(eig.min() < -1e-9 * max(1.0, abs(eig).max()))


@pytest.mark.shared
@pytest.mark.parametrize("path", FILES, ids=IDS)
def test_highs_objective_matches_gurobi_on_the_original_file(path: Path) -> None:
    m = read_model(path)
    ours = highs_verdict(m.content_hash, str(path))
    g = gp.read(str(path), env())
    g.optimize()
    if g.Status == gp.GRB.INF_OR_UNBD:
        g.Params.DualReductions = 0
        g.optimize()
    theirs = {gp.GRB.OPTIMAL: "optimal", gp.GRB.INFEASIBLE: "infeasible",
              gp.GRB.UNBOUNDED: "unbounded"}.get(g.Status, f"gurobi status {g.Status}")
    if ours.status == "unsupported":
        assert truly_unsupported_by_highs(m), ours.message
        return
    assert not truly_unsupported_by_highs(m)
    assert ours.status.value == theirs
    if theirs == "optimal":
        assert objectives_agree(ours.objective, g.ObjVal), (ours.objective, g.ObjVal)
