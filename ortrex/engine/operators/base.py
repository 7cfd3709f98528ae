"""What every mutation operator shares: the context it sees, what it returns, helpers."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from ortrex.ir.expr import Const, Expr, Sum, Var, as_expr, expand
from ortrex.ir.roles import MODELLERS, PRICEABLE, PROTECTED
from ortrex.ir.semantic import ConstraintFamily, Parameter, SemanticModel, VariableFamily

NOT_COUNTABLE = re.compile(
    r"share|fraction|percent|%|kw|mw|gbit|hour|tonne|kg|litre|liter|gram|metre|meter|mm|km|"
    r"kwh|mwh|position|index|usd|eur|money|cost|price|\$", re.I)


class NotApplicable(Exception):
    """The operator does not apply to this model (counted, never fatal)."""


@dataclass(frozen=True)
class Mutation:
    """A child model and what was done to get it."""

    child: SemanticModel
    params: dict[str, Any]


@dataclass(frozen=True)
class Context:
    """What an operator may use: the parent, its optimum's values per family, a seeded rng."""

    parent: SemanticModel
    values: Mapping[str, np.ndarray]
    rng: np.random.Generator
    other: SemanticModel | None = None  # the second parent of a crossover


def with_changes(sm: SemanticModel, op: str, info: dict[str, Any], **changes: Any) -> Mutation:
    """The child: ``sm`` with ``changes``, its descriptors noting the operator."""
    desc = dict(changes.pop("descriptors", sm.descriptors))
    desc["mutations"] = [*desc.get("mutations", []), op]
    new = changes.get("objective", sm.objective)
    if (new.sense, new.description) != (sm.objective.sense, sm.objective.description):
        # The family's one-line summary states its old goal ("at minimum cost"): the story
        # is told again from the child's own objective.
        verb = "Minimise" if new.sense == "min" else "Maximise"
        desc["summary"] = f"{verb} the {new.description}."
    # What a modeller derives from the data (a big-M, a count) follows the new data.
    return Mutation(replace(sm, descriptors=desc, **changes).rederived(), info)


# The size-limited Gurobi licence (and the families' large band) stop at this many variables
# and rows: a child beyond it could not run its own gurobipy programs.
LICENCE_LIMIT = 2000


def within_licence(m: Mutation) -> Mutation:
    """``m``, or ``NotApplicable`` where its child grounds beyond the licence's size."""
    inst = m.child.ground()
    if inst.num_vars > LICENCE_LIMIT or inst.num_rows > LICENCE_LIMIT:
        raise NotApplicable(f"the child would have {inst.num_vars} variables and "
                            f"{inst.num_rows} rows, beyond the licence's {LICENCE_LIMIT}")
    return m


def one_of(unit: str) -> str:
    """One of a unit (``boxes of supplies`` -> ``box of supplies``; ``kWh`` unchanged)."""
    from ortrex.render.language import singular

    head, _, rest = unit.partition(" ")
    return " ".join(w for w in (singular(head), rest) if w) or "unit"


def fresh_name(sm: SemanticModel, base: str) -> str:
    """``base``, or ``base2``, ``base3``... whichever no set, parameter or family uses."""
    taken = {x.name for x in (*sm.sets, *sm.params, *sm.variables, *sm.constraints)}
    name, k = base, 2
    while name in taken:
        name, k = f"{base}{k}", k + 1
    return name


def entity(sm: SemanticModel, s: str) -> str:
    """The entity noun of set ``s`` (its name when it has none)."""
    return sm.set_map[s].entity or s


def entities_of(sm: SemanticModel, dims: tuple[tuple[str, str], ...]) -> str:
    """``depot and clinic``: the entities a family is indexed by."""
    names = [entity(sm, s) for _, s in dims]
    return " and ".join(dict.fromkeys(names))


