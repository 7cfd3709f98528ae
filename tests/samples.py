"""Small model files used by the job and CLI tests."""

from __future__ import annotations

from pathlib import Path

from ortrex.ir import CanonicalModel, Constraint, Objective, Variable
from ortrex.ir.formats import write_model

KNAPSACK_LP = """\\ Model knapsack
Maximize
 5 x[0] + 4 x[1] + 3 x[2]
Subject To
 cap: 2 x[0] + 3 x[1] + x[2] <= 5
Bounds
Binaries
 x[0] x[1] x[2]
End
"""


def transport() -> CanonicalModel:
    """A 2 x 2 transportation LP (optimum 2*10 + 3*5 + 1*5 = ... see the tests)."""
    return CanonicalModel.from_items(
        [Variable(f"f[{i},{j}]") for i in range(2) for j in range(2)],
        Objective("min", {"f[0,0]": 2, "f[0,1]": 4, "f[1,0]": 3, "f[1,1]": 1}),
        [Constraint.from_sense("supply0", {"f[0,0]": 1, "f[0,1]": 1}, "<=", 10),
         Constraint.from_sense("supply1", {"f[1,0]": 1, "f[1,1]": 1}, "<=", 10),
         Constraint.from_sense("demand0", {"f[0,0]": 1, "f[1,0]": 1}, ">=", 12),
         Constraint.from_sense("demand1", {"f[0,1]": 1, "f[1,1]": 1}, ">=", 5)],
        name="transport")


def write_samples(folder: Path) -> dict[str, Path]:
    """knapsack.lp, a byte copy of it, transport.mps, transport.json (same model twice)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"knapsack": folder / "knapsack.lp", "copy": folder / "sub" / "knapsack_copy.lp",
             "mps": folder / "transport.mps", "json": folder / "transport.json"}
    paths["knapsack"].write_text(KNAPSACK_LP)
    paths["copy"].parent.mkdir(exist_ok=True)
    paths["copy"].write_text(KNAPSACK_LP)
    write_model(transport(), paths["mps"])
    write_model(transport(), paths["json"])
    return paths


def verified_parent(family: str, seed: int = 7, size: str = "small") -> tuple:
    """A sampled model of ``family``, its verified instance, its optimum's values per
    variable family, the optimal point and the optimum (the parent of a mutation)."""
    import numpy as np

    from ortrex.engine.families import REGISTRY
    from ortrex.engine.generate.mutate import family_values
    from ortrex.engine.generate.pipeline import verify

    # The first accepted draw from ``seed`` on (the gates reject trivial instances).
    for k in range(seed, seed + 40):
        sm = REGISTRY[family].sample(np.random.default_rng(k), size)
        inst = sm.ground()
        out = verify(inst, sm)
        if out.accepted:
            break
    assert out.accepted, (family, out.rejection)
    # The first solver with a plan (HiGHS has none for a family only Gurobi can solve).
    best = next(r for r in out.results if r.x is not None)
    return sm, inst, family_values(sm, list(inst.var_names), best.x), best.x, best.objective
