"""CanonicalModel: the solver-level instance with sparse storage, validation and fingerprints."""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING, NamedTuple

import numpy as np

from ortrex.ir import serialization
from ortrex.ir.items import (
    Constraint,
    ModelStats,
    Objective,
    ObjSense,
    QuadLike,
    TermsLike,
    Variable,
    VarType,
    row_sense,
    sense_bounds,
)
from ortrex.ir.lazy import lazy

if TYPE_CHECKING:
    import scipy.sparse as sp

    from ortrex.ir.normalize import NormalizedModel

__all__ = ["CSR", "CanonicalModel", "Constraint", "ModelStats", "ObjSense", "Objective", "VarType",
           "Variable", "row_sense", "sense_bounds"]

INF = math.inf


def _float_array(values: object, n: int, default: float, what: str) -> np.ndarray:
    if values is None:
        return np.full(n, default, dtype=np.float64)
    arr = np.array(values, dtype=np.float64).reshape(-1)
    if arr.shape[0] != n:
        raise ValueError(f"{what}: expected {n} values, got {arr.shape[0]}")
    return arr + 0.0  # folds -0.0 into +0.0 so equal models serialize identically


class _Names(tuple):  # type: ignore[type-arg]
    """A tuple of names already checked (reused as is by derived models)."""

    __slots__ = ()


class _Canon(tuple):  # type: ignore[type-arg]
    """Quadratic term arrays already in canonical form."""

    __slots__ = ()


def _no_terms(*dtypes: type) -> _Canon:
    arrays = tuple(np.zeros(0, dtype=d) for d in dtypes)
    for arr in arrays:
        arr.flags.writeable = False
    return _Canon(arrays)


# No quadratic terms (what _canon_quad makes of none), shared by the models that have none.
_NO_QOBJ = _no_terms(np.int64, np.int64, np.float64)
_NO_QROWS = _no_terms(np.int64, np.int64, np.int64, np.float64)


def _check_names(names: Sequence[str], what: str) -> tuple[str, ...]:
    if isinstance(names, _Names):
        return names
    out = _Names(names)
    try:  # one pass in C for the usual case; the loop below names the culprit otherwise
        joined = "\x01".join(out)
        fine = "\x00" not in joined and "\n" not in joined and min(map(len, out), default=1) > 0
    except TypeError:
        fine = False
    for nm in () if fine else out:
        if not isinstance(nm, str) or not nm:
            raise ValueError(f"{what} name {nm!r} must be a non-empty string")
        if "\x00" in nm or "\n" in nm:
            raise ValueError(f"{what} name {nm!r} contains a NUL or newline character")
    if len(set(out)) != len(out):
        seen: set[str] = set()
        for nm in out:
            if nm in seen:
                raise ValueError(f"duplicate {what} name {nm!r}")
            seen.add(nm)
    return out


def checked_names(names: Sequence[str]) -> tuple[str, ...]:
    """``names`` marked as already checked (non-empty, unique, no NUL or newline): for readers
    whose names are so by construction; the model then skips checking them again."""
    return _Names(names)


def _canon_quad(
    rows: object, i: object, j: object, v: object
) -> tuple[np.ndarray, ...]:
    """Order each pair (i <= j), sum duplicates, drop zeros, sort lexicographically."""
    if isinstance(i, np.ndarray) and isinstance(v, np.ndarray) and not i.size and not v.size:
        z = np.zeros(0, dtype=np.int64)
        return z, z.copy(), z.copy(), np.zeros(0)
    i = np.array(i, dtype=np.int64).reshape(-1)
    j = np.array(j, dtype=np.int64).reshape(-1)
    v = np.array(v, dtype=np.float64).reshape(-1)
    r = np.zeros_like(i) if rows is None else np.array(rows, dtype=np.int64).reshape(-1)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    if lo.size:
        order = np.lexsort((hi, lo, r))
        r, lo, hi, v = r[order], lo[order], hi[order], v[order]
        new = np.ones(lo.size, dtype=bool)
        new[1:] = (r[1:] != r[:-1]) | (lo[1:] != lo[:-1]) | (hi[1:] != hi[:-1])
        starts = np.flatnonzero(new)
        v = np.add.reduceat(v, starts)
        r, lo, hi = r[starts], lo[starts], hi[starts]
        keep = v != 0.0
        r, lo, hi, v = r[keep], lo[keep], hi[keep], v[keep] + 0.0
    return r, lo, hi, v


