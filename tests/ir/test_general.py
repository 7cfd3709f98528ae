"""Gurobi's general constraints and SOS sets in their exact MIP forms: on random small models
of every kind, the linearised model solved by HiGHS has Gurobi's optimum of the original."""

from __future__ import annotations

import random

import pytest

from ortrex.ir.formats.errors import UnsupportedModelError
from ortrex.ir.formats.general import linearize, read_general
from ortrex.verifiers.solvers import solve

gp = pytest.importorskip("gurobipy")
GRB = gp.GRB
KINDS = ("indicator1", "indicator0", "max", "min", "abs", "and", "or", "sos1", "sos2", "pwl",
         "pwlobj")


def _model(kind: str, rng: random.Random) -> object:
    env = gp.Env(params={"OutputFlag": 0})
    m = gp.Model(env=env)
    n = 4
    x = [m.addVar(lb=rng.choice([-5, 0]), ub=rng.randint(3, 9), name=f"x{i}") for i in range(n)]
    z = [m.addVar(vtype=GRB.BINARY, name=f"z{i}") for i in range(n)]
    r = m.addVar(lb=-20, ub=20, name="r")
    m.addConstr(gp.quicksum(x) <= rng.randint(5, 15), name="cap")
    if kind.startswith("indicator"):
        val = kind.endswith("1")
        for i in range(n):
            sense = rng.choice(["<", ">", "="])
            m.addGenConstrIndicator(z[i], val, x[i] - 0.5 * x[(i + 1) % n], sense,
                                    float(rng.randint(-2, 3)))
        m.addConstr(gp.quicksum(z) >= 2)
        obj = gp.quicksum(rng.randint(-3, 4) * v for v in x) + gp.quicksum(z)
    elif kind in ("max", "min"):
        add = m.addGenConstrMax if kind == "max" else m.addGenConstrMin
        add(r, x[:3], constant=float(rng.randint(-2, 2)))
        obj = (r if kind == "min" else -r) + gp.quicksum(rng.randint(-2, 2) * v for v in x)
    elif kind == "abs":
        m.addGenConstrAbs(r, x[0])
        obj = r + rng.choice([-1, 1]) * 2 * x[0] + x[1]
    elif kind in ("and", "or"):
        add = m.addGenConstrAnd if kind == "and" else m.addGenConstrOr
        y = m.addVar(vtype=GRB.BINARY, name="y")
        add(y, z[:3])
        obj = rng.choice([-3, 3]) * y + gp.quicksum(rng.randint(-2, 2) * v for v in z)
    elif kind in ("pwl", "pwlobj"):
        # a nonconvex curve whose points do not reach the bounds of x[0] (Gurobi extends it)
        xs = sorted(rng.sample(range(-3, 6), 4))
        ys = [float(rng.randint(-4, 4)) for _ in xs]
        if kind == "pwl":
            m.addGenConstrPWL(x[0], r, xs, ys)
            obj = rng.choice([-1, 1]) * r + x[1]
        else:
            m.setPWLObj(x[0], xs, ys)
            obj = None
    else:
        m.addSOS(GRB.SOS_TYPE1 if kind == "sos1" else GRB.SOS_TYPE2, x, [1, 2, 3, 4])
        obj = gp.quicksum(rng.randint(1, 5) * v for v in x)
    if obj is None:  # the piecewise-linear term beside linear costs of the others
        for v in x[1:]:
            v.Obj = rng.randint(-2, 2)
        m.ModelSense = rng.choice([GRB.MINIMIZE, GRB.MAXIMIZE])
    else:
        m.setObjective(obj, rng.choice([GRB.MINIMIZE, GRB.MAXIMIZE]))
    return m


