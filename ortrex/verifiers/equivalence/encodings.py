"""Two-sided rows in one form, however a model writes them, before two models are compared.

A range ``lo <= a.x <= hi`` can be one row (LP ``-5 <= x + 2 y <= 10``, MPS RANGES) or the two
one-sided rows ``a.x >= lo`` and ``a.x <= hi`` (HiGHS's LP writer always splits it so, and
modellers write it so); an equality can be one ``=`` row or ``a.x <= b`` with ``a.x >= b``. The
comparison form takes the normal form of :mod:`ortrex.ir.normalize` and

* splits every ranged row into its two one-sided rows, each exactly the normal form the
  one-sided row would have had if written alone;
* joins every one-sided row whose mirror is in the model (the same left-hand side up to a
  positive factor, the same bound, the other sense: ``-a.x >= -b`` for ``a.x >= b``, within
  the tolerance) into the equality the two state, normalised as that equality written as one
  row would be.

Both rules look at one row (and its mirror) at a time, so they commute with renaming,
reordering and row scaling, and both encodings of a range or an equality reach one form; the
duplicate-row merging that follows folds an equality's two halves into one row. A mirror with a
different bound is no equality and is left alone (``a.x >= 1`` with ``a.x <= 5`` is already the
split form of the range it states). Rows with quadratic terms are left as they are. Each row of
the form remembers which piece of a row as written it is, for the certificate. The checker
builds these forms only for models that their normal forms tell apart by their rows.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import splitmix
from ortrex.ir.normalize import EQ0, EQ1, GE, RANGE, NormalizedModel
from ortrex.ir.rows import RowMatrix, segments
from ortrex.verifiers.equivalence.rowmatch import ABS_FLOOR, close

WHOLE, LOWER, UPPER = 0, 1, 2  # a row as written, its lower side (row >= lo), its upper side
SIDE_NAMES = {LOWER: ">=", UPPER: "<="}
_K = np.uint64(0xD6E8FEB86659FD93)  # odd multiplier of the signature's multiply-add chain
_NO_SPLIT = np.zeros(0, dtype=np.int64)
_NO_SPLIT.flags.writeable = False


@dataclass(frozen=True)
class Encoding:
    """A model's comparison form and what each of its rows is of the model as written."""

    nm: NormalizedModel
    part: np.ndarray | None  # int8 per row: WHOLE, or the LOWER / UPPER side of a split row
    half: np.ndarray | None  # int8 per row: +1 / -1 for a one-sided row joined into an
    #                          equality (the >= / <= side of the normalised equality), else 0
    split: np.ndarray  # rows as written that were split into their two one-sided rows

    @property
    def plain(self) -> bool:
        """Whether the form is the normal form itself (nothing split, nothing joined)."""
        return self.part is None and self.half is None

    def parts(self) -> np.ndarray:
        """``part`` with the all-WHOLE default spelt out."""
        return np.zeros(self.nm.num_rows, np.int8) if self.part is None else self.part

    def halves(self) -> np.ndarray:
        """``half`` with the all-zero default spelt out."""
        return np.zeros(self.nm.num_rows, np.int8) if self.half is None else self.half


def encoding(model: CanonicalModel, rel_tol: float) -> Encoding:
    """The comparison form of ``model``, computed once per model and tolerance."""
    cache = model.__dict__.setdefault("_encodings", {})
    enc = cache.get(rel_tol)
    if enc is None:
        enc = cache[rel_tol] = encode(model, model.normal_form, rel_tol)
    return enc


def encode(model: CanonicalModel, nm: NormalizedModel, rel_tol: float) -> Encoding:
    """Split ranged rows and join mirrored one-sided rows of ``nm``, ``model``'s normal form."""
    part = None
    split = _NO_SPLIT
    kinds = np.bincount(nm.kind, minlength=4)
    if kinds[RANGE]:
        done = _split(nm)
        if done is not None:
            nm, part, split = done
            kinds = np.bincount(nm.kind, minlength=4)
    mirrored = _mirrored(nm, int(kinds[GE]), rel_tol) if kinds[GE] >= 2 else None
    if mirrored is None:
        return Encoding(nm, part, None, split)
    nm, half = _join(model, nm, mirrored)
    return Encoding(nm, part, half, split)


def _quad_rows(nm: NormalizedModel) -> np.ndarray:
    """Per row: whether it has quadratic terms."""
    has_q = np.zeros(nm.num_rows, dtype=bool)
    has_q[nm.qrows[0]] = True
    return has_q


