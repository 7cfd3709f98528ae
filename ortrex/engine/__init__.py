"""Batch jobs (generation, import, mutation, filters): the one layer that combines the others."""
