"""Helpers the family test files share: a draw's optimum read back per variable family, and
the check that its answer is told in the statement's own names."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ortrex.engine.generate.mutate import family_values
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
