"""ortrex: a data-centric corpus engine for Operations Research language models.

The library's front door, imported lazily (``import ortrex`` stays instant, and a command
that never touches the store never loads DuckDB)::

    import ortrex
    m = ortrex.read_model("model.lp")
    ortrex.check_equivalence(m, "other.mps").verdict
    with ortrex.Store("ortrex.duckdb", read_only=True) as s:
        s.query("SELECT family, count(*) FROM instances GROUP BY 1")
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

# Name -> the module that defines it (the top level is a facade over every layer).
_API = {
    "CanonicalModel": "ortrex.ir",
    "read_model": "ortrex.ir.formats",
    "write_model": "ortrex.ir.formats",
    "to_highs": "ortrex.ir.formats",
    "to_gurobi": "ortrex.ir.formats",
    "solve_highs": "ortrex.verifiers.solvers",
    "solve_gurobi": "ortrex.verifiers.solvers",
    "check_equivalence": "ortrex.verifiers.equivalence",
    "check_certificate": "ortrex.verifiers.equivalence",
    "Store": "ortrex.store",
    "walk": "ortrex.store.lineage",
}

__all__ = ["__version__", *_API]


def __getattr__(name: str) -> Any:
    """Load a public name on first use."""
    if name in _API:
        value = getattr(import_module(_API[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'ortrex' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
