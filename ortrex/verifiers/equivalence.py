"""Structural equivalence of two optimization models: a three-way verdict with a certificate.

Both models are brought to the normal form of :mod:`ortrex.ir.normalize` (min objective,
one-variable rows as bounds, binary as integer in [0, 1], integer bounds rounded inward, rows
oriented and scaled by a permutation-invariant rule, duplicate rows merged). Their numbers are
grouped *jointly* (sorted together; neighbours within the relative tolerance share a group), so a
group boundary can never separate two equal numbers. The two variable-constraint graphs are
coloured together by Weisfeiler-Lehman refinement: different colour histograms prove
``not_equivalent``. Otherwise an individualisation-refinement search looks for a node mapping,
and a mapping counts only once its certificate is checked number by number against both normal
forms. ``undecided`` means the time limit was hit, nothing else.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import Refiner, Tokens, _splitmix, model_graph, row_groups
from ortrex.ir.formats import from_gurobi, from_highs, read_model
from ortrex.ir.normalize import EQ0, EQ1, GE, RANGE, NormalizedModel, normalize
from ortrex.ir.rows import segments

EQUIVALENT, NOT_EQUIVALENT, UNDECIDED = "equivalent", "not_equivalent", "undecided"
VERDICTS = (EQUIVALENT, NOT_EQUIVALENT, UNDECIDED)
ABS_FLOOR = 1e-12  # numbers this close count as equal whatever their size (0 vs 1e-13)
_BIG = np.finfo(float).max
MAX_SEARCH_ROUNDS = 1 << 30  # refinement in the search runs to the stable colouring


@dataclass
class Certificate:
    """How model A maps onto model B.

    ``var_map[i]`` is the variable of B that variable ``i`` of A becomes. Row ``row_a[k]`` of A
    times ``factor[k]`` is row ``row_b[k]`` of B (indices of the rows as written; rows that
    normalisation folds into bounds or drops as empty are not listed, and an A row that
    duplicates another maps onto the same B row).
    """

    var_map: np.ndarray
    row_a: np.ndarray
    row_b: np.ndarray
    factor: np.ndarray

    def to_dict(self, a: CanonicalModel, b: CanonicalModel) -> dict[str, Any]:
        """JSON-friendly form with the models' names."""
        return {
            "variables": {a.var_names[i]: b.var_names[int(j)]
                          for i, j in enumerate(self.var_map)},
            "rows": [{"a": a.row_names[int(i)], "b": b.row_names[int(j)], "factor": float(f)}
                     for i, j, f in zip(self.row_a, self.row_b, self.factor, strict=True)],
        }


@dataclass
class EquivalenceResult:
    """A verdict, its reason, the certificate (when equivalent) and timings in seconds."""

    verdict: str
    reason: str
    certificate: Certificate | None = None
    timings: dict[str, float] = field(default_factory=dict)
    models: tuple[CanonicalModel, CanonicalModel] | None = field(default=None, repr=False)

    def __bool__(self) -> bool:
        return self.verdict == EQUIVALENT

    def to_dict(self, certificate: bool = True) -> dict[str, Any]:
        """JSON-friendly form (the certificate with variable and row names)."""
        d: dict[str, Any] = {"verdict": self.verdict, "reason": self.reason,
                             "timings": {k: round(v, 6) for k, v in self.timings.items()}}
        if certificate and self.certificate is not None and self.models is not None:
            d["certificate"] = self.certificate.to_dict(*self.models)
        return d


ModelLike = CanonicalModel | str | Path | Any


def as_model(x: ModelLike) -> CanonicalModel:
    """A CanonicalModel from a model, a file path, or a gurobipy / highspy model object."""
    if isinstance(x, CanonicalModel):
        return x
    if isinstance(x, (str, Path)):
        return read_model(x)
    package = type(x).__module__.split(".")[0]
    if package == "gurobipy":
        return from_gurobi(x)
    if package == "highspy":
        return from_highs(x)
    raise TypeError(f"cannot compare a {type(x).__name__}: expected a CanonicalModel, a model "
                    "file path, or a gurobipy or highspy model")


