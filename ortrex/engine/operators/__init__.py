"""Mutation operators, one module per kind of change; ``engine.generate.mutate`` registers them."""
