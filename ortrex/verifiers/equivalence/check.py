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

Models that differ in their rows alone are compared once more in their comparison forms
(:mod:`ortrex.verifiers.equivalence.encodings`: ranged rows split into their two one-sided
rows, one-sided rows that mirror each other joined into the equality they state), so that a
range or an equality written as one row in one model and as two one-sided rows in the other
still match; the certificate then maps sides of rows and says which rows are written differently.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import (
    Refiner,
    all_true,
    equal,
    sort,
)
from ortrex.ir.formats import from_gurobi, from_highs, read_model
from ortrex.ir.normalize import EQ0, EQ1, GE
from ortrex.verifiers.equivalence.encodings import LOWER, SIDE_NAMES, UPPER, encoding
from ortrex.verifiers.equivalence.isomorphism import (
    MAX_SEARCH_ROUNDS,
    Automorphisms,
    PairRefiner,
    Search,
    SearchTimeout,
    balanced,
)
from ortrex.verifiers.equivalence.rowmatch import (
    close,
    close1,
    entries_match,
    joint_tokens,
    one_to_one,
    quad_entries,
    rows_match,
)
from ortrex.verifiers.equivalence.sides import (
    RANGED,
    ROWS,
    Side,
    cached_sides,
    coefficient_tokens,
    exact_tokens,
    form,
    make_side,
)

EQUIVALENT, NOT_EQUIVALENT, UNDECIDED = "equivalent", "not_equivalent", "undecided"
VERDICTS = (EQUIVALENT, NOT_EQUIVALENT, UNDECIDED)


@dataclass
class Certificate:
    """How model A maps onto model B.

    ``var_map[i]`` is the variable of B that variable ``i`` of A becomes. Row ``row_a[k]`` of A
    times ``factor[k]`` is row ``row_b[k]`` of B (indices of the rows as written; rows that
    normalisation folds into bounds or drops as empty are not listed, and an A row that
    duplicates another maps onto the same B row).

    ``part_a`` / ``part_b`` (None: every row whole, the certificates of the normal forms) name
    pieces of rows where the two models write a two-sided row differently: 0 the row as
    written, LOWER its ``>=`` side, UPPER its ``<=`` side. Entry ``k`` then says that piece
    ``part_a[k]`` of row ``row_a[k]`` times ``factor[k]`` is piece ``part_b[k]`` of row
    ``row_b[k]``: a range of A against two one-sided rows of B is two entries, one per side.
    """

    var_map: np.ndarray
    row_a: np.ndarray
    row_b: np.ndarray
    factor: np.ndarray
    part_a: np.ndarray | None = None
    part_b: np.ndarray | None = None

    def to_dict(self, a: CanonicalModel, b: CanonicalModel) -> dict[str, Any]:
        """JSON-friendly form with the models' names."""
        rows = []
        for k, (i, j, f) in enumerate(zip(self.row_a, self.row_b, self.factor, strict=True)):
            row: dict[str, Any] = {"a": a.row_names[int(i)]}
            if self.part_a is not None and self.part_a[k]:
                row["a_side"] = SIDE_NAMES[int(self.part_a[k])]
            row["b"] = b.row_names[int(j)]
            if self.part_b is not None and self.part_b[k]:
                row["b_side"] = SIDE_NAMES[int(self.part_b[k])]
            row["factor"] = float(f)
            rows.append(row)
        d: dict[str, Any] = {"variables": {a.var_names[i]: b.var_names[int(j)]
                                           for i, j in enumerate(self.var_map)}, "rows": rows}
        notes = self.notes(a, b)
        if notes:
            d["encodings"] = notes
        return d

    def notes(self, a: CanonicalModel, b: CanonicalModel) -> list[str]:
        """The two-sided rows of one model that the other writes as one-sided rows, in words."""
        if self.part_a is None or self.part_b is None:
            return []
        out = []
        for mine, other, parts, o_parts, rows, o_rows, m, o in (
                ("A", "B", self.part_a, self.part_b, self.row_a, self.row_b, a, b),
                ("B", "A", self.part_b, self.part_a, self.row_b, self.row_a, b, a)):
            written: dict[int, list[int]] = {}
            for k in np.flatnonzero((parts != 0) & (o_parts == 0)).tolist():
                others = written.setdefault(int(rows[k]), [])
                if int(o_rows[k]) not in others:
                    others.append(int(o_rows[k]))
            for r, others in written.items():
                others.sort()
                what = "equality" if m.row_lower[r] == m.row_upper[r] else "ranged row"
                names = " and ".join(repr(o.row_names[x]) for x in others)
                out.append(f"{mine}'s {what} {m.row_names[r]!r} is written in {other} as the "
                           f"one-sided row{'s' * (len(others) > 1)} {names}")
        return out


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


# ------------------------------------------------------------------ diagnosis
def _first(ta: np.ndarray, tb: np.ndarray) -> int | None:
    """Where in ``ta`` the first token occurring more often in A than in B is."""
    ua, ca = np.unique(ta, return_counts=True)
    ub, cb = np.unique(tb, return_counts=True)
    pos = np.minimum(np.searchsorted(ub, ua), max(ub.size - 1, 0))
    count_b = np.where((ub.size > 0) & (ub[pos] == ua), cb[pos] if ub.size else 0, 0)
    extra = np.flatnonzero(ca > count_b)
    return int(np.flatnonzero(ta == ua[int(extra[0])])[0]) if extra.size else None


