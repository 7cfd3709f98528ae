"""The LP dialect's words and token patterns, and what a bound or a declaration does: shared by
the full reader and its fast path, so that both read every file the same way."""

from __future__ import annotations

import math
import re

from ortrex.ir.formats.builder import ModelBuilder

INF = math.inf
BIG = 1e30  # bounds and right-hand sides at or beyond this magnitude are infinite (as in Gurobi)

OPS_RE = r"->|=[<>]|[<>]=?|=|[-+*/^:\[\]]"
NUMBER_RE = r"(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
# Gurobi reads a name up to whitespace: "*" and "/" inside one are part of it (netlib's FLAV*1,
# B/A.GPBA), only at its start are they operators ("] / 2", "x * y"). A name may hold bracketed
# parts (x[0,1], a[2][3]) but never an unmatched "]": in "y]" the bracket closes a quadratic term.
_FIRST = r"[^\s<>=+\-*/^:\[\]\\]"
_CHAR = r"[^\s<>=+\-^:\\\[\]]"
_MORE = rf"(?:{_CHAR}|\[[^\s\]]*\])*"
NAME_RE = _FIRST + _MORE
# A number glued to more name characters is one word, as Gurobi reads it: 1st_shift, 5C0ST, 3e2x,
# 53/1 are single tokens (the parser tells numbers from names), never a number and a name. A
# bracket after a number is the quadratic one ("2[x ^2]"), not part of a name.
WORD_RE = f"{NUMBER_RE}(?:{_CHAR}{_MORE})?|{NAME_RE}"
TOKEN = re.compile(f"{OPS_RE}|{WORD_RE}")
NUMBER = re.compile(NUMBER_RE)
# A fraction p/q, which Gurobi reads as p (its number parser stops at "/") and HiGHS refuses.
FRACTION = re.compile(f"({NUMBER_RE})/({NUMBER_RE})")

SENSES = {"<=": "<=", "=<": "<=", "<": "<=", ">=": ">=", "=>": ">=", ">": ">=", "=": "="}
FLIPPED = {"<=": ">=", ">=": "<=", "=": "="}
OPS = frozenset(("->", "+", "-", "*", "/", "^", ":", "[", "]", *SENSES))
NUMBER_START = frozenset("0123456789.")
INF_WORDS = {"inf": INF, "infinity": INF, "+inf": INF, "+infinity": INF}

HEADERS = {
    **dict.fromkeys(("minimize", "minimise", "minimum", "min"), "min"),
    **dict.fromkeys(("maximize", "maximise", "maximum", "max"), "max"),
    **dict.fromkeys(("subject to", "such that", "st", "s.t.", "st."), "rows"),
    **dict.fromkeys(("bounds", "bound"), "bounds"),
    **dict.fromkeys(("generals", "general", "gen", "integers", "integer"), "generals"),
    **dict.fromkeys(("binaries", "binary", "bin"), "binaries"),
    **dict.fromkeys(("semi-continuous", "semi-continuous variables", "semis", "semi"), "semi"),
    "end": "end",
}
DECLARED = {"generals": "I", "binaries": "B", "semi": "S"}
# Headers that may also start mid-line (a whole model on one line, as Gurobi reads it): the
# long ones only, which no model names its variables.
INLINE_WORDS = "subject to|such that|bounds|generals|integers|binaries|semi-continuous|semis"
INLINE = re.compile(rf"\s({INLINE_WORDS})(?=\s|$)(?!\s*:)|\s(end)\s*$", re.I)
HEAD_WORDS = sorted(HEADERS, key=len, reverse=True)
UNSUPPORTED = {
    "sos": "SOS constraints",
    "general constraints": "general constraints",
    "general constraint": "general constraints",
    "genconstrs": "general constraints",
    "lazy constraints": "lazy constraints",
    "user cuts": "user cuts",
    "pwlobj": "piecewise-linear objectives",
    "minimize multi-objectives": "multiple objectives",
    "maximize multi-objectives": "multiple objectives",
}


def bounds_from(sense: str, value: float, flipped: bool) -> tuple[float, float]:
    """Row bounds for ``expr <sense> value`` (or ``value <sense> expr`` when flipped)."""
    if flipped:
        sense = FLIPPED[sense]
    if sense == "<=":
        return -INF, INF if value >= BIG else value
    if sense == ">=":
        return -INF if value <= -BIG else value, INF
    return value, value


def set_bound(b: ModelBuilder, k: int, sense: str, value: float) -> bool:
    """Apply ``x_k <sense> value``; False (nothing changed) for a fix at an infinite value."""
    if sense == "<=":
        b.ub[k] = INF if value >= BIG else value
    elif sense == ">=":
        b.lb[k] = -INF if value <= -BIG else value
    else:
        if abs(value) >= BIG:
            return False
        b.lb[k] = b.ub[k] = value
    return True


def declare(b: ModelBuilder, k: int, vtype: str) -> None:
    """Variable ``k`` listed in a Generals (I), Binaries (B) or semi-continuous (S) section."""
    before = b.types[k]
    # Generals and Semi-continuous together make a semi-integer variable.
    if vtype == "S":
        vtype_k = "N" if before in ("I", "N") else "S"
    elif vtype == "I" and before in ("S", "N"):
        vtype_k = "N"
    else:
        vtype_k = vtype
    b.types[k] = vtype_k
    if vtype == "B":
        # As Gurobi does: a binary's bounds are clipped to [0, 1].
        b.lb[k] = max(b.lb[k], 0.0)
        b.ub[k] = min(b.ub[k], 1.0)
