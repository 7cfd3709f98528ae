"""The parent's verdict on a submitted model that only Gurobi reads (general, indicator, SOS or
piecewise-linear constraints, quadratic rows), in a child process: solve it, then the two
checks of ``verifiers.dependence`` on Gurobi's own model (whatever general constraints sit
beside a term, loosening is done on the model Gurobi solves).

Entry: ``child()``; stdin holds one JSON line (time limit, the problem's grounds or null)
and then the MPS bytes; stdout gets one JSON object.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from ortrex.verifiers.dependence import DELTA, structural
from ortrex.verifiers.grounding import Grounds

_STATUS = {2: "optimal", 3: "infeasible", 5: "unbounded", 4: "infeasible_or_unbounded",
           9: "time_limit"}


@dataclass(frozen=True)
class Entry:
    """A number of Gurobi's model: its value, how to name it, where it sits (("lb", j),
    ("rhs", i), ...) and how to loosen it on a copy (entries sharing ``apply`` are loosened
    together, once)."""

    value: float
    label: str
    key: tuple[str, int]
    apply: Callable[[Any, float], None]


def _shift(v: float) -> float:
    return max(DELTA * abs(v), 1.0)


def _entries(m: Any, x: np.ndarray) -> list[Entry]:
    """Every number of the model that carries data, with its loosening (see
    ``verifiers.dependence``)."""
    import gurobipy as gp
    from gurobipy import GRB

    vs, cs = m.getVars(), m.getConstrs()
    out: list[Entry] = []

    def var_attr(k: int, attr: str, new: Callable[[float], float]) -> Callable[[Any, float], None]:
        return lambda c, v: c.getVars()[k].setAttr(attr, new(v))

    for k, v in enumerate(vs):
        binary = v.VType == GRB.BINARY
        if v.Obj:
            out.append(Entry(v.Obj, f"the objective coefficient of {v.VarName}", ("obj", k),
                             var_attr(k, "Obj", lambda a: a * (1 + DELTA))))
        if np.isfinite(v.LB) and abs(v.LB) < 1e30 and v.LB and not binary:
            out.append(Entry(v.LB, f"the lower bound of {v.VarName}", ("lb", k),
                             var_attr(k, "LB", lambda a: a - _shift(a))))
        if np.isfinite(v.UB) and abs(v.UB) < 1e30 and v.UB and not (binary and v.UB == 1):
            out.append(Entry(v.UB, f"the upper bound of {v.VarName}", ("ub", k),
                             var_attr(k, "UB", lambda a: a + _shift(a))))
    if m.ObjCon:
        out.append(Entry(m.ObjCon, "the objective's constant", ("const", 0),
                         lambda c, a: setattr(c, "ObjCon", a + _shift(a))))
    if cs:
        A = m.getA().tocsr()
        for i, con in enumerate(cs):
            sense, rhs = con.Sense, con.RHS
            if rhs:
                step = (lambda a: a + _shift(a)) if sense in "<=" else (lambda a: a - _shift(a))
                out.append(Entry(rhs, f"the right-hand side of {con.ConstrName}", ("rhs", i),
                                 (lambda i_, f: lambda c, a: c.getConstrs()[i_].setAttr(
                                     "RHS", f(a)))(i, step)))
            for p in range(A.indptr[i], A.indptr[i + 1]):
                j, a = int(A.indices[p]), float(A.data[p])
                room = 0.0 if sense == "=" else (-1.0 if sense == "<" else 1.0) * np.sign(x[j])
                new = a + room * DELTA * abs(a) if room else a * (1 + DELTA)
                out.append(Entry(a, f"the coefficient of {vs[j].VarName} in {con.ConstrName}",
                                 ("coef", p), (lambda i_, j_, n: lambda c, _a: c.chgCoeff(
                                     c.getConstrs()[i_], c.getVars()[j_], n))(i, j, new)))
    for i, q in enumerate(m.getQConstrs()):
        if q.QCRHS:
            sign = 1.0 if q.QCSense in "<=" else -1.0
            out.append(Entry(q.QCRHS, f"the right-hand side of {q.QCName}", ("qrhs", i),
                             (lambda i_, s: lambda c, a: c.getQConstrs()[i_].setAttr(
                                 "QCRHS", a + s * _shift(a)))(i, sign)))
    obj = m.getObjective()
    if isinstance(obj, gp.QuadExpr) and obj.size():
        scale = _scale_quad  # one rebuild of the objective scales every picked term
        out.extend(Entry(obj.getCoeff(t), "a quadratic objective coefficient", ("qobj", t),
                         scale) for t in range(obj.size()))
    for g, gc in enumerate(m.getGenConstrs()):
        out.extend(_gen_entries(m, g, gc))
    return out


def _scale_quad(c: Any, _value: float) -> None:
    """Scale the quadratic part of model ``c``'s objective."""
    obj = c.getObjective()
    c.setObjective(obj.getLinExpr() + (1 + DELTA) * (obj - obj.getLinExpr()), c.ModelSense)