def _unmatched(values: np.ndarray, ta: np.ndarray, tb: np.ndarray
               ) -> tuple[float, int, int] | None:
    """A value of A whose token occurs more often in A than in B, with both counts."""
    i = _first(ta, tb)
    if i is None:
        return None
    return float(values[i]), int(np.count_nonzero(ta == ta[i])), int(np.count_nonzero(tb == ta[i]))


def _var(s: Side, j: int, value: str) -> str:
    return f"variable {s.model.var_names[j]!r} ({value})"


def _row(s: Side, r: int) -> str:
    """The original row a normalised row came from, with its bounds as written."""
    m, k = s.model, int(s.nm.origin[r])
    lo, hi = m.row_lower[k], m.row_upper[k]
    bounds = (f"= {hi:.10g}" if lo == hi else f"<= {hi:.10g}" if lo == -np.inf else
              f">= {lo:.10g}" if hi == np.inf else f"in [{lo:.10g}, {hi:.10g}]")
    return f"row {m.row_names[k]!r} ({bounds})"


def _entry(s: Side, nz: int) -> str:
    """The original coefficient a normalised nonzero came from: row, variable, value."""
    nm, m = s.nm, s.model
    r = int(nm.A.row_of_entry()[nz])
    j = int(nm.A.indices[nz])
    k = int(nm.origin[r])
    lo, hi = int(m.csr.indptr[k]), int(m.csr.indptr[k + 1])
    at = lo + int(np.searchsorted(m.csr.indices[lo:hi], j))  # columns sorted within a row
    value = float(m.csr.data[at]) if at < hi and m.csr.indices[at] == j else 0.0
    return f"row {m.row_names[k]!r}, variable {m.var_names[j]!r} (coefficient {value:.10g})"


def _by_name(a: Side, b: Side, ta: np.ndarray, tb: np.ndarray,
             names: Callable[[Side], list[Any]] | None) -> tuple[int | None, int | None]:
    """Where A and B, paired by name (a model and its edit), first hold different numbers."""
    if names is None or ta.size > 200_000:
        return None, None
    na, nb = names(a), names(b)
    if len(na) != ta.size or len(nb) != tb.size:
        return None, None
    in_b = {n: i for i, n in enumerate(nb)}
    for i, n in enumerate(na):
        j = in_b.get(n)
        if j is not None and ta[i] != tb[j]:
            return i, j
    return None, None


def _where(a: Side, b: Side, ta: np.ndarray, tb: np.ndarray,
           locate: Callable[[Side, int], str] | None,
           names: Callable[[Side], list[Any]] | None = None) -> str:
    """" (in A: ...; in B: ...)": where the unmatched numbers are in the models as written
    ('' for a comparison encoding, whose rows are not the file's)."""
    if locate is None or a.enc is not None or b.enc is not None:
        return ""
    parts = []
    try:
        paired = _by_name(a, b, ta, tb, names)
    except (IndexError, RuntimeError, AttributeError):
        paired = (None, None)
    for (side, name, x, y), at in zip(((a, "A", ta, tb), (b, "B", tb, ta)), paired,
                                      strict=True):
        i = at if paired[0] is not None else _first(x, y)
        if i is not None:
            try:
                parts.append(f"in {name}: {locate(side, i)}")
            except (IndexError, RuntimeError, AttributeError):  # a form the names do not reach
                return ""
    return f" ({'; '.join(parts)})" if parts else ""


def _same_multiset(ta: np.ndarray, tb: np.ndarray) -> bool:
    return ta.size == tb.size and equal(sort(ta), sort(tb))


def _differs(what: str, values: np.ndarray, ta: np.ndarray, tb: np.ndarray,
             sides: tuple[Side, Side] | None = None,
             locate: Callable[[Side, int], str] | None = None,
             names: Callable[[Side], list[Any]] | None = None) -> str:
    found = _unmatched(values, ta, tb)
    if found is None:
        return f"{what} differ"
    v, na, nb = found
    where = _where(*sides, ta, tb, locate, names) if sides else ""
    return f"{what} differ: {v:.10g} occurs {na} time{'s' * (na != 1)} in A, {nb} in B{where}"


def _quick_difference(a: Side, b: Side, fn: Callable[[np.ndarray], np.ndarray],
                      rel_tol: float) -> str:
    """A count or the objective constant that differs, in words ('' if none): cheap checks
    run before colouring (the constant is not part of the graph)."""
    for (what, x), (_, y) in zip(a.counts, b.counts, strict=True):
        if x != y:
            return f"after normalisation: {x} {what} vs {y}"
    if not close1(a.nm.constant, b.nm.constant, rel_tol):
        return _number_difference(a, b, fn, rel_tol)
    return ""


