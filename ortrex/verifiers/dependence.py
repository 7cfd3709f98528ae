"""Does a model's optimum rest on given numbers? Loosen them, solve again, compare.

Two checks of a submitted model ask it (``verifiers.resolve`` runs both after its solve):

* **trivial**: the optimum is set by a single number, not decided by the problem: the
  objective's constant alone, or one variable's term where that variable sits on a bound (or
  a one-variable row) that, loosened, moves the optimum. Whatever other rows, general
  constraints or quadratic terms sit beside it, they do not decide the optimum.
* **ungrounded**: a number the statement never gives (``verifiers.grounding``) is one the
  optimum rests on: loosened, it moves the optimum.

*Loosening* widens a bound or a row side (by 10% of it, and by at least 1, so integrality
cannot hide the change), scales an objective coefficient or a coefficient of an equality row,
and moves a coefficient of an inequality row the way that gives the row room at the optimum
(a big-M grows). A number that can be loosened without moving the optimum (a big-M, a bound
nobody needs) is not what the answer rests on.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.verifiers.grounding import Grounds

DELTA = 0.1
# (status, objective) of a model solved again: the caller's own solver and time limit.
Solve = Callable[[CanonicalModel], tuple[str, float | None]]
KINDS = ("obj", "obj_constant", "qobj", "coef", "row_lower", "row_upper", "lb", "ub", "qrow")
_WHERE = {"obj": "an objective coefficient", "obj_constant": "the objective's constant",
          "qobj": "a quadratic objective coefficient", "coef": "a row coefficient",
          "row_lower": "a row's lower side", "row_upper": "a row's upper side",
          "lb": "a lower bound", "ub": "an upper bound", "qrow": "a quadratic row coefficient"}


@dataclass(frozen=True)
class Numbers:
    """Numbers of a model by where they sit: ``kind`` -> (positions, values); ``links``: row
    sides that move with a big-M coefficient (coefficient position -> (side kind, row,
    sign): ``x + M y <= M + d`` keeps its meaning at ``y = 1`` when M grows in both)."""

    at: dict[str, tuple[np.ndarray, np.ndarray]]
    links: dict[int, list[tuple[str, int, float]]] = field(default_factory=dict)

    def count(self) -> int:
        """How many numbers."""
        return sum(len(v) for _, v in self.at.values())

    def describe(self, model: CanonicalModel, limit: int = 3) -> str:
        """The first numbers, as a reader would name them."""
        out = []
        for kind, (pos, vals) in self.at.items():
            for p, v in zip(pos[:limit], vals[:limit], strict=True):
                out.append(f"{v:.12g} ({_WHERE[kind]}{_whose(model, kind, int(p))})")
        more = self.count() - min(len(out), limit)
        return ", ".join(out[:limit]) + (f" and {more} more" if more > 0 else "")


def _whose(model: CanonicalModel, kind: str, p: int) -> str:
    if kind in ("obj", "lb", "ub"):
        return f" of {model.var_names[p]}"
    if kind in ("row_lower", "row_upper"):
        return f" of {model.row_names[p]}"
    if kind == "coef":
        row = int(np.searchsorted(model.csr.indptr, p, side="right") - 1)
        return f" of {model.var_names[int(model.csr.indices[p])]} in {model.row_names[row]}"
    return ""


def model_numbers(model: CanonicalModel) -> Numbers:
    """Every number of a model that is not 0, infinite or a 0/1 bound of a binary (those
    carry no data): objective, constant, quadratic terms, coefficients, row sides, bounds."""
    def nz(values: np.ndarray, keep: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
        ok = np.isfinite(values) & (values != 0)
        if keep is not None:
            ok &= keep
        pos = np.flatnonzero(ok)
        return pos, values[pos]

    binary = model.var_types == "B"
    at = {"obj": nz(model.obj), "obj_constant": nz(np.array([model.obj_constant])),
          "qobj": nz(model.qobj[2]), "coef": nz(model.csr.data),
          "row_lower": nz(model.row_lower), "row_upper": nz(model.row_upper),
          "lb": nz(model.lb, ~binary), "ub": nz(model.ub, ~(binary & (model.ub == 1))),
          "qrow": nz(model.qrows[3])}
    return Numbers(at)


_SIDES = frozenset({"obj_constant", "row_lower", "row_upper", "lb", "ub"})


def _select(nums: Numbers, bad: np.ndarray) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The numbers of ``nums`` whose flag in ``bad`` (one per number, in order) is set."""
    out, k = {}, 0
    for kind, (pos, vals) in nums.at.items():
        sel = bad[k:k + len(vals)]
        k += len(vals)
        if sel.any():
            out[kind] = (pos[sel], vals[sel])
    return out


