"""Limited SwiGLU: Triton (interpreter) and the reference against each other, HF and PyTorch."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from ortrex.kernels import swiglu_limit as sw
from ortrex.kernels.swiglu_limit import limited_swiglu, limited_swiglu_reference
from tests.kernels.conftest import assert_close32, assert_quack

L = 10.0


def _run(backend: str, x: torch.Tensor, p: torch.Tensor | None, packed: bool, dy: torch.Tensor):
    """Output and gradients (gate_up or gate+up, prob) for one backend."""
    x = x.detach().clone().requires_grad_()
    p = p.detach().clone().requires_grad_() if p is not None else None
    if packed:
        y = limited_swiglu(x, limit=L, prob=p, backend=backend)
    else:
        g, u = x.detach().chunk(2, -1)
        g, u = g.contiguous().requires_grad_(), u.contiguous().requires_grad_()
        y = limited_swiglu(g, u, limit=L, prob=p, backend=backend)
    y.backward(dy)
    dx = x.grad if packed else torch.cat([g.grad, u.grad], -1)
    return y.detach(), dx, None if p is None else p.grad


SHAPES = [(1, 2 * 1), (37, 2 * 333), (2, 5, 2 * 64), (3, 2 * 2048)]


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("packed", [True, False])
@pytest.mark.parametrize("with_prob", [True, False])
def test_triton_matches_reference_fp32(shape, packed, with_prob):
    x = torch.randn(shape) * 8  # many values beyond the limit on both sides
    p = torch.rand(shape[:-1]) if with_prob else None
    dy = torch.randn(*shape[:-1], shape[-1] // 2)
    ref = _run("eager", x, p, packed, dy)
    got = _run("triton", x, p, packed, dy)
    for name, a, b in zip(("out", "d gate_up", "d prob"), got, ref, strict=True):
        if b is not None:
            assert_close32(a, b, name)


@pytest.mark.parametrize("packed", [True, False])
def test_triton_bf16_within_twice_the_reference_error(packed):
    x = (torch.randn(53, 2 * 200) * 6).bfloat16()
    p = torch.rand(53).bfloat16()
    dy = torch.randn(53, 200).bfloat16()
    kern = _run("triton", x, p, packed, dy)
    ref16 = _run("eager", x, p, packed, dy)
    ref32 = _run("eager", x.float(), p.float(), packed, dy.float())
    for name, k, r, f in zip(("out", "d gate_up", "d prob"), kern, ref16, ref32, strict=True):
        assert_quack(k, r, f, name)


def test_reference_is_the_hf_formula():
    """DeepseekV4Experts._apply_gate and DeepseekV4MLP: silu(g.clamp(max=L)) * u.clamp(-L, L)."""
    from transformers.models.deepseek_v4.modeling_deepseek_v4 import DeepseekV4Experts

    from tests.kernels.conftest import tiny_v4_config

    experts = DeepseekV4Experts(tiny_v4_config())
    x = torch.randn(40, 2 * 48) * 9
    assert torch.equal(limited_swiglu_reference(*x.chunk(2, -1), experts.limit),
                       experts._apply_gate(x))


@pytest.mark.parametrize("backend", ["eager", "triton"])
def test_clamp_boundaries_follow_torch_clamp(backend):
    """g = L passes the gate gradient, g just above L does not; u = ±L passes, beyond does not."""
    above = torch.nextafter(torch.tensor(L), torch.tensor(100.0)).item()
    below = -above
    g = torch.tensor([L, above, 3.0, 3.0, 3.0, 3.0, -12.0])
    u = torch.tensor([2.0, 2.0, L, -L, above, below, 1.0])
    gt, ut = g.clone().requires_grad_(), u.clone().requires_grad_()
    y = limited_swiglu(gt.view(1, -1), ut.view(1, -1), limit=L, backend=backend)
    y.sum().backward()
    # torch's own clamp semantics, spelled out in the HF way
    gr, ur = g.clone().requires_grad_(), u.clone().requires_grad_()
    (F.silu(gr.clamp(max=L)) * ur.clamp(min=-L, max=L)).sum().backward()
    assert_close32(y.view(-1).detach(), F.silu(g.clamp(max=L)) * u.clamp(-L, L), "out")
    assert_close32(gt.grad, gr.grad, "d gate")
    assert_close32(ut.grad, ur.grad, "d up")
    assert gt.grad[0] != 0 and gt.grad[1] == 0  # at the bound / just outside
    assert ut.grad[2] != 0 and ut.grad[3] != 0 and ut.grad[4] == 0 and ut.grad[5] == 0


def test_zero_rows_skip_the_launch(monkeypatch):
    class NoLaunch:
        def __getitem__(self, grid):
            raise AssertionError("a kernel was launched for 0 rows")

    monkeypatch.setattr(sw, "_limited_swiglu_forward_kernel", NoLaunch())
    monkeypatch.setattr(sw, "_limited_swiglu_backward_kernel", NoLaunch())
    x = torch.randn(0, 2 * 16, requires_grad=True)
    p = torch.rand(0, requires_grad=True)
    y = limited_swiglu(x, limit=L, prob=p, backend="triton")
    assert y.shape == (0, 16)
    y.sum().backward()
    assert x.grad.shape == (0, 32) and p.grad.shape == (0,)


def test_reference_gradcheck_fp64():
    x = (torch.randn(4, 2 * 6, dtype=torch.float64) * 6)
    # keep clear of the kinks at ±L, where finite differences are not defined
    x = torch.where((x.abs() - L).abs() < 0.1, x + 0.5, x).requires_grad_()
    p = torch.rand(4, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(
        lambda a, b: limited_swiglu_reference(*a.chunk(2, -1), L, b), (x, p))


def test_packed_gate_up_needs_an_even_width():
    with pytest.raises(ValueError, match="even"):
        limited_swiglu(torch.randn(2, 5), limit=L, backend="eager")
