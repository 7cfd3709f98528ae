"""MoE token permute / unpermute: hand-derived order, Megatron's routing-map layout, Triton vs
reference, and fp64 gradcheck."""

from __future__ import annotations

import pytest
import torch

from ortrex.kernels.moe_permute import (
    moe_permute,
    moe_permute_with_routing_map,
    moe_unpermute,
    permute_reference,
    unpermute_reference,
)
from tests.kernels.conftest import assert_close32, assert_quack


@pytest.mark.parametrize("backend", ["eager", "triton"])
def test_stable_expert_order_by_hand(backend):
    # pairs (token, slot) -> expert: (0,0)->1 (0,1)->0 (1,0)->0 (1,1)->2 (2,0)->1 (2,1)->1
    indices = torch.tensor([[1, 0], [0, 2], [1, 1]])
    tokens = torch.tensor([[10.0], [20.0], [30.0]])
    permuted, _, perm = moe_permute(tokens, indices, num_experts=3, backend=backend)
    # expert 0: pairs 1, 2; expert 1: pairs 0, 4, 5; expert 2: pair 3 (ties keep pair order)
    assert perm.sorted_indices.tolist() == [1, 2, 0, 4, 5, 3]
    assert permuted.view(-1).tolist() == [10.0, 20.0, 10.0, 30.0, 30.0, 20.0]
    assert perm.tokens_per_expert.tolist() == [2, 3, 1]
    probs = torch.tensor([[0.5, 0.25], [1.0, 2.0], [3.0, 4.0]])
    out = moe_unpermute(permuted * 2, perm, probs, backend=backend)
    assert out.view(-1).tolist() == [20 * 0.75, 40 * 3.0, 60 * 7.0]


@pytest.mark.parametrize("backend", ["eager", "triton"])
def test_routing_map_gives_megatrons_layout(backend):
    t, e = 11, 5
    routing_map = torch.rand(t, e) < 0.4
    tokens, probs = torch.randn(t, 7), torch.rand(t, e)
    permuted, pprobs, perm = moe_permute_with_routing_map(tokens, routing_map, probs=probs,
                                                          backend=backend)
    # Megatron's permute: expert-major, tokens in order within an expert
    rm = routing_map.T.contiguous()
    order = torch.arange(t).expand(e, t).masked_select(rm)
    assert torch.equal(permuted, tokens.index_select(0, order))
    assert torch.equal(pprobs, probs.T.contiguous().masked_select(rm))
    # Megatron's unpermute: probability-weighted scatter-add back to the tokens
    expect = torch.zeros(t, 7).index_add_(0, order, permuted * pprobs.unsqueeze(-1))
    assert_close32(moe_unpermute(permuted, perm, probs, backend=backend), expect, "unpermute")


def _run(backend, tokens, indices, probs, dy, num_out=None):
    x = tokens.detach().clone().requires_grad_()
    p = probs.detach().clone().requires_grad_()
    permuted, _, perm = moe_permute(x, indices, num_experts=6, num_out_tokens=num_out,
                                    backend=backend)
    out = moe_unpermute(permuted * 1.5, perm, p, backend=backend)
    out.backward(dy)
    return permuted.detach(), out.detach(), x.grad, p.grad


@pytest.mark.parametrize("t,k", [(1, 1), (13, 3), (40, 6)])
@pytest.mark.parametrize("drop", [False, True])
def test_triton_matches_reference_fp32(t, k, drop):
    indices = torch.stack([torch.randperm(6)[:k] for _ in range(t)])
    if drop:  # send some pairs to the sentinel expert 6: they sort last and are cut off
        indices[::3, 0] = 6
    n_out = int((indices < 6).sum()) if drop else None
    tokens, probs, dy = torch.randn(t, 37), torch.rand(t, k), torch.randn(t, 37)
    got = _run("triton", tokens, indices, probs, dy, n_out)
    ref = _run("eager", tokens, indices, probs, dy, n_out)
    for name, a, b in zip(("permuted", "out", "d tokens", "d probs"), got, ref, strict=True):
        assert_close32(a, b, name)


def test_triton_bf16_within_twice_the_reference_error():
    indices = torch.stack([torch.randperm(6)[:4] for _ in range(30)])
    tokens, probs = torch.randn(30, 64).bfloat16(), torch.rand(30, 4).bfloat16()
    dy = torch.randn(30, 64).bfloat16()
    kern = _run("triton", tokens, indices, probs, dy)
    ref16 = _run("eager", tokens, indices, probs, dy)
    ref32 = _run("eager", tokens.float(), indices, probs.float(), dy.float())
    for i, name in enumerate(("permuted", "out", "d tokens", "d probs")):
        assert_quack(kern[i], ref16[i], ref32[i], name)


def test_empty_experts_and_duplicate_picks():
    """Experts nobody chose get 0 rows; a token may pick one expert twice (V4's hash table)."""
    indices = torch.tensor([[0, 0], [3, 0]])
    permuted, _, perm = moe_permute(torch.randn(2, 4), indices, num_experts=5, backend="triton")
    assert perm.tokens_per_expert.tolist() == [3, 0, 0, 1, 0]
    assert permuted.shape == (4, 4)


def test_reference_gradcheck_fp64():
    indices = torch.stack([torch.randperm(5)[:2] for _ in range(4)])
    tokens = torch.randn(4, 3, dtype=torch.float64, requires_grad=True)
    probs = torch.rand(4, 2, dtype=torch.float64, requires_grad=True)
    _, _, perm = moe_permute(tokens.detach(), indices, num_experts=5, backend="eager")

    def f(x, p):
        return unpermute_reference(permute_reference(x, perm) * 2, perm, p)

    assert torch.autograd.gradcheck(f, (tokens, probs))