# ------------------------------------------------------------------ numbers
def _close(x: np.ndarray, y: np.ndarray, rel_tol: float) -> np.ndarray:
    """Element-wise: equal within ``rel_tol`` of the larger magnitude (infinities exactly)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    with np.errstate(invalid="ignore"):
        # The scale is capped so that |inf - 5| <= tol * inf cannot hold: an infinity only
        # matches itself (through x == y; inf - inf is nan and compares false).
        scale = np.minimum(np.maximum(np.abs(x), np.abs(y)), _BIG)
        return (np.abs(x - y) <= rel_tol * scale + ABS_FLOOR) | (x == y)


def _close1(x: float, y: float, rel_tol: float) -> bool:
    """``_close`` for two scalars."""
    if x == y:
        return True
    return math.isfinite(x) and math.isfinite(y) and \
        abs(x - y) <= rel_tol * max(abs(x), abs(y)) + ABS_FLOOR


def _one_to_one(m: np.ndarray, size: int) -> bool:
    """Whether ``m`` maps its positions to distinct values in [0, size)."""
    if m.size and (m.min() < 0 or m.max() >= size):
        return False
    return bool(np.bincount(m, minlength=size).max(initial=0) <= 1)


def _joint_tokens(nma: NormalizedModel, nmb: NormalizedModel, rel_tol: float
                  ) -> Callable[[np.ndarray], np.ndarray]:
    """A token function shared by both models: numbers within tolerance share a token.

    All numbers of both models are sorted together and cut only where two neighbours are not
    close, so two numbers within tolerance of each other always fall in the same group.
    """
    pool = np.unique(np.concatenate([np.concatenate(list(Tokens.parts(nm).values()))
                                     for nm in (nma, nmb)] + [np.zeros(1)]))
    cut = ~_close(pool[:-1], pool[1:], rel_tol)
    group = np.concatenate([[0], np.cumsum(cut)]).astype(np.uint64)
    keys = _splitmix(group + np.uint64(0x5EED))

    def tokens(x: np.ndarray) -> np.ndarray:
        return keys[np.searchsorted(pool, x)]

    return tokens


# ------------------------------------------------------------------ row comparison
def _rows_match(nx: NormalizedModel, rx: np.ndarray, ny: NormalizedModel, ry: np.ndarray,
                sign: np.ndarray, var_map: np.ndarray, rel_tol: float) -> np.ndarray:
    """Per pair k: is ``sign[k]`` x row ``rx[k]`` of X (variables through ``var_map``) equal,
    within tolerance, to row ``ry[k]`` of Y (kind, coefficients, bounds, quadratic terms)?"""
    p = rx.size
    ok = nx.kind[rx] == ny.kind[ry]
    lo = np.where(sign > 0, nx.rlo[rx], -nx.rhi[rx])
    hi = np.where(sign > 0, nx.rhi[rx], -nx.rlo[rx])
    ok &= _close(lo, ny.rlo[ry], rel_tol) & _close(hi, ny.rhi[ry], rel_tol)
    ok &= _entries_match(
        _linear_entries(nx, rx, sign, var_map), _linear_entries(ny, ry, np.ones(p), None),
        p, rel_tol)
    if nx.qrows[0].size or ny.qrows[0].size:
        ok &= _entries_match(
            _quad_entries(nx.qrows, rx, sign, var_map), _quad_entries(ny.qrows, ry, np.ones(p),
                                                                      None), p, rel_tol)
    return ok


_Entries = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # pair, key, value, count


def _linear_entries(nm: NormalizedModel, rows: np.ndarray, sign: np.ndarray,
                    var_map: np.ndarray | None) -> _Entries:
    lengths = np.diff(nm.A.indptr)[rows]
    idx = segments(nm.A.indptr[rows], lengths)
    pair = np.repeat(np.arange(rows.size), lengths)
    cols = nm.A.indices[idx].astype(np.int64)
    if var_map is not None:
        cols = var_map[cols]
    return pair, cols, nm.A.data[idx] * sign[pair], lengths


def _quad_entries(q: tuple[np.ndarray, ...], rows: np.ndarray, sign: np.ndarray,
                  var_map: np.ndarray | None) -> _Entries:
    rr, ri, rj, rv = q
    starts = np.searchsorted(rr, rows)
    lengths = np.searchsorted(rr, rows, side="right") - starts
    idx = segments(starts, lengths)
    pair = np.repeat(np.arange(rows.size), lengths)
    i, j = ri[idx], rj[idx]
    if var_map is not None:
        i, j = var_map[i], var_map[j]
    key = np.minimum(i, j) * (np.int64(1) << 31) + np.maximum(i, j)
    return pair, key, rv[idx] * sign[pair], lengths


def _entries_match(x: _Entries, y: _Entries, pairs: int, rel_tol: float) -> np.ndarray:
    """Per pair: the same keys with values within tolerance."""
    px, kx, vx, nx = x
    py, ky, vy, ny = y
    ok = nx == ny
    if not ok.any():
        return ok
    keep_x, keep_y = ok[px], ok[py]
    px, kx, vx = px[keep_x], kx[keep_x], vx[keep_x]
    py, ky, vy = py[keep_y], ky[keep_y], vy[keep_y]
    ox, oy = np.lexsort((kx, px)), np.lexsort((ky, py))
    bad = (kx[ox] != ky[oy]) | ~_close(vx[ox], vy[oy], rel_tol)
    if bad.any():
        ok[np.unique(px[ox][bad])] = False
    return ok


def _open_sign(nm: NormalizedModel, rows: np.ndarray) -> np.ndarray:
    kind = nm.kind[rows]
    return (kind == EQ0) | (kind == RANGE)


# ------------------------------------------------------------------ one side
@dataclass
class _Side:
    model: CanonicalModel
    nm: NormalizedModel
    tk: Tokens
    rows: np.ndarray  # representative normalised rows, in order
    rep: np.ndarray  # normalised row -> its representative
    orient: np.ndarray  # +1 / -1: normalised row = orient x its representative
    graph: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]
    gadget_rows: np.ndarray  # positions in ``rows`` of rows with a second (negated) node


def _side(model: CanonicalModel, nm: NormalizedModel, fn: Callable[[np.ndarray], np.ndarray],
          rel_tol: float) -> _Side:
    tk = Tokens(nm, fn)
    rows, rep = row_groups(nm, tk)
    orient = np.ones(nm.num_rows)
    merged = np.flatnonzero(rep != np.arange(nm.num_rows))
    if merged.size:
        # Rows grouped by token are duplicates only if they match within tolerance too (a
        # chain of close numbers can make a group wider than the tolerance). An open-sign row
        # may be its twin negated.
        twin = rep[merged]
        ident = np.arange(nm.num_vars)
        ok = _rows_match(nm, merged, nm, twin, np.ones(merged.size), ident, rel_tol)
        retry = ~ok & _open_sign(nm, merged)
        if retry.any():
            neg = _rows_match(nm, merged[retry], nm, twin[retry], -np.ones(int(retry.sum())),
                              ident, rel_tol)
            orient[merged[retry][neg]] = -1.0
            ok[np.flatnonzero(retry)[neg]] = True
        rep[merged[~ok]] = merged[~ok]
        rows = np.unique(rep)
    return _Side(model, nm, tk, rows, rep, orient, model_graph(nm, rows, tk, exact=True),
                 np.flatnonzero(_open_sign(nm, rows)))


# ------------------------------------------------------------------ diagnosis
def _unmatched(values: np.ndarray, ta: np.ndarray, tb: np.ndarray
               ) -> tuple[float, int, int] | None:
    """A value of A whose token occurs more often in A than in B, with both counts."""
    ua, ca = np.unique(ta, return_counts=True)
    ub, cb = np.unique(tb, return_counts=True)
    pos = np.minimum(np.searchsorted(ub, ua), max(ub.size - 1, 0))
    count_b = np.where((ub.size > 0) & (ub[pos] == ua), cb[pos] if ub.size else 0, 0)
    extra = np.flatnonzero(ca > count_b)
    if not extra.size:
        return None
    k = int(extra[0])
    return float(values[np.flatnonzero(ta == ua[k])[0]]), int(ca[k]), int(count_b[k])


def _same_multiset(ta: np.ndarray, tb: np.ndarray) -> bool:
    return ta.size == tb.size and np.array_equal(np.sort(ta), np.sort(tb))


def _differs(what: str, values: np.ndarray, ta: np.ndarray, tb: np.ndarray) -> str:
    found = _unmatched(values, ta, tb)
    if found is None:
        return f"{what} differ"
    v, na, nb = found
    return f"{what} differ: {v:.10g} occurs {na} time{'s' * (na != 1)} in A, {nb} in B"


def _counts(s: _Side) -> list[tuple[str, int]]:
    nm = s.nm
    kinds = np.bincount(nm.kind[s.rows], minlength=4)
    q_rows = int(np.isin(nm.qrows[0], s.rows).sum()) if nm.qrows[0].size else 0
    return [
        ("variables", nm.num_vars),
        ("integer variables", int(nm.is_int.sum())),
        ("binary variables (integer in [0, 1])",
         int((nm.is_int & (nm.lb == 0) & (nm.ub == 1)).sum())),
        ("rows", s.rows.size),
        ("equality rows", int(kinds[EQ0] + kinds[EQ1])),
        ("ranged rows", int(kinds[RANGE])),
        ("inequality rows", int(kinds[GE])),
        ("constraint coefficients", int(nm.A.lengths()[s.rows].sum())),
        ("quadratic objective terms", nm.qobj[0].size),
        ("quadratic constraint terms", q_rows),
        ("infeasible empty rows", nm.infeasible_empty_rows.size),
    ]


def _quick_difference(a: _Side, b: _Side, fn: Callable[[np.ndarray], np.ndarray],
                      rel_tol: float) -> str:
    """A count or the objective constant that differs, in words ('' if none): cheap checks
    run before colouring (the constant is not part of the graph)."""
    for (what, x), (_, y) in zip(_counts(a), _counts(b), strict=True):
        if x != y:
            return f"after normalisation: {x} {what} vs {y}"
    if not _close1(a.nm.constant, b.nm.constant, rel_tol):
        return _number_difference(a, b, fn, rel_tol)
    return ""


def _number_difference(a: _Side, b: _Side, fn: Callable[[np.ndarray], np.ndarray],
                       rel_tol: float) -> str:
    """The first multiset of numbers that differs, in words ('' if none). Only needed for the
    reason once refinement has told the models apart, so equivalent pairs never pay for it."""
    na, nb = a.nm, b.nm
    c_same = _same_multiset(a.tk["c"], b.tk["c"]) and _same_multiset(a.tk["qo"], b.tk["qo"])
    const_same = _close1(na.constant, nb.constant, rel_tol)
    if not (c_same and const_same):
        neg = (_same_multiset(a.tk["c"], fn(-nb.c)) and _same_multiset(a.tk["qo"], fn(-nb.qobj[2]))
               and _close1(na.constant, -nb.constant, rel_tol))
        if neg:
            return "objective sense differs: the objectives are the same up to sign"
        if not const_same:
            return f"objective constants differ: {na.constant:.10g} vs {nb.constant:.10g} " \
                   "(in min form)"
        if not _same_multiset(a.tk["c"], b.tk["c"]):
            return _differs("objective coefficients (in min form)", na.c, a.tk["c"], b.tk["c"])
        return _differs("quadratic objective coefficients", na.qobj[2], a.tk["qo"], b.tk["qo"])
    for what, key in (("variable lower bounds", "lb"), ("variable upper bounds", "ub")):
        if not _same_multiset(a.tk[key], b.tk[key]):
            return _differs(what, getattr(na, key), a.tk[key], b.tk[key])
    ga, gb = (s.nm.kind[s.rows] == GE for s in (a, b))
    if not _same_multiset(a.tk["rlo"][a.rows[ga]], b.tk["rlo"][b.rows[gb]]):
        return _differs("right-hand sides of inequalities (normalised)", na.rlo[a.rows[ga]],
                        a.tk["rlo"][a.rows[ga]], b.tk["rlo"][b.rows[gb]])
    # Coefficients: as signed values where the row's sign is fixed, up to sign where it is open.
    ta, va = _coefficient_tokens(a)
    tb, _ = _coefficient_tokens(b)
    if not _same_multiset(ta, tb):
        return _differs("constraint coefficients (normalised)", va, ta, tb)
    return ""


def _coefficient_tokens(s: _Side) -> tuple[np.ndarray, np.ndarray]:
    """Tokens and values of the kept rows' coefficients; up to sign in open-sign rows."""
    nm = s.nm
    row_of_nz = np.repeat(np.arange(nm.num_rows), np.diff(nm.A.indptr))
    keep = np.zeros(nm.num_rows, dtype=bool)
    keep[s.rows] = True
    keep_nz = keep[row_of_nz]
    open_nz = ((nm.kind == EQ0) | (nm.kind == RANGE))[row_of_nz]
    tok = np.where(open_nz, np.minimum(s.tk["a"], s.tk["-a"]), s.tk["a"])
    val = np.where(open_nz, np.abs(nm.A.data), nm.A.data)
    return tok[keep_nz], val[keep_nz]


