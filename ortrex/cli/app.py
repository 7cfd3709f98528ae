"""The typer app every command module registers on, and what they share: options, errors, paths."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ortrex import __version__

# Heavy modules (numpy, scipy, duckdb, polars, solvers) are imported inside the commands, so
# `ortrex --help` and `--version` start fast.
FORMATS = ("lp", "mps", "mps-fixed", "mps-free", "json")


APP_SETTINGS: dict[str, object] = {
    "rich_markup_mode": None,
    "name": "ortrex",
    "help": "ortrex: a corpus engine for Operations Research language models.",
    "no_args_is_help": True,
    "pretty_exceptions_enable": False,
    "add_completion": True,  # --install-completion / --show-completion (bash, zsh, fish)
}
app = typer.Typer(**APP_SETTINGS)  # type: ignore[arg-type]


DbOption = Annotated[Path | None, typer.Option(
    "--db", envvar="ORTREX_DB", help="Store file (default ./ortrex.duckdb).", show_default=False)]


class UsageError(Exception):
    """Bad command-line input that click cannot see (one line, exit 2)."""


def atomic_write(path: Path, data: bytes) -> None:
    """Write ``data`` to ``path`` through a temporary file and a rename."""
    from ortrex.ir.formats.text import write_atomic

    write_atomic(path, data)


_root_db: Path | None = None


def store_path(db: Path | None) -> Path:
    """The store path: the sub-command's --db, else the global --db, else $ORTREX_DB/default."""
    from ortrex.store.db import resolve_db

    return resolve_db(db or _root_db)


def _print_version(value: bool) -> None:
    if value:
        print(f"ortrex {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    db: DbOption = None,
    debug: Annotated[bool, typer.Option("--debug", help="Show tracebacks on errors.")] = False,
    version: Annotated[bool, typer.Option(
        "--version", help="Print the version and exit.", callback=_print_version,
        is_eager=True)] = False,
) -> None:
    global _root_db
    _root_db = db
