"""Model files: LP (Gurobi dialect), MPS (free and fixed), MOF-style JSON; solver objects.

``read_model`` / ``write_model`` pick the format from the file name (``.lp``, ``.mps``,
``.json``, each optionally ``.gz`` or ``.bz2``) or from ``fmt``; ``loads`` / ``dumps`` work on
text.
"""

from __future__ import annotations

import bz2
import gzip
from pathlib import Path

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.formats.errors import (
    ModelFileError,
    ModelFileWarning,
    UnsupportedFeatureError,
    UnsupportedModelError,
)
from ortrex.ir.formats.gurobi import from_gurobi, to_gurobi
from ortrex.ir.formats.highs import from_highs, new_highs, to_highs
from ortrex.ir.formats.lp_read import parse_lp
from ortrex.ir.formats.lp_write import write_lp
from ortrex.ir.formats.mof import parse_json, to_mof, write_json
from ortrex.ir.formats.mps_read import parse_mps
from ortrex.ir.formats.mps_write import write_mps
from ortrex.ir.formats.text import COMPRESSED, decode_text, read_bytes, write_atomic

FORMATS = ("lp", "mps", "mps-fixed", "mps-free", "json")
_SUFFIXES = {".lp": "lp", ".mps": "mps", ".json": "json", ".mof": "json"}

__all__ = [
    "FORMATS",
    "ModelFileError",
    "ModelFileWarning",
    "UnsupportedFeatureError",
    "UnsupportedModelError",
    "detect_format",
    "dumps",
    "from_gurobi",
    "from_highs",
    "loads",
    "new_highs",
    "read_model",
    "to_gurobi",
    "to_highs",
    "to_mof",
    "write_model",
]


def format_from_name(path: str | Path) -> str | None:
    """Format implied by a file name, or None."""
    suffixes = [s.lower() for s in Path(path).suffixes]
    if suffixes and suffixes[-1] in COMPRESSED:
        suffixes.pop()
    return _SUFFIXES.get(suffixes[-1]) if suffixes else None


def detect_format(path: str | Path, text: str) -> str:
    """Format from the file name, else from the content."""
    fmt = format_from_name(path)
    if fmt:
        return fmt
    head = text.lstrip()[:1]
    if head in ("{", "["):
        return "json"
    for line in text.splitlines()[:200]:
        if line.split()[:1] in (["ROWS"], ["NAME"], ["COLUMNS"]):
            return "mps"
    return "lp"


def loads(text: str, fmt: str, path: str = "<string>") -> CanonicalModel:
    """Parse ``text`` in format ``fmt``."""
    if fmt == "lp":
        return parse_lp(text, path)
    if fmt in ("mps", "mps-free", "mps-fixed"):
        return parse_mps(text, path, fixed={"mps": None, "mps-free": False,
                                            "mps-fixed": True}[fmt])
    if fmt == "json":
        return parse_json(text, path)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def dumps(model: CanonicalModel, fmt: str) -> str:
    """Text of ``model`` in format ``fmt``."""
    if fmt == "lp":
        return write_lp(model)
    if fmt in ("mps", "mps-free"):
        return write_mps(model)
    if fmt == "mps-fixed":
        return write_mps(model, fixed=True)
    if fmt == "json":
        return write_json(model)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")


def read_model(path: str | Path, fmt: str | None = None) -> CanonicalModel:
    """Read a model file; every problem raises :class:`ModelFileError` naming file and line."""
    text = decode_text(read_bytes(path), str(path))
    model = loads(text, fmt or detect_format(path, text), str(path))
    if not model.name:
        model = model.replace(name=Path(path).name.split(".")[0])
    return model


def write_model(model: CanonicalModel, path: str | Path, fmt: str | None = None) -> None:
    """Write a model file atomically (a temporary file renamed into place)."""
    fmt = fmt or format_from_name(path)
    if fmt is None:
        raise ValueError(f"cannot tell the format of {str(path)!r}; pass fmt")
    data = dumps(model, fmt).encode("utf-8")
    suffix = Path(path).suffix.lower()
    if suffix == ".gz":
        data = gzip.compress(data, mtime=0)
    elif suffix == ".bz2":
        data = bz2.compress(data)
    write_atomic(path, data)
