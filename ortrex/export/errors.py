"""Errors of the export: bad input or options, reported in one line (exit 2)."""

from __future__ import annotations


class ExportError(ValueError):
    """An export that cannot run as asked (bad input, options or output location)."""
