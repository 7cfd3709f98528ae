"""Kernel tests run the Triton kernels in Triton's CPU interpreter.

``triton.jit`` decides between compiling and interpreting when a kernel is defined, so the
variable is set here, before any ``ortrex.kernels`` op module is imported.
"""

from __future__ import annotations

import os

os.environ["TRITON_INTERPRET"] = "1"

import pytest
import torch


@pytest.fixture(autouse=True)
def _seed_and_threads():
    """Every test starts from the same seed; one thread (the CI box has two cores, two workers)."""
    torch.manual_seed(0)
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


def err(a: torch.Tensor, b: torch.Tensor) -> float:
    """Largest absolute difference, in fp64."""
    return (a.double() - b.double()).abs().max().item() if a.numel() else 0.0


def assert_quack(kernel: torch.Tensor, ref_low: torch.Tensor, ref_fp32: torch.Tensor,
                 what: str = "") -> None:
    """Low-precision kernel error to fp32 at most twice the reference's own (Dao-AILab quack).

    The floor is fp32 noise at the tensor's scale: an fp32 output (V4's fp32 norm weight's
    gradient) has a reference error of 0 and differs only in summation order.
    """
    k, r = err(kernel, ref_fp32), err(ref_low, ref_fp32)
    scale = ref_fp32.double().abs().max().item() if ref_fp32.numel() else 0.0
    assert k <= 2 * r + 1e-6 * max(1.0, scale), (
        f"{what}: kernel error {k:.3g} > 2 x reference error {r:.3g}")


def assert_close32(actual: torch.Tensor, expected: torch.Tensor, what: str = "") -> None:
    """fp32 agreement: relative 1e-5 of the tensor's scale."""
    scale = expected.double().abs().max().item() if expected.numel() else 0.0
    e = err(actual, expected)
    assert e <= 1e-5 * scale + 1e-7, f"{what}: max error {e:.3g} at scale {scale:.3g}"


def tiny_v4_config(**overrides):
    """A tiny DeepSeek-V4 (4 layers: sliding, CSA, HCA, CSA; hash routing first; 8 experts)."""
    from transformers import DeepseekV4Config

    kw = dict(
        vocab_size=256, hidden_size=64, intermediate_size=48, moe_intermediate_size=48,
        num_hidden_layers=4, num_attention_heads=4, head_dim=64, q_lora_rank=32,
        n_routed_experts=8, num_experts_per_tok=2, o_groups=2, o_lora_rank=16,
        index_n_heads=2, index_head_dim=32, index_topk=4, sliding_window=8,
        compress_rates={"compressed_sparse_attention": 4, "heavily_compressed_attention": 8},
        layer_types=["sliding_attention", "compressed_sparse_attention",
                     "heavily_compressed_attention", "compressed_sparse_attention"],
        mlp_layer_types=["hash_moe", "moe", "moe", "moe"], max_position_embeddings=256,
        use_cache=False)
    kw.update(overrides)
    return DeepseekV4Config(**kw)


def tiny_v4_model(seed: int = 0, **overrides):
    """The tiny model with a seeded init and a real hash-routing table (two experts per token)."""
    from transformers import DeepseekV4ForCausalLM

    cfg = tiny_v4_config(**overrides)
    torch.manual_seed(seed)
    model = DeepseekV4ForCausalLM(cfg)
    g = torch.Generator().manual_seed(seed)
    table = torch.stack([torch.randperm(cfg.num_local_experts, generator=g)[:2]
                         for _ in range(cfg.vocab_size)])
    with torch.no_grad():
        for layer in model.model.layers:
            if layer.mlp.is_hash:
                layer.mlp.gate.tid2eid.copy_(table)
    return model