# ------------------------------------------------------------------ certificate checking
@dataclass
class _Map:
    """A candidate correspondence in normalised terms."""

    var_map: np.ndarray  # A variable -> B variable
    target: np.ndarray  # A representative k -> B normalised row
    sign: np.ndarray  # B row = sign x A row (after the variable map)


def _check(a: _Side, b: _Side, m: _Map, rel_tol: float) -> str:
    """'' if the map reproduces every number of B from A within tolerance, else what fails."""
    na, nb = a.nm, b.nm
    n = na.num_vars
    vm = m.var_map
    if vm.size != n or nb.num_vars != n or not _one_to_one(vm, n):
        return "the variable map is not a one-to-one map onto B's variables"
    for what, xa, xb in (("lower bound", na.lb, nb.lb[vm]), ("upper bound", na.ub, nb.ub[vm]),
                         ("objective coefficient", na.c, nb.c[vm])):
        bad = ~_close(xa, xb, rel_tol)
        if bad.any():
            return f"{what} of variable {a.model.var_names[int(np.flatnonzero(bad)[0])]!r}"
    bad = na.is_int != nb.is_int[vm]
    if bad.any():
        return f"type of variable {a.model.var_names[int(np.flatnonzero(bad)[0])]!r}"
    if not _close1(na.constant, nb.constant, rel_tol):
        return "objective constant"
    if na.qobj[0].size or nb.qobj[0].size:
        one, zero = np.ones(1), np.zeros(1, np.int64)
        qa = (np.zeros(na.qobj[0].size, dtype=np.int64), *na.qobj)
        qb = (np.zeros(nb.qobj[0].size, dtype=np.int64), *nb.qobj)
        if not _entries_match(_quad_entries(qa, zero, one, vm), _quad_entries(qb, zero, one, None),
                              1, rel_tol)[0]:
            return "quadratic objective terms"
    is_rep = np.zeros(nb.num_rows, dtype=bool)
    is_rep[b.rows] = True
    if m.target.size != a.rows.size or b.rows.size != a.rows.size \
            or not _one_to_one(m.target, nb.num_rows) or not is_rep[m.target].all():
        return "the row map is not a one-to-one map onto B's rows"
    ok = _rows_match(na, a.rows, nb, m.target, m.sign, vm, rel_tol)
    if not ok.all():
        r = int(na.origin[a.rows[int(np.flatnonzero(~ok)[0])]])
        return f"row {a.model.row_names[r]!r} does not match its image"
    return ""


