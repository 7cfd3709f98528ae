"""Generated gurobipy and highspy programs, run in the sandbox, rebuild the instance exactly."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import loads
from ortrex.ir.semantic import SemanticModel
from ortrex.render.data import data_json, dumps_json, literal, number, python_name
from ortrex.render.program import (
    OBJECTIVE_TAG,
    Program,
    gurobipy_program,
    highspy_program,
    parse_output,
)
from ortrex.render.program_labels import labels_program, labels_style_fits
from ortrex.render.program_matrix import matrix_program, matrix_style_fits
from ortrex.verifiers.equivalence.check import check_equivalence
from ortrex.verifiers.sandbox.server import Job, Sandbox
from ortrex.verifiers.solvers import SolveResult, objectives_agree, solve_gurobi, solve_highs


def reference(instance: CanonicalModel) -> tuple[SolveResult, bool]:
    """The instance's optimum (HiGHS; Gurobi where HiGHS cannot take quadratic rows or a
    MIQP) and whether a highspy program can teach it."""
    ref = solve_highs(instance)
    if ref.status.value == "unsupported":
        return solve_gurobi(instance), False
    return ref, True


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_programs_rebuild_the_instance(family: str, sandbox: Sandbox) -> None:
    sm = REGISTRY[family].sample(np.random.default_rng(11), "small")
    instance = sm.ground()
    ref, highs = reference(instance)
    assert ref.status.value == "optimal"
    for make in (gurobipy_program, highspy_program) if highs else (gurobipy_program,):
        for mode in ("literal", "json"):
            prog = make(sm, mode)
            files = {"data.json": dumps_json(data_json(sm))} if mode == "json" else {}
            r = sandbox.run(Job(prog.code, files))
            assert r.status == "ok", (prog.solver, mode, r.stderr[-2000:])
            status, objective = parse_output(r.stdout)
            assert status == "optimal" and objective is not None
            assert objectives_agree(objective, ref.objective), (prog.solver, mode)
            assert r.captured is not None
            captured = loads(r.captured.decode(), "mps")
            verdict = check_equivalence(instance, captured)
            assert verdict.verdict == "equivalent", (prog.solver, mode, verdict.reason)


LABELLED = [f for f in sorted(REGISTRY)
            if labels_style_fits(REGISTRY[f].sample(np.random.default_rng(11), "small"))]


def test_the_label_style_covers_most_families() -> None:
    assert len(LABELLED) >= 15, LABELLED


def assert_rebuilds(sm: SemanticModel, make: Callable[[SemanticModel, str], Program],
                    sandbox: Sandbox) -> None:
    """Both data modes of a program style build the instance, solve it to the optimum, set no
    solver tolerance and print the decisions by the elements' names."""
    instance = sm.ground()
    ref, _ = reference(instance)
    names = {e for s in sm.sets for e in s.elements}
    for mode in ("literal", "json"):
        prog = make(sm, mode)
        assert "MIPGap" not in prog.code
        files = {"data.json": dumps_json(data_json(sm))} if mode == "json" else {}
        r = sandbox.run(Job(prog.code, files))
        assert r.status == "ok", (mode, r.stderr[-2000:])
        status, objective = parse_output(r.stdout)
        assert status == "optimal" and objectives_agree(objective, ref.objective), mode
        assert r.captured is not None
        verdict = check_equivalence(instance, loads(r.captured.decode(), "mps"))
        assert verdict.verdict == "equivalent", (mode, verdict.reason)
        printed = [ln for ln in r.stdout.splitlines()[1:] if " = " in ln]
        assert printed and all(set(ln.split("[", 1)[1].split("]")[0].split(",")) <= names
                               for ln in printed if "[" in ln), printed


@pytest.mark.parametrize("family", LABELLED)
def test_label_style_programs_rebuild_the_instance(family: str, sandbox: Sandbox) -> None:
    """Name-keyed gurobipy: addVars over the sets, x.sum / x.prod, quicksum over names."""
    sm = REGISTRY[family].sample(np.random.default_rng(11), "small")
    assert "addVars" in labels_program(sm).code
    assert_rebuilds(sm, labels_program, sandbox)


MATRIX = [f for f in sorted(REGISTRY)
          if matrix_style_fits(REGISTRY[f].sample(np.random.default_rng(11), "small"))]


def test_the_matrix_style_covers_the_grid_families() -> None:
    assert {"transportation", "assignment", "diet", "blending", "knapsack_multidim",
            "set_cover", "facility_location"} <= set(MATRIX), MATRIX
    # Filtered families and arcs held as names are not for it.
    assert not {"tsp_mtz", "min_cost_flow", "production_planning"} & set(MATRIX)


@pytest.mark.parametrize("family", MATRIX)
def test_matrix_style_programs_rebuild_the_instance(family: str, sandbox: Sandbox) -> None:
    """numpy data, one addMVar per family and one addConstr per rule."""
    sm = REGISTRY[family].sample(np.random.default_rng(11), "small")
    code = matrix_program(sm).code
    assert "addMVar" in code and code.count("model.addConstr(") == len(sm.constraints)
    assert_rebuilds(sm, matrix_program, sandbox)


def test_a_literal_program_does_not_read_files(sandbox: Sandbox) -> None:
    sm = REGISTRY["transportation"].sample(np.random.default_rng(1), "small")
    assert "open(" not in gurobipy_program(sm).code
    r = sandbox.run(Job(gurobipy_program(sm, "json").code))  # data.json missing
    assert r.status == "error" and "FileNotFoundError" in r.stderr


def test_parse_output() -> None:
    assert parse_output(f"noise\n{OBJECTIVE_TAG}: 12.5\n") == ("optimal", 12.5)
    assert parse_output("STATUS: 3\n") == ("3", None)
    assert parse_output("STATUS: Infeasible\n") == ("infeasible", None)
    assert parse_output("hello") == ("no_output", None)
    assert parse_output(f"{OBJECTIVE_TAG}: abc") == ("bad_output", None)


def test_numbers_and_literals_read_back_exactly() -> None:
    for v in (0.1, 1 / 3, 12.0, -7.25, 1e-5, 123456789.0, 2.5e17):
        assert float(number(v)) == v
    assert number(3.0) == "3" and number(2.0, integer=True) == "2"
    assert literal([[1.0, 2.5], [3.0, 0.1]]) == "[[1, 2.5], [3, 0.1]]"
    assert eval(literal([float("inf")])) == [float("inf")]
    assert python_name("class") == "class_" and python_name("2x") == "_2x"
