"""Rotary position embedding in DeepSeek-V4's layout, and its rotate-half / leading variants.

V4 (``modeling_deepseek_v4.apply_rotary_pos_emb``): the rotation acts on the trailing
``rope_head_dim`` channels of each head (``[nope | rope]``), pairs consecutive channels
(interleaved, GPT-J style) and takes half-size cos / sin, one entry per pair. Flags select
rotate-half pairing (``interleaved=False``: channel i with i + rd/2) and a leading rope slice
(``trailing=False``). The math is fp32, cast once to the input dtype, as in HF.

The backward is the same kernel rotating by -θ: one pass that writes the whole gradient, with
no slice / cat / scatter chain. The forward rotates the rope slice in place when autograd
allows it (``inplace=True``; the nope channels are then never read or written).
"""

from __future__ import annotations

import torch
from torch import nn

from ortrex.kernels import registry
from ortrex.kernels.utils import (
    accum_dtype,
    cast_rtne,
    interpreting,
    jit,
    next_pow2,
    tile,
    tl,
    triton,
)

# ---------------------------------------------------------------------------------------------
# Eager reference
# ---------------------------------------------------------------------------------------------


def _split(x: torch.Tensor, rd: int, trailing: bool) -> tuple[torch.Tensor, torch.Tensor]:
    return (x[..., :-rd], x[..., -rd:]) if trailing else (x[..., rd:], x[..., :rd])


