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
import struct
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


def splitmix(z: np.ndarray) -> np.ndarray:
    """SplitMix64 finaliser, element-wise: a well-mixed 64-bit hash of each value."""
    z = z + _C1
    z = (z ^ (z >> _U(30))) * _C2
    z = (z ^ (z >> _U(27))) * _C3
    return z ^ (z >> _U(31))


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

    def __init__(self, nm: NormalizedModel, fn: object) -> None:
        parts = self.parts(nm)
        flat = fn(np.concatenate(list(parts.values())))  # type: ignore[operator]
        ends = np.cumsum([v.size for v in parts.values()])
        self.t = dict(zip(parts, np.split(flat, ends[:-1]), strict=True))

    def __getitem__(self, key: str) -> np.ndarray:
        return self.t[key]

    @staticmethod
    def parts(nm: NormalizedModel) -> dict[str, np.ndarray]:
        """Every number the model graph uses, by role."""
        return {"lb": nm.lb, "ub": nm.ub, "c": nm.c, "rlo": nm.rlo, "rhi": nm.rhi,
                "-rlo": -nm.rlo, "-rhi": -nm.rhi, "a": nm.A.data, "-a": -nm.A.data,
                "qo": nm.qobj[2], "qr": nm.qrows[3], "-qr": -nm.qrows[3]}


def row_groups(nm: NormalizedModel, tk: Tokens) -> tuple[np.ndarray, np.ndarray]:
    """(representatives, rep): exact duplicate rows (compared by token) grouped; ``rep[r]`` is the
    representative of normalised row ``r`` and ``representatives`` lists them in row order."""
    R = nm.num_rows
    if R == 0:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    A = nm.A
    rows_of_nz = np.repeat(np.arange(R), np.diff(A.indptr))
    var_id = splitmix(np.arange(nm.num_vars, dtype=np.uint64) + _U(1))
    rr, ri, rj, _ = nm.qrows
    pair_id = _combine(var_id[ri], var_id[rj]) if rr.size else np.zeros(0, np.uint64)
    col_id = var_id[A.indices]

    def signature(neg: str, lo: str, hi: str) -> np.ndarray:
        acc = np.zeros(R, dtype=np.uint64)
        np.add.at(acc, rows_of_nz, _combine(col_id, tk[neg + "a"]))
        if rr.size:
            np.add.at(acc, rr, _combine(pair_id, tk[neg + "qr"]) ^ _T["qterm"])
        return _mix_all(nm.kind.astype(np.uint64), tk[lo], tk[hi], acc)

    sig = signature("", "rlo", "rhi")
    open_sign = (nm.kind == EQ0) | (nm.kind == RANGE)
    if open_sign.any():
        sig = np.where(open_sign, np.minimum(sig, signature("-", "-rhi", "-rlo")), sig)
    _, first, inverse = np.unique(sig, return_index=True, return_inverse=True)
    return np.sort(first), first[inverse.ravel()]


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
    every_row = rows.size == nm.num_rows
    kind = nm.kind if every_row else nm.kind[rows]
    R = rows.size
    if every_row:
        sub, a_tok, neg_a_tok = nm.A, tk["a"], tk["-a"]
    else:  # the tokens of the kept rows' coefficients
        keep_nz = np.repeat(np.isin(np.arange(nm.num_rows), rows), nm.A.lengths())
        sub, a_tok, neg_a_tok = nm.A.take(rows), tk["a"][keep_nz], tk["-a"][keep_nz]
    is_bin = nm.is_int & (nm.lb == 0) & (nm.ub == 1)
    vtype = np.where(is_bin, _T["bin"], np.where(nm.is_int, _T["int"], _T["cont"]))
    vtype = np.where(nm.semi, vtype ^ _T["semi"], vtype)
    colors = [_mix_all(_full(n, "var"), vtype, tk["lb"], tk["ub"], tk["c"])]

    if exact:
        rlo, rhi = tk["rlo"][rows], tk["rhi"][rows]
        gadget = (kind == EQ0) | (kind == RANGE)
        primary = np.select(
            [kind == GE, kind == EQ1, kind == EQ0],
            [_mix_all(_full(R, "ge"), rlo), _full(R, "eq1"), _full(R, "eq0")],
            _mix_all(_full(R, "rg"), rlo, rhi),
        ).astype(np.uint64)
        secondary = np.where(kind == RANGE, _mix_all(_full(R, "rg"), tk["-rhi"][rows],
                                                     tk["-rlo"][rows]), _full(R, "eq0"))
    else:
        gadget = kind != GE
        primary = np.select([kind == GE, kind == RANGE], [_full(R, "ge"), _full(R, "rg")],
                            _full(R, "eq")).astype(np.uint64)
        secondary = primary
    g_idx = np.flatnonzero(gadget)
    G = g_idx.size
    second_of = np.full(R, -1, dtype=np.int64)
    second_of[g_idx] = n + R + np.arange(G)
    colors += [primary, secondary[g_idx]]
    src: list[np.ndarray] = [n + g_idx]
    dst: list[np.ndarray] = [second_of[g_idx]]
    ecol: list[np.ndarray] = [_full(G, "pair")]

    # Linear coefficients of the kept rows.
    k_of_nz = np.repeat(np.arange(R), np.diff(sub.indptr))
    src.append(sub.indices.astype(np.int64))
    dst.append(n + k_of_nz)
    ecol.append(_combine(_full(sub.nnz, "edge"), a_tok))
    g_nz = gadget[k_of_nz]
    src.append(sub.indices[g_nz].astype(np.int64))
    dst.append(second_of[k_of_nz[g_nz]])
    ecol.append(_combine(_full(int(g_nz.sum()), "edge"), neg_a_tok[g_nz]))

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
    return np.concatenate(colors), np.concatenate([s, d]), np.concatenate([d, s]), np.tile(e, 2)


def count_classes(colors: np.ndarray) -> int:
    """Number of distinct colours (by sorting: numpy 2's hash-based ``unique`` is ~10x slower
    on 64-bit integers)."""
    if colors.size == 0:
        return 0
    s = np.sort(colors)
    return int(np.count_nonzero(s[1:] != s[:-1])) + 1


class Refiner:
    """Weisfeiler-Lehman colour refinement on a fixed edge list (sorted once, refined often)."""

    def __init__(self, src: np.ndarray, dst: np.ndarray, ecol: np.ndarray) -> None:
        order = np.argsort(dst, kind="stable")
        self.src, self.ecol = src[order], ecol[order]
        self.targets, self.starts = np.unique(dst[order], return_index=True)

    def __call__(self, colors: np.ndarray, max_rounds: int = MAX_ROUNDS,
                 split: int | None = None) -> np.ndarray:
        """Refine until the number of colour classes stops growing.

        With ``split``, nodes before it are one graph and the rest another: refinement stops
        early once the two colour multisets provably differ (their wrapping sums differ).
        """
        classes = count_classes(colors)
        for _ in range(max_rounds):
            agg = np.zeros(colors.size, dtype=np.uint64)
            if self.src.size:
                agg[self.targets] = np.add.reduceat(_combine(colors[self.src], self.ecol),
                                                    self.starts)
            colors = _combine(colors, agg)
            if split is not None and colors[:split].sum() != colors[split:].sum():
                break
            new_classes = count_classes(colors)
            if new_classes == classes:
                break
            classes = new_classes
        return colors


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
