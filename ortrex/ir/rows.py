"""A light compressed-row matrix for the normal form (scipy's row slicing costs too much here)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


def segments(starts: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """Concatenated ranges ``starts[k] : starts[k] + lengths[k]`` (one vectorised gather)."""
    total = int(lengths.sum())
    if total == 0:
        return np.zeros(0, dtype=np.int64)
    ends = np.cumsum(lengths)
    offsets = np.repeat(starts - (ends - lengths), lengths)
    return np.arange(total, dtype=np.int64) + offsets


@dataclass(frozen=True)
class RowMatrix:
    """Rows as (indptr, indices, data), column indices sorted within each row."""

    indptr: np.ndarray
    indices: np.ndarray
    data: np.ndarray
    num_cols: int

    @property
    def nnz(self) -> int:
        """Number of stored entries."""
        return int(self.data.size)

    @property
    def num_rows(self) -> int:
        """Number of rows."""
        return int(self.indptr.size - 1)

    def lengths(self) -> np.ndarray:
        """Entries per row."""
        return self.indptr[1:] - self.indptr[:-1]

    def take(self, rows: np.ndarray) -> RowMatrix:
        """The given rows, in the given order."""
        lengths = (self.indptr[1:] - self.indptr[:-1])[rows]
        idx = segments(self.indptr[rows], lengths)
        indptr = np.zeros(rows.size + 1, dtype=np.int64)
        np.cumsum(lengths, out=indptr[1:])
        return RowMatrix(indptr, self.indices[idx], self.data[idx], self.num_cols)

    def row_of_entry(self) -> np.ndarray:
        """The row of every stored entry."""
        return np.repeat(np.arange(self.num_rows), self.indptr[1:] - self.indptr[:-1])
