"""The canonical binary serialization of a CanonicalModel: the bytes behind its content hash."""

from __future__ import annotations

import struct
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from ortrex.ir.canonical import CanonicalModel

MAGIC = b"ORTREX-CANONICAL\x01"
_HEAD = struct.Struct("<3sqqqqq")


def core_bytes(m: CanonicalModel) -> bytes:
    """Content bytes: names, order and every number (little-endian), not the model name."""
    parts: list[bytes] = [MAGIC]
    parts.append(_HEAD.pack(m.sense.value.encode(), m.num_vars, m.num_rows, m.nnz,
                            m.qobj[0].size, m.qrows[0].size))
    for names in (m.var_names, m.row_names):
        blob = "\x00".join(names).encode("utf-8")
        parts.append(struct.pack("<q", len(blob)))
        parts.append(blob)
    parts.append(m.var_types.astype("S1").tobytes())
    for arr in (m.lb, m.ub, m.obj, np.array([m.obj_constant]), m.row_lower, m.row_upper,
                m.csr.data):
        parts.append(np.ascontiguousarray(arr, dtype="<f8").tobytes())
    parts.append(np.ascontiguousarray(m.csr.indptr, dtype="<i8").tobytes())
    parts.append(np.ascontiguousarray(m.csr.indices, dtype="<i8").tobytes())
    qi, qj, qv = m.qobj
    rr, ri, rj, rv = m.qrows
    for arr in (qi, qj, rr, ri, rj):
        parts.append(np.ascontiguousarray(arr, dtype="<i8").tobytes())
    for arr in (qv, rv):
        parts.append(np.ascontiguousarray(arr, dtype="<f8").tobytes())
    return b"".join(parts)


def to_bytes(m: CanonicalModel) -> bytes:
    """Content bytes followed by the model name."""
    name = m.name.encode("utf-8")
    return core_bytes(m) + struct.pack("<q", len(name)) + name


def _matrix(vals: np.ndarray, indices: np.ndarray, indptr: np.ndarray,
            shape: tuple[int, int]) -> object:
    import scipy.sparse as sp

    return sp.csr_matrix((vals, indices, indptr), shape=shape)


def from_bytes(data: bytes) -> CanonicalModel:
    """Inverse of :func:`to_bytes`."""
    from ortrex.ir.canonical import CanonicalModel

    if not data.startswith(MAGIC):
        raise ValueError("not a canonical model serialization (bad magic)")
    pos = len(MAGIC)
    sense, n, m, nnz, nq, nqr = _HEAD.unpack_from(data, pos)
    pos += _HEAD.size

    def take(count: int, dtype: str) -> np.ndarray:
        nonlocal pos
        arr = np.frombuffer(data, dtype=dtype, count=count, offset=pos).copy()
        pos += np.dtype(dtype).itemsize * count
        return arr

    def text() -> str:
        nonlocal pos
        (size,) = struct.unpack_from("<q", data, pos)
        pos += 8 + size
        return data[pos - size:pos].decode("utf-8")

    var_names, row_names = text(), text()
    types = take(n, "S1").astype("<U1")
    lb, ub, obj, const, lo, hi, vals = (take(k, "<f8") for k in (n, n, n, 1, m, m, nnz))
    indptr, indices = take(m + 1, "<i8"), take(nnz, "<i8")
    qi, qj = take(nq, "<i8"), take(nq, "<i8")
    rr, ri, rj = take(nqr, "<i8"), take(nqr, "<i8"), take(nqr, "<i8")
    qv, rv = take(nq, "<f8"), take(nqr, "<f8")
    return CanonicalModel(
        var_names=var_names.split("\x00") if var_names else [],
        var_types=types, lb=lb, ub=ub, obj=obj, obj_constant=float(const[0]),
        sense=sense.decode(), A=_matrix(vals, indices, indptr, (m, n)),
        row_names=row_names.split("\x00") if row_names else [], row_lower=lo, row_upper=hi,
        qobj=(qi, qj, qv), qrows=(rr, ri, rj, rv), name=text())