class CSR(NamedTuple):
    """A constraint matrix in canonical compressed-row form (column indices sorted within
    rows, no repeated entries, no zeros): the model keeps these arrays and makes its scipy
    matrix only when asked (scipy costs ~0.2 s to import, which a command that only reads and
    compares models need not pay)."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    shape: tuple[int, int]


def _index_dtype(*sizes: int) -> type:
    return np.int32 if max(sizes, default=0) < 2**31 else np.int64


def canonical_csr(rows: np.ndarray, cols: np.ndarray, vals: np.ndarray,
                  shape: tuple[int, int]) -> CSR:
    """A matrix from COO triples in canonical form (sorted, duplicates summed in the order
    given, no zeros), built with numpy alone."""
    rows = np.asarray(rows, dtype=np.int64)
    cols = np.asarray(cols, dtype=np.int64)
    vals = np.asarray(vals, dtype=np.float64)
    m, n = shape
    if rows.size and (rows.min() < 0 or rows.max() >= m or cols.min() < 0 or cols.max() >= n):
        raise ValueError("matrix entry out of range")
    key = rows * n + cols
    order = np.argsort(key, kind="stable")
    key, vals = key[order], vals[order]
    if key.size:
        new = key[1:] != key[:-1]
        if not new.all():  # repeated entries are summed, in the order given
            starts = np.concatenate([[0], new.nonzero()[0] + 1])
            vals, key = np.add.reduceat(vals, starts), key[starts]
        if not vals.all():  # zeros are dropped
            nz = vals != 0.0
            vals, key = vals[nz], key[nz]
        vals = vals + 0.0
    r = key // n if n else key
    indptr = np.zeros(m + 1, dtype=_index_dtype(m, n, key.size))
    np.cumsum(np.bincount(r, minlength=m), out=indptr[1:])
    return CSR(indptr, (key % n if n else key).astype(indptr.dtype), vals, (m, n))


def _csr_by_constructor(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                        shape: tuple[int, int]) -> sp.csr_matrix:
    import scipy.sparse as sp

    A = sp.csr_matrix((data, indices, indptr), shape=shape)
    A.has_canonical_format = True
    return A


def _csr_direct(data: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
                shape: tuple[int, int]) -> sp.csr_matrix:
    # scipy's constructor checks and converts what a CSR already guarantees; at ~20 us it
    # costs more than the rest of a small model's assembly.
    import scipy.sparse as sp

    A = sp.csr_matrix.__new__(sp.csr_matrix)
    A.__dict__.update(maxprint=_csr_maxprint(), _shape=shape, data=data, indices=indices,
                      indptr=indptr, _has_canonical_format=True, _has_sorted_indices=True)
    return A


@lru_cache(maxsize=1)
def _csr_maxprint() -> int:
    import scipy.sparse as sp

    return int(getattr(sp.csr_matrix((1, 1)), "maxprint", 50))


@lru_cache(maxsize=1)
def _csr_builder() -> Callable[..., sp.csr_matrix]:
    """The direct builder if it makes exactly what scipy's constructor makes (checked once, on
    the installed scipy), else the constructor."""
    args = (np.array([1.0, 2.0]), np.array([1, 0], dtype=np.int32),
            np.array([0, 1, 2], dtype=np.int32), (2, 2))
    ref = _csr_by_constructor(*args)
    try:
        got = _csr_direct(*args)
        same = (sorted(vars(got)) == sorted(vars(ref)) and got.shape == ref.shape
                and (got != ref).nnz == 0 and got.has_canonical_format)
    except Exception:  # any surprise means: use the constructor
        same = False
    return _csr_direct if same else _csr_by_constructor


def to_scipy(csr: CSR) -> sp.csr_matrix:
    """The scipy matrix of a canonical CSR (sharing its arrays)."""
    A = _csr_builder()(csr.data, csr.indices, csr.indptr, csr.shape)
    A._ortrex_canonical = True  # type: ignore[attr-defined]
    return A


def _as_csr(A: object, m: int, n: int) -> tuple[CSR, bool]:
    """(a CSR of ``A``, whether it is canonical already)."""
    if A is None:
        return CSR(np.zeros(m + 1, dtype=np.int32), np.zeros(0, dtype=np.int32), np.zeros(0),
                   (m, n)), True
    if isinstance(A, CSR):
        return A, True
    if getattr(A, "_ortrex_canonical", False):  # an already canonical (and frozen) matrix
        return CSR(A.indptr, A.indices, A.data, A.shape), True  # type: ignore[attr-defined]
    import scipy.sparse as sp

    M = sp.csr_matrix(A, dtype=np.float64, copy=True)
    return CSR(M.indptr, M.indices, M.data, M.shape), False


def _canonicalise(csr: CSR) -> CSR:
    import scipy.sparse as sp

    M = sp.csr_matrix((csr.data, csr.indices, csr.indptr), shape=csr.shape)
    M.sum_duplicates()
    M.sort_indices()
    M.eliminate_zeros()
    return CSR(M.indptr, M.indices, M.data + 0.0, M.shape)


TYPES = ("C", "I", "B", "S", "N")
INTEGRAL = ("I", "B", "N")
SEMI = ("S", "N")
# Which character codes are types (a lookup: np.isin costs ~12 us even on tiny arrays).
_TYPE_CODES = np.zeros(128, dtype=bool)
_TYPE_CODES[[ord(t) for t in TYPES]] = True
_INTEGRAL_CODES = np.zeros(128, dtype=bool)
_INTEGRAL_CODES[[ord(t) for t in INTEGRAL]] = True
_SEMI_CODES = np.zeros(128, dtype=bool)
_SEMI_CODES[[ord(t) for t in SEMI]] = True
_BINARY_CODE = ord("B")


class CanonicalModel:
    """A mathematical optimization instance as a solver sees it.

    Variables carry a name, a type (C / I / B, or S / N: semi-continuous and semi-integer, whose
    value is 0 or lies in [lb, ub], as HiGHS and Gurobi define them) and bounds; the objective
    has a sense, linear
    coefficients, quadratic terms ``v * x_i * x_j`` (i <= j) and a constant; each row is
    ``row_lower <= A x + quadratic terms <= row_upper`` (equal ends: an equality; one infinite end:
    an inequality; both finite: a ranged row). Arrays are read-only after construction.
    """

    __slots__ = (
        "__dict__",
        "__weakref__",  # caches kept on a model refer back to it weakly (no cycle to collect)
        "csr",
        "lb",
        "name",
        "obj",
        "obj_constant",
        "qobj",
        "qrows",
        "row_lower",
        "row_names",
        "row_upper",
        "sense",
        "ub",
        "var_names",
        "var_types",
    )

    def __init__(
        self,
        *,
        var_names: Sequence[str],
        var_types: Sequence[str] | np.ndarray | str | None = None,
        lb: object = None,
        ub: object = None,
        obj: object = None,
        obj_constant: float = 0.0,
        sense: ObjSense | str = ObjSense.MIN,
        A: sp.spmatrix | sp.sparray | CSR | None = None,
        row_names: Sequence[str] | None = None,
        row_lower: object = None,
        row_upper: object = None,
        qobj: tuple[object, object, object] | None = None,
        qrows: tuple[object, object, object, object] | None = None,
        name: str = "",
        _validate: bool = True,
    ) -> None:
        self.var_names = _check_names(var_names, "variable")
        n = len(self.var_names)
        if var_types is None:
            types = np.full(n, "C", dtype="<U1")
        else:
            types = np.array(list(var_types), dtype="<U1").reshape(-1)
            if types.shape[0] != n:
                raise ValueError(f"var_types: expected {n} values, got {types.shape[0]}")
            codes = types.view(np.uint32)
            bad = ~_TYPE_CODES[np.minimum(codes, _TYPE_CODES.size - 1)]
            if bad.any():
                k = int(np.flatnonzero(bad)[0])
                raise ValueError(f"variable {self.var_names[k]!r}: unknown type {str(types[k])!r}")
        self.var_types = types
        self.lb = _float_array(lb, n, 0.0, "lb")
        self.ub = _float_array(ub, n, INF, "ub")
        if ub is None:
            self.ub[types == "B"] = 1.0
        self.obj = _float_array(obj, n, 0.0, "obj")
        self.obj_constant = float(obj_constant) + 0.0
        try:
            self.sense = ObjSense(str(sense).lower())
        except ValueError:
            raise ValueError(f"unknown objective sense {sense!r}") from None

        csr, canonical = _as_csr(A, 0 if row_names is None else len(row_names), n)
        m = csr.shape[0]
        if csr.shape[1] != n:
            raise ValueError(f"A has {csr.shape[1]} columns but there are {n} variables")
        if row_names is None:
            row_names = [f"R{k}" for k in range(m)]
        self.row_names = _check_names(row_names, "constraint")
        if len(self.row_names) != m:
            raise ValueError(f"A has {m} rows but {len(self.row_names)} constraint names")
        if not canonical:
            csr = _canonicalise(csr)
        self.csr = csr
        self.row_lower = _float_array(row_lower, m, -INF, "row_lower")
        self.row_upper = _float_array(row_upper, m, INF, "row_upper")

        if isinstance(qobj, _Canon):
            self.qobj = qobj
        else:
            qi, qj, qv = qobj if qobj is not None else ((), (), ())
            _, qi, qj, qv = _canon_quad(None, qi, qj, qv)
            self.qobj = _Canon((qi, qj, qv))
        if isinstance(qrows, _Canon):
            self.qrows = qrows
        else:
            rr, ri, rj, rv = qrows if qrows is not None else ((), (), (), ())
            self.qrows = _Canon(_canon_quad(rr, ri, rj, rv))
        self.name = str(name)
        if _validate:
            self._validate()
        for arr in (self.var_types, self.lb, self.ub, self.obj, self.row_lower, self.row_upper,
                    csr.data, csr.indices, csr.indptr, *self.qobj, *self.qrows):
            arr.flags.writeable = False

    @classmethod
    def trusted(cls, *, var_names: Sequence[str], var_types: np.ndarray, lb: np.ndarray,
                ub: np.ndarray, obj: np.ndarray, sense: str, csr: CSR, row_names: Sequence[str],
                row_lower: np.ndarray, row_upper: np.ndarray, name: str) -> CanonicalModel:
        """A linear model from arrays a reader has already made canonical and checked as the
        constructor checks them (the compiled LP scanner: float64 arrays with -0.0 folded,
        "<U1" types, a canonical CSR, unique names): no copy and no second validation, which
        on small models cost more than the reading."""
        self = cls.__new__(cls)
        self.var_names = checked_names(var_names)
        self.row_names = checked_names(row_names)
        self.var_types, self.lb, self.ub, self.obj = var_types, lb, ub, obj
        self.obj_constant = 0.0
        self.sense = ObjSense.MAX if sense == "max" else ObjSense.MIN
        self.csr = csr
        self.row_lower, self.row_upper = row_lower, row_upper
        self.qobj, self.qrows = _NO_QOBJ, _NO_QROWS
        self.name = name
        for arr in (var_types, lb, ub, obj, row_lower, row_upper, csr.data, csr.indices,
                    csr.indptr):
            arr.flags.writeable = False
        return self

    @property
    def A(self) -> sp.csr_matrix:
        """The constraint matrix as a scipy CSR matrix, made on first use (read-only)."""
        a = self.__dict__.get("_A")
        if a is None:
            a = self.__dict__["_A"] = to_scipy(self.csr)
        return a

    # ------------------------------------------------------------------ validation
    def _validate(self) -> None:
        # One pass over the usual case (comparisons with NaN are false, so NaN fails too);
        # _explain names the culprit when it fails.
        lower = np.concatenate([self.lb, self.row_lower])
        upper = np.concatenate([self.ub, self.row_upper])
        fine = (math.isfinite(self.obj_constant)
                and bool(((lower <= upper) & (lower < INF) & (upper > -INF)).all())
                and bool(np.isfinite(np.concatenate([self.obj, self.csr.data])).all()))
        if fine:
            binary = self.var_types.view(np.uint32) == _BINARY_CODE
            if binary.any():
                fine = bool(((self.lb[binary] >= 0) & (self.ub[binary] <= 1)).all())
        if not fine:
            self._explain()
        self._check_quad(*self.qobj, "objective")
        rr, ri, rj, rv = self.qrows
        if rr.size and (rr.min() < 0 or rr.max() >= len(self.row_names)):
            raise ValueError("quadratic row index out of range")
        self._check_quad(ri, rj, rv, "constraint", rr)

    def _explain(self) -> None:
        """Raise the ``ValueError`` that names what is wrong with the bounds or numbers."""
        names, rows = self.var_names, self.row_names
        lb, ub = self.lb, self.ub
        for arr, what in ((lb, "lb"), (ub, "ub"), (self.obj, "objective coefficient")):
            bad = np.isnan(arr)
            if bad.any():
                raise ValueError(f"variable {names[int(np.flatnonzero(bad)[0])]!r}: {what} is NaN")
        bad = np.isinf(self.obj)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"variable {names[k]!r}: objective coefficient is infinite")
        if not math.isfinite(self.obj_constant):
            raise ValueError(f"objective constant {self.obj_constant} is not finite")
        bad = (lb == INF) | (ub == -INF) | (lb > ub)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"variable {names[k]!r}: lb {lb[k]} > ub {ub[k]}")
        binary = self.var_types == "B"
        bad = binary & ((lb < 0) | (ub > 1))
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"variable {names[k]!r}: binary with bounds [{lb[k]}, {ub[k]}] outside [0, 1]"
            )
        A = self.csr
        bad = ~np.isfinite(A.data)
        if bad.any():
            p = int(np.flatnonzero(bad)[0])
            r = int(np.searchsorted(A.indptr, p, side="right") - 1)
            what = "NaN" if np.isnan(A.data[p]) else "infinite"
            raise ValueError(
                f"constraint {rows[r]!r}: coefficient of {names[A.indices[p]]!r} is {what}"
            )
        lo, hi = self.row_lower, self.row_upper
        for arr, what in ((lo, "lower bound"), (hi, "upper bound")):
            bad = np.isnan(arr)
            if bad.any():
                raise ValueError(f"constraint {rows[int(np.flatnonzero(bad)[0])]!r}: {what} is NaN")
        bad = (lo == INF) | (hi == -INF) | (lo > hi)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise ValueError(f"constraint {rows[k]!r}: lower {lo[k]} > upper {hi[k]}")

    def _check_quad(
        self, i: np.ndarray, j: np.ndarray, v: np.ndarray, where: str,
        rows: np.ndarray | None = None,
    ) -> None:
        if not i.size:
            return
        n = len(self.var_names)
        if i.min() < 0 or j.max() >= n:
            raise ValueError(f"{where}: quadratic term refers to a variable index out of range")
        bad = ~np.isfinite(v)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            label = where if rows is None else f"constraint {self.row_names[rows[k]]!r}"
            raise ValueError(
                f"{label}: quadratic coefficient of {self.var_names[i[k]]!r}*"
                f"{self.var_names[j[k]]!r} is not finite"
            )

    # ------------------------------------------------------------------ per-item construction
    @classmethod
    def from_items(
        cls,
        variables: Iterable[Variable | str],
        objective: Objective | None = None,
        constraints: Iterable[Constraint] = (),
        name: str = "",
    ) -> CanonicalModel:
        """Build a model from per-item records; names are resolved and checked."""
        vars_ = [v if isinstance(v, Variable) else Variable(v) for v in variables]
        names = _check_names([v.name for v in vars_], "variable")
        index = {nm: k for k, nm in enumerate(names)}

        def col(nm: str, where: str) -> int:
            try:
                return index[nm]
            except KeyError:
                raise ValueError(f"{where}: unknown variable {nm!r}") from None

        def pairs(terms: TermsLike) -> Iterable[tuple[str, float]]:
            return terms.items() if isinstance(terms, Mapping) else terms

        def triples(quad: QuadLike) -> Iterable[tuple[str, str, float]]:
            if isinstance(quad, Mapping):
                return ((a, b, c) for (a, b), c in quad.items())
            return quad

        objective = objective or Objective()
        obj = np.zeros(len(names))
        for nm, c in pairs(objective.terms):
            obj[col(nm, "objective")] += float(c)
        q = [(col(a, "objective"), col(b, "objective"), float(c))
             for a, b, c in triples(objective.quad)]
        rows, cols, vals, lo, hi, rnames = [], [], [], [], [], []
        qr: list[tuple[int, int, int, float]] = []
        for r, con in enumerate(constraints):
            where = f"constraint {con.name!r}"
            for nm, c in pairs(con.terms):
                rows.append(r)
                cols.append(col(nm, where))
                vals.append(float(c))
            qr.extend((r, col(a, where), col(b, where), float(c)) for a, b, c in triples(con.quad))
            lo.append(con.lower)
            hi.append(con.upper)
            rnames.append(con.name)
        import scipy.sparse as sp

        A = sp.csr_matrix((vals, (rows, cols)), shape=(len(rnames), len(names)), dtype=np.float64)
        qa = np.array(q, dtype=np.float64).reshape(-1, 3)
        qra = np.array(qr, dtype=np.float64).reshape(-1, 4)
        return cls(
            var_names=names,
            var_types=[str(VarType(v.vtype)) for v in vars_],
            lb=[v.lb for v in vars_],
            ub=[v.ub for v in vars_],
            obj=obj,
            obj_constant=objective.constant,
            sense=objective.sense,
            A=A,
            row_names=rnames,
            row_lower=lo,
            row_upper=hi,
            qobj=(qa[:, 0].astype(np.int64), qa[:, 1].astype(np.int64), qa[:, 2]),
            qrows=(qra[:, 0].astype(np.int64), qra[:, 1].astype(np.int64),
                   qra[:, 2].astype(np.int64), qra[:, 3]),
            name=name,
        )

    def replace(self, validate: bool = True, **changes: object) -> CanonicalModel:
        """A copy with some constructor fields changed (validated again unless the caller
        guarantees validity with ``validate=False``, as derived models in hot loops do)."""
        fields = {
            "var_names": self.var_names,
            "var_types": self.var_types,
            "lb": self.lb,
            "ub": self.ub,
            "obj": self.obj,
            "obj_constant": self.obj_constant,
            "sense": self.sense,
            "A": self.csr,
            "row_names": self.row_names,
            "row_lower": self.row_lower,
            "row_upper": self.row_upper,
            "qobj": self.qobj,
            "qrows": self.qrows,
            "name": self.name,
        }
        unknown = set(changes) - set(fields)
        if unknown:
            raise TypeError(f"unknown field(s): {sorted(unknown)}")
        fields.update(changes)
        return CanonicalModel(**fields, _validate=validate)  # type: ignore[arg-type]

    # ------------------------------------------------------------------ views
    @property
    def num_vars(self) -> int:
        """Number of variables."""
        return len(self.var_names)

    @property
    def num_rows(self) -> int:
        """Number of constraints (linear and quadratic)."""
        return len(self.row_names)

    @property
    def nnz(self) -> int:
        """Number of linear constraint coefficients."""
        return int(self.csr.data.size)

    @cached_property
    def row_senses(self) -> tuple[str, ...]:
        """Sense of each row: ``<=``, ``>=``, ``=``, ``range`` or ``free``."""
        return tuple(row_sense(a, b) for a, b in zip(self.row_lower, self.row_upper, strict=True))

    @cached_property
    def is_mip(self) -> bool:
        """Whether any variable is integer, binary, semi-continuous or semi-integer."""
        return bool((self.var_types != "C").any())

    @lazy
    def integral(self) -> np.ndarray:
        """Which variables must take integer values (I, B, N)."""
        return _INTEGRAL_CODES[self.var_types.view(np.uint32)]

    @cached_property
    def semi(self) -> np.ndarray:
        """Which variables are semi-continuous or semi-integer (S, N): 0 or in [lb, ub]."""
        return _SEMI_CODES[self.var_types.view(np.uint32)]

    @cached_property
    def has_quadratic_rows(self) -> bool:
        """Whether any constraint has quadratic terms."""
        return bool(self.qrows[0].size)

    @cached_property
    def has_quadratic_objective(self) -> bool:
        """Whether the objective has quadratic terms."""
        return bool(self.qobj[0].size)

    def stats(self) -> ModelStats:
        """Size figures and problem class (LP, MILP, QP, MIQP, QCP, MIQCP)."""
        mi = "MI" if self.is_mip else ""
        if self.has_quadratic_rows:
            cls = f"{mi}QCP"
        elif self.has_quadratic_objective:
            cls = f"{mi}QP"
        else:
            cls = "MILP" if self.is_mip else "LP"
        return ModelStats(
            n_vars=self.num_vars,
            n_rows=self.num_rows,
            nnz=self.nnz,
            n_int=int(np.isin(self.var_types, ("I", "N")).sum()),
            n_bin=int((self.var_types == "B").sum()),
            n_qobj=int(self.qobj[0].size),
            n_qrows=int(np.unique(self.qrows[0]).size),
            problem_class=cls,
        )

    def variables(self) -> Iterator[Variable]:
        """Per-item view of the variables."""
        for k, nm in enumerate(self.var_names):
            yield Variable(nm, VarType(self.var_types[k]), float(self.lb[k]), float(self.ub[k]))

    def constraints(self) -> Iterator[Constraint]:
        """Per-item view of the rows (terms as name -> coefficient)."""
        A, names = self.csr, self.var_names
        rr, ri, rj, rv = self.qrows
        qstart = np.searchsorted(rr, np.arange(self.num_rows + 1))
        for r, nm in enumerate(self.row_names):
            s, e = A.indptr[r], A.indptr[r + 1]
            terms = {names[c]: float(v) for c, v in zip(A.indices[s:e], A.data[s:e], strict=True)}
            a, b = qstart[r], qstart[r + 1]
            quad = {(names[i], names[j]): float(v)
                    for i, j, v in zip(ri[a:b], rj[a:b], rv[a:b], strict=True)}
            yield Constraint(nm, terms, float(self.row_lower[r]), float(self.row_upper[r]), quad)

    def objective(self) -> Objective:
        """Per-item view of the objective."""
        names = self.var_names
        terms = {names[k]: float(self.obj[k]) for k in np.flatnonzero(self.obj)}
        qi, qj, qv = self.qobj
        quad = {(names[i], names[j]): float(v) for i, j, v in zip(qi, qj, qv, strict=True)}
        return Objective(self.sense, terms, self.obj_constant, quad)

    # ------------------------------------------------------------------ identity
    def to_bytes(self) -> bytes:
        """Canonical binary serialization (content bytes, then the model name)."""
        return serialization.to_bytes(self)

    @classmethod
    def from_bytes(cls, data: bytes) -> CanonicalModel:
        """Inverse of :meth:`to_bytes`."""
        return serialization.from_bytes(data)

    @cached_property
    def content_hash(self) -> str:
        """sha256 of the canonical serialization (names and order included; model name not)."""
        return hashlib.sha256(serialization.core_bytes(self)).hexdigest()

    @lazy
    def normal_form(self) -> NormalizedModel:
        """The normal form (:func:`ortrex.ir.normalize.normalize`), computed once per model:
        the equivalence checker compares one model with many."""
        from ortrex.ir.normalize import normalize

        return normalize(self)

    @cached_property
    def _fingerprints(self) -> tuple[str, str]:
        from ortrex.ir.fingerprint import fingerprints

        return fingerprints(self)

    @property
    def structural_fingerprint(self) -> str:
        """Hash invariant under renaming, permutation, row scaling, min/max and bound rows."""
        return self._fingerprints[0]

    @property
    def formulation_fingerprint(self) -> str:
        """Structural fingerprint with numeric values dropped: same model, different data."""
        return self._fingerprints[1]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, CanonicalModel):
            return NotImplemented
        return self.content_hash == other.content_hash

    def __hash__(self) -> int:
        return hash(self.content_hash)

    def __repr__(self) -> str:
        s = self.stats()
        label = f" {self.name!r}" if self.name else ""
        return (f"<CanonicalModel{label} {s.problem_class} {self.sense.value}: {s.n_vars} vars, "
                f"{s.n_rows} rows, {s.nnz} nonzeros>")