def ungrounded(model: CanonicalModel, grounds: Grounds, x: np.ndarray | None = None,
               objective: float | None = None, solve: Solve | None = None
               ) -> tuple[Numbers, bool | None]:
    """The numbers of ``model`` that ``grounds`` does not ground, and whether loosening them
    moves the optimum (None: undecided; False without a solve when there are none). A side of
    a row that is a big-M coefficient of the row plus a grounded number moves with that
    coefficient instead (``links``).

    Staged, because deriving is costly and most numbers are stated as given: numbers not
    given as such are loosened first; only when the optimum rests on some of them are they
    derived, and only derived ones it still rests on are checked for being evidence."""
    nums = model_numbers(model)
    if "obj_constant" in nums.at and grounds.total(model.obj_constant):
        nums = Numbers({k: v for k, v in nums.at.items() if k != "obj_constant"})
    values = np.concatenate([v for _, v in nums.at.values()] or [np.zeros(0)])
    distinct, inverse = np.unique(np.abs(values), return_inverse=True)
    direct = grounds.direct(distinct)
    stage = _link(model, Numbers(_select(nums, ~direct[inverse])), grounds)
    if not stage.count() or solve is None or objective is None:
        return stage, False if not stage.count() else None
    moved = moves(model, stage, x, objective, solve)
    if moved is False:
        return stage, False
    rest = np.flatnonzero(~direct)
    der = np.zeros(distinct.shape, dtype=bool)
    der[rest] = grounds.derived(distinct[rest], distinct[direct])
    left = np.flatnonzero(~direct & ~der)  # a model number plus or minus a stated one
    der[left] = grounds.derived(distinct[left], distinct[direct | der])
    stage = _link(model, Numbers(_select(nums, (~direct & ~der)[inverse])), grounds)
    if stage.count():
        moved = moves(model, stage, x, objective, solve)
        if moved is not False:
            return stage, moved
    return stage, False


def _delta(model: CanonicalModel, nums: Numbers, x: np.ndarray | None, objective: float,
           solve: Solve) -> float | None:
    """How far loosening ``nums`` moves the optimum (None: not solved to a verdict; inf:
    the loosened model is infeasible or unbounded)."""
    status, value = solve(loosened(model, nums, x))
    if status in ("infeasible", "unbounded", "infeasible_or_unbounded"):
        return float("inf")
    if status != "optimal" or value is None:
        return None
    return abs(value - objective)


