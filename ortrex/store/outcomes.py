"""A run that accepted nothing because of one cause (the machine, not the data) says so."""

from __future__ import annotations

from typing import Any

# Fewer outcomes than this prove nothing: three documents rejected alike may be the data.
MIN_OUTCOMES = 3

_CAUSES = """
SELECT 'rejected: ' || reject_reason || coalesce(': ' || split_part(trim(reject_detail), chr(10),
       1), '') AS cause, status = 'accepted' AS ok
FROM documents WHERE run_id = $run
UNION ALL
SELECT 'rejected: ' || reason, outcome = 'accepted' FROM run_tasks
WHERE run_id = $run AND outcome <> 'failed'  -- a failed task is its task_failures row
UNION ALL
SELECT 'failed: ' || split_part(error, chr(10), 1), false FROM task_failures WHERE run_id = $run
"""


def one_cause(store: Any, run_id: str) -> tuple[int, str] | None:
    """(count, cause) when ``run_id`` accepted nothing and every one of its at least
    ``MIN_OUTCOMES`` rejections and failures has the same cause; None otherwise."""
    df = store.query(_CAUSES, {"run": run_id})
    if df.height < MIN_OUTCOMES or bool(df["ok"].any()):
        return None
    causes = set(df["cause"].to_list())
    return (df.height, causes.pop()) if len(causes) == 1 else None
