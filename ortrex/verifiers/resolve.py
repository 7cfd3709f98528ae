"""The parent's own verdict on a model a sandboxed program submitted: read it back, refuse a
model whose optimum no data decides, and solve it here with HiGHS / Gurobi.

A program's printed line and the solve state its process reported are never the score; this
is. Models ortrex's reader covers are solved from the canonical IR (Gurobi to proven
optimality, HiGHS where Gurobi's licence stops); models with general or indicator constraints
(which the canonical IR does not hold) are read by Gurobi itself.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import ModelFileError, UnsupportedModelError, loads

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


def _effective_bounds(model: CanonicalModel) -> tuple[np.ndarray, np.ndarray]:
    """Variable bounds tightened by every one-variable row (``x == 5`` is a bound too)."""
    lb, ub = model.lb.copy(), model.ub.copy()
    A = model.A
    rows = np.flatnonzero(np.diff(A.indptr) == 1)
    k = A.indptr[rows]
    j, a = A.indices[k], A.data[k]
    lo, hi = model.row_lower[rows] / a, model.row_upper[rows] / a
    lo, hi = np.where(a < 0, hi, lo), np.where(a < 0, lo, hi)
    np.maximum.at(lb, j, lo)
    np.minimum.at(ub, j, hi)
    return lb, ub


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
    lb, ub = _effective_bounds(model)
    if _fixed(lb[used], ub[used]):
        return ("every variable of the objective is fixed by its bounds: the optimum is a "
                "constant typed into the model")
    return None


def _gurobi_read(mps: bytes, time_limit: float) -> Resolved:
    """Solve an MPS file Gurobi reads and ortrex's IR does not hold, in a child process: a
    parser fed hostile bytes cannot take the parent down."""
    try:
        r = subprocess.run(
            [sys.executable, "-c", "from ortrex.verifiers.resolve import gurobi_child; "
             "gurobi_child()", str(time_limit)], input=mps, capture_output=True,
            timeout=time_limit + 60)
    except subprocess.TimeoutExpired:
        return Resolved("time_limit", None, "gurobi", None)
    try:
        out = json.loads(r.stdout)
    except ValueError:
        out = {"error": f"captured model: Gurobi's reader failed (exit {r.returncode})"}
    if "error" in out:
        raise CaptureError(str(out["error"])[:300])
    return Resolved(**out)


def gurobi_child() -> None:
    """Entry of the child: MPS bytes on stdin, the time limit in argv, JSON on stdout."""
    mps, time_limit = sys.stdin.buffer.read(), float(sys.argv[1])
    try:
        out: dict[str, object] = asdict(_gurobi_solve(mps, time_limit))
    except CaptureError as exc:
        out = {"error": str(exc)}
    sys.stdout.write(json.dumps(out))


def _gurobi_solve(mps: bytes, time_limit: float) -> Resolved:
    import gurobipy as gp
    from gurobipy import GRB

    from ortrex.verifiers.solvers import MIP_GAP

    fd, path = tempfile.mkstemp(suffix=".mps")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(mps)
        with gp.Env(params={"OutputFlag": 0, "Threads": 1}) as env:
            try:
                m = gp.read(path, env)
            except gp.GurobiError as exc:
                raise CaptureError(f"captured model unreadable: {exc}") from None
            with m:
                trivial = None if m.NumGenConstrs + m.NumSOS + m.NumQConstrs + m.NumQNZs else \
                    trivial_reason(_linear_part(m))
                m.Params.TimeLimit = time_limit
                m.Params.MIPGap = MIP_GAP
                try:
                    m.optimize()
                except gp.GurobiError as exc:  # the size-limited licence, mostly
                    return Resolved("error", None, "gurobi", trivial) if "size-limited" \
                        not in str(exc) else Resolved("skipped_license", None, "gurobi",
                                                      trivial)
                names = {GRB.OPTIMAL: "optimal", GRB.INFEASIBLE: "infeasible",
                         GRB.UNBOUNDED: "unbounded", GRB.INF_OR_UNBD: "infeasible_or_unbounded",
                         GRB.TIME_LIMIT: "time_limit"}
                status = names.get(m.Status, f"gurobi_{m.Status}")
                obj = float(m.ObjVal) if status == "optimal" and m.SolCount else None
                return Resolved(status, obj, "gurobi", trivial)
    finally:
        os.unlink(path)


def _linear_part(m: object) -> CanonicalModel:
    """The variables, bounds, objective and linear rows of a gurobipy model."""
    import scipy.sparse as sp

    vs, cs = m.getVars(), m.getConstrs()  # type: ignore[attr-defined]
    A = m.getA() if cs else sp.csr_matrix((0, len(vs)))  # type: ignore[attr-defined]
    rhs = np.array([c.RHS for c in cs], dtype=float)
    sense = [c.Sense for c in cs]
    lower = np.where(np.array([s in ">=" for s in sense], dtype=bool), rhs, -np.inf)
    upper = np.where(np.array([s in "<=" for s in sense], dtype=bool), rhs, np.inf)
    return CanonicalModel(var_names=[f"x{k}" for k in range(len(vs))],
                          lb=[v.LB for v in vs], ub=[v.UB for v in vs],
                          obj=[v.Obj for v in vs], A=A, row_lower=lower, row_upper=upper,
                          _validate=False)


def resolve_capture(mps: bytes, time_limit: float = 60.0) -> Resolved:
    """Read a submitted MPS model and solve it here; ``CaptureError`` when it is unreadable."""
    from ortrex.verifiers.solvers import SolveStatus, solve

    text = mps.decode("utf-8", "replace")
    try:
        model = loads(text, "mps", "captured model")
    except (ModelFileError, UnsupportedModelError) as exc:
        if any(word in str(exc) for word in _GUROBI_ONLY):
            return _gurobi_read(mps, time_limit)
        raise CaptureError(f"captured model unreadable: {exc}"[:300]) from None
    except ValueError as exc:
        raise CaptureError(f"captured model invalid: {exc}"[:300]) from None
    trivial = trivial_reason(model)
    res = solve(model, "gurobi", time_limit=time_limit, threads=1)
    if res.status in (SolveStatus.SKIPPED_LICENSE, SolveStatus.ERROR, SolveStatus.UNSUPPORTED):
        res = solve(model, "highs", time_limit=time_limit, threads=1)
    return Resolved(res.status.value, res.objective, res.solver, trivial)
