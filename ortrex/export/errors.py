"""Errors of the export: bad input or options, reported in one line (exit 2)."""

from __future__ import annotations


class ExportError(ValueError):
    """An export that cannot run as asked (bad input, options or output location)."""


def require(module: str) -> object:
    """Import ``module`` or raise ``ExportError`` naming the extra that provides it."""
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise ExportError(f"export needs {module.split('.')[0]}: pip install -e '.[export]'"
                          ) from None
