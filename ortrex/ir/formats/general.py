"""Exact MIP forms of what the IR does not hold: Gurobi's indicator, max, min, abs, and, or
and piecewise-linear constraints, piecewise-linear objectives and SOS sets become rows over new
binaries (big-M values taken from the variables' finite bounds), so a model using them is
verified by both solvers like any other. One that cannot be written so exactly (an unbounded
expression, a nonlinear function) is refused."""

from __future__ import annotations

import os
import tempfile
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.errors import UnsupportedModelError

BIG = 1e30  # Gurobi's infinity is 1e100: anything past this is no bound


def _bounds(v: Any) -> tuple[float, float]:
    lo, hi = float(v.LB), float(v.UB)
    return (lo if lo > -BIG else -float("inf")), (hi if hi < BIG else float("inf"))


def _terms(expr: Any) -> tuple[list[tuple[Any, float]], float]:
    """A linear expression's (variable, coefficient) terms and constant."""
    return [(expr.getVar(k), float(expr.getCoeff(k))) for k in range(expr.size())], \
        float(expr.getConstant())


def _range(terms: list[tuple[Any, float]], const: float = 0.0) -> tuple[float, float]:
    """The least and greatest value of ``sum(c * v) + const`` over the variables' bounds."""
    lo = hi = const
    for v, c in terms:
        a, b = _bounds(v)
        lo += c * (a if c > 0 else b)
        hi += c * (b if c > 0 else a)
    return lo, hi


def _finite(what: str, *values: float) -> None:
    if not all(abs(x) < float("inf") for x in values):
        raise UnsupportedModelError(f"{what}: an exact linear form needs finite bounds on "
                                    "its variables")


class _Rows:
    """Rows and binaries added to a gurobipy model for one constraint."""

    def __init__(self, m: Any, name: str) -> None:
        import gurobipy as gp

        self.m, self.gp, self.name, self.k = m, gp, name, 0

    def binary(self) -> Any:
        self.k += 1
        return self.m.addVar(vtype=self.gp.GRB.BINARY, name=f"{self.name}_b{self.k}")

    def row(self, terms: list[tuple[Any, float]], sense: str, rhs: float) -> None:
        self.k += 1
        expr = self.gp.LinExpr([c for _, c in terms], [v for v, _ in terms])
        self.m.addLConstr(expr, sense, rhs, name=f"{self.name}_r{self.k}")


def _indicator(m: Any, gc: Any, rows: _Rows) -> None:
    z, val, expr, sense, rhs = m.getGenConstrIndicator(gc)
    terms, const = _terms(expr)
    rhs -= const
    lo, hi = _range(terms)
    # c = z (val 1) or 1 - z (val 0) switches the row on: expr <= rhs + (hi - rhs)(1 - c).
    sign = 1.0 if val else -1.0
    if sense in "<=" and hi > rhs:
        _finite(f"indicator {gc.GenConstrName}", hi)
        m_ = hi - rhs
        rows.row([*terms, (z, sign * m_)], "<", hi if val else rhs)
    if sense in ">=" and lo < rhs:
        _finite(f"indicator {gc.GenConstrName}", lo)
        m_ = lo - rhs
        rows.row([*terms, (z, sign * m_)], ">", lo if val else rhs)


def _extreme(m: Any, gc: Any, rows: _Rows, is_max: bool) -> None:
    r, xs, const = m.getGenConstrMax(gc) if is_max else m.getGenConstrMin(gc)
    sign = 1.0 if is_max else -1.0  # min(x) = -max(-x)
    items: list[tuple[Any | None, float, float]] = [(x, *_bounds(x)) for x in xs]
    if abs(const) < float("inf") and abs(const) < BIG:
        items.append((None, const, const))
    if not items:
        raise UnsupportedModelError(f"{gc.GenConstrName}: a max/min of nothing")
    r_lo, r_hi = _bounds(r)
    # r >= every term (max); r <= the term whose binary is on (one is).
    top = max((hi if is_max else -lo) for _, lo, hi in items)
    bound = min(sign * (r_hi if is_max else r_lo), top)
    on = []
    for x, lo, hi in items:
        low = lo if is_max else -hi
        _finite(f"{gc.GenConstrName}", bound, low)
        d = rows.binary()
        on.append((d, 1.0))
        if x is None:
            rows.row([(r, sign)], ">", sign * const)
            rows.row([(r, sign), (d, bound - sign * const)], "<", bound)
        else:
            rows.row([(r, sign), (x, -sign)], ">", 0.0)
            rows.row([(r, sign), (x, -sign), (d, bound - low)], "<", bound - low)
    rows.row(on, "=", 1.0)


