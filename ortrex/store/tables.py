"""The store's table names and JSON columns as plain data, for commands that only read.

Opening a store needs these facts, not the SQLModel classes of ``schema`` (sqlmodel and
SQLAlchemy cost about 0.7 s to import): ``schema`` builds new stores and migrations, and
``tests/store`` holds this module to it.
"""

from __future__ import annotations

SCHEMA_VERSION = 6

# Every table, in the order ``schema.TABLES`` creates them.
TABLE_NAMES = ("schema_version", "runs", "sources", "instances", "semantic_models", "documents",
               "verifications", "lineage", "exports", "run_tasks", "task_failures", "answers",
               "diagnoses", "repairs", "reviews", "clean_stages")

# The JSON columns of each table (an insert serialises dicts and lists in them).
JSON_COLUMNS: dict[str, frozenset[str]] = {
    "runs": frozenset({"config", "counts"}),
    "instances": frozenset({"flags"}),
    "semantic_models": frozenset({"descriptors", "model"}),
    "documents": frozenset({"data_files", "messages"}),
    "verifications": frozenset({"details"}),
    "lineage": frozenset({"params"}),
    "exports": frozenset({"manifest"}),
    "answers": frozenset({"prompt"}),
    "diagnoses": frozenset({"details"}),
    "repairs": frozenset({"validation"}),
    "reviews": frozenset({"details"}),
}
