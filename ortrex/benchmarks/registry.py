"""The benchmark registry: every benchmark evaluation, decontamination, the corpus report and
``ortrex eval selftest`` know of.

The public OR benchmarks (NL4OPT, OptiBench, B4O-Feasible, B4O-ORGEval) and the held-out split
are one module each in this package; a plugin (``ortrex.plugins``) adds one more by defining a
:class:`~ortrex.benchmarks.base.BenchmarkSource` subclass decorated with :func:`register`.
Every reader below loads the plugins first, so a registered benchmark is scored, listed and
used for decontamination alike.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from ortrex.benchmarks import b4o_feasible, b4o_orgeval, heldout, nl4opt, optibench
from ortrex.benchmarks.base import (
    Benchmark,
    BenchmarkError,
    BenchmarkSource,
    BenchmarkText,
    Item,
    data_dir,
    register,
    sources,
)
from ortrex.paths import benchmarks_dir
from ortrex.plugins import load_plugins

__all__ = ["NAMES", "TITLES", "Benchmark", "BenchmarkError", "BenchmarkSource",
           "BenchmarkText", "Item", "data_dir", "decontamination_texts", "load", "parse_names",
           "public_names", "reference_model_paths", "register", "registered"]

# The built-in benchmarks in the order every table shows them; plugins follow.
BUILTIN: tuple[type[BenchmarkSource], ...] = (
    nl4opt.NL4OPT, optibench.OptiBench, b4o_feasible.B4OFeasible, b4o_orgeval.B4OORGEval,
    heldout.HeldOut)

# The four public benchmarks of the papers: ``all``'s built-in part and the "Average" columns.
NAMES: tuple[str, ...] = tuple(c.name for c in BUILTIN if not c.needs_store)


def registered() -> dict[str, type[BenchmarkSource]]:
    """Every registered benchmark by name: the built-in ones, then the plugins' ones."""
    load_plugins()
    found = sources()
    order = [*BUILTIN, *(c for c in found.values() if c not in BUILTIN)]
    return {c.name: c for c in order}


class _Titles(Mapping[str, str]):
    """Display names by benchmark name, read from the registry at each lookup (so a plugin's
    benchmark has its title too)."""

    def __getitem__(self, name: str) -> str:
        # A name already registered needs no plugin scan (entry points cost milliseconds).
        cls = sources().get(name) or registered()[name]
        return cls.title

    def __iter__(self) -> Iterator[str]:
        return iter(registered())

    def __len__(self) -> int:
        return len(registered())


TITLES: Mapping[str, str] = _Titles()


def public_names() -> list[str]:
    """The benchmarks read from the data directory (``all``): the four public ones, then the
    plugins'."""
    return [n for n, c in registered().items() if not c.needs_store]


def _unknown(name: str) -> BenchmarkError:
    return BenchmarkError(f"unknown benchmark {name!r}; expected one of "
                          f"{', '.join(registered())}")


def load(name: str, root: str | Path | None = None, db: str | Path | None = None
         ) -> Benchmark:
    """One benchmark by name, from the data directory ``root`` (or from the store ``db``
    for a benchmark that lives there, such as ``ortrex-heldout``)."""
    cls = registered().get(name)
    if cls is None:
        raise _unknown(name)
    if cls.needs_store:
        if db is None:
            raise BenchmarkError(f"{name} needs a store (--db)")
        return cls().from_store(db)
    return cls().read(data_dir(root))


def parse_names(spec: str) -> list[str]:
    """Benchmark names from ``a,b,c`` (``all``: every public one), checked."""
    known = registered()
    names = public_names() if spec.strip() == "all" else \
        [s.strip().lower() for s in spec.split(",") if s.strip()]
    for n in names:
        if n not in known:
            raise _unknown(n)
    if not names:
        raise BenchmarkError("no benchmark named")
    return names


def _root(root: Path | None) -> Path | None:
    return benchmarks_dir() if root is None else root


def decontamination_texts(root: Path | None = None) -> list[BenchmarkText]:
    """The problem texts of every registered benchmark whose data is under ``root`` (default:
    the shared benchmarks; none when absent)."""
    base = _root(root)
    if base is None:
        return []
    out: list[BenchmarkText] = []
    for cls in registered().values():
        src = cls()
        if src.present(base):
            out += src.texts(base)
    return out


def reference_model_paths(root: Path | None = None) -> list[Path]:
    """Every registered benchmark's reference model files under ``root`` (default: the shared
    benchmarks; none when absent), sorted by path."""
    base = _root(root)
    if base is None:
        return []
    return sorted({f for cls in registered().values() for f in cls().reference_models(base)})
