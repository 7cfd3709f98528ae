"""Hand-written gurobipy twins of the families, one module per group of families.

Each twin is written directly from the textbook formulation, with loops over the instance
data, and shares no code with the semantic IR; ``tests/engine/test_families_gurobi.py`` grounds
every family and compares. A module here registers its twins with ``@builder(name)``.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable

import gurobipy as gp
import numpy as np

Data = dict[str, np.ndarray]
Build = Callable[[gp.Model, Data, dict[str, int]], None]
BUILDERS: dict[str, Build] = {}


def builder(name: str) -> Callable[[Build], Build]:
    """Register the twin of family ``name``."""
    def wrap(fn: Build) -> Build:
        if name in BUILDERS:
            raise ValueError(f"two twins for {name!r}")
        BUILDERS[name] = fn
        return fn
    return wrap


def r(n: int) -> range:
    """``range(n)``: the twins read like the textbook's index loops."""
    return range(n)


def load_all() -> dict[str, Build]:
    """Every twin of every module of this package."""
    for mod in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{mod.name}")
    return BUILDERS
