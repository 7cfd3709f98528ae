"""Helpers the op files share: the optional Triton import, launch settings, row views."""

from __future__ import annotations

import os

import torch

try:  # the eager and npu paths run without Triton
    import triton
    import triton.language as tl

    jit = triton.jit
except ImportError:  # pragma: no cover - exercised only where Triton is absent
    triton = None

    class _NoTriton:
        """Stands in for ``triton.language`` so kernel signatures still parse."""

        constexpr = None

    tl = _NoTriton()

    def jit(fn):  # type: ignore[no-redef]
        """Without Triton a kernel is never launched (the registry refuses the backend)."""
        return fn


# Largest column block a program holds in registers at once; wider rows are looped over.
MAX_BLOCK_N = 4096


def interpreting() -> bool:
    """Whether Triton runs kernels in its CPU interpreter (``TRITON_INTERPRET=1``)."""
    return os.environ.get("TRITON_INTERPRET", "") == "1"


def next_pow2(n: int) -> int:
    """The smallest power of two >= n (1 for n <= 1)."""
    return 1 << max(0, int(n) - 1).bit_length()


def tile(n_rows: int, n_cols: int, max_block_n: int = MAX_BLOCK_N) -> tuple[int, int, int]:
    """(BLOCK_M, BLOCK_N, num_warps) for a row-wise kernel over ``n_rows x n_cols``.

    A program covers BLOCK_M rows and loops over the columns in BLOCK_N chunks. On a GPU a tile
    holds about 4K elements (Liger's ``calculate_settings`` warps by block size); in the
    interpreter each program is a Python loop iteration, so tiles are made as large as memory
    allows to keep the program count small.
    """
    block_n = min(next_pow2(max(n_cols, 1)), max_block_n)
    budget = 1 << 16 if interpreting() else 4096
    block_m = max(1, min(next_pow2(max(n_rows, 1)), budget // block_n))
    size = block_m * block_n
    num_warps = 4 if size <= 2048 else 8 if size <= 8192 else 16
    return block_m, block_n, num_warps


def rows_view(x: torch.Tensor) -> torch.Tensor | None:
    """A 2-D ``[rows, cols]`` view over ``x``'s own memory, or None when there is none.

    Works for any dense tensor whose last dim has unit stride (a transposed ``[B, H, S, D]``
    view of a ``[B, S, H, D]`` buffer included): the leading dims are permuted into memory
    order, which row-wise ops do not care about. ``torch.empty_like`` keeps such a layout, so
    an output made with it has the same rows in the same order.
    """
    if x.dim() == 0 or (x.stride(-1) != 1 and x.shape[-1] != 1):
        return None
    if x.dim() == 1:
        return x.view(1, -1)
    lead = sorted(range(x.dim() - 1), key=lambda d: -x.stride(d))
    p = x.permute(*lead, x.dim() - 1)
    if not p.is_contiguous():
        return None
    return p.view(-1, x.shape[-1])


def as_rows(x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """``(x', rows)``: ``x`` itself when it has a row view, else a contiguous copy."""
    rows = rows_view(x)
    if rows is None:
        x = x.contiguous()
        rows = x.view(-1, x.shape[-1])
    return x, rows


def like_layout(t: torch.Tensor, ref: torch.Tensor) -> torch.Tensor:
    """``t`` with ``ref``'s strides (a copy only when they differ), so rows line up."""
    if t.stride() == ref.stride():
        return t
    out = torch.empty_like(ref, dtype=t.dtype)
    out.copy_(t)
    return out


def accum_dtype(dtype: torch.dtype) -> torch.dtype:
    """The math dtype of the eager references: fp32, or fp64 for fp64 inputs (gradcheck)."""
    return torch.promote_types(dtype, torch.float32)


@jit
def cast_rtne(y, DTYPE: tl.constexpr, EMULATE: tl.constexpr):
    """``y.to(DTYPE)`` rounding to nearest even, as ``torch`` and the GPU do.

    Triton's CPU interpreter truncates fp32 -> bf16 (it ignores the rounding mode on a plain
    cast), so under ``EMULATE`` (set when interpreting) the rounding is done on the bits.
    """
    if EMULATE and tl.bfloat16 == DTYPE:
        bits = y.to(tl.float32).to(tl.uint32, bitcast=True)
        bits = bits + (((bits >> 16) & 1) + 0x7FFF)
        return (bits >> 16).to(tl.uint16).to(tl.bfloat16, bitcast=True)
    return y.to(DTYPE)