def objective_scale(sm: SemanticModel) -> float:
    """Typical magnitude of the objective's coefficients (for weights and penalties)."""
    vals = []
    for m in expand(sm.objective.expr):
        for c in m.coefs:
            if isinstance(c, Const):
                vals.append(abs(c.value))
            else:
                vals.extend(np.abs(sm.param_map[c.name].values).ravel().tolist())
    vals = [v for v in vals if v > 0]
    return float(np.median(vals)) if vals else 1.0


def pick(ctx: Context, items: list[Any], what: str) -> Any:
    """A seeded choice among ``items`` (``NotApplicable`` naming ``what`` when empty)."""
    if not items:
        raise NotApplicable(f"no {what}")
    return items[int(ctx.rng.integers(len(items)))]


def decisions(sm: SemanticModel) -> list[VariableFamily]:
    """The variable families a client decides (not a modeller's auxiliaries: tour positions,
    ordering choices), which operators may price, cap or switch."""
    from ortrex.render.tellings import TELLINGS

    t = TELLINGS.get(sm.family)
    aux = set(t.auxiliaries) if t is not None else set()
    aux |= set(sm.descriptors.get("auxiliaries", []))
    return [v for v in sm.variables if v.name not in aux and v.unit != "position"
            and v.role not in MODELLERS]


def quantities(sm: SemanticModel) -> list[VariableFamily]:
    """Decided amounts (role ``quantity``): what a cap, a ratio, a charge or an on/off option
    may apply to; never a selection, an assignment or a relaxed indicator (fractional
    start-ups). A family no family gave a role counts if it is not binary."""
    return [v for v in decisions(sm) if v.role == "quantity" or (not v.role and v.vtype != "B")]


def objective_at(sm: SemanticModel, values: Mapping[str, np.ndarray]) -> float | None:
    """The parent's objective at its optimum (``values`` per family), for a linear objective;
    None when it cannot be evaluated (quadratic, or no solution)."""
    if not values:
        return None
    inst = sm.ground()
    if inst.has_quadratic_objective:
        return None
    pos = {n: k for k, n in enumerate(inst.var_names)}
    x = np.zeros(inst.num_vars)
    for v in sm.variables:
        arr = np.asarray(values.get(v.name, np.nan), dtype=np.float64)
        for idx in np.ndindex(arr.shape):
            labels = ",".join(sm.set_map[s].elements[i] for (_, s), i in
                              zip(v.dims, idx, strict=True))
            k = pos.get(f"{v.name}[{labels}]" if v.dims else v.name)
            if k is not None and np.isfinite(arr[idx]):
                x[k] = arr[idx]
    return float(inst.obj @ x + inst.obj_constant)


def priceable(sm: SemanticModel) -> list[VariableFamily]:
    """Decisions revenue may be earned on: quantities and selections (never a tour position,
    an assignment or an indicator)."""
    return [v for v in decisions(sm) if v.role in PRICEABLE or (not v.role and v.vtype != "B")]


# Rows a client never states besides the protected ones: symmetry breaking is the
# modeller's choice (identical ovens used in order), never a rule a penalty may buy off.
UNTOLD_ROLES = PROTECTED | {"symmetry"}


def removable(sm: SemanticModel) -> list[ConstraintFamily]:
    """Rules an operator may drop or soften: business rules the statement tells, not the
    ones that define the problem (assignment, degree, balance, subtour, linking,
    definitions), symmetry breaking, a modelling device or a row on a modeller's variable
    (a worst-case bound, a slack, a tour position); a rule with no role is kept, since
    nothing says it may go."""
    from ortrex.render.account import devices

    untold = devices(sm)
    mine = {v.name for v in decisions(sm)}
    return [c for c in sm.constraints if c.role and c.role not in UNTOLD_ROLES
            and c.name not in untold
            and {e.name for e in c.lhs.walk() if isinstance(e, Var)} <= mine]


def countable(v: VariableFamily) -> bool:
    """A continuous family whose unit counts things (not shares, energy, money, ...)."""
    return v.vtype == "C" and not NOT_COUNTABLE.search(v.unit or v.description)