def _number_difference(a: Side, b: Side, fn: Callable[[np.ndarray], np.ndarray],
                       rel_tol: float) -> str:
    """The first multiset of numbers that differs, in words ('' if none). Equivalent models
    have the same multisets (numbers within tolerance share a token), so this is a proof."""
    na, nb = a.nm, b.nm
    sa, sb = a.multisets, b.multisets

    def same(key: str) -> bool:
        return equal(sa[key], sb[key])

    c_same = same("c") and same("qo")
    const_same = close1(na.constant, nb.constant, rel_tol)
    if not (c_same and const_same):
        neg = (_same_multiset(a.tk["c"], fn(-nb.c)) and _same_multiset(a.tk["qo"], fn(-nb.qobj[2]))
               and close1(na.constant, -nb.constant, rel_tol))
        if neg:
            return "objective sense differs: the objectives are the same up to sign"
        if not const_same:
            return f"objective constants differ: {na.constant:.10g} vs {nb.constant:.10g} " \
                   "(in min form)"
        if not same("c"):
            return _differs("objective coefficients (in min form)", na.c, a.tk["c"], b.tk["c"],
                            (a, b), lambda s, j: _var(s, j, f"objective {s.model.obj[j]:.10g}"),
                            _var_names)
        return _differs("quadratic objective coefficients", na.qobj[2], a.tk["qo"], b.tk["qo"])
    for what, key in (("variable lower bounds", "lb"), ("variable upper bounds", "ub")):
        if not same(key):
            return _differs(what, getattr(na, key), a.tk[key], b.tk[key], (a, b),
                            lambda s, j, k=key: _var(s, j, f"{k} {getattr(s.model, k)[j]:.10g}"),
                            _var_names)
    if not same("rhs"):
        ga, gb = (s.nm.kind[s.rows] == GE for s in (a, b))
        sel = {id(a): a.rows[ga], id(b): b.rows[gb]}
        return _differs("right-hand sides of inequalities (normalised)", na.rlo[a.rows[ga]],
                        a.tk["rlo"][a.rows[ga]], b.tk["rlo"][b.rows[gb]], (a, b),
                        lambda s, i: _row(s, int(sel[id(s)][i])),
                        lambda s: [s.model.row_names[int(s.nm.origin[r])] for r in sel[id(s)]])
    # Coefficients: as signed values where the row's sign is fixed, up to sign where it is open.
    if not same("coef"):
        ta, va = coefficient_tokens(a)
        return _differs("constraint coefficients (normalised)", va, ta, coefficient_tokens(b)[0],
                        (a, b), lambda s, i: _entry(s, _kept_entry(s, i)), _entry_names)
    return ""


def _var_names(s: Side) -> list[Any]:
    return list(s.model.var_names)


def _entry_names(s: Side) -> list[Any]:
    """(row, variable) of each kept nonzero, as ``coefficient_tokens`` orders them."""
    nm, m = s.nm, s.model
    keep = np.zeros(nm.num_rows, dtype=bool)
    keep[s.rows] = True
    rows = nm.A.row_of_entry()
    nz = np.flatnonzero(keep[rows])
    return [(m.row_names[int(nm.origin[rows[k]])], m.var_names[int(nm.A.indices[k])])
            for k in nz]


def _kept_entry(s: Side, i: int) -> int:
    """The nonzero of ``s.nm.A`` that is the ``i``-th of ``coefficient_tokens`` (kept rows)."""
    if s.rows.size == s.nm.num_rows:
        return i
    keep = np.zeros(s.nm.num_rows, dtype=bool)
    keep[s.rows] = True
    return int(np.flatnonzero(keep[s.nm.A.row_of_entry()])[i])


# ------------------------------------------------------------------ certificate checking
@dataclass
class _Map:
    """A candidate correspondence in normalised terms."""

    var_map: np.ndarray  # A variable -> B variable
    target: np.ndarray  # A representative k -> B normalised row
    sign: np.ndarray  # B row = sign x A row (after the variable map)


