"""Where export input comes from: JSONL files read in chunks of raw lines (parsed in the
workers, line numbers kept), or accepted documents of the store read in batches."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.export.errors import ExportError

CHUNK_BYTES = 1 << 20  # raw JSONL per task: big enough to amortise, small enough to stream


@dataclass
class Chunk:
    """A slice of input: raw JSONL lines (with the first line's number) or store rows."""

    path: str = ""
    first_line: int = 0
    lines: list[bytes] = field(default_factory=list)
    rows: list[tuple[str, Any]] = field(default_factory=list)  # (document id, text/messages)


@dataclass
class Record:
    """One parsed input record, or the reason it is bad."""

    key: str  # a document id, or path:line
    value: Any = None
    error: str | None = None


def jsonl_chunks(paths: list[Path], chunk_bytes: int | None = None) -> Iterator[Chunk]:
    """Raw lines of JSONL files, ``CHUNK_BYTES`` at a time."""
    chunk_bytes = chunk_bytes or CHUNK_BYTES
    for path in paths:
        try:
            f = open(path, "rb")  # noqa: SIM115 - closed below, streamed
        except OSError as exc:
            raise ExportError(f"{path}: cannot read: {exc.strerror or exc}") from None
        with f:
            line_no = 1
            while True:
                lines = f.readlines(chunk_bytes)
                if not lines:
                    break
                yield Chunk(str(path), line_no, lines)
                line_no += len(lines)


def parse_lines(chunk: Chunk, keys: tuple[str, ...]) -> dict[str, list[Record]]:
    """Records of a JSONL chunk, per key: that key's value of each line (blank lines skipped;
    each line parsed once whatever the number of keys)."""
    out: dict[str, list[Record]] = {k: [] for k in keys}
    for k, raw in enumerate(chunk.lines):
        where = f"{chunk.path}:{chunk.first_line + k}"
        if not raw.strip():
            continue
        try:
            obj = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            obj, error = None, f"{where}: not valid JSON ({str(exc)[:80]})"
        else:
            error = None if isinstance(obj, dict) else f"{where}: expected a JSON object"
        for key in keys:
            if error is not None:
                out[key].append(Record(where, error=error))
            elif key not in obj:
                out[key].append(Record(where, error=f"{where}: missing key {key!r}"))
            else:
                out[key].append(Record(where, obj[key]))
    return out


def where_columns(store: Any, table: str = "documents") -> str:
    """The columns a ``--where`` filter over ``table`` can name, for its error message."""
    return ", ".join(r[0] for r in store.conn.execute(f"DESCRIBE {table}").fetchall())


def check_query(store: Any, sql: str, params: list[Any] | dict[str, Any]) -> None:
    """Plan ``sql`` without reading a row: a bad ``--where`` (an unknown column, a syntax
    error) is one line naming what the filter can use, before any output is made."""
    import duckdb

    try:
        store.conn.execute(f"SELECT * FROM ({sql}) LIMIT 0", params)
    except duckdb.Error as exc:
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        raise ExportError(f"--where failed: {first} (the documents' columns: "
                          f"{where_columns(store)})") from None


def store_chunks(db: str, sql: str, params: list[Any], rows: int = 256) -> Iterator[Chunk]:
    """(id, value) rows of a store query, in batches (a read-only connection of its own);
    the query is checked here, at the call, not at the first batch."""
    from ortrex.store import Store

    with Store(db, read_only=True) as store:
        check_query(store, sql, params)
    return _batches(db, sql, params, rows)


def _batches(db: str, sql: str, params: list[Any], rows: int) -> Iterator[Chunk]:
    from ortrex.store import Store

    with Store(db, read_only=True) as store:
        cur = store.conn.execute(sql, params)
        while True:
            batch = cur.fetchmany(rows)
            if not batch:
                break
            yield Chunk(rows=[(str(r[0]), r[1]) for r in batch])
