"""What a benchmark is: its items, the loaded result, its problem texts, and the class each
benchmark module subclasses and registers.

A benchmark module defines one :class:`BenchmarkSource` subclass and decorates it with
:func:`register`: a name and a title, the data files whose presence means its data is there,
``load`` (the items, read through a :class:`Reader` that hashes every byte), and optionally its
folders of reference model files. Its problem texts for decontamination come from the loaded
items' questions unless it says otherwise. Loaders read the files of ``../shared/benchmarks``
(or ``--data-dir`` / ``ORTREX_BENCHMARKS``) unchanged; an item whose ground truth cannot be
read is kept and marked ``unscoreable`` (it stays in the denominator, as a failure, and is
counted apart), never silently dropped.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

from ortrex.paths import benchmarks_dir


class BenchmarkError(Exception):
    """A benchmark that cannot be loaded (missing directory or file, unknown name)."""


@dataclass
class Item:
    """One benchmark question with what it is scored against."""

    benchmark: str
    id: str
    question: str
    kind: str  # "objective" (run, compare the optimum) | "lp" (write an LP, compare structure)
    answer: float | None = None  # ground-truth objective
    files: dict[str, str] = field(default_factory=dict)  # data files the program reads
    reference_code: str | None = None
    reference_lp: str | None = None  # path of the reference LP (ORGEval)
    twin: str | None = None  # id of the paraphrase twin sharing the reference LP
    unscoreable: str | None = None  # why the ground truth cannot be used

    def to_dict(self) -> dict[str, Any]:
        """The item's identity and ground truth (no data files)."""
        return {"benchmark": self.benchmark, "id": self.id, "answer": self.answer,
                "reference_lp": self.reference_lp, "twin": self.twin,
                "unscoreable": self.unscoreable}


@dataclass
class Benchmark:
    """A loaded benchmark: its items and the sha256 of every byte read."""

    name: str
    items: list[Item]
    sha256: str
    source: str

    @property
    def title(self) -> str:
        """The display name."""
        cls = _SOURCES.get(self.name)
        return cls.title if cls is not None else self.name


@dataclass(frozen=True)
class BenchmarkText:
    """One public benchmark problem, as decontamination sees it."""

    source: str
    key: str
    text: str


def data_dir(explicit: str | Path | None = None) -> Path:
    """Where the benchmark data is: ``explicit``, ``ORTREX_BENCHMARKS`` or ``../shared``."""
    if explicit is not None:
        path: Path | None = Path(explicit)
    elif os.environ.get("ORTREX_BENCHMARKS"):
        path = Path(os.environ["ORTREX_BENCHMARKS"])
    else:
        path = benchmarks_dir()
        if path is None:
            raise BenchmarkError("no benchmark data: ../shared/benchmarks is absent (give "
                                 "--data-dir or set ORTREX_BENCHMARKS)")
    assert path is not None
    if not path.is_dir():
        raise BenchmarkError(f"{path}: benchmark data directory does not exist (give "
                             "--data-dir or set ORTREX_BENCHMARKS)")
    return path