def _abs(m: Any, gc: Any, rows: _Rows) -> None:
    r, x = m.getGenConstrAbs(gc)
    lo, hi = _bounds(x)
    _finite(f"abs {gc.GenConstrName}", lo, hi)
    big = 2 * max(abs(lo), abs(hi))
    d = rows.binary()  # on: r = x; off: r = -x
    rows.row([(r, 1.0), (x, -1.0)], ">", 0.0)
    rows.row([(r, 1.0), (x, 1.0)], ">", 0.0)
    rows.row([(r, 1.0), (x, -1.0), (d, big)], "<", big)
    rows.row([(r, 1.0), (x, 1.0), (d, -big)], "<", 0.0)


def _logic(m: Any, gc: Any, rows: _Rows, is_and: bool) -> None:
    r, xs = m.getGenConstrAnd(gc) if is_and else m.getGenConstrOr(gc)
    for x in xs:
        rows.row([(r, 1.0), (x, -1.0)], "<" if is_and else ">", 0.0)
    if is_and:
        rows.row([(r, 1.0), *((x, -1.0) for x in xs)], ">", 1.0 - len(xs))
    else:
        rows.row([(r, 1.0), *((x, -1.0) for x in xs)], "<", 0.0)


def _sos(m: Any, s: Any, rows: _Rows) -> None:
    kind, xs, weights = m.getSOS(s)
    xs = [x for _, x in sorted(zip(weights, xs, strict=True), key=lambda t: t[0])]
    if kind == 2 and len(xs) <= 2:
        return  # two neighbours may both be nonzero: no restriction
    n = len(xs) if kind == 1 else len(xs) - 1
    ys = [rows.binary() for _ in range(n)]
    rows.row([(y, 1.0) for y in ys], "<", 1.0)
    for i, x in enumerate(xs):
        lo, hi = _bounds(x)
        _finite(f"SOS{kind} {s.index}", lo, hi)
        on = [ys[i]] if kind == 1 else [ys[j] for j in (i - 1, i) if 0 <= j < n]
        if hi > 0:
            rows.row([(x, 1.0), *((y, -hi) for y in on)], "<", 0.0)
        if lo < 0:
            rows.row([(x, 1.0), *((y, -lo) for y in on)], ">", 0.0)


def _curve(what: str, x: Any, xs: list[float], ys: list[float]) -> tuple[list[float],
                                                                         list[float]]:
    """The points of a piecewise-linear function over all of ``x``'s bounds: Gurobi extends
    the first and last segments beyond the points, so they are extended to the bounds."""
    lo, hi = _bounds(x)
    xs, ys = [float(v) for v in xs], [float(v) for v in ys]
    if not xs:
        raise UnsupportedModelError(f"{what}: a piecewise-linear function with no points")

    def slope(i: int, j: int) -> float:
        return (ys[j] - ys[i]) / (xs[j] - xs[i]) if len(xs) > 1 and xs[j] != xs[i] else 0.0

    if lo < xs[0]:
        _finite(what, lo)
        xs, ys = [lo, *xs], [ys[0] + slope(0, 1) * (lo - xs[0]), *ys]
    if hi > xs[-1]:
        _finite(what, hi)
        xs, ys = [*xs, hi], [*ys, ys[-1] + slope(-2, -1) * (hi - xs[-1])]
    return xs, ys


def _pwl(m: Any, rows: _Rows, x: Any, y: Any, xs: list[float], ys: list[float]) -> None:
    """``y = f(x)`` for the piecewise-linear ``f`` through the points: weights on the points
    (they sum to one and give x and y), nonzero on one segment's two ends only."""
    from gurobipy import GRB

    lam = [m.addVar(ub=1.0, name=f"{rows.name}_w{k}") for k in range(len(xs))]
    rows.row([(v, 1.0) for v in lam], "=", 1.0)
    rows.row([(x, 1.0), *((v, -a) for v, a in zip(lam, xs, strict=True))], "=", 0.0)
    rows.row([(y, 1.0), *((v, -b) for v, b in zip(lam, ys, strict=True))], "=", 0.0)
    if len(xs) > 2:
        seg = [m.addVar(vtype=GRB.BINARY, name=f"{rows.name}_s{k}") for k in range(len(xs) - 1)]
        rows.row([(v, 1.0) for v in seg], "=", 1.0)
        for k, v in enumerate(lam):
            rows.row([(v, 1.0), *((seg[j], -1.0) for j in (k - 1, k) if 0 <= j < len(seg))],
                     "<", 0.0)


