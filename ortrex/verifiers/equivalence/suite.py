"""Labelled equivalence pairs built from real models by transformations of known answer.

Equivalent classes rewrite a model without changing it (order, names, row scale and sign,
min/max, bounds as rows, binary as integer in [0, 1]). Not-equivalent classes change one thing;
such a pair is kept only when an independent, deliberately simple invariant (the multisets of
per-row and per-variable profiles of the normal form) already differs, so the label is a fact
about the two models and not a guess that a symmetry might undo.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from ortrex.ir import transforms as tf
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.fingerprint import distinct_rows
from ortrex.ir.normalize import EQ0, RANGE, normalize

EQUIVALENT_CLASSES = ("permute+rename", "row scaling", "min<->max", "bounds<->rows",
                      "binary<->integer", "combined")
DIFFERENT_CLASSES = ("coefficient 1e-4", "row sense", "row dropped", "variable type",
                     "objective sense", "quadratic term")


@dataclass(frozen=True)
class LabelledPair:
    """Model ``a``, its variant ``b``, the class and whether they are equivalent."""

    a: CanonicalModel
    b: CanonicalModel
    cls: str
    equivalent: bool


def _signs(rng: np.random.Generator, n: int) -> np.ndarray:
    return rng.uniform(0.2, 8.0, n) * rng.choice([-1.0, 1.0], n)


def _equivalent(m: CanonicalModel, cls: str, rng: np.random.Generator) -> CanonicalModel | None:
    if cls == "permute+rename":
        return tf.shuffle(tf.rename(m, "p"), rng)
    if cls == "row scaling":
        return tf.scale_rows(m, _signs(rng, m.num_rows)) if m.num_rows else None
    if cls == "min<->max":
        return tf.flip_sense(m)
    if cls == "bounds<->rows":
        wrote = tf.bounds_as_rows(m, float(_signs(rng, 1)[0]))
        if wrote.num_rows > m.num_rows:
            return wrote
        try:
            folded = tf.rows_as_bounds(m)
        except ValueError:  # the rows and bounds contradict: bounds cannot say that
            return None
        return folded if folded.num_rows < m.num_rows else None
    if cls == "binary<->integer":
        for f in (tf.binary_as_integer, tf.integer_as_binary):
            other = f(m)
            if not np.array_equal(other.var_types, m.var_types):
                return other
        return None
    # combined: everything at once, in an order that keeps each step meaningful
    b = tf.binary_as_integer(m)
    b = tf.bounds_as_rows(b, float(_signs(rng, 1)[0]))
    b = tf.flip_sense(b)
    b = tf.scale_rows(b, _signs(rng, b.num_rows)) if b.num_rows else b
    return tf.shuffle(tf.rename(b, "c"), rng)


def _different(m: CanonicalModel, cls: str, rng: np.random.Generator) -> Iterator[CanonicalModel]:
    """Candidates for a not-equivalent variant (the caller keeps the first that provably is)."""
    lengths = np.diff(m.A.indptr)
    finite = np.isfinite(m.row_lower) | np.isfinite(m.row_upper)
    if cls == "coefficient 1e-4":
        rows = rng.permutation(np.flatnonzero((lengths >= 2) & finite))
        for r in rows[:8]:
            yield tf.change_coefficient(m, int(rng.integers(m.A.indptr[r], m.A.indptr[r + 1])))
    elif cls == "row sense":
        one_sided = np.isfinite(m.row_lower) != np.isfinite(m.row_upper)
        for r in rng.permutation(np.flatnonzero(one_sided))[:8]:
            yield tf.flip_row_sense(m, int(r))
    elif cls == "row dropped":
        for r in rng.permutation(m.num_rows)[:8]:
            yield tf.drop_row(m, int(r))
    elif cls == "variable type":
        for j in rng.permutation(m.num_vars)[:8]:
            yield tf.change_type(m, int(j))
    elif cls == "objective sense":
        yield tf.flip_objective_sense(m)
    elif cls == "quadratic term":
        if m.qobj[0].size:
            yield tf.remove_quadratic_term(m, int(rng.integers(m.qobj[0].size)))
        i, j = (int(v) for v in rng.integers(m.num_vars, size=2))
        yield tf.add_quadratic_term(m, i, j, float(rng.choice([0.5, 1.0, 2.0, 3.0])))


def _round(x: np.ndarray) -> np.ndarray:
    """Numbers to 9 significant digits (as strings of a fixed form: exact and hashable)."""
    return np.array([f"{v:.9g}" for v in np.asarray(x, dtype=float)], dtype=object)


def profile(m: CanonicalModel) -> tuple[list[tuple[object, ...]], ...]:
    """Sorted multisets of per-variable and per-row profiles of the normal form.

    A necessary condition for equivalence that needs no search: a row's profile is its kind,
    bounds and sorted coefficient values (sign-free for rows whose sign is open), a variable's is
    its type, bounds and objective coefficient. Different profiles prove different models.
    """
    nm = normalize(m)
    var = sorted(zip(nm.is_int.tolist(), _round(nm.lb), _round(nm.ub), _round(nm.c),
                     strict=True))
    rows = []
    rr, _, _, rv = nm.qrows
    for r in distinct_rows(nm).tolist():
        s, e = nm.A.indptr[r], nm.A.indptr[r + 1]
        a, q = nm.A.data[s:e], rv[rr == r]
        lo, hi = nm.rlo[r], nm.rhi[r]
        cand = [(int(nm.kind[r]), *_round([lo, hi]), tuple(sorted(_round(a))),
                 tuple(sorted(_round(q))))]
        if nm.kind[r] in (EQ0, RANGE):
            cand.append((int(nm.kind[r]), *_round([-hi, -lo]), tuple(sorted(_round(-a))),
                         tuple(sorted(_round(-q)))))
        rows.append(min(cand))
    extra = [(_round([nm.constant])[0], tuple(sorted(_round(nm.qobj[2]))),
              nm.infeasible_empty_rows.size)]
    return var, sorted(rows), extra


def labelled_pairs(models: list[CanonicalModel], seed: int = 0,
                   on_model: Callable[[], None] | None = None) -> list[LabelledPair]:
    """Every applicable class for every model: equivalent variants and provably different ones."""
    rng = np.random.default_rng(seed)
    out: list[LabelledPair] = []
    for m in models:
        for cls in EQUIVALENT_CLASSES:
            b = _equivalent(m, cls, rng)
            if b is not None:
                out.append(LabelledPair(m, b, cls, True))
        base = profile(m)
        for cls in DIFFERENT_CLASSES:
            for b in _different(m, cls, rng):
                if profile(b) != base:
                    out.append(LabelledPair(m, tf.shuffle(tf.rename(b, "d"), rng), cls, False))
                    break
        if on_model is not None:
            on_model()
    return out


# ---------------------------------------------------------------- symmetric and large models
def _model(name: str, n: int, rows: list[tuple[dict[int, float], float, float]],
           obj: np.ndarray, types: str = "C", ub: float = np.inf,
           var_names: list[str] | None = None) -> CanonicalModel:
    r_idx = [r for r, (coef, _, _) in enumerate(rows) for _ in coef]
    c_idx = [j for coef, _, _ in rows for j in coef]
    vals = [v for coef, _, _ in rows for v in coef.values()]
    import scipy.sparse as sp

    return CanonicalModel(
        var_names=var_names or [f"x{j}" for j in range(n)], var_types=types * n,
        lb=np.zeros(n), ub=np.full(n, ub), obj=obj,
        A=sp.csr_matrix((vals, (r_idx, c_idx)), shape=(len(rows), n)),
        row_names=[f"r{k}" for k in range(len(rows))],
        row_lower=[lo for _, lo, _ in rows], row_upper=[hi for _, _, hi in rows], name=name)


def assignment(n: int, cost: float = 1.0) -> CanonicalModel:
    """An n x n assignment problem with every cost equal (the full symmetry group S_n x S_n)."""
    x = lambda i, j: i * n + j  # noqa: E731 - a local index formula
    rows = [({x(i, j): 1.0 for j in range(n)}, 1.0, 1.0) for i in range(n)]
    rows += [({x(i, j): 1.0 for i in range(n)}, 1.0, 1.0) for j in range(n)]
    return _model(f"assignment{n}", n * n, rows, np.full(n * n, cost), "B", 1.0)


def bin_packing(sizes: list[float], bins: int, capacity: float) -> CanonicalModel:
    """Bin packing with identical bins: y_b opens bin b, x_ib puts item i in bin b."""
    k = len(sizes)
    y = lambda b: b  # noqa: E731
    x = lambda i, b: bins + i * bins + b  # noqa: E731
    rows = [({x(i, b): 1.0 for b in range(bins)}, 1.0, 1.0) for i in range(k)]
    rows += [({**{x(i, b): s for i, s in enumerate(sizes)}, y(b): -capacity}, -np.inf, 0.0)
             for b in range(bins)]
    obj = np.concatenate([np.ones(bins), np.zeros(k * bins)])
    return _model(f"binpacking{k}x{bins}", bins + k * bins, rows, obj, "B", 1.0)


def vertex_cover(edges: list[tuple[int, int]], n: int) -> CanonicalModel:
    """The vertex-cover LP of a graph: min sum x, x_i + x_j >= 1 per edge, 0 <= x <= 1."""
    rows = [({i: 1.0, j: 1.0}, 1.0, np.inf) for i, j in edges]
    return _model("vertex_cover", n, rows, np.ones(n), "C", 1.0)


SIX_CYCLE = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]
TWO_TRIANGLES = [(0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3)]


def symmetric_cases() -> list[tuple[str, CanonicalModel, CanonicalModel]]:
    """(name, model, near miss): highly symmetric models and a minimal change of each."""
    a8 = assignment(8)
    a8_miss = tf.change_coefficient(a8, 0, rel=1e-4)
    bp = bin_packing([4.0, 3.0, 3.0, 2.0, 2.0, 2.0, 1.0], 5, 6.0)
    lo, hi = bp.row_lower.copy(), bp.row_upper.copy()
    hi[-1] = 0.5  # one bin's row gets a different right-hand side: bins no longer identical
    bp_miss = bp.replace(row_upper=hi, row_lower=lo)
    return [
        ("assignment 8x8, equal costs", a8, a8_miss),
        ("bin packing, 7 items, 5 identical bins", bp, bp_miss),
        ("vertex cover of a 6-cycle vs two triangles", vertex_cover(SIX_CYCLE, 6),
         vertex_cover(TWO_TRIANGLES, 6)),
    ]


def random_milp(nnz: int, seed: int = 0, per_row: int = 10) -> CanonicalModel:
    """A random sparse MILP with about ``nnz`` nonzeros (30% integer, integer data)."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    m = n = max(1, nnz // per_row)
    rows = np.repeat(np.arange(m), per_row)
    cols = rng.integers(0, n, rows.size)
    vals = rng.integers(1, 100, rows.size) * rng.choice([-1.0, 1.0], rows.size)
    return CanonicalModel(
        var_names=[f"x{j}" for j in range(n)], var_types=np.where(rng.random(n) < 0.3, "I", "C"),
        lb=np.zeros(n), ub=rng.integers(5, 50, n).astype(float),
        obj=rng.integers(-20, 20, n).astype(float), A=sp.csr_matrix(
            (vals, (rows, cols)), shape=(m, n)), row_names=[f"r{i}" for i in range(m)],
        row_lower=np.full(m, -np.inf), row_upper=rng.integers(10, 1000, m).astype(float),
        name=f"random_milp_{nnz}")


def disguise(m: CanonicalModel, seed: int = 0) -> CanonicalModel:
    """A permuted, renamed copy with every row scaled by a random positive or negative factor."""
    rng = np.random.default_rng(seed)
    b = tf.scale_rows(m, _signs(rng, m.num_rows)) if m.num_rows else m
    return tf.shuffle(tf.rename(b, "d"), rng)