@pytest.mark.parametrize("kind", KINDS)
def test_the_linear_form_keeps_the_optimum(kind: str, tmp_path: object) -> None:
    for seed in range(6):
        m = _model(kind, random.Random(seed))
        m.optimize()  # type: ignore[attr-defined]
        assert m.Status == GRB.OPTIMAL  # type: ignore[attr-defined]
        want = m.ObjVal  # type: ignore[attr-defined]
        path = f"{tmp_path}/{kind}{seed}.mps"
        m.write(path)  # type: ignore[attr-defined]
        with open(path, "rb") as f:
            model = read_general(f.read())
        assert model.stats().n_rows > 1
        for solver in ("highs", "gurobi"):
            got = solve(model, solver)
            assert got.objective == pytest.approx(want, abs=1e-6), (kind, seed, solver)


def test_what_has_no_exact_linear_form_is_refused() -> None:
    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        x = m.addVar(lb=0, name="x")  # no upper bound: no big-M
        z = m.addVar(vtype=GRB.BINARY, name="z")
        m.addGenConstrIndicator(z, True, x, ">", 3.0)
        m.addGenConstrIndicator(z, False, x, "<", 1.0, name="unbounded")
        m.update()
        with pytest.raises(UnsupportedModelError, match="finite bounds"):
            linearize(m)
    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        x, y = m.addVar(ub=2, name="x"), m.addVar(lb=-9, name="y")
        m.addGenConstrExp(x, y, name="e")  # a nonlinear function
        m.update()
        with pytest.raises(UnsupportedModelError, match="no exact linear form"):
            linearize(m)


def test_lazy_rows_are_rows_and_several_objectives_are_refused(tmp_path: object) -> None:
    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        x = m.addVar(ub=10, vtype=GRB.INTEGER, name="x")
        y = m.addVar(ub=10, name="y")
        m.addConstr(x + y <= 7, name="c").Lazy = 1  # a LAZYCONS row: a row all the same
        m.setObjective(x + 2 * y, GRB.MAXIMIZE)
        m.write(f"{tmp_path}/lazy.mps")
        m.setObjectiveN(x, 1, priority=0)
        m.write(f"{tmp_path}/multi.mps")
    with open(f"{tmp_path}/lazy.mps", "rb") as f:
        assert solve(read_general(f.read()), "highs").objective == pytest.approx(14.0)
    with open(f"{tmp_path}/multi.mps", "rb") as f, \
            pytest.raises(UnsupportedModelError, match="objectives"):
        read_general(f.read())


def test_solve_and_import_lp_read_general_constraints(tmp_path: object) -> None:
    import json

    from tests.conftest import run_cli

    with gp.Env(params={"OutputFlag": 0}) as env, gp.Model(env=env) as m:
        z = m.addVar(vtype=GRB.BINARY, name="z")
        x = m.addVar(ub=10, name="x")
        m.addGenConstrIndicator(z, True, x <= 3)
        m.setObjective(x + 2 * z, GRB.MAXIMIZE)
        for suffix in ("lp", "mps"):
            m.write(f"{tmp_path}/ind.{suffix}")
        free = m.addVar(name="free")  # an indicator on an unbounded variable: no big-M
        m.addGenConstrIndicator(z, False, free <= 3)
        m.write(f"{tmp_path}/free.lp")
    for suffix in ("lp", "mps"):
        r = run_cli("solve", f"{tmp_path}/ind.{suffix}", "--json")
        assert r.returncode == 0 and json.loads(r.stdout)["objective"] == 10.0, r.stderr
    r = run_cli("solve", f"{tmp_path}/free.lp")
    assert r.returncode == 2 and "finite bounds" in r.stderr and "Traceback" not in r.stderr
    db = f"{tmp_path}/s.duckdb"
    r = run_cli("import-lp", f"{tmp_path}/ind.mps", "--db", db)
    assert r.returncode == 0, r.stderr
    rows = run_cli("sql", "SELECT n_bin FROM instances", "--db", db, "--format", "json")
    assert json.loads(rows.stdout) == [{"n_bin": 1}]
