"""The public OR benchmarks as items: NL4OPT, OptiBench, B4O-Feasible and B4O-ORGEval.

Each loader reads the files of ``../shared/benchmarks`` (or ``--data-dir`` /
``ORTREX_BENCHMARKS``) unchanged and hashes every byte it read: the hash is the benchmark's
version in every manifest. An item whose ground truth cannot be read is kept and marked
``unscoreable`` (it stays in the denominator, as a failure, and is counted apart), never
silently dropped. Bench4opt describes each reference LP twice; the two items are paraphrase
twins (``twin``), excluded from each other's few-shot pools.
"""

from __future__ import annotations

import hashlib
import io
import json
import math
import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.paths import benchmarks_dir

NAMES = ("nl4opt", "optibench", "b4o-feasible", "b4o-orgeval")
TITLES = {"nl4opt": "NL4OPT", "optibench": "OptiBench", "b4o-feasible": "B4O-Feasible",
          "b4o-orgeval": "B4O-ORGEval", "ortrex-heldout": "ortrex-heldout"}


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
        return TITLES.get(self.name, self.name)


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


class _Reader:
    """Reads files under the data directory, hashing everything it reads."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.h = hashlib.sha256()

    def bytes(self, rel: str) -> bytes:
        path = self.root / rel
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise BenchmarkError(f"{path}: cannot read ({exc.strerror})") from None
        self.h.update(rel.encode() + b"\0" + data)
        return data

    def jsonl(self, rel: str) -> list[dict[str, Any]]:
        out = []
        for k, line in enumerate(self.bytes(rel).decode("utf-8").splitlines(), 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except ValueError as exc:
                    raise BenchmarkError(f"{self.root / rel}:{k}: not valid JSON ({exc})"
                                         ) from None
        return out


def _number(value: Any) -> tuple[float | None, str | None]:
    try:
        v = float(str(value).strip())
    except ValueError:
        return None, f"ground truth {str(value)[:40]!r} is not a number"
    if not math.isfinite(v):
        return None, f"ground truth {value!r} is not finite"
    return v, None


def _nl4opt(r: _Reader) -> list[Item]:
    import pyarrow.parquet as pq

    data = r.bytes("nl4opt/test.parquet")
    table = pq.read_table(io.BytesIO(data)).to_pylist()
    items = []
    for k, row in enumerate(table):
        ans, why = _number(row.get("en_answer"))
        items.append(Item("nl4opt", f"nl4opt_{k}", str(row["en_question"]), "objective", ans,
                          unscoreable=why))
    return items


def _optibench(r: _Reader) -> list[Item]:
    rows = json.loads(r.bytes("optibench/OptiBench.json"))
    items = []
    for k, row in enumerate(rows):
        ans, why = _number(row.get("en_answer"))
        items.append(Item("optibench", f"optibench_{k}", str(row["en_question"]), "objective",
                          ans, unscoreable=why))
    return items


def _bench4opt(r: _Reader, folder: str, name: str, kind: str) -> list[Item]:
    rows = r.jsonl(f"{folder}/test.jsonl")
    items = []
    for row in rows:
        files = {"data.json": r.bytes(f"{folder}/{row['data_path']}").decode("utf-8")}
        ans, why = (None, None)
        if kind == "objective":
            ans, why = _number(row.get("optimal_value"))
        ref_lp = str(r.root / folder / row["reference_lp_path"]) \
            if row.get("reference_lp_path") else None
        if kind == "lp" and ref_lp and not Path(ref_lp).is_file():
            why = f"reference LP {row['reference_lp_path']} is missing"
        items.append(Item(name, str(row["id"]), str(row["problem"]), kind, ans, files,
                          row.get("reference_code"), ref_lp, unscoreable=why))
    # Twins: items whose reference LPs are the same bytes (each LP is described twice).
    by_lp: dict[bytes, list[Item]] = defaultdict(list)
    for it, row in zip(items, rows, strict=True):
        if it.reference_lp and Path(it.reference_lp).is_file():
            lp = r.bytes(f"{folder}/{row['reference_lp_path']}")
            by_lp[hashlib.sha256(lp).digest()].append(it)
    for group in by_lp.values():
        if len(group) == 2:
            group[0].twin, group[1].twin = group[1].id, group[0].id
    return items


def load(name: str, root: str | Path | None = None) -> Benchmark:
    """One benchmark by name (``nl4opt``, ``optibench``, ``b4o-feasible``, ``b4o-orgeval``)."""
    base = data_dir(root)
    r = _Reader(base)
    if name == "nl4opt":
        items = _nl4opt(r)
    elif name == "optibench":
        items = _optibench(r)
    elif name == "b4o-feasible":
        items = _bench4opt(r, "bench4opt_feasible", name, "objective")
    elif name == "b4o-orgeval":
        items = _bench4opt(r, "bench4opt", name, "lp")
    else:
        raise BenchmarkError(f"unknown benchmark {name!r}; expected one of "
                             f"{', '.join((*NAMES, 'ortrex-heldout'))}")
    return Benchmark(name, items, r.h.hexdigest(), str(base))


def parse_names(spec: str) -> list[str]:
    """Benchmark names from ``a,b,c`` (``all``: the four public ones), checked."""
    names = list(NAMES) if spec.strip() == "all" else \
        [s.strip().lower() for s in spec.split(",") if s.strip()]
    for n in names:
        if n not in (*NAMES, "ortrex-heldout"):
            raise BenchmarkError(f"unknown benchmark {n!r}; expected one of "
                                 f"{', '.join((*NAMES, 'ortrex-heldout'))}")
    if not names:
        raise BenchmarkError("no benchmark named")
    return names