def _split(nm: NormalizedModel) -> tuple[NormalizedModel, np.ndarray, np.ndarray] | None:
    """Every linear ranged row as its lower side ``a.x >= rlo``, then its upper ``-a.x >= -rhi``."""
    # Bit for bit the normal forms of the one-sided rows written alone: a range is divided by
    # its largest coefficient, as a ">=" row is; a "<=" row by minus it, and negating is exact.
    rng = nm.kind == RANGE
    if nm.qrows[0].size:
        rng &= ~_quad_rows(nm)
        if not np.count_nonzero(rng):
            return None
    R = nm.num_rows
    count = np.where(rng, 2, 1)
    ends = np.cumsum(count)
    src = np.repeat(np.arange(R), count)
    second = np.zeros(src.size, dtype=bool)
    second[ends[rng] - 1] = True
    ranged = rng[src]
    sign = np.where(second, -1.0, 1.0)
    lengths = nm.A.lengths()[src]
    idx = segments(nm.A.indptr[src], lengths)
    ptr = np.zeros(src.size + 1, dtype=np.int64)
    np.cumsum(lengths, out=ptr[1:])
    A = RowMatrix(ptr, nm.A.indices[idx], nm.A.data[idx] * np.repeat(sign, lengths) + 0.0,
                  nm.num_vars)
    rr, ri, rj, rv = nm.qrows
    qrows = ((ends - count)[rr], ri, rj, rv) if rr.size else nm.qrows
    out = dataclasses.replace(
        nm, A=A, kind=np.where(ranged, np.int8(GE), nm.kind[src]).astype(np.int8),
        rlo=np.where(second, -nm.rhi[src], nm.rlo[src]) + 0.0,
        rhi=np.where(ranged, np.inf, nm.rhi[src]), scale=nm.scale[src] * sign,
        origin=nm.origin[src], qrows=qrows)
    part = np.where(ranged, np.where(second, UPPER, LOWER), WHOLE).astype(np.int8)
    return out, part, nm.origin[rng]


@lru_cache(maxsize=64)
def _ids(n: int) -> np.ndarray:
    """A random-looking 64-bit id per variable, for hashing column sets."""
    ids = splitmix(np.arange(n, dtype=np.uint64) + np.uint64(0x51DE))
    ids.flags.writeable = False
    return ids


def _mirrored(nm: NormalizedModel, n_ge: int, rel_tol: float) -> np.ndarray | None:
    """Per row, whether its mirror is in the model (of ``n_ge`` one-sided rows); None if none is."""
    ge = None
    if nm.qrows[0].size:
        ge = (nm.kind == GE) & ~_quad_rows(nm)
        n_ge = int(np.count_nonzero(ge))
        if n_ge < 2:
            return None
    A = nm.A
    ids = _ids(nm.num_vars)
    # A row and its mirror have one column set and bounds of one magnitude (within the
    # tolerance): most models have no two one-sided rows on one set, and need nothing more.
    # Linear one-sided rows have two entries or more, so no segment here is empty. Written for
    # small models: numpy's cost is per call.
    if n_ge == nm.num_rows:  # every row one-sided and linear: nothing to gather
        rows = np.arange(n_ge)
        support = np.add.reduceat(ids[A.indices], A.indptr[:-1])
    else:
        rows = np.flatnonzero(nm.kind == GE if ge is None else ge)
        lengths = A.lengths()[rows]
        support = np.add.reduceat(ids[A.indices[segments(A.indptr[rows], lengths)]],
                                  np.cumsum(lengths) - lengths)
    ordered = np.sort(support)
    if not np.count_nonzero(ordered[1:] == ordered[:-1]):
        return None
    mag = np.abs(nm.rlo[rows])
    order = np.lexsort((mag, support))
    s_sup, s_mag = support[order], mag[order]
    # Sorted magnitudes x <= y are close when y - x <= rel_tol * y (+ the absolute floor):
    # the close() test on them, without its cases for signs and infinities (bounds of
    # one-sided rows are finite).
    near = (s_sup[1:] == s_sup[:-1]) & (s_mag[1:] - s_mag[:-1] <= rel_tol * s_mag[1:]
                                        + ABS_FLOOR)
    if not np.count_nonzero(near):
        return None
    # Candidates: the rows with a near neighbour. Among them a signature of the entries and
    # the bound, in tolerance-aware tokens (the numbers and their negations sorted together,
    # cut only where neighbours are not close), finds each row's mirror by hashing: pairs
    # stay linear in the rows however many share a column set and a bound's magnitude.
    # A mirror's bound has the other sign (or both are within the absolute floor of 0): runs
    # of near neighbours without both signs hold no pair. Whole runs are kept, so that which
    # rows are candidates does not hang on the order of rows with equal keys.
    run = np.zeros(order.size, dtype=np.int64)
    np.cumsum(~near, out=run[1:])
    signed = nm.rlo[rows][order]
    up = np.zeros(order.size, dtype=bool)
    down = up.copy()
    up[run[signed >= -ABS_FLOOR]] = True
    down[run[signed <= ABS_FLOOR]] = True
    keep = np.zeros(order.size, dtype=bool)
    keep[order] = (up & down)[run] & (np.bincount(run, minlength=order.size) > 1)[run]
    if not np.count_nonzero(keep):
        return None
    cand = rows[keep]
    lengths = A.lengths()
    n = lengths[cand]
    entries = segments(A.indptr[cand], n)
    col, vals, lo = ids[A.indices[entries]], A.data[entries], nm.rlo[cand]
    numbers = np.concatenate([vals, -vals, lo, -lo])
    pool = np.unique(numbers)
    group = np.zeros(pool.size, dtype=np.uint64)
    np.cumsum(~close(pool[:-1], pool[1:], rel_tol), out=group[1:], dtype=np.uint64)
    tok = splitmix(group)[np.searchsorted(pool, numbers)]
    starts = np.cumsum(n) - n
    e = vals.size
    acc = np.add.reduceat(splitmix(np.concatenate([col, col]) * _K + tok[:2 * e]),
                          np.concatenate([starts, starts + e]))
    sig = splitmix(acc * _K + tok[2 * e:])
    plus, minus = sig[:cand.size], sig[cand.size:]  # a row's, and its mirror's
    by_minus = np.argsort(minus)
    ms = minus[by_minus]
    at = np.minimum(np.searchsorted(ms, plus), ms.size - 1)
    hit = np.flatnonzero(ms[at] == plus)
    if not hit.size:
        return None
    # Tokens found the pairs; the numbers decide (a chain of close numbers can make a token
    # wider than the tolerance): the same columns, coefficients and bound negated.
    i, j = cand[hit], cand[by_minus[at[hit]]]
    ok = (lengths[i] == lengths[j]) & close(nm.rlo[i], -nm.rlo[j], rel_tol)
    i, j = i[ok], j[ok]
    if not i.size:
        return None
    n = lengths[i]
    pi, pj = segments(A.indptr[i], n), segments(A.indptr[j], n)
    bad = (A.indices[pi] != A.indices[pj]) | ~close(A.data[pi], -A.data[pj], rel_tol)
    ok = np.bincount(np.repeat(np.arange(i.size), n), weights=bad, minlength=i.size) == 0
    if not ok.any():
        return None
    mirrored = np.zeros(nm.num_rows, dtype=bool)
    mirrored[i[ok]] = mirrored[j[ok]] = True
    return mirrored


