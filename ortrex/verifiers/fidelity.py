"""Rendering fidelity: read a statement back and compare what a reader sees with the instance.

* No leftover template placeholder (``{name}``, ``None``, ``nan``, ``TODO``).
* DP / DT: every element name appears; every parameter value appears as often as the data
  holds it; no stray number (one that is neither data, a set size, a constant bound, nor part
  of the model's own wording). DP: each value of a one-index parameter sits next to its
  element name; a matrix is told entry by entry or pasted as a table. DT: every parameter
  is found cell by cell in a markdown table.
* DPS: every named file exists and every file is named; ``data.json`` and each CSV parse and
  hold exactly the instance data; the prose restates no data.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ortrex.ir.expr import Const
from ortrex.ir.semantic import Parameter, SemanticModel

_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}|\bNone\b|\bnan\b|\bTODO\b|<[a-z_]+>")
# A number standing alone: not part of a name such as W1 or x_3, thousands commas allowed.
_NUMBER = re.compile(
    r"(?<![\w.])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?![\w])(?!\.\d)")
_LIST_MARK = re.compile(r"^\s*\d+[.)]\s", re.M)
_CAPTION = re.compile(r"\bTable \d+\b")
_VALUE = r"([-+]?[\d,]*\.?\d+(?:[eE][-+]?\d+)?)"
_FILE_REF = re.compile(r"`?([\w.-]+\.(?:json|csv))`?")


@dataclass
class FidelityReport:
    """Whether the statement says exactly the instance's data, and what is wrong if not."""

    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No problems."""
        return not self.problems

    def summary(self) -> str:
        """The first problems, joined."""
        head = "; ".join(self.problems[:5])
        more = len(self.problems) - 5
        return head + (f"; and {more} more" if more > 0 else "")


def numbers_in(text: str) -> list[float]:
    """Every stand-alone number in ``text`` (list markers and table captions excluded)."""
    text = _CAPTION.sub(" ", _LIST_MARK.sub(" ", text))
    return [float(m.group(0).replace(",", "")) for m in _NUMBER.finditer(text)]


def _values(p: Parameter) -> np.ndarray:
    return np.asarray(p.values, dtype=float).reshape(-1)


def _allowed(sm: SemanticModel) -> set[float]:
    """Numbers a statement may show besides the data: set sizes, constant bounds, numbers in
    the model's own wording, 0 and 1."""
    out = {0.0, 1.0} | {float(len(s)) for s in sm.sets}
    for v in sm.variables:
        for b in (v.lb, v.ub):
            val = b.value if isinstance(b, Const) else b
            if isinstance(val, (int, float)) and math.isfinite(val):
                out.add(float(val))
    words = [sm.objective.description, str(sm.descriptors.get("story", "")),
             str(sm.descriptors.get("summary", "")), str(sm.descriptors.get("title", ""))]
    words += [c.meaning for c in sm.constraints] + [v.description for v in sm.variables]
    words += [p.description + " " + p.unit for p in sm.params] + [v.unit for v in sm.variables]
    for w in words:
        out.update(numbers_in(w))
    return out


def _check_numbers(sm: SemanticModel, text: str, report: FidelityReport,
                   expect_data: bool) -> None:
    positions = sm.position_params()
    derived = sm.derived_params
    expected: Counter[float] = Counter()
    where: dict[float, str] = {}
    for p in sm.params:
        if p.name in positions or p.name in derived:
            continue
        if p.is_membership:  # 0 and 1 are always allowed; a list tells them without digits
            continue
        for v in _values(p):
            expected[float(v)] += 1
            where.setdefault(float(v), p.name)
    found = Counter(numbers_in(text))
    if expect_data:
        for v, n in expected.items():
            if found[v] < n:
                report.problems.append(f"value {v:g} of {where[v]!r} appears {found[v]} "
                                       f"time(s), the data has it {n} time(s)")
    allowed = _allowed(sm) | (set(expected) if expect_data else set())
    for v in found:
        if v not in allowed:
            report.problems.append(f"stray number {v:g}: not in the instance data")


def _check_labels(sm: SemanticModel, text: str, report: FidelityReport) -> None:
    for s in sm.sets:
        for e in s.elements:
            if not re.search(rf"(?<![\w]){re.escape(e)}(?![\w])", text):
                report.problems.append(f"element {e!r} of set {s.name!r} is never named")
                return


