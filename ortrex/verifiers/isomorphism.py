"""Individualisation-refinement search for an isomorphism between two coloured graphs.

The two graphs are refined together as a disjoint union (A's nodes first). A discrete balanced
colouring is an isomorphism; every isomorphism lies on some path of the search, so it is
complete. Automorphisms of B, found by the same search on B against itself and verified edge
by edge, prune candidates that cannot succeed where an equivalent one failed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ortrex.ir.fingerprint import Refiner, splitmix

MAX_SEARCH_ROUNDS = 1 << 30  # refinement in the search runs to the stable colouring


_MASK = (1 << 64) - 1


def _mark(color: int, depth: int) -> np.uint64:
    """The colour that individualises a node of class ``color`` at ``depth``: splitmix of
    ``color ^ (0xC0FFEE + depth)``, in Python integers (numpy costs ten calls for one value)."""
    z = ((color ^ (0xC0FFEE + depth)) + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return np.uint64(z ^ (z >> 31))


class SearchTimeout(Exception):
    """The search ran past its deadline."""


def balanced(colors: np.ndarray, n_a: int) -> bool:
    """Whether both sides (the first n_a nodes, the rest) have one colour multiset."""
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

    def __init__(self, refine: Refiner, n_a: int, accept: Callable[[np.ndarray], bool],
                 deadline: float | None,
                 automorphisms: Callable[[], Automorphisms] | None = None,
                 budget: int | None = None) -> None:
        self.refine, self.n_a, self.accept = refine, n_a, accept
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
        sa = np.sort(ca)
        if not np.array_equal(sa, np.sort(cb)):
            return None
        if not sa.size:
            return self._leaf(ca, cb)
        new = np.empty(sa.size, dtype=bool)
        new[0] = True
        np.not_equal(sa[1:], sa[:-1], out=new[1:])
        if new.all():  # discrete: the colouring is the mapping
            return self._leaf(ca, cb)
        starts = new.nonzero()[0]
        sizes = np.diff(starts, append=sa.size)
        sizes[sizes == 1] = sa.size + 1  # the smallest class of two or more, first if tied
        target = sa[starts[sizes.argmin()]]
        u = int((ca == target).nonzero()[0][0])
        mark = _mark(int(target), depth)
        return _Level(cur, u, ((cb == target).nonzero()[0] + n_a).tolist(), mark)

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
        return bool(np.array_equal(ms[order], s) and np.array_equal(md[order], d)
                    and np.array_equal(e[order], e))
