"""Batch equivalence checks: a JSONL file of pairs in, one JSON result per pair out, in order.

Pairs are checked in a few long-lived worker processes (no process start per pair), in chunks,
with a bounded window of chunks in flight so that results stream out in input order. A pair
that cannot be checked (a missing or malformed file, an unsupported construct) yields an error
record and the run goes on.
"""

from __future__ import annotations

import json
import os
import time
from collections import Counter, OrderedDict
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats import ModelFileError, UnsupportedModelError, read_model
from ortrex.jobs import Executor, TaskFailure, executor_for, in_order
from ortrex.verifiers.equivalence.check import check_equivalence

ERROR = "error"
CHUNK = 8  # pairs per task: amortises inter-process traffic, keeps the order window small


@dataclass
class Pair:
    """One input line: its number, the two paths (resolved) and the fields passed through."""

    line: int
    a: str | None
    b: str | None
    fields: dict[str, Any]
    error: str | None = None


@dataclass
class PairsReport:
    """Counts per verdict and the time taken."""

    verdicts: Counter[str] = field(default_factory=Counter)
    seconds: float = 0.0
    worker_pids: set[int] = field(default_factory=set)  # processes that checked pairs

    @property
    def pairs(self) -> int:
        """Pairs processed."""
        return sum(self.verdicts.values())


def read_pairs(path: Path) -> Iterator[Pair]:
    """Parse a pairs file lazily; relative model paths are relative to the pairs file."""
    base = path.parent
    with open(path, encoding="utf-8") as f:
        for number, text in enumerate(f, start=1):
            if not text.strip():
                continue
            where = f"{path}:{number}"
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as exc:
                yield Pair(number, None, None, {}, f"{where}: not valid JSON ({exc.msg})")
                continue
            if not isinstance(obj, dict):
                yield Pair(number, None, None, {}, f"{where}: expected a JSON object")
                continue
            missing = [k for k in ("a", "b") if not isinstance(obj.get(k), str) or not obj[k]]
            if missing:
                yield Pair(number, None, None, obj,
                           f"{where}: field {missing[0]!r} must be a model file path")
                continue
            a, b = (str(p if (p := Path(obj[k])).is_absolute() else base / p) for k in "ab")
            yield Pair(number, a, b, obj)


# Models kept per worker, least recently used out first past either bound: a reference
# compared with files hundreds of pairs apart, as when an evaluation lists sample 1 of every
# problem before sample 2, is read once, and a few huge models cannot fill the memory. A kept
# model holds its normal form, graph and colouring too: ~160 bytes per unit of size (variables
# + rows + coefficients) on the labelled suite, so the budget is ~160 MB per worker.
CACHE_BUDGET = 1_000_000
CACHE_MODELS = 2048


class ModelCache:
    """Parsed models by path (read again when the file's mtime or size changes), bounded by
    their count and total size."""

    def __init__(self, budget: int = CACHE_BUDGET, models: int = CACHE_MODELS) -> None:
        self.budget, self.max_models = budget, models
        self.size = 0
        self.reads = 0  # files parsed (a hit parses nothing)
        self._models: OrderedDict[str, tuple[tuple[int, int], CanonicalModel, int]] = \
            OrderedDict()

    def get(self, path: str) -> CanonicalModel:
        """The model of ``path``, parsed on its first use or when the file changed."""
        try:
            st = os.stat(path)
        except OSError as exc:
            raise ModelFileError(path, f"cannot read: {exc.strerror or exc}") from None
        stamp = (st.st_mtime_ns, st.st_size)
        hit = self._models.get(path)
        if hit is not None and hit[0] == stamp:
            self._models.move_to_end(path)
            return hit[1]
        model = read_model(path)
        self.reads += 1
        if hit is not None:  # the file changed: its old model goes
            self.size -= self._models.pop(path)[2]
        weight = model.num_vars + model.num_rows + model.nnz
        self._models[path] = (stamp, model, weight)
        self.size += weight
        while (self.size > self.budget or len(self._models) > self.max_models) \
                and len(self._models) > 1:
            self.size -= self._models.popitem(last=False)[1][2]
        return model


_cache = ModelCache()


def _model(path: str) -> CanonicalModel:
    """A parsed model, cached per worker (one reference is often compared with many files)."""
    return _cache.get(path)


def check_pair(a: str, b: str, rel_tol: float, time_limit: float | None,
               certificate: bool) -> dict[str, Any]:
    """The result record of one pair (an error record for bad input)."""
    t0 = time.perf_counter()
    try:
        result = check_equivalence(_model(a), _model(b), rel_tol=rel_tol, time_limit=time_limit)
    except (ModelFileError, UnsupportedModelError) as exc:
        return {"verdict": ERROR, "reason": str(exc), "seconds": time.perf_counter() - t0}
    except Exception as exc:  # one broken pair must not stop a batch; say what broke
        return {"verdict": ERROR, "reason": f"internal error: {type(exc).__name__}: {exc}",
                "seconds": time.perf_counter() - t0}
    out = result.to_dict(certificate=certificate)
    out["seconds"] = time.perf_counter() - t0
    return out


def _check_chunk(chunk: list[tuple[str, str]], rel_tol: float, time_limit: float | None,
                 certificate: bool) -> tuple[int, list[dict[str, Any]]]:
    return os.getpid(), [check_pair(a, b, rel_tol, time_limit, certificate) for a, b in chunk]


def _chunks(pairs: Iterable[Pair], size: int) -> Iterator[list[Pair]]:
    chunk: list[Pair] = []
    for p in pairs:
        chunk.append(p)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _record(p: Pair, result: dict[str, Any] | None) -> dict[str, Any]:
    if result is None:
        result = {"verdict": ERROR, "reason": p.error}
    return {**p.fields, "line": p.line, **result}


@dataclass(frozen=True)
class _CheckChunk:
    """The worker task: the readable pairs of a chunk checked (picklable for any executor)."""

    rel_tol: float
    time_limit: float | None
    certificate: bool

    def __call__(self, chunk: list[Pair]) -> tuple[int, list[dict[str, Any]]]:
        work = [(p.a, p.b) for p in chunk if p.error is None]
        return _check_chunk(work, self.rel_tol, self.time_limit,  # type: ignore[arg-type]
                            self.certificate)


def run_pairs(pairs: Iterable[Pair], emit: Callable[[dict[str, Any]], None], *,
              workers: int = 1, rel_tol: float = 1e-6, time_limit: float | None = None,
              certificate: bool = False, executor: Executor | None = None) -> PairsReport:
    """Check every pair, calling ``emit`` with each result record in input order; chunks of
    pairs run on ``executor`` (default: local processes for ``workers`` > 1, each with its
    own model cache)."""
    report = PairsReport()
    t0 = time.perf_counter()
    check = _CheckChunk(rel_tol, time_limit, certificate)
    with executor_for(executor, workers) as ex:
        for chunk, done in in_order(ex, check, _chunks(pairs, CHUNK)):
            if isinstance(done, TaskFailure):  # the worker died on this chunk
                results = [{"verdict": ERROR, "reason": f"checking the pair {done.line()}"}
                           for p in chunk if p.error is None]
            else:
                pid, results = done
                if results:
                    report.worker_pids.add(pid)
            it = iter(results)
            for p in chunk:
                rec = _record(p, None if p.error is not None else next(it))
                report.verdicts[rec["verdict"]] += 1
                emit(rec)
    report.seconds = time.perf_counter() - t0
    return report
