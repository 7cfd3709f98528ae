"""Helpers the family test files share: a draw's optimum read back per variable family, the
check that its answer is told in the statement's own names, the large band's draws and the
gates' verdicts on sampled draws."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.mutate import family_values
from ortrex.engine.generate.pipeline import Outcome, task_seed, verify
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.render.documents import decisions, own_names, solution_from
from ortrex.verifiers.solvers import SolveResult, SolveStatus, solve_highs


def solved(sm: SemanticModel, solver: Callable[..., SolveResult] = solve_highs
           ) -> tuple[dict[str, np.ndarray], float]:
    """The optimum of ``sm`` (HiGHS unless told), per variable family, and its objective."""
    inst = sm.ground()
    res = solver(inst, keep_solution=True)
    assert res.status is SolveStatus.OPTIMAL and res.x is not None and res.objective is not None
    return family_values(sm, list(inst.var_names), res.x), float(res.objective)


def values(sm: SemanticModel, name: str) -> np.ndarray:
    """Parameter ``name`` of ``sm`` as floats."""
    return np.asarray(sm.param_map[name].values, dtype=float)


def assert_answer_in_own_names(sm: SemanticModel,
                               solver: Callable[..., SolveResult] = solve_highs) -> None:
    """Every line of the answer's decisions names an element of the draw's own sets."""
    inst = sm.ground()
    res = solver(inst, keep_solution=True)
    assert res.objective is not None
    sol = solution_from(own_names(sm, inst), res.x, res.objective, limit=10**6)
    said = decisions(sm, sol)
    names = {e for s in sm.sets for e in s.elements}
    assert said and all(any(n in line for n in names) for line in said), said


def large_band(family: str, seed: int, n: int = 4) -> list[CanonicalModel]:
    """``n`` draws of ``family``'s large band, each within the size-limited Gurobi licence."""
    models = [REGISTRY[family].sample(task_seed(seed, k), "large").ground() for k in range(n)]
    for m in models:
        assert m.num_vars <= 2000 and m.num_rows <= 2000, (family, m.num_vars, m.num_rows)
    return models


def gate_outcomes(family: str, size: str, seed: int, n: int = 6,
                  allowed: tuple[str, ...] = ("trivial",), **kw: Any) -> list[Outcome]:
    """The generation gates' verdicts on ``n`` draws; any rejection is one of ``allowed``."""
    outs = []
    for k in range(n):
        sm = REGISTRY[family].sample(task_seed(seed, k), size)
        out = verify(sm.ground(), sm, **kw)
        assert out.accepted or out.rejection.reason in allowed, (family, size, out.rejection)
        outs.append(out)
    return outs


def with_param(sm: SemanticModel, name: str, values: np.ndarray) -> SemanticModel:
    """``sm`` with parameter ``name``'s values replaced (a hand-made child)."""
    return replace(sm, params=tuple(replace(p, values=values) if p.name == name else p
                                    for p in sm.params))


def rejection_reason(sm: SemanticModel) -> str | None:
    """Why the generation gates reject ``sm`` (None: accepted)."""
    out = verify(sm.ground(), sm)
    return out.rejection.reason if out.rejection else None