def _pwl_objectives(m: Any) -> int:
    """Piecewise-linear objective terms as a new variable each, equal to the term."""
    import gurobipy as gp

    done = 0
    for v in m.getVars():
        try:
            points = m.getPWLObj(v)
        except gp.GurobiError:
            continue
        if not points:
            continue
        what = f"the piecewise-linear objective of {v.VarName}"
        xs, ys = _curve(what, v, [p[0] for p in points], [p[1] for p in points])
        t = m.addVar(lb=min(ys), ub=max(ys), obj=1.0, name=f"{v.VarName}_pwlobj")
        _pwl(m, _Rows(m, f"{v.VarName}_pwlobj"), v, t, xs, ys)
        m.setPWLObj(v, [], [])
        v.Obj = 0.0  # the term replaced the variable's linear cost
        done += 1
    return done


def linearize(m: Any) -> int:
    """Replace the general constraints and SOS sets of gurobipy model ``m`` by exact rows
    over new binaries (in place); how many were replaced."""
    from gurobipy import GRB

    m.update()
    done = _pwl_objectives(m)
    for gc in m.getGenConstrs():
        rows, kind = _Rows(m, gc.GenConstrName or f"gc{done}"), gc.GenConstrType
        if kind == GRB.GENCONSTR_INDICATOR:
            _indicator(m, gc, rows)
        elif kind in (GRB.GENCONSTR_MAX, GRB.GENCONSTR_MIN):
            _extreme(m, gc, rows, kind == GRB.GENCONSTR_MAX)
        elif kind == GRB.GENCONSTR_ABS:
            _abs(m, gc, rows)
        elif kind in (GRB.GENCONSTR_AND, GRB.GENCONSTR_OR):
            _logic(m, gc, rows, kind == GRB.GENCONSTR_AND)
        elif kind == GRB.GENCONSTR_PWL:
            x, y, xs, ys = m.getGenConstrPWL(gc)
            _pwl(m, rows, x, y, *_curve(f"{gc.GenConstrName}", x, xs, ys))
        else:
            raise UnsupportedModelError(f"general constraint {gc.GenConstrName} (a nonlinear "
                                        "function) has no exact linear form")
        m.remove(gc)
        done += 1
    for s in m.getSOSs():
        _sos(m, s, _Rows(m, f"sos{s.index}"))
        m.remove(s)
        done += 1
    m.update()
    return done


def read_general(data: bytes, suffix: str = ".mps") -> CanonicalModel:
    """A model file with general constraints or SOS sets, read by Gurobi and linearised."""
    import gurobipy as gp

    from ortrex.ir.formats.gurobi import from_gurobi, quiet_env

    fd, path = tempfile.mkstemp(suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        with quiet_env() as env:
            try:
                m = gp.read(path, env)
            except gp.GurobiError as exc:
                raise UnsupportedModelError(f"Gurobi cannot read the model: {exc}") from exc
            with m:
                if m.NumObj > 1:  # a hierarchy or blend: no one objective to verify
                    raise UnsupportedModelError(f"{m.NumObj} objectives (a multi-objective "
                                                "model) have no single-objective form")
                if m.NumScenarios > 0:  # each scenario is a model of its own
                    raise UnsupportedModelError(f"{m.NumScenarios} scenarios (a multi-"
                                                "scenario model) are several models in one")
                linearize(m)  # quadratic parts and lazy rows travel as they are
                return from_gurobi(m)
    finally:
        os.unlink(path)


def read_general_file(path: str | os.PathLike[str], refused: Exception) -> CanonicalModel:
    """A model file the IR readers refused for a feature (``refused``), read by Gurobi and
    linearised; where that cannot be done, the refusal with the reason why."""
    from ortrex.ir.formats.errors import UnsupportedFeatureError
    from ortrex.ir.formats.text import decode_text, read_bytes

    name = str(path)
    text = decode_text(read_bytes(name), name)
    low = name.lower().removesuffix(".gz").removesuffix(".bz2")
    suffix = ".mps" if low.endswith(".mps") else ".lp"
    try:
        return read_general(text.encode(), suffix).replace(name=os.path.basename(low)
                                                           .rsplit(".", 1)[0])
    except (UnsupportedModelError, ImportError) as why:
        raise UnsupportedFeatureError(name, f"{getattr(refused, 'message', refused)}; {why}",
                                      getattr(refused, "line", None),
                                      getattr(refused, "feature", "")) from refused