def reliance(model: CanonicalModel, grounds: Grounds, x: np.ndarray, objective: float,
             solve: Solve) -> str | None:
    """Why the optimum rests on no number the problem states (None: it rests on the
    problem's data).

    Only the constraint side is asked (bounds, row sides, the constant: where an answer is
    typed in; the objective's coefficients are the problem's costs either way). Its numbers
    other than counting constants and unit factors are *stated* where given as such, scaled by
    a unit factor, or derived the way only these data derive them (``Grounds.specific``: a
    product of two decimals, a capacity less a waste allowance); a small-integer sum near
    which every integer derives too is not. Where the constraint side's numbers together move
    the optimum, the stated ones must move it too."""
    nums = model_numbers(model)
    at = {k: v for k, v in nums.at.items() if k in _SIDES}
    if "obj_constant" in at and grounds.total(model.obj_constant):
        del at["obj_constant"]
    if not at:
        return None
    sides = Numbers(at)
    values = np.abs(np.concatenate([v for _, v in at.values()]))
    distinct, inverse = np.unique(values, return_inverse=True)
    factor = grounds.factor(distinct)
    if factor.all():
        return None  # the data are in the coefficients (an assignment's rows are all 1)
    data = Numbers(_select(sides, ~factor[inverse]))
    total = _delta(model, data, x, objective, solve)
    tol = max(1e-6, 1e-6 * abs(objective))
    if total is None or total <= tol:
        return None  # the optimum rests on coefficients and counting constants only
    stated_ = (grounds.direct(distinct) | grounds.unary(distinct, shifted=False)) & ~factor
    idx = np.flatnonzero(~stated_ & ~factor)
    if idx.size:
        every = np.concatenate([v for _, v in nums.at.values()])
        big = np.unique(np.abs(every[np.abs(every) > 10]))
        der = grounds.derived(distinct[idx], big)
        d = idx[der]
        stated_[d] = grounds.specific(distinct[d], big)
    stated = Numbers(_select(sides, stated_[inverse]))
    moved = _delta(model, stated, x, objective, solve) if stated.count() else 0.0
    if moved is not None and moved <= tol:
        return ("the optimum rests on none of the numbers the problem states: "
                f"{Numbers(_select(sides, (~stated_ & ~factor)[inverse])).describe(model)} "
                "set it")
    return None


def _link(model: CanonicalModel, nums: Numbers, grounds: Grounds) -> Numbers:
    """Ungrounded row sides explained by an ungrounded coefficient of an integer variable in
    the same row (``side = +-coefficient + grounded``) become its links."""
    if "coef" not in nums.at:
        return nums
    at = dict(nums.at)
    sides = {kind: dict(zip(at[kind][0].tolist(), at[kind][1].tolist(), strict=True))
             for kind in ("row_lower", "row_upper") if kind in at}
    if not sides:
        return nums
    pos, vals = at["coef"]
    rows = np.searchsorted(model.csr.indptr, pos, side="right") - 1
    integral = model.integral[model.csr.indices[pos]]
    links: dict[int, list[tuple[str, int, float]]] = {}
    for p, c, i, is_int in zip(pos.tolist(), vals.tolist(), rows.tolist(), integral.tolist(),
                               strict=True):
        if not is_int:
            continue
        for kind, by_row in sides.items():
            b = by_row.get(i)
            if b is None:
                continue
            for sign in (1.0, -1.0):
                rest = b - sign * c
                if abs(rest) <= 1e-9 * max(1.0, abs(b)) or grounds.grounded([rest])[0]:
                    links.setdefault(p, []).append((kind, i, sign))
                    del by_row[i]
                    break
    if not links:
        return nums
    for kind, by_row in sides.items():
        keep = np.array(sorted(by_row), dtype=np.int64)
        if keep.size:
            at[kind] = (keep, np.array([by_row[r] for r in keep.tolist()]))
        else:
            del at[kind]
    return Numbers(at, links)


def _shift(v: np.ndarray, integral: bool | np.ndarray = True) -> np.ndarray:
    step = DELTA * np.abs(v)
    return np.where(integral, np.maximum(step, 1.0), np.maximum(step, 1e-6))


