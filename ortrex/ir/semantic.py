"""Semantic IR: the model as a modeller writes it (sets, parameters, variable and constraint
families, objective) with descriptors (family, domain, entities, units, story)."""

from __future__ import annotations

import hashlib
import json
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import TYPE_CHECKING, Any

import numpy as np

from ortrex.ir.expr import Cond, Expr, Idx, Param, Sum, Var, as_expr, expr_from_json, symbol
from ortrex.ir.roles import check_role

if TYPE_CHECKING:
    from ortrex.ir.canonical import CanonicalModel

SCHEMA_VERSION = 1
_ELEMENT = re.compile(r"[A-Za-z0-9_]+")
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*")
SENSES = {"<=": r"\le", ">=": r"\ge", "=": "="}


@dataclass(frozen=True)
class IndexSet:
    """A named, ordered collection of elements (element names are identifier-safe)."""

    name: str
    elements: tuple[str, ...]
    entity: str = ""
    description: str = ""

    def __len__(self) -> int:
        return len(self.elements)


@dataclass(frozen=True, eq=False)
class Parameter:
    """Data indexed by sets, at full precision, with a unit and a description."""

    name: str
    index: tuple[str, ...]
    values: np.ndarray
    unit: str = ""
    description: str = ""
    integer: bool = False

    def __post_init__(self) -> None:
        arr = np.array(self.values, dtype=np.float64)
        arr.flags.writeable = False
        object.__setattr__(self, "values", arr)

    @property
    def is_membership(self) -> bool:
        """A 0/1 relation between two sets (who covers what), which prose tells as lists."""
        return len(self.index) == 2 and self.integer and \
            bool(np.isin(self.values, (0.0, 1.0)).all())


@dataclass(frozen=True)
class VariableFamily:
    """Variables indexed over ``dims`` ((index, set) pairs), optionally filtered by ``where``."""

    name: str
    dims: tuple[tuple[str, str], ...] = ()
    vtype: str = "C"
    lb: Expr | float = 0.0
    ub: Expr | float = math.inf
    where: tuple[Cond, ...] = ()
    description: str = ""
    unit: str = ""
    role: str = ""  # ortrex.ir.roles.VARIABLE_ROLES ("" where no family said)

    def __post_init__(self) -> None:
        if self.vtype == "B" and isinstance(self.ub, (int, float)) and self.ub == math.inf:
            object.__setattr__(self, "ub", 1.0)  # a binary's default upper bound is 1


@dataclass(frozen=True)
class ConstraintFamily:
    """``lhs <sense> rhs`` for every combination of ``forall`` (filtered by ``where``)."""

    name: str
    meaning: str
    forall: tuple[tuple[str, str], ...]
    lhs: Expr
    sense: str
    rhs: Expr | float = 0.0
    where: tuple[Cond, ...] = ()
    role: str = ""  # ortrex.ir.roles.CONSTRAINT_ROLES ("" where no family said)


    def quantifier_latex(self) -> str:
        """``i \\in N, j \\in N: i \\neq j``: the indices and conditions the family ranges over
        (what every rendering of it, aligned or bulleted, states)."""
        quant = ", ".join(f"{i} \\in {s}" for i, s in self.forall)
        if self.where:
            quant += (": " if quant else "") + ", ".join(w.latex() for w in self.where)
        return quant


@dataclass(frozen=True)
class ObjectiveSpec:
    """Direction and expression of the objective."""

    sense: str
    expr: Expr
    description: str = ""


def _e(x: Expr | float) -> Expr:
    return as_expr(x)


