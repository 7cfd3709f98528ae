"""Problem families, one module each, registered by name in ``REGISTRY``."""

from ortrex.engine.families import (  # noqa: F401 - importing registers the families
    assignment,
    blending,
    covering,
    cutting,
    energy,
    facility,
    finance,
    hubs,
    inventory,
    knapsack,
    networks,
    nonlinear,
    pairing,
    production,
    rostering,
    routing,
    scheduling,
    shops,
    siting,
    transportation,
    uncertain,
    vehicles,
    word_problems,
)
from ortrex.engine.families.base import REGISTRY, SIZES, Family, Vocabulary

__all__ = ["REGISTRY", "SIZES", "Family", "Vocabulary"]
