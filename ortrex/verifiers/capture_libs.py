"""Capture at solve for the modelling libraries beyond gurobipy and highspy: PuLP, Pyomo,
OR-Tools' linear solver and COPT. Each solve is hooked inside the sandbox; the model goes out
through the library's own MPS export before the solve runs, the program's own optimum after
it (informational: the parent solves the model itself). A solve that reaches gurobipy or
highspy underneath (PuLP's or Pyomo's HiGHS and Gurobi interfaces) is captured once, here."""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Callable
from typing import Any

Emit = Callable[[bytes], None]
Solved = Callable[[float, float], None]
Refused = Callable[[str], None]  # a library's size-limited licence refused a solve
LIBRARIES = ("pulp", "pyomo", "ortools", "coptpy")


def _read(path: str) -> bytes:
    """The bytes of a file the library wrote, removed after."""
    try:
        with open(path, "rb") as f:
            return f.read()
    finally:
        with contextlib.suppress(OSError):
            os.unlink(path)


def _finite(bound: Any, value: float) -> float:
    """``bound`` where it is a finite number, else ``value`` (no bound known)."""
    try:
        b = float(bound)
    except (TypeError, ValueError):
        return value
    return b if math.isfinite(b) else value


def _objective_constant(mps: bytes, constant: float) -> bytes:
    """PuLP's MPS with its objective's constant, which its writer leaves out: the objective
    row's right-hand side is minus the constant (the convention Gurobi and HiGHS read)."""
    if not constant:
        return mps
    lines = mps.decode().split("\n")
    objective = next(ln.split()[1] for ln in lines if ln.split()[:1] == ["N"])
    entry = f"    RHS       {objective}  {-constant!r}"
    if "RHS" in lines:
        lines.insert(lines.index("RHS") + 1, entry)
    else:
        at = lines.index("BOUNDS") if "BOUNDS" in lines else lines.index("ENDATA")
        lines[at:at] = ["RHS", entry]
    return "\n".join(lines).encode()


def _wrap(orig: Callable[..., Any], export: Callable[[Any], bytes | None],
          own: Callable[[Any, Any], tuple[float, float] | None], emit: Emit, solved: Solved,
          depth: list[int], licence: Callable[[BaseException], bool] = lambda _e: False,
          refused: Refused = lambda _n: None, name: str = "") -> Callable[..., Any]:
    """A solve ``orig(subject, ...)`` (a method's ``self``, or the model a solver's bound
    ``solve`` takes) that emits the subject's model first and the program's own optimum after;
    solves nested in it (the library calling gurobipy or highspy) are not captured again."""

    def hooked(subject: Any, *args: Any, **kwargs: Any) -> Any:
        outer = depth[0] == 0
        if outer:
            try:
                text = export(subject)
            except Exception:  # a model the library cannot write is the program's problem
                text = None
            if text:
                emit(text)
        depth[0] += 1
        try:
            result = orig(subject, *args, **kwargs)
        except Exception as exc:
            if outer and licence(exc):
                refused(name)
            raise
        finally:
            depth[0] -= 1
        if outer:
            try:
                got = own(subject, result)
            except Exception:
                got = None
            if got is not None:
                solved(*got)
        return result

    return hooked


def _pulp(tmp: str, emit: Emit, solved: Solved, depth: list[int], _refused: Refused
          ) -> tuple[type, ...]:
    import pulp

    def export(prob: Any) -> bytes:
        path = f"{tmp}/.ortrex-pulp-{os.urandom(8).hex()}.mps"
        # The objective's sense as an OBJSENSE section: PuLP's default is a comment.
        prob.writeMPS(path, with_objsense=True)
        constant = float(getattr(prob.objective, "constant", 0.0) or 0.0)
        return _objective_constant(_read(path), constant)

    def own(prob: Any, _result: Any) -> tuple[float, float] | None:
        if prob.status != pulp.LpStatusOptimal:
            return None
        v = float(pulp.value(prob.objective) or 0.0)
        return v, v

    pulp.LpProblem.solve = _wrap(pulp.LpProblem.solve, export, own, emit, solved, depth)
    return (pulp.LpProblem,)


