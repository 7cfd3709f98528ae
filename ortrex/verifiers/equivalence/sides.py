"""One model's side of an equivalence check: its normal form's (or comparison form's) tokens,
duplicate rows merged, graph, colouring and search memo, computed once per model where the
numbers allow it."""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import Refiner, Tokens, model_graph, row_groups, sort, splitmix
from ortrex.ir.lazy import lazy
from ortrex.ir.normalize import EQ0, EQ1, GE, RANGE, NormalizedModel
from ortrex.verifiers.equivalence.encodings import Encoding, encoding
from ortrex.verifiers.equivalence.isomorphism import MAX_SEARCH_ROUNDS, HalfMemo
from ortrex.verifiers.equivalence.rowmatch import ABS_FLOOR, close, open_sign, rows_match


@dataclass
class Side:
    """A model as one side of a check: normal form, tokens, representative rows, and what is
    built from them on demand (graph, refiner, colouring, counts, multisets, search memo)."""

    ref: weakref.ReferenceType[CanonicalModel]  # weak: a side is cached on its own model
    nm: NormalizedModel
    tk: Tokens
    rows: np.ndarray  # representative normalised rows, in order
    rep: np.ndarray  # normalised row -> its representative
    orient: np.ndarray  # +1 / -1: normalised row = orient x its representative
    enc: Encoding | None = None  # the comparison form ``nm`` is (None: the normal form itself)

    @property
    def model(self) -> CanonicalModel:
        """The model (a strong reference would make a cycle that only the collector frees)."""
        model = self.ref()
        if model is None:
            raise RuntimeError("the model of this side is gone")
        return model

    @lazy
    def graph(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The model graph (built only for pairs that no count or number tells apart)."""
        return model_graph(self.nm, self.rows, self.tk, exact=True)

    @lazy
    def gadget_rows(self) -> np.ndarray:
        """Positions in ``rows`` of rows with a second (negated) node."""
        return open_sign(self.nm, self.rows).nonzero()[0]

    @lazy
    def counts(self) -> list[tuple[str, int]]:
        """Sizes that equivalent models share (see :func:`side_counts`)."""
        return side_counts(self)

    @lazy
    def multisets(self) -> dict[str, np.ndarray]:
        """Sorted tokens of the numbers that equivalent models share as multisets."""
        ge = self.rows[self.nm.kind[self.rows] == GE]
        return {"c": sort(self.tk["c"]), "qo": sort(self.tk["qo"]),
                "lb": sort(self.tk["lb"]), "ub": sort(self.tk["ub"]),
                "rhs": sort(self.tk["rlo"][ge]), "coef": sort(coefficient_tokens(self)[0])}

    @lazy
    def refiner(self) -> Refiner:
        """Colour refinement on this side's graph alone."""
        _, src, dst, ecol = self.graph
        return Refiner(src, dst, ecol)

    @lazy
    def entry_rows(self) -> np.ndarray:
        """The normalised row of each constraint coefficient."""
        return self.nm.A.row_of_entry()

    @lazy
    def entry_keys(self) -> np.ndarray:
        """Row x variables + column of each coefficient: increasing (rows sorted by column)."""
        return self.entry_rows * self.nm.num_vars + self.nm.A.indices

    @lazy
    def memo(self) -> HalfMemo:
        """What searches learnt about this side alone, kept for the next pair."""
        return HalfMemo()

    @lazy
    def stable(self) -> np.ndarray:
        """The stable colouring of this side's graph alone, and its sorted copy."""
        colors = self.refiner(self.graph[0], MAX_SEARCH_ROUNDS)
        return colors


def exact_tokens(x: np.ndarray) -> np.ndarray:
    """A token per distinct number (-0.0 and 0.0 are one)."""
    return splitmix((np.asarray(x, dtype=np.float64) + 0.0).view(np.uint64))


def form(model: CanonicalModel, rel_tol: float, encoded: bool
         ) -> tuple[NormalizedModel, Encoding | None]:
    """The normal form, or the comparison form and its encoding (None where they are one)."""
    # The comparison form: ranges split, mirrored one-sided rows joined (encodings module).
    if not encoded:
        return model.normal_form, None
    enc = encoding(model, rel_tol)
    return (model.normal_form, None) if enc.plain else (enc.nm, enc)


def own_side(model: CanonicalModel, rel_tol: float, encoded: bool = False) -> Side:
    """The side of ``model`` with exact tokens, computed once per model: a model compared
    with many others is normalised, tokenised, grouped, turned into a graph and coloured once
    (memoised on the model object, whose arrays are read-only)."""
    cache = model.__dict__.setdefault("_equivalence_sides", {})
    key = (rel_tol, True) if encoded else rel_tol
    side = cache.get(key)
    if side is None:
        nm, enc = form(model, rel_tol, encoded)
        if enc is None and encoded:  # nothing to split or join: the normal form's side serves
            side = cache[key] = own_side(model, rel_tol)
        else:
            side = cache[key] = make_side(model, nm, Tokens(nm, exact_tokens), rel_tol, enc)
    return side


def cached_sides(ma: CanonicalModel, mb: CanonicalModel, rel_tol: float, encoded: bool = False
                 ) -> tuple[Side, Side, Callable[[np.ndarray], np.ndarray]] | None:
    """A's own side (computed once per model) and a side of B in A's tokens, with the token
    function; None when two different numbers of A fall in one tolerance group.

    The numbers of both models are grouped as :func:`joint_tokens` groups them (sorted
    together, cut only where neighbours are not close). With at most one distinct number of A
    per group, A's exact tokens are tolerance-aware, and each number of B takes the exact
    token of the A number in its group (of the group's smallest number if A has none): numbers
    within tolerance share a token, so A's graph and colouring serve every B it meets. When no
    two different numbers are close at all, B's tokens are its own exact ones, and B's side is
    cached too. ``encoded``: the comparison forms instead of the normal forms."""
    if encoded:
        va = form(ma, rel_tol, True)[0].values
        nmb, enc_b = form(mb, rel_tol, True)
    else:  # the usual case, without the calls
        va, nmb, enc_b = ma.normal_form.values, mb.normal_form, None
    # B's numbers as they are (repeats and all): sorting them once with A's distinct numbers
    # gives the same groups as B's distinct numbers would, and B's tokens need no look-up.
    pool = np.concatenate([va, nmb.numbers[0]])
    if not near_distinct(sort(pool), rel_tol):
        return (own_side(ma, rel_tol, encoded), own_side(mb, rel_tol, encoded),
                exact_tokens)
    order = np.argsort(pool, kind="stable")
    s = pool[order]
    near = close(s[:-1], s[1:], rel_tol)
    group = np.zeros(s.size, dtype=np.int64)
    np.cumsum(~near, out=group[1:])
    from_a = order < va.size
    if np.bincount(group[from_a]).max() > 1:
        return None
    rep = s[np.concatenate([[0], np.flatnonzero(~near) + 1])]  # each group's smallest number
    rep[group[from_a]] = s[from_a]
    keys = exact_tokens(rep)
    where = np.empty(s.size, dtype=np.int64)
    where[order] = np.arange(s.size)
    tb = Tokens(nmb, flat=keys[group[where[va.size:]]])

    def tokens(x: np.ndarray) -> np.ndarray:
        return keys[group[np.minimum(np.searchsorted(s, x), s.size - 1)]]

    return own_side(ma, rel_tol, encoded), make_side(mb, nmb, tb, rel_tol, enc_b), tokens


_SAFE = 8e307  # finite numbers below this in magnitude have differences that cannot overflow


def near_distinct(s: np.ndarray, rel_tol: float) -> bool:
    """Whether two different neighbours of the sorted ``s`` are :func:`close`: the same test,
    in half the numpy calls (infinities and nan are close to nothing different from them, and
    for sorted x <= y, |x - y| is y - x and the larger magnitude is max(-x, y))."""
    f = s[np.isfinite(s)]
    if f.size < 2:
        return False
    if f[0] < -_SAFE or f[-1] > _SAFE:
        return bool(((f[:-1] != f[1:]) & close(f[:-1], f[1:], rel_tol)).any())
    x, y = f[:-1], f[1:]
    d = y - x
    return bool(((d > 0) & (d <= rel_tol * np.maximum(-x, y) + ABS_FLOOR)).any())


def make_side(model: CanonicalModel, nm: NormalizedModel, tk: Tokens, rel_tol: float,
              enc: Encoding | None = None) -> Side:
    """The side of ``model`` with tokens ``tk``: duplicate rows merged where they match."""
    rows, rep = row_groups(nm, tk)
    orient = np.ones(nm.num_rows)
    if rows.size == nm.num_rows:  # no duplicates: every row its own representative
        return Side(weakref.ref(model), nm, tk, rows, rep, orient, enc)
    merged = (rep != np.arange(nm.num_rows)).nonzero()[0]
    if merged.size:
        # Rows grouped by token are duplicates only if they match within tolerance too (a
        # chain of close numbers can make a group wider than the tolerance). An open-sign row
        # may be its twin negated.
        twin = rep[merged]
        ident = np.arange(nm.num_vars)
        ok = rows_match(nm, merged, nm, twin, np.ones(merged.size), ident, rel_tol)
        retry = ~ok & open_sign(nm, merged)
        if retry.any():
            neg = rows_match(nm, merged[retry], nm, twin[retry], -np.ones(int(retry.sum())),
                              ident, rel_tol)
            orient[merged[retry][neg]] = -1.0
            ok[np.flatnonzero(retry)[neg]] = True
        rep[merged[~ok]] = merged[~ok]
        rows = np.unique(rep)
    return Side(weakref.ref(model), nm, tk, rows, rep, orient, enc)


ROWS, RANGED = 4, 6  # where side_counts lists the rows and the ranged rows


def side_counts(s: Side) -> list[tuple[str, int]]:
    """The sizes that equivalent models share, in the order differences are reported."""
    nm = s.nm
    every = s.rows.size == nm.num_rows
    kinds = np.bincount(nm.kind if every else nm.kind[s.rows], minlength=4).tolist()
    q_rows = np.count_nonzero(np.isin(nm.qrows[0], s.rows)) if nm.qrows[0].size else 0
    n_int = np.count_nonzero(nm.is_int)  # count_nonzero: a bool array's sum costs ten times more
    return [
        ("variables", nm.num_vars),
        ("integer variables", n_int),
        ("binary variables (integer in [0, 1])",
         np.count_nonzero(nm.is_int & (nm.lb == 0) & (nm.ub == 1)) if n_int else 0),
        ("semi-continuous or semi-integer variables", np.count_nonzero(nm.semi)),
        ("rows", s.rows.size),
        ("equality rows", kinds[EQ0] + kinds[EQ1]),
        ("ranged rows", kinds[RANGE]),
        ("inequality rows", kinds[GE]),
        ("constraint coefficients", nm.A.nnz if every else int(nm.A.lengths()[s.rows].sum())),
        ("quadratic objective terms", nm.qobj[0].size),
        ("quadratic constraint terms", q_rows),
        ("infeasible empty rows", nm.infeasible_empty_rows.size),
    ]


def coefficient_tokens(s: Side) -> tuple[np.ndarray, np.ndarray]:
    """Tokens and values of the kept rows' coefficients; up to sign in open-sign rows."""
    nm = s.nm
    tok, val = s.tk["a"], nm.A.data
    open_rows = nm.kind >= EQ0  # EQ0 or RANGE
    if open_rows.any():
        open_nz = open_rows[nm.A.row_of_entry()]
        tok = np.where(open_nz, np.minimum(tok, s.tk["-a"]), tok)
        val = np.where(open_nz, np.abs(val), val)
    if s.rows.size == nm.num_rows:
        return tok, val
    keep = np.zeros(nm.num_rows, dtype=bool)
    keep[s.rows] = True
    keep_nz = keep[nm.A.row_of_entry()]
    return tok[keep_nz], val[keep_nz]
