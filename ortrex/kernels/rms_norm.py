"""RMSNorm for DeepSeek-V4: weightless (``DeepseekV4UnweightedRMSNorm``) and weighted (fp32
weight, as V4 keeps it), with the per-row rstd cached for backward.

Rounding chains, reproduced exactly from the Hugging Face modules (reference §2.2):

* weightless: ``x * rsqrt(mean(x.float()**2) + eps).to(x.dtype)`` -- the fp32 rstd is cast to
  the input dtype first and the product is rounded once to the input dtype. Multiplying in fp32
  and casting at the end gives different bits (about a quarter of bf16 elements differ by 1 ULP);
* weighted: ``(w * (x.float() * rstd)).to(x.dtype)`` -- everything in fp32, one cast at the end.

Rows wider than one block (the mHC input norm: 4 x 4096 = 16,384 for V4-Flash, 28,672 for
V4-Pro) are looped over in blocks of at most 4,096 columns, never one giant block.
"""

from __future__ import annotations

import torch
from torch import nn

from ortrex.kernels import registry
from ortrex.kernels.utils import (
    accum_dtype,
    as_rows,
    cast_rtne,
    interpreting,
    jit,
    like_layout,
    rows_view,
    tile,
    tl,
    triton,
)

# ---------------------------------------------------------------------------------------------
# Eager reference
# ---------------------------------------------------------------------------------------------


def rms_norm_reference(x: torch.Tensor, weight: torch.Tensor | None = None,
                       eps: float = 1e-6) -> torch.Tensor:
    """V4's RMSNorm over the last dim: the unweighted chain without ``weight``, else fp32 math."""
    acc = accum_dtype(x.dtype)
    rstd = torch.rsqrt(x.to(acc).square().mean(-1, keepdim=True) + eps)
    if weight is None:
        return x * rstd.to(x.dtype)
    return (weight.to(acc) * (x.to(acc) * rstd)).to(x.dtype)


# ---------------------------------------------------------------------------------------------
# Triton kernels
# ---------------------------------------------------------------------------------------------


