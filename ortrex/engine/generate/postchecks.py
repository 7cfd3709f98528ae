"""Semantic post-checks on a verified optimum: the model still means what its story says.

The solvers prove that a model solves and fidelity that the text matches the data; these
checks read the optimum as a modeller would. The model checks (``MODEL_CHECKS``) read every
model by the roles of its families:

* ``one_tour``: a routing family with degree rows (a tour) forms one cycle through every node;
* ``fractional_indicator``: on/off, setup and start-up decisions are 0 or 1 at the optimum,
  relaxed or not (a fractional start-up is no start-up);
* ``slack_capacity``: every capacity family is used to at least ``USED`` of its limit in some
  row (a limit nowhere near used is decoration);
* ``unusable_item``: no yes/no choice is ruled out by one rule on its own (an item heavier
  than the knapsack, a project over every year's budget).

An operator declares the check its children must pass with its registration
(``@operator(..., postcheck=PostCheck(name, fn, after=...))``, e.g. ``unprofitable`` of
``cost_to_profit``, ``zero_worst_case`` of ``objective_minmax``); it runs on every model whose
lineage has that operator, at the place ``after`` names. The sanity checks of children
(``ortrex.engine.operators.sanity``: ``profit_loop``, ``over_delivery``, ``constant_term``,
``non_binding``) are declared the same way; those that compare a child with its parent run on
the operator's own children only. A failed check rejects the instance with reason
``postcheck:<name>`` and a one-line detail.
"""

from __future__ import annotations

import numpy as np

from ortrex.engine.generate.filters import Rejection
from ortrex.engine.generate.mutate import family_values
from ortrex.engine.operators.registry import OPERATORS, Check, PostCheck, origin
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.solution import row_activity

USED = 0.9  # share of a capacity that counts as binding for integer plans
TOL = 1e-6


def _family_rows(model: CanonicalModel, name: str) -> np.ndarray:
    """Indices of the rows grounded from constraint family ``name``."""
    return np.array([k for k, r in enumerate(model.row_names)
                     if r == name or r.startswith(name + "[")], dtype=np.int64)


def _family_cols(model: CanonicalModel, name: str) -> np.ndarray:
    """Indices of the columns grounded from variable family ``name``."""
    return np.array([k for k, n in enumerate(model.var_names)
                     if n == name or n.startswith(name + "[")], dtype=np.int64)


def one_tour(sm: SemanticModel, model: CanonicalModel, x: np.ndarray, objective: float
             ) -> str | None:
    """Every routing family of a model with degree rows forms a single cycle."""
    if not any(c.role == "degree" for c in sm.constraints):
        return None
    for v in sm.variables:
        if v.role != "routing" or len(v.dims) != 2:
            continue
        arcs = np.nan_to_num(family_values(sm, list(model.var_names), x)[v.name]) > 0.5
        nodes = sm.set_map[v.dims[0][1]].elements
        succ = {int(i): int(j) for i, j in zip(*np.nonzero(arcs), strict=True)}
        start, seen, at = 0, [], 0
        while at in succ and at not in seen:
            seen.append(at)
            at = succ[at]
        if len(seen) != len(nodes) or at != start:
            return f"{v.name}: the arcs used form no single tour ({len(seen)} of {len(nodes)} " \
                   "nodes on the tour through the first)"
    return None


def fractional_indicator(sm: SemanticModel, model: CanonicalModel, x: np.ndarray,
                         objective: float) -> str | None:
    """On/off, setup and start-up decisions are 0 or 1 at the optimum."""
    for v in sm.variables:
        if v.role != "indicator":
            continue
        vals = x[_family_cols(model, v.name)]
        off = np.abs(vals - np.round(vals)) > 1e-6
        if off.any():
            return f"{v.name} takes fractional values ({float(vals[off][0]):.4g})"
    return None


