"""Routing operators: time windows at the stops of a tour or of vehicle routes."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ortrex.engine.operators.base import (
    Context,
    Mutation,
    NotApplicable,
    entity,
    fresh_name,
    with_changes,
    within_licence,
)
from ortrex.engine.operators.registry import operator
from ortrex.ir.expr import Cond, P, V
from ortrex.ir.semantic import ConstraintFamily, Parameter, SemanticModel, VariableFamily

# Distance units a vehicle drives (a pace in minutes per unit makes a travel time of them);
# a drill head's millimetres or a distance already in minutes need none.
_DRIVEN = {"km": "km", "miles": "mile", "mi": "mile"}


@dataclass(frozen=True)
class Routes:
    """Where a routing model keeps its arcs: ``x`` over (stop, stop) on set ``N``; either the
    home is ``N``'s first element (a tour) or it is outside ``N``, left by ``start`` and
    reached from it at ``home`` distances (vehicle routes)."""

    x: str
    N: str
    dist: str
    start: str = ""
    home: str = ""


def routes_of(sm: SemanticModel) -> Routes | None:
    """The arc structure of a routing model (None: not one this operator can time)."""
    if any(v.role == "timing" for v in sm.variables):
        return None  # already timed
    if any(c.role == "logic" for c in sm.constraints):
        return None  # an order of the stops is ruled (pick up first): a shuffle may break it
    x = next((v for v in sm.variables if v.role == "routing" and len(v.dims) == 2
              and v.dims[0][1] == v.dims[1][1]), None)
    if x is None:
        return None
    N = x.dims[0][1]
    dist = next((p for p in sm.params if p.index == (N, N) and p.name in
                 {c.name for e in [sm.objective.expr] for c in e.walk() if hasattr(c, "idx")}),
                None)
    if dist is None:
        return None
    start = next((v for v in sm.variables if v.role == "routing" and v.dims and
                  len(v.dims) == 1 and v.dims[0][1] == N and v.name.startswith("start")), None)
    if start is None:
        return Routes(x.name, N, dist.name)
    home = next((p for p in sm.params if p.index == (N,) and p.unit == dist.unit and
                 "home" in p.name), None)
    return Routes(x.name, N, dist.name, start.name, home.name) if home else None


def sequences(r: Routes, sm: SemanticModel, values: dict) -> list[list[int]]:
    """The parent's routes as stop sequences (a tour from the home, element 0, excluded)."""
    x = np.round(np.nan_to_num(values[r.x]))
    n = x.shape[0]
    firsts = [0] if not r.start else \
        [int(i) for i in np.flatnonzero(np.round(np.nan_to_num(values[r.start])) == 1)]
    out = []
    for f in firsts:
        seq, at, seen = ([] if not r.start else [f]), f, {f}
        while True:
            nxt = [int(j) for j in np.flatnonzero(x[at] == 1) if j != at]
            if not nxt or nxt[0] in seen or (not r.start and nxt[0] == 0):
                break
            at = nxt[0]
            seq.append(at)
            seen.add(at)
        out.append(seq)
    if sorted(k for s in out for k in s) != list(range(0 if r.start else 1, n)):
        raise NotApplicable("the parent's routes could not be read from its optimum")
    return out


