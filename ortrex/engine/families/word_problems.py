"""Word problems: the small product mixes with ratio rules and the whole-number fleet mixes of
NL4OPT-style exercises, goal programmes with deviation variables, and purchasing under
incremental quantity discounts.

Word problems are small by nature: a client tells two to five decisions in one paragraph, so
the large band of ``product_mix_ratio`` and ``fleet_mix`` stays at four or five decisions
(more rules, not more decisions). Their data are drawn, then checked on the drawn model with a
small solve (``scipy.optimize.milp``) and drawn again where the exercise would be hollow: the
ratio rules, budgets and limits of a mix or a fleet are set from the optimum without them (so
each cuts that optimum off), a fleet's relaxation must be fractional, a goal programme must miss
a goal, and a purchase must reach a discount with a supplier's limit in use.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, Idx, P, V, total
from ortrex.ir.semantic import SemanticModel

_DRAWS = 40  # data draws tried before the last one is kept as it is
_EPS = 1e-6


class _NoPlan(Exception):
    """A drawn model without an optimum (the draw is dropped)."""


@dataclass
class _Rows:
    """Linear rows ``lo <= a x <= hi`` of a small model solved while its data are drawn."""

    n: int
    a: list[np.ndarray] = field(default_factory=list)
    lo: list[float] = field(default_factory=list)
    hi: list[float] = field(default_factory=list)

    def add(self, a: np.ndarray, lo: float = -np.inf, hi: float = np.inf) -> None:
        """One more row."""
        self.a.append(np.asarray(a, dtype=float))
        self.lo.append(lo)
        self.hi.append(hi)

    def drop(self) -> None:
        """The last row taken back."""
        self.a.pop()
        self.lo.pop()
        self.hi.pop()

    def solve(self, c: np.ndarray, whole: bool | np.ndarray = False,
              ub: np.ndarray | float = np.inf) -> tuple[np.ndarray, float] | None:
        """argmin ``c x`` over the rows and ``0 <= x <= ub`` (integer where ``whole``)."""
        cons = [LinearConstraint(np.vstack(self.a), self.lo, self.hi)] if self.a else []
        integrality = np.broadcast_to(np.asarray(whole, dtype=int), (self.n,))
        res = milp(np.asarray(c, dtype=float), constraints=cons, integrality=integrality,
                   bounds=Bounds(0.0, ub), options={"time_limit": 5.0})
        if res.status != 0 or res.x is None:
            return None
        return np.asarray(res.x), float(res.fun)

    def plan(self, c: np.ndarray, whole: bool | np.ndarray = False) -> np.ndarray:
        """The optimal ``x`` of :meth:`solve`; :class:`_NoPlan` when there is none."""
        got = self.solve(c, whole)
        if got is None:
            raise _NoPlan
        return got[0]

    def used(self, x: np.ndarray, k: int) -> float:
        """How much of row ``k``'s upper limit ``x`` uses (1 = all of it)."""
        hi = self.hi[k]
        return float(self.a[k] @ x / hi) if hi > _EPS else 1.0


def _nice(v: float, step: float) -> float:
    """``v`` rounded to a multiple of ``step`` (a figure as a person would set it)."""
    return float(max(step, round(v / step) * step))


def _first_fit(draw: Callable[[], dict[str, object]]) -> dict[str, object]:
    """The first draw that makes a good exercise (its ``ok``); after ``_DRAWS`` draws, the
    last complete one (a draw stopped early holds nothing but ``ok``)."""
    kept: dict[str, object] = {}
    for _ in range(_DRAWS):
        try:
            data = draw()
        except _NoPlan:
            continue
        if data.pop("ok"):
            return data
        kept = data or kept
    if not kept:
        raise RuntimeError(f"no usable draw in {_DRAWS} tries")
    return kept


def _fractional(x: np.ndarray) -> bool:
    """Whether some value of ``x`` is not whole."""
    return bool(np.any(np.abs(x - np.round(x)) > 1e-6))


# ---------------------------------------------------------------- product mix with ratios
# Per domain: whole units or not, and the ranges of the draws (low, high, decimals): what one
# unit earns, hours it takes, what it costs and a plausible plan (units of each product).
_MIX: Mapping[str, Mapping[str, Any]] = {
    "manufacturing": {"whole": True, "gain": (25, 140, 0), "use": (0.5, 4.0, 1),
                      "cost": (12, 80, 0), "plan": (8, 40), "step": 10.0},
    "marketing": {"whole": True, "gain": (2000, 40000, -2), "use": (1.0, 12.0, 1),
                  "cost": (300, 6000, -1), "plan": (4, 25), "step": 500.0},
    "agriculture": {"whole": False, "gain": (120, 650, 0), "use": (1.0, 9.0, 1),
                    "plan": (30, 200), "step": 10.0},
    "food": {"whole": False, "gain": (2.5, 9.5, 2), "use": (0.01, 0.08, 3),
             "plan": (200, 1500), "step": 50.0},
}
_RATIOS = (0.5, 0.75, 1.0, 1.25, 1.5, 2.0, 2.5, 3.0, 4.0)  # exact in binary: no float noise


