"""Sanity post-checks of mutated children: the child still makes sense as a problem.

Operators declare them with their registration (``ortrex.engine.operators.registry``):

* ``profit_loop``: a profit child circulates no flow (a directed cycle of positive flow
  through balance rows earns revenue on every arc of the loop and delivers nothing);
* ``over_delivery``: a profit child ships no more than is demanded where it earns revenue,
  and leaves no stock at the end that nobody buys;
* ``constant_term`` (``own``): the term the operator added to the objective is not the same
  on every feasible plan (a charge per share when the shares sum to 1 decides nothing);
* ``non_binding`` (``own``): an added or changed rule cuts off the parent's optimal plan or
  moves the optimum (otherwise the child is the parent with a rule that decides nothing).

The ``own`` checks compare the child with its parent (``origin()``, known while the mutate
job verifies the child); without a parent they pass.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from scipy.sparse.csgraph import connected_components

from ortrex.engine.operators.registry import Origin, PostCheck, origin
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.solution import check_solution, row_activity

TOL = 1e-6
DELIVERY_ROLES = frozenset({"demand", "covering"})


def family_rows(model: CanonicalModel, names: set[str]) -> np.ndarray:
    """Indices of the rows grounded from the constraint families ``names``."""
    return np.array([k for k, r in enumerate(model.row_names) if r.split("[", 1)[0] in names],
                    dtype=np.int64)


def family_cols(model: CanonicalModel, names: set[str]) -> np.ndarray:
    """Indices of the columns grounded from the variable families ``names``."""
    return np.array([k for k, n in enumerate(model.var_names) if n.split("[", 1)[0] in names],
                    dtype=np.int64)


def min_form(model: CanonicalModel) -> np.ndarray:
    """The linear objective as a cost to minimise (a maximised objective negated)."""
    return np.asarray(model.obj, dtype=np.float64) * (-1.0 if model.sense.value == "max"
                                                      else 1.0)


def arc_columns(model: CanonicalModel, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray,
                                                                  np.ndarray]:
    """Columns that leave one of ``rows`` and enter another (an arc of a flow balance):
    (column, tail row, head row) with rows numbered within ``rows``, the tail where the
    coefficient is positive (flow out)."""
    none = np.zeros(0, np.int64)
    if rows.size == 0:
        return none, none, none
    sub = model.A.tocsr()[rows].tocsc()
    cols, tails, heads = [], [], []
    for j in range(sub.shape[1]):
        lo, hi = sub.indptr[j], sub.indptr[j + 1]
        vals, at = sub.data[lo:hi], sub.indices[lo:hi]
        if (vals > 0).sum() == 1 and (vals < 0).sum() == 1:
            cols.append(j)
            tails.append(int(at[vals > 0][0]))
            heads.append(int(at[vals < 0][0]))
    return np.array(cols, np.int64), np.array(tails, np.int64), np.array(heads, np.int64)


def balance_rows(sm: SemanticModel, model: CanonicalModel) -> np.ndarray:
    """Equality rows of the balance families (conservation of a flow)."""
    rows = family_rows(model, {c.name for c in sm.constraints if c.role == "balance"})
    if rows.size == 0:
        return rows
    return rows[np.asarray(model.row_lower)[rows] == np.asarray(model.row_upper)[rows]]


def arc_flows(sm: SemanticModel) -> set[str]:
    """Variable families that flow along arcs of a balance (out of one row, into another):
    summed over their arcs they count a unit once per arc it travels, not once delivered."""
    inst = sm.ground()
    cols = arc_columns(inst, balance_rows(sm, inst))[0]
    return {inst.var_names[int(j)].split("[", 1)[0] for j in cols}


def profit_loop(sm: SemanticModel, model: CanonicalModel, x: np.ndarray, objective: float
                ) -> str | None:
    """No positive flow goes round a directed cycle of balance rows."""
    rows = balance_rows(sm, model)
    cols, tails, heads = arc_columns(model, rows)
    used = x[cols] > TOL if cols.size else np.zeros(0, dtype=bool)
    if not used.any():
        return None
    cols, tails, heads = cols[used], tails[used], heads[used]
    graph = csr_matrix((np.ones(cols.size), (tails, heads)), shape=(rows.size, rows.size))
    _, comp = connected_components(graph, directed=True, connection="strong")
    sizes = np.bincount(comp)
    loop = (comp[tails] == comp[heads]) & (sizes[comp[tails]] > 1)
    if not loop.any():
        return None
    on = cols[loop]
    names = [model.var_names[int(j)] for j in on[:3]]
    return f"flow circulates in a loop ({', '.join(names)}{', ...' if on.size > 3 else ''} " \
           f"carry {float(x[on].min()):g} or more round it): revenue is earned on every arc " \
           "of the loop and nothing is delivered"


def over_delivery(sm: SemanticModel, model: CanonicalModel, x: np.ndarray, objective: float
                  ) -> str | None:
    """Where revenue is earned, no demand row is over-served and no end stock is left."""
    earning = min_form(model) < -TOL
    rows = family_rows(model, {c.name for c in sm.constraints
                               if c.role in DELIVERY_ROLES and c.sense == ">="})
    if rows.size and earning.any():
        A = model.A.tocsr()[rows]
        earns = (abs(A) @ earning.astype(np.float64)) > 0
        act = row_activity(model, x)[rows]
        lo = np.asarray(model.row_lower)[rows]
        over = earns & np.isfinite(lo) & (act > lo + 1e-4 * np.maximum(1.0, np.abs(lo)))
        if over.any():
            k = int(np.argmax(np.where(over, act - lo, -np.inf)))
            return f"{model.row_names[int(rows[k])]} gets {float(act[k]):g} against a demand " \
                   f"of {float(lo[k]):g}: revenue is earned on more than is asked for"
    for v in sm.variables:
        if v.role != "inventory" or not v.dims:
            continue
        last = sm.set_map[v.dims[-1][1]].elements[-1]
        end = f",{last}]" if len(v.dims) > 1 else f"[{last}]"
        left = [k for k, n in enumerate(model.var_names)
                if n.startswith(v.name + "[") and n.endswith(end) and x[k] > 1e-4]
        if left:
            k = max(left, key=lambda j: x[j])
            return f"{model.var_names[k]} = {float(x[k]):g} is left in stock at the end: " \
                   "made for revenue that no one buys"
    return None


def _parent_plan(o: Origin, model: CanonicalModel) -> np.ndarray | None:
    """The parent's optimum over the child's columns, a column the parent lacks at 0 (a
    backlog never used, an option never switched on; None: it has no solution). Where that
    plan is feasible in the child at the same optimum, what was added decides nothing."""
    if o.x is None:
        return None
    pos = {n: k for k, n in enumerate(o.model.var_names)}
    x = np.asarray(o.x, dtype=np.float64)
    return np.array([x[pos[n]] if n in pos else 0.0 for n in model.var_names])


def added_term(o: Origin, model: CanonicalModel) -> np.ndarray:
    """The child's linear objective minus the parent's, both as costs to minimise, over the
    child's columns (a column the parent lacks had cost 0)."""
    old = dict(zip(o.model.var_names, min_form(o.model), strict=True))
    return min_form(model) - np.array([old.get(n, 0.0) for n in model.var_names])