def _certificate(a: _Side, b: _Side, m: _Map) -> Certificate:
    """The certificate in terms of the rows as written."""
    na, nb = a.nm, b.nm
    pos = np.full(na.num_rows, -1, dtype=np.int64)
    pos[a.rows] = np.arange(a.rows.size)
    k = pos[a.rep]
    rb = m.target[k]
    factor = m.sign[k] * a.orient * na.scale / nb.scale[rb]
    order = np.argsort(na.origin, kind="stable")
    return Certificate(m.var_map.copy(), na.origin[order], nb.origin[rb][order], factor[order])


def _map_from_certificate(a: _Side, b: _Side, cert: Certificate) -> _Map | str:
    """The normalised map a certificate claims, or what is malformed about it."""
    na, nb = a.nm, b.nm
    norm_a = np.full(a.model.num_rows, -1, dtype=np.int64)
    norm_a[na.origin] = np.arange(na.num_rows)
    norm_b = np.full(b.model.num_rows, -1, dtype=np.int64)
    norm_b[nb.origin] = np.arange(nb.num_rows)
    row_a, row_b = np.asarray(cert.row_a, dtype=np.int64), np.asarray(cert.row_b, dtype=np.int64)
    factor = np.asarray(cert.factor, dtype=float)
    if row_a.size != row_b.size or row_a.size != factor.size:
        return "the row map has mismatched lengths"
    if (np.any((row_a < 0) | (row_a >= norm_a.size)) or np.any((row_b < 0)
                                                                | (row_b >= norm_b.size))):
        return "the row map names rows that do not exist"
    ka, kb = norm_a[row_a], norm_b[row_b]
    if np.any(ka < 0) or np.any(kb < 0):
        return "the row map lists rows that normalisation folds into bounds or drops"
    where = {int(r): i for i, r in enumerate(ka)}
    idx = [where.get(int(r), -1) for r in a.rows]
    if min(idx, default=0) < 0:
        return "the row map leaves rows of A out"
    idx_a = np.asarray(idx, dtype=np.int64)
    # The factor must be the one the normal forms imply: B row = factor x A row as written.
    sign = np.sign(factor[idx_a] * nb.scale[kb[idx_a]] / na.scale[ka[idx_a]])
    implied = sign * na.scale[ka[idx_a]] / nb.scale[kb[idx_a]]
    if not _close(implied, factor[idx_a], 1e-9).all():
        return "a row factor does not turn the A row into the B row"
    return _Map(np.asarray(cert.var_map, dtype=np.int64), kb[idx_a], sign)


