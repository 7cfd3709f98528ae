"""Which variable of an answer's model is which variable of the verified instance.

A served program names its variables its own way: ``x[Latina,Niggli]`` (addVars over labels),
``x[0,3]`` (addMVar, positions), ``ship_Latina_Niggli`` (f-strings) or ``C12`` (no names).
Each captured variable is read as a prefix and index tokens; a token is an element label of the
family's set or a position in it (0- or 1-based, decided per prefix). Each prefix is matched to
the semantic variable family whose grid its tokens fit best (its own name breaks ties); a model
with no usable names is cut into blocks of the families' sizes in creation order. The result
maps captured columns to the reference (the semantic model grounded), so that a diff of the two
models can say which *family* is wrong.
"""

from __future__ import annotations

import itertools
import re
from collections import defaultdict
from dataclasses import dataclass, field

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel

_BRACKET = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*?)\s*((?:[\[(].*[\])])+)\s*$")
MIN_SCORE = 0.5  # share of a prefix's variables that must land on the family's grid


def family_of(name: str) -> str:
    """The family part of a grounded name (``x[a,b]`` -> ``x``)."""
    return name.split("[", 1)[0]


def parse_name(name: str) -> tuple[str, tuple[str, ...]] | None:
    """(prefix, index tokens) of a bracketed name: ``x[a,b]``, ``x[a][b]``, ``x(a, 'b')``;
    None for a name without brackets."""
    m = _BRACKET.match(name)
    if not m:
        return None
    inner = re.sub(r"[\])]\s*[\[(]", ",", m.group(2).strip())[1:-1]
    toks = tuple(t.strip().strip("'\"").strip() for t in inner.split(",")) if inner.strip() else ()
    return m.group(1), toks


@dataclass
class Alignment:
    """Captured column -> reference column (-1: no counterpart), and how it was found."""

    col: np.ndarray
    prefix: dict[str, str] = field(default_factory=dict)  # semantic family -> program's prefix
    how: str = "names"  # names | order | none
    coverage: float = 0.0  # share of reference variables matched

    def inverse(self, n_ref: int) -> np.ndarray:
        """Reference column -> captured column (-1: the answer lacks it)."""
        inv = np.full(n_ref, -1, dtype=np.int64)
        for c, r in enumerate(self.col):
            if r >= 0 and inv[r] < 0:
                inv[r] = c
        return inv


class _Family:
    """A semantic variable family's grid: position tuple -> reference column. A dimension over
    arcs (a set whose ``tail`` and ``head`` name nodes) also takes the arc's two node labels,
    as programs that key flows by node pairs write them."""

    def __init__(self, name: str, sets: list[tuple[str, ...]],
                 arcs: dict[int, tuple[dict[str, int], dict[tuple[int, int], int]]]) -> None:
        self.name = name
        self.sets = sets
        self.labels = [{e.lower(): k for k, e in enumerate(s)} for s in sets]
        self.cells: dict[tuple[int, ...], int] = {}
        self.arcs = arcs  # dimension -> (node label -> position, (tail, head) -> arc)

    def _pairs(self, toks: tuple[str, ...]) -> tuple[str, ...] | None:
        """Node-pair tokens folded into arc positions (as strings), or None."""
        out: list[str] = []
        k = 0
        for j in range(len(self.sets)):
            if j in self.arcs and k + 1 < len(toks):
                nodes, pairs = self.arcs[j]
                a, b = nodes.get(toks[k].lower()), nodes.get(toks[k + 1].lower())
                arc = pairs.get((a, b)) if a is not None and b is not None else None
                if arc is None:
                    return None
                out.append(self.sets[j][arc])
                k += 2
            elif k < len(toks):
                out.append(toks[k])
                k += 1
        return tuple(out) if k == len(toks) else None

    def resolve(self, toks: tuple[str, ...], base: list[int]) -> tuple[int, ...] | None:
        if len(toks) != len(self.sets):
            folded = self._pairs(toks) if self.arcs else None
            if folded is None:
                return None
            toks = folded
        out = []
        for j, t in enumerate(toks):
            k = self.labels[j].get(t.lower())
            if k is None and re.fullmatch(r"-?\d+", t):
                k = int(t) - base[j]
                if not 0 <= k < len(self.sets[j]):
                    return None
            if k is None:
                return None
            out.append(k)
        return tuple(out)

    def split(self, rest: str) -> tuple[str, ...] | None:
        """Index tokens of an underscore-joined name tail (``Latina_Niggli``)."""
        def go(s: str, j: int) -> tuple[str, ...] | None:
            if j == len(self.sets):
                return () if not s else None
            for label in sorted(self.sets[j], key=len, reverse=True):
                if s.lower() == label.lower() or s.lower().startswith(label.lower() + "_"):
                    tail = go(s[len(label) + 1:], j + 1)
                    if tail is not None:
                        return (label, *tail)
            m = re.match(r"(\d+)(?:_|$)", s)
            if m:
                tail = go(s[m.end():], j + 1)
                if tail is not None:
                    return (m.group(1), *tail)
            return None
        return go(rest, 0)


