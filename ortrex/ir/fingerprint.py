"""Structural and formulation fingerprints: colour refinement on the normalised model graph.

The graph has a node per variable, per row (two for a row whose sign the normal form leaves
open: equalities with a zero right-hand side and ranged rows, so that negating the row only swaps
two equally coloured nodes) and per quadratic term. Numbers become tokens by relative precision
(the binary significand rounded to ``PRECISION_BITS`` bits), never through decimal strings.
Colours are 64-bit hashes refined by Weisfeiler-Lehman rounds; the fingerprint is the sha256 of
the sorted stable colour multiset. Equal fingerprints are a strong hint, not a proof: the
equivalence checker confirms collisions.
"""

from __future__ import annotations

import hashlib
import itertools
import struct
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np

from ortrex.ir.normalize import EQ0, EQ1, GE, RANGE, NormalizedModel, normalize

if TYPE_CHECKING:
    from ortrex.ir.canonical import CanonicalModel

FP_VERSION = 1
PRECISION_BITS = 32  # 2.3e-10 relative; scaled copies straddle a bucket edge ~4e-6 per value
MAX_ROUNDS = 64

_U = np.uint64
_C1, _C2, _C3 = _U(0x9E3779B97F4A7C15), _U(0xBF58476D1CE4E5B9), _U(0x94D049BB133111EB)


_S30, _S27, _S31 = _U(30), _U(27), _U(31)


def splitmix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, element-wise: a well-mixed 64-bit hash of each value."""
    z = z + _C1  # a new array: the steps below work in place
    z ^= z >> _S30
    z *= _C2
    z ^= z >> _S27
    z *= _C3
    z ^= z >> _S31
    return z


_K = _U(0xD6E8FEB86659FD93)  # odd multiplier of the multiply-add chain


def _combine(h: np.ndarray, a: np.ndarray) -> np.ndarray:
    """Order-dependent hash of (h, a), element-wise (inputs are already well mixed)."""
    return splitmix(h * _K + a)


def _tag(label: str) -> np.uint64:
    return _U(int.from_bytes(hashlib.sha256(label.encode()).digest()[:8], "little"))


_T = {k: _tag(k) for k in (
    "var", "int", "cont", "bin", "ge", "eq1", "eq0", "eq", "rg", "pair", "qo", "qr", "factor",
    "square", "+inf", "-inf", "neg", "zero", "pos", "edge", "qterm", "semi",
)}


# Each tag times the chain multiplier (mod 2**64): ``_mix_all(tag, p, ...)`` and
# ``_combine(tag, p)`` start from ``_TK[tag] + p`` without a full array of the tag.
_TK = {k: _U((int(v) * int(_K)) % 2**64) for k, v in _T.items()}


def _full(n: int, label: str) -> np.ndarray:
    return np.full(n, _T[label], dtype=np.uint64)


def quantize(x: np.ndarray) -> np.ndarray:
    """Token of each number by relative precision: sign, exponent and rounded significand."""
    x = np.asarray(x, dtype=np.float64)
    fin = np.isfinite(x)
    all_finite = bool(fin.all())
    m, e = np.frexp(x if all_finite else np.where(fin, x, 0.0))
    q = np.rint(m * float(1 << PRECISION_BITS)).astype(np.int64)
    carry = np.abs(q) == (1 << PRECISION_BITS)
    q = np.where(carry, q // 2, q)
    e = e.astype(np.int64) + carry
    # |q| <= 2**PRECISION_BITS: offset it to be non-negative, then pack it below the exponent.
    key = ((e + 4096) << (PRECISION_BITS + 2)) | (q + (1 << (PRECISION_BITS + 1)))
    tok = splitmix(key.astype(np.uint64))
    if not all_finite:
        tok[x == np.inf] = _T["+inf"]
        tok[x == -np.inf] = _T["-inf"]
    return tok


def sign_class(x: np.ndarray) -> np.ndarray:
    """Token of each number by sign only (-inf, negative, zero, positive, +inf)."""
    x = np.asarray(x, dtype=np.float64)
    out = np.where(x > 0, _T["pos"], np.where(x < 0, _T["neg"], _T["zero"])).astype(np.uint64)
    out[x == np.inf] = _T["+inf"]
    out[x == -np.inf] = _T["-inf"]
    return out


def _mix_all(*parts: np.ndarray) -> np.ndarray:
    """Order-dependent hash of several token arrays: a multiply-add chain, mixed once."""
    h = np.asarray(parts[0], dtype=np.uint64)
    for p in parts[1:]:
        h = h * _K + np.asarray(p, dtype=np.uint64)
    return splitmix(h)


class Tokens:
    """Tokens of every number of the normal form (and of its negation), in one call to ``fn``
    (``quantize`` for fingerprints; a joint grouping of two models for the equivalence check)."""

    def __init__(self, nm: NormalizedModel, fn: object = None,
                 flat: np.ndarray | None = None) -> None:
        numbers, self.spans = nm.numbers
        self.flat = fn(numbers) if flat is None else flat  # type: ignore[operator]

    def __getitem__(self, key: str) -> np.ndarray:
        start, end = self.spans[key]
        return self.flat[start:end]


@lru_cache(maxsize=64)
def _var_ids(n: int) -> np.ndarray:
    ids = splitmix(np.arange(n, dtype=np.uint64) + _U(1))
    ids.flags.writeable = False
    return ids


def _row_sums(values: np.ndarray, indptr: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Per row, the wrapping sum of its entries' values (rows stored contiguously)."""
    R = lengths.size
    if not values.size:
        return np.zeros(R, dtype=np.uint64)
    if all_true(lengths):
        return np.add.reduceat(values, indptr[:-1])
    acc = np.zeros(R, dtype=np.uint64)
    nz = lengths > 0
    acc[nz] = np.add.reduceat(values, indptr[:-1][nz])
    return acc


