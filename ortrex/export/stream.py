"""An ordered, bounded map over worker processes that each hold a loaded tokenizer.

Chunks of input go out, results come back in input order; at most ``2 x workers`` chunks are
in flight, so memory stays flat however large the corpus. With one worker everything runs in
this process (and the tokenizer uses its own threads).
"""

from __future__ import annotations

import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from ortrex.export.tokenizers import Tok, load_tokenizer

_TOK: Tok | None = None


def _init(spec: str | None) -> None:
    global _TOK
    # One tokenizer thread per worker process: the processes are the parallelism.
    os.environ["RAYON_NUM_THREADS"] = "1"
    _TOK = load_tokenizer(spec)


def _call(fn: Callable[[Tok, Any], Any], item: Any) -> Any:
    assert _TOK is not None
    return fn(_TOK, item)


def ordered_map(fn: Callable[[Tok, Any], Any], items: Iterable[Any], tokenizer: str | None,
                workers: int) -> Iterator[Any]:
    """``fn(tokenizer, item)`` for every item, in order."""
    if workers <= 1:
        tok = load_tokenizer(tokenizer)
        for it in items:
            yield fn(tok, it)
        return
    with ProcessPoolExecutor(workers, initializer=_init, initargs=(tokenizer,)) as pool:
        window: deque[Future[Any]] = deque()
        for it in items:
            window.append(pool.submit(_call, fn, it))
            if len(window) >= 2 * workers:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()