def load_bearing_sets(sm: SemanticModel) -> set[str]:
    """Sets whose size or order is load-bearing: referred to by position parameters, or whose
    size appears as a number in the model (a count parameter, a constant bound such as the
    n - 1 of a tour position) and would go stale if the set changed."""
    pos = sm.position_params()
    out = set(pos.values()) | {s for p in sm.params if p.name in pos for s in p.index}
    numbers = {float(p.values) for p in sm.params if not p.index}
    for v in sm.variables:
        for b in (v.lb, v.ub):
            if isinstance(b, (int, float)) and math.isfinite(b):
                numbers.add(float(b))
    for s in sm.sets:
        if {float(len(s)), float(len(s) - 1)} & numbers and len(s) > 2:
            out.add(s.name)
    return out


def written_decimals(values: np.ndarray, most: int = 4) -> int:
    """How many decimals the finite ``values`` are written with (at most ``most``)."""
    fin = np.asarray(values, dtype=np.float64)
    fin = fin[np.isfinite(fin)]
    return next((d for d in range(most) if np.all(np.abs(fin - np.round(fin, d)) < 1e-9)),
                most)


def round_like(p: Parameter, values: np.ndarray) -> np.ndarray:
    """Values rounded as the parameter is written: whole numbers for integer data, else to
    the decimals its data shows (demands in whole boxes stay whole: never 37.9863 boxes),
    with the digits more a move needs where the data's own would undo all of it (a target
    of 0.05 moved by 4% is 0.052, not 0.05 again)."""
    if p.integer:
        return np.round(values)
    d = written_decimals(p.values)
    out = np.round(values, d)
    if out.shape == p.values.shape and not np.array_equal(values, p.values):
        while d < 4 and np.array_equal(out, p.values):
            d += 1
            out = np.round(values, d)
    return out


def sum_over(v: VariableFamily, body: Expr) -> Expr:
    """``body`` summed over the family's index grid (its conditions on the innermost sum)."""
    for k, (i, s) in enumerate(reversed(v.dims)):
        body = Sum(i, s, body, v.where if k == 0 else ())
    return body


def used_params(sm: SemanticModel) -> set[str]:
    """Parameters the model's expressions and bounds read (others only describe the data)."""
    exprs: list[Any] = [sm.objective.expr]
    for c in sm.constraints:
        exprs += [c.lhs, as_expr(c.rhs)]
    for v in sm.variables:
        exprs += [as_expr(b) for b in (v.lb, v.ub) if isinstance(b, Expr)]
    return {e.name for x in exprs for e in x.walk() if hasattr(e, "idx") and
            e.name in sm.param_map}


def referenced(sm: SemanticModel) -> set[str]:
    """Parameters anything reads: expressions, bounds, link conditions, derivations."""
    out = used_params(sm) | set(sm.position_params())
    for expression in dict(sm.descriptors.get("derived") or {}).values():
        out |= set(re.findall(r"[A-Za-z_]\w*", str(expression))) & set(sm.param_map)
    return out


def used_sets(sm: SemanticModel) -> set[str]:
    """Sets something ranges over: a parameter, a variable family, a rule, a sum."""
    out = {s for p in sm.params for s in p.index}
    out |= {s for v in sm.variables for _, s in v.dims}
    exprs: list[Any] = [sm.objective.expr]
    for c in sm.constraints:
        out |= {s for _, s in c.forall}
        exprs += [c.lhs, as_expr(c.rhs)]
    return out | {e.over for x in exprs for e in x.walk() if isinstance(e, Sum)}


def numeric_params(sm: SemanticModel) -> list[Parameter]:
    """Parameters the model reads that hold real data (not positions, not 0/1, not 0)."""
    pos = sm.position_params()
    used = used_params(sm)
    derived = sm.derived_params  # structure, not data: follows the data it comes from
    return [p for p in sm.params if p.name not in pos and p.name in used
            and p.name not in derived
            and np.any(p.values != 0) and not np.all(np.isin(p.values, (0, 1)))]