class Reader:
    """Reads files under the data directory, hashing everything it reads (the hash is the
    benchmark's version in every manifest)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.h = hashlib.sha256()

    def bytes(self, rel: str) -> bytes:
        """The bytes of ``root/rel``, hashed with their path."""
        path = self.root / rel
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise BenchmarkError(f"{path}: cannot read ({exc.strerror})") from None
        self.h.update(rel.encode() + b"\0" + data)
        return data

    def jsonl(self, rel: str) -> list[dict[str, Any]]:
        """The JSON lines of ``root/rel`` (blank lines skipped)."""
        out = []
        for k, line in enumerate(self.bytes(rel).decode("utf-8").splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except ValueError as exc:
                    raise BenchmarkError(f"{self.root / rel}:{k}: not valid JSON ({exc})"
                                         ) from None
        return out

    def sha256(self) -> str:
        """The hash of everything read so far."""
        return self.h.hexdigest()


def number(value: Any) -> tuple[float | None, str | None]:
    """A ground truth as a finite float, or None and why not."""
    try:
        v = float(str(value).strip())
    except ValueError:
        return None, f"ground truth {str(value)[:40]!r} is not a number"
    if not math.isfinite(v):
        return None, f"ground truth {value!r} is not finite"
    return v, None


class BenchmarkSource:
    """A benchmark definition: subclass it in one module and decorate it with ``@register``."""

    name: ClassVar[str]
    title: ClassVar[str]
    scoring: ClassVar[str] = "objective"  # how items are scored: "objective" | "lp" (Item.kind)
    files: ClassVar[tuple[str, ...]] = ()  # data files (relative): all present = data present
    reference_dirs: ClassVar[tuple[str, ...]] = ()  # folders of reference model files
    reference_glob: ClassVar[str] = "*.lp"
    text_source: ClassVar[str | None] = None  # decontamination's name for it (default: name)
    needs_store: ClassVar[bool] = False  # read from the store (--db), not the data directory

    def load(self, r: Reader) -> list[Item]:
        """The items, read through ``r`` (so the benchmark's hash covers every byte read)."""
        raise NotImplementedError

    def read(self, root: Path) -> Benchmark:
        """The loaded benchmark from the data directory ``root``."""
        r = Reader(root)
        items = self.load(r)
        return Benchmark(self.name, items, r.sha256(), str(root))

    def from_store(self, db: str | Path) -> Benchmark:
        """The loaded benchmark from a store (only for ``needs_store`` benchmarks)."""
        raise BenchmarkError(f"{self.name} is read from the data directory, not a store")

    def present(self, root: Path) -> bool:
        """Whether this benchmark's data is under ``root``."""
        return not self.needs_store and all((root / f).is_file() for f in self.files)

    def text_key(self, index: int, item: Item) -> str:
        """An item's key among decontamination texts (default: its id)."""
        return item.id

    def texts(self, root: Path) -> list[BenchmarkText]:
        """The problem texts decontamination checks against: every item's question."""
        source = self.text_source or self.name
        return [BenchmarkText(source, self.text_key(k, it), it.question)
                for k, it in enumerate(self.read(root).items)]

    def reference_models(self, root: Path) -> list[Path]:
        """The reference model files under ``root`` (none when the folders are absent)."""
        return [f for d in self.reference_dirs if (root / d).is_dir()
                for f in sorted((root / d).glob(self.reference_glob))]


_SOURCES: dict[str, type[BenchmarkSource]] = {}


def register(cls: type[BenchmarkSource]) -> type[BenchmarkSource]:
    """Class decorator: add a benchmark to the registry (checked, so it cannot be half-done)."""
    for attr in ("name", "title"):
        if not isinstance(getattr(cls, attr, None), str) or not getattr(cls, attr):
            raise BenchmarkError(f"benchmark class {cls.__qualname__} has no {attr}")
    if not cls.needs_store and not cls.files:
        raise BenchmarkError(f"benchmark {cls.name!r} names no data files (files = (...)): "
                             "nothing would say whether its data is present")
    if cls.load is BenchmarkSource.load and not cls.needs_store:
        raise BenchmarkError(f"benchmark {cls.name!r} defines no load()")
    old = _SOURCES.get(cls.name)
    # The same class imported again (a reloaded module) replaces itself; another class may not
    # take a name already registered.
    if old is not None and (old.__module__, old.__qualname__) != (cls.__module__,
                                                                  cls.__qualname__):
        raise BenchmarkError(f"benchmark {cls.name!r} is registered twice "
                             f"({old.__module__}.{old.__qualname__} and "
                             f"{cls.__module__}.{cls.__qualname__})")
    _SOURCES[cls.name] = cls
    return cls


def sources() -> dict[str, type[BenchmarkSource]]:
    """The benchmarks registered so far, in registration order (plugins not loaded: use
    :func:`ortrex.benchmarks.registry.registered`)."""
    return dict(_SOURCES)
