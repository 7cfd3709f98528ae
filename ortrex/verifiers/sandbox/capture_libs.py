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


def _first(args: tuple[Any, ...], _kwargs: dict[str, Any]) -> Any:
    return args[0] if args else None


def _wrap(orig: Callable[..., Any], export: Callable[[Any], bytes | None],
          own: Callable[[Any, Any], tuple[float, float] | None], emit: Emit, solved: Solved,
          depth: list[int], licence: Callable[[BaseException], bool] = lambda _e: False,
          refused: Refused = lambda _n: None, name: str = "",
          subject: Callable[[tuple[Any, ...], dict[str, Any]], Any] = _first
          ) -> Callable[..., Any]:
    """A solve ``orig(*args)`` whose model (``subject`` of its arguments: a method's
    ``self`` by default) is emitted first and the program's own optimum after; the call itself
    goes through exactly as the program made it. Solves nested in it (the library calling
    gurobipy or highspy) are not captured again."""

    def hooked(*args: Any, **kwargs: Any) -> Any:
        outer = depth[0] == 0
        model = None
        if outer:
            try:
                model = subject(args, kwargs)
                text = export(model) if model is not None else None
            except Exception:  # a model the library cannot write is the program's problem
                text = None
            if text:
                emit(text)
        depth[0] += 1
        try:
            result = orig(*args, **kwargs)
        except Exception as exc:
            if outer and licence(exc):
                refused(name)
            raise
        finally:
            depth[0] -= 1
        if outer and model is not None:
            try:
                got = own(model, result)
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
    # SolverFactory: that solver's ``solve(model)`` is hooked. A persistent solver is asked
    # ``solve()`` with the model it was given by ``set_instance``.
    def make(self: Any, *args: Any, **kwargs: Any) -> Any:
        solver = factory_call(self, *args, **kwargs)

        def model_of(a: tuple[Any, ...], k: dict[str, Any]) -> Any:
            if a and hasattr(a[0], "component_data_objects"):
                return a[0]
            if hasattr(k.get("model"), "component_data_objects"):
                return k["model"]
            for attr in ("_pyomo_model", "_model", "_instance"):
                got = getattr(solver, attr, None)
                if hasattr(got, "component_data_objects"):
                    return got
            return None

        with contextlib.suppress(Exception):
            solver.solve = _wrap(solver.solve, export, own, emit, solved, depth,
                                 subject=model_of)
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
    classes: list[type] = [pywraplp.Solver]
    with contextlib.suppress(ImportError):  # the newer model builder: solver.solve(model)
        from ortools.linear_solver.python import model_builder as mb

        def mb_export(model: Any) -> bytes:
            return str(model.export_to_mps_string()).encode()

        def mb_own(model: Any, status: Any) -> tuple[float, float] | None:
            del model
            if status != mb.SolveStatus.OPTIMAL:
                return None
            v = float(holder[0].objective_value)
            return v, _finite(holder[0].best_objective_bound, v)

        holder: list[Any] = [None]
        solve = mb.Solver.solve

        def mb_solve(self: Any, model: Any, *args: Any, **kwargs: Any) -> Any:
            holder[0] = self
            return solve(self, model, *args, **kwargs)

        mb.Solver.solve = _wrap(mb_solve, mb_export, mb_own, emit, solved, depth,
                                subject=lambda a, k: a[1] if len(a) > 1 else k.get("model"))
        classes.append(mb.Model)
    return tuple(classes)


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
