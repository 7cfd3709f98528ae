"""The parent's own verdict on a model a sandboxed program submitted: read it back, refuse a
model whose optimum no data decides, and solve it here with HiGHS / Gurobi.

A program's printed line and the solve state its process reported are never the score; this
is. Models ortrex's reader covers are solved from the canonical IR (Gurobi to proven
optimality, HiGHS where Gurobi's licence stops); models with general or indicator constraints
(which the canonical IR does not hold) are read by Gurobi itself.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, replace

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import ModelFileError, UnsupportedModelError, loads
from ortrex.verifiers.dependence import (
    Solve,
    coverage,
    effective_bounds,
    reliance,
    trivial_at,
    ungrounded,
)
from ortrex.verifiers.grounding import Grounds

_GUROBI_ONLY = ("indicator", "general constraint", "GENCONS", "INDICATORS", "SOS",
                "semi-continuous", "semi-integer", "PWL")


class CaptureError(ValueError):
    """A submitted model that cannot be read (malformed, or in no format we can solve)."""


@dataclass(frozen=True)
class Resolved:
    """The parent's solve of a submitted model."""

    status: str  # optimal | infeasible | unbounded | infeasible_or_unbounded | time_limit | ...
    objective: float | None
    solver: str
    trivial: str | None  # why the model decides nothing (None: it has real structure)
    ungrounded: str | None = None  # which numbers no statement gives the optimum rests on
    coverage: tuple[int, int] | None = None  # (data numbers the optimum uses, data numbers)


def _fixed(lb: np.ndarray, ub: np.ndarray) -> bool:
    finite = np.isfinite(lb) & np.isfinite(ub)
    return bool(np.all(finite) and np.all(ub - lb <= 1e-9 * np.maximum(1.0, np.abs(lb))))


def trivial_reason(model: CanonicalModel) -> str | None:
    """Why a model's optimum is no answer to a problem that has data: it has no variable, or
    its objective is a constant, or every variable of its objective is fixed by its bounds (or
    by one-variable rows): the optimum is a constant typed into the model rather than decided
    by the problem. (A benchmark item whose own reference model is that degenerate cannot tell
    an answer from a guess either; the self-test lists it among the items that never pass.)
    None for a model that decides something."""
    if model.num_vars == 0:
        return "the model has no variable"
    used = np.flatnonzero(model.obj)
    if model.has_quadratic_objective:
        used = np.union1d(used, np.concatenate(model.qobj[:2]).astype(np.int64))
    if used.size == 0:
        return "the objective is a constant: no variable in it"
    lb, ub, _ = effective_bounds(model)
    if _fixed(lb[used], ub[used]):
        return ("every variable of the objective is fixed by its bounds: the optimum is a "
                "constant typed into the model")
    return None


def _gurobi_read(mps: bytes, time_limit: float, grounds: Grounds | None) -> Resolved:
    """Solve and check an MPS file Gurobi reads and ortrex's IR does not hold, in a child
    process (``verifiers.resolve_gurobi``): a parser fed hostile bytes cannot take the parent
    down. The child's time is bounded: its solves and two checks."""
    head = json.dumps({"time_limit": time_limit,
                       "grounds": None if grounds is None else grounds.to_lists()})
    try:
        r = subprocess.run(
            [sys.executable, "-c", "from ortrex.verifiers.resolve_gurobi import child; child()"],
            input=head.encode() + b"\n" + mps, capture_output=True, timeout=4 * time_limit + 60)
    except subprocess.TimeoutExpired:
        return Resolved("time_limit", None, "gurobi", None)
    try:
        out = json.loads(r.stdout)
        if not isinstance(out, dict):
            raise ValueError
    except ValueError:
        out = {"error": f"captured model: Gurobi's reader failed (exit {r.returncode})"}
    if "error" in out:
        raise CaptureError(str(out["error"])[:300])
    return Resolved(str(out.get("status")), out.get("objective"), "gurobi", out.get("trivial"),
                    out.get("ungrounded"))


def resolve_capture(mps: bytes, time_limit: float = 60.0,
                    grounds: Grounds | None = None) -> Resolved:
    """Read a submitted MPS model, solve it here and check that its optimum is decided by the
    problem (``trivial``) and, given the problem's ``grounds``, rests only on numbers the
    problem gives (``ungrounded``). Whatever the bytes are, a model that cannot be read is
    one ``CaptureError``."""
    from ortrex.verifiers.solvers import SolveStatus, solve

    if grounds is not None and not grounds.data.size:
        grounds = None  # a statement with no data grounds nothing, on either solver's path
    text = mps.decode("utf-8", "replace")
    try:
        model = loads(text, "mps", "captured model")
    except (ModelFileError, UnsupportedModelError) as exc:
        if any(word in str(exc) for word in _GUROBI_ONLY):
            return _gurobi_read(mps, time_limit, grounds)
        raise CaptureError(f"captured model unreadable: {exc}"[:300]) from None
    except Exception as exc:  # the reader's own failure on hostile bytes is the capture's
        raise CaptureError(f"captured model invalid: {type(exc).__name__}: {exc}"[:300]) \
            from None
    trivial = trivial_reason(model)
    res = solve(model, "gurobi", time_limit=time_limit, threads=1, keep_solution=True)
    if res.status in (SolveStatus.SKIPPED_LICENSE, SolveStatus.ERROR, SolveStatus.UNSUPPORTED):
        res = solve(model, "highs", time_limit=time_limit, threads=1, keep_solution=True)
    out = Resolved(res.status.value, res.objective, res.solver, trivial)
    if trivial or res.status is not SolveStatus.OPTIMAL or res.objective is None or \
            res.x is None:
        return out

    def again(m: CanonicalModel) -> tuple[str, float | None]:
        r = solve(m, res.solver, time_limit=time_limit, threads=1)
        return r.status.value, r.objective

    verdict = judge(model, res.x, res.objective, grounds, again)
    return replace(out, trivial=verdict.trivial, ungrounded=verdict.ungrounded,
                   coverage=verdict.coverage)


@dataclass(frozen=True)
class Judged:
    """Why an optimum is no answer to the problem: set by one number, or resting on numbers
    the problem never gives (None, None: it is an answer)."""

    trivial: str | None = None
    ungrounded: str | None = None
    coverage: tuple[int, int] | None = None  # (data numbers the optimum uses, data numbers)


def judge(model: CanonicalModel, x: np.ndarray, objective: float, grounds: Grounds | None,
          solve: Solve) -> Judged:
    """The two checks of ``verifiers.dependence`` on a solved model."""
    trivial = trivial_reason(model) or trivial_at(model, x, objective, solve, grounds)
    if trivial or grounds is None or not grounds.data.size:
        return Judged(trivial)  # a statement with no data grounds nothing: no check
    cov = coverage(model, grounds)
    if cov[1] >= 2 and cov[0] == 0:
        return Judged(None, f"the model uses none of the {cov[1]} numbers the problem gives: "
                      "its optimum is not computed from the problem's data", cov)
    loose, moved = ungrounded(model, grounds, x, objective, solve)
    if moved is False:
        return Judged(None, reliance(model, grounds, x, objective, solve), cov)
    if moved is None:
        return Judged(None, f"numbers the statement never gives ({loose.describe(model)}) "
                      "could not be shown not to set the optimum within the time limit", cov)
    return Judged(None, "the optimum rests on numbers the statement never gives: "
                  f"{loose.describe(model)}", cov)