def _term_range(model: CanonicalModel, d: np.ndarray) -> tuple[float, float] | None:
    """Least and greatest ``d x`` over the child's feasible set, relaxed to continuous
    (None: unbounded or not solved; a term constant on the relaxation is constant on it)."""
    from ortrex.verifiers.solvers import SolveStatus, solve_highs

    lp = model.replace(var_types=np.full(model.num_vars, "C"), obj=d, obj_constant=0.0,
                       qobj=None)
    out = []
    for sense in ("min", "max"):
        r = solve_highs(lp.replace(sense=sense), time_limit=10.0, threads=1)
        if r.status is not SolveStatus.OPTIMAL or r.objective is None:
            return None
        out.append(float(r.objective))
    return out[0], out[1]


def constant_term(sm: SemanticModel, model: CanonicalModel, x: np.ndarray, objective: float
                  ) -> str | None:
    """The term the operator added to the objective varies over the feasible plans."""
    o = origin()
    if o is None or model.has_quadratic_rows or any(t in ("S", "N") for t in model.var_types):
        return None
    d = added_term(o, model)
    if not np.any(np.abs(d) > TOL):
        return None
    span = _term_range(model, d)
    if span is None:
        return None
    lo, hi = span
    if hi - lo <= 1e-7 * max(1.0, abs(lo), abs(hi)):
        return f"the added objective term is {lo:g} on every feasible plan: it shifts the " \
               "objective and decides nothing"
    return None


def non_binding(sm: SemanticModel, model: CanonicalModel, x: np.ndarray, objective: float
                ) -> str | None:
    """The added or changed rule binds: the optimum moves or the parent's plan breaks it."""
    o = origin()
    if o is None or o.objective is None:
        return None
    if abs(objective - o.objective) > 1e-6 * max(1.0, abs(o.objective)):
        return None
    plan = _parent_plan(o, model)
    if plan is None or not check_solution(model, plan).ok:
        return None
    return "the rule does not bind: the parent's plan still satisfies it and the optimum " \
           f"stays {objective:g}"


PROFIT_LOOP = PostCheck("profit_loop", profit_loop, after="one_tour")
OVER_DELIVERY = PostCheck("over_delivery", over_delivery, after="one_tour")
CONSTANT_TERM = PostCheck("constant_term", constant_term, own=True)
NON_BINDING = PostCheck("non_binding", non_binding, own=True)
