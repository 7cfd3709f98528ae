"""Deliberately flawed answers, one per mistake class: the verified semantic model changed in
exactly one way (or the right program broken in one way), rendered as a gurobipy program the
way a served model would answer. Used by the flywheel tests' OpenAI-compatible server."""

from __future__ import annotations

import signal
import subprocess
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

import pytest

from ortrex.ir.expr import Cond, P, V, total
from ortrex.ir.semantic import ConstraintFamily, ObjectiveSpec, SemanticModel
from ortrex.render.program import gurobipy_program
from ortrex.render.program_labels import labels_program, labels_style_fits


def program(sm: SemanticModel, data_mode: str = "literal") -> str:
    """A name-keyed program where it fits (the names a served model uses), else loops."""
    if labels_style_fits(sm):
        return labels_program(sm, data_mode).code
    return gurobipy_program(sm, data_mode).code


def answer(code: str, think: str = "Let me model this.") -> str:
    """A served model's reply: reasoning, then one fenced block."""
    return f"<think>{think}</think>\nHere is the model.\n```python\n{code.rstrip()}\n```\n"


def _con(sm: SemanticModel, name: str) -> ConstraintFamily:
    return next(c for c in sm.constraints if c.name == name)


def _swap_con(sm: SemanticModel, name: str, new: ConstraintFamily | None) -> SemanticModel:
    cons = tuple(new if c.name == name else c for c in sm.constraints if
                 c.name != name or new is not None)
    return replace(sm, constraints=cons)


def _var(sm: SemanticModel, name: str, **changes: object) -> SemanticModel:
    return replace(sm, variables=tuple(replace(v, **changes) if v.name == name else v
                                       for v in sm.variables))


def _scaled(sm: SemanticModel, param: str, factor: float) -> SemanticModel:
    return replace(sm, params=tuple(replace(p, values=p.values * factor) if p.name == param
                                    else p for p in sm.params))


def _reversed(sm: SemanticModel, param: str) -> SemanticModel:
    return replace(sm, params=tuple(replace(p, values=p.values[::-1].copy()) if p.name == param
                                    else p for p in sm.params))


# Semantic flaws: (family the test corpus draws, change, expected (mistake, family)).
SEMANTIC: dict[str, tuple[str, Callable[[SemanticModel], SemanticModel], str | None]] = {
    "domain": ("transportation", lambda sm: _var(sm, "x", vtype="I"), "x"),
    "bounds": ("blending", lambda sm: _var(sm, "x", ub=float("inf")), "x"),
    "objective_sense": ("transportation", lambda sm: replace(
        sm, objective=replace(sm.objective, sense="max")), None),
    "constraint_sense": ("transportation", lambda sm: _swap_con(
        sm, "supply_limit", replace(_con(sm, "supply_limit"), sense="=")), "supply_limit"),
    "missing_constraint": ("production_planning",
                           lambda sm: _swap_con(sm, "capacity_limit", None), "capacity_limit"),
    "units": ("transportation", lambda sm: _scaled(sm, "cost", 100.0), "x"),
    "objective_term": ("production_planning", lambda sm: replace(sm, objective=ObjectiveSpec(
        "min", total("p", "P", total("t", "T", P("make_cost", "p", "t") * V("x", "p", "t"))),
        sm.objective.description)), "s"),
    "ratio": ("blending", lambda sm: _swap_con(sm, "at_least", replace(
        _con(sm, "at_least"), rhs=P("low", "a") * P("amount"))), "at_least"),
    "index_range": ("production_planning", lambda sm: _swap_con(
        sm, "capacity_limit", replace(_con(sm, "capacity_limit"),
                                      where=(Cond("not_last", "t"),))), "capacity_limit"),
    "extra_constraint": ("transportation", lambda sm: replace(sm, constraints=(
        *sm.constraints, ConstraintFamily(
            "total_cap", "Ship no more than the total supply.", (),
            total("s", "S", total("d", "D", V("x", "s", "d"))), "<=", 10_000.0))), None),
    # Supplies read off the wrong rows (in reverse order): the statement's own numbers in the
    # wrong places, as a model misreading a table does; a scaled supply would be numbers the
    # statement never gives, which grounding rightly calls ungrounded.
    "coefficients": ("transportation", lambda sm: _reversed(sm, "supply"), "supply_limit"),
}

# Program flaws: (family, edit of the right program, expected mistake).
PROGRAM: dict[str, tuple[str, Callable[[str], str]]] = {
    "output_contract": ("blending", lambda code: code.replace("model", "m")),
    "unsafe_data_access": ("blending", lambda code: "try:\n    open('/etc/hostname').read()\n"
                                                    "except OSError:\n    pass\n" + code),
    "gurobi_api": ("blending", lambda code: code.replace(
        "model.optimize()", "model.Params.NoSuchParameter = 1\nmodel.optimize()")),
    "code_error": ("blending", lambda code: code.replace("model.optimize()",
                                                         "1 / 0\nmodel.optimize()")),
}


def flawed_program(sm: SemanticModel, mistake: str) -> str:
    """The code of an answer making ``mistake`` on the problem of ``sm``."""
    if mistake in SEMANTIC:
        return program(SEMANTIC[mistake][1](sm))
    return PROGRAM[mistake][1](program(sm))


def shared_store(factory: pytest.TempPathFactory, name: str,
                 build: Callable[[Path], None]) -> Path:
    """A store built once per test session, whichever xdist worker asks first (the others
    wait on a file lock and reuse it); callers copy it before writing. ``build`` runs the CLI
    in a subprocess: the corpus must not depend on what earlier tests left in the worker."""
    import fcntl
    import os

    base = factory.getbasetemp()
    root = base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base
    db = root / f"{name}.duckdb"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not (root / f"{name}.done").exists():
            db.unlink(missing_ok=True)
            build(db)
            (root / f"{name}.done").write_text("ok")
    return db


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``ortrex ARGS`` through the CLI's entry point in this process (its exit code, stdout and
    stderr): the same code as the subprocess, without two seconds of imports per call."""
    import contextlib
    import io
    import warnings

    from ortrex.cli import main

    out, err = io.StringIO(), io.StringIO()
    saved = (signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM),
             warnings.showwarning)
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main(list(args))
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])
        warnings.showwarning = saved[2]
    return subprocess.CompletedProcess(list(args), code, out.getvalue(), err.getvalue())
