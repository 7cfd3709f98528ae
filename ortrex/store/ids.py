"""Content-derived ids: a hash of what a row means, so reruns neither lose nor duplicate rows."""

from __future__ import annotations

import hashlib
import json
from typing import Any


def content_id(kind: str, *parts: Any) -> str:
    """``<kind>_<32 hex>`` from a canonical JSON of ``parts``."""
    blob = json.dumps([kind, *parts], sort_keys=True, separators=(",", ":"), default=str)
    return f"{kind}_{hashlib.sha256(blob.encode('utf-8')).hexdigest()[:32]}"


def edge_id(parent_id: str, child_id: str, relation: str, operator: str | None = None) -> str:
    """Id of a lineage edge."""
    return content_id("edge", parent_id, child_id, relation, operator)


def verification_id(subject_id: str, verifier: str) -> str:
    """Id of the (subject, verifier) verdict: one row per pair, replaced on re-runs."""
    return content_id("ver", subject_id, verifier)
