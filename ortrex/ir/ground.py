"""Grounding: SemanticModel -> CanonicalModel with vectorised numpy (no per-term Python loops).

Every monomial of an expression is evaluated on the whole grid of its index combinations at
once: index positions come from ``np.indices``, conditions become boolean masks, parameters are
gathered by fancy indexing and variable references map to column numbers through a lookup table.
A shifted index that leaves its set (``t - 1`` at the first period) makes its term absent.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ortrex.ir.canonical import CanonicalModel, canonical_csr
from ortrex.ir.expr import Cond, Const, Expr, Idx, Monomial, Param, as_expr, expand
from ortrex.ir.semantic import SemanticModel


@dataclass
class _Entries:
    """COO pieces of the linear part, the quadratic part and the constants of some rows."""

    rows: list[np.ndarray]
    cols: list[np.ndarray]
    vals: list[np.ndarray]
    q_rows: list[np.ndarray]
    q_i: list[np.ndarray]
    q_j: list[np.ndarray]
    q_vals: list[np.ndarray]
    constant: np.ndarray


class _Grounder:
    def __init__(self, sm: SemanticModel) -> None:
        self.sm = sm
        self.size = {s.name: len(s) for s in sm.sets}
        self.elements = {s.name: s.elements for s in sm.sets}
        self.params = sm.param_map
        self.columns: dict[str, np.ndarray] = {}
        self.names: list[str] = []
        self.types: list[np.ndarray] = []
        self.lb: list[np.ndarray] = []
        self.ub: list[np.ndarray] = []
        self.n = 0
        for v in sm.variables:
            self._variable_family(v)

    # ------------------------------------------------------------------ domains
    def domain(self, dims: list[tuple[str, str]], conds: list[Cond]
               ) -> tuple[dict[str, np.ndarray], int]:
        """Positions of each index over the (filtered) product of its sets, and its size."""
        if not dims:
            return {}, 1
        shape = [self.size[s] for _, s in dims]
        grid = np.indices(shape).reshape(len(dims), -1)
        pos = {idx: grid[k] for k, (idx, _) in enumerate(dims)}
        sets = dict(dims)
        mask = np.ones(grid.shape[1], dtype=bool)
        for c in conds:
            mask &= self._cond(c, pos, sets)
        return {k: v[mask] for k, v in pos.items()}, int(mask.sum())

    def _cond(self, c: Cond, pos: dict[str, np.ndarray], sets: dict[str, str]) -> np.ndarray:
        a = pos[c.a]
        if c.op == "first":
            return a == 0
        if c.op == "not_first":
            return a != 0
        last = self.size[sets[c.a]] - 1
        if c.op == "last":
            return a == last
        if c.op == "not_last":
            return a != last
        b = pos[c.b]  # type: ignore[index]
        if c.op == "link":
            return self.params[c.param].values[a].astype(np.int64) == b  # type: ignore[index]
        return {"ne": a != b, "eq": a == b, "lt": a < b, "le": a <= b, "gt": a > b,
                "ge": a >= b}[c.op]

    def _positions(self, idx: tuple[Idx, ...], sets: tuple[str, ...],
                   pos: dict[str, np.ndarray]) -> tuple[tuple[np.ndarray, ...], np.ndarray]:
        """Shifted positions of a reference, and where they stay inside their sets."""
        out, ok = [], None
        for i, s in zip(idx, sets, strict=True):
            p = pos[i.name] + i.offset if i.offset else pos[i.name]
            if i.offset:
                inside = (p >= 0) & (p < self.size[s])
                ok = inside if ok is None else ok & inside
                p = np.clip(p, 0, self.size[s] - 1)
            out.append(p)
        n = next(iter(pos.values())).size if pos else 1
        return tuple(out), (np.ones(n, dtype=bool) if ok is None else ok)

    # ------------------------------------------------------------------ variables
    def _variable_family(self, v: object) -> None:
        from ortrex.ir.semantic import VariableFamily

        assert isinstance(v, VariableFamily)
        dims = list(v.dims)
        shape = tuple(self.size[s] for _, s in dims)
        pos, count = self.domain(dims, list(v.where))
        table = np.full(shape if dims else (1,), -1, dtype=np.int64)
        flat = np.ravel_multi_index(tuple(pos[i] for i, _ in dims), shape) if dims else \
            np.zeros(1, dtype=np.int64)
        table.reshape(-1)[flat] = self.n + np.arange(count)
        self.columns[v.name] = table
        if dims:
            labels = [np.array(self.elements[s], dtype=object)[pos[i]] for i, s in dims]
            self.names += [f"{v.name}[{','.join(t)}]" for t in zip(*labels, strict=True)]
        else:
            self.names.append(v.name)
        self.types.append(np.full(count, v.vtype))
        self.lb.append(self.numeric(as_expr(v.lb), pos, count))
        self.ub.append(self.numeric(as_expr(v.ub), pos, count))
        self.n += count

    def numeric(self, e: Expr, pos: dict[str, np.ndarray], count: int) -> np.ndarray:
        """Value of a variable-free expression at every point of a domain."""
        if isinstance(e, Const):
            return np.full(count, e.value)
        total = np.zeros(count)
        for m in expand(e):
            if m.vars or m.sums:
                raise ValueError("bounds must be numbers or parameters at the variable's indices")
            total += m.sign * self._coef(m.coefs, pos, count)[0]
        return total

    def _coef(self, coefs: tuple[Const | Param, ...], pos: dict[str, np.ndarray],
              count: int) -> tuple[np.ndarray, np.ndarray]:
        val = np.ones(count)
        ok = np.ones(count, dtype=bool)
        for f in coefs:
            if isinstance(f, Const):
                val = val * f.value
                continue
            p = self.params[f.name]
            where, inside = self._positions(f.idx, p.index, pos)
            val = val * (p.values[where] if where else p.values)
            ok &= inside
        return val, ok

    # ------------------------------------------------------------------ rows
    def rows(self, forall: list[tuple[str, str]], where: list[Cond], expr: Expr,
             n_rows: int, row_of: np.ndarray) -> _Entries:
        """Ground ``expr`` for every row of a family (``row_of`` maps outer grid -> row)."""
        ent = _Entries([], [], [], [], [], [], [], np.zeros(n_rows))
        outer_shape = tuple(self.size[s] for _, s in forall)
        for m in expand(expr):
            self._monomial(m, forall, where, outer_shape, row_of, ent)
        return ent

    def _monomial(self, m: Monomial, forall: list[tuple[str, str]], where: list[Cond],
                  outer_shape: tuple[int, ...], row_of: np.ndarray, ent: _Entries) -> None:
        dims = list(forall) + [(i, s) for i, s, _ in m.sums]
        conds = list(where) + [c for _, _, cs in m.sums for c in cs]
        pos, count = self.domain(dims, conds)
        if count == 0:
            return
        val, ok = self._coef(m.coefs, pos, count)
        val = val * m.sign
        cols = []
        for v in m.vars:
            fam = self.sm.var_map[v.name]
            where_v, inside = self._positions(v.idx, tuple(s for _, s in fam.dims), pos)
            table = self.columns[v.name]
            c = table[where_v] if where_v else np.full(count, table[0])
            ok &= inside & (c >= 0)  # a filtered-out variable does not exist: its term is absent
            cols.append(c)
        rows = row_of[np.ravel_multi_index(tuple(pos[i] for i, _ in forall), outer_shape)] \
            if forall else np.zeros(count, dtype=np.int64)
        ok &= val != 0
        if not ok.all():
            val, rows, cols = val[ok], rows[ok], [c[ok] for c in cols]
        if not cols:
            np.add.at(ent.constant, rows, val)
        elif len(cols) == 1:
            ent.rows.append(rows)
            ent.cols.append(cols[0])
            ent.vals.append(val)
        elif len(cols) == 2:
            ent.q_rows.append(rows)
            ent.q_i.append(cols[0])
            ent.q_j.append(cols[1])
            ent.q_vals.append(val)
        else:
            raise ValueError("terms of degree above two are not supported")


def _cat(parts: list[np.ndarray], dtype: type) -> np.ndarray:
    return np.concatenate(parts).astype(dtype) if parts else np.zeros(0, dtype=dtype)


def ground(sm: SemanticModel) -> CanonicalModel:
    """The canonical instance of ``sm``: variables, rows and objective with full-precision data."""
    g = _Grounder(sm)
    rows, cols, vals = [], [], []
    q_rows, q_i, q_j, q_vals = [], [], [], []
    lo_parts, hi_parts, row_names = [], [], []
    offset = 0
    for c in sm.constraints:
        forall = list(c.forall)
        pos, count = g.domain(forall, list(c.where))
        shape = tuple(g.size[s] for _, s in forall)
        row_of = np.full(int(np.prod(shape)) if forall else 1, -1, dtype=np.int64)
        if forall:
            row_of[np.ravel_multi_index(tuple(pos[i] for i, _ in forall), shape)] = \
                np.arange(count)
        ent = g.rows(forall, list(c.where), c.lhs - as_expr(c.rhs), count, row_of)
        # Keep a row only if something is left in it, or if its constant makes it infeasible.
        used = np.zeros(count, dtype=bool)
        for r in ent.rows + ent.q_rows:
            used[r] = True
        rhs = -ent.constant
        infeasible_empty = ~used & {"<=": rhs < 0, ">=": rhs > 0, "=": rhs != 0}[c.sense]
        keep = used | infeasible_empty
        new_index = np.cumsum(keep) - 1 + offset
        rows += [new_index[r] for r in ent.rows]
        cols += ent.cols
        vals += ent.vals
        q_rows += [new_index[r] for r in ent.q_rows]
        q_i += ent.q_i
        q_j += ent.q_j
        q_vals += ent.q_vals
        rhs = rhs[keep]
        lo_parts.append(rhs if c.sense in (">=", "=") else np.full(rhs.size, -math.inf))
        hi_parts.append(rhs if c.sense in ("<=", "=") else np.full(rhs.size, math.inf))
        if forall:
            labels = [np.array(g.elements[s], dtype=object)[pos[i][keep]] for i, s in forall]
            row_names += [f"{c.name}[{','.join(t)}]" for t in zip(*labels, strict=True)]
        else:
            row_names += [c.name] * int(keep.sum())
        offset += int(keep.sum())
    obj_ent = g.rows([], [], sm.objective.expr, 1, np.zeros(1, dtype=np.int64))
    obj = np.zeros(g.n)
    for c, v in zip(obj_ent.cols, obj_ent.vals, strict=True):
        np.add.at(obj, c, v)
    A = canonical_csr(_cat(rows, np.int64), _cat(cols, np.int64), _cat(vals, float),
                      (offset, g.n))
    return CanonicalModel(
        var_names=g.names,
        var_types=_cat(g.types, "<U1") if g.types else [],
        lb=_cat(g.lb, float), ub=_cat(g.ub, float), obj=obj,
        obj_constant=float(obj_ent.constant[0]), sense=sm.objective.sense, A=A,
        row_names=row_names, row_lower=_cat(lo_parts, float), row_upper=_cat(hi_parts, float),
        qobj=(_cat(obj_ent.q_i, np.int64), _cat(obj_ent.q_j, np.int64),
              _cat(obj_ent.q_vals, float)),
        qrows=(_cat(q_rows, np.int64), _cat(q_i, np.int64), _cat(q_j, np.int64),
               _cat(q_vals, float)),
        name=sm.name,
    )
