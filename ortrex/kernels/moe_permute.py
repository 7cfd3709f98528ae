"""MoE token permute / unpermute: group the ``T x k`` (token, expert) pairs by expert and back.

Semantics (Megatron / torch_npu ``npu_moe_token_permute``): a *stable* argsort of the
flattened top-k expert indices gives ``sorted_indices``; permuted row ``i`` is token
``sorted_indices[i] // k``. Unpermute puts each row back at its (token, slot) and sums the k
expert outputs of a token, weighted by its probabilities. A routing map (boolean ``[T, E]``)
is turned into the same top-k form (experts ascending per token), which gives Megatron's
expert-major, token-ordered layout. Every backward is a gather by the inverse map (no atomics,
deterministic). ``num_out_tokens`` keeps only the first rows (pairs routed to the sentinel
expert ``E`` sort last and are dropped this way).
"""

from __future__ import annotations

from dataclasses import dataclass

import torch

from ortrex.kernels import registry
from ortrex.kernels.utils import accum_dtype, cast_rtne, interpreting, jit, tile, tl, triton


@dataclass
class Permutation:
    """Where each (token, slot) pair went: enough to unpermute and to differentiate."""

    sorted_indices: torch.Tensor     # [n_out] flat pair index (token * k + slot) of each row
    row_id_map: torch.Tensor | None  # [T * k] row of each pair, -1 when dropped
    indices: torch.Tensor            # [T, k] expert of each pair (E = the dropped sentinel)
    tokens_per_expert: torch.Tensor  # [E] rows per expert, in order
    num_tokens: int
    topk: int

    def permute_probs(self, probs: torch.Tensor) -> torch.Tensor:
        """Probabilities (``[T, k]``, or ``[T, E]`` dense) in permuted row order."""
        return _pair_probs(probs, self).reshape(-1).index_select(0, self.sorted_indices)


def _pair_probs(probs: torch.Tensor, perm: Permutation) -> torch.Tensor:
    """``[T, k]`` probabilities: as given, or gathered from a dense ``[T, E]`` matrix."""
    if probs.shape == perm.indices.shape:
        return probs
    e = probs.shape[-1]
    idx = perm.indices.clamp(max=e - 1)
    return probs.gather(1, idx).masked_fill(perm.indices >= e, 0)


def _plan(indices: torch.Tensor, num_experts: int | None,
          num_out_tokens: int | None) -> Permutation:
    """The stable expert order of the pairs in ``indices`` ([T, k] or [T])."""
    idx = indices.reshape(indices.shape[0], -1).long()
    flat = idx.reshape(-1)
    e = int(flat.max().item()) + 1 if num_experts is None and flat.numel() else num_experts or 0
    n_out = flat.numel() if num_out_tokens is None else int(num_out_tokens)
    if not 0 <= n_out <= flat.numel():
        raise ValueError(f"num_out_tokens={n_out} outside [0, {flat.numel()}]")
    sorted_indices = torch.argsort(flat, stable=True)[:n_out]
    row_id_map = torch.full_like(flat, -1)
    row_id_map[sorted_indices] = torch.arange(n_out, device=flat.device)
    counts = torch.bincount(flat.clamp(max=e), minlength=e + 1)[:e]
    return Permutation(sorted_indices, row_id_map, idx, counts, idx.shape[0], idx.shape[1])


def routing_map_to_indices(routing_map: torch.Tensor) -> torch.Tensor:
    """``[T, K]`` experts per token, ascending, padded with the sentinel ``E`` (K = most chosen)."""
    t, e = routing_map.shape
    k = int(routing_map.sum(1).max().item()) if t else 0
    ids = torch.arange(e, device=routing_map.device).expand(t, e)
    return torch.where(routing_map.bool(), ids, e).sort(dim=1).values[:, :k]


# ---------------------------------------------------------------------------------------------
# Eager reference (MindSpeed-MM's fallback: argsort, index_select; index_copy, weighted sum)
# ---------------------------------------------------------------------------------------------