def _join(model: CanonicalModel, nm: NormalizedModel, mirrored: np.ndarray
          ) -> tuple[NormalizedModel, np.ndarray]:
    """The mirrored one-sided rows as the equalities they state, and the side of it each one is."""
    # Each normalised as the normal form normalises the equality written as one row: divided by
    # its right-hand side b, taken from the row as written (so that a row and its scaled mirror
    # give the same bits as the equality would), or by its largest coefficient when b is 0.
    k = np.flatnonzero(mirrored)
    o, sc = nm.origin[k], nm.scale[k]
    # A one-sided row's normalised scale is positive for a ">=" row (or a range's lower side).
    b = np.where(sc > 0, model.row_lower[o], model.row_upper[o])
    nonzero = b != 0
    lengths = nm.A.lengths()[k]
    pos = segments(nm.A.indptr[k], lengths)
    csr = model.csr
    written = csr.data[segments(csr.indptr[o], lengths)]
    data = nm.A.data.copy()
    data[pos] = np.where(np.repeat(nonzero, lengths), written / np.repeat(np.where(
        nonzero, b, 1.0), lengths), nm.A.data[pos] * np.repeat(np.sign(sc), lengths)) + 0.0
    kind, rlo, rhi, scale = nm.kind.copy(), nm.rlo.copy(), nm.rhi.copy(), nm.scale.copy()
    kind[k] = np.where(nonzero, np.int8(EQ1), np.int8(EQ0))
    rlo[k] = rhi[k] = np.where(nonzero, 1.0, 0.0)
    scale[k] = np.where(nonzero, 1.0 / np.where(nonzero, b, 1.0), np.abs(sc))
    # Which side of its equality (normalised: w.x = 1, or w.x = 0) the row as written is: the
    # row was g.x >= b * scale with g = (b * scale) w, or g = sign(scale) w when b is 0.
    half = np.zeros(nm.num_rows, dtype=np.int8)
    half[k] = np.where(nonzero, np.sign(b) * np.sign(sc), np.sign(sc)).astype(np.int8)
    out = dataclasses.replace(nm, A=RowMatrix(nm.A.indptr, nm.A.indices, data, nm.num_vars),
                              kind=kind, rlo=rlo, rhi=rhi, scale=scale)
    return out, half