def row_groups(nm: NormalizedModel, tk: Tokens) -> tuple[np.ndarray, np.ndarray]:
    """(representatives, rep): exact duplicate rows (compared by token) grouped; ``rep[r]`` is the
    representative of normalised row ``r`` and ``representatives`` lists them in row order."""
    R = nm.num_rows
    if R == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    A = nm.A
    lengths = A.indptr[1:] - A.indptr[:-1]
    var_id = _var_ids(nm.num_vars)
    rr, ri, rj, _ = nm.qrows
    pair_id = _combine(var_id[ri], var_id[rj]) if rr.size else np.zeros(0, np.uint64)
    col_id = var_id[A.indices]
    kinds = nm.kind.astype(np.uint64)
    every = np.arange(R)
    if R == 1 or (not rr.size and _distinct_rows(nm, tk, col_id, kinds, lengths)):
        return every, every.copy()

    def signature(neg: str, lo: str, hi: str) -> np.ndarray:
        acc = _row_sums(_combine(col_id, tk[neg + "a"]), A.indptr, lengths)
        if rr.size:
            np.add.at(acc, rr, _combine(pair_id, tk[neg + "qr"]) ^ _T["qterm"])
        return _mix_all(kinds, tk[lo], tk[hi], acc)

    sig = signature("", "rlo", "rhi")
    open_sign = nm.kind >= EQ0  # EQ0 or RANGE
    if open_sign.any():
        sig = np.where(open_sign, np.minimum(sig, signature("-", "-rhi", "-rlo")), sig)
    ordered = sort(sig)
    if all_true(ordered[1:] != ordered[:-1]):  # no duplicates
        return every, every.copy()
    _, first, inverse = np.unique(sig, return_index=True, return_inverse=True)
    return np.sort(first), first[inverse.ravel()]


def _distinct_rows(nm: NormalizedModel, tk: Tokens, col_id: np.ndarray, kinds: np.ndarray,
                   lengths: np.ndarray) -> bool:
    """True when no two rows can be duplicates: a cheap signature (xor instead of a full mix
    per entry) that any two duplicates share differs from row to row. The usual case; the
    full signatures settle the rest."""
    open_sign = nm.kind >= EQ0

    def weak(neg: str, lo: str, hi: str) -> np.ndarray:
        acc = _row_sums(col_id ^ tk[neg + "a"], nm.A.indptr, lengths)
        return ((acc * _K + tk[lo]) * _K + tk[hi]) * _K + kinds

    sig = weak("", "rlo", "rhi")
    if open_sign.any():
        sig = np.where(open_sign, np.minimum(sig, weak("-", "-rhi", "-rlo")), sig)
    ordered = sort(sig)
    return all_true(ordered[1:] != ordered[:-1])


def distinct_rows_by(nm: NormalizedModel, tk: Tokens) -> np.ndarray:
    """Indices of normalised rows after merging exact duplicates (compared by token)."""
    return row_groups(nm, tk)[0]