def _check_adjacent(sm: SemanticModel, text: str, report: FidelityReport,
                    labels: dict[str, str]) -> None:
    """DP: each value of a one-index parameter follows its element name closely; each value
    of a two-index one follows its inner element name, after its outer one, or the matrix is
    pasted as a table (cell by cell); one of more indices is in a table."""
    positions = sm.position_params()
    sets = sm.set_map
    tables = parse_tables(text)
    for p in sm.params:
        if p.name in sm.derived_params:
            continue
        if p.is_membership and _told_as_lists(p, sm, text):
            continue
        if len(p.index) >= 2 and p.name not in positions and tables:
            if _in_tables(p, tables, sm, labels):
                continue
            if len(p.index) > 2:
                report.problems.append(f"parameter {p.name!r} is not found, cell by cell, in "
                                       "any table")
                return
        if len(p.index) == 2 and p.name not in positions:
            _check_adjacent_2d(p, sm, text, report)
        if len(p.index) == 1 and p.name in positions:
            _check_position(p, sm, positions[p.name], text, report)
        if len(p.index) != 1 or p.name in positions:
            continue
        for e, v in zip(sets[p.index[0]].elements, _values(p), strict=True):
            pat = rf"(?<![\w]){re.escape(e)}(?![\w])[^\n\d]{{0,40}}?{_VALUE}"
            if not any(_same(m.group(1), v) for m in re.finditer(pat, text)):
                report.problems.append(f"{p.name!r} of {e} should be {v:g}; not found next to "
                                       f"{e}")
                break


def _check_position(p: Parameter, sm: SemanticModel, target: str, text: str,
                    report: FidelityReport) -> None:
    """DP: each element's named value (an arc's tail) is said after the element and before
    the next element of its set (or the line's end)."""
    own = sm.set_map[p.index[0]].elements
    names = sm.set_map[target].elements
    bound = "|".join(re.escape(x) for x in sorted(own, key=len, reverse=True))
    for e, v in zip(own, _values(p), strict=True):
        want = names[int(v)]
        ok = False
        for m in re.finditer(rf"(?<![\w]){re.escape(e)}(?![\w])", text):
            rest = text[m.end():m.end() + 200].split("\n", 1)[0]
            stop = re.search(rf"(?<![\w])(?:{bound})(?![\w])", rest)
            segment = rest[:stop.start()] if stop else rest
            if re.search(rf"(?<![\w]){re.escape(want)}(?![\w])", segment):
                ok = True
                break
        if not ok:
            report.problems.append(f"{p.name!r} of {e} should be {want}; not found after {e}")
            return


def _told_as_lists(p: Parameter, sm: SemanticModel, text: str) -> bool:
    """DP: for one of the two sets, every element is followed (up to the next ``;``, ``.``
    or line end) by exactly the elements of the other set it is related to."""
    arr = np.asarray(p.values, dtype=float)
    rows, cols = (sm.set_map[s].elements for s in p.index)
    for outer, inner, rel in ((rows, cols, arr), (cols, rows, arr.T)):
        ok = True
        for i, e in enumerate(outer):
            want = {inner[j] for j in np.flatnonzero(rel[i] > 0.5)}
            found = False
            for m in re.finditer(rf"(?<![\w]){re.escape(e)}(?![\w])([^;.\n]*)", text):
                named = {c for c in inner if re.search(rf"(?<![\w]){re.escape(c)}(?![\w])",
                                                       m.group(1))}
                if named == want:
                    found = True
                    break
            if not found:
                ok = False
                break
        if ok:
            return True
    return False


def _check_adjacent_2d(p: Parameter, sm: SemanticModel, text: str,
                       report: FidelityReport) -> None:
    rs, cs = (sm.set_map[s].elements for s in p.index)
    span = 40 * len(cs) + 40
    arr = np.asarray(p.values, dtype=float)
    for i, e in enumerate(rs):
        starts = [m.end() for m in re.finditer(rf"(?<![\w]){re.escape(e)}(?![\w])", text)]
        for j, c in enumerate(cs):
            # Tried from every mention of the outer element (matches must not swallow each
            # other, as non-overlapping search would).
            after = re.compile(rf"[^\n]{{0,{span}}}?(?<![\w]){re.escape(c)}(?![\w])"
                               rf"[^\n\d]{{0,20}}?{_VALUE}")
            if not any((m := after.match(text, k)) and _same(m.group(1), arr[i, j])
                       for k in starts):
                report.problems.append(f"{p.name!r} of ({e}, {c}) should be {arr[i, j]:g}; not "
                                       "found in its place")
                return