@dataclass(frozen=True, eq=False)
class SemanticModel:
    """A modeller-level model; :meth:`ground` turns it into a :class:`CanonicalModel`."""

    family: str
    domain: str
    name: str
    sets: tuple[IndexSet, ...]
    params: tuple[Parameter, ...]
    variables: tuple[VariableFamily, ...]
    constraints: tuple[ConstraintFamily, ...]
    objective: ObjectiveSpec
    descriptors: Mapping[str, Any] = field(default_factory=dict)
    schema_version: int = SCHEMA_VERSION

    def __post_init__(self) -> None:
        self.validate()

    # ------------------------------------------------------------------ lookups
    @cached_property
    def set_map(self) -> dict[str, IndexSet]:
        """Sets by name."""
        return {s.name: s for s in self.sets}

    @cached_property
    def param_map(self) -> dict[str, Parameter]:
        """Parameters by name."""
        return {p.name: p for p in self.params}

    @cached_property
    def var_map(self) -> dict[str, VariableFamily]:
        """Variable families by name."""
        return {v.name: v for v in self.variables}

    # ------------------------------------------------------------------ validation
    def validate(self) -> None:
        """Raise ``ValueError`` naming the first inconsistency."""
        names: dict[str, str] = {}
        for kind, items in (("set", self.sets), ("parameter", self.params),
                            ("variable", self.variables), ("constraint", self.constraints)):
            for it in items:
                if not _NAME.fullmatch(it.name):
                    raise ValueError(f"{kind} name {it.name!r} is not an identifier")
                if it.name in names:
                    raise ValueError(f"{kind} {it.name!r}: name already used by a "
                                     f"{names[it.name]}")
                names[it.name] = kind
        for s in self.sets:
            if len(set(s.elements)) != len(s.elements):
                raise ValueError(f"set {s.name!r}: repeated elements")
            for el in s.elements:
                if not _ELEMENT.fullmatch(el):
                    raise ValueError(f"set {s.name!r}: element {el!r} is not identifier-safe")
        sizes = {s.name: len(s) for s in self.sets}
        for p in self.params:
            for s in p.index:
                if s not in sizes:
                    raise ValueError(f"parameter {p.name!r}: unknown set {s!r}")
            shape = tuple(sizes[s] for s in p.index)
            if p.values.shape != shape:
                raise ValueError(f"parameter {p.name!r}: shape {p.values.shape} but its sets "
                                 f"give {shape}")
            if not np.isfinite(p.values).all():
                raise ValueError(f"parameter {p.name!r}: NaN or infinite value")
        for v in self.variables:
            if v.vtype not in ("C", "I", "B"):
                raise ValueError(f"variable {v.name!r}: unknown type {v.vtype!r}")
            check_role(v.role, "variable", v.name)
            bound = dict(self._check_dims(v.dims, f"variable {v.name!r}"))
            self._check_conds(v.where, bound, f"variable {v.name!r}")
            for b in (v.lb, v.ub):
                self._check_expr(_e(b), bound, f"variable {v.name!r} bound", allow_vars=False)
        for c in self.constraints:
            if c.sense not in SENSES:
                raise ValueError(f"constraint {c.name!r}: unknown sense {c.sense!r}")
            check_role(c.role, "constraint", c.name)
            bound = dict(self._check_dims(c.forall, f"constraint {c.name!r}"))
            self._check_conds(c.where, bound, f"constraint {c.name!r}")
            self._check_expr(c.lhs, bound, f"constraint {c.name!r}")
            self._check_expr(_e(c.rhs), bound, f"constraint {c.name!r}")
        if self.objective.sense not in ("min", "max"):
            raise ValueError(f"objective sense {self.objective.sense!r}: expected min or max")
        self._check_expr(self.objective.expr, {}, "objective")

    def _check_dims(self, dims: Iterable[tuple[str, str]], where: str) -> list[tuple[str, str]]:
        out = []
        for idx, s in dims:
            if s not in self.set_map:
                raise ValueError(f"{where}: unknown set {s!r}")
            if idx in dict(out):
                raise ValueError(f"{where}: index {idx!r} bound twice")
            out.append((idx, s))
        return out

    def _check_conds(self, conds: Iterable[Cond], bound: dict[str, str], where: str) -> None:
        for c in conds:
            for i in c.indices():
                if i not in bound:
                    raise ValueError(f"{where}: condition on unbound index {i!r}")
            if c.op == "link" and c.param not in self.param_map:
                raise ValueError(f"{where}: unknown parameter {c.param!r} in a condition")

    def _check_expr(self, e: Expr, bound: dict[str, str], where: str,
                    allow_vars: bool = True) -> None:
        if isinstance(e, Sum):
            if e.over not in self.set_map:
                raise ValueError(f"{where}: sum over unknown set {e.over!r}")
            if e.index in bound:
                raise ValueError(f"{where}: index {e.index!r} bound twice")
            inner = {**bound, e.index: e.over}
            self._check_conds(e.where, inner, where)
            self._check_expr(e.body, inner, where, allow_vars)
            return
        if isinstance(e, (Param, Var)):
            table = self.param_map if isinstance(e, Param) else self.var_map
            kind = "parameter" if isinstance(e, Param) else "variable"
            if isinstance(e, Var) and not allow_vars:
                raise ValueError(f"{where}: variables are not allowed here")
            if e.name not in table:
                raise ValueError(f"{where}: unknown {kind} {e.name!r}")
            item = table[e.name]
            sets = item.index if isinstance(item, Parameter) else [s for _, s in item.dims]
            if len(e.idx) != len(sets):
                raise ValueError(f"{where}: {kind} {e.name!r} takes {len(sets)} indices, "
                                 f"got {len(e.idx)}")
            for i, s in zip(e.idx, sets, strict=True):
                if i.name not in bound:
                    raise ValueError(f"{where}: unbound index {i.name!r} in {e.name!r}")
                if bound[i.name] != s:
                    raise ValueError(f"{where}: index {i.name!r} runs over {bound[i.name]!r} "
                                     f"but {e.name!r} expects {s!r}")
            return
        for child in e.children():
            self._check_expr(child, bound, where, allow_vars)

    # ------------------------------------------------------------------ JSON
    def to_json(self) -> dict[str, Any]:
        """JSON-serialisable dict (numbers at full precision)."""
        return {
            "schema_version": self.schema_version,
            "family": self.family,
            "domain": self.domain,
            "name": self.name,
            "sets": [{"name": s.name, "elements": list(s.elements), "entity": s.entity,
                      "description": s.description} for s in self.sets],
            "params": [{"name": p.name, "index": list(p.index),
                        "values": p.values.reshape(-1).tolist(), "unit": p.unit,
                        "description": p.description, "integer": p.integer}
                       for p in self.params],
            "variables": [{"name": v.name, "dims": [list(d) for d in v.dims], "vtype": v.vtype,
                           "lb": _bound_json(v.lb), "ub": _bound_json(v.ub),
                           "where": [c.to_json() for c in v.where],
                           "description": v.description, "unit": v.unit,
                           **({"role": v.role} if v.role else {})}
                          for v in self.variables],
            "constraints": [{"name": c.name, "meaning": c.meaning,
                             "forall": [list(d) for d in c.forall], "lhs": c.lhs.to_json(),
                             "sense": c.sense, "rhs": _e(c.rhs).to_json(),
                             "where": [w.to_json() for w in c.where],
                             **({"role": c.role} if c.role else {})}
                            for c in self.constraints],
            "objective": {"sense": self.objective.sense, "expr": self.objective.expr.to_json(),
                          "description": self.objective.description},
            "descriptors": dict(self.descriptors),
        }

    def dumps(self) -> str:
        """Canonical JSON text (sorted keys)."""
        return self._json_text

    @cached_property
    def _json_text(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True, separators=(",", ":"), allow_nan=False)

    @cached_property
    def content_id(self) -> str:
        """sha256 of the canonical JSON: the row id of the semantic model in the store."""
        return hashlib.sha256(self.dumps().encode("utf-8")).hexdigest()

    @classmethod
    def from_json(cls, d: Mapping[str, Any]) -> SemanticModel:
        """Inverse of :meth:`to_json`; refuses newer schema versions."""
        version = int(d.get("schema_version", 0))
        if version > SCHEMA_VERSION:
            raise ValueError(f"semantic model schema v{version} is newer than this ortrex "
                             f"(v{SCHEMA_VERSION})")
        sets = tuple(IndexSet(s["name"], tuple(s["elements"]), s.get("entity", ""),
                              s.get("description", "")) for s in d["sets"])
        sizes = {s.name: len(s) for s in sets}
        params = tuple(Parameter(
            p["name"], tuple(p["index"]),
            np.array(p["values"], dtype=np.float64).reshape(
                tuple(sizes.get(s, -1) for s in p["index"])),
            p.get("unit", ""), p.get("description", ""), bool(p.get("integer", False)))
            for p in d["params"])
        variables = tuple(VariableFamily(
            v["name"], tuple(tuple(x) for x in v["dims"]), v["vtype"], _bound_from(v["lb"]),
            _bound_from(v["ub"]), tuple(Cond.from_json(c) for c in v.get("where", [])),
            v.get("description", ""), v.get("unit", ""), v.get("role", ""))
            for v in d["variables"])
        constraints = tuple(ConstraintFamily(
            c["name"], c["meaning"], tuple(tuple(x) for x in c["forall"]),
            expr_from_json(c["lhs"]), c["sense"], expr_from_json(c["rhs"]),
            tuple(Cond.from_json(w) for w in c.get("where", [])), c.get("role", ""))
            for c in d["constraints"])
        o = d["objective"]
        return cls(d["family"], d["domain"], d["name"], sets, params, variables, constraints,
                   ObjectiveSpec(o["sense"], expr_from_json(o["expr"]), o.get("description", "")),
                   dict(d.get("descriptors", {})), version or SCHEMA_VERSION)

    @classmethod
    def loads(cls, text: str) -> SemanticModel:
        """Parse the JSON text of :meth:`dumps`."""
        return cls.from_json(json.loads(text))

    def rederived(self) -> SemanticModel:
        """This model with every declared derived parameter computed again from the data
        (after a mutation changed the data behind it, a big-M or a count stays derived)."""
        declared = self.descriptors.get("derived") or {}
        if not isinstance(declared, Mapping) or not declared:
            return self
        values = self._evaluate(declared)
        params = tuple(replace(p, values=values[p.name]) if p.name in values else p
                       for p in self.params)
        return replace(self, params=params)

    def _evaluate(self, declared: Mapping[str, Any]) -> dict[str, np.ndarray]:
        """The values of the declared derivations that evaluate to the parameter's shape."""
        env: dict[str, Any] = {s.name: list(s.elements) for s in self.sets}
        env.update({p.name: p.values.tolist() for p in self.params if p.name not in declared})
        safe = {"len": len, "sum": sum, "max": max, "min": min, "range": range, "abs": abs,
                "int": int, "float": float}
        out = {}
        for name, expression in declared.items():
            p = self.param_map.get(name)
            if p is None or not isinstance(expression, str):
                continue
            try:
                # As globals: comprehensions do not see eval's locals before Python 3.12.
                got = np.asarray(eval(expression, {"__builtins__": safe, **env}),
                                 dtype=np.float64)
            except Exception:
                continue
            if got.shape == p.values.shape:
                out[name] = got
        return out

    @cached_property
    def derived_params(self) -> dict[str, str]:
        """Parameters a modeller computes from the others, with the Python expression that
        does it (``descriptors["derived"]``: over set names, as element lists, and parameter
        names, as nested lists). One is kept only where its expression reproduces the data
        exactly: a mutation that changed the data behind it makes it ordinary data again."""
        declared = self.descriptors.get("derived") or {}
        if not isinstance(declared, Mapping) or not declared:
            return {}
        values = self._evaluate(declared)
        return {name: str(declared[name]) for name, got in values.items()
                if np.array_equal(got, self.param_map[name].values)}

    def position_params(self) -> dict[str, str]:
        """Parameters holding positions in a set (read by ``link`` conditions: the head node of
        an arc, ...; or declared in ``descriptors["positions"]``: the origin of a commodity a
        derivation reads) and that set. People read and write them as element labels."""
        out: dict[str, str] = {}

        def visit(conds: Iterable[Cond], sets: dict[str, str]) -> None:
            for c in conds:
                if c.op == "link" and c.b in sets and c.param:
                    out[c.param] = sets[c.b]

        def walk(e: Expr | float, bound: dict[str, str]) -> None:
            if isinstance(e, Sum):
                inner = {**bound, e.index: e.over}
                visit(e.where, inner)
                walk(e.body, inner)
            elif isinstance(e, Expr):
                for child in e.children():
                    walk(child, bound)

        for c in self.constraints:
            bound = dict(c.forall)
            visit(c.where, bound)
            walk(c.lhs, bound)
            walk(c.rhs, bound)
        for v in self.variables:
            visit(v.where, dict(v.dims))
        walk(self.objective.expr, {})
        declared = self.descriptors.get("positions") or {}  # read only by derivations
        if isinstance(declared, Mapping):
            out.update({k: v for k, v in declared.items()
                        if k in self.param_map and v in self.set_map})
        return out

    # ------------------------------------------------------------------ views
    def latex(self) -> str:
        """The formulation in LaTeX: sets, parameters, variables, objective, constraints."""
        lines = [r"\begin{aligned}"]
        o = self.objective
        lines.append(rf"\{o.sense} \quad & {o.expr.latex()} \\")
        lines.append(r"\text{s.t.} \quad & \\")
        for c in self.constraints:
            quant = c.quantifier_latex()
            tail = rf" && \forall {quant}" if quant else ""
            lines.append(rf"& {c.lhs.latex()} {SENSES[c.sense]} {_e(c.rhs).latex()}{tail} \\")
        for v in self.variables:
            idx = ",".join(i for i, _ in v.dims)
            sym = symbol(v.name)
            head = sym + (f"_{{{idx}}}" if idx else "")
            dom = {"C": r"\mathbb{R}", "I": r"\mathbb{Z}", "B": r"\{0, 1\}"}[v.vtype]
            quant = ", ".join(f"{i} \\in {s}" for i, s in v.dims)
            if v.where:
                quant += ": " + ", ".join(w.latex() for w in v.where)
            tail = rf" && \forall {quant}" if quant else ""
            lines.append(rf"& {head} \in {dom}{_bounds_latex(v, head)}{tail} \\")
        lines.append(r"\end{aligned}")
        return "\n".join(lines)

    def ground(self) -> CanonicalModel:
        """The canonical (solver-level) instance of this model."""
        from ortrex.ir.ground import ground

        return ground(self)


def _bound_json(b: Expr | float) -> Any:
    if isinstance(b, (int, float)):
        return {"op": "const", "value": float(b)} if math.isfinite(b) else \
            ("inf" if b > 0 else "-inf")
    return b.to_json()


def _bound_from(d: Any) -> Expr | float:
    if d in ("inf", "-inf"):
        return math.inf if d == "inf" else -math.inf
    e = expr_from_json(d)
    return e.value if hasattr(e, "value") else e  # type: ignore[attr-defined]


def _bounds_latex(v: VariableFamily, head: str) -> str:
    if v.vtype == "B":
        return ""
    parts = []
    if isinstance(v.lb, Expr) or v.lb != -math.inf:
        parts.append(f"{head} \\ge {_e(v.lb).latex()}")
    if isinstance(v.ub, Expr) or v.ub != math.inf:
        parts.append(f"{head} \\le {_e(v.ub).latex()}")
    return (r",\ " + r",\ ".join(parts)) if parts else ""


__all__ = ["SCHEMA_VERSION", "ConstraintFamily", "Idx", "IndexSet", "ObjectiveSpec", "Parameter",
           "SemanticModel", "VariableFamily"]