def rope_reference(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, unsqueeze_dim: int = 1,
                   interleaved: bool = True, trailing: bool = True) -> torch.Tensor:
    """Rotate the rope slice of ``x`` by θ (cos / sin half-size,
                                            unsqueezed at ``unsqueeze_dim``)."""
    acc = accum_dtype(x.dtype)
    rd = 2 * cos.shape[-1]
    c = cos.unsqueeze(unsqueeze_dim).to(acc)
    s = sin.unsqueeze(unsqueeze_dim).to(acc)
    nope, r = _split(x, rd, trailing)
    r = r.to(acc)
    a, b = (r[..., 0::2], r[..., 1::2]) if interleaved else (r[..., : rd // 2], r[..., rd // 2:])
    ya, yb = a * c - b * s, b * c + a * s
    rot = (torch.stack((ya, yb), -1).flatten(-2) if interleaved else torch.cat((ya, yb), -1))
    rot = rot.to(x.dtype)
    return torch.cat([nope, rot], -1) if trailing else torch.cat([rot, nope], -1)


# ---------------------------------------------------------------------------------------------
# Triton kernel (forward, and backward with CONJ: rotation by -θ)
# ---------------------------------------------------------------------------------------------


@jit
def _rope_kernel(X, Y, C, S, n_rows, n1, n2, sx0, sx1, sx2, sy0, sy1, sy2, sc0, sc1, sc2,
                 ss0, ss1, ss2, rope_off, nope_off, n_nope, n_pairs, INTERLEAVED: tl.constexpr,
                 CONJ: tl.constexpr, COPY_NOPE: tl.constexpr, RTNE: tl.constexpr,
                 BLOCK_M: tl.constexpr, BLOCK_P: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_rows
    i2 = rows % n2
    i1 = (rows // n2) % n1
    i0 = rows // (n1 * n2)
    xb = X + i0 * sx0 + i1 * sx1 + i2 * sx2
    yb = Y + i0 * sy0 + i1 * sy1 + i2 * sy2
    cb = C + i0 * sc0 + i1 * sc1 + i2 * sc2
    sb = S + i0 * ss0 + i1 * ss1 + i2 * ss2
    for start in range(0, n_pairs, BLOCK_P):
        pr = start + tl.arange(0, BLOCK_P)
        mask = rmask[:, None] & (pr[None, :] < n_pairs)
        c = tl.load(cb[:, None] + pr[None, :], mask=mask, other=0.0).to(tl.float32)
        s = tl.load(sb[:, None] + pr[None, :], mask=mask, other=0.0).to(tl.float32)
        if CONJ:
            s = -s
        if INTERLEAVED:
            ea = rope_off + 2 * pr
            eb = ea + 1
        else:
            ea = rope_off + pr
            eb = ea + n_pairs
        a = tl.load(xb[:, None] + ea[None, :], mask=mask, other=0.0).to(tl.float32)
        b = tl.load(xb[:, None] + eb[None, :], mask=mask, other=0.0).to(tl.float32)
        ya = a * c - b * s
        yb_ = b * c + a * s
        tl.store(yb[:, None] + ea[None, :], cast_rtne(ya, Y.dtype.element_ty, RTNE), mask=mask)
        tl.store(yb[:, None] + eb[None, :], cast_rtne(yb_, Y.dtype.element_ty, RTNE), mask=mask)
    if COPY_NOPE:
        for start in range(0, n_nope, BLOCK_N):
            cols = nope_off + start + tl.arange(0, BLOCK_N)
            mask = rmask[:, None] & (cols[None, :] < nope_off + n_nope)
            v = tl.load(xb[:, None] + cols[None, :], mask=mask, other=0.0)
            tl.store(yb[:, None] + cols[None, :], v.to(Y.dtype.element_ty), mask=mask)


# ---------------------------------------------------------------------------------------------
# Launcher and autograd Function
# ---------------------------------------------------------------------------------------------


def _lead3(t: torch.Tensor) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Sizes and strides of ``t``'s leading dims, padded or merged to exactly three."""
    sizes, strides = list(t.shape[:-1]), list(t.stride()[:-1])
    while len(sizes) > 3:  # merge the two outermost dims when their layout allows it
        if strides[0] != strides[1] * sizes[1] and sizes[0] != 1:
            raise ValueError(f"rope: leading dims of shape {tuple(t.shape)} cannot be merged")
        sizes[:2] = [sizes[0] * sizes[1]]
        strides[:2] = [strides[1]]
    while len(sizes) < 3:
        sizes.insert(0, 1)
        strides.insert(0, 0)
    return tuple(sizes), tuple(strides)


def rope_launch(x: torch.Tensor, y: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                unsqueeze_dim: int, interleaved: bool, trailing: bool, conj: bool,
                copy_nope: bool) -> None:
    """Write the rotated ``x`` into ``y`` (``y`` may be ``x``; nope channels only if copied)."""
    n_pairs = cos.shape[-1]
    head_dim = x.shape[-1]
    rd = 2 * n_pairs
    if rd > head_dim:
        raise ValueError(f"rope dim {rd} exceeds head dim {head_dim}")
    half = (*x.shape[:-1], n_pairs)
    c = cos.unsqueeze(unsqueeze_dim).expand(half)
    s = sin.unsqueeze(unsqueeze_dim).expand(half)
    (n0, n1, n2), sx = _lead3(x)
    _, sy = _lead3(y)
    _, sc = _lead3(c)
    _, ss = _lead3(s)
    n_rows = n0 * n1 * n2
    if n_rows == 0:
        return
    rope_off, nope_off = (head_dim - rd, 0) if trailing else (0, rd)
    bm, bn, warps = tile(n_rows, max(n_pairs, head_dim - rd))
    bp = min(next_pow2(n_pairs), bn)
    _rope_kernel[(triton.cdiv(n_rows, bm),)](
        x, y, c, s, n_rows, n1, n2, *sx, *sy, *sc, *ss, rope_off, nope_off, head_dim - rd,
        n_pairs, INTERLEAVED=interleaved, CONJ=conj, COPY_NOPE=copy_nope, RTNE=interpreting(),
        BLOCK_M=bm, BLOCK_P=bp, BLOCK_N=bn, num_warps=warps)


def _can_modify(x: torch.Tensor) -> bool:
    """Whether autograd allows writing into ``x`` (not a leaf, or a view of one, needing grad)."""
    if not torch.is_grad_enabled():
        return True
    base = x._base if x._base is not None else x
    return not (base.is_leaf and base.requires_grad)


class RoPEFunction(torch.autograd.Function):
    """Triton rotary embedding; the backward rotates the gradient by -θ."""

    @staticmethod
    def forward(ctx, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, unsqueeze_dim: int,
                interleaved: bool, trailing: bool, inplace: bool) -> torch.Tensor:
        cos = cos if cos.stride(-1) == 1 else cos.contiguous()
        sin = sin if sin.stride(-1) == 1 else sin.contiguous()
        if x.stride(-1) != 1:
            x, inplace = x.contiguous(), False
        if inplace:
            rope_launch(x, x, cos, sin, unsqueeze_dim, interleaved, trailing, False, False)
            ctx.mark_dirty(x)
            y = x
        else:
            y = torch.empty_like(x)
            rope_launch(x, y, cos, sin, unsqueeze_dim, interleaved, trailing, False, True)
        ctx.save_for_backward(cos, sin)
        ctx.opts = (unsqueeze_dim, interleaved, trailing)
        return y

    @staticmethod
    def backward(ctx, dy: torch.Tensor):
        cos, sin = ctx.saved_tensors
        dy = dy if dy.stride(-1) == 1 else dy.contiguous()
        dx = torch.empty_like(dy)
        rope_launch(dy, dx, cos, sin, *ctx.opts, conj=True, copy_nope=True)
        return dx, None, None, None, None, None, None


# ---------------------------------------------------------------------------------------------
# NPU path: torch_npu.npu_rotary_mul(..., rotary_mode="interleave") on the rope slice
# ---------------------------------------------------------------------------------------------


def _npu_rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, unsqueeze_dim: int,
              interleaved: bool, trailing: bool) -> torch.Tensor:
    npu = registry.torch_npu()
    # npu_rotary_mul takes 4-D inputs with cos / sin shaped 11SD (one table for the batch).
    if (npu is None or not hasattr(npu, "npu_rotary_mul") or x.dim() != 4 or unsqueeze_dim != 1
            or cos.dim() != 3 or cos.shape[0] != 1):
        return rope_reference(x, cos, sin, unsqueeze_dim, interleaved, trailing)
    rd = 2 * cos.shape[-1]
    rep = (lambda t: t.repeat_interleave(2, -1)) if interleaved else (lambda t: torch.cat([t, t],
                                                                                          -1))
    c, s = rep(cos).unsqueeze(1).to(x.dtype), rep(sin).unsqueeze(1).to(x.dtype)
    nope, r = _split(x, rd, trailing)
    rot = npu.npu_rotary_mul(r.contiguous(), c, s,
                             rotary_mode="interleave" if interleaved else "half")
    return torch.cat([nope, rot], -1) if trailing else torch.cat([rot, nope], -1)


# ---------------------------------------------------------------------------------------------
# Functional alias and module
# ---------------------------------------------------------------------------------------------


def rope(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor, *, unsqueeze_dim: int = 1,
         interleaved: bool = True, trailing: bool = True, inplace: bool = False,
         backend: str | None = None) -> torch.Tensor:
    """Rotary embedding of ``x``'s rope slice (V4 layout by default); see the module docstring.

    With ``inplace=True`` the result may be ``x`` itself (rotated in place) when autograd
    allows; gradients for ``cos`` / ``sin`` are supported through the eager reference only.
    """
    name = registry.backend(backend)
    if name == "triton" and not (cos.requires_grad or sin.requires_grad):
        return RoPEFunction.apply(x, cos, sin, unsqueeze_dim, interleaved, trailing,
                                  inplace and _can_modify(x))
    if name == "npu":
        return _npu_rope(x, cos, sin, unsqueeze_dim, interleaved, trailing)
    return rope_reference(x, cos, sin, unsqueeze_dim, interleaved, trailing)


def v4_apply_rotary_pos_emb(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                            unsqueeze_dim: int = 1) -> torch.Tensor:
    """Drop-in for ``modeling_deepseek_v4.apply_rotary_pos_emb`` (same signature), in place."""
    return rope(x, cos, sin, unsqueeze_dim=unsqueeze_dim, inplace=True)


class RoPE(nn.Module):
    """Module wrapper: ``forward(x, cos, sin)`` with the layout fixed at construction."""

    def __init__(self, unsqueeze_dim: int = 1, interleaved: bool = True, trailing: bool = True,
                 inplace: bool = False, backend: str | None = None) -> None:
        super().__init__()
        self.unsqueeze_dim, self.interleaved, self.trailing = unsqueeze_dim, interleaved, trailing
        self.inplace, self.backend = inplace, backend

    def forward(self, x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor) -> torch.Tensor:
        return rope(x, cos, sin, unsqueeze_dim=self.unsqueeze_dim, interleaved=self.interleaved,
                    trailing=self.trailing, inplace=self.inplace, backend=self.backend)
