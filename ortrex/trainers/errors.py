"""Errors of the trainer: bad input or options, reported in one line (exit 2)."""

from __future__ import annotations


class TrainError(ValueError):
    """A training run, recipe or launch that cannot go as asked (bad data, model, options or
    checkpoint): one line naming what is wrong."""
