"""Matching numbers and rows of two normal forms within a relative tolerance.

Numbers of both models are grouped jointly (sorted together, cut only where two neighbours are
not close), rows are compared entry by entry after a variable map and a sign, all vectorised.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from ortrex.ir.fingerprint import Tokens, splitmix
from ortrex.ir.normalize import EQ0, RANGE, NormalizedModel
from ortrex.ir.rows import segments

ABS_FLOOR = 1e-12  # numbers this close count as equal whatever their size (0 vs 1e-13)
_BIG = np.finfo(float).max


def close(x: np.ndarray, y: np.ndarray, rel_tol: float) -> np.ndarray:
    """Element-wise: equal within ``rel_tol`` of the larger magnitude (infinities exactly)."""
    x, y = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    same = x == y
    if np.count_nonzero(same) == same.size:  # all equal (the usual case in a mapping): done
        return same
    with np.errstate(invalid="ignore"):
        # The scale is capped so that |inf - 5| <= tol * inf cannot hold: an infinity only
        # matches itself (through x == y; inf - inf is nan and compares false).
        scale = np.minimum(np.maximum(np.abs(x), np.abs(y)), _BIG)
        return (np.abs(x - y) <= rel_tol * scale + ABS_FLOOR) | same


def close1(x: float, y: float, rel_tol: float) -> bool:
    """``_close`` for two scalars."""
    if x == y:
        return True
    return math.isfinite(x) and math.isfinite(y) and \
        abs(x - y) <= rel_tol * max(abs(x), abs(y)) + ABS_FLOOR


def one_to_one(m: np.ndarray, size: int) -> bool:
    """Whether ``m`` maps its positions to distinct values in [0, size)."""
    if m.size and (m.min() < 0 or m.max() >= size):
        return False
    return bool(np.bincount(m, minlength=size).max(initial=0) <= 1)


def joint_tokens(nma: NormalizedModel, nmb: NormalizedModel, rel_tol: float
                 ) -> tuple[Tokens, Tokens, Callable[[np.ndarray], np.ndarray]]:
    """Tokens of both models from one grouping: numbers within tolerance share a token; and
    the token function itself, for other numbers.

    All numbers of both models are sorted together and cut only where two neighbours are not
    close, so two numbers within tolerance of each other always fall in the same group.
    """
    fa, fb = nma.numbers[0], nmb.numbers[0]
    pool, where = np.unique(np.concatenate([fa, fb, np.zeros(1)]), return_inverse=True)
    cut = ~close(pool[:-1], pool[1:], rel_tol)
    group = np.zeros(pool.size, dtype=np.uint64)
    np.cumsum(cut, out=group[1:], dtype=np.uint64)
    keys = splitmix(group + np.uint64(0x5EED))
    flat = keys[where]

    def tokens(x: np.ndarray) -> np.ndarray:
        return keys[np.searchsorted(pool, x)]

    return (Tokens(nma, flat=flat[:fa.size]), Tokens(nmb, flat=flat[fa.size:fa.size + fb.size]),
            tokens)


def rows_match(nx: NormalizedModel, rx: np.ndarray, ny: NormalizedModel, ry: np.ndarray,
                sign: np.ndarray, var_map: np.ndarray, rel_tol: float) -> np.ndarray:
    """Per pair k: is ``sign[k]`` x row ``rx[k]`` of X (variables through ``var_map``) equal,
    within tolerance, to row ``ry[k]`` of Y (kind, coefficients, bounds, quadratic terms)?"""
    p = rx.size
    ok = nx.kind[rx] == ny.kind[ry]
    lo = np.where(sign > 0, nx.rlo[rx], -nx.rhi[rx])
    hi = np.where(sign > 0, nx.rhi[rx], -nx.rlo[rx])
    same = close(np.concatenate([lo, hi]), np.concatenate([ny.rlo[ry], ny.rhi[ry]]), rel_tol)
    ok &= same[:p] & same[p:]
    ok &= entries_match(
        linear_entries(nx, rx, sign, var_map), linear_entries(ny, ry, np.ones(p), None),
        p, rel_tol)
    if nx.qrows[0].size or ny.qrows[0].size:
        ok &= entries_match(
            quad_entries(nx.qrows, rx, sign, var_map), quad_entries(ny.qrows, ry, np.ones(p),
                                                                      None), p, rel_tol)
    return ok


Entries = tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # pair, key, value, count


def linear_entries(nm: NormalizedModel, rows: np.ndarray, sign: np.ndarray,
                    var_map: np.ndarray | None) -> Entries:
    """(pair, column, value, row length) of the linear entries of ``rows``, signed."""
    lengths = nm.A.lengths()[rows]
    idx = segments(nm.A.indptr[rows], lengths)
    pair = np.repeat(np.arange(rows.size), lengths)
    cols = nm.A.indices[idx].astype(np.int64)
    if var_map is not None:
        cols = var_map[cols]
    return pair, cols, nm.A.data[idx] * sign[pair], lengths


def quad_entries(q: tuple[np.ndarray, ...], rows: np.ndarray, sign: np.ndarray,
                  var_map: np.ndarray | None) -> Entries:
    """(pair, packed (i, j) key, value, row length) of the quadratic entries of ``rows``."""
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


def entries_match(x: Entries, y: Entries, pairs: int, rel_tol: float) -> np.ndarray:
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
    bad = (kx[ox] != ky[oy]) | ~close(vx[ox], vy[oy], rel_tol)
    if bad.any():
        ok[np.unique(px[ox][bad])] = False
    return ok


def open_sign(nm: NormalizedModel, rows: np.ndarray) -> np.ndarray:
    """Rows whose sign the normal form leaves open (zero right-hand side, ranged)."""
    kind = nm.kind[rows]
    return (kind == EQ0) | (kind == RANGE)
