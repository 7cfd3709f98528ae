"""Limited SwiGLU (DeepSeek-V4): ``silu(min(gate, L)) * clamp(up, -L, L)``, optionally times a
per-row routing probability, in fp32 math.

Gradients follow ``torch.clamp``: zero strictly outside the bounds, passed at the bound. The
probability multiply is fused into the same kernel, forward and backward (the expert output
then needs no separate multiply, and ``d prob`` is a row reduction done in the backward
kernel). Works on the packed ``gate_up`` layout (``[..., 2I]``, gate first, as
``DeepseekV4Experts`` and ``chunk(2)``) and on separate gate / up tensors.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F
from torch import nn

from ortrex.kernels import registry
from ortrex.kernels.utils import accum_dtype, cast_rtne, interpreting, jit, tile, tl, triton

# ---------------------------------------------------------------------------------------------
# Eager reference (the definition of correct, and the CPU path)
# ---------------------------------------------------------------------------------------------


def limited_swiglu_reference(gate: torch.Tensor, up: torch.Tensor, limit: float,
                             prob: torch.Tensor | None = None) -> torch.Tensor:
    """``silu(min(gate, L)) * clamp(up, -L, L) [* prob[..., None]]`` in fp32 (fp64 for fp64)."""
    acc = accum_dtype(gate.dtype)
    g = gate.to(acc).clamp(max=limit)
    u = up.to(acc).clamp(min=-limit, max=limit)
    out = F.silu(g) * u
    if prob is not None:
        out = out * prob.reshape(gate.shape[:-1]).to(acc).unsqueeze(-1)
    return out.to(gate.dtype)


# ---------------------------------------------------------------------------------------------
# Triton kernels
# ---------------------------------------------------------------------------------------------


@jit
def _limited_swiglu_forward_kernel(G, U, P, Y, n_rows, n_cols, stride_g, stride_u, stride_p,
                                   stride_y, limit, HAS_PROB: tl.constexpr, RTNE: tl.constexpr,
                                   BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    lim = limit
    if HAS_PROB:
        p = tl.load(P + rows * stride_p, mask=rmask, other=0.0).to(tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        g = tl.load(G + rows[:, None] * stride_g + cols[None, :], mask=mask, other=0.0)
        u = tl.load(U + rows[:, None] * stride_u + cols[None, :], mask=mask, other=0.0)
        g = tl.minimum(g.to(tl.float32), lim)
        u = tl.minimum(tl.maximum(u.to(tl.float32), -lim), lim)
        y = g * tl.sigmoid(g) * u
        if HAS_PROB:
            y = y * p[:, None]
        out = cast_rtne(y, Y.dtype.element_ty, RTNE)
        tl.store(Y + rows[:, None] * stride_y + cols[None, :], out, mask=mask)


@jit
def _limited_swiglu_backward_kernel(DY, G, U, P, DG, DU, DP, n_rows, n_cols, stride_dy, stride_g,
                                    stride_u, stride_p, stride_dg, stride_du, limit,
                                    HAS_PROB: tl.constexpr, RTNE: tl.constexpr,
                                    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    lim = limit
    if HAS_PROB:
        p = tl.load(P + rows * stride_p, mask=rmask, other=0.0).to(tl.float32)
        dp = tl.zeros([BLOCK_M], dtype=tl.float32)
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        dy = tl.load(DY + rows[:, None] * stride_dy + cols[None, :], mask=mask, other=0.0)
        g = tl.load(G + rows[:, None] * stride_g + cols[None, :], mask=mask, other=0.0)
        u = tl.load(U + rows[:, None] * stride_u + cols[None, :], mask=mask, other=0.0)
        dy = dy.to(tl.float32)
        g = g.to(tl.float32)
        u = u.to(tl.float32)
        gc = tl.minimum(g, lim)
        uc = tl.minimum(tl.maximum(u, -lim), lim)
        s = tl.sigmoid(gc)
        silu = gc * s
        if HAS_PROB:
            dp += tl.sum(silu * uc * dy, axis=1)
            dy = dy * p[:, None]
        # clamp's gradient: passed at the bound, zero strictly outside it.
        dg = tl.where(g <= lim, dy * uc * s * (1.0 + gc * (1.0 - s)), 0.0)
        du = tl.where((u >= -lim) & (u <= lim), dy * silu, 0.0)
        out = cast_rtne(dg, DG.dtype.element_ty, RTNE)
        tl.store(DG + rows[:, None] * stride_dg + cols[None, :], out, mask=mask)
        out = cast_rtne(du, DU.dtype.element_ty, RTNE)
        tl.store(DU + rows[:, None] * stride_du + cols[None, :], out, mask=mask)
    if HAS_PROB:
        tl.store(DP + rows * stride_p, cast_rtne(dp, DP.dtype.element_ty, RTNE), mask=rmask)


# ---------------------------------------------------------------------------------------------
# Launchers (2-D row views: ``[rows, I]`` with unit column stride)
# ---------------------------------------------------------------------------------------------


def _rows2d(t: torch.Tensor) -> torch.Tensor:
    """A ``[rows, cols]`` view with unit column stride (a copy only when there is none)."""
    r = t.reshape(-1, t.shape[-1])
    return r if r.stride(-1) == 1 or r.shape[-1] == 1 else r.contiguous()


def limited_swiglu_forward(g: torch.Tensor, u: torch.Tensor, limit: float,
                           p: torch.Tensor | None) -> torch.Tensor:
    """Forward over 2-D views ``g``, ``u`` (``[R, I]``) and ``p`` (``[R]`` or None)."""
    n_rows, n_cols = g.shape
    y = torch.empty((n_rows, n_cols), dtype=g.dtype, device=g.device)
    if n_rows == 0 or n_cols == 0:  # an expert that got no tokens: no launch
        return y
    bm, bn, warps = tile(n_rows, n_cols)
    _limited_swiglu_forward_kernel[(triton.cdiv(n_rows, bm),)](
        g, u, p if p is not None else g, y, n_rows, n_cols, g.stride(0), u.stride(0),
        p.stride(0) if p is not None else 0, y.stride(0), float(limit),
        HAS_PROB=p is not None, RTNE=interpreting(), BLOCK_M=bm, BLOCK_N=bn, num_warps=warps)
    return y


def limited_swiglu_backward(dy: torch.Tensor, g: torch.Tensor, u: torch.Tensor, limit: float,
                            p: torch.Tensor | None, dg: torch.Tensor, du: torch.Tensor,
                            ) -> torch.Tensor | None:
    """Backward into the given ``dg`` / ``du`` views; returns ``d p`` (or None)."""
    n_rows, n_cols = g.shape
    dp = torch.zeros_like(p) if p is not None else None
    if n_rows == 0 or n_cols == 0:
        return dp
    bm, bn, warps = tile(n_rows, n_cols)
    _limited_swiglu_backward_kernel[(triton.cdiv(n_rows, bm),)](
        dy, g, u, p if p is not None else g, dg, du, dp if dp is not None else g, n_rows, n_cols,
        dy.stride(0), g.stride(0), u.stride(0), p.stride(0) if p is not None else 0,
        dg.stride(0), du.stride(0), float(limit), HAS_PROB=p is not None,
        RTNE=interpreting(), BLOCK_M=bm, BLOCK_N=bn, num_warps=warps)
    return dp


def _prob_rows(prob: torch.Tensor | None, n_rows: int) -> torch.Tensor | None:
    if prob is None:
        return None
    p = prob.reshape(-1)
    if p.numel() != n_rows:
        raise ValueError(f"prob has {p.numel()} entries for {n_rows} rows")
    return p


class LimitedSwiGLUFunction(torch.autograd.Function):
    """Triton limited SwiGLU on separate ``gate`` and ``up`` tensors."""

    @staticmethod
    def forward(ctx, gate: torch.Tensor, up: torch.Tensor, prob: torch.Tensor | None,
                limit: float) -> torch.Tensor:
        g, u = _rows2d(gate), _rows2d(up)
        p = _prob_rows(prob, g.shape[0])
        y = limited_swiglu_forward(g, u, limit, p)
        ctx.save_for_backward(g, u, p)
        ctx.limit = limit
        ctx.shapes = (gate.shape, up.shape, None if prob is None else prob.shape)
        return y.view(gate.shape)

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        g, u, p = ctx.saved_tensors
        dg, du = torch.empty_like(g), torch.empty_like(u)
        dp = limited_swiglu_backward(_rows2d(dy), g, u, ctx.limit, p, dg, du)
        gshape, ushape, pshape = ctx.shapes
        return (dg.view(gshape), du.view(ushape),
                None if dp is None else dp.view(pshape), None)


class LimitedSwiGLUPackedFunction(torch.autograd.Function):
    """Triton limited SwiGLU on a packed ``[..., 2I]`` gate_up tensor (gate first)."""

    @staticmethod
    def forward(ctx, gate_up: torch.Tensor, prob: torch.Tensor | None,
                limit: float) -> torch.Tensor:
        x = _rows2d(gate_up)
        half = x.shape[1] // 2
        p = _prob_rows(prob, x.shape[0])
        y = limited_swiglu_forward(x[:, :half], x[:, half:], limit, p)
        ctx.save_for_backward(x, p)
        ctx.limit = limit
        ctx.shapes = (gate_up.shape, None if prob is None else prob.shape)
        return y.view(*gate_up.shape[:-1], half)

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        x, p = ctx.saved_tensors
        half = x.shape[1] // 2
        dx = torch.empty_like(x)  # one packed gradient: the gate_up matmul wants it whole
        dp = limited_swiglu_backward(_rows2d(dy), x[:, :half], x[:, half:], ctx.limit, p,
                                     dx[:, :half], dx[:, half:])
        xshape, pshape = ctx.shapes
        return dx.view(xshape), None if dp is None else dp.view(pshape), None


# ---------------------------------------------------------------------------------------------
# NPU path: clamp, then torch_npu.npu_swiglu (it has no limit argument; MindSpeed-LLM's option A)
# ---------------------------------------------------------------------------------------------


def _npu_limited_swiglu(gate: torch.Tensor, up: torch.Tensor, limit: float,
                        prob: torch.Tensor | None) -> torch.Tensor:
    npu = registry.torch_npu()
    if npu is None or not hasattr(npu, "npu_swiglu"):
        return limited_swiglu_reference(gate, up, limit, prob)
    x = torch.cat([gate.float().clamp(max=limit), up.float().clamp(min=-limit, max=limit)], -1)
    out = npu.npu_swiglu(x, dim=-1)
    if prob is not None:
        out = out * prob.reshape(gate.shape[:-1]).float().unsqueeze(-1)
    return out.to(gate.dtype)


# ---------------------------------------------------------------------------------------------
# Functional alias and module
# ---------------------------------------------------------------------------------------------


def limited_swiglu(gate: torch.Tensor, up: torch.Tensor | None = None, *, limit: float,
                   prob: torch.Tensor | None = None, backend: str | None = None) -> torch.Tensor:
    """Limited SwiGLU; ``up=None`` means ``gate`` is the packed ``[..., 2I]`` gate_up."""
    name = registry.backend(backend)
    if up is None and gate.shape[-1] % 2:
        raise ValueError(f"packed gate_up needs an even last dim, got {gate.shape[-1]}")
    if name == "triton":
        if up is None:
            return LimitedSwiGLUPackedFunction.apply(gate, prob, float(limit))
        return LimitedSwiGLUFunction.apply(gate, up, prob, float(limit))
    if up is None:
        gate, up = gate.chunk(2, dim=-1)
    if name == "npu":
        return _npu_limited_swiglu(gate, up, limit, prob)
    return limited_swiglu_reference(gate, up, limit, prob)


class LimitedSwiGLU(nn.Module):
    """Module wrapper: ``forward(gate, up=None, prob=None)``."""

    def __init__(self, limit: float, backend: str | None = None) -> None:
        super().__init__()
        self.limit = float(limit)
        self.backend = backend

    def forward(self, gate: torch.Tensor, up: torch.Tensor | None = None,
                prob: torch.Tensor | None = None) -> torch.Tensor:
        return limited_swiglu(gate, up, limit=self.limit, prob=prob, backend=self.backend)

    def extra_repr(self) -> str:
        return f"limit={self.limit}"
