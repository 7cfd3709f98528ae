"""Benchmarks: one module each, one registry for evaluation, decontamination, report, selftest."""
