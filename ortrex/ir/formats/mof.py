"""JSON form modelled on MathOptFormat (MOF 1.x): bounds and integrality as constraints.

Deviations from the MOF schema, both only where MOF has no way to say it: a row with no finite
bound is written with the string ``"-inf"``/``"inf"`` ends, and such strings are accepted wherever
a number is.
"""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.builder import ModelBuilder
from ortrex.ir.formats.errors import ModelFileError

INF = math.inf
MOF_VERSION = {"major": 1, "minor": 7}
_INF_TEXT = {"inf": INF, "+inf": INF, "infinity": INF, "-inf": -INF, "-infinity": -INF}


def _num(x: float) -> float | int | str:
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return int(x) if x == int(x) and abs(x) < 1e15 else float(x)


def _function(names: tuple[str, ...], cols: np.ndarray, vals: np.ndarray,
              quad: list[tuple[int, int, float]], constant: float = 0.0) -> dict[str, Any]:
    affine = [{"coefficient": _num(float(v)), "variable": names[c]}
              for c, v in zip(cols, vals, strict=True)]
    if not quad:
        return {"type": "ScalarAffineFunction", "terms": affine, "constant": _num(constant)}
    # MOF's quadratic terms mean 1/2 x'Qx: a diagonal entry is twice the x^2 coefficient.
    qterms = [{"coefficient": _num(2.0 * v if i == j else v), "variable_1": names[i],
               "variable_2": names[j]} for i, j, v in quad]
    return {"type": "ScalarQuadraticFunction", "affine_terms": affine, "quadratic_terms": qterms,
            "constant": _num(constant)}


def _set(lo: float, hi: float) -> dict[str, Any]:
    if lo == hi:
        return {"type": "EqualTo", "value": _num(lo)}
    if lo == -INF and hi != INF:
        return {"type": "LessThan", "upper": _num(hi)}
    if hi == INF and lo != -INF:
        return {"type": "GreaterThan", "lower": _num(lo)}
    return {"type": "Interval", "lower": _num(lo), "upper": _num(hi)}


def to_mof(model: CanonicalModel) -> dict[str, Any]:
    """The MOF-style document of ``model`` as a Python dict."""
    names = model.var_names
    qi, qj, qv = model.qobj
    nz = np.flatnonzero(model.obj)
    objective = {
        "sense": model.sense.value,
        "function": _function(names, nz, model.obj[nz],
                              list(zip(qi.tolist(), qj.tolist(), qv.tolist(), strict=True)),
                              model.obj_constant),
    }
    constraints: list[dict[str, Any]] = []
    A = model.A
    rr, ri, rj, rv = model.qrows
    starts = np.searchsorted(rr, np.arange(model.num_rows + 1))
    for r, rname in enumerate(model.row_names):
        s, e = A.indptr[r], A.indptr[r + 1]
        a, b = starts[r], starts[r + 1]
        quad = list(zip(ri[a:b].tolist(), rj[a:b].tolist(), rv[a:b].tolist(), strict=True))
        constraints.append({
            "name": rname,
            "function": _function(names, A.indices[s:e], A.data[s:e], quad),
            "set": _set(float(model.row_lower[r]), float(model.row_upper[r])),
        })
    for j, nm in enumerate(names):
        var = {"type": "Variable", "name": nm}
        t, lo, hi = model.var_types[j], float(model.lb[j]), float(model.ub[j])
        if t == "B":
            constraints.append({"function": var, "set": {"type": "ZeroOne"}})
            if (lo, hi) == (0.0, 1.0):
                continue
        elif t == "I":
            constraints.append({"function": var, "set": {"type": "Integer"}})
        elif t in ("S", "N"):  # MathOptFormat's Semicontinuous / Semiinteger sets
            constraints.append({"function": var, "set": {
                "type": "Semicontinuous" if t == "S" else "Semiinteger",
                "lower": _num(lo), "upper": _num(hi)}})
            continue
        if lo != -INF or hi != INF:
            constraints.append({"function": var, "set": _set(lo, hi)})
    doc: dict[str, Any] = {"version": dict(MOF_VERSION)}
    if model.name:
        doc["name"] = model.name
    doc["variables"] = [{"name": nm} for nm in names]
    doc["objective"] = objective
    doc["constraints"] = constraints
    return doc