def _pyomo(tmp: str, emit: Emit, solved: Solved, depth: list[int], _refused: Refused
           ) -> tuple[type, ...]:
    from pyomo.environ import Objective, value
    from pyomo.opt import TerminationCondition
    from pyomo.opt.base import solvers

    def export(model: Any) -> bytes:
        path = f"{tmp}/.ortrex-pyomo-{os.urandom(8).hex()}.mps"
        model.write(path, format="mps", io_options={"symbolic_solver_labels": True})
        return _read(path)

    def own(model: Any, results: Any) -> tuple[float, float] | None:
        if results.solver.termination_condition != TerminationCondition.optimal:
            return None
        objective = next(iter(model.component_data_objects(Objective, active=True)))
        v = float(value(objective))
        return v, v

    factory_call = solvers.SolverFactoryClass.__call__

    # Every solver Pyomo hands out (legacy and APPSI ones alike) comes from its
    # SolverFactory: that solver's ``solve(model)`` is hooked.
    def make(self: Any, *args: Any, **kwargs: Any) -> Any:
        solver = factory_call(self, *args, **kwargs)
        with contextlib.suppress(Exception):
            solver.solve = _wrap(solver.solve, export, own, emit, solved, depth)
        return solver

    solvers.SolverFactoryClass.__call__ = make
    from pyomo.core.base.PyomoModel import ConcreteModel

    return (ConcreteModel,)


def _ortools(tmp: str, emit: Emit, solved: Solved, depth: list[int], _refused: Refused
             ) -> tuple[type, ...]:
    from ortools.linear_solver import pywraplp

    def export(solver: Any) -> bytes:
        return str(solver.ExportModelAsMpsFormat(False, False)).encode()

    def own(solver: Any, status: Any) -> tuple[float, float] | None:
        if status != pywraplp.Solver.OPTIMAL:
            return None
        v = float(solver.Objective().Value())
        return v, _finite(solver.Objective().BestBound(), v)

    pywraplp.Solver.Solve = _wrap(pywraplp.Solver.Solve, export, own, emit, solved, depth)
    return (pywraplp.Solver,)


def _copt(tmp: str, emit: Emit, solved: Solved, depth: list[int], refused: Refused
          ) -> tuple[type, ...]:
    import coptpy

    def export(model: Any) -> bytes:
        path = f"{tmp}/.ortrex-copt-{os.urandom(8).hex()}.mps"
        model.write(path)
        return _read(path)

    def own(model: Any, _result: Any) -> tuple[float, float] | None:
        if model.status != coptpy.COPT.OPTIMAL:
            return None
        v = float(model.objval)
        bound = v
        with contextlib.suppress(Exception):
            if model.getAttr("IsMIP"):
                bound = _finite(model.getAttr("BestBnd"), v)
        return v, bound

    def licence(exc: BaseException) -> bool:  # the pip build's size limit
        return isinstance(exc, coptpy.CoptError) and "LICENSE" in str(exc)

    for name in ("solve", "solveLP"):
        setattr(coptpy.Model, name, _wrap(getattr(coptpy.Model, name), export, own, emit,
                                          solved, depth, licence, refused, "COPT"))
    return (coptpy.Model,)


_HOOKS = {"pulp": _pulp, "pyomo": _pyomo, "ortools": _ortools, "coptpy": _copt}


def install(code: str, tmp: str, emit: Emit, solved: Solved, depth: list[int],
            refused: Refused) -> tuple[type, ...]:
    """Hook the solves of every library the program names (one it does not name costs no
    import; a missing one is the program's own import error); the libraries' real model
    classes, which are not look-alikes of a solver model."""
    classes: list[type] = []
    for name, hook in _HOOKS.items():
        if name in code:
            with contextlib.suppress(Exception):
                classes.extend(hook(tmp, emit, solved, depth, refused))
    return tuple(classes)
