"""Rendering of problem statements (DP / DT / DPS), formulations, programs and documents."""
