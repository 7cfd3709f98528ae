"""Evaluation of served models on every registered benchmark (``ortrex.benchmarks``)."""
