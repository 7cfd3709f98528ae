"""Interleaved partial RoPE (V4) and its variants: Triton (interpreter), reference, HF."""

from __future__ import annotations

import pytest
import torch
from transformers.models.deepseek_v4.modeling_deepseek_v4 import apply_rotary_pos_emb as hf_rope

from ortrex.kernels.rope import rope, rope_reference
from tests.kernels.conftest import assert_close32, assert_quack, err


def _inputs(b=2, s=5, h=3, d=24, rd=8, dtype=torch.float32):
    """q as V4 makes it: a [B, H, S, D] view of [B, S, H*D]; cos / sin half-size [B, S, rd/2]."""
    base = torch.randn(b, s, h * d).to(dtype)
    ang = torch.rand(b, s, rd // 2) * 6
    return base, ang.cos().to(dtype), ang.sin().to(dtype), (b, s, h, d)


def _run(backend, base, cos, sin, shape, dy, inplace=False, **flags):
    b, s, h, d = shape
    leaf = base.detach().clone().requires_grad_()
    x = (leaf * 1).view(b, s, h, d).transpose(1, 2)  # a non-leaf view, as in the model
    y = rope(x, cos, sin, inplace=inplace, backend=backend, **flags)
    y.backward(dy)
    return y.detach(), leaf.grad.view(b, s, h, d).transpose(1, 2), x


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_reference_is_hf_apply_rotary_pos_emb(dtype):
    base, cos, sin, (b, s, h, d) = _inputs(dtype=dtype)
    q = base.view(b, s, h, d).transpose(1, 2)
    assert torch.equal(rope_reference(q, cos, sin), hf_rope(q, cos, sin))
    assert torch.equal(rope_reference(q, cos, -sin), hf_rope(q, cos, -sin))
    single = q[:, :1]  # the compressors' [B, 1, T, D]
    assert torch.equal(rope_reference(single, cos, sin), hf_rope(single, cos, sin))


FLAGS = [dict(interleaved=True, trailing=True), dict(interleaved=False, trailing=True),
         dict(interleaved=True, trailing=False), dict(interleaved=False, trailing=False)]


@pytest.mark.parametrize("flags", FLAGS)
@pytest.mark.parametrize("shape", [dict(b=2, s=5, h=3, d=24, rd=8), dict(b=1, s=1, h=1, d=2, rd=2),
                                   dict(b=1, s=7, h=5, d=64, rd=64)])
@pytest.mark.parametrize("inplace", [True, False])
def test_triton_matches_reference_fp32(flags, shape, inplace):
    base, cos, sin, shp = _inputs(**shape)
    dy = torch.randn(shp[0], shp[2], shp[1], shp[3])
    y, dx, _ = _run("triton", base, cos, sin, shp, dy, inplace=inplace, **flags)
    yr, dxr, _ = _run("eager", base, cos, sin, shp, dy, **flags)
    assert_close32(y, yr, "y")
    assert_close32(dx, dxr, "dx")


def test_triton_bf16_within_twice_the_reference_error():
    base, cos, sin, shp = _inputs(b=2, s=9, h=4, d=40, rd=16, dtype=torch.bfloat16)
    dy = torch.randn(shp[0], shp[2], shp[1], shp[3]).bfloat16()
    kern = _run("triton", base, cos, sin, shp, dy, inplace=True)
    ref16 = _run("eager", base, cos, sin, shp, dy)
    ref32 = _run("eager", base.float(), cos.float(), sin.float(), shp, dy.float())
    for i, name in enumerate(("y", "dx")):
        assert_quack(kern[i], ref16[i], ref32[i], name)


def test_in_place_touches_only_the_rope_slice():
    base, cos, sin, (b, s, h, d) = _inputs()
    x = base.clone().view(b, s, h, d).transpose(1, 2)
    before = x.clone()
    y = rope(x, cos, sin, inplace=True, backend="triton")
    assert y.data_ptr() == x.data_ptr()
    assert torch.equal(y[..., :-8], before[..., :-8])
    assert_close32(y, rope_reference(before, cos, sin), "y")


def test_a_leaf_that_needs_grad_is_not_written():
    x = torch.randn(1, 2, 3, 16, requires_grad=True)
    cos, sin = torch.rand(1, 3, 4), torch.rand(1, 3, 4)
    keep = x.detach().clone()
    y = rope(x, cos, sin, inplace=True, backend="triton")
    assert torch.equal(x.detach(), keep) and y.data_ptr() != x.data_ptr()


def test_backward_is_the_rotation_by_minus_theta():
    base, cos, sin, shp = _inputs()
    dy = torch.randn(shp[0], shp[2], shp[1], shp[3])
    _, dx, _ = _run("triton", base, cos, sin, shp, dy)
    assert err(dx, rope_reference(dy, cos, -sin)) < 1e-5


@pytest.mark.parametrize("flags", FLAGS)
def test_reference_gradcheck_fp64(flags):
    x = torch.randn(1, 2, 3, 10, dtype=torch.float64, requires_grad=True)
    cos = torch.rand(1, 3, 3, dtype=torch.float64, requires_grad=True)
    sin = torch.rand(1, 3, 3, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(lambda a, c, s: rope_reference(a, c, s, 1, **flags),
                                    (x, cos, sin))


def test_cos_sin_gradients_are_not_dropped():
    """The Triton Function returns no cos / sin gradient, so those go through the reference."""
    x = torch.randn(1, 2, 3, 10, dtype=torch.float64)
    cos = torch.rand(1, 3, 3, dtype=torch.float64, requires_grad=True)
    sin = torch.rand(1, 3, 3, dtype=torch.float64, requires_grad=True)
    rope(x, cos, sin, backend="triton").sum().backward()
    c2, s2 = cos.detach().requires_grad_(), sin.detach().requires_grad_()
    rope_reference(x, c2, s2).sum().backward()
    assert torch.allclose(cos.grad, c2.grad) and torch.allclose(sin.grad, s2.grad)
