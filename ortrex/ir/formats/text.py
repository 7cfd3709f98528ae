"""Reading model files as text: size, encoding and compression checks with precise messages."""

from __future__ import annotations

import gzip
import os
import tempfile
from pathlib import Path

from ortrex.ir.formats.errors import ModelFileError


def read_bytes(path: str | Path) -> bytes:
    """The file's bytes, gunzipped when it ends in ``.gz``; missing or unreadable files raise."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except FileNotFoundError:
        raise ModelFileError(str(path), "no such file") from None
    except IsADirectoryError:
        raise ModelFileError(str(path), "is a directory, not a model file") from None
    except OSError as exc:
        raise ModelFileError(str(path), f"cannot read: {exc.strerror or exc}") from None
    if p.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError) as exc:
            raise ModelFileError(str(path), f"not a valid gzip file ({exc})") from None
    return data


def decode_text(data: bytes, path: str) -> str:
    """UTF-8 text of a model file; empty files, binary junk and bad bytes are reported."""
    if not data.strip():
        raise ModelFileError(path, "empty file")
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        raise ModelFileError(path, f"binary data, not a text model file (NUL byte at offset {nul})",
                             line)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        col = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise ModelFileError(
            path, f"not UTF-8 text: byte 0x{data[exc.start]:02x} at column {col}", line
        ) from None


def umask_mode() -> int:
    """The mode a plain ``open(path, "w")`` would give a new file (0666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_atomic(path: str | Path, data: bytes) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it into place. The file
    gets the mode any new file would (mkstemp's 0600 would make reports, manifests and models
    unreadable to the group and others under the usual umask 022)."""
    p = Path(path)
    fd, tmp = tempfile.mkstemp(dir=p.parent, prefix=f".{p.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, umask_mode())
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, p)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