def _gen_entries(m: Any, g: int, gc: Any) -> list[Entry]:
    """The numbers of one general constraint: a max/min constant, an indicator's side, a
    piecewise-linear function's points."""
    from gurobipy import GRB

    kind, out = gc.GenConstrType, []

    def redo(fn: Callable[[Any, Any], None]) -> Callable[[Any, float], None]:
        return lambda c, _a: fn(c, c.getGenConstrs()[g])

    if kind in (GRB.GENCONSTR_MAX, GRB.GENCONSTR_MIN):
        _, _, const = m.getGenConstrMax(gc) if kind == GRB.GENCONSTR_MAX else \
            m.getGenConstrMin(gc)
        if np.isfinite(const) and const:
            def swap(c: Any, old: Any, kind_: int = kind) -> None:
                r, v, k0 = (c.getGenConstrMax if kind_ == GRB.GENCONSTR_MAX
                            else c.getGenConstrMin)(old)
                c.remove(old)
                add = c.addGenConstrMax if kind_ == GRB.GENCONSTR_MAX else c.addGenConstrMin
                add(r, v, k0 + _shift(k0))
            out.append(Entry(const, f"the constant of {gc.GenConstrName}", ("gen", g),
                             redo(swap)))
    elif kind == GRB.GENCONSTR_INDICATOR:
        _, _, _, _, rhs = m.getGenConstrIndicator(gc)
        if rhs:
            def side(c: Any, old: Any) -> None:
                b, val, expr, sense, r = c.getGenConstrIndicator(old)
                c.remove(old)
                step = _shift(r)
                c.addGenConstrIndicator(b, bool(val), expr, sense,
                                        r + (step if sense in "<=" else -step))
            out.append(Entry(rhs, f"the right-hand side of {gc.GenConstrName}", ("gen", g),
                             redo(side)))
    elif kind == GRB.GENCONSTR_PWL:
        _, _, xp, yp = m.getGenConstrPWL(gc)

        def points(c: Any, old: Any) -> None:
            xv, yv, xs, ys = c.getGenConstrPWL(old)
            c.remove(old)
            c.addGenConstrPWL(xv, yv, xs, [v * (1 + DELTA) for v in ys])
        fn = redo(points)
        out.extend(Entry(v, f"a point of {gc.GenConstrName}", ("gen", g), fn)
                   for v in [*xp, *yp] if v)
    return out


def _solve(m: Any, time_limit: float) -> tuple[str, float | None, np.ndarray | None]:
    from ortrex.verifiers.solvers import MIP_GAP

    m.Params.TimeLimit = time_limit
    m.Params.MIPGap = MIP_GAP
    m.optimize()
    status = _STATUS.get(m.Status, f"gurobi_{m.Status}")
    if status != "optimal" or not m.SolCount:
        return status, None, None
    return status, float(m.ObjVal), np.array(m.getAttr("X", m.getVars()), dtype=float)


def _loosened(m: Any, picks: list[Entry], time_limit: float) -> tuple[str, float | None]:
    """(status, optimum) of a copy of ``m`` with ``picks`` loosened."""
    c = m.copy()
    try:
        done: set[int] = set()
        # No update between the changes: every index still names what it named in ``m``.
        # The quadratic objective is rebuilt from the updated objective, after the rest.
        for e in sorted(picks, key=lambda e: e.key[0] == "qobj"):
            if e.key[0] == "qobj" and not done & {-1}:
                c.update()
                done.add(-1)
            if id(e.apply) not in done:
                done.add(id(e.apply))
                e.apply(c, e.value)
        c.update()
        status, value, _ = _solve(c, time_limit)
    finally:
        c.dispose()
    return status, value