@register
class ProductMixRatio(Family):
    """A product-mix word problem: a few products sharing resources, with share and ratio
    rules (at least a share of one product, at most so many of one per unit of another)."""

    name = "product_mix_ratio"
    classes = ("word_problem/ratio",)
    problem_class = "MILP"  # whole pieces and ads are integer; acres and kg are not
    summary = "Choose how much of each {P} to make from shared {R}s under share and ratio rules."
    # Word problems are small by nature: the large band has four or five decisions.
    sizes = {"small": {"P": (2, 2), "R": (2, 2)}, "medium": {"P": (3, 3), "R": (2, 3)},
             "large": {"P": (4, 5), "R": (2, 4)}}
    vocabularies = (
        Vocabulary("manufacturing", "Furniture mix",
                   "A furniture workshop decides how many pieces of each {P} to make this week.",
                   {"P": ("product", "list:furniture"), "R": ("workstation", "list:workstation")},
                   {"unit": "pieces", "one": "piece", "money": "USD", "gain": "profit",
                    "gain_unit": "USD", "res_unit": "hours", "at_R": "at",
                    "org": "furniture workshop", "make": "make", "made": "made", "of": "of",
                    "period": "week", "cost_noun": "material cost", "cost_word": "materials",
                    "budget_word": "materials budget", "total_what": "storage"}),
        Vocabulary("agriculture", "Crop plan",
                   "A farm decides how many acres of each {P} to plant this season.",
                   {"P": ("crop", "list:crop"), "R": ("field operation", "list:farm_task")},
                   {"unit": "acres", "one": "acre", "money": "USD", "gain": "profit",
                    "gain_unit": "USD", "res_unit": "hours", "at_R": "of", "org": "farm",
                    "make": "plant", "made": "planted", "of": "of", "period": "season",
                    "cost_noun": "input cost", "cost_word": "seed and fertiliser",
                    "budget_word": "input budget", "total_what": "land"}),
        Vocabulary("marketing", "Advertising mix",
                   "A retailer decides how many ads to place on each {P} this campaign.",
                   {"P": ("channel", "list:ad_channel"), "R": ("team", "list:ad_team")},
                   {"unit": "ads", "one": "ad", "money": "USD", "gain": "audience reach",
                    "gain_unit": "people", "res_unit": "hours", "at_R": "from",
                    "org": "marketing department", "make": "place", "made": "placed",
                    "of": "on", "period": "campaign", "cost_noun": "cost",
                    "cost_word": "advertising", "budget_word": "campaign budget",
                    "total_what": "slots"}),
        Vocabulary("food", "Roasting plan",
                   "A coffee roastery decides how many kg of each {P} to roast this week.",
                   {"P": ("blend", "list:coffee_blend"), "R": ("roastery step",
                                                             "list:roastery_step")},
                   {"unit": "kg", "one": "kg", "money": "EUR", "gain": "profit",
                    "gain_unit": "EUR", "res_unit": "hours", "at_R": "at",
                    "org": "coffee roastery", "make": "roast", "made": "roasted", "of": "of",
                    "period": "week", "cost_noun": "bean cost", "cost_word": "green beans",
                    "budget_word": "bean budget", "total_what": "buyers"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        spec = _MIX[b.vocab.domain]
        nP, nR = b.dims["P"], b.dims["R"]
        whole = bool(spec["whole"])
        data = _first_fit(lambda: _mix_draw(rng, spec, nP, nR))
        b.set("P")
        b.set("R")
        b.param("gain", ("P",), data["gain"], "{gain} of one {one} of each {P}",
                "{gain_unit} per {one}")
        b.param("use", ("R", "P"), data["use"], "{res_unit} one {one} of each {P} needs {at_R} "
                "each {R}", "{res_unit} per {one}")
        b.param("avail", ("R",), data["avail"], "{res_unit} available {at_R} each {R}",
                "{res_unit}")
        if "budget" in data:  # the whole-unit domains buy what they make from a budget
            b.param("cost", ("P",), data["cost"], "{cost_noun} of one {one} of each {P}",
                    "{money} per {one}")
            b.param("budget", (), data["budget"], "{budget_word}", "{money}")
        if "total_cap" in data:
            b.param("total_cap", (), data["total_cap"], "most {unit} {made} in total",
                    "{unit}")
        if "min_first" in data:
            b.param("min_first", (), data["min_first"], "fewest {unit} of the first {P}",
                    "{unit}")
        if "share" in data:
            b.param("share", (), data["share"], "smallest share of the first {P} in all {unit} "
                    "{made}", "percent")
        if "ratio" in data:
            b.param("ratio", (), data["ratio"], "largest ratio of the last {P} to the first",
                    "to 1")
        b.var("x", (("p", "P"),), "{unit} of {P} p {made}", vtype="I" if whole else "C",
              unit="{unit}", role="quantity")
        b.con("resource_limit", "The {res_unit} used {at_R} each {R} stay within what is "
              "available.", (("r", "R"),),
              total("p", "P", P("use", "r", "p") * V("x", "p")), "<=", P("avail", "r"),
              role="capacity")
        if "budget" in data:
            b.con("budget_limit", "Spending on {cost_word} stays within the "
                  "{budget_word}.", (), total("p", "P", P("cost", "p") * V("x", "p")), "<=",
                  P("budget"), role="budget")
        if "total_cap" in data:
            b.con("total_limit", "At most the given number of {unit} are {made} in total.", (),
                  total("p", "P", V("x", "p")), "<=", P("total_cap"), role="capacity")
        if "min_first" in data:
            b.con("first_minimum", "At least the minimum of the first {P} is {made}.",
                  (("p", "P"),), V("x", "p"), ">=", P("min_first"),
                  where=(Cond("first", "p"),), role="demand")
        if "share" in data:
            # In percent: 100 x_first >= share * sum x keeps every coefficient whole.
            b.con("min_share", "The first {P} makes up at least its share of all {unit} "
                  "{made}.", (("p", "P"),), 100 * V("x", "p"), ">=",
                  P("share") * total("q", "P", V("x", "q")), where=(Cond("first", "p"),),
                  role="ratio")
        if "ratio" in data:
            b.con("ratio_limit", "The last {P} stays within its ratio to the first {P}.",
                  (("p", "P"),), V("x", "p"), "<=",
                  P("ratio") * total("q", "P", V("x", "q"), Cond("first", "q")),
                  where=(Cond("last", "p"),), role="ratio")
        b.objective("max", total("p", "P", P("gain", "p") * V("x", "p")),
                    "total {gain} in {gain_unit}")


def _mix_draw(rng: np.random.Generator, spec: Mapping[str, Any], nP: int, nR: int
              ) -> dict[str, object]:
    """One draw of a product mix: data, rules set from the optimum without them, and
    whether the result is a good exercise (``ok``: a ratio rule binds, both kinds of
    capacity are used, at least two products made, a fractional relaxation when whole)."""
    whole = bool(spec["whole"])
    lo, hi, dg = spec["gain"]
    gain = rounded(rng.uniform(lo, hi, nP), dg)
    lo, hi, dg = spec["use"]
    use = rounded(rng.uniform(lo, hi, (nR, nP)), dg)
    plan = rng.uniform(*spec["plan"], nP)
    cost = None
    if "cost" in spec:
        lo, hi, dg = spec["cost"]
        cost = rounded(rng.uniform(lo, hi, nP), dg)
    step = float(spec["step"])
    avail = np.array([_nice(v, 5.0 if v > 20 else 0.5) for v in use @ plan *
                      rng.uniform(0.85, 1.1, nR)])
    rows = _Rows(nP)
    for r in range(nR):
        rows.add(use[r], hi=float(avail[r]))
    x = rows.plan(-gain)
    # The dominant product goes last (the ratio rule holds it back), the least favoured first
    # (the share rule and the minimum push it up); the rest keep a random order.
    last = int(np.argmax(gain * x))
    others = [k for k in range(nP) if k != last]
    first = min(others, key=lambda k: (x[k], rng.random()))
    middle = [k for k in others if k != first]
    order = [first, *(middle[int(k)] for k in rng.permutation(len(middle))), last]
    gain, use, plan = gain[order], use[:, order], plan[order]
    cost = cost[order] if cost is not None else None
    rows = _Rows(nP)
    for r in range(nR):
        rows.add(use[r], hi=float(avail[r]))
    out: dict[str, object] = {"gain": gain, "use": use, "avail": avail}
    x = rows.plan(-gain)

    def resolve() -> np.ndarray:
        return rows.plan(-gain)

    if cost is not None:
        budget = _nice(float(cost @ x) * rng.uniform(0.8, 0.95), step)
        rows.add(cost, hi=budget)
        out.update(cost=cost, budget=budget)
        x = resolve()
    if not whole or rng.random() < 0.4:
        cap = _nice(float(x.sum()) * rng.uniform(0.8, 0.95), 5.0 if whole else step)
        total_row = len(rows.a)
        rows.add(np.ones(nP), hi=cap)
        out["total_cap"] = cap
        x = resolve()
    else:
        total_row = -1
    if rng.random() < 0.35:
        m = _nice(max(float(x[0]) * rng.uniform(1.2, 1.6), float(plan[0]) * 0.4),
                  1.0 if whole else 5.0)
        rows.add(np.eye(nP)[0], lo=m)
        trial = rows.solve(-gain)
        if trial is None:
            rows.drop()
        else:
            out["min_first"], x = m, trial[0]
    ratio_rows = []
    want_share = rng.random() < 0.75
    if want_share:
        s0 = 100 * float(x[0]) / max(float(x.sum()), _EPS)
        share = _nice(rng.uniform(s0 + 8, s0 + 30), 5.0)
        if share <= 60 and share > s0 + 4:
            a = -share * np.ones(nP)
            a[0] += 100
            ratio_rows.append(len(rows.a))
            rows.add(a, lo=0.0)
            out["share"] = share
            x = resolve()
    if not ratio_rows or rng.random() < 0.5:
        r0 = float(x[-1]) / float(x[0]) if x[0] > _EPS else np.inf
        fits = [k for k in _RATIOS if k < 0.85 * r0 and (np.isfinite(r0) or 1 <= k <= 3)]
        if fits:
            k = fits[int(rng.integers(len(fits)))] if not np.isfinite(r0) else \
                fits[-1 - int(rng.integers(min(3, len(fits))))]
            a = np.zeros(nP)
            a[-1], a[0] = 1.0, -k
            ratio_rows.append(len(rows.a))
            rows.add(a, hi=0.0)
            out["ratio"] = k
    out["ok"] = _mix_ok(rows, gain, whole, ratio_rows, nR, total_row)
    return out


def _mix_ok(rows: _Rows, gain: np.ndarray, whole: bool, ratio_rows: list[int], nR: int,
            total_row: int) -> bool:
    """The checks of a drawn product mix (see ``_mix_draw``)."""
    if not ratio_rows:
        return False
    relaxed = rows.solve(-gain)
    best = rows.solve(-gain, whole=whole)
    if relaxed is None or best is None:
        return False
    xl, x = relaxed[0], best[0]
    if whole and (not _fractional(xl) or relaxed[1] > best[1] - 1e-6 * max(1, abs(best[1]))):
        return False  # the relaxation must be fractional and better than the whole plan
    if np.sum(x > 0.5) < 2 or x.sum() < 3:
        return False
    binds = any(abs(rows.a[k] @ xl - (rows.lo[k] if np.isfinite(rows.lo[k]) else rows.hi[k]))
                <= 1e-6 * max(1.0, float(np.abs(rows.a[k]).sum() * xl.max()))
                for k in ratio_rows)
    if not binds:
        return False
    if max(rows.used(x, r) for r in range(nR)) < 0.9:
        return False
    return not (total_row >= 0 and rows.used(x, total_row) < 0.9)


# ---------------------------------------------------------------- fleet mix
# Per domain: what is minimised ("cost" or "count"), the ranges of capacity per unit, cost per
# unit, the second resource per unit, and how many units a plan should roughly need.
_FLEET: Mapping[str, Mapping[str, Any]] = {
    "logistics": {"goal": "cost", "cap": (6, 40, 0), "cost": (150, 900, 0),
                  "res": (40, 320, 0), "need": (8, 30)},
    "energy": {"goal": "cost", "cap": (30, 400, 0), "cost": (90, 950, 0), "res": (60, 900, 0),
               "need": (6, 20)},
    "manufacturing": {"goal": "count", "cap": (150, 1500, -1), "cost": (900, 6000, -1),
                      "res": (8, 45, 0), "need": (6, 24)},
    "food": {"goal": "count", "cap": (250, 1800, -1), "cost": (400, 2500, -1),
             "res": (6, 40, 0), "need": (6, 24)},
}


@register
class FleetMix(Family):
    """An integer word problem: how many units of each kind (trucks, presses, ovens,
    generators) cover a requirement, with a strict "more of one kind than of another" rule,
    a limit on one kind, a budget or a resource limit; least cost or fewest units."""

    name = "fleet_mix"
    classes = ("word_problem/integer",)
    problem_class = "MILP"
    summary = "Choose how many {K}s of each type cover the requirement, in whole units."
    # Word problems are small by nature: the large band has four or five decisions.
    sizes = {"small": {"K": (2, 2)}, "medium": {"K": (3, 3)}, "large": {"K": (4, 5)}}
    vocabularies = (
        Vocabulary("logistics", "Truck fleet",
                   "A haulier decides how many {K}s of each type to run every day.",
                   {"K": ("truck", "list:truck_type")},
                   {"money": "USD", "req": "freight", "req_unit": "tonnes per day",
                    "hire": "run", "cover": "move", "org": "haulage firm",
                    "cost_unit": "USD per truck per day", "res": "CO2 emissions",
                    "res_unit": "kg", "res_cap_word": "daily CO2 allowance",
                    "budget_word": "daily budget", "budget_unit": "USD per day",
                    "obj": "daily running cost in USD"}),
        Vocabulary("energy", "Generator hire",
                   "A site operator decides how many {K}s of each type to rent for a job.",
                   {"K": ("generator", "list:generator_type")},
                   {"money": "EUR", "req": "output", "req_unit": "kW", "hire": "rent",
                    "cover": "supply", "org": "site operator",
                    "cost_unit": "EUR per generator per day", "res": "CO2 emissions",
                    "res_unit": "kg", "res_cap_word": "daily CO2 allowance",
                    "budget_word": "daily budget", "budget_unit": "EUR per day",
                    "obj": "daily rental cost in EUR"}),
        Vocabulary("manufacturing", "Press shop",
                   "A press shop decides how many {K}s of each type to install.",
                   {"K": ("press", "list:press_type")},
                   {"money": "USD", "req": "output", "req_unit": "parts per shift",
                    "hire": "install", "cover": "stamp", "org": "press shop",
                    "cost_unit": "USD per press per month", "res": "floor space",
                    "res_unit": "square metres", "res_cap_word": "floor space available",
                    "budget_word": "monthly lease budget", "budget_unit": "USD per month",
                    "obj": "number of presses installed"}),
        Vocabulary("food", "Bakery ovens",
                   "An industrial bakery decides how many {K}s of each type to install.",
                   {"K": ("oven", "list:oven_type")},
                   {"money": "EUR", "req": "output", "req_unit": "loaves per day",
                    "hire": "install", "cover": "bake", "org": "industrial bakery",
                    "cost_unit": "EUR per oven per month", "res": "power draw",
                    "res_unit": "kW", "res_cap_word": "power supply",
                    "budget_word": "monthly lease budget", "budget_unit": "EUR per month",
                    "obj": "number of ovens installed"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        spec = _FLEET[b.vocab.domain]
        nK = b.dims["K"]
        data = _first_fit(lambda: _fleet_draw(rng, spec, nK))
        b.set("K")
        b.param("capacity", ("K",), data["capacity"], "{req} one {K} of each type handles",
                "{req_unit}")
        b.param("cost", ("K",), data["cost"], "cost of one {K} of each type", "{cost_unit}")
        b.param("demand", (), data["demand"], "{req} to cover", "{req_unit}")
        if "res_cap" in data:
            b.param("res_use", ("K",), data["res_use"], "{res} of one {K} of each type",
                    "{res_unit} per {K}")
            b.param("res_cap", (), data["res_cap"], "{res_cap_word}", "{res_unit}")
        if "max_last" in data:
            b.param("max_last", (), data["max_last"], "most {K}s of the last type",
                    "{K}s", integer=True)
        if "budget" in data:
            b.param("budget", (), data["budget"], "{budget_word}", "{budget_unit}")
        b.var("x", (("k", "K"),), "number of {K}s of type k", vtype="I", unit="{K}s",
              role="quantity")
        b.con("cover", "The {K}s together handle at least the {req} to cover.", (),
              total("k", "K", P("capacity", "k") * V("x", "k")), ">=", P("demand"),
              role="demand")
        # "More of the first type than of the last": strict, so with whole numbers at least
        # one more (x_first >= x_last + 1).
        b.con("more_first", "There are more {K}s of the first type than of the last.",
              (("k", "K"),),
              V("x", "k") - total("q", "K", V("x", "q"), Cond("last", "q")), ">=", 1.0,
              where=(Cond("first", "k"),), role="logic")
        if "max_last" in data:
            b.con("last_limit", "No more than the given number of {K}s of the last type "
                  "are used.",
                  (("k", "K"),), V("x", "k"), "<=", P("max_last"),
                  where=(Cond("last", "k"),), role="capacity")
        if "res_cap" in data:
            b.con("res_limit", "The {K}s together keep within the {res_cap_word}.", (),
                  total("k", "K", P("res_use", "k") * V("x", "k")), "<=", P("res_cap"),
                  role="capacity")
        if "budget" in data:
            b.con("budget_limit", "The {K}s together stay within the {budget_word}.", (),
                  total("k", "K", P("cost", "k") * V("x", "k")), "<=", P("budget"),
                  role="budget")
        if spec["goal"] == "count":
            b.objective("min", total("k", "K", V("x", "k")), "{obj}")
        else:
            b.objective("min", total("k", "K", P("cost", "k") * V("x", "k")), "{obj}")


def _fleet_draw(rng: np.random.Generator, spec: Mapping[str, Any], nK: int
                ) -> dict[str, object]:
    """One draw of a fleet mix, its rules set from the optimum without them; ``ok`` when
    the relaxation is fractional and better, every capacity is used and two kinds are in
    the plan."""
    lo, hi, dg = spec["cap"]
    cap = np.sort(rounded(rng.uniform(lo, hi, nK), dg))
    if len(set(cap.tolist())) < nK:
        return {"ok": False}
    # Bigger units cost more, but not in proportion: some kinds are better buys.
    lo, hi, dg = spec["cost"]
    scale = (cap - cap.min()) / max(float(cap.max() - cap.min()), _EPS)
    cost = rounded(lo + (hi - lo) * (0.15 + 0.7 * scale) * rng.uniform(0.75, 1.25, nK), dg)
    lo, hi, dg = spec["res"]
    res = rounded(lo + (hi - lo) * (0.1 + 0.8 * scale) * rng.uniform(0.7, 1.3, nK), dg)
    cost, res = np.maximum(cost, 1.0), np.maximum(res, 1.0)
    need = rng.uniform(*spec["need"])
    demand = _nice(float(cap.mean() * need) + float(rng.uniform(0.1, 0.9) * cap.min()),
                   5.0 if cap.max() < 100 else 50.0)
    count = spec["goal"] == "count"
    c = np.ones(nK) if count else cost
    # The kind the bare optimum prefers goes last (the strict rule and its limit hold it
    # back), a kind it leaves out goes first.
    eff = cap / c
    last = int(np.argmax(eff))
    first = int(min((k for k in range(nK) if k != last), key=lambda k: (eff[k], rng.random())))
    middle = [k for k in range(nK) if k not in (first, last)]
    order = [first, *(middle[int(k)] for k in rng.permutation(len(middle))), last]
    cap, cost, res, c = cap[order], cost[order], res[order], c[order]
    out: dict[str, object] = {"capacity": cap, "cost": cost, "demand": demand}
    rows = _Rows(nK)
    rows.add(cap, lo=demand)
    more = np.zeros(nK)
    more[0], more[-1] = 1.0, -1.0
    rows.add(more, lo=1.0)
    cap_rows = []
    got = rows.solve(c, whole=True)
    if got is None:
        return {"ok": False}
    x = got[0]
    if count:  # fewest units: a budget keeps the big kinds in check
        budget = _nice(float(cost @ x) * rng.uniform(0.9, 0.99), 50.0)
        rows.add(cost, hi=budget)
        out["budget"] = budget
        got = rows.solve(c, whole=True)
        if got is None:
            return {"ok": False}
        x = got[0]
    if x[-1] >= 2 and rng.random() < 0.6:
        m = float(max(1, int(x[-1]) - int(rng.integers(1, 3))))
        cap_rows.append(len(rows.a))
        rows.add(np.eye(nK)[-1], hi=m)
        out["max_last"] = m
        got = rows.solve(c, whole=True)
        if got is None:
            return {"ok": False}
        x = got[0]
    if rng.random() < 0.6:
        limit = _nice(float(res @ x) * rng.uniform(0.93, 1.0), 5.0 if res.max() < 100 else 10.0)
        cap_rows.append(len(rows.a))
        rows.add(res, hi=limit)
        out.update(res_use=res, res_cap=limit)
    relaxed = rows.solve(c)
    best = rows.solve(c, whole=True)
    if relaxed is None or best is None:
        return {"ok": False}
    x = best[0]
    ok = _fractional(relaxed[0]) and relaxed[1] < best[1] - 1e-6 * max(1.0, abs(best[1])) \
        and int(np.sum(x > 0.5)) >= 2 and all(rows.used(x, k) >= 0.9 for k in cap_rows)
    # Fewest units has many optima: every one of them must use each limit (the solvers may
    # return any), so the least use of each limit over the optima is what counts.
    if ok:
        rows.add(c, hi=best[1] + 1e-6 * max(1.0, abs(best[1])))
        for k in cap_rows:
            least = rows.solve(rows.a[k], whole=True)
            ok = ok and least is not None and rows.used(least[0], k) >= 0.9
    out["ok"] = ok
    return out


# ---------------------------------------------------------------- goal programming
_GOALS: Mapping[str, Mapping[str, tuple[float, float, int]]] = {
    # profit per unit, hours per unit, material per unit
    "manufacturing": {"profit": (12, 70, 0), "hours": (0.3, 3.0, 1), "use": (0.5, 6.0, 1)},
    "food": {"profit": (4, 25, 1), "hours": (0.1, 1.2, 2), "use": (0.5, 4.0, 1)},
    "energy": {"profit": (40, 260, 0), "hours": (0.5, 4.0, 1), "use": (0.6, 3.0, 2)},
}


@register
class GoalProgramming(Family):
    """Weighted goal programming: a profit target, a volume target and regular hours per
    department, each missed goal penalised per unit of deviation; hard material limits."""

    name = "goal_programming"
    # A deviation pair below and above a target is a weighted absolute value, linearised.
    classes = ("objective/goal_programming", "logic/min_max")
    problem_class = "LP"
    summary = "Plan output of {P}s so that the weighted misses of the profit, volume and " \
              "{D} hour goals are as small as possible."
    sizes = {"small": {"P": (2, 3), "D": (1, 1), "R": (1, 1)},
             "medium": {"P": (4, 6), "D": (2, 3), "R": (1, 2)},
             "large": {"P": (8, 12), "D": (2, 4), "R": (2, 3)}}
    vocabularies = (
        Vocabulary("manufacturing", "Production goals",
                   "A manufacturer plans weekly output of {P}s against several goals.",
                   {"P": ("product", "list:product"), "D": ("department", "list:workstation"),
                    "R": ("material", "list:raw_material")},
                   {"unit": "units", "one": "unit", "money": "USD", "mat_unit": "kg",
                    "make": "make", "org": "factory", "period": "week"}),
        Vocabulary("food", "Bakery goals",
                   "A bakery plans the week's trays of {P}s against several goals.",
                   {"P": ("baked good", "list:bakery"), "D": ("section", "list:bakery_step"),
                    "R": ("ingredient", "list:ingredient")},
                   {"unit": "trays", "one": "tray", "money": "EUR", "mat_unit": "kg",
                    "make": "bake", "org": "bakery", "period": "week"}),
        Vocabulary("energy", "Biorefinery goals",
                   "A biorefinery plans the month's output of {P}s against several goals.",
                   {"P": ("fuel", "list:fuel_grade"), "D": ("plant unit", "list:plant_unit"),
                    "R": ("feedstock", "list:feedstock")},
                   {"unit": "kilolitres", "one": "kilolitre", "money": "USD",
                    "mat_unit": "tonnes", "make": "produce", "org": "biorefinery",
                    "period": "month"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every goal met: no penalty is paid, the targets ask for nothing hard."""
        missed = sum(float(np.nansum(values[v])) for v in
                     ("profit_short", "volume_short", "overtime") if v in sm.var_map)
        return "every goal is met: the targets are no trade-off" if missed <= 1e-6 else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        spec = _GOALS[b.vocab.domain]
        nP, nD, nR = b.dims["P"], b.dims["D"], b.dims["R"]
        data = _first_fit(lambda: _goal_draw(rng, spec, nP, nD, nR))
        for s in ("P", "D", "R"):
            b.set(s)
        b.param("profit", ("P",), data["profit"], "profit of one {one} of each {P}",
                "{money} per {one}")
        b.param("hours", ("D", "P"), data["hours"], "hours one {one} of each {P} needs in "
                "each {D}", "hours per {one}")
        b.param("use", ("R", "P"), data["use"], "{R} one {one} of each {P} uses",
                "{mat_unit} per {one}")
        b.param("avail", ("R",), data["avail"], "{R} available this {period}", "{mat_unit}")
        b.param("profit_target", (), data["profit_target"], "profit target", "{money}")
        b.param("volume_target", (), data["volume_target"], "output target", "{unit}")
        b.param("hours_target", ("D",), data["hours_target"], "regular hours of each {D}",
                "hours")
        b.param("w_profit", (), data["w_profit"], "penalty per {money} of profit short of "
                "target", "points per {money}")
        b.param("w_volume", (), data["w_volume"], "penalty per {one} short of the output "
                "target", "points per {one}")
        b.param("w_over", ("D",), data["w_over"], "penalty per overtime hour in each {D}",
                "points per hour")
        b.var("x", (("p", "P"),), "{unit} of {P} p made", unit="{unit}", role="quantity")
        b.var("profit_short", (), "{money} by which profit falls short of the target",
              unit="{money}", role="auxiliary")
        b.var("profit_extra", (), "{money} by which profit exceeds the target", unit="{money}",
              role="auxiliary")
        b.var("volume_short", (), "{unit} by which output falls short of the target",
              unit="{unit}", role="auxiliary")
        b.var("volume_extra", (), "{unit} by which output exceeds the target", unit="{unit}",
              role="auxiliary")
        b.var("idle", (("d", "D"),), "regular hours of {D} d left unused", unit="hours",
              role="auxiliary")
        b.var("overtime", (("d", "D"),), "hours of {D} d beyond its regular hours",
              unit="hours", role="auxiliary")
        b.con("profit_goal", "Profit plus its shortfall minus its excess equals the target.",
              (), total("p", "P", P("profit", "p") * V("x", "p")) + V("profit_short") -
              V("profit_extra"), "=", P("profit_target"), role="definition")
        b.con("volume_goal", "Output plus its shortfall minus its excess equals the target.",
              (), total("p", "P", V("x", "p")) + V("volume_short") - V("volume_extra"), "=",
              P("volume_target"), role="definition")
        b.con("hours_goal", "Hours used in each {D} plus idle hours minus overtime equal its "
              "regular hours.", (("d", "D"),),
              total("p", "P", P("hours", "d", "p") * V("x", "p")) + V("idle", "d") -
              V("overtime", "d"), "=", P("hours_target", "d"), role="definition")
        b.con("material_limit", "No more of each {R} is used than is available.",
              (("r", "R"),), total("p", "P", P("use", "r", "p") * V("x", "p")), "<=",
              P("avail", "r"), role="capacity")
        b.objective("min", P("w_profit") * V("profit_short") + P("w_volume") *
                    V("volume_short") + total("d", "D", P("w_over", "d") * V("overtime", "d")),
                    "weighted penalty for missed goals in points")


def _goal_draw(rng: np.random.Generator, spec: Mapping[str, tuple[float, float, int]],
               nP: int, nD: int, nR: int) -> dict[str, object]:
    """One draw of a goal programme; ``ok`` when the optimum misses a goal, makes two
    products and uses a material to its limit."""
    lo, hi, dg = spec["profit"]
    profit = rounded(rng.uniform(lo, hi, nP), dg)
    lo, hi, dg = spec["hours"]
    hours = rounded(rng.uniform(lo, hi, (nD, nP)), dg)
    lo, hi, dg = spec["use"]
    use = rounded(rng.uniform(lo, hi, (nR, nP)), dg)
    plan = rng.uniform(20, 120, nP)
    hours_target = np.array([_nice(v, 5.0) for v in hours @ plan * rng.uniform(0.8, 1.0, nD)])
    profit_target = _nice(float(profit @ plan) * rng.uniform(1.05, 1.3), 100.0)
    volume_target = _nice(float(plan.sum()) * rng.uniform(0.9, 1.2), 10.0)
    w_profit = float(rng.integers(1, 4))
    w_volume = float(rng.integers(2, 9) * 5)
    w_over = rng.integers(4, 17, nD).astype(float) * 5
    # Variables: x (nP), profit short/extra, volume short/extra, idle (nD), overtime (nD).
    n = nP + 4 + 2 * nD
    c = np.zeros(n)
    c[nP], c[nP + 2] = w_profit, w_volume
    c[nP + 4 + nD:] = w_over
    rows = _Rows(n)
    a = np.zeros(n)
    a[:nP], a[nP], a[nP + 1] = profit, 1.0, -1.0
    rows.add(a, profit_target, profit_target)
    a = np.zeros(n)
    a[:nP], a[nP + 2], a[nP + 3] = 1.0, 1.0, -1.0
    rows.add(a, volume_target, volume_target)
    for d in range(nD):
        a = np.zeros(n)
        a[:nP], a[nP + 4 + d], a[nP + 4 + nD + d] = hours[d], 1.0, -1.0
        rows.add(a, float(hours_target[d]), float(hours_target[d]))
    got = rows.solve(c)
    if got is None:
        return {"ok": False}
    x = got[0][:nP]
    # Materials cut the plan the goals alone would choose: each limit binds there.
    if x.sum() <= _EPS:
        return {"ok": False}
    avail = np.array([_nice(v, 5.0 if v > 50 else 0.5) for v in use @ x *
                      rng.uniform(0.85, 0.97, nR)])
    for r in range(nR):
        a = np.zeros(n)
        a[:nP] = use[r]
        rows.add(a, hi=float(avail[r]))
    got = rows.solve(c)
    if got is None:
        return {"ok": False}
    xs = got[0]
    x = xs[:nP]
    ok = got[1] > 1e-6 and int(np.sum(x > 1e-6)) >= 2 and \
        max(rows.used(xs, 2 + nD + r) for r in range(nR)) >= 0.9
    return {"profit": profit, "hours": hours, "use": use, "avail": avail,
            "profit_target": profit_target, "volume_target": volume_target,
            "hours_target": hours_target, "w_profit": w_profit, "w_volume": w_volume,
            "w_over": w_over, "ok": ok}


# ---------------------------------------------------------------- piecewise procurement
# Per domain: list prices by material (low, high, per unit), demand per material and the
# size of a supplier's first price tier; a material not listed takes the domain's default.
_BUY: Mapping[str, Mapping[str, tuple[float, float]]] = {
    "manufacturing": {"Steel": (0.8, 1.2), "Aluminium": (2.2, 3.0), "Copper": (8.0, 10.0),
                      "Plastic": (1.2, 2.0), "Rubber": (1.5, 2.5), "Glass": (0.5, 1.0),
                      "Timber": (0.4, 0.9), "Brass": (5.0, 7.0), "Zinc": (2.5, 3.5),
                      "Nickel": (15.0, 20.0), "default": (1.0, 5.0),
                      "demand": (400, 3000), "tier": (100, 600)},
    "food": {"Flour": (0.4, 0.8), "Butter": (5.0, 8.0), "Sugar": (0.6, 1.0), "Eggs": (2.5, 4.0),
             "Chocolate": (6.0, 10.0), "Cream": (3.0, 5.0), "Yeast": (2.0, 4.0),
             "Milk": (0.4, 0.7), "Almonds": (7.0, 11.0), "Honey": (4.0, 7.0),
             "Oats": (0.6, 1.2), "Raisins": (2.5, 4.0), "default": (1.0, 5.0),
             "demand": (200, 1500), "tier": (50, 300)},
    "construction": {"Cement": (110, 160), "Sand": (18, 40), "Gravel": (15, 35),
                     "Rebar": (650, 900), "Bricks": (250, 400), "Timber": (350, 600),
                     "Lime": (120, 200), "Asphalt": (60, 110), "Tiles": (400, 700),
                     "Gypsum": (90, 160), "default": (50, 200),
                     "demand": (40, 300), "tier": (10, 60)},
}


@register
class PiecewiseProcurement(Family):
    """Procurement with incremental quantity discounts: tier amounts with tier binaries (a
    tier is used only once the tier before it is full), demands and supplier limits."""

    name = "piecewise_procurement"
    classes = ("cost/piecewise_linear",)
    problem_class = "MILP"
    summary = "Buy every {M} from {S}s whose prices fall in tiers, at the lowest cost."
    sizes = {"small": {"M": (2, 2), "S": (2, 2), "T": (3, 3)},
             "medium": {"M": (3, 4), "S": (3, 3), "T": (3, 3)},
             "large": {"M": (6, 7), "S": (5, 5), "T": (3, 3)}}
    vocabularies = (
        Vocabulary("manufacturing", "Raw material buying",
                   "A plant buys {M}s from {S}s that give quantity discounts.",
                   {"M": ("raw material", "list:raw_material"), "S": ("supplier", "surname"),
                    "T": ("discount tier", "code:Tier")},
                   {"unit": "kg", "one": "kg", "money": "USD", "org": "plant",
                    "period": "month"}),
        Vocabulary("food", "Ingredient buying",
                   "A bakery buys {M}s from {S}s that give quantity discounts.",
                   {"M": ("ingredient", "list:ingredient"), "S": ("wholesaler", "surname"),
                    "T": ("discount tier", "code:Tier")},
                   {"unit": "kg", "one": "kg", "money": "EUR", "org": "bakery",
                    "period": "month"}),
        Vocabulary("construction", "Site materials",
                   "A building contractor buys {M}s from {S}s that give quantity discounts.",
                   {"M": ("building material", "list:building_material"),
                    "S": ("merchant", "surname"), "T": ("discount tier", "code:Tier")},
                   {"unit": "tonnes", "one": "tonne", "money": "USD",
                    "org": "building contractor", "period": "quarter"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """No purchase reaches a discount: the tiers are decoration."""
        nT = len(sm.set_map["T"])
        y = np.asarray(values["y"], dtype=float).reshape(-1, nT)
        return "no purchase reaches a discount tier" if not np.any(y[:, 1:] > 0.5) else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        spec = _BUY[b.vocab.domain]
        nS, nT = b.dims["S"], b.dims["T"]
        for s in ("M", "S", "T"):
            b.set(s)
        # Names come from a stream of their own: naming first leaves the data draws as they
        # are, and each material gets a list price of its own kind.
        lows, highs = zip(*(spec.get(m, spec["default"]) for m in b.sets[0].elements),
                          strict=True)
        data = _first_fit(lambda: _buy_draw(rng, spec, np.array(lows), np.array(highs), nS,
                                            nT))
        b.param("demand", ("M",), data["demand"], "{unit} of each {M} needed this {period}",
                "{unit}")
        b.param("cap", ("S",), data["cap"], "most {unit} each {S} delivers in total", "{unit}")
        b.param("size", ("S", "T"), data["size"], "{unit} of each {M} each {T} of a {S} "
                "covers", "{unit}")
        b.param("price", ("M", "S", "T"), data["price"], "price of each {M} from each {S} in "
                "each {T}", "{money} per {one}")
        b.var("q", (("m", "M"), ("s", "S"), ("t", "T")), "{unit} of {M} m bought from {S} s "
              "in {T} t", unit="{unit}", role="quantity")
        b.var("y", (("m", "M"), ("s", "S"), ("t", "T")), "1 if {T} t of {S} s is used for "
              "{M} m", vtype="B", role="indicator")
        b.con("meet_demand", "Enough of each {M} is bought.", (("m", "M"),),
              total("s", "S", total("t", "T", V("q", "m", "s", "t"))), ">=",
              P("demand", "m"), role="demand")
        b.con("supplier_cap", "No {S} delivers more than its limit.", (("s", "S"),),
              total("m", "M", total("t", "T", V("q", "m", "s", "t"))), "<=", P("cap", "s"),
              role="capacity")
        b.con("tier_use", "A {T} holds at most its size, and only if it is used.",
              (("m", "M"), ("s", "S"), ("t", "T")),
              V("q", "m", "s", "t") - P("size", "s", "t") * V("y", "m", "s", "t"), "<=", 0.0,
              role="linking")
        b.con("tier_order", "A {T} is used only once the {T} before it is full.",
              (("m", "M"), ("s", "S"), ("t", "T")),
              V("q", "m", "s", "t") - P("size", "s", "t") * V("y", "m", "s", Idx("t") + 1),
              ">=", 0.0, where=(Cond("not_last", "t"),), role="logic")
        b.objective("min", total("m", "M", total("s", "S", total(
            "t", "T", P("price", "m", "s", "t") * V("q", "m", "s", "t")))),
            "purchase cost in {money}")


def _buy_draw(rng: np.random.Generator, spec: Mapping[str, tuple[float, float]],
              low: np.ndarray, high: np.ndarray, nS: int, nT: int) -> dict[str, object]:
    """One draw of the purchasing data (list prices between ``low`` and ``high`` per
    material); ``ok`` when a discount tier is used and a supplier's limit is used to 90% at
    the optimum of the drawn model."""
    nM = low.size
    base = rng.uniform(low, high)
    step = np.where(base < 20, 0.01, 0.5)[:, None, None]
    # Each supplier's list price differs a little; each tier takes 4-15% off the one before.
    listed = base[:, None] * rng.uniform(0.9, 1.15, (nM, nS))
    cut = np.concatenate([np.ones((nM, nS, 1)), rng.uniform(0.85, 0.96, (nM, nS, nT - 1))],
                         axis=2)
    price = np.round(np.maximum(np.round(listed[:, :, None] * np.cumprod(cut, axis=2) / step)
                                * step, step), 2)
    if np.any(np.diff(price, axis=2) >= 0):
        return {"ok": False}  # every tier must be cheaper than the one before
    t0 = spec["tier"]
    unit = 10.0 if t0[0] >= 50 else 5.0
    first = np.array([_nice(v, unit) for v in rng.uniform(*t0, nS)])
    size = np.column_stack([first] + [np.array([_nice(v, unit) for v in first *
                                                rng.uniform(1.0, 3.0, nS)])
                                      for _ in range(nT - 1)])
    demand = np.array([_nice(v, unit) for v in rng.uniform(*spec["demand"], nM)])
    # Supplier limits below what all of them could sell: the cheap ones run out.
    reach = size.sum(axis=1) * nM
    share = rng.dirichlet(np.ones(nS) * 3)
    cap = np.array([_nice(v, unit) for v in np.minimum(
        reach, demand.sum() * rng.uniform(1.15, 1.5) * share + first)])
    if cap.sum() < demand.sum() * 1.05 or np.any(size.sum(axis=1) * nS < demand.max()):
        return {"ok": False}
    out = {"demand": demand, "cap": cap, "size": size, "price": price}
    n = nM * nS * nT
    qi = np.arange(n).reshape(nM, nS, nT)
    rows = _Rows(2 * n)
    for m in range(nM):
        a = np.zeros(2 * n)
        a[qi[m].ravel()] = 1.0
        rows.add(a, lo=float(demand[m]))
    cap_rows = []
    for s in range(nS):
        a = np.zeros(2 * n)
        a[qi[:, s].ravel()] = 1.0
        cap_rows.append(len(rows.a))
        rows.add(a, hi=float(cap[s]))
    for m in range(nM):
        for s in range(nS):
            for t in range(nT):
                a = np.zeros(2 * n)
                a[qi[m, s, t]], a[n + qi[m, s, t]] = 1.0, -size[s, t]
                rows.add(a, hi=0.0)
                if t + 1 < nT:
                    a = np.zeros(2 * n)
                    a[qi[m, s, t]], a[n + qi[m, s, t + 1]] = 1.0, -size[s, t]
                    rows.add(a, lo=0.0)
    c = np.concatenate([price.ravel(), np.zeros(n)])
    whole = np.concatenate([np.zeros(n), np.ones(n)])
    ub = np.concatenate([np.full(n, np.inf), np.ones(n)])
    got = rows.solve(c, whole=whole, ub=ub)
    if got is None:
        return {"ok": False}
    x = got[0]
    y = x[n:].reshape(nM, nS, nT)
    out["ok"] = bool(np.any(y[:, :, 1:] > 0.5)) and \
        max(rows.used(x, k) for k in cap_rows) >= 0.9
    return out