def loosened(model: CanonicalModel, nums: Numbers, x: np.ndarray | None) -> CanonicalModel:
    """``model`` with the numbers of ``nums`` loosened (see the module docstring)."""
    lb, ub, obj = model.lb.copy(), model.ub.copy(), model.obj.copy()
    lo, hi = model.row_lower.copy(), model.row_upper.copy()
    data, qv, rv = model.csr.data.copy(), model.qobj[2].copy(), model.qrows[3].copy()
    const = model.obj_constant
    at = nums.at
    if "obj" in at:
        obj[at["obj"][0]] *= 1 + DELTA
    if "obj_constant" in at:
        const += float(_shift(np.array([const]))[0])
    if "qobj" in at:
        qv[at["qobj"][0]] *= 1 + DELTA
    if "qrow" in at:
        rv[at["qrow"][0]] *= 1 + DELTA
    equal = model.row_lower == model.row_upper
    for kind, side, sign in (("row_lower", lo, -1.0), ("row_upper", hi, 1.0)):
        if kind in at:
            p = at[kind][0]
            eq = equal[p]
            # An equality's side moves as one: both ends together.
            step = _shift(side[p])
            side[p] += np.where(eq, step, sign * step)
            other = hi if kind == "row_lower" else lo
            other[p[eq]] = side[p[eq]]
    if "lb" in at:
        lb[at["lb"][0]] -= _shift(lb[at["lb"][0]])
    if "ub" in at:
        ub[at["ub"][0]] += _shift(ub[at["ub"][0]])
    if "coef" in at:
        p = at["coef"][0]
        rows = np.searchsorted(model.csr.indptr, p, side="right") - 1
        cols = model.csr.indices[p]
        a = data[p]
        xj = x[cols] if x is not None else np.zeros(len(p))
        upper_only = np.isinf(model.row_lower[rows]) & np.isfinite(model.row_upper[rows])
        lower_only = np.isfinite(model.row_lower[rows]) & np.isinf(model.row_upper[rows])
        # Room at the optimum: a <= row's activity goes down, a >= row's up; where the
        # variable is 0 there, the coefficient grows (a big-M's way).
        room = np.where(upper_only, -np.sign(xj), np.where(lower_only, np.sign(xj), 0.0))
        step = DELTA * np.abs(a)
        data[p] = np.where(room != 0, a + room * step, a * (1 + DELTA))
        # A big-M grows, and the row sides that hold it grow with it.
        for k, q in enumerate(p.tolist()):
            for kind, row, sign in nums.links.get(q, ()):
                new = a[k] + np.sign(a[k]) * max(step[k], 1.0)
                data[q] = new
                side = lo if kind == "row_lower" else hi
                moved = sign * (new - a[k])
                if model.row_lower[row] == model.row_upper[row]:
                    lo[row] += moved
                    hi[row] += moved
                else:
                    side[row] += moved
    csr = type(model.csr)(model.csr.indptr, model.csr.indices, data, model.csr.shape)
    return model.replace(validate=False, lb=lb, ub=ub, obj=obj, obj_constant=const, A=csr,
                         row_lower=lo, row_upper=hi, qobj=(*model.qobj[:2], qv),
                         qrows=(*model.qrows[:3], rv))


def moves(model: CanonicalModel, nums: Numbers, x: np.ndarray | None, objective: float,
          solve: Solve) -> bool | None:
    """Whether loosening ``nums`` moves the optimum (None: the loosened model was not solved
    to a verdict in the time limit)."""
    from ortrex.verifiers.solvers import objectives_agree

    status, value = solve(loosened(model, nums, x))
    if status in ("infeasible", "unbounded", "infeasible_or_unbounded"):
        return True
    if status != "optimal" or value is None:
        return None
    return not objectives_agree(value, objective)


