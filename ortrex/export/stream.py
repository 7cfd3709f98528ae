"""An ordered, bounded map over worker processes that each hold a loaded tokenizer.

Chunks of input go out, results come back in input order; at most ``WINDOW x workers`` chunks
are in flight, so memory stays flat however large the corpus. The pool starts (and the first
window is submitted) on entering the context, so the caller's slow set-up that follows, such as
importing torch and megatron-core for the writers, overlaps with tokenization; the workers are
forked before that import and stay small. With one worker everything runs in this process
(and the tokenizer uses its own threads).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ortrex.export.tokenizers import Tok, load_tokenizer

WINDOW = 16  # chunks in flight per worker: enough to cover the writers' import at start
_TOK: Tok | None = None
_TOK_SPEC: str | None = None


def _init(spec: str | None) -> None:
    global _TOK
    # One tokenizer thread per worker process: the processes are the parallelism.
    os.environ["RAYON_NUM_THREADS"] = "1"
    _TOK = load_tokenizer(spec)


def _call(fn: Callable[[Tok, Any], Any], item: Any) -> Any:
    assert _TOK is not None
    return fn(_TOK, item)


@dataclass(frozen=True)
class TokTask:
    """``fn(tokenizer, item)`` as an executor task: each worker loads the tokenizer once."""

    fn: Callable[[Tok, Any], Any]
    tokenizer: str | None

    def __call__(self, item: Any) -> Any:
        global _TOK, _TOK_SPEC
        if _TOK is None or self.tokenizer != _TOK_SPEC:
            _init(self.tokenizer)
            _TOK_SPEC = self.tokenizer
        return _call(self.fn, item)


class OrderedMap:
    """``fn(tokenizer, item)`` for every item, in order, as a context manager; on an
    ``executor`` (``ortrex.jobs``, Ray among them) when one is given."""

    def __init__(self, fn: Callable[[Tok, Any], Any], items: Iterable[Any],
                 tokenizer: str | None, workers: int, executor: Any = None) -> None:
        self.fn, self.items, self.tokenizer, self.workers = fn, iter(items), tokenizer, workers
        self.executor = executor
        self.pool: ProcessPoolExecutor | None = None
        self.window: deque[Future[Any]] = deque()

    def _submit(self) -> bool:
        assert self.pool is not None
        try:
            item = next(self.items)
        except StopIteration:
            return False
        self.window.append(self.pool.submit(_call, self.fn, item))
        return True

    def __enter__(self) -> Iterator[Any]:
        if self.executor is not None:
            return self._on_executor()
        if self.workers <= 1:
            return self._inline()
        self.pool = ProcessPoolExecutor(self.workers, initializer=_init,
                                        initargs=(self.tokenizer,))
        while len(self.window) < WINDOW * self.workers and self._submit():
            pass
        return self._pooled()

    def _on_executor(self) -> Iterator[Any]:
        from ortrex.export.errors import ExportError
        from ortrex.jobs import TaskFailure

        for result in self.executor.map(TokTask(self.fn, self.tokenizer), self.items):
            if isinstance(result, TaskFailure):
                raise ExportError(f"a tokenization task failed: {result.line()}")
            yield result

    def _inline(self) -> Iterator[Any]:
        tok = load_tokenizer(self.tokenizer)
        for it in self.items:
            yield self.fn(tok, it)

    def _pooled(self) -> Iterator[Any]:
        while self.window:
            result = self.window.popleft().result()
            self._submit()
            yield result

    def __exit__(self, *exc: object) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=True, cancel_futures=True)