def _same(token: str, v: float) -> bool:
    try:
        return float(token.replace(",", "")) == v
    except ValueError:
        return False


# ---------------------------------------------------------------- markdown tables
def parse_tables(text: str) -> list[list[list[str]]]:
    """Markdown tables as lists of rows of cells (the separator row dropped)."""
    tables: list[list[list[str]]] = []
    current: list[list[str]] = []
    for line in [*text.splitlines(), ""]:
        s = line.strip()
        if s.startswith("|") and s.endswith("|") and len(s) > 1:
            cells = [c.strip() for c in s[1:-1].split("|")]
            if not all(re.fullmatch(r":?-{3,}:?", c) for c in cells):
                current.append(cells)
        elif current:
            tables.append(current)
            current = []
    return tables


def _cell(p: Parameter, v: float, sm: SemanticModel) -> str | float:
    target = sm.position_params().get(p.name)
    return sm.set_map[target].elements[int(v)] if target else float(v)


def _cell_equal(cell: str, expect: str | float) -> bool:
    if isinstance(expect, str):
        return cell == expect
    return _same(cell, expect)


def _names(p: Parameter, labels: dict[str, str]) -> set[str]:
    """What a table may call a parameter: its name, or its business label (any case)."""
    return {p.name.lower(), labels.get(p.name, p.name).lower()}


def _head(cell: str) -> str:
    return cell.split(" (")[0].strip().lower()


def _in_tables(p: Parameter, tables: list[list[list[str]]], sm: SemanticModel,
               labels: dict[str, str]) -> bool:
    """Whether some markdown table holds ``p`` cell by cell (under its name or label)."""
    sets = sm.set_map
    arr = np.asarray(p.values, dtype=float)
    names = _names(p, labels)
    for t in tables:
        head = t[0]
        if not p.index:
            ok = any(r[:2] and _head(r[0]) in names and
                     _cell_equal(r[1], _cell(p, float(arr), sm))
                     for r in t[1:] if len(r) >= 2)
        elif len(p.index) == 1:
            # Any column the name fits (a new "price" beside a cost labelled "Price").
            ok = False
            for col in (k for k, h in enumerate(head) if _head(h) in names):
                rows = {r[0]: r[col] for r in t[1:] if len(r) > col}
                ok = all(_cell_equal(rows.get(e, ""), _cell(p, arr[i], sm))
                         for i, e in enumerate(sets[p.index[0]].elements))
                if ok:
                    break
        elif len(p.index) == 2:
            if _head(head[0].split(":")[0]) not in names:
                continue
            cols = {h: k for k, h in enumerate(head)}
            rows = {r[0]: r for r in t[1:]}
            rs, cs = sets[p.index[0]].elements, sets[p.index[1]].elements
            ok = all(e in rows and c in cols and len(rows[e]) > cols[c] and
                     _cell_equal(rows[e][cols[c]], _cell(p, arr[i, j], sm))
                     for i, e in enumerate(rs) for j, c in enumerate(cs))
        else:
            if _head(head[-1]) not in names:
                continue
            got = {tuple(r[:-1]): r[-1] for r in t[1:]}
            ok = all(_cell_equal(got.get(tuple(sets[s].elements[i] for s, i in
                                               zip(p.index, pos, strict=True)), ""),
                                 _cell(p, arr[pos], sm)) for pos in np.ndindex(arr.shape))
        if ok:
            return True
    return False


def _check_tables(sm: SemanticModel, text: str, report: FidelityReport,
                  labels: dict[str, str]) -> None:
    tables = parse_tables(text)
    for p in sm.params:
        if p.name not in sm.derived_params and not _in_tables(p, tables, sm, labels):
            report.problems.append(f"parameter {p.name!r} is not found, cell by cell, in any "
                                   "table")