def _arcs(sm: SemanticModel) -> dict[str, tuple[dict[str, int], dict[tuple[int, int], int]]]:
    """Arc sets (``tail`` and ``head`` into one node set): node labels and (tail, head) ->
    arc position."""
    links = sm.position_params()
    if "tail" not in links or links.get("head") != links["tail"]:
        return {}
    tail, head = sm.param_map["tail"], sm.param_map["head"]
    if len(tail.index) != 1 or tail.index != head.index:
        return {}
    nodes = {e.lower(): k for k, e in enumerate(sm.set_map[links["tail"]].elements)}
    pairs = {(int(a), int(b)): k for k, (a, b) in
             enumerate(zip(tail.values.tolist(), head.values.tolist(), strict=True))}
    return {tail.index[0]: (nodes, pairs)}


def _families(sm: SemanticModel, ref: CanonicalModel) -> dict[str, _Family]:
    arcs = _arcs(sm)
    fams = {v.name: _Family(v.name, [sm.set_map[s].elements for _, s in v.dims],
                            {j: arcs[s] for j, (_, s) in enumerate(v.dims) if s in arcs})
            for v in sm.variables}
    for col, name in enumerate(ref.var_names):
        f = fams.get(family_of(name))
        parsed = parse_name(name)
        if f is None:
            continue
        toks = parsed[1] if parsed else ()
        cell = f.resolve(toks, [0] * len(f.sets))
        if cell is not None:
            f.cells[cell] = col
    return fams


def _base(toks: list[tuple[str, ...]], fam: _Family) -> list[int]:
    """Per dimension: 1 when integer tokens look 1-based (no 0, the size appears), else 0."""
    out = []
    for j, s in enumerate(fam.sets):
        ints = [int(t[j]) for t in toks if len(t) > j and re.fullmatch(r"-?\d+", t[j])
                and t[j].lower() not in fam.labels[j]]
        out.append(1 if ints and 0 not in ints and len(s) in ints else 0)
    return out


def align(sm: SemanticModel, ref: CanonicalModel, cap: CanonicalModel) -> Alignment:
    """Map ``cap``'s variables onto ``ref`` (``sm`` grounded) family by family."""
    fams = _families(sm, ref)
    col = np.full(cap.num_vars, -1, dtype=np.int64)
    groups: dict[str, list[tuple[int, tuple[str, ...]]]] = defaultdict(list)
    loose: list[int] = []  # names without brackets
    for c, name in enumerate(cap.var_names):
        parsed = parse_name(name)
        if parsed is None:
            loose.append(c)
        else:
            groups[parsed[0]].append((c, parsed[1]))
    # Names without brackets: a scalar family by name, or a family's name and an underscore
    # tail (``ship_Latina_Niggli``), else left for the order fallback.
    still: list[int] = []
    for c in loose:
        name = cap.var_names[c]
        hit = False
        for f in fams.values():
            if not f.sets and name.lower() == f.name.lower():
                groups[name].append((c, ()))
                hit = True
                break
        if not hit and "_" in name:
            head, rest = name.split("_", 1)
            for f in fams.values():
                toks = f.split(rest) if f.sets else None
                if toks is not None:
                    groups[head].append((c, toks))
                    hit = True
                    break
        if not hit:
            still.append(c)
    # Score every (prefix, family) pair; assign greedily, best first.
    scored = []
    for prefix, members in groups.items():
        toks = [t for _, t in members]
        for f in fams.values():
            if not f.cells:
                continue
            base = _base(toks, f)
            cells = [f.resolve(t, base) for t in toks]
            hits = {x for x in cells if x is not None and x in f.cells}
            score = len(hits) / max(len(members), len(f.cells))
            bonus = 0.01 if prefix.lower() == f.name.lower() else 0.0
            scored.append((score + bonus, prefix, f.name, base))
    prefix_of: dict[str, str] = {}
    used_prefix: set[str] = set()
    for score, prefix, fname, base in sorted(scored, key=lambda s: (-s[0], s[1], s[2])):
        if score < MIN_SCORE or prefix in used_prefix or fname in prefix_of:
            continue
        f = fams[fname]
        for c, toks in groups[prefix]:
            cell = f.resolve(toks, base)
            if cell is not None and cell in f.cells:
                col[c] = f.cells[cell]
        prefix_of[fname] = prefix
        used_prefix.add(prefix)
    how = "names" if prefix_of else "none"
    # Unnamed variables (gurobipy's C0, C1, ...): blocks of the remaining families' sizes in
    # creation order, the order whose objective agrees most with the reference.
    rest = [f for f in sm.variables if f.name not in prefix_of and fams[f.name].cells]
    unplaced = [c for c in still if col[c] < 0]
    if rest and unplaced and len(rest) <= 4 and \
            sum(len(fams[f.name].cells) for f in rest) == len(unplaced):
        best: tuple[int, list[int]] | None = None
        for order in itertools.permutations(rest):
            mapping, k = [], 0
            for f in order:
                cols = sorted(fams[f.name].cells.values())
                mapping += cols
                k += len(cols)
            agree = int(np.sum(np.isclose(cap.obj[unplaced], ref.obj[mapping])))
            if best is None or agree > best[0]:
                best = (agree, mapping)
        assert best is not None
        for c, r in zip(unplaced, best[1], strict=True):
            col[c] = r
        for f in rest:
            prefix_of[f.name] = "(unnamed)"
        how = "order" if how == "none" else how
    matched = len({int(r) for r in col if r >= 0})
    return Alignment(col, prefix_of, how, matched / max(ref.num_vars, 1))
