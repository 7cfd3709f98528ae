"""Verifiers: solvers, structural equivalence, sandboxed execution, fidelity and dedup."""