def slack_capacity(sm: SemanticModel, model: CanonicalModel, x: np.ndarray,
                   objective: float) -> str | None:
    """Each capacity family is used to ``USED`` of its limit in at least one row."""
    act = None
    for c in sm.constraints:
        if c.role != "capacity" or c.sense != "<=":
            continue
        rows = _family_rows(model, c.name)
        if rows.size == 0:
            continue
        act = row_activity(model, x) if act is None else act
        hi = model.row_upper[rows]
        a = act[rows]
        # A row whose limit is 0 binds whenever it is satisfied.
        used = np.where(np.abs(hi) > TOL, a / np.where(np.abs(hi) > TOL, hi, 1.0), 1.0)
        if not np.any(used >= USED - TOL):
            return f"{c.name}: no limit is used to {USED:.0%} (at most {float(used.max()):.0%})"
    return None


def unusable_item(sm: SemanticModel, model: CanonicalModel, x: np.ndarray,
                  objective: float) -> str | None:
    """No yes/no choice exceeds a packing row's limit on its own (it could never be made)."""
    binaries = np.array([t == "B" for t in model.var_types])
    if not binaries.any():
        return None
    A = model.A.tocsr()
    lb = np.where(np.isfinite(model.lb), model.lb, 0.0)
    hi = model.row_upper
    counts = np.diff(A.indptr)
    row = np.repeat(np.arange(model.num_rows), counts)
    # Only rows the other variables, at their least, cannot loosen: no negative coefficient
    # and no variable that may go below 0.
    loosens = np.zeros(model.num_rows, dtype=bool)
    np.logical_or.at(loosens, row, (A.data < 0) | (lb[A.indices] < 0))
    base = A @ lb
    with np.errstate(invalid="ignore"):
        alone = base[row] + A.data > hi[row] + TOL * np.maximum(1.0, np.abs(hi[row]))
    bad = np.nonzero(alone & np.isfinite(hi[row]) & ~loosens[row] & binaries[A.indices]
                     & (lb[A.indices] == 0))[0]
    if bad.size:
        e = int(bad[0])
        c, r = int(A.indices[e]), int(row[e])
        return f"{model.var_names[c]} can never be chosen: alone it breaks " \
               f"{model.row_names[r]} ({A.data[e]:g} > {hi[r]:g})"
    return None


MODEL_CHECKS: dict[str, Check] = {
    "one_tour": one_tour, "fractional_indicator": fractional_indicator,
    "slack_capacity": slack_capacity, "unusable_item": unusable_item,
}


def checks_for(sm: SemanticModel) -> list[tuple[str, Check]]:
    """The checks ``sm`` must pass, in order: the model checks, each followed by the
    post-checks of the operators in ``sm``'s lineage that run after it, then the rest. A
    check that compares a child with its parent (``own``) runs only on a child of its own
    operator, while the mutate job verifies it (``origin()``)."""
    made = set(sm.descriptors.get("mutations", []))
    o = origin()
    current = o.operator if o is not None else None
    own: list[PostCheck] = []
    for op in OPERATORS.values():
        for pc in op.postchecks:
            if (op.name == current if pc.own else op.name in made) and \
                    pc.name not in {p.name for p in own}:
                own.append(pc)
    for pc in own:
        if pc.after and pc.after not in MODEL_CHECKS:
            raise ValueError(f"post-check {pc.name!r} runs after {pc.after!r}, which is no "
                             f"model check ({', '.join(MODEL_CHECKS)})")
    out: list[tuple[str, Check]] = []
    for name, check in MODEL_CHECKS.items():
        out.append((name, check))
        out += [(pc.name, pc.check) for pc in own if pc.after == name]
    return out + [(pc.name, pc.check) for pc in own if not pc.after]


def postcheck(sm: SemanticModel | None, model: CanonicalModel, x: np.ndarray,
              objective: float) -> Rejection | None:
    """The first semantic post-check the optimum fails, as a rejection (None: all pass)."""
    if sm is None:
        return None
    for name, check in checks_for(sm):
        why = check(sm, model, x, objective)
        if why:
            return Rejection(f"postcheck:{name}", why)
    return None