_NO_OPTIMUM = ("infeasible", "unbounded", "infeasible_or_unbounded")


def _delta(m: Any, picks: list[Entry], objective: float, time_limit: float) -> float | None:
    """How far loosening ``picks`` moves the optimum (None: not solved to a verdict; inf: the
    loosened model is infeasible or unbounded)."""
    status, value = _loosened(m, picks, time_limit)
    if status in _NO_OPTIMUM:
        return float("inf")
    return None if value is None else abs(value - objective)


def _moves(m: Any, picks: list[Entry], objective: float, time_limit: float) -> bool | None:
    """Whether loosening ``picks`` on a copy of ``m`` moves its optimum (None: undecided)."""
    from ortrex.verifiers.solvers import objectives_agree

    status, value = _loosened(m, picks, time_limit)
    if status in _NO_OPTIMUM:
        return True
    if value is None:
        return None
    return not objectives_agree(value, objective)


def _trivial(m: Any, x: np.ndarray, objective: float, time_limit: float,
             entries: list[Entry], grounds: Grounds | None) -> str | None:
    """``dependence.trivial_at`` on Gurobi's model."""
    import gurobipy as gp

    vs = m.getVars()
    tol = 1e-9 * max(1.0, abs(objective))
    term = np.abs(np.array(m.getAttr("Obj", vs), dtype=float) * x)
    obj = m.getObjective()
    if isinstance(obj, gp.QuadExpr):
        for t in range(obj.size()):
            i, j = obj.getVar1(t).index, obj.getVar2(t).index
            q = abs(obj.getCoeff(t) * x[i] * x[j])
            term[i] += q
            term[j] += q
    used = np.flatnonzero(term > tol)
    in_obj = np.flatnonzero(np.array(m.getAttr("Obj", vs), dtype=float))
    lb, ub = (np.array(m.getAttr(a, vs), dtype=float)[in_obj] for a in ("LB", "UB"))
    # Fixed means finite and equal: a free variable's inf - (-inf) is no fixing.
    if in_obj.size and np.all(np.isfinite(lb) & (np.abs(ub - lb) <= 1e-9 * np.maximum(
            1.0, np.abs(lb)))):
        return ("every variable of the objective is fixed by its bounds: the optimum is a "
                "constant typed into the model")
    if used.size == 0 and m.ObjCon:
        if grounds is not None and grounds.stated_as_given(np.array([m.ObjCon])):
            return None
        return (f"the optimum is the objective's constant {m.ObjCon:.12g}: no decision of "
                "the model changes it")
    if used.size != 1:
        return None
    j = int(used[0])
    pins = {("lb", j), ("ub", j)}
    if m.NumConstrs:
        A = m.getA().tocsr()
        single = np.flatnonzero(np.diff(A.indptr) == 1)
        pins |= {("rhs", int(i)) for i in single if A.indices[A.indptr[i]] == j}
    picked = [e for e in entries if e.key in pins]
    if not picked:
        return None
    if grounds is not None:  # a stated bound with a stated coefficient: a degenerate problem
        coef = vs[j].Obj
        given = [e.value for e in picked] + ([coef] if coef not in (1.0, -1.0) else [])
        if grounds.stated_as_given(np.array(given, dtype=float)):
            return None
    if not _moves(m, picked, objective, time_limit):
        return None
    return (f"the optimum is set by a single bound: loosening the bound of {vs[j].VarName} "
            f"({', '.join(e.label for e in picked[:2])}) moves it; no other part of the "
            "model decides it")


def analyse(mps: bytes, time_limit: float, grounds: Grounds | None) -> dict[str, Any]:
    """Read, solve and check a model with Gurobi (the child's work)."""
    import gurobipy as gp

    fd, path = tempfile.mkstemp(suffix=".mps")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(mps)
        with gp.Env(params={"OutputFlag": 0, "Threads": 1}) as env:
            try:
                m = gp.read(path, env)
            except gp.GurobiError as exc:
                return {"error": f"captured model unreadable: {exc}"}
            with m:
                try:
                    status, objective, x = _solve(m, time_limit)
                except gp.GurobiError as exc:  # the size-limited licence, mostly
                    status = "skipped_license" if "size-limited" in str(exc) else "error"
                    return {"status": status, "objective": None, "solver": "gurobi"}
                out: dict[str, Any] = {"status": status, "objective": objective,
                                       "solver": "gurobi"}
                if objective is None or x is None:
                    return out
                entries = _entries(m, x)
                out["trivial"] = _trivial(m, x, objective, time_limit, entries, grounds)
                if out["trivial"] is None and grounds is not None:
                    out["ungrounded"] = _ungrounded(m, entries, objective, time_limit,
                                                    grounds) or \
                        _reliance(m, entries, objective, time_limit, grounds)
                return out
    finally:
        os.unlink(path)


