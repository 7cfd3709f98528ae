"""Individualisation-refinement search for an isomorphism between two coloured graphs.

The two graphs are refined together as a disjoint union (A's nodes first). A discrete balanced
colouring is an isomorphism; every isomorphism lies on some path of the search, so it is
complete. Automorphisms of B, found by the same search on B against itself and verified edge
by edge, prune candidates that cannot succeed where an equivalent one failed.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ortrex.ir.fingerprint import Refiner, count_classes, equal, sort, splitmix

MAX_SEARCH_ROUNDS = 1 << 30  # refinement in the search runs to the stable colouring


_MASK = (1 << 64) - 1


def _mark(color: int, depth: int) -> np.uint64:
    """The colour that individualises a node of class ``color`` at ``depth``: splitmix of
    ``color ^ (0xC0FFEE + depth)``, in Python integers (numpy costs ten calls for one value)."""
    z = ((color ^ (0xC0FFEE + depth)) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return np.uint64(z ^ (z >> 31))


class HalfMemo:
    """What a search learns about A alone, kept on A's side for the next B it meets: A's half
    of each refined colouring round by round, and the class each colouring branches on."""

    LIMIT = 1 << 20  # colours remembered per model (8 MiB): a cache, never a bottleneck

    def __init__(self) -> None:
        self.rounds: dict[bytes, _Rounds] = {}
        self.cells: dict[bytes, _Cells] = {}
        self.size = 0
        self.lock = threading.Lock()  # checks of one A on two threads extend rounds in turn

    def full(self) -> bool:
        return self.size >= self.LIMIT


class _Rounds:
    """The refinement rounds of one colouring of A alone: per round the colours, their sorted
    copy, wrapping sum and number of classes (round 0 is the colouring itself)."""

    __slots__ = ("classes", "colors", "memo", "sorted", "sums")

    def __init__(self, colors: np.ndarray, memo: HalfMemo) -> None:
        self.colors: list[np.ndarray] = []
        self.sorted: list[np.ndarray] = []
        self.sums: list[np.uint64] = []
        self.classes: list[int] = []
        self.memo = memo
        self._add(colors)

    def _add(self, colors: np.ndarray) -> None:
        ordered = sort(colors)
        self.colors.append(colors)
        self.sorted.append(ordered)
        self.sums.append(colors.sum())
        self.classes.append(_classes_of_sorted(ordered))
        self.memo.size += 2 * colors.size

    def upto(self, r: int, refiner: Refiner) -> None:
        """Make sure round ``r`` is there."""
        if r < len(self.colors):
            return
        with self.memo.lock:
            while len(self.colors) <= r:
                self._add(refiner.step(self.colors[-1]))


def _classes_of_sorted(ordered: np.ndarray) -> int:
    return int(np.count_nonzero(ordered[1:] != ordered[:-1])) + 1 if ordered.size else 0


@dataclass
class _Cells:
    """A's half of a colouring as the search sees it: sorted, and the class to branch on
    (None when every class is a single node) with its first A node."""

    sorted: np.ndarray
    target: np.uint64 | None
    u: int


def _cells(ca: np.ndarray) -> _Cells:
    sa = sort(ca)
    bounds = np.empty(sa.size + 1, dtype=bool)  # where a class starts, and the end
    bounds[0] = bounds[-1] = True
    np.not_equal(sa[1:], sa[:-1], out=bounds[1:-1])
    edges = bounds.nonzero()[0]
    if edges.size == sa.size + 1:  # discrete (or empty)
        return _Cells(sa, None, -1)
    sizes = edges[1:] - edges[:-1]
    sizes[sizes == 1] = sa.size + 1  # the smallest class of two or more, first if tied
    target = sa[edges[sizes.argmin()]]
    return _Cells(sa, target, int((ca == target).argmax()))


class PairRefiner:
    """Colour refinement of the disjoint union of A and B (A's ``n_a`` nodes first), round for
    round the colours of :class:`Refiner` on the union, with A's half remembered in ``memo``.

    A's half of a refined colouring depends on A's half of the start alone (the union's rounds
    only run longer where the halves differ, and then B's half is computed anew but A's rounds
    are extended from the memo). A model compared with many others keeps ``memo`` on its side:
    searching a symmetric model against its next copy refines only the copy's half.
    """

    def __init__(self, a: Refiner, b: Refiner, n_a: int, memo: HalfMemo) -> None:
        self.a, self.b, self.n_a, self.memo = a, b, n_a, memo

    def _rounds(self, ca: np.ndarray) -> _Rounds:
        key = ca.tobytes()
        ra = self.memo.rounds.get(key)
        if ra is None:
            ra = _Rounds(ca.copy(), self.memo)
            if not self.memo.full():
                self.memo.rounds[key] = ra
        return ra

    def __call__(self, colors: np.ndarray, max_rounds: int, split: int) -> np.ndarray:
        """The union's refinement (see :meth:`Refiner.__call__`; ``split`` must be ``n_a``)."""
        if split != self.n_a:
            raise ValueError("a pair refiner splits where A's nodes end")
        ra = self._rounds(colors[:split])
        cb = colors[split:]

        def union_classes(r: int, cb: np.ndarray) -> int:
            if equal(ra.sorted[r], sort(cb)):
                return ra.classes[r]
            return count_classes(np.concatenate([ra.colors[r], cb]))

        classes = union_classes(0, cb)
        r = 0
        for _ in range(max_rounds):
            r += 1
            ra.upto(r, self.a)
            cb = self.b.step(cb)
            if ra.sums[r] != cb.sum():
                break
            new_classes = union_classes(r, cb)
            if new_classes == classes:
                break
            classes = new_classes
        return np.concatenate([ra.colors[r], cb])


class SearchTimeout(Exception):
    """The search ran past its deadline."""


def balanced(colors: np.ndarray, n_a: int) -> bool:
    """Whether both sides (the first n_a nodes, the rest) have one colour multiset."""
    return equal(sort(colors[:n_a]), sort(colors[n_a:]))


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


class Search:
    """Individualisation-refinement over the disjoint union of two graphs (A nodes first).

    Depth first: pick an A node in the smallest non-trivial colour class, give it and one B node
    of that class a fresh colour, refine, go deeper; backtrack to the next B node when the colour
    histograms of the two sides part. A discrete balanced colouring is a graph isomorphism and
    every isomorphism lies on some path, so the search is complete. Candidates that an
    automorphism of B maps onto a failed one are skipped (the automorphism is found by the same
    search on B against itself and checked edge by edge), which turns the hopeless n-way
    branching of symmetric non-equivalent pairs into a few steps.
    """

    def __init__(self, refine: Callable[..., np.ndarray], n_a: int,
                 accept: Callable[[np.ndarray], bool],
                 deadline: float | None,
                 automorphisms: Callable[[], Automorphisms] | None = None,
                 budget: int | None = None, memo: HalfMemo | None = None) -> None:
        self.refine, self.n_a, self.accept, self.memo = refine, n_a, accept, memo
        self.deadline, self.make_aut, self.budget = deadline, automorphisms, budget
        self.aut: Automorphisms | None = None
        self.rounds = MAX_SEARCH_ROUNDS
        self.leaf_rejected = False

    def _tick(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise SearchTimeout
        if self.budget is not None:
            self.budget -= 1
            if self.budget < 0:
                raise OutOfBudget

    def _expand(self, cur: np.ndarray, depth: int) -> np.ndarray | _Level | None:
        """A refined colouring: an accepted mapping, a level to branch on, or None (the two
        sides' colour multisets differ, or the mapping is refused)."""
        n_a = self.n_a
        ca, cb = cur[:n_a], cur[n_a:]
        cells = self._cells(ca)
        if not equal(cells.sorted, sort(cb)):
            return None
        target = cells.target
        if target is None:  # discrete: the colouring is the mapping
            return self._leaf(ca, cb)
        mark = _mark(int(target), depth)
        return _Level(cur, cells.u, ((cb == target).nonzero()[0] + n_a).tolist(), mark)

    def _cells(self, ca: np.ndarray) -> _Cells:
        """A's half sorted and the class to branch on (from the memo when A was seen)."""
        if self.memo is None:
            return _cells(ca)
        key = ca.tobytes()
        cells = self.memo.cells.get(key)
        if cells is None:
            cells = _cells(ca)
            if not self.memo.full():
                self.memo.cells[key] = cells
                self.memo.size += ca.size
        return cells

    def _leaf(self, ca: np.ndarray, cb: np.ndarray) -> np.ndarray | None:
        order_b = np.argsort(cb)
        mapping = order_b[np.searchsorted(cb[order_b], ca)]
        if self.accept(mapping):
            return mapping
        self.leaf_rejected = True
        return None

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
            out = self._expand(cur, len(stack))
            if isinstance(out, np.ndarray):
                return out
            if out is None:
                lvl.failed.append(v)
                continue
            lvl.current = v
            stack.append(out)
        return None


class OutOfBudget(Exception):
    """An automorphism search used up its refinements."""


class Automorphisms:
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
        mark = splitmix(np.array([colors[x] ^ np.uint64(0xA17), ], dtype=np.uint64))[0]
        both[x] = both[self.n + y] = mark
        search = Search(self.refine, self.n, self._is_automorphism, deadline,
                         budget=self.BUDGET)
        try:
            return search.run(self.refine(both, MAX_SEARCH_ROUNDS, split=self.n))
        except OutOfBudget:
            return None

    def _is_automorphism(self, sigma: np.ndarray) -> bool:
        s, d, e = self.edges
        ms, md = sigma[s], sigma[d]
        order = np.lexsort((e, md, ms))
        return equal(ms[order], s) and equal(md[order], d) and equal(e[order], e)
