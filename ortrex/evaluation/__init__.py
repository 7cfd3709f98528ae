"""Evaluation of served models on NL4OPT, OptiBench, B4O-Feasible and B4O-ORGEval."""