def _ungrounded(m: Any, entries: list[Entry], objective: float, time_limit: float,
                grounds: Grounds) -> str | None:
    if not entries:
        return None
    values = np.array([e.value for e in entries], dtype=float)
    used, given = len(grounds.used(values)), int(grounds.evidence.size)
    if given >= 2 and used == 0 and not structural(values):
        return (f"the model uses none of the {given} numbers the problem gives: its optimum "
                "is not computed from the problem's data")
    ok = grounds.grounded(values)
    ok |= np.array([e.key[0] == "const" and grounds.total(e.value) for e in entries])
    picks = [e for e, good in zip(entries, ok, strict=True) if not good]
    if not picks:
        return None
    moved = _moves(m, picks, objective, time_limit)
    if moved is False:
        return None
    named = ", ".join(f"{e.value:.12g} ({e.label})" for e in picks[:3]) + \
        (f" and {len(picks) - 3} more" if len(picks) > 3 else "")
    if moved is None:
        return (f"numbers the statement never gives ({named}) could not be shown not to "
                "set the optimum within the time limit")
    return f"the optimum rests on numbers the statement never gives: {named}"


_SIDES = frozenset({"lb", "ub", "rhs", "qrhs", "const"})


def _reliance(m: Any, entries: list[Entry], objective: float, time_limit: float,
              grounds: Grounds) -> str | None:
    """``dependence.reliance`` on Gurobi's model: where the constraint side's numbers (bounds,
    right-hand sides, the constant) move the optimum, the stated ones among them must too."""
    side = [e for e in entries if e.key[0] in _SIDES and
            not (e.key[0] == "const" and grounds.total(e.value))]
    if not side:
        return None
    values = np.abs(np.array([e.value for e in side], dtype=float))
    factor = grounds.factor(values)
    if factor.all():
        return None  # the data are in the coefficients (an assignment's rows are all 1)
    tol = max(1e-6, 1e-6 * abs(objective))
    total = _delta(m, [e for e, f in zip(side, factor, strict=True) if not f], objective,
                   time_limit)
    if total is None or total <= tol:
        return None  # the optimum rests on coefficients and counting constants only
    stated = (grounds.direct(values) | grounds.unary(values, shifted=False)) & ~factor
    idx = np.flatnonzero(~stated & ~factor)
    if idx.size:
        every = np.abs(np.array([e.value for e in entries], dtype=float))
        big = np.unique(every[every > 10])
        der = grounds.derived(values[idx], big)
        d = idx[der]
        stated[d] = grounds.specific(values[d], big)
    picks = [e for e, good in zip(side, stated, strict=True) if good]
    moved = _delta(m, picks, objective, time_limit) if picks else 0.0
    if moved is None or moved > tol:
        return None
    rest = [e for e, good, f in zip(side, stated, factor, strict=True) if not good and not f]
    named = ", ".join(f"{e.value:.12g} ({e.label})" for e in rest[:3]) + \
        (f" and {len(rest) - 3} more" if len(rest) > 3 else "")
    return f"the optimum rests on none of the numbers the problem states: {named} set it"


def child() -> None:
    """Entry of the child process."""
    head, _, mps = sys.stdin.buffer.read().partition(b"\n")
    try:
        spec = json.loads(head)
        lists = spec.get("grounds")
        out = analyse(mps, float(spec["time_limit"]),
                      None if lists is None else Grounds.from_lists(lists))
    except Exception as exc:  # hostile bytes: the parent gets one line, never a traceback
        out = {"error": f"captured model: Gurobi's reading failed ({type(exc).__name__}: "
                        f"{exc})"[:300]}
    sys.stdout.write(json.dumps(out))
