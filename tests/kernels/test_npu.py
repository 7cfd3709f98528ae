"""The npu path. On a machine with torch_npu and an Ascend NPU the ops run on the device and are
compared with the reference; everywhere else that test skips. The glue (argument shapes, the
clamp before ``npu_swiglu``, the ones gamma, the rope slice, the permute index dtype) is tested
against a mock ``torch_npu`` written from the documented semantics of each API (reference §3.1):
an NPU cannot exist here, which is what the mock's test name says."""

from __future__ import annotations

import types

import pytest
import torch
import torch.nn.functional as F

from ortrex.kernels import registry
from ortrex.kernels.moe_permute import moe_permute, moe_unpermute
from ortrex.kernels.rms_norm import rms_norm, rms_norm_reference
from ortrex.kernels.rope import rope, rope_reference
from ortrex.kernels.swiglu_limit import limited_swiglu, limited_swiglu_reference
from tests.kernels.conftest import assert_close32


def _mock_torch_npu() -> types.ModuleType:
    """torch_npu's fused ops as documented, in plain torch (CPU)."""
    m = types.ModuleType("torch_npu")
    m.__version__ = "mock"

    def npu_swiglu(x, dim=-1):
        a, b = x.chunk(2, dim=dim)
        return F.silu(a) * b

    def npu_rms_norm(x, gamma, epsilon=1e-6):
        rstd = torch.rsqrt(x.float().square().mean(-1, keepdim=True) + epsilon)
        return (x.float() * rstd * gamma.float()).to(x.dtype), rstd

    def npu_rotary_mul(x, r1, r2, rotary_mode="half"):
        assert x.dim() == 4 and r1.dim() == 4 and r1.shape[0] == r1.shape[1] == 1
        if rotary_mode == "interleave":
            rot = torch.stack((-x[..., 1::2], x[..., 0::2]), -1).flatten(-2)
        else:
            h = x.shape[-1] // 2
            rot = torch.cat((-x[..., h:], x[..., :h]), -1)
        return r1 * x + r2 * rot

    def npu_moe_token_permute(tokens, indices, num_out_tokens=None, padded_mode=False):
        assert indices.dtype in (torch.int32, torch.int64) and not padded_mode
        topk = indices.shape[1] if indices.dim() == 2 else 1
        order = torch.argsort(indices.reshape(-1), stable=True)[:num_out_tokens]
        return tokens.index_select(0, order // topk), order.to(torch.int32)

    def npu_moe_token_unpermute(permuted, sorted_indices, probs=None, padded_mode=False,
                                restore_shape=None):
        t, h = restore_shape
        topk = probs.shape[1] if probs is not None else sorted_indices.numel() // t
        out = permuted.new_zeros(t * topk, h).index_copy(0, sorted_indices.long(), permuted)
        out = out.view(t, topk, h)
        if probs is not None:
            out = out * probs.unsqueeze(-1)
        return out.sum(1)

    for fn in (npu_swiglu, npu_rms_norm, npu_rotary_mul, npu_moe_token_permute,
               npu_moe_token_unpermute):
        setattr(m, fn.__name__, fn)
    return m


@pytest.fixture
def mock_npu(monkeypatch):
    monkeypatch.setattr(registry, "torch_npu", _mock_torch_npu)
    monkeypatch.setattr(torch, "npu", types.SimpleNamespace(is_available=lambda: True,
                                                            device_count=lambda: 1),
                        raising=False)
    monkeypatch.delenv("ORTREX_KERNELS", raising=False)


def test_npu_path_against_a_mock_torch_npu_from_the_documented_semantics(mock_npu):
    assert registry.backend() == "npu"
    assert [c.impl.split()[0] for c in registry.explain()] == [
        "clamp", "torch_npu.npu_rms_norm", "torch_npu.npu_rotary_mul(interleave)",
        "torch_npu.npu_moe_token_permute/_unpermute"]
    x, p = torch.randn(9, 2 * 20) * 8, torch.rand(9)
    assert_close32(limited_swiglu(x, limit=10.0, prob=p),
                   limited_swiglu_reference(*x.chunk(2, -1), 10.0, p), "swiglu")
    y = torch.randn(4, 5, 48)
    assert_close32(rms_norm(y), rms_norm_reference(y), "weightless")
    w = torch.rand(48) + 0.5
    assert_close32(rms_norm(y, w), rms_norm_reference(y, w), "weighted")
    q = torch.randn(1, 5, 3, 24).transpose(1, 2)
    cos, sin = torch.rand(1, 5, 4), torch.rand(1, 5, 4)
    assert_close32(rope(q, cos, sin), rope_reference(q, cos, sin), "rope, shared table")
    cos2, sin2 = torch.rand(2, 5, 4), torch.rand(2, 5, 4)  # per-batch tables: the reference
    q2 = torch.randn(2, 3, 5, 24)
    assert torch.equal(rope(q2, cos2, sin2), rope_reference(q2, cos2, sin2))
    idx = torch.stack([torch.randperm(6)[:2] for _ in range(7)])
    tok, probs = torch.randn(7, 16, requires_grad=True), torch.rand(7, 2)
    permuted, _, perm = moe_permute(tok, idx, num_experts=6)
    ref_permuted, _, ref_perm = moe_permute(tok, idx, num_experts=6, backend="eager")
    assert torch.equal(permuted, ref_permuted)
    assert torch.equal(perm.sorted_indices, ref_perm.sorted_indices)
    out = moe_unpermute(permuted, perm, probs)
    assert_close32(out, moe_unpermute(ref_permuted, ref_perm, probs, backend="eager"), "unpermute")
    out.sum().backward()
    assert tok.grad is not None and torch.equal(tok.grad, probs.sum(1, keepdim=True).expand(7, 16))


def test_npu_patched_model_against_a_mock_torch_npu_matches_the_model(mock_npu):
    from ortrex.kernels import apply_ortrex_kernels, remove_ortrex_kernels
    from tests.kernels.conftest import tiny_v4_model

    model = tiny_v4_model()
    ids = torch.randint(0, 256, (1, 16), generator=torch.Generator().manual_seed(3))
    base = model(input_ids=ids, labels=ids).loss
    try:
        apply_ortrex_kernels(model, liger=False)
        assert abs(model(input_ids=ids, labels=ids).loss - base).item() <= 1e-5 * base.item()
    finally:
        remove_ortrex_kernels(model)


@pytest.mark.skipif(not registry.npu_status()[0], reason="needs torch_npu and an Ascend NPU")
def test_on_a_real_npu_each_op_matches_the_reference():
    dev = torch.device("npu")
    x, p = (torch.randn(64, 2 * 256) * 8).to(dev), torch.rand(64).to(dev)
    assert_close32(limited_swiglu(x, limit=10.0, prob=p, backend="npu").cpu(),
                   limited_swiglu_reference(*x.cpu().chunk(2, -1), 10.0, p.cpu()), "swiglu")
    y = torch.randn(8, 16384).to(dev)
    assert_close32(rms_norm(y, backend="npu").cpu(), rms_norm_reference(y.cpu()), "rms_norm")
    q = torch.randn(1, 4, 16, 512).to(dev)
    cos, sin = torch.rand(1, 16, 32).to(dev), torch.rand(1, 16, 32).to(dev)
    assert_close32(rope(q, cos, sin, backend="npu").cpu(),
                   rope_reference(q.cpu(), cos.cpu(), sin.cpu()), "rope")
    idx = torch.stack([torch.randperm(16)[:4] for _ in range(32)]).to(dev)
    tok, probs = torch.randn(32, 128).to(dev), torch.rand(32, 4).to(dev)
    permuted, _, perm = moe_permute(tok, idx, num_experts=16, backend="npu")
    ref_permuted, _, ref_perm = moe_permute(tok.cpu(), idx.cpu(), num_experts=16, backend="eager")
    assert_close32(permuted.cpu(), ref_permuted, "permute")
    assert_close32(moe_unpermute(permuted, perm, probs, backend="npu").cpu(),
                   moe_unpermute(ref_permuted, ref_perm, probs.cpu(), backend="eager"),
                   "unpermute")
