"""Mutation operators, one module per kind of change; ``ortrex.engine.mutate`` registers them."""
