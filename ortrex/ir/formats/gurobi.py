"""Conversion between CanonicalModel and gurobipy.Model (gurobipy is imported lazily)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import dedupe_names, fold_gurobi_idioms, range_anchor
from ortrex.ir.formats.errors import UnsupportedModelError

if TYPE_CHECKING:
    import gurobipy
    import scipy.sparse as sp

BIG = 1e30


def quiet_env() -> gurobipy.Env:
    """A Gurobi environment that prints nothing (not even the licence banner)."""
    import gurobipy as gp

    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    return env


def to_gurobi(model: CanonicalModel, env: gurobipy.Env | None = None,
              names: bool = True) -> gurobipy.Model:
    """A gurobipy model of ``model``.

    Ranged rows use Gurobi's ``Rg<row>`` range variables (folded back by :func:`from_gurobi`).
    Gurobi keeps quadratic rows in a list of their own, so they come back after the linear ones,
    and it rounds the bounds of integer variables to integers. ``names=False`` skips naming
    (a third of the build time of a small model; solvers do not need names).
    """
    import gurobipy as gp
    import scipy.sparse as sp  # imported when used: reading files needs none
    from gurobipy import GRB

    gm = gp.Model(model.name or "", env=env)
    n = model.num_vars
    x = gm.addMVar(n, lb=model.lb, ub=model.ub, obj=model.obj,
                   vtype=np.asarray(model.var_types, dtype="U1"),
                   name=list(model.var_names) if names else None)
    sense_code = GRB.MAXIMIZE if model.sense.value == "max" else GRB.MINIMIZE
    gm.ModelSense = sense_code
    gm.ObjCon = model.obj_constant
    rr, ri, rj, rv = model.qrows
    is_q = np.zeros(model.num_rows, dtype=bool)
    is_q[rr] = True
    lo, hi = model.row_lower, model.row_upper
    lin = np.flatnonzero(~is_q)
    # The linear part is all of A unless there are quadratic rows (slicing costs a tenth of a
    # small model's build).
    A_lin = model.A if lin.size == model.num_rows else model.A[lin]
    lo_l, hi_l = lo[lin], hi[lin]
    sense = np.where(lo_l == hi_l, "=", np.where(np.isfinite(hi_l), "<", ">"))
    rhs = np.where(sense == ">", lo_l, hi_l)
    ranged = np.isfinite(lo_l) & np.isfinite(hi_l) & (lo_l < hi_l)
    sense[ranged] = "="
    constrs = gm.addMConstr(A_lin, x, sense, rhs,
                            name=[model.row_names[r] for r in lin] if names else None)
    if ranged.any():
        gm.update()
        rows = constrs.tolist()
        for k in np.flatnonzero(ranged):
            r = lin[k]
            anchor, sign, width = range_anchor(float(lo[r]), float(hi[r]))
            rows[k].RHS = anchor  # a.x - sign * Rg = anchor
            v = gm.addVar(lb=0.0, ub=width, name=f"Rg{model.row_names[r]}")
            gm.chgCoeff(rows[k], v, -sign)
    qi, qj, qv = model.qobj
    if qi.size:
        Q = sp.coo_matrix((qv.copy(), (qi.copy(), qj.copy())), shape=(n, n))
        gm.setMObjective(Q, model.obj.copy(), model.obj_constant, x, x, x, sense_code)
    if rr.size:
        csr = model.csr
        starts = np.searchsorted(rr, np.arange(model.num_rows + 1))
        for r in np.flatnonzero(is_q):
            if np.isfinite(lo[r]) and np.isfinite(hi[r]) and lo[r] < hi[r]:
                raise UnsupportedModelError(
                    f"Gurobi has no ranged quadratic constraints (row {model.row_names[r]!r})")
            a, b = starts[r], starts[r + 1]
            Q = sp.coo_matrix((rv[a:b].copy(), (ri[a:b].copy(), rj[a:b].copy())), shape=(n, n))
            c = np.zeros(n)
            s, e = csr.indptr[r], csr.indptr[r + 1]
            c[csr.indices[s:e]] = csr.data[s:e]
            qsense = "=" if lo[r] == hi[r] else ("<" if np.isfinite(hi[r]) else ">")
            gm.addMQConstr(Q, c, qsense, hi[r] if qsense != ">" else lo[r], x, x, x,
                           name=model.row_names[r] if names else "")
    gm.update()
    return gm


def _inf(a: np.ndarray) -> np.ndarray:
    a = np.asarray(a, dtype=np.float64)
    return np.where(a >= BIG, np.inf, np.where(a <= -BIG, -np.inf, a))


def from_gurobi(gm: gurobipy.Model) -> CanonicalModel:
    """A CanonicalModel of a gurobipy model (linear and quadratic parts)."""
    import scipy.sparse as sp  # imported when used: reading files needs none

    gm.update()
    if gm.NumSOS or gm.NumGenConstrs:
        raise UnsupportedModelError("SOS and general constraints are not supported")
    vars_ = gm.getVars()
    n = len(vars_)
    vtype = np.array(gm.getAttr("VType", vars_) if n else [], dtype="U1")
    constrs = gm.getConstrs()
    senses = np.array(gm.getAttr("Sense", constrs) if constrs else [], dtype="U1")
    rhs = np.array(gm.getAttr("RHS", constrs) if constrs else [], dtype=np.float64)
    lo = np.where(senses == "<", -np.inf, rhs)
    hi = np.where(senses == ">", np.inf, rhs)
    A = gm.getA().tocsr() if constrs else sp.csr_matrix((0, n))
    names = list(gm.getAttr("ConstrName", constrs)) if constrs else []
    qcs = gm.getQConstrs()
    q_rows: list[tuple[int, int, int, float]] = []
    extra_rows: list[sp.csr_matrix] = []
    m0 = len(constrs)
    for k, qc in enumerate(qcs):
        expr = gm.getQCRow(qc)
        for t in range(expr.size()):
            q_rows.append((m0 + k, expr.getVar1(t).index, expr.getVar2(t).index, expr.getCoeff(t)))
        le = expr.getLinExpr()
        cols = [le.getVar(t).index for t in range(le.size())]
        vals = [le.getCoeff(t) for t in range(le.size())]
        extra_rows.append(sp.csr_matrix((vals, ([0] * len(cols), cols)), shape=(1, n)))
        s, r = qc.QCSense, qc.QCRHS
        lo = np.append(lo, -np.inf if s == "<" else r)
        hi = np.append(hi, np.inf if s == ">" else r)
        names.append(qc.QCName)
    if extra_rows:
        A = sp.vstack([A, *extra_rows], format="csr")
    obj_expr: Any = gm.getObjective()
    q_obj: list[tuple[int, int, float]] = []
    if hasattr(obj_expr, "getVar1"):
        q_obj = [(obj_expr.getVar1(t).index, obj_expr.getVar2(t).index, obj_expr.getCoeff(t))
                 for t in range(obj_expr.size())]
    qo = np.array(q_obj, dtype=np.float64).reshape(-1, 3)
    qr = np.array(q_rows, dtype=np.float64).reshape(-1, 4)
    model = CanonicalModel(
        var_names=dedupe_names(gm.getAttr("VarName", vars_)) if n else [],
        var_types=vtype,
        lb=_inf(gm.getAttr("LB", vars_) if n else []),
        ub=_inf(gm.getAttr("UB", vars_) if n else []),
        obj=gm.getAttr("Obj", vars_) if n else [],
        obj_constant=gm.ObjCon,
        sense="max" if gm.ModelSense < 0 else "min",
        A=A,
        row_names=dedupe_names(names),
        row_lower=_inf(lo),
        row_upper=_inf(hi),
        qobj=(qo[:, 0].astype(np.int64), qo[:, 1].astype(np.int64), qo[:, 2]),
        qrows=(qr[:, 0].astype(np.int64), qr[:, 1].astype(np.int64), qr[:, 2].astype(np.int64),
               qr[:, 3]),
        name=gm.ModelName,
    )
    return fold_gurobi_idioms(model)