def write_json(model: CanonicalModel) -> str:
    """JSON text of :func:`to_mof`."""
    return json.dumps(to_mof(model), indent=1, allow_nan=False) + "\n"


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.b = ModelBuilder(default_lb=-INF, default_ub=INF)
        self.semi: tuple[str, float, float] = ("", 0.0, INF)  # the last semi set read

    def fail(self, where: str, message: str) -> ModelFileError:
        return ModelFileError(self.path, f"{where}: {message}")

    def get(self, obj: Any, key: str, where: str) -> Any:
        if not isinstance(obj, dict):
            raise self.fail(where, "expected an object")
        if key not in obj:
            raise self.fail(where, f"missing field {key!r}")
        return obj[key]

    def number(self, value: Any, where: str) -> float:
        if isinstance(value, bool) or not isinstance(value, (int, float, str)):
            raise self.fail(where, f"expected a number, got {value!r}")
        if isinstance(value, str):
            if value.lower() not in _INF_TEXT:
                raise self.fail(where, f"expected a number, got {value!r}")
            return _INF_TEXT[value.lower()]
        v = float(value)
        if math.isnan(v):
            raise self.fail(where, "NaN")
        return v

    def coef(self, value: Any, where: str) -> float:
        v = self.number(value, where)
        if math.isinf(v):
            raise self.fail(where, "infinite coefficient")
        return v

    def var(self, name: Any, where: str) -> int:
        k = self.b.index.get(name) if isinstance(name, str) else None
        if k is None:
            raise self.fail(where, f"unknown variable {name!r}")
        return k

    def function(self, fn: Any, where: str, row: int | None) -> float:
        """Add a function's terms to the objective (row None) or a row; returns its constant."""
        kind = self.get(fn, "type", where)
        b = self.b
        if kind == "Variable":
            k = self.var(self.get(fn, "name", where), f"{where}.name")
            self._linear([(k, 1.0)], row)
            return 0.0
        if kind not in ("ScalarAffineFunction", "ScalarQuadraticFunction"):
            raise self.fail(f"{where}.type", f"unsupported function type {kind!r}")
        key = "terms" if kind == "ScalarAffineFunction" else "affine_terms"
        terms = []
        for t, term in enumerate(self.get(fn, key, where)):
            w = f"{where}.{key}[{t}]"
            terms.append((self.var(self.get(term, "variable", w), f"{w}.variable"),
                          self.coef(self.get(term, "coefficient", w), f"{w}.coefficient")))
        self._linear(terms, row)
        if kind == "ScalarQuadraticFunction":
            for t, term in enumerate(self.get(fn, "quadratic_terms", where)):
                w = f"{where}.quadratic_terms[{t}]"
                i = self.var(self.get(term, "variable_1", w), f"{w}.variable_1")
                j = self.var(self.get(term, "variable_2", w), f"{w}.variable_2")
                c = self.coef(self.get(term, "coefficient", w), f"{w}.coefficient")
                c = c / 2.0 if i == j else c
                if row is None:
                    b.qobj.append((i, j, c))
                else:
                    b.qrows.append((row, i, j, c))
        return self.coef(fn.get("constant", 0.0), f"{where}.constant")

    def _linear(self, terms: list[tuple[int, float]], row: int | None) -> None:
        b = self.b
        for k, c in terms:
            if row is None:
                b.obj[k] = b.obj.get(k, 0.0) + c
            else:
                b.a_rows.append(row)
                b.a_cols.append(k)
                b.a_vals.append(c)

    def bounds_of(self, st: Any, where: str) -> tuple[float, float] | str:
        kind = self.get(st, "type", where)
        if kind == "LessThan":
            return -INF, self.number(self.get(st, "upper", where), f"{where}.upper")
        if kind == "GreaterThan":
            return self.number(self.get(st, "lower", where), f"{where}.lower"), INF
        if kind == "EqualTo":
            v = self.number(self.get(st, "value", where), f"{where}.value")
            return v, v
        if kind == "Interval":
            return (self.number(self.get(st, "lower", where), f"{where}.lower"),
                    self.number(self.get(st, "upper", where), f"{where}.upper"))
        if kind in ("ZeroOne", "Integer"):
            return kind
        if kind in ("Semicontinuous", "Semiinteger"):
            self.semi = (kind, self.number(self.get(st, "lower", where), f"{where}.lower"),
                         self.number(self.get(st, "upper", where), f"{where}.upper"))
            return kind
        raise self.fail(f"{where}.type", f"unsupported set type {kind!r}")

    def read(self, doc: Any) -> CanonicalModel:
        b = self.b
        if not isinstance(doc, dict):
            raise self.fail("(top level)", "expected a JSON object")
        b.name = str(doc.get("name", "") or "")
        variables = self.get(doc, "variables", "(top level)")
        if not isinstance(variables, list):
            raise self.fail("variables", "expected a list")
        for k, v in enumerate(variables):
            nm = self.get(v, "name", f"variables[{k}]")
            if not isinstance(nm, str) or not nm:
                raise self.fail(f"variables[{k}].name", "expected a non-empty string")
            if nm in b.index:
                raise self.fail(f"variables[{k}].name", f"duplicate variable name {nm!r}")
            b.var(nm)
        obj = self.get(doc, "objective", "(top level)")
        sense = self.get(obj, "sense", "objective")
        if sense not in ("min", "max", "feasibility"):
            raise self.fail("objective.sense", f"expected min, max or feasibility, got {sense!r}")
        b.sense = "max" if sense == "max" else "min"
        if sense != "feasibility":
            b.constant = self.function(self.get(obj, "function", "objective"),
                                       "objective.function", None)
        cons = doc.get("constraints", [])
        if not isinstance(cons, list):
            raise self.fail("constraints", "expected a list")
        for k, con in enumerate(cons):
            where = f"constraints[{k}]"
            fn = self.get(con, "function", where)
            st = self.bounds_of(self.get(con, "set", where), f"{where}.set")
            if self.get(fn, "type", f"{where}.function") == "Variable":
                j = self.var(self.get(fn, "name", f"{where}.function"), f"{where}.function.name")
                if st == "ZeroOne":
                    b.types[j] = "B"
                elif st == "Integer":
                    b.types[j] = "I" if b.types[j] == "C" else b.types[j]
                elif st in ("Semicontinuous", "Semiinteger"):
                    _, lo, hi = self.semi
                    b.types[j] = "S" if st == "Semicontinuous" else "N"
                    b.lb[j], b.ub[j] = lo, hi
                else:
                    lo, hi = st
                    b.lb[j], b.ub[j] = max(b.lb[j], lo), min(b.ub[j], hi)
                continue
            if isinstance(st, str):
                raise self.fail(f"{where}.set", f"{st} applies to a single variable only")
            r = b.add_row(con.get("name"), -INF, INF)
            constant = self.function(fn, f"{where}.function", r)
            lo, hi = st
            b.row_lo[r], b.row_hi[r] = lo - constant, hi - constant
        for k, t in enumerate(b.types):
            if t == "B":
                b.lb[k], b.ub[k] = max(b.lb[k], 0.0), min(b.ub[k], 1.0)
        try:
            return b.build(fold_idioms=False)
        except ValueError as exc:
            raise ModelFileError(self.path, str(exc)) from None


def parse_json(text: str, path: str = "<string>") -> CanonicalModel:
    """Parse the MOF-style JSON text."""
    try:
        doc = json.loads(text, parse_constant=lambda c: _reject_constant(c, path))
    except json.JSONDecodeError as exc:
        raise ModelFileError(path, f"invalid JSON: {exc.msg} (column {exc.colno})",
                             exc.lineno) from None
    return _Reader(path).read(doc)


def _reject_constant(name: str, path: str) -> float:
    raise ModelFileError(path, f"{name} is not a number; write infinite bounds as \"inf\"")
