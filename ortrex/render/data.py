"""Instance data as people and programs read it: numbers, literals, JSON and CSV files."""

from __future__ import annotations

import csv
import io
import json
import keyword
import math
import re
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ortrex.ir.semantic import Parameter, SemanticModel


def number(v: float, integer: bool = False) -> str:
    """The shortest text that reads back as exactly ``v`` (``12``, ``3.75``, ``1e-05``)."""
    v = float(v)
    if math.isinf(v):
        return "inf" if v > 0 else "-inf"
    if integer or (v == int(v) and abs(v) < 1e15):
        return str(int(v))
    return repr(v)


def readable(v: float, digits: int = 6, tol: float = 1e-9) -> str:
    """A value as a reader wants it: solver noise gone (``45.999999`` is ``46``), at most
    ``digits`` decimals."""
    r = round(v)
    if abs(v - r) <= tol * max(1.0, abs(v)):
        return number(float(r) + 0.0)
    return number(round(v, digits) + 0.0)


def row_text(terms: Sequence[tuple[str, float]], lo: float, hi: float, more: str = "",
             rel: tuple[str, str, str] = ("<=", ">=", "="),
             fmt: Callable[[float], str] = readable) -> str:
    """A row ``lo <= sum of coef * name <= hi`` as a reader writes it (``x + 2 y - z >= 4``;
    ``more`` after the terms shown; ``rel``: the words for <=, >= and =)."""
    text = ""
    for n, (name, v) in enumerate(terms):
        coef = "" if abs(abs(v) - 1) < 1e-12 else f"{fmt(abs(float(v)))} "
        text += (("-" if v < 0 else "") + coef + name) if n == 0 else \
            f" {'-' if v < 0 else '+'} {coef}{name}"
    text += more
    le, ge, eq = rel
    if lo == hi:
        return f"{text} {eq} {fmt(lo)}"
    if math.isinf(hi):
        return f"{text} {ge} {fmt(lo)}"
    if math.isinf(lo):
        return f"{text} {le} {fmt(hi)}"
    return f"{fmt(lo)} {le} {text} {le} {fmt(hi)}"


def literal(values: Any, integer: bool = False) -> str:
    """A Python literal of a scalar or a (nested) array, numbers written by :func:`number`."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        text = number(float(arr), integer)
        return f"float({text!r})" if text in ("inf", "-inf") else text
    return "[" + ", ".join(literal(a, integer) for a in arr) + "]"


def python_name(name: str) -> str:
    """A valid Python identifier for a model name."""
    ident = re.sub(r"\W", "_", name)
    if not ident or ident[0].isdigit():
        ident = "_" + ident
    return ident + "_" if keyword.iskeyword(ident) else ident


def link_params(sm: SemanticModel) -> dict[str, str]:
    """Parameters that hold positions in a set, and that set (see ``position_params``)."""
    return sm.position_params()


def _nested(p: Parameter, sets: dict[str, tuple[str, ...]], target: str | None = None) -> Any:
    """Label-keyed nested dicts of a parameter (a scalar stays a number; a position parameter
    holds the element labels of ``target``)."""
    def build(arr: np.ndarray, depth: int) -> Any:
        if depth == len(p.index):
            v = float(arr)
            if target is not None:
                return sets[target][int(v)]
            return int(v) if (p.integer or v == int(v)) and math.isfinite(v) else v
        return {e: build(arr[k], depth + 1) for k, e in enumerate(sets[p.index[depth]])}
    return build(np.asarray(p.values, dtype=float), 0)


def data_json(sm: SemanticModel) -> dict[str, Any]:
    """The instance data as ``{"sets": {name: [labels]}, "parameters": {name: nested}}``."""
    sets = {s.name: s.elements for s in sm.sets}
    links = link_params(sm)
    return {"sets": {s.name: list(s.elements) for s in sm.sets},
            "parameters": {p.name: _nested(p, sets, links.get(p.name)) for p in sm.params}}


def dumps_json(obj: Any) -> str:
    """JSON text as stored and shown (indented, keys in model order)."""
    return json.dumps(obj, indent=2) + "\n"


def parameter_csv(p: Parameter, sm: SemanticModel) -> str:
    """One indexed parameter in long form: a column per index (named by its entity), then
    the value column (named by the parameter)."""
    sets = sm.set_map
    header = _csv_columns(p, sm)
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(header)
    arr = np.asarray(p.values, dtype=float)
    target = link_params(sm).get(p.name)
    for pos in np.ndindex(arr.shape):
        labels = [sets[s].elements[k] for s, k in zip(p.index, pos, strict=True)]
        value = sets[target].elements[int(arr[pos])] if target else number(arr[pos], p.integer)
        w.writerow([*labels, value])
    return buf.getvalue()


def _csv_columns(p: Parameter, sm: SemanticModel) -> list[str]:
    sets = sm.set_map
    cols: list[str] = []
    for s in p.index:
        base = (sets[s].entity or s).replace(" ", "_")
        name = base
        k = 2
        while name in cols:  # cov(A, A): asset, asset_2
            name = f"{base}_{k}"
            k += 1
        cols.append(name)
    return [*cols, p.name]


def csv_files(sm: SemanticModel) -> dict[str, str]:
    """``<parameter>.csv`` for every indexed parameter."""
    return {f"{p.name}.csv": parameter_csv(p, sm) for p in sm.params if p.index}


def csv_columns(p: Parameter, sm: SemanticModel) -> list[str]:
    """Column names of :func:`parameter_csv` (for the statement's schema description)."""
    return _csv_columns(p, sm)