# ------------------------------------------------------------------ search
class _Timeout(Exception):
    pass


def _balanced(colors: np.ndarray, n_a: int) -> bool:
    return np.array_equal(np.sort(colors[:n_a]), np.sort(colors[n_a:]))


@dataclass
class _Level:
    """One node of the search tree: A node ``u`` is matched in turn with each candidate."""

    colors: np.ndarray
    u: int
    candidates: list[int]  # B nodes (union numbering) of u's colour class
    mark: np.uint64
    position: int = 0
    current: int = -1
    failed: list[int] = field(default_factory=list)
    parent: dict[int, int] = field(default_factory=dict)  # union-find over candidates
    aut_misses: int = 0

    def find(self, v: int) -> int:
        while self.parent.get(v, v) != v:
            v = self.parent[v]
        return v

    def union(self, x: int, y: int) -> None:
        rx, ry = self.find(x), self.find(y)
        if rx != ry:
            self.parent[max(rx, ry)] = min(rx, ry)


class _Search:
    """Individualisation-refinement over the disjoint union of two graphs (A nodes first).

    Depth first: pick an A node in the smallest non-trivial colour class, give it and one B node
    of that class a fresh colour, refine, go deeper; backtrack to the next B node when the colour
    histograms of the two sides part. A discrete balanced colouring is a graph isomorphism and
    every isomorphism lies on some path, so the search is complete. Candidates that an
    automorphism of B maps onto a failed one are skipped (the automorphism is found by the same
    search on B against itself and checked edge by edge), which turns the hopeless n-way
    branching of symmetric non-equivalent pairs into a few steps.
    """

    def __init__(self, refine: Refiner, n_a: int, accept: Callable[[np.ndarray], bool],
                 deadline: float | None,
                 automorphisms: Callable[[], _Automorphisms] | None = None,
                 budget: int | None = None) -> None:
        self.refine, self.n_a, self.accept = refine, n_a, accept
        self.deadline, self.make_aut, self.budget = deadline, automorphisms, budget
        self.aut: _Automorphisms | None = None
        self.rounds = MAX_SEARCH_ROUNDS
        self.leaf_rejected = False

    def _tick(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _Timeout
        if self.budget is not None:
            self.budget -= 1
            if self.budget < 0:
                raise _OutOfBudget

    def _expand(self, cur: np.ndarray, depth: int) -> np.ndarray | _Level | None:
        """A refined balanced colouring: an accepted mapping, a level to branch on, or None."""
        n_a = self.n_a
        ca, cb = cur[:n_a], cur[n_a:]
        values, counts = np.unique(ca, return_counts=True)
        if counts.max(initial=1) == 1:
            order_b = np.argsort(cb)
            mapping = order_b[np.searchsorted(cb[order_b], ca)]
            if self.accept(mapping):
                return mapping
            self.leaf_rejected = True
            return None
        target = values[np.flatnonzero(counts == counts[counts > 1].min())[0]]
        u = int(np.flatnonzero(ca == target)[0])
        mark = _splitmix(np.array([target ^ np.uint64(0xC0FFEE + depth)], dtype=np.uint64))[0]
        return _Level(cur, u, (np.flatnonzero(cb == target) + n_a).tolist(), mark)

    def _next(self, lvl: _Level) -> int | None:
        """The next candidate worth trying (automorphisms of B prune the others)."""
        while lvl.position < len(lvl.candidates):
            v = lvl.candidates[lvl.position]
            lvl.position += 1
            if not lvl.failed:
                return v
            dead = {lvl.find(f) for f in lvl.failed}
            if lvl.find(v) in dead:
                continue
            if self.make_aut is not None and not self.leaf_rejected and lvl.aut_misses < 3:
                self.aut = self.aut or self.make_aut()  # built on first use: most pairs never
                sigma = self.aut.find(lvl.colors[self.n_a:], lvl.failed[0] - self.n_a,
                                      v - self.n_a, self.deadline)
                if sigma is not None:
                    for c in lvl.candidates:
                        lvl.union(c, int(sigma[c - self.n_a]) + self.n_a)
                    if lvl.find(v) in {lvl.find(f) for f in lvl.failed}:
                        continue
                else:
                    lvl.aut_misses += 1
            return v
        return None

    def run(self, colors: np.ndarray) -> np.ndarray | None:
        """A mapping A node -> B node that ``accept`` approves, or None if there is none."""
        if not _balanced(colors, self.n_a):
            return None
        root = self._expand(colors, 0)
        if not isinstance(root, _Level):
            return root
        stack = [root]
        while stack:
            lvl = stack[-1]
            v = self._next(lvl)
            if v is None:
                stack.pop()
                if stack:
                    stack[-1].failed.append(stack[-1].current)
                continue
            self._tick()
            trial = lvl.colors.copy()
            trial[lvl.u] = trial[v] = lvl.mark
            cur = self.refine(trial, self.rounds, split=self.n_a)
            out = self._expand(cur, len(stack)) if _balanced(cur, self.n_a) else None
            if isinstance(out, np.ndarray):
                return out
            if out is None:
                lvl.failed.append(v)
                continue
            lvl.current = v
            stack.append(out)
        return None


class _OutOfBudget(Exception):
    pass


class _Automorphisms:
    """Automorphisms of one graph (B), found by searching B against a copy of itself."""

    BUDGET = 64  # refinements per attempt: a helper for pruning, never the bottleneck

    def __init__(self, graph: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]) -> None:
        colors, src, dst, ecol = graph
        self.n = colors.size
        self.src, self.dst, self.ecol = src, dst, ecol
        self.refine = Refiner(np.concatenate([src, src + self.n]),
                              np.concatenate([dst, dst + self.n]), np.concatenate([ecol, ecol]))
        order = np.lexsort((ecol, dst, src))
        self.edges = (src[order], dst[order], ecol[order])

    def find(self, colors: np.ndarray, x: int, y: int, deadline: float | None
             ) -> np.ndarray | None:
        """An automorphism preserving ``colors`` that maps node ``x`` to ``y``, if one is found
        within the budget (None also when there is none)."""
        both = np.concatenate([colors, colors])
        mark = _splitmix(np.array([colors[x] ^ np.uint64(0xA17), ], dtype=np.uint64))[0]
        both[x] = both[self.n + y] = mark
        search = _Search(self.refine, self.n, self._is_automorphism, deadline,
                         budget=self.BUDGET)
        try:
            return search.run(self.refine(both, MAX_SEARCH_ROUNDS, split=self.n))
        except _OutOfBudget:
            return None

    def _is_automorphism(self, sigma: np.ndarray) -> bool:
        s, d, e = self.edges
        ms, md = sigma[s], sigma[d]
        order = np.lexsort((e, md, ms))
        return bool(np.array_equal(ms[order], s) and np.array_equal(md[order], d)
                    and np.array_equal(e[order], e))