def effective_bounds(model: CanonicalModel) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Variable bounds tightened by every one-variable row (``x == 5`` is a bound too), and
    the indices of those rows."""
    lb, ub = model.lb.copy(), model.ub.copy()
    A = model.A
    rows = np.flatnonzero(np.diff(A.indptr) == 1)
    k = A.indptr[rows]
    j, a = A.indices[k], A.data[k]
    lo, hi = model.row_lower[rows] / a, model.row_upper[rows] / a
    lo, hi = np.where(a < 0, hi, lo), np.where(a < 0, lo, hi)
    np.maximum.at(lb, j, lo)
    np.minimum.at(ub, j, hi)
    return lb, ub, rows


def _contributors(model: CanonicalModel, x: np.ndarray, objective: float) -> np.ndarray:
    """The variables whose terms make up the optimum's variable part."""
    tol = 1e-9 * max(1.0, abs(objective))
    term = np.abs(model.obj * x)
    qi, qj, qv = model.qobj
    if qv.size:
        q = np.abs(qv * x[qi] * x[qj])
        np.add.at(term, qi, q)
        np.add.at(term, qj, q)
    return np.flatnonzero(term > tol)


def _pins(model: CanonicalModel, j: np.ndarray) -> Numbers:
    """The bounds and one-variable rows of the variables ``j``."""
    A = model.A
    single = np.flatnonzero(np.diff(A.indptr) == 1)
    on = single[np.isin(A.indices[A.indptr[single]], j)]
    at = {}
    for kind, arr, pos in (("lb", model.lb, j), ("ub", model.ub, j),
                           ("row_lower", model.row_lower, on),
                           ("row_upper", model.row_upper, on)):
        keep = pos[np.isfinite(arr[pos])]
        if keep.size:
            at[kind] = (keep, arr[keep])
    return Numbers(at)


def trivial_at(model: CanonicalModel, x: np.ndarray, objective: float, solve: Solve,
               grounds: Grounds | None = None) -> str | None:
    """Why the optimum ``objective`` at ``x`` is set by a single number (None: the problem
    decides it). See the module docstring. Given the problem's ``grounds``, a single number
    the statement itself gives (with a stated coefficient) is a degenerate problem honestly
    modelled, not a typed answer (``coverage`` still asks that the model use the data)."""
    used = _contributors(model, x, objective)
    if used.size == 0 and model.obj_constant != 0:
        if grounds is not None and grounds.stated_as_given(np.array([model.obj_constant])):
            return None
        return (f"the optimum is the objective's constant {model.obj_constant:.12g}: no "
                "decision of the model changes it")
    if used.size != 1:
        return None
    lb, ub, _ = effective_bounds(model)
    j = int(used[0])
    v = x[j]
    near = 1e-6 * max(1.0, abs(v))
    at = abs(v - lb[j]) <= near or abs(v - ub[j]) <= near
    if model.integral[j]:
        at = at or (np.isfinite(lb[j]) and v == np.ceil(lb[j] - 1e-9)) or \
            (np.isfinite(ub[j]) and v == np.floor(ub[j] + 1e-9))
    if not at:
        return None
    pins = _pins(model, used)
    if not pins.count():
        return None
    if grounds is not None:
        values = np.concatenate([vals for _, vals in pins.at.values()])
        coef = np.array([model.obj[j]]) if model.obj[j] not in (0.0, 1.0, -1.0) else \
            np.zeros(0)
        values = values[values != 0]
        if grounds.stated_as_given(np.concatenate([values, coef])):
            return None
    if not moves(model, pins, x, objective, solve):
        return None
    name = model.var_names[j]
    return (f"the optimum is set by a single bound: loosening the bound of {name} "
            f"({pins.describe(model)}) moves it; no other part of the model decides it")


def structural(values: np.ndarray) -> bool:
    """Whether a model's numbers are all 0 and 1 (an assignment, a covering, a puzzle): its
    data are its structure, so using none of the stated numbers says nothing."""
    return bool(values.size) and bool(np.all(np.isin(np.abs(values), (0.0, 1.0))))


def coverage(model: CanonicalModel, grounds: Grounds) -> tuple[int, int]:
    """(how many of the problem's data numbers the model uses, how many the problem gives)."""
    values = np.concatenate([v for _, v in model_numbers(model).at.values()] or [np.zeros(0)])
    if structural(values):
        return 0, 0  # nothing for the rule "uses none of the numbers" to say
    return len(grounds.used(values)), int(grounds.evidence.size)
