"""Per-item view of a model (variables, rows, objective) and the shared vocabularies."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum

INF = math.inf

TermsLike = Mapping[str, float] | Iterable[tuple[str, float]]
QuadLike = Mapping[tuple[str, str], float] | Iterable[tuple[str, str, float]]


class VarType(StrEnum):
    """Variable domain."""

    CONTINUOUS = "C"
    INTEGER = "I"
    BINARY = "B"
    SEMI_CONTINUOUS = "S"  # 0, or a value in [lb, ub]
    SEMI_INTEGER = "N"  # 0, or an integer in [lb, ub]


class ObjSense(StrEnum):
    """Objective direction."""

    MIN = "min"
    MAX = "max"


@dataclass(frozen=True)
class Variable:
    """One decision variable of the per-item API."""

    name: str
    vtype: VarType | str = VarType.CONTINUOUS
    lb: float = 0.0
    ub: float = INF

    def __post_init__(self) -> None:
        if str(self.vtype) == "B" and self.ub == INF:
            object.__setattr__(self, "ub", 1.0)  # a binary's default upper bound is 1


@dataclass(frozen=True)
class Constraint:
    """One row ``lower <= terms + quad <= upper`` of the per-item API."""

    name: str
    terms: TermsLike = ()
    lower: float = -INF
    upper: float = INF
    quad: QuadLike = ()

    @classmethod
    def from_sense(
        cls, name: str, terms: TermsLike, sense: str, rhs: float, quad: QuadLike = ()
    ) -> Constraint:
        """Build a row from a sense (``<=``, ``>=``, ``=``) and a right-hand side."""
        lo, hi = sense_bounds(sense, rhs)
        return cls(name, terms, lo, hi, quad)

    @property
    def sense(self) -> str:
        """``<=``, ``>=``, ``=``, ``range`` or ``free``."""
        return row_sense(self.lower, self.upper)


@dataclass(frozen=True)
class Objective:
    """Objective of the per-item API: sense, linear terms, quadratic terms, constant."""

    sense: ObjSense | str = ObjSense.MIN
    terms: TermsLike = ()
    constant: float = 0.0
    quad: QuadLike = ()


@dataclass(frozen=True)
class ModelStats:
    """Size figures of a model."""

    n_vars: int
    n_rows: int
    nnz: int
    n_int: int
    n_bin: int
    n_qobj: int
    n_qrows: int
    problem_class: str


def sense_bounds(sense: str, rhs: float) -> tuple[float, float]:
    """Row bounds (lower, upper) of ``expr <sense> rhs``."""
    s = sense.strip()
    if s in ("<=", "<", "=<", "L"):
        return -INF, float(rhs)
    if s in (">=", ">", "=>", "G"):
        return float(rhs), INF
    if s in ("=", "==", "E"):
        return float(rhs), float(rhs)
    raise ValueError(f"unknown constraint sense {sense!r}")


def row_sense(lower: float, upper: float) -> str:
    """Sense of a row with bounds (lower, upper)."""
    if lower == upper:
        return "="
    if lower == -INF:
        return "free" if upper == INF else "<="
    return ">=" if upper == INF else "range"