def _node_map(a: _Side, b: _Side, mapping: np.ndarray) -> _Map | None:
    """Read the variable and row maps off a node mapping of the two graphs."""
    n = a.nm.num_vars
    rb = b.rows.size
    local = mapping[n:n + a.rows.size] - n  # B node of each primary A row node, past the vars
    if np.any(local < 0) or np.any(local >= rb + b.gadget_rows.size):
        return None
    second = local >= rb  # a secondary node is B's row negated
    g = b.gadget_rows
    pos = np.where(second, g[np.clip(local - rb, 0, g.size - 1)] if g.size else 0, local)
    return _Map(mapping[:n].astype(np.int64), b.rows[pos], np.where(second, -1.0, 1.0))


# ------------------------------------------------------------------ entry points
@dataclass
class _Prepared:
    a: _Side
    b: _Side
    fn: Callable[[np.ndarray], np.ndarray]


def _prepare(ma: CanonicalModel, mb: CanonicalModel, rel_tol: float) -> _Prepared:
    nma, nmb = normalize(ma), normalize(mb)
    fn = _joint_tokens(nma, nmb, rel_tol)
    return _Prepared(_side(ma, nma, fn, rel_tol), _side(mb, nmb, fn, rel_tol), fn)


def check_certificate(a: ModelLike, b: ModelLike, certificate: Certificate, *,
                      rel_tol: float = 1e-6) -> str:
    """'' if ``certificate`` turns ``a`` into ``b`` within ``rel_tol``, else what fails."""
    p = _prepare(as_model(a), as_model(b), rel_tol)
    m = _map_from_certificate(p.a, p.b, certificate)
    return m if isinstance(m, str) else _check(p.a, p.b, m, rel_tol)