@jit
def _rms_norm_forward_kernel(X, W, Y, RSTD, n_rows, n_cols, stride_x, stride_y, eps,
                             HAS_WEIGHT: tl.constexpr, RTNE: tl.constexpr, BLOCK_M: tl.constexpr,
                             BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    sq = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0.0)
        x = x.to(tl.float32)
        sq += x * x
    rstd = tl.rsqrt(tl.sum(sq, axis=1) / n_cols + eps)
    tl.store(RSTD + rows, rstd, mask=rmask)
    if not HAS_WEIGHT:
        # The HF chain: rstd rounded to the input dtype, the product rounded once.
        rstd = cast_rtne(rstd, X.dtype.element_ty, RTNE).to(tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0.0)
        y = x.to(tl.float32) * rstd[:, None]
        if HAS_WEIGHT:
            w = tl.load(W + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
            y = y * w[None, :]
        out = cast_rtne(y, Y.dtype.element_ty, RTNE)
        tl.store(Y + rows[:, None] * stride_y + cols[None, :], out, mask=mask)


@jit
def _rms_norm_backward_kernel(DY, X, W, RSTD, DX, DW, n_rows, n_cols, stride_dy, stride_x,
                              stride_dx, n_tiles, HAS_WEIGHT: tl.constexpr, RTNE: tl.constexpr,
                              BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # dx = rstd * (dy*w - xhat * mean(dy*w*xhat)); dw = sum_rows dy * xhat, accumulated into
    # this program's own fp32 row of DW (summed on the host: no atomics, deterministic).
    pid = tl.program_id(0)
    n_prog = tl.num_programs(0)
    for t in range(pid, n_tiles, n_prog):
        rows = t * BLOCK_M + tl.arange(0, BLOCK_M).to(tl.int64)
        rmask = rows < n_rows
        rstd = tl.load(RSTD + rows, mask=rmask, other=0.0)
        dot = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            mask = rmask[:, None] & (cols[None, :] < n_cols)
            dy = tl.load(DY + rows[:, None] * stride_dy + cols[None, :], mask=mask, other=0.0)
            x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0.0)
            dy = dy.to(tl.float32)
            if HAS_WEIGHT:
                w = tl.load(W + cols, mask=cols < n_cols, other=0.0).to(tl.float32)
                dy = dy * w[None, :]
            dot += dy * x.to(tl.float32)
        c = tl.sum(dot, axis=1) * rstd * rstd * rstd / n_cols
        for start in range(0, n_cols, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            cmask = cols < n_cols
            mask = rmask[:, None] & cmask[None, :]
            dy = tl.load(DY + rows[:, None] * stride_dy + cols[None, :], mask=mask, other=0.0)
            x = tl.load(X + rows[:, None] * stride_x + cols[None, :], mask=mask, other=0.0)
            dy = dy.to(tl.float32)
            x = x.to(tl.float32)
            if HAS_WEIGHT:
                w = tl.load(W + cols, mask=cmask, other=0.0).to(tl.float32)
                dw = tl.load(DW + pid * n_cols + cols, mask=cmask, other=0.0)
                dw += tl.sum(dy * x * rstd[:, None], axis=0)
                tl.store(DW + pid * n_cols + cols, dw, mask=cmask)
                dy = dy * w[None, :]
            dx = rstd[:, None] * dy - x * c[:, None]
            out = cast_rtne(dx, DX.dtype.element_ty, RTNE)
            tl.store(DX + rows[:, None] * stride_dx + cols[None, :], out, mask=mask)


# ---------------------------------------------------------------------------------------------
# Launchers and autograd Function
# ---------------------------------------------------------------------------------------------


def rms_norm_forward(x: torch.Tensor, weight: torch.Tensor | None, eps: float,
                     ) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """``(x', y, rstd)``: ``x'`` is ``x`` or its contiguous copy; ``y`` has ``x'``'s layout."""
    x, xr = as_rows(x)
    y = torch.empty_like(x)
    yr = rows_view(y)
    assert yr is not None
    n_rows, n_cols = xr.shape
    rstd = torch.empty(n_rows, dtype=torch.float32, device=x.device)
    if n_rows and n_cols:
        bm, bn, warps = tile(n_rows, n_cols)
        _rms_norm_forward_kernel[(triton.cdiv(n_rows, bm),)](
            xr, weight if weight is not None else xr, yr, rstd, n_rows, n_cols, xr.stride(0),
            yr.stride(0), float(eps), HAS_WEIGHT=weight is not None, RTNE=interpreting(),
            BLOCK_M=bm, BLOCK_N=bn, num_warps=warps)
    return x, y, rstd


def _programs(n_tiles: int, device: torch.device) -> int:
    """Backward programs when dW partials are kept: one per SM on a GPU (Liger's choice)."""
    if device.type == "cuda":
        return max(1, min(n_tiles, torch.cuda.get_device_properties(device).multi_processor_count))
    return max(1, min(n_tiles, 4))


def rms_norm_backward(dy: torch.Tensor, x: torch.Tensor, weight: torch.Tensor | None,
                      rstd: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
    """``(dx, dw)`` for ``y = rms_norm(x, weight)``; ``dx`` has ``x``'s layout."""
    dy = like_layout(dy, x)
    xr, dyr = rows_view(x), rows_view(dy)
    dx = torch.empty_like(x)
    dxr = rows_view(dx)
    assert xr is not None and dyr is not None and dxr is not None
    n_rows, n_cols = xr.shape
    dw = None
    if weight is not None:
        dw = torch.zeros(n_cols, dtype=torch.float32, device=x.device)
    if n_rows and n_cols:
        bm, bn, warps = tile(n_rows, n_cols)
        n_tiles = triton.cdiv(n_rows, bm)
        n_prog = _programs(n_tiles, x.device) if weight is not None else n_tiles
        partial = (torch.zeros((n_prog, n_cols), dtype=torch.float32, device=x.device)
                   if weight is not None else rstd)
        _rms_norm_backward_kernel[(n_prog,)](
            dyr, xr, weight if weight is not None else xr, rstd, dxr, partial, n_rows, n_cols,
            dyr.stride(0), xr.stride(0), dxr.stride(0), n_tiles,
            HAS_WEIGHT=weight is not None, RTNE=interpreting(), BLOCK_M=bm, BLOCK_N=bn,
            num_warps=warps)
        if weight is not None:
            dw = partial.sum(0)
    if dw is not None:
        dw = dw.to(weight.dtype)
    return dx, dw


class RMSNormFunction(torch.autograd.Function):
    """Triton RMSNorm (weightless when ``weight`` is None)."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, weight: torch.Tensor | None, eps: float) -> torch.Tensor:
        x, y, rstd = rms_norm_forward(x, weight, eps)
        ctx.save_for_backward(x, weight, rstd)
        return y

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        x, weight, rstd = ctx.saved_tensors
        dx, dw = rms_norm_backward(dy, x, weight, rstd)
        return dx, dw, None


# ---------------------------------------------------------------------------------------------
# NPU path: torch_npu.npu_rms_norm (it has no weight-free mode: an all-ones gamma)
# ---------------------------------------------------------------------------------------------


def _npu_rms_norm(x: torch.Tensor, weight: torch.Tensor | None, eps: float) -> torch.Tensor:
    npu = registry.torch_npu()
    if npu is None or not hasattr(npu, "npu_rms_norm"):
        return rms_norm_reference(x, weight, eps)
    if weight is None:
        gamma = torch.ones(x.shape[-1], dtype=x.dtype, device=x.device)
        return npu.npu_rms_norm(x, gamma, epsilon=eps)[0]
    return npu.npu_rms_norm(x.float(), weight.float(), epsilon=eps)[0].to(x.dtype)


# ---------------------------------------------------------------------------------------------
# Functional alias and modules
# ---------------------------------------------------------------------------------------------


def rms_norm(x: torch.Tensor, weight: torch.Tensor | None = None, *, eps: float = 1e-6,
             backend: str | None = None) -> torch.Tensor:
    """RMSNorm over the last dim with V4's rounding chains (weightless when ``weight`` is None)."""
    name = registry.backend(backend)
    if name == "triton":
        return RMSNormFunction.apply(x, weight, float(eps))
    if name == "npu":
        return _npu_rms_norm(x, weight, eps)
    return rms_norm_reference(x, weight, eps)


class UnweightedRMSNorm(nn.Module):
    """Weightless RMSNorm module (V4's ``q_b_norm``, mHC ``input_norm``, ``hc_head`` norm)."""

    def __init__(self, eps: float = 1e-6, backend: str | None = None) -> None:
        super().__init__()
        self.eps = eps
        self.backend = backend

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, None, eps=self.eps, backend=self.backend)


class RMSNorm(nn.Module):
    """Weighted RMSNorm module with an fp32 weight (V4's layer norms)."""

    def __init__(self, hidden_size: int, eps: float = 1e-6, backend: str | None = None) -> None:
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size, dtype=torch.float32))
        self.variance_epsilon = eps
        self.backend = backend

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, self.weight, eps=self.variance_epsilon, backend=self.backend)