def distinct_rows(nm: NormalizedModel) -> np.ndarray:
    """Indices of the normalised rows left once exact duplicates are merged."""
    return distinct_rows_by(nm, Tokens(nm, quantize))


def model_graph(
    nm: NormalizedModel, rows: np.ndarray, tk: Tokens, exact: bool
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Node colours and directed edge lists (src, dst, colour) of the model graph."""
    n = nm.num_vars
    R = rows.size
    every_row = nm.num_rows == R
    if every_row:
        kind, sub, a_tok, neg_a_tok = nm.kind, nm.A, tk["a"], tk["-a"]
    else:  # the tokens of the kept rows' coefficients
        kept = np.zeros(nm.num_rows, dtype=bool)
        kept[rows] = True
        keep_nz = np.repeat(kept, nm.A.lengths())
        kind, sub = nm.kind[rows], nm.A.take(rows)
        a_tok, neg_a_tok = tk["a"][keep_nz], tk["-a"][keep_nz]
    is_int = nm.is_int
    vtype = np.where(is_int, _T["int"], _T["cont"])
    if np.count_nonzero(is_int):
        vtype[is_int & (nm.lb == 0) & (nm.ub == 1)] = _T["bin"]
    if np.count_nonzero(nm.semi):
        vtype[nm.semi] ^= _T["semi"]
    # Everything that gets hashed is gathered first and mixed in one call (numpy's cost here
    # is per call, not per element); the values are those of _mix_all and _combine.
    var_pre = (((_TK["var"] + vtype) * _K + tk["lb"]) * _K + tk["ub"]) * _K + tk["c"]
    k_of_nz = np.repeat(np.arange(R), sub.indptr[1:] - sub.indptr[:-1])
    if exact and every_row and _plain(nm):
        return _plain_graph(nm, tk, var_pre, k_of_nz)
    if exact:
        gadget = kind >= EQ0  # EQ0 or RANGE: the sign is open
        rlo, rhi = (tk["rlo"], tk["rhi"]) if every_row else (tk["rlo"][rows], tk["rhi"][rows])
        is_ge = kind == GE
        row_pre = np.where(is_ge, _TK["ge"] + rlo, (_TK["rg"] + rlo) * _K + rhi)
        g_idx = gadget.nonzero()[0]
        g_rows = g_idx if every_row else rows[g_idx]
        sec_pre = (_TK["rg"] + tk["-rhi"][g_rows]) * _K + tk["-rlo"][g_rows]
    else:
        gadget = kind != GE
        g_idx = gadget.nonzero()[0]
        row_pre = sec_pre = np.zeros(0, dtype=np.uint64)
    g_nz = gadget[k_of_nz]
    edge_pre = _TK["edge"] + a_tok
    gedge_pre = _TK["edge"] + neg_a_tok[g_nz]
    parts = (var_pre, row_pre, sec_pre, edge_pre, gedge_pre)
    mixed = splitmix(np.concatenate(parts))
    ends = list(itertools.accumulate(p.size for p in parts))
    var_col, row_mix, sec_mix = mixed[:ends[0]], mixed[ends[0]:ends[1]], mixed[ends[1]:ends[2]]
    if exact:
        primary = row_mix
        if not all_true(is_ge):
            primary = np.where(kind == EQ1, _T["eq1"], np.where(kind == EQ0, _T["eq0"], row_mix))
        secondary = np.where(kind[g_idx] == RANGE, sec_mix, _T["eq0"])
    else:
        primary = np.where(kind == GE, _T["ge"], np.where(kind == RANGE, _T["rg"], _T["eq"]))
        secondary = primary[g_idx]
    G = g_idx.size
    second_of = np.full(R, -1, dtype=np.int64)
    second_of[g_idx] = n + R + np.arange(G)
    colors = [var_col, primary.astype(np.uint64, copy=False), secondary.astype(np.uint64,
                                                                                copy=False)]
    src: list[np.ndarray] = [n + g_idx, sub.indices.astype(np.int64),
                             sub.indices[g_nz].astype(np.int64)]
    dst: list[np.ndarray] = [second_of[g_idx], n + k_of_nz, second_of[k_of_nz[g_nz]]]
    ecol: list[np.ndarray] = [_full(G, "pair"), mixed[ends[2]:ends[3]], mixed[ends[3]:]]

    next_node = n + R + G

    def products(i: np.ndarray, j: np.ndarray, color: np.ndarray) -> np.ndarray:
        nonlocal next_node
        ids = next_node + np.arange(i.size)
        next_node += i.size
        colors.append(color)
        sq = i == j
        src.extend([ids, ids[~sq]])
        dst.extend([i.astype(np.int64), j[~sq].astype(np.int64)])
        ecol.extend([np.where(sq, _T["square"], _T["factor"]).astype(np.uint64),
                     _full(int((~sq).sum()), "factor")])
        return ids

    qi, qj, _ = nm.qobj
    if qi.size:
        products(qi, qj, _combine(_full(qi.size, "qo"), tk["qo"]))
    rr, ri, rj, _ = nm.qrows
    if rr.size:
        pos = np.full(nm.num_rows, -1, dtype=np.int64)
        pos[rows] = np.arange(R)
        keep = pos[rr] >= 0
        k, qi2, qj2 = pos[rr[keep]], ri[keep], rj[keep]
        ids = products(qi2, qj2, _full(k.size, "qr"))
        src.append(ids)
        dst.append(n + k)
        ecol.append(_combine(_full(k.size, "qterm"), tk["qr"][keep]))
        g = gadget[k]
        src.append(ids[g])
        dst.append(second_of[k[g]])
        ecol.append(_combine(_full(int(g.sum()), "qterm"), tk["-qr"][keep][g]))

    s = np.concatenate(src).astype(np.int64)
    d = np.concatenate(dst).astype(np.int64)
    e = np.concatenate(ecol).astype(np.uint64)
    # Undirected: every edge carries messages both ways.
    return (np.concatenate(colors), np.concatenate([s, d]), np.concatenate([d, s]),
            np.concatenate([e, e]))


def sort(x: np.ndarray) -> np.ndarray:
    """A sorted copy of a 1-D array: ``np.sort`` without its Python-level dispatch, which
    costs more than sorting the small arrays sorted here."""
    y = x.copy()
    y.sort()
    return y


def all_true(x: np.ndarray) -> bool:
    """``x.all()`` for a bool array, at a third of its cost on small arrays."""
    return np.count_nonzero(x) == x.size


def equal(x: np.ndarray, y: np.ndarray) -> bool:
    """Whether two integer arrays are equal element by element: by their bytes when dtype and
    shape agree (a tenth of ``np.array_equal``'s cost on the small arrays compared here)."""
    if x.dtype == y.dtype and x.shape == y.shape and x.dtype.kind in "iub":
        return x.tobytes() == y.tobytes()
    return bool(np.array_equal(x, y))


def _plain(nm: NormalizedModel) -> bool:
    """No open-sign row and nothing quadratic: the graph :func:`_plain_graph` builds."""
    return not (nm.qobj[0].size or nm.qrows[0].size or np.count_nonzero(nm.kind >= EQ0))


def _plain_graph(nm: NormalizedModel, tk: Tokens, var_pre: np.ndarray, k_of_nz: np.ndarray
                 ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """:func:`model_graph` (exact) of a model with no open-sign row and nothing quadratic:
    one node per variable and per row, one edge per coefficient; the same arrays, in a third
    of the numpy calls (most models compared are like this)."""
    n, kind = nm.num_vars, nm.kind
    is_ge = kind == GE
    rlo = tk["rlo"]
    if all_true(is_ge):
        row_pre = _TK["ge"] + rlo
    else:
        row_pre = np.where(is_ge, _TK["ge"] + rlo, (_TK["rg"] + rlo) * _K + tk["rhi"])
    mixed = splitmix(np.concatenate([var_pre, row_pre, _TK["edge"] + tk["a"]]))
    nodes = n + kind.size
    colors = mixed[:nodes]
    if not all_true(is_ge):
        colors = colors.copy()
        colors[n:] = np.where(kind == EQ1, _T["eq1"], colors[n:])  # no EQ0 row here
    s = nm.A.indices.astype(np.int64)
    d = n + k_of_nz
    e = mixed[nodes:]
    return colors, np.concatenate([s, d]), np.concatenate([d, s]), np.concatenate([e, e])


def count_classes(colors: np.ndarray) -> int:
    """Number of distinct colours (by sorting: numpy 2's hash-based ``unique`` is ~10x slower
    on 64-bit integers)."""
    if colors.size == 0:
        return 0
    s = sort(colors)
    return int(np.count_nonzero(s[1:] != s[:-1])) + 1


class Refiner:
    """Weisfeiler-Lehman colour refinement on a fixed edge list (sorted once, refined often)."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, ecol: np.ndarray) -> None:
        order = np.argsort(dst, kind="stable")
        self.src, self.ecol = src[order], ecol[order]
        d = dst[order]
        if d.size:
            first = np.ones(d.size, dtype=bool)
            np.not_equal(d[1:], d[:-1], out=first[1:])
            self.starts = first.nonzero()[0]
            self.targets = d[self.starts]
        else:
            self.starts = self.targets = np.zeros(0, dtype=np.int64)

    @classmethod
    def union(cls, a: Refiner, b: Refiner, n_a: int) -> Refiner:
        """The refiner of the disjoint union of two graphs (``a``'s ``n_a`` nodes first): the
        same as one built from the joined edge lists, without sorting them again."""
        r = cls.__new__(cls)
        r.src = np.concatenate([a.src, b.src + n_a])
        r.ecol = np.concatenate([a.ecol, b.ecol])
        r.starts = np.concatenate([a.starts, b.starts + a.src.size])
        r.targets = np.concatenate([a.targets, b.targets + n_a])
        return r

    def __call__(self, colors: np.ndarray, max_rounds: int = MAX_ROUNDS,
                 split: int | None = None) -> np.ndarray:
        """Refine until the number of colour classes stops growing.

        With ``split``, nodes before it are one graph and the rest another: refinement stops
        early once the two colour multisets provably differ (their wrapping sums differ).
        """
        classes = count_classes(colors)
        for _ in range(max_rounds):
            colors = self.step(colors)
            if split is not None and colors[:split].sum() != colors[split:].sum():
                break
            new_classes = count_classes(colors)
            if new_classes == classes:
                break
            classes = new_classes
        return colors

    def step(self, colors: np.ndarray) -> np.ndarray:
        """One round: each node's colour combined with the wrapping sum of its in-edges'
        ``_combine(colors[src], ecol)``."""
        if not self.src.size:
            return _combine(colors, np.zeros(colors.size, dtype=np.uint64))
        msg = np.add.reduceat(splitmix(colors[self.src] * _K + self.ecol), self.starts)
        if self.targets.size == colors.size:  # every node has an in-edge
            return _combine(colors, msg)
        agg = np.zeros(colors.size, dtype=np.uint64)
        agg[self.targets] = msg
        return _combine(colors, agg)


def refine(colors: np.ndarray, src: np.ndarray, dst: np.ndarray, ecol: np.ndarray,
           max_rounds: int = MAX_ROUNDS) -> np.ndarray:
    """Weisfeiler-Lehman colour refinement until the number of colour classes stops growing."""
    return Refiner(src, dst, ecol)(colors, max_rounds)


def _digest(kind: bytes, colors: np.ndarray, extra: np.ndarray) -> str:
    h = hashlib.sha256()
    h.update(kind + struct.pack("<ii", FP_VERSION, PRECISION_BITS))
    h.update(np.ascontiguousarray(extra, dtype="<u8").tobytes())
    h.update(np.sort(colors).astype("<u8").tobytes())
    return h.hexdigest()


def fingerprints(model: CanonicalModel) -> tuple[str, str]:
    """(structural, formulation) fingerprints of ``model``, sharing one normalisation.

    Structural: invariant under renaming, permutations, row scaling and orientation, min/max
    with negated objective, bounds written as one-variable rows and binary vs integer in [0, 1].
    Formulation: the same graph with every number reduced to its sign.
    """
    nm = normalize(model)
    exact = Tokens(nm, quantize)
    rows = distinct_rows_by(nm, exact)
    c1, s1, d1, e1 = model_graph(nm, rows, exact, exact=True)
    c2, s2, d2, e2 = model_graph(nm, rows, Tokens(nm, sign_class), exact=False)
    # Both graphs are refined together as one disjoint union: the number of rounds is still a
    # function of the model alone, so both colourings stay invariant, at half the call count.
    off = c1.size
    colors = refine(np.concatenate([c1, c2]), np.concatenate([s1, s2 + off]),
                    np.concatenate([d1, d2 + off]), np.concatenate([e1, e2]))
    infeasible = np.array([nm.infeasible_empty_rows.size], dtype=np.uint64)
    extra = np.concatenate([quantize(np.array([nm.constant])), infeasible])
    return (_digest(b"ortrex-structural", colors[:off], extra),
            _digest(b"ortrex-formulation", colors[off:], infeasible))
