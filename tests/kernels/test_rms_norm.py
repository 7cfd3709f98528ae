"""RMSNorm, weightless and weighted: Triton (interpreter) vs the reference, HF, fp64 gradcheck."""

from __future__ import annotations

import pytest
import torch

from ortrex.kernels import rms_norm as rn
from ortrex.kernels.rms_norm import rms_norm, rms_norm_reference
from ortrex.kernels.utils import MAX_BLOCK_N, tile
from tests.kernels.conftest import assert_close32, assert_quack


def _run(backend: str, x: torch.Tensor, w: torch.Tensor | None, dy: torch.Tensor):
    x = x.detach().clone().requires_grad_()
    w = w.detach().clone().requires_grad_() if w is not None else None
    y = rms_norm(x, w, eps=1e-6, backend=backend)
    y.backward(dy)
    return y.detach(), x.grad, None if w is None else w.grad


SHAPES = [(1, 16384), (2, 28672), (1, 1), (5, 123), (3, 7, 512)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("weighted", [False, True])
def test_triton_matches_reference_fp32(shape, weighted):
    x = torch.randn(shape) * 3
    w = torch.rand(shape[-1]) + 0.5 if weighted else None
    dy = torch.randn(shape)
    for name, a, b in zip(("y", "dx", "dw"), _run("triton", x, w, dy), _run("eager", x, w, dy),
                          strict=True):
        if b is not None:
            assert_close32(a, b, name)


def test_wide_rows_are_blocked_not_one_giant_block():
    for cols in (16384, 28672):
        _, block_n, _ = tile(1, cols)
        assert block_n <= MAX_BLOCK_N < cols


@pytest.mark.parametrize("weighted", [False, True])
def test_triton_bf16_within_twice_the_reference_error(weighted):
    x = (torch.randn(33, 300) * 3).bfloat16()
    w = torch.rand(300) + 0.5 if weighted else None  # V4 keeps norm weights in fp32
    dy = torch.randn(33, 300).bfloat16()
    kern, ref16 = _run("triton", x, w, dy), _run("eager", x, w, dy)
    ref32 = _run("eager", x.float(), w, dy.float())
    for name, k, r, f in zip(("y", "dx", "dw"), kern, ref16, ref32, strict=True):
        if f is not None:
            assert_quack(k, r, f, name)


def test_query_layout_is_kept_without_a_copy():
    """q_b_norm gets q as a [B, H, S, D] view of a [B, S, H, D] buffer."""
    q = torch.randn(2, 5, 3, 64).transpose(1, 2)
    y = rms_norm(q, None, backend="triton")
    assert y.stride() == q.stride()
    assert_close32(y, rms_norm_reference(q), "y")


def test_reference_is_the_hf_modules():
    from transformers.models.deepseek_v4.modeling_deepseek_v4 import (
        DeepseekV4RMSNorm,
        DeepseekV4UnweightedRMSNorm,
    )

    for dtype in (torch.float32, torch.bfloat16):
        x = (torch.randn(16, 96) * 3).to(dtype)
        assert torch.equal(rms_norm_reference(x), DeepseekV4UnweightedRMSNorm()(x))
        norm = DeepseekV4RMSNorm(96)
        with torch.no_grad():
            norm.weight.copy_(torch.rand(96) + 0.5)
        assert torch.equal(rms_norm_reference(x, norm.weight), norm(x))


def test_bf16_rounding_chain_is_the_hf_one():
    """rstd is rounded to bf16 and the product rounded once; the fp32-product chain differs."""
    x = (torch.randn(4096, 512) * 3).bfloat16()
    _, y, rstd = rn.rms_norm_forward(x, None, 1e-6)
    assert torch.equal(y, x * rstd.unsqueeze(-1).to(torch.bfloat16))  # the chain, bit for bit
    hf = rms_norm_reference(x)
    assert (y != hf).float().mean().item() < 1e-3  # only where rstd's own bf16 rounding flips
    fp32_chain = (x.float() * rstd.unsqueeze(-1)).bfloat16()
    assert (fp32_chain != hf).float().mean().item() > 0.05


@pytest.mark.parametrize("weighted", [False, True])
def test_reference_gradcheck_fp64(weighted):
    x = torch.randn(3, 9, dtype=torch.float64, requires_grad=True)
    args = (x,) + ((torch.rand(9, dtype=torch.float64, requires_grad=True) + 0.5,)
                   if weighted else ())
    assert torch.autograd.gradcheck(lambda *a: rms_norm_reference(*a), args)
