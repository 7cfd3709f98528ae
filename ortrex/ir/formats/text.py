"""Reading model files as text: size, encoding and compression checks with precise messages."""

from __future__ import annotations

import bz2
import gzip
import os
import tempfile
import zlib
from pathlib import Path
from typing import BinaryIO

from ortrex.ir.formats.errors import ModelFileError

# The most text a model file may hold, compressed or not: far beyond any model the readers hold
# in memory (a 1,000,000-nonzero LP is 26 MB of text), small enough that a decompression bomb
# (a few kB of .bz2 can inflate to gigabytes) is refused before it fills the memory.
MAX_TEXT_BYTES = 1 << 30

# Compressed files Gurobi reads too (.lp.gz, .mps.bz2): the suffix names the codec.
COMPRESSED = {".gz": "gzip", ".bz2": "bzip2"}
_CHUNK = 4 << 20


def read_bytes(path: str | Path, limit: int | None = None) -> bytes:
    """The file's bytes (decompressed from ``.gz`` / ``.bz2``), at most ``MAX_TEXT_BYTES``."""
    limit = MAX_TEXT_BYTES if limit is None else limit
    p = Path(path)
    codec = COMPRESSED.get(p.suffix.lower())
    try:
        with p.open("rb") as fh:
            if codec is None:
                size = os.fstat(fh.fileno()).st_size
                if size > limit:
                    raise ModelFileError(str(path), f"{size:,} bytes: larger than the readers' "
                                         f"limit of {limit:,} bytes")
                return fh.read()
            return _inflate(fh, codec, str(path), limit)
    except FileNotFoundError:
        raise ModelFileError(str(path), "no such file") from None
    except IsADirectoryError:
        raise ModelFileError(str(path), "is a directory, not a model file") from None
    except OSError as exc:
        raise ModelFileError(str(path), f"cannot read: {exc.strerror or exc}") from None


def _inflate(fh: BinaryIO, codec: str, path: str, limit: int) -> bytes:
    """Decompress an open file in chunks, stopping as soon as it passes ``limit``."""
    chunks: list[bytes] = []
    total = 0
    try:
        with (gzip.GzipFile(fileobj=fh, mode="rb") if codec == "gzip"
              else bz2.BZ2File(fh, mode="rb")) as z:
            # Chunks, not read(limit + 1): that would reserve the whole limit up front.
            while chunk := z.read(_CHUNK):
                total += len(chunk)
                if total > limit:
                    raise ModelFileError(path, "decompresses to more than the readers' limit "
                                         f"of {limit:,} bytes")
                chunks.append(chunk)
    except (OSError, EOFError, zlib.error) as exc:
        # A corrupt or truncated stream: gzip and bz2 raise OSError, EOFError or zlib.error.
        raise ModelFileError(path, f"not a valid {codec} file ({exc})") from None
    return b"".join(chunks)


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