def _from_nested(value: Any, p: Parameter, sm: SemanticModel) -> np.ndarray:
    sets = sm.set_map
    target = sm.position_params().get(p.name)

    def leaf(x: Any) -> float:
        if target is not None:
            return float(sets[target].elements.index(x))
        if isinstance(x, bool) or not isinstance(x, (int, float)):
            raise TypeError(f"expected a number, got {x!r}")
        return float(x)

    def walk(v: Any, depth: int) -> Any:
        if depth == len(p.index):
            return leaf(v)
        labels = sets[p.index[depth]].elements
        if not isinstance(v, dict) or set(v) != set(labels):
            raise KeyError(f"expected the keys {list(labels)}")
        return [walk(v[e], depth + 1) for e in labels]

    return np.asarray(walk(value, 0), dtype=float)


def _check_files(sm: SemanticModel, text: str, files: dict[str, str],
                 report: FidelityReport) -> None:
    named = set(_FILE_REF.findall(text))
    for name in sorted(named - set(files)):
        report.problems.append(f"the statement names {name}, which is not provided")
    for name in sorted(set(files) - named):
        report.problems.append(f"file {name} is provided but never named")
    if "data.json" not in files:
        report.problems.append("no data.json")
        return
    try:
        data = json.loads(files["data.json"])
        sets, params = data["sets"], data["parameters"]
    except (ValueError, KeyError, TypeError) as exc:
        report.problems.append(f"data.json does not parse: {exc}")
        return
    for s in sm.sets:
        if sets.get(s.name) != list(s.elements):
            report.problems.append(f"data.json: set {s.name!r} differs from the instance")
    for p in sm.params:
        if p.name in sm.derived_params and p.name not in params:
            continue  # a modeller derives it; the data need not hold it
        try:
            got = _from_nested(params[p.name], p, sm)
        except (KeyError, TypeError, ValueError) as exc:
            report.problems.append(f"data.json: parameter {p.name!r}: {exc}")
            continue
        if got.shape != np.shape(p.values) or not np.array_equal(got, p.values):
            report.problems.append(f"data.json: parameter {p.name!r} differs from the instance")
        csv_name = f"{p.name}.csv"
        if p.index and csv_name in files:
            _check_csv(p, sm, files[csv_name], report)


def _check_csv(p: Parameter, sm: SemanticModel, text: str, report: FidelityReport) -> None:
    rows = list(csv.reader(io.StringIO(text)))
    if not rows or len(rows[0]) != len(p.index) + 1:
        report.problems.append(f"{p.name}.csv: expected {len(p.index) + 1} columns")
        return
    got = {tuple(r[:-1]): r[-1] for r in rows[1:] if r}
    arr = np.asarray(p.values, dtype=float)
    sets = sm.set_map
    if len(got) != arr.size:
        report.problems.append(f"{p.name}.csv: {len(got)} rows, the data has {arr.size}")
        return
    for pos in np.ndindex(arr.shape):
        key = tuple(sets[s].elements[i] for s, i in zip(p.index, pos, strict=True))
        if not _cell_equal(got.get(key, ""), _cell(p, arr[pos], sm)):
            report.problems.append(f"{p.name}.csv: the entry for {', '.join(key)} differs")
            return


# ---------------------------------------------------------------- entry point
def check_fidelity(sm: SemanticModel, form: str, text: str,
                   files: dict[str, str] | None = None,
                   labels: dict[str, str] | None = None) -> FidelityReport:
    """Read a statement back (``form`` DP / DT / DPS) and compare it with the instance.
    ``labels``: the business names tables may give parameters (besides their own names).
    Parameters a modeller derives (``sm.derived_params``) need not be stated."""
    report = FidelityReport()
    files = files or {}
    labels = labels or {}
    for m in _PLACEHOLDER.finditer(text):
        report.problems.append(f"leftover placeholder {m.group(0)!r}")
    if form in ("DP", "DT"):
        _check_labels(sm, text, report)
        _check_numbers(sm, text, report, expect_data=True)
        if form == "DP":
            _check_adjacent(sm, text, report, labels)
        else:
            _check_tables(sm, text, report, labels)
    elif form == "DPS":
        _check_files(sm, text, files, report)
        _check_numbers(sm, text, report, expect_data=False)
    else:
        report.problems.append(f"unknown form {form!r}")
    return report