def permute_reference(tokens: torch.Tensor, perm: Permutation) -> torch.Tensor:
    """Rows of ``tokens`` in expert order."""
    return tokens.index_select(0, perm.sorted_indices // perm.topk)


def unpermute_reference(permuted: torch.Tensor, perm: Permutation,
                        probs: torch.Tensor | None = None) -> torch.Tensor:
    """Each token's k rows back in place, summed (weighted by ``probs``) in fp32."""
    acc = accum_dtype(permuted.dtype)
    out = permuted.new_zeros(perm.num_tokens * perm.topk, permuted.shape[-1], dtype=acc)
    out = out.index_copy(0, perm.sorted_indices, permuted.to(acc))
    out = out.view(perm.num_tokens, perm.topk, -1)
    if probs is not None:
        out = out * _pair_probs(probs, perm).to(acc).unsqueeze(-1)
    return out.sum(1).to(permuted.dtype)


# ---------------------------------------------------------------------------------------------
# Triton kernels
# ---------------------------------------------------------------------------------------------


@jit
def _moe_permute_forward_kernel(TOKENS, SORTED, OUT, n_out, n_cols, topk, stride_t, stride_o,
                                BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    pid = tl.program_id(0).to(tl.int64)
    rows = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    rmask = rows < n_out
    src = tl.load(SORTED + rows, mask=rmask, other=0) // topk
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        mask = rmask[:, None] & (cols[None, :] < n_cols)
        v = tl.load(TOKENS + src[:, None] * stride_t + cols[None, :], mask=mask, other=0.0)
        tl.store(OUT + rows[:, None] * stride_o + cols[None, :], v, mask=mask)


@jit
def _moe_unpermute_forward_kernel(P, ROWMAP, PROBS, OUT, n_tokens, n_cols, topk, stride_p,
                                  stride_o, HAS_PROBS: tl.constexpr, RTNE: tl.constexpr,
                                  BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr):
    # out[t] = sum_j probs[t, j] * P[rowmap[t*k + j]]; also the permute's backward (no probs).
    pid = tl.program_id(0).to(tl.int64)
    toks = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tmask = toks < n_tokens
    for start in range(0, n_cols, BLOCK_N):
        cols = start + tl.arange(0, BLOCK_N)
        cmask = cols < n_cols
        acc = tl.zeros([BLOCK_M, BLOCK_N], dtype=tl.float32)
        for j in range(0, topk):
            r = tl.load(ROWMAP + toks * topk + j, mask=tmask, other=-1)
            ok = r >= 0
            v = tl.load(P + r[:, None] * stride_p + cols[None, :],
                        mask=ok[:, None] & cmask[None, :], other=0.0).to(tl.float32)
            if HAS_PROBS:
                w = tl.load(PROBS + toks * topk + j, mask=tmask & ok, other=0.0).to(tl.float32)
                v = v * w[:, None]
            acc += v
        tl.store(OUT + toks[:, None] * stride_o + cols[None, :],
                 cast_rtne(acc, OUT.dtype.element_ty, RTNE), mask=tmask[:, None] & cmask[None, :])


@jit
def _moe_unpermute_backward_kernel(DOUT, P, ROWMAP, PROBS, DP, DPROBS, n_tokens, n_cols, topk,
                                   stride_do, stride_p, stride_dp, HAS_PROBS: tl.constexpr,
                                   RTNE: tl.constexpr, BLOCK_M: tl.constexpr,
                                   BLOCK_N: tl.constexpr):
    # dP[rowmap[t*k+j]] = probs[t, j] * dout[t];  dprobs[t, j] = <P[rowmap[t*k+j]], dout[t]>
    pid = tl.program_id(0).to(tl.int64)
    toks = pid * BLOCK_M + tl.arange(0, BLOCK_M)
    tmask = toks < n_tokens
    for j in range(0, topk):
        r = tl.load(ROWMAP + toks * topk + j, mask=tmask, other=-1)
        ok = r >= 0
        if HAS_PROBS:
            w = tl.load(PROBS + toks * topk + j, mask=tmask & ok, other=0.0).to(tl.float32)
            dw = tl.zeros([BLOCK_M], dtype=tl.float32)
        for start in range(0, n_cols, BLOCK_N):
            cols = start + tl.arange(0, BLOCK_N)
            cmask = cols < n_cols
            dout = tl.load(DOUT + toks[:, None] * stride_do + cols[None, :],
                           mask=tmask[:, None] & cmask[None, :], other=0.0).to(tl.float32)
            rmask = ok[:, None] & cmask[None, :]
            if HAS_PROBS:
                v = tl.load(P + r[:, None] * stride_p + cols[None, :], mask=rmask,
                            other=0.0).to(tl.float32)
                dw += tl.sum(v * dout, axis=1)
                dout = dout * w[:, None]
            tl.store(DP + r[:, None] * stride_dp + cols[None, :],
                     cast_rtne(dout, DP.dtype.element_ty, RTNE), mask=rmask)
        if HAS_PROBS:
            tl.store(DPROBS + toks * topk + j, cast_rtne(dw, DPROBS.dtype.element_ty, RTNE),
                     mask=tmask)


# ---------------------------------------------------------------------------------------------
# Launchers and autograd Functions
# ---------------------------------------------------------------------------------------------


def _rowwise(t: torch.Tensor) -> torch.Tensor:
    return t if t.stride(-1) == 1 else t.contiguous()


def moe_permute_forward(tokens: torch.Tensor, perm: Permutation) -> torch.Tensor:
    """Launch the gather of ``tokens`` rows into expert order."""
    tokens = _rowwise(tokens)
    n_out, n_cols = perm.sorted_indices.numel(), tokens.shape[-1]
    out = tokens.new_empty((n_out, n_cols))
    if n_out and n_cols:
        bm, bn, warps = tile(n_out, n_cols)
        _moe_permute_forward_kernel[(triton.cdiv(n_out, bm),)](
            tokens, perm.sorted_indices, out, n_out, n_cols, perm.topk, tokens.stride(0),
            out.stride(0), BLOCK_M=bm, BLOCK_N=bn, num_warps=warps)
    return out


def moe_unpermute_forward(permuted: torch.Tensor, perm: Permutation,
                          probs: torch.Tensor | None) -> torch.Tensor:
    """Launch the probability-weighted gather-sum back to token order."""
    permuted = _rowwise(permuted)
    n_cols = permuted.shape[-1]
    out = permuted.new_empty((perm.num_tokens, n_cols))
    if perm.num_tokens and n_cols:
        bm, bn, warps = tile(perm.num_tokens, n_cols)
        _moe_unpermute_forward_kernel[(triton.cdiv(perm.num_tokens, bm),)](
            permuted, perm.row_id_map, probs if probs is not None else permuted, out,
            perm.num_tokens, n_cols, perm.topk, permuted.stride(0), out.stride(0),
            HAS_PROBS=probs is not None, RTNE=interpreting(), BLOCK_M=bm, BLOCK_N=bn,
            num_warps=warps)
    return out


class MoePermuteFunction(torch.autograd.Function):
    """Triton permute; its backward is the unweighted unpermute."""

    @staticmethod
    def forward(ctx, tokens: torch.Tensor, perm: Permutation) -> torch.Tensor:
        ctx.perm = perm
        return moe_permute_forward(tokens, perm)

    @staticmethod
    def backward(ctx, d_permuted: torch.Tensor):
        return moe_unpermute_forward(d_permuted, ctx.perm, None), None


class MoeUnpermuteFunction(torch.autograd.Function):
    """Triton unpermute with optional probabilities (``[T, k]``)."""

    @staticmethod
    def forward(ctx, permuted: torch.Tensor, perm: Permutation,
                probs: torch.Tensor | None) -> torch.Tensor:
        probs = probs.contiguous() if probs is not None else None
        ctx.perm = perm
        ctx.save_for_backward(permuted, probs)
        return moe_unpermute_forward(permuted, perm, probs)

    @staticmethod
    def backward(ctx, d_out: torch.Tensor):
        permuted, probs = ctx.saved_tensors
        perm: Permutation = ctx.perm
        d_out = _rowwise(d_out)
        permuted = _rowwise(permuted)
        d_perm = torch.empty_like(permuted)
        d_probs = torch.empty_like(probs) if probs is not None else None
        n_cols = permuted.shape[-1]
        if perm.num_tokens and n_cols:
            bm, bn, warps = tile(perm.num_tokens, n_cols)
            _moe_unpermute_backward_kernel[(triton.cdiv(perm.num_tokens, bm),)](
                d_out, permuted, perm.row_id_map, probs if probs is not None else permuted,
                d_perm, d_probs if d_probs is not None else d_perm, perm.num_tokens, n_cols,
                perm.topk, d_out.stride(0), permuted.stride(0), d_perm.stride(0),
                HAS_PROBS=probs is not None, RTNE=interpreting(), BLOCK_M=bm, BLOCK_N=bn,
                num_warps=warps)
        elif d_probs is not None:
            d_probs.zero_()
        return d_perm, None, d_probs


# ---------------------------------------------------------------------------------------------
# NPU path: torch_npu.npu_moe_token_permute / npu_moe_token_unpermute
# ---------------------------------------------------------------------------------------------


def _npu_ops() -> tuple[object, object] | None:
    npu = registry.torch_npu()
    if npu is None:
        return None
    p = getattr(npu, "npu_moe_token_permute", None)
    u = getattr(npu, "npu_moe_token_unpermute", None)
    return (p, u) if p is not None and u is not None else None


# ---------------------------------------------------------------------------------------------
# Functional API
# ---------------------------------------------------------------------------------------------


def moe_permute(tokens: torch.Tensor, indices: torch.Tensor, *, num_experts: int | None = None,
                num_out_tokens: int | None = None, probs: torch.Tensor | None = None,
                backend: str | None = None,
                ) -> tuple[torch.Tensor, torch.Tensor | None, Permutation]:
    """``(permuted, permuted_probs, perm)`` for top-k ``indices`` ``[T, k]`` (or ``[T]``)."""
    name = registry.backend(backend)
    perm = _plan(indices, num_experts, num_out_tokens)
    pprobs = perm.permute_probs(probs) if probs is not None else None
    ops = _npu_ops() if name == "npu" else None
    if ops is not None:
        permuted, sorted_indices = ops[0](tokens, perm.indices.to(torch.int32),
                                          num_out_tokens=perm.sorted_indices.numel())
        perm.sorted_indices = sorted_indices.long()
        return permuted, pprobs, perm
    if name == "triton":
        return MoePermuteFunction.apply(tokens, perm), pprobs, perm
    return permute_reference(tokens, perm), pprobs, perm


def moe_permute_with_routing_map(tokens: torch.Tensor, routing_map: torch.Tensor, *,
                                 probs: torch.Tensor | None = None,
                                 num_out_tokens: int | None = None, backend: str | None = None,
                                 ) -> tuple[torch.Tensor, torch.Tensor | None, Permutation]:
    """The same from a boolean routing map ``[T, E]`` (``probs``: dense ``[T, E]``)."""
    e = routing_map.shape[1]
    idx = routing_map_to_indices(routing_map)
    n = int(routing_map.sum().item()) if num_out_tokens is None else num_out_tokens
    return moe_permute(tokens, idx, num_experts=e, num_out_tokens=n, probs=probs,
                       backend=backend)


def moe_unpermute(permuted: torch.Tensor, perm: Permutation, probs: torch.Tensor | None = None,
                  *, backend: str | None = None) -> torch.Tensor:
    """``[T, H]``: each token's k expert rows summed, weighted by ``probs`` (``[T, k]``/``[T,
                                                                                           E]``)."""
    name = registry.backend(backend)
    ops = _npu_ops() if name == "npu" else None
    if ops is not None:
        p = _pair_probs(probs, perm) if probs is not None else None
        return ops[1](permuted, perm.sorted_indices.to(torch.int32), probs=p,
                      restore_shape=(perm.num_tokens, permuted.shape[-1]))
    if name == "triton":
        p = _pair_probs(probs, perm) if probs is not None else None
        return MoeUnpermuteFunction.apply(permuted, perm, p)
    return unpermute_reference(permuted, perm, probs)
