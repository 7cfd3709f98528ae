"""Typed expression AST of the semantic IR: sums over sets, parameter x variable products.

Expressions are immutable trees built with ordinary operators (``2 * P("c", "i") * V("x", "i")``,
``Sum("j", "J", ...)``). They expand into monomials for vectorised grounding, print as LaTeX and
serialise to JSON.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

COND_OPS = {"ne": r"\neq", "eq": "=", "lt": "<", "le": r"\le", "gt": ">", "ge": r"\ge"}
UNARY_OPS = ("first", "last", "not_first", "not_last")


@dataclass(frozen=True)
class Idx:
    """An index variable, optionally shifted within its (ordered) set: ``t``, ``t - 1``."""

    name: str
    offset: int = 0

    def __add__(self, k: int) -> Idx:
        return Idx(self.name, self.offset + k)

    def __sub__(self, k: int) -> Idx:
        return Idx(self.name, self.offset - k)

    def latex(self) -> str:
        """``t``, ``t-1``, ``t+2``."""
        if not self.offset:
            return self.name
        return f"{self.name}{'+' if self.offset > 0 else '-'}{abs(self.offset)}"

    def to_json(self) -> list[Any]:
        """``[name, offset]``."""
        return [self.name, self.offset]


def _idx(i: Idx | str) -> Idx:
    return i if isinstance(i, Idx) else Idx(i)


@dataclass(frozen=True)
class Cond:
    """A filter on index positions.

    ``ne/eq/lt/le/gt/ge`` compare the positions of indices ``a`` and ``b`` (same set);
    ``first/last/not_first/not_last`` test ``a``'s position; ``link`` holds when the integer
    parameter ``param`` at ``a`` equals the position of ``b`` (e.g. the head node of arc ``a``).
    """

    op: str
    a: str
    b: str | None = None
    param: str | None = None

    def __post_init__(self) -> None:
        if self.op in COND_OPS:
            if self.b is None:
                raise ValueError(f"condition {self.op} needs two indices")
        elif self.op == "link":
            if self.b is None or self.param is None:
                raise ValueError("condition link needs two indices and a parameter")
        elif self.op not in UNARY_OPS:
            raise ValueError(f"unknown condition {self.op!r}")

    def indices(self) -> tuple[str, ...]:
        """Index names the condition reads."""
        return (self.a,) if self.b is None else (self.a, self.b)

    def latex(self) -> str:
        """LaTeX of the condition."""
        if self.op in COND_OPS:
            return f"{self.a} {COND_OPS[self.op]} {self.b}"
        if self.op == "link":
            return r"\mathrm{" + str(self.param).replace("_", r"\_") + f"}}({self.a}) = {self.b}"
        return {"first": f"{self.a} = \\mathrm{{first}}", "last": f"{self.a} = \\mathrm{{last}}",
                "not_first": f"{self.a} \\neq \\mathrm{{first}}",
                "not_last": f"{self.a} \\neq \\mathrm{{last}}"}[self.op]

    def to_json(self) -> dict[str, Any]:
        """JSON form."""
        d: dict[str, Any] = {"op": self.op, "a": self.a}
        if self.b is not None:
            d["b"] = self.b
        if self.param is not None:
            d["param"] = self.param
        return d

    @staticmethod
    def from_json(d: dict[str, Any]) -> Cond:
        """Inverse of :meth:`to_json`."""
        return Cond(d["op"], d["a"], d.get("b"), d.get("param"))


class Expr:
    """Base of the expression nodes; arithmetic operators build new trees."""

    def __add__(self, other: object) -> Expr:
        return Add((self, as_expr(other)))

    def __radd__(self, other: object) -> Expr:
        return Add((as_expr(other), self))

    def __sub__(self, other: object) -> Expr:
        return Add((self, Neg(as_expr(other))))

    def __rsub__(self, other: object) -> Expr:
        return Add((as_expr(other), Neg(self)))

    def __mul__(self, other: object) -> Expr:
        return Mul((self, as_expr(other)))

    def __rmul__(self, other: object) -> Expr:
        return Mul((as_expr(other), self))

    def __neg__(self) -> Expr:
        return Neg(self)

    def children(self) -> tuple[Expr, ...]:
        """Direct sub-expressions."""
        return ()

    def walk(self) -> Iterator[Expr]:
        """This node and every node below it, depth first."""
        yield self
        for c in self.children():
            yield from c.walk()

    def latex(self) -> str:  # pragma: no cover - every node overrides it
        raise NotImplementedError

    def to_json(self) -> dict[str, Any]:  # pragma: no cover - every node overrides it
        raise NotImplementedError


def as_expr(x: object) -> Expr:
    """Numbers become constants; expressions pass through."""
    if isinstance(x, Expr):
        return x
    if isinstance(x, (int, float)) and not isinstance(x, bool):
        return Const(float(x))
    raise TypeError(f"cannot use {x!r} in an expression")


def _num(v: float) -> str:
    return str(int(v)) if v == int(v) and abs(v) < 1e15 else repr(v)


@dataclass(frozen=True, eq=True)
class Const(Expr):
    """A number."""

    value: float

    def latex(self) -> str:
        return _num(self.value)

    def to_json(self) -> dict[str, Any]:
        return {"op": "const", "value": self.value}


def _sub(idx: tuple[Idx, ...]) -> str:
    return "_{" + ",".join(i.latex() for i in idx) + "}" if idx else ""


def symbol(name: str) -> str:
    """LaTeX symbol of a parameter or variable name (``x``, ``\\mathit{big\\_m}``)."""
    return name if len(name) == 1 else r"\mathit{" + name.replace("_", r"\_") + "}"


@dataclass(frozen=True, eq=True)
class Param(Expr):
    """A parameter at some indices."""

    name: str
    idx: tuple[Idx, ...] = ()

    def latex(self) -> str:
        return symbol(self.name) + _sub(self.idx)

    def to_json(self) -> dict[str, Any]:
        return {"op": "param", "name": self.name, "idx": [i.to_json() for i in self.idx]}


@dataclass(frozen=True, eq=True)
class Var(Expr):
    """A decision variable at some indices."""

    name: str
    idx: tuple[Idx, ...] = ()

    def latex(self) -> str:
        return symbol(self.name) + _sub(self.idx)

    def to_json(self) -> dict[str, Any]:
        return {"op": "var", "name": self.name, "idx": [i.to_json() for i in self.idx]}


@dataclass(frozen=True, eq=True)
class Sum(Expr):
    """``sum over index in set [where conditions] of body``."""

    index: str
    over: str
    body: Expr
    where: tuple[Cond, ...] = field(default=())

    def children(self) -> tuple[Expr, ...]:
        return (self.body,)

    def latex(self) -> str:
        cond = (" : " + ", ".join(c.latex() for c in self.where)) if self.where else ""
        body = self.body.latex()
        if isinstance(self.body, Add):
            body = f"\\left({body}\\right)"
        return f"\\sum_{{{self.index} \\in {self.over}{cond}}} {body}"

    def to_json(self) -> dict[str, Any]:
        return {"op": "sum", "index": self.index, "over": self.over, "body": self.body.to_json(),
                "where": [c.to_json() for c in self.where]}


@dataclass(frozen=True, eq=True)
class Add(Expr):
    """A sum of terms."""

    terms: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.terms

    def latex(self) -> str:
        out = ""
        for k, t in enumerate(self.terms):
            if isinstance(t, Neg):
                out += (" - " if k else "-") + _paren(t.arg)
            elif isinstance(t, Const) and t.value < 0:
                out += (" - " if k else "-") + _num(-t.value)
            else:
                out += (" + " if k else "") + t.latex()
        return out

    def to_json(self) -> dict[str, Any]:
        return {"op": "add", "terms": [t.to_json() for t in self.terms]}


def _paren(e: Expr) -> str:
    return f"\\left({e.latex()}\\right)" if isinstance(e, Add) else e.latex()


@dataclass(frozen=True, eq=True)
class Mul(Expr):
    """A product of factors."""

    factors: tuple[Expr, ...]

    def children(self) -> tuple[Expr, ...]:
        return self.factors

    def latex(self) -> str:
        out = _paren(self.factors[0])
        for prev, cur in zip(self.factors, self.factors[1:], strict=False):
            # Juxtaposition reads badly between two numbers: write 2 \cdot 3.
            both = isinstance(prev, Const) and isinstance(cur, Const)
            out += (" \\cdot " if both else " ") + _paren(cur)
        return out

    def to_json(self) -> dict[str, Any]:
        return {"op": "mul", "factors": [f.to_json() for f in self.factors]}


@dataclass(frozen=True, eq=True)
class Neg(Expr):
    """Negation."""

    arg: Expr

    def children(self) -> tuple[Expr, ...]:
        return (self.arg,)

    def latex(self) -> str:
        return "-" + _paren(self.arg)

    def to_json(self) -> dict[str, Any]:
        return {"op": "neg", "arg": self.arg.to_json()}


def P(name: str, *idx: Idx | str) -> Param:
    """Shorthand for a parameter reference: ``P("c", "i", "j")``."""
    return Param(name, tuple(_idx(i) for i in idx))


def V(name: str, *idx: Idx | str) -> Var:
    """Shorthand for a variable reference: ``V("x", "i", "j")``."""
    return Var(name, tuple(_idx(i) for i in idx))


def total(index: str, over: str, body: Expr | float, *where: Cond) -> Sum:
    """Shorthand for ``Sum``."""
    return Sum(index, over, as_expr(body), tuple(where))


def expr_from_json(d: dict[str, Any]) -> Expr:
    """Inverse of ``Expr.to_json``."""
    op = d["op"]
    if op == "const":
        return Const(float(d["value"]))
    if op in ("param", "var"):
        idx = tuple(Idx(str(n), int(o)) for n, o in d.get("idx", []))
        return (Param if op == "param" else Var)(d["name"], idx)
    if op == "sum":
        return Sum(d["index"], d["over"], expr_from_json(d["body"]),
                   tuple(Cond.from_json(c) for c in d.get("where", [])))
    if op == "add":
        return Add(tuple(expr_from_json(t) for t in d["terms"]))
    if op == "mul":
        return Mul(tuple(expr_from_json(f) for f in d["factors"]))
    if op == "neg":
        return Neg(expr_from_json(d["arg"]))
    raise ValueError(f"unknown expression op {op!r}")


@dataclass(frozen=True)
class Monomial:
    """``sign * product(coefficients) * product(variables)`` summed over ``sums``."""

    sign: float
    coefs: tuple[Const | Param, ...]
    vars: tuple[Var, ...]
    sums: tuple[tuple[str, str, tuple[Cond, ...]], ...]


def expand(e: Expr) -> list[Monomial]:
    """Distribute products over sums: the expression as a list of monomials."""
    if isinstance(e, (Const, Param)):
        return [Monomial(1.0, (e,), (), ())]
    if isinstance(e, Var):
        return [Monomial(1.0, (), (e,), ())]
    if isinstance(e, Neg):
        return [Monomial(-m.sign, m.coefs, m.vars, m.sums) for m in expand(e.arg)]
    if isinstance(e, Add):
        return [m for t in e.terms for m in expand(t)]
    if isinstance(e, Sum):
        return [Monomial(m.sign, m.coefs, m.vars, ((e.index, e.over, e.where), *m.sums))
                for m in expand(e.body)]
    if isinstance(e, Mul):
        out = [Monomial(1.0, (), (), ())]
        for f in e.factors:
            out = [Monomial(a.sign * b.sign, a.coefs + b.coefs, a.vars + b.vars, a.sums + b.sums)
                   for a in out for b in expand(f)]
        return out
    raise TypeError(f"cannot expand {type(e).__name__}")
