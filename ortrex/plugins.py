"""Plugins: modules that register families, operators, checks, benchmarks or kernels on import.

A plugin is any importable module whose import registers something (``@register`` on a family,
``@operator`` on an operator, a ``DocCheck`` appended to the check list, a ``Benchmark`` class
registered with the benchmark registry, a kernel row in the kernel table). Plugins are named by
the ``ortrex.plugins`` entry-point group of installed distributions and by ``$ORTREX_PLUGINS``
(module names, comma-separated); every registry loads them before it is first read, so worker
processes, which inherit the environment, see the same registries as the parent.
"""

from __future__ import annotations

import functools
import importlib
import os
from collections.abc import Callable, Iterator, MutableMapping
from importlib.metadata import entry_points
from typing import TypeVar

GROUP = "ortrex.plugins"
ENV = "ORTREX_PLUGINS"

_loaded: set[str] = set()


class PluginError(Exception):
    """A named plugin cannot be imported (one line: which plugin, and why)."""


def plugin_names() -> list[str]:
    """The plugin modules named by entry points and by ``$ORTREX_PLUGINS``, in that order."""
    names = list(_entry_point_names())
    names += [n.strip() for n in os.environ.get(ENV, "").split(",") if n.strip()]
    return list(dict.fromkeys(names))


@functools.cache
def _entry_point_names() -> tuple[str, ...]:
    # Installed distributions do not change while a process runs, and scanning their metadata
    # costs milliseconds: read once, so a registry may load the plugins on every read.
    return tuple(ep.value.split(":", 1)[0] for ep in entry_points(group=GROUP))


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


T = TypeVar("T")


class Registry(MutableMapping[str, T]):
    """A name -> entry table that loads the plugins before every read, so an entry a plugin
    registers is seen by whoever reads the table, however late the plugin was named."""

    def __init__(self, load: Callable[[], object] = load_plugins) -> None:
        self._entries: dict[str, T] = {}
        self._load = load

    def __getitem__(self, name: str) -> T:
        self._load()
        return self._entries[name]

    def __setitem__(self, name: str, entry: T) -> None:
        self._entries[name] = entry

    def add(self, name: str, entry: T, kind: str = "entry") -> None:
        """Register ``entry`` as ``name``, once. No plugin is loaded: registering is what a
        plugin's import does, and the table's own package may still be importing."""
        if name in self._entries:
            raise ValueError(f"{kind} {name!r} registered twice")
        self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._entries))  # a copy: a plugin loaded while iterating adds rows

    def __len__(self) -> int:
        self._load()
        return len(self._entries)

    def __contains__(self, name: object) -> bool:
        self._load()
        return name in self._entries

    def __repr__(self) -> str:
        return f"Registry({list(self._entries)!r})"