def arrivals(seqs: list[list[int]], travel: np.ndarray, leave: np.ndarray,
             open_: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Arrival time at every stop along ``seqs`` (waiting for a window to open), and each
    route's return time."""
    n = travel.shape[0]
    at = np.zeros(n)
    back = np.zeros(len(seqs))
    for k, seq in enumerate(seqs):
        t, prev = 0.0, None
        for s in seq:
            t += leave[s] if prev is None else travel[prev, s]
            if open_ is not None:
                t = max(t, open_[s])
            at[s], prev = t, s
        back[k] = t + (leave[prev] if prev is not None else 0.0)
    return at, back


@operator('time windows at the stops: each is served within its window, arrival times '
          'follow the route')
def time_windows(ctx: Context) -> Mutation:
    """Every stop gets a time window drawn around a shuffled order of the parent's own routes
    (so a plan keeps them) that the parent's own routes break; arrival times follow the
    arcs (``a_j >= a_i + travel_ij`` on a used arc), and a tour is back home by its
    deadline."""
    sm = ctx.parent
    r = routes_of(sm)
    if r is None:
        raise NotApplicable("no tour or route arcs with a distance to time")
    dist = sm.param_map[r.dist]
    if dist.unit == "minutes":
        pace = 1.0
    elif dist.unit in _DRIVEN:
        pace = float(np.round(ctx.rng.uniform(0.8, 2.0), 1))
    else:
        raise NotApplicable(f"distances in {dist.unit!r} are not driven")
    D = np.asarray(dist.values, dtype=np.float64)
    n = D.shape[0]
    leave = pace * (np.asarray(sm.param_map[r.home].values, dtype=np.float64) if r.home
                    else D[0])
    travel = pace * D
    seqs = sequences(r, sm, ctx.values)
    par_at, _ = arrivals(seqs, travel, leave)
    stops = [k for s in seqs for k in s]
    for _ in range(8):
        ref = [list(ctx.rng.permutation(s)) for s in seqs]
        if ref == seqs:
            continue
        at, back = arrivals(ref, travel, leave)
        span = float(max(back.max(), 1.0))
        early = np.floor(at - ctx.rng.uniform(0.05, 0.2, n) * span)
        late = np.ceil(at + ctx.rng.uniform(0.05, 0.2, n) * span)
        open_, close = np.maximum(early, 0.0), late
        broken = [k for k in stops if par_at[k] > close[k] + 1e-6]
        if broken:
            break
    else:
        raise NotApplicable("no windows that the parent's routes break")
    unit = "minutes"
    N = r.N
    stop = entity(sm, N)
    names = {b: fresh_name(sm, b) for b in ("pace", "opens", "closes", "latest", "arrive",
                                           "arrive_first", "arrive_next", "served_in_window",
                                           "back_by", "deadline")}
    deadline = float(np.ceil(back.max() * ctx.rng.uniform(1.05, 1.25)))
    words = sm.descriptors.get("words") or {}
    # A tour starts at one of its own stops (a named town, not the vocabulary's "clinic").
    home = words.get("home", "start") if r.start else f"starting {stop}"
    if not r.start:
        open_[0], close[0] = 0.0, deadline  # the home's own window: back by the deadline
    horizon = float(max(close.max(), deadline) + travel.max() + leave.max())
    params = [Parameter(names["opens"], (N,), open_, unit, f"time each {stop}'s window opens"),
              Parameter(names["closes"], (N,), close, unit,
                        f"time each {stop}'s window closes")]
    if pace != 1.0:
        params.insert(0, Parameter(names["pace"], (), np.array(pace),
                                   f"minutes per {_DRIVEN[dist.unit]}",
                                   "driving time per unit of distance"))
    params.append(Parameter(names["latest"], (), np.array(horizon), unit,
                            "latest time any arrival can take"))
    derived = dict(sm.descriptors.get("derived") or {})
    pace_expr = f"{names['pace']} * " if pace != 1.0 else ""
    longest = f"max(max(row) for row in {r.dist})"
    derived[names["latest"]] = f"max({names['closes']}) + {pace_expr}" + (
        f"({longest} + max({r.home}))" if r.start else f"2 * {longest}")
    not_home = () if r.start else (Cond("not_first", "j"),)
    times = (lambda e: P(names["pace"]) * e) if pace != 1.0 else (lambda e: e)
    av = VariableFamily(names["arrive"], (("i", N),), "C", 0.0, math.inf,
                        () if r.start else (Cond("not_first", "i"),),
                        f"time the route reaches {stop} i", unit, "timing")
    cons = []
    if r.start:
        cons.append(ConstraintFamily(
            names["arrive_first"], f"A route's first {stop} is reached no sooner than the "
            f"drive from the {home} takes.", (("j", N),),
            times(P(r.home, "j")) * V(r.start, "j") - V(names["arrive"], "j"), "<=", 0.0,
            (), "definition"))
    else:
        cons.append(ConstraintFamily(
            names["arrive_first"], f"The first {stop} is reached no sooner than the drive "
            f"from the {home} takes.", (("i", N), ("j", N)),
            times(P(r.dist, "i", "j")) * V(r.x, "i", "j") - V(names["arrive"], "j"), "<=",
            0.0, (Cond("first", "i"), Cond("ne", "i", "j")), "definition"))
    lag = (Cond("ne", "i", "j"),) + (() if r.start else (Cond("not_first", "i"),
                                                        Cond("not_first", "j")))
    cons.append(ConstraintFamily(
        names["arrive_next"], f"On a route, each {stop} is reached after the one before it "
        "plus the drive between them.", (("i", N), ("j", N)),
        V(names["arrive"], "i") - V(names["arrive"], "j") + P(names["latest"]) *
        V(r.x, "i", "j") + times(P(r.dist, "i", "j")) * V(r.x, "i", "j"), "<=",
        P(names["latest"]), lag, "definition"))
    cons.append(ConstraintFamily(
        names["served_in_window"], f"Every {stop} is reached within its window (arriving "
        "early means waiting until it opens).", (("j", N),),
        V(names["arrive"], "j"), ">=", P(names["opens"], "j"), not_home, "capacity"))
    cons.append(ConstraintFamily(
        names["closes"] + "_kept", f"No {stop} is reached after its window closes.",
        (("j", N),), V(names["arrive"], "j"), "<=", P(names["closes"], "j"), not_home,
        "capacity"))
    if not r.start:
        cons.append(ConstraintFamily(
            names["back_by"], f"The tour is back at the {home} by its closing time.",
            (("i", N), ("j", N)),
            V(names["arrive"], "i") + P(names["latest"]) * V(r.x, "i", "j") +
            times(P(r.dist, "i", "j")) * V(r.x, "i", "j"), "<=",
            P(names["closes"], "j") + P(names["latest"]), (Cond("not_first", "i"),
                                                           Cond("first", "j")), "capacity"))
    info = {"stops_broken": len(broken), "pace": pace}
    return within_licence(with_changes(
        sm, "time_windows", info,
        descriptors={**sm.descriptors, "derived": derived},
        params=(*sm.params, *params), variables=(*sm.variables, av),
        constraints=(*sm.constraints, *cons)))
