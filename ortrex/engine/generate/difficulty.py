"""Computed difficulty: model structure plus solve effort, banded easy / medium / hard."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ortrex.ir.canonical import CanonicalModel

BANDS = ((55.0, "easy"), (95.0, "medium"), (math.inf, "hard"))


@dataclass(frozen=True)
class Difficulty:
    """Score (higher is harder), its band and the parts it was computed from."""

    score: float
    band: str
    big_m_rows: int
    structure: float
    effort: float


def big_m_rows(model: CanonicalModel) -> int:
    """Rows where an integer variable's coefficient dwarfs the rest of the row (>= 10x the
    largest other coefficient, and >= 10)."""
    A = model.A
    if not A.nnz:
        return 0
    rows = np.repeat(np.arange(model.num_rows), np.diff(A.indptr))
    mag = np.abs(A.data)
    is_int = model.integral[A.indices]
    has = np.diff(A.indptr) >= 2
    big = np.zeros(model.num_rows)
    np.maximum.at(big, rows[is_int], mag[is_int])
    # Largest coefficient of each row other than its largest integer one.
    is_top = is_int & (mag == big[rows])
    first_top = np.zeros(model.num_rows, dtype=bool)
    rest = np.zeros(model.num_rows)
    order = np.flatnonzero(is_top)
    keep = np.ones(A.nnz, dtype=bool)
    if order.size:
        _, first = np.unique(rows[order], return_index=True)
        keep[order[first]] = False
        first_top[rows[order[first]]] = True
    np.maximum.at(rest, rows[keep], mag[keep])
    return int(np.count_nonzero(has & first_top & (big >= 10) & (big >= 10 * rest)))


def difficulty(model: CanonicalModel, nodes: int = 0, iterations: int = 0) -> Difficulty:
    """OptMATH-style weighted counts (binary 2, integer 3, continuous 1, rows 1, nonzeros
    0.05, big-M rows 5, quadratic terms 2) on a log scale, plus search effort: HiGHS's
    branch-and-bound nodes and simplex iterations (counts, not seconds: a score must not
    depend on how loaded the machine was, or the same instance lands in another band on a
    busy machine, a cluster or a rerun)."""
    s = model.stats()
    n_cont = s.n_vars - s.n_int - s.n_bin
    m = big_m_rows(model) if model.is_mip else 0
    q_terms = int(model.qobj[0].size + model.qrows[0].size)
    structure = (n_cont + 2 * s.n_bin + 3 * s.n_int + s.n_rows + 0.05 * s.nnz + 5 * m
                 + 2 * q_terms)
    effort = 8 * math.log10(1 + max(0, nodes)) + 12 * math.log10(1 + max(0, iterations))
    score = round(10 * math.log2(1 + structure) + effort, 3)
    band = next(name for limit, name in BANDS if score < limit)
    return Difficulty(score, band, m, structure, effort)