def check_equivalence(a: ModelLike, b: ModelLike, *, rel_tol: float = 1e-6,
                      time_limit: float | None = None) -> EquivalenceResult:
    """Whether ``a`` and ``b`` are the same model up to renaming, reordering, row scaling and
    orientation, min/max with negated objective, bounds written as rows, binary vs integer in
    [0, 1] and duplicate rows.

    Numbers match within ``rel_tol`` (relative to the larger magnitude). ``time_limit``
    (seconds) bounds the search; hitting it is the only way to get ``undecided``.
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    ma, mb = as_model(a), as_model(b)
    t1 = time.perf_counter()
    p = _prepare(ma, mb, rel_tol)
    sa, sb = p.a, p.b
    t2 = time.perf_counter()
    timings = {"load": t1 - t0, "normalise": t2 - t1}

    def done(verdict: str, reason: str, cert: Certificate | None = None) -> EquivalenceResult:
        timings["total"] = time.perf_counter() - t0
        return EquivalenceResult(verdict, reason, cert, timings, (ma, mb))

    why = _quick_difference(sa, sb, p.fn, rel_tol)
    if why:
        return done(NOT_EQUIVALENT, why)
    ca, s1, d1, e1 = sa.graph
    cb, s2, d2, e2 = sb.graph
    n_a = ca.size
    refine = Refiner(np.concatenate([s1, s2 + n_a]), np.concatenate([d1, d2 + n_a]),
                     np.concatenate([e1, e2]))
    colors = refine(np.concatenate([ca, cb]), MAX_SEARCH_ROUNDS, split=n_a)
    t3 = time.perf_counter()
    timings["colour"] = t3 - t2
    if not _balanced(colors, n_a):
        return done(NOT_EQUIVALENT, _number_difference(sa, sb, p.fn, rel_tol) or (
            "no isomorphism: colour refinement separates the models (same sizes and numbers, "
            "different structure)"))
    found: list[_Map] = []
    failures: list[str] = []

    def accept(mapping: np.ndarray) -> bool:
        m = _node_map(sa, sb, mapping)
        why = "the node map sends rows to non-rows" if m is None else _check(sa, sb, m, rel_tol)
        if not why:
            found.append(m)  # type: ignore[arg-type]
            return True
        failures.append(why)
        return False

    search = _Search(refine, n_a, accept, deadline, lambda: _Automorphisms(sb.graph))
    try:
        mapping = search.run(colors)
    except _Timeout:
        timings["search"] = time.perf_counter() - t3
        return done(UNDECIDED, f"time limit of {time_limit:g} s reached while searching for a "
                               "mapping")
    timings["search"] = time.perf_counter() - t3
    if mapping is None:
        detail = f" (a candidate within the grouping failed on: {failures[0]})" if failures else ""
        return done(NOT_EQUIVALENT, "no isomorphism: colour refinement cannot tell the models "
                                    f"apart, but an exhaustive search finds no mapping{detail}")
    return done(EQUIVALENT, "certificate checked: every bound, type, coefficient, right-hand "
                            "side and objective term matches", _certificate(sa, sb, found[0]))
