"""Where the shared public benchmark data lives (never copied into the repository)."""

from __future__ import annotations

import os
from pathlib import Path


def benchmarks_dir() -> Path | None:
    """``$ORTREX_BENCHMARKS``, else ``../shared/benchmarks`` beside the checkout or the cwd."""
    env = os.environ.get("ORTREX_BENCHMARKS")
    if env:
        return Path(env) if Path(env).is_dir() else None
    repo = Path(__file__).resolve().parents[1]
    for base in (Path.cwd(), repo):
        cand = base.parent / "shared" / "benchmarks"
        if cand.is_dir():
            return cand
    return None