def _check(a: Side, b: Side, m: _Map, rel_tol: float) -> str:
    """'' if the map reproduces every number of B from A within tolerance, else what fails."""
    na, nb = a.nm, b.nm
    n = na.num_vars
    vm = m.var_map
    if vm.size != n or nb.num_vars != n or not _is_permutation(vm, n):
        return "the variable map is not a one-to-one map onto B's variables"
    # Bounds and objective coefficients in one comparison.
    ok = close(np.concatenate([na.lb, na.ub, na.c]),
               np.concatenate([nb.lb[vm], nb.ub[vm], nb.c[vm]]), rel_tol)
    if not all_true(ok):
        k = int(np.flatnonzero(~ok)[0])
        what = ("lower bound", "upper bound", "objective coefficient")[k // n]
        return f"{what} of variable {a.model.var_names[k % n]!r}"
    if not (equal(na.is_int, nb.is_int[vm]) and equal(na.semi, nb.semi[vm])):
        bad = (na.is_int != nb.is_int[vm]) | (na.semi != nb.semi[vm])
        return f"type of variable {a.model.var_names[int(np.flatnonzero(bad)[0])]!r}"
    if not close1(na.constant, nb.constant, rel_tol):
        return "objective constant"
    if na.qobj[0].size or nb.qobj[0].size:
        one, zero = np.ones(1), np.zeros(1, np.int64)
        qa = (np.zeros(na.qobj[0].size, dtype=np.int64), *na.qobj)
        qb = (np.zeros(nb.qobj[0].size, dtype=np.int64), *nb.qobj)
        if not entries_match(quad_entries(qa, zero, one, vm), quad_entries(qb, zero, one, None),
                              1, rel_tol)[0]:
            return "quadratic objective terms"
    if m.target.size != a.rows.size or b.rows.size != a.rows.size or not _onto_rows(b, m.target):
        return "the row map is not a one-to-one map onto B's rows"
    if _every_row_matches(a, b, m, rel_tol):
        return ""
    ok = rows_match(na, a.rows, nb, m.target, m.sign, vm, rel_tol)
    if not all_true(ok):
        r = int(na.origin[a.rows[int(np.flatnonzero(~ok)[0])]])
        return f"row {a.model.row_names[r]!r} does not match its image"
    return ""


def _is_permutation(m: np.ndarray, size: int) -> bool:
    """Whether ``m`` holds each of 0 .. size - 1 once."""
    if m.dtype.kind not in "iu":
        return one_to_one(m, size) if m.size == size else False
    return m.size == size and equal(sort(m), np.arange(size, dtype=m.dtype))


def _onto_rows(b: Side, target: np.ndarray) -> bool:
    """Whether ``target`` names each of B's representative rows once."""
    nb = b.nm
    if b.rows.size == nb.num_rows:  # every row its own representative
        return _is_permutation(target, nb.num_rows)
    is_rep = np.zeros(nb.num_rows, dtype=bool)
    is_rep[b.rows] = True
    return one_to_one(target, nb.num_rows) and all_true(is_rep[target])


def _every_row_matches(a: Side, b: Side, m: _Map, rel_tol: float) -> bool:
    """Whether every row of A, mapped, equals its B row within tolerance, in one comparison of
    all entries (B's are in row and column order already, A's are sorted once); only for
    models with no merged and no quadratic rows. False also where the rows do not apply: the
    row-by-row comparison then says which row fails."""
    na, nb = a.nm, b.nm
    if a.rows.size != na.num_rows or b.rows.size != nb.num_rows or na.A.nnz != nb.A.nnz \
            or na.qrows[0].size or nb.qrows[0].size:
        return False
    target, sign = m.target, m.sign
    if not equal(na.kind, nb.kind[target]):
        return False
    flip = sign < 0
    lo = np.where(flip, -na.rhi, na.rlo)
    hi = np.where(flip, -na.rlo, na.rhi)
    both = np.concatenate([nb.rlo[target], nb.rhi[target]])
    if not all_true(close(np.concatenate([lo, hi]), both, rel_tol)):
        return False
    rows = a.entry_rows
    key = target[rows] * na.num_vars + m.var_map[na.A.indices]
    order = np.argsort(key)
    return bool(equal(key[order], b.entry_keys)
                and all_true(close((na.A.data * sign[rows])[order], nb.A.data, rel_tol)))


def _certificate(a: Side, b: Side, m: _Map) -> Certificate:
    """The certificate in terms of the rows as written."""
    if a.enc is not None or b.enc is not None:
        return _piece_certificate(a, b, m)
    na, nb = a.nm, b.nm
    pos = np.full(na.num_rows, -1, dtype=np.int64)
    pos[a.rows] = np.arange(a.rows.size)
    k = pos[a.rep]
    rb = m.target[k]
    factor = m.sign[k] * a.orient * na.scale / nb.scale[rb]
    order = np.argsort(na.origin, kind="stable")
    return Certificate(m.var_map.copy(), na.origin[order], nb.origin[rb][order], factor[order])


def _map_from_certificate(a: Side, b: Side, cert: Certificate) -> _Map | str:
    """The normalised map a certificate claims, or what is malformed about it."""
    if cert.part_a is not None:
        return _map_from_pieces(a, b, cert)
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
    if not close(implied, factor[idx_a], 1e-9).all():
        return "a row factor does not turn the A row into the B row"
    return _Map(np.asarray(cert.var_map, dtype=np.int64), kb[idx_a], sign)


# ------------------------------------------------------------------ pieces of rows
def _pieces(s: Side) -> tuple[np.ndarray, np.ndarray]:
    """Per normalised row: its piece of the row as written, and the side of an equality it is."""
    if s.enc is None:
        zero = np.zeros(s.nm.num_rows, dtype=np.int8)
        return zero, zero
    return s.enc.parts(), s.enc.halves()


def _written_side(side: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """The side (LOWER, UPPER) as written that side +1 (>=) / -1 (<=) of a normalised row is."""
    # The normalised row is the row as written times ``scale``: a negative scale swaps sides.
    return np.where(side * np.sign(scale) > 0, LOWER, UPPER).astype(np.int8)


def _first_member(b: Side, mask: np.ndarray) -> np.ndarray:
    """Per normalised row of B: the first row in its duplicate group with ``mask``, or -1."""
    size = b.nm.num_rows
    out = np.full(size, size, dtype=np.int64)
    u = np.flatnonzero(mask)
    np.minimum.at(out, b.rep[u], u)
    out[out == size] = -1
    return out


def _piece_certificate(a: Side, b: Side, m: _Map) -> Certificate:
    """The certificate in pieces of rows as written, where comparison forms split or join rows."""
    # Each A row maps onto the B row that states what it states: a one-sided row joined into an
    # equality onto the side of the B equality it is (a joined one-sided B row, or a side of an
    # equality written as one row); an equality of A that B writes as two one-sided rows onto
    # both of them (two entries). Both sides of a split A range that land on both sides of one
    # split B range are one entry again, as in the normal forms' certificates.
    na, nb = a.nm, b.nm
    part_a, half_a = _pieces(a)
    part_b, half_b = _pieces(b)
    pos = np.full(na.num_rows, -1, dtype=np.int64)
    pos[a.rows] = np.arange(a.rows.size)
    k_rep = pos[a.rep]
    rho = m.sign[k_rep] * a.orient  # B row t = rho x A row k, variables mapped
    t = m.target[k_rep]
    cover = (rho * half_a).astype(np.int64)  # the side of t that row k states; 0: all of it
    b_cover = (half_b * b.orient).astype(np.int64)  # the same for B's rows and their groups
    whole, ge, le = (_first_member(b, b_cover == c) for c in (0, 1, -1))
    rows = np.arange(na.num_rows)
    both = (cover == 0) & (whole[t] < 0)  # an equality B writes as two one-sided rows
    k = np.concatenate([rows, rows[both]])
    side = np.concatenate([np.where(both, 1, cover), -np.ones(int(both.sum()), np.int64)])
    tk = t[k]
    u = np.where(side > 0, ge[tk], np.where(side < 0, le[tk], whole[tk]))
    u = np.where(u < 0, whole[tk], u)  # a side of a B equality written as one row
    u = np.where(u < 0, tk, u)
    pa = np.where(both[k] & (side != 0), _written_side(side * rho[k], na.scale[k]), part_a[k])
    pb = np.where((b_cover[u] == 0) & (side != 0) & (half_b[u] == 0)
                  & ((nb.kind[u] == EQ0) | (nb.kind[u] == EQ1)),
                  _written_side(side * b.orient[u], nb.scale[u]), part_b[u])
    factor = b.orient[u] * rho[k] * na.scale[k] / nb.scale[u]
    ra, rb = na.origin[k], nb.origin[u]
    order = np.lexsort((pa, ra))
    ra, rb, pa, pb, factor = ra[order], rb[order], pa[order], pb[order], factor[order]
    # A range that is a range in B too: its two sides, adjacent, are one entry.
    split_a = np.isin(ra, a.enc.split) if a.enc is not None else np.zeros(ra.size, bool)
    split_b = np.isin(rb, b.enc.split) if b.enc is not None else np.zeros(rb.size, bool)
    pair = split_a[:-1] & split_a[1:] & split_b[:-1] & split_b[1:] & (ra[:-1] == ra[1:]) \
        & (rb[:-1] == rb[1:]) & (pa[:-1] != pa[1:]) & (pb[:-1] != pb[1:]) \
        & close(factor[:-1], factor[1:], 1e-9)
    if pair.any():
        first = np.flatnonzero(pair)
        pa[first] = pb[first] = 0
        keep = np.ones(ra.size, dtype=bool)
        keep[first + 1] = False
        ra, rb, pa, pb, factor = ra[keep], rb[keep], pa[keep], pb[keep], factor[keep]
    return Certificate(m.var_map.copy(), ra, rb, factor, pa.astype(np.int8), pb.astype(np.int8))


def _resolve(s: Side, rows: np.ndarray, parts: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray] | str:
    """Each piece's normalised row and the side of it the piece is (0: all), or what is wrong."""
    nm = s.nm
    part, half = _pieces(s)
    table = np.full(3 * s.model.num_rows, -1, dtype=np.int64)
    table[3 * nm.origin + part] = np.arange(nm.num_rows)
    k = table[3 * rows + parts]
    side_of = (k < 0) & (parts != 0)  # a side of a row the form keeps in one piece
    k = np.where(side_of, table[3 * rows], k)
    if np.any(k < 0):
        return "the row map lists rows that normalisation folds into bounds or drops, or " \
               "a two-sided row without its side"
    is_eq = (nm.kind[k] == EQ0) | (nm.kind[k] == EQ1)
    if np.any(side_of & ~(is_eq & (half[k] == 0))):
        return "the row map names a side of a row that is not an equality"
    cover = np.where(side_of, np.where(parts == LOWER, 1, -1) * np.sign(nm.scale[k]), half[k])
    return k, cover.astype(np.int64)


def _map_from_pieces(a: Side, b: Side, cert: Certificate) -> _Map | str:
    """The normalised map a certificate of pieces of rows claims, or what is malformed."""
    na, nb = a.nm, b.nm
    row_a, row_b = np.asarray(cert.row_a, dtype=np.int64), np.asarray(cert.row_b, dtype=np.int64)
    factor = np.asarray(cert.factor, dtype=float)
    part_a = np.asarray(cert.part_a, dtype=np.int64)
    part_b = np.zeros(row_b.size, np.int64) if cert.part_b is None else np.asarray(
        cert.part_b, dtype=np.int64)
    if not row_a.size == row_b.size == factor.size == part_a.size == part_b.size:
        return "the row map has mismatched lengths"
    if (np.any((row_a < 0) | (row_a >= a.model.num_rows)) or np.any(
            (row_b < 0) | (row_b >= b.model.num_rows))
            or np.any((part_a < 0) | (part_a > UPPER) | (part_b < 0) | (part_b > UPPER))):
        return "the row map names rows that do not exist"
    if a.enc is not None and a.enc.split.size:
        # A two-sided row of A named whole, where the form splits it: both of its sides, onto
        # the sides of the B row they become (swapped by a negative factor).
        whole = np.flatnonzero((part_a == 0) & np.isin(row_a, a.enc.split))
        if whole.size:
            flip = factor[whole] < 0
            lower_b = np.where(part_b[whole] == 0, np.where(flip, UPPER, LOWER), -1)
            upper_b = np.where(part_b[whole] == 0, np.where(flip, LOWER, UPPER), -1)
            rest = np.ones(row_a.size, dtype=bool)
            rest[whole] = False
            row_a = np.concatenate([row_a[rest], row_a[whole], row_a[whole]])
            row_b = np.concatenate([row_b[rest], row_b[whole], row_b[whole]])
            factor = np.concatenate([factor[rest], factor[whole], factor[whole]])
            part_a = np.concatenate([part_a[rest], np.full(whole.size, LOWER),
                                     np.full(whole.size, UPPER)])
            part_b = np.concatenate([part_b[rest], lower_b, upper_b])
            if np.any(part_b < 0):
                return "a two-sided row of A maps onto one side of a B row"
    found_a, found_b = _resolve(a, row_a, part_a), _resolve(b, row_b, part_b)
    if isinstance(found_a, str):
        return found_a
    if isinstance(found_b, str):
        return found_b
    (ka, cover_a), (kb, cover_b) = found_a, found_b
    # The factor must be the one the comparison forms imply: B piece = factor x A piece.
    rho = np.sign(factor * nb.scale[kb] / na.scale[ka])
    if not close(rho * na.scale[ka] / nb.scale[kb], factor, 1e-9).all():
        return "a row factor does not turn the A row into the B row"
    if np.any(rho * cover_a != cover_b):
        return "a side of an A row maps onto another side of its B row"
    pos = np.full(na.num_rows, -1, dtype=np.int64)
    pos[a.rows] = np.arange(a.rows.size)
    p = pos[ka]
    named = p >= 0
    target = np.full(a.rows.size, -1, dtype=np.int64)
    sign = np.zeros(a.rows.size)
    tb = b.rep[kb][named]
    sb = (rho * b.orient[kb] * a.orient[ka])[named]
    target[p[named]], sign[p[named]] = tb, sb
    if np.any(target < 0):
        return "the row map leaves rows of A out"
    if np.any(target[p[named]] != tb) or np.any(sign[p[named]] != sb):
        return "the row map sends one row of A to two different rows of B"
    return _Map(np.asarray(cert.var_map, dtype=np.int64), target, sign)


def _named_rows(a: Side, b: Side, vm: np.ndarray) -> np.ndarray | None:
    """The B row of each representative A row by name and piece; None if a name is missing."""
    # The sides of a range named alike in both models pair by the sign of their coefficients:
    # a range scaled by a negative factor swaps them.
    ma, mb, na, nb = a.model, b.model, a.nm, b.nm
    part_a, part_b = _pieces(a)[0], _pieces(b)[0]
    rows_b = mb.row_names
    b_row = {(rows_b[o], p): k for k, (o, p) in
             enumerate(zip(nb.origin.tolist(), part_b.tolist(), strict=True))}
    rows_a = ma.row_names
    keys = [(rows_a[o], p) for o, p in zip(na.origin[a.rows].tolist(),
                                            part_a[a.rows].tolist(), strict=True)]
    target = np.fromiter((b_row.get(x, -1) for x in keys), dtype=np.int64, count=len(keys))
    if target.size and target.min() < 0:
        return None
    halves = np.flatnonzero((part_a[a.rows] != 0) & (part_b[target] != 0))
    if halves.size and nb.A.nnz:
        first = na.A.indptr[a.rows[halves]]
        key = target[halves] * nb.num_vars + vm[na.A.indices[first]]
        at = np.minimum(np.searchsorted(b.entry_keys, key), nb.A.nnz - 1)
        flip = (b.entry_keys[at] == key) & (nb.A.data[at] * na.A.data[first] < 0)
        for h in halves[flip].tolist():
            name, p = keys[h]
            target[h] = b_row.get((name, LOWER + UPPER - p), target[h])
    return target


def _node_map(a: Side, b: Side, mapping: np.ndarray) -> _Map | None:
    """Read the variable and row maps off a node mapping of the two graphs."""
    n = a.nm.num_vars
    rb = b.rows.size
    local = mapping[n:n + a.rows.size] - n  # B node of each primary A row node, past the vars
    if local.size and (local.min() < 0 or local.max() >= rb + b.gadget_rows.size):
        return None
    second = local >= rb  # a secondary node is B's row negated
    g = b.gadget_rows
    pos = np.where(second, g[np.clip(local - rb, 0, g.size - 1)] if g.size else 0, local)
    return _Map(mapping[:n].astype(np.int64), b.rows[pos], np.where(second, -1.0, 1.0))


def _name_map(a: Side, b: Side) -> _Map | None:
    """The map that pairs variables and rows by name, when B uses A's names for both (a model
    and its reformulation, a file read back): a candidate like any other, checked number by
    number, that spares the graph and the search when it holds."""
    ma, mb, na, nb = a.model, b.model, a.nm, b.nm
    names_a, names_b = ma.var_names, mb.var_names
    n = len(names_a)
    if len(names_b) != n:
        return None
    if names_a == names_b:
        vm = np.arange(n, dtype=np.int64)
    else:
        index = dict(zip(names_b, range(n), strict=True))
        if names_a[0] not in index:
            return None  # renamed: the usual case, refused at the first name
        vm = np.fromiter((index.get(x, -1) for x in names_a), dtype=np.int64, count=n)
        if vm.min() < 0:
            return None
    if a.enc is None and b.enc is None:
        rows_b = mb.row_names
        b_row = {rows_b[o]: k for k, o in enumerate(nb.origin.tolist())}
        rows_a = ma.row_names
        target = np.fromiter((b_row.get(rows_a[o], -1) for o in na.origin[a.rows].tolist()),
                             dtype=np.int64, count=a.rows.size)
        if target.size and target.min() < 0:
            return None
    else:  # a row as written may be two rows of the comparison form: names and pieces
        found = _named_rows(a, b, vm)
        if found is None:
            return None
        target = found
    sign = np.ones(a.rows.size)
    open_rows = np.flatnonzero((na.kind[a.rows] >= EQ0) & (na.A.lengths()[a.rows] > 0))
    if open_rows.size:  # a row whose sign the normal form leaves open: its first coefficient's
        first = na.A.indptr[a.rows[open_rows]]
        key = target[open_rows] * nb.num_vars + vm[na.A.indices[first]]
        pos = np.minimum(np.searchsorted(b.entry_keys, key), max(nb.A.nnz - 1, 0))
        if nb.A.nnz:
            flip = (b.entry_keys[pos] == key) & (nb.A.data[pos] * na.A.data[first] < 0)
            sign[open_rows[flip]] = -1.0
    return _Map(vm, target, sign)


# ------------------------------------------------------------------ entry points
@dataclass
class _Prepared:
    a: Side
    b: Side
    fn: Callable[[np.ndarray], np.ndarray]


def _prepare(ma: CanonicalModel, mb: CanonicalModel, rel_tol: float,
             encoded: bool = False) -> _Prepared:
    nma, ea = form(ma, rel_tol, encoded)
    nmb, eb = form(mb, rel_tol, encoded)
    ta, tb, fn = joint_tokens(nma, nmb, rel_tol)
    return _Prepared(make_side(ma, nma, ta, rel_tol, ea), make_side(mb, nmb, tb, rel_tol, eb), fn)


def check_certificate(a: ModelLike, b: ModelLike, certificate: Certificate, *,
                      rel_tol: float = 1e-6) -> str:
    """'' if ``certificate`` turns ``a`` into ``b`` within ``rel_tol``, else what fails."""
    # The models are held here for the whole check: a side keeps only a weak reference to
    # its model, and a model read from a path has no other owner.
    ma, mb = as_model(a), as_model(b)
    # A certificate of pieces of rows speaks of the comparison forms, and is checked on them.
    p = _prepare(ma, mb, rel_tol, certificate.part_a is not None)
    m = _map_from_certificate(p.a, p.b, certificate)
    return m if isinstance(m, str) else _check(p.a, p.b, m, rel_tol)


# Counts that only rows make: models that differ in nothing else may write rows differently.
_ROW_COUNTS = frozenset({"rows", "equality rows", "ranged rows", "inequality rows",
                         "constraint coefficients"})


def _beyond_rows(a: Side, b: Side, rel_tol: float) -> bool:
    """Whether the models differ beyond their linear rows, so that no way of writing rows helps."""
    # Variables, types, bounds, the objective and quadratic rows are the same in the comparison
    # forms; a difference found in the sides' tokens is a proof, as in _number_difference.
    for (what, x), (_, y) in zip(a.counts, b.counts, strict=True):
        if x != y and what not in _ROW_COUNTS:
            return True
    if not close1(a.nm.constant, b.nm.constant, rel_tol):
        return True
    if "multisets" not in a.__dict__ or "multisets" not in b.__dict__:
        return False  # not sorted yet (a count told the models apart): not worth sorting now
    sa, sb = a.multisets, b.multisets
    return not all(equal(sa[key], sb[key]) for key in ("c", "qo", "lb", "ub"))


Verdict = tuple[str, str, Certificate | None, tuple[Side, Side] | None]
# Timing keys of the two comparisons: of the normal forms, then of the comparison forms.
_STEPS = {False: ("normalise", "names", "colour", "search"),
          True: ("split forms: normalise", "split forms: names", "split forms: colour",
                 "split forms: search")}


def check_equivalence(a: ModelLike, b: ModelLike, *, rel_tol: float = 1e-6,
                      time_limit: float | None = None) -> EquivalenceResult:
    """Whether ``a`` and ``b`` are the same model up to renaming, reordering, row scaling and
    orientation, min/max with negated objective, bounds written as rows, binary vs integer in
    [0, 1], duplicate rows, and ranges and equalities written as one row or as two one-sided
    rows.

    Numbers match within ``rel_tol`` (relative to the larger magnitude). ``time_limit``
    (seconds) bounds the search; hitting it is the only way to get ``undecided``.
    """
    t0 = time.perf_counter()
    deadline = None if time_limit is None else t0 + time_limit
    ma, mb = as_model(a), as_model(b)
    t1 = time.perf_counter()
    timings = {"load": t1 - t0}

    def done(verdict: str, reason: str, cert: Certificate | None = None) -> EquivalenceResult:
        timings["total"] = time.perf_counter() - t0
        return EquivalenceResult(verdict, reason, cert, timings, (ma, mb))

    # The first two counts of _quick_difference, before any normalisation (which keeps every
    # variable and its integrality): the same verdict and words, without the work.
    for what, x, y in (("variables", ma.num_vars, mb.num_vars),
                       ("integer variables", np.count_nonzero(ma.integral),
                        np.count_nonzero(mb.integral))):
        if x != y:
            return done(NOT_EQUIVALENT, f"after normalisation: {x} {what} vs {y}")
    verdict, reason, cert, sides = _compare(ma, mb, rel_tol, deadline, time_limit, timings,
                                            False)
    if verdict == NOT_EQUIVALENT and sides is not None:
        # Perhaps the models differ only in how they write ranges and equalities. The
        # comparison forms are computed here alone, so that the pairs that need them pay.
        t2 = time.perf_counter()
        differ = _may_write_rows_differently(ma, mb, *sides, rel_tol)
        timings["encodings"] = time.perf_counter() - t2
        if differ:
            verdict, reason, cert, _ = _compare(ma, mb, rel_tol, deadline, time_limit,
                                                timings, True)
    return done(verdict, reason, cert)


def _may_write_rows_differently(ma: CanonicalModel, mb: CanonicalModel, sa: Side, sb: Side,
                                rel_tol: float) -> bool:
    """Whether the comparison forms of two models that the normal forms tell apart may match."""
    if not encoding(ma, rel_tol).plain:  # A's is computed once, for every B it meets
        return not _beyond_rows(sa, sb, rel_tol)
    # A's comparison form is its normal form, which B's must become. Splitting a range adds a
    # row and joining two mirrored rows merges them into one: B with no range and no more rows
    # than A cannot (short of tolerance chains that merge rows differently). The cheapest
    # test first: it settles most pairs, and spares most B models, each met once, the search
    # for mirrored rows.
    counts_a, counts_b = sa.counts, sb.counts
    if counts_b[RANGED][1] == 0 and counts_b[ROWS][1] <= counts_a[ROWS][1]:
        return False
    return not _beyond_rows(sa, sb, rel_tol) and not encoding(mb, rel_tol).plain


def _compare(ma: CanonicalModel, mb: CanonicalModel, rel_tol: float, deadline: float | None,
             time_limit: float | None, timings: dict[str, float], encoded: bool) -> Verdict:
    """Verdict, reason, certificate and sides (None if undecided) of normal or comparison forms."""
    normalise, names, colour, searching = _STEPS[encoded]
    t1 = time.perf_counter()
    sides = cached_sides(ma, mb, rel_tol, encoded)
    if sides is None:  # close numbers within A: one grouping for both models
        p = _prepare(ma, mb, rel_tol, encoded)
        sa, sb, fn = p.a, p.b, p.fn
    else:
        sa, sb, fn = sides
    t2 = time.perf_counter()
    timings[normalise] = t2 - t1

    # Counts and multisets of numbers first: most different pairs need no graph at all.
    why = _quick_difference(sa, sb, fn, rel_tol) or _number_difference(sa, sb, fn, rel_tol)
    if why and fn is not exact_tokens and sides is not None:
        # B in A's tokens proves the difference; the words (which number differs) are those of
        # the joint grouping, whose token order picks the number named.
        p = _prepare(ma, mb, rel_tol, encoded)
        sa, sb, fn, sides = p.a, p.b, p.fn, None
        why = _quick_difference(sa, sb, fn, rel_tol) or _number_difference(sa, sb, fn, rel_tol)
    if why:
        return NOT_EQUIVALENT, why, None, (sa, sb)
    named = _name_map(sa, sb)
    if named is not None and not _check(sa, sb, named, rel_tol):
        timings[names] = time.perf_counter() - t2
        cert = _certificate(sa, sb, named)
        return EQUIVALENT, _matched("certificate checked: every bound, type, coefficient, "
                                    "right-hand side and objective term matches (variables "
                                    "and rows paired by name)", cert, ma, mb), cert, (sa, sb)
    n_a = sa.graph[0].size
    if sides is not None:
        # Each side coloured on its own (once per model): refining the disjoint union gives
        # the same colours, round for round, so the union starts stable. Its refiner is only
        # needed if the search has to branch.
        refine = PairRefiner(sa.refiner, sb.refiner, n_a, sa.memo)
        colors = np.concatenate([sa.stable, sb.stable])
    else:
        ca, s1, d1, e1 = sa.graph
        cb, s2, d2, e2 = sb.graph
        refine = Refiner(np.concatenate([s1, s2 + n_a]), np.concatenate([d1, d2 + n_a]),
                         np.concatenate([e1, e2]))
        colors = refine(np.concatenate([ca, cb]), MAX_SEARCH_ROUNDS, split=n_a)
    t3 = time.perf_counter()
    timings[colour] = t3 - t2
    if not balanced(colors, n_a):
        return NOT_EQUIVALENT, "no isomorphism: colour refinement separates the models " \
                               "(same sizes and numbers, different structure)", None, (sa, sb)
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

    search = Search(refine, n_a, accept, deadline, lambda: Automorphisms(sb.graph),
                    memo=None if sides is None else sa.memo)
    try:
        mapping = search.run(colors)
    except SearchTimeout:
        timings[searching] = time.perf_counter() - t3
        return UNDECIDED, f"time limit of {time_limit:g} s reached while searching for a " \
                          "mapping", None, None
    timings[searching] = time.perf_counter() - t3
    if mapping is None:
        detail = f" (a candidate within the grouping failed on: {failures[0]})" if failures else ""
        return NOT_EQUIVALENT, "no isomorphism: colour refinement cannot tell the models " \
                               f"apart, but an exhaustive search finds no mapping{detail}", \
            None, (sa, sb)
    cert = _certificate(sa, sb, found[0])
    return EQUIVALENT, _matched("certificate checked: every bound, type, coefficient, "
                                "right-hand side and objective term matches", cert, ma, mb), \
        cert, (sa, sb)


def _matched(reason: str, cert: Certificate, ma: CanonicalModel, mb: CanonicalModel) -> str:
    """``reason`` with the rows that the models write differently, when there are any."""
    if cert.part_a is None:  # the normal forms' certificate: every row whole
        return reason
    notes = cert.notes(ma, mb)
    if not notes:
        return reason
    more = f" (and {len(notes) - 3} more)" if len(notes) > 3 else ""
    return f"{reason}; {'; '.join(notes[:3])}{more}"
