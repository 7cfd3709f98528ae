"""Accepted documents as JSONL or Parquet, for users of HF ``datasets``."""

from __future__ import annotations

import os
from pathlib import Path

from ortrex.export.cpt import NOT_HELD_OUT
from ortrex.export.errors import ExportError
from ortrex.export.manifest import check_output

COLUMNS = ("d.id, d.kind, d.form, d.style, d.template, d.text, d.messages, d.statement, "
           "d.data_files, d.program, d.objective, d.instance_id, i.family, i.problem_class, "
           "i.difficulty_band")


def export_plain(db: str | Path, output: str | Path, fmt: str, kinds: tuple[str, ...],
                 where: str = "true") -> int:
    """Write the documents (atomically); the number written."""
    from ortrex.export.sources import where_columns
    from ortrex.store import Store
    from ortrex.store.errors import QueryError

    if fmt not in ("jsonl", "parquet"):
        raise ExportError(f"unknown format {fmt!r}")
    out = check_output(output)
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    sql = (f"SELECT {COLUMNS} FROM documents d LEFT JOIN instances i ON i.id = d.instance_id "
           "WHERE d.status = 'accepted' AND d.kind IN (SELECT unnest($kinds)) "
           f"AND d.{NOT_HELD_OUT} AND ({where}) "
           "ORDER BY d.created_at, d.id")
    with Store(db, read_only=True) as store:
        try:
            n = store.query(f"SELECT count(*) FROM ({sql})", {"kinds": list(kinds)}).item()
        except QueryError as exc:
            raise ExportError(f"--where failed: {exc} (the documents' columns, as d.: "
                              f"{where_columns(store)}; the instances', as i.: "
                              f"{where_columns(store, 'instances')})") from None
        if n == 0:
            raise ExportError("no accepted document matches")
        options = "FORMAT json" if fmt == "jsonl" else "FORMAT parquet"
        try:
            store.conn.execute(f"COPY ({sql}) TO '{tmp}' ({options})", {"kinds": list(kinds)})
            os.replace(tmp, out)
        finally:
            tmp.unlink(missing_ok=True)
    return int(n)
