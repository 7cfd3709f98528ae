"""Plugins: modules that register families, operators, checks, benchmarks or kernels on import.

A plugin is any importable module whose import registers something (``@register`` on a family,
``@operator`` on an operator, a ``DocCheck`` appended to the check list, a ``Benchmark`` class
registered with the benchmark registry, a kernel row in the kernel table). Plugins are named by
the ``ortrex.plugins`` entry-point group of installed distributions and by ``$ORTREX_PLUGINS``
(module names, comma-separated); every registry loads them before it is first read, so worker
processes, which inherit the environment, see the same registries as the parent.
"""

from __future__ import annotations

import importlib
import os
from importlib.metadata import entry_points

GROUP = "ortrex.plugins"
ENV = "ORTREX_PLUGINS"

_loaded: set[str] = set()


class PluginError(Exception):
    """A named plugin cannot be imported (one line: which plugin, and why)."""


def plugin_names() -> list[str]:
    """The plugin modules named by entry points and by ``$ORTREX_PLUGINS``, in that order."""
    names = [ep.value.split(":", 1)[0] for ep in entry_points(group=GROUP)]
    names += [n.strip() for n in os.environ.get(ENV, "").split(",") if n.strip()]
    return list(dict.fromkeys(names))


def load_plugins() -> list[str]:
    """Import every plugin not imported yet; the names of those imported now."""
    new = []
    for name in plugin_names():
        if name in _loaded:
            continue
        _loaded.add(name)  # before the import: a plugin importing a registry must not recurse
        try:
            importlib.import_module(name)
        except Exception as exc:
            _loaded.discard(name)
            raise PluginError(f"plugin {name!r} (from {ENV} or the {GROUP!r} entry points) "
                              f"cannot be imported: {type(exc).__name__}: {exc}") from exc
        new.append(name)
    return new
