"""The result lines of a run: one JSON line per (item, sample) in ``<benchmark>.jsonl``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any


def read_results(path: Path) -> list[dict[str, Any]]:
    """The result lines of a benchmark (a torn last line from a killed run is dropped and cut
    off the file, so appending continues cleanly)."""
    if not path.is_file():
        return []
    data = path.read_bytes()
    good_end = data.rfind(b"\n") + 1
    if good_end < len(data):
        with open(path, "r+b") as f:
            f.truncate(good_end)
    rows = []
    for line in data[:good_end].splitlines():
        if line.strip():
            try:
                rows.append(json.loads(line))
            except ValueError:
                continue
    # One line per (item, sample). An ``api_error`` line (no completion: the endpoint failed)
    # is asked again by the next run, and the line that run writes replaces it.
    best: dict[tuple[str, int], dict[str, Any]] = {}
    for r in rows:
        key = (r["id"], int(r["sample"]))
        old = best.get(key)
        if old is None or old.get("failure") == "api_error":
            best[key] = r
    return list(best.values())
