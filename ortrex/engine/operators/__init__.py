"""Mutation operators, one module per kind of change; importing the package registers them
(``registry.OPERATORS``), and a plugin's operators join them on the registry's first read."""

from ortrex.engine.operators import (  # noqa: F401 - importing registers the operators
    constraints,
    costs,
    crossover,
    numbers,
    objective,
    periods,
    presentation,
    routes,
    uncertainty,
    variables,
)
