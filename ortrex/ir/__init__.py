"""The data model: canonical (solver-level) IR, its normal form, fingerprints and file formats."""

from ortrex.ir.canonical import (
    CanonicalModel,
    Constraint,
    ModelStats,
    Objective,
    ObjSense,
    Variable,
    VarType,
)

__all__ = [
    "CanonicalModel",
    "Constraint",
    "ModelStats",
    "ObjSense",
    "Objective",
    "VarType",
    "Variable",
]
