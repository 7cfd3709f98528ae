"""Whole model: a tiny DeepseekV4ForCausalLM with and without ``apply_ortrex_kernels`` gives the
same loss, the same gradients and the same 20-step loss curve; the patch composes with Liger."""

from __future__ import annotations

import pytest
import torch
from transformers.models.deepseek_v4 import modeling_deepseek_v4 as hf

from ortrex.kernels import apply_ortrex_kernels, remove_ortrex_kernels
from ortrex.kernels import deepseek_v4 as v4
from tests.kernels.conftest import tiny_v4_model

OURS = {"OrtrexDeepseekV4MLP", "OrtrexDeepseekV4Experts", "OrtrexDeepseekV4UnweightedRMSNorm"}


@pytest.fixture(autouse=True)
def _unpatch():
    yield
    remove_ortrex_kernels()


def _batch() -> torch.Tensor:
    return torch.randint(0, 256, (2, 24), generator=torch.Generator().manual_seed(7))


def _step(model, ids):
    model.zero_grad()
    out = model(input_ids=ids, labels=ids)
    out.loss.backward()
    grads = {n: p.grad.clone() for n, p in model.named_parameters() if p.grad is not None}
    return out.loss.detach(), grads, out.loss.grad_fn


def _graph_nodes(fn) -> set[str]:
    seen, todo, names = set(), [fn], set()
    while todo:
        f = todo.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        names.add(type(f).__name__)
        todo.extend(nf for nf, _ in f.next_functions)
    return names


def _assert_same(l0, g0, l1, g1):
    assert abs(l1 - l0).item() <= 1e-5 * l0.abs().item(), (l0.item(), l1.item())
    assert g0.keys() == g1.keys()
    scale = max(g.abs().max().item() for g in g0.values())
    for name in g0:
        torch.testing.assert_close(g1[name], g0[name], rtol=1e-4, atol=1e-5 * scale,
                                   msg=lambda m, n=name: f"{n}: {m}")


def test_instance_patch_swaps_every_v4_op_and_remove_restores():
    model = tiny_v4_model()
    counts = {}
    apply_ortrex_kernels(model, backend="eager", liger=False)
    for m in model.modules():
        counts[type(m).__name__] = counts.get(type(m).__name__, 0) + 1
    # 4 layers: a shared expert and routed experts each; q_b_norm + 2 mHC norms each, + hc_head
    assert {k: counts.get(k) for k in OURS} == {
        "OrtrexDeepseekV4MLP": 4, "OrtrexDeepseekV4Experts": 4,
        "OrtrexDeepseekV4UnweightedRMSNorm": 4 * 3 + 1}
    assert hf.apply_rotary_pos_emb is v4.apply_rotary_pos_emb
    remove_ortrex_kernels(model)
    assert not {type(m).__name__ for m in model.modules()} & OURS
    assert hf.apply_rotary_pos_emb is v4.HF_ROPE and hf.DeepseekV4MLP is v4.HF_MLP


def test_class_level_patch_reaches_models_built_afterwards():
    apply_ortrex_kernels(None, backend="eager", liger=False)
    assert hf.DeepseekV4Experts is v4.OrtrexDeepseekV4Experts
    model = tiny_v4_model()
    assert {type(m).__name__ for m in model.modules()} >= OURS
    remove_ortrex_kernels()
    assert hf.DeepseekV4Experts is v4.HF_EXPERTS
    assert not {type(m).__name__ for m in tiny_v4_model().modules()} & OURS


@pytest.mark.parametrize("backend,variant", [("eager", ""), ("triton", ""),
                                             ("triton", "weighted_rms_norm"),
                                             ("triton", "gradient_checkpointing")])
def test_same_loss_and_gradients(backend, variant):
    model, ids = tiny_v4_model(), _batch()
    if variant == "gradient_checkpointing":  # the in-place RoPE runs again in the recompute
        model.activation_checkpointing_enable()
        model.train()
    l0, g0, _ = _step(model, ids)
    apply_ortrex_kernels(model, backend=backend, liger=False,
                         weighted_rms_norm=variant == "weighted_rms_norm")
    l1, g1, fn = _step(model, ids)
    _assert_same(l0, g0, l1, g1)
    if backend == "triton" and variant != "gradient_checkpointing":
        # the fused ops really ran: their backward nodes are in the graph
        assert {"LimitedSwiGLUFunctionBackward", "LimitedSwiGLUPackedFunctionBackward",
                "RMSNormFunctionBackward", "RoPEFunctionBackward", "MoePermuteFunctionBackward",
                "MoeUnpermuteFunctionBackward"} <= _graph_nodes(fn)
    if variant == "weighted_rms_norm":
        kinds = {type(m) for m in model.modules()}
        assert v4.OrtrexDeepseekV4RMSNorm in kinds and v4.HF_NORM not in kinds


def test_twenty_adamw_steps_give_the_same_loss_curve():
    ids = _batch()[:, :16]

    def curve(model):
        opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
        losses = []
        for _ in range(20):
            opt.zero_grad()
            loss = model(input_ids=ids, labels=ids).loss
            loss.backward()
            opt.step()
            losses.append(loss.item())
        return torch.tensor(losses)

    # two layers (sliding + hash-routed MoE, HCA + top-k MoE): the interpreter is slow
    small = dict(num_hidden_layers=2, layer_types=["sliding_attention",
                                                   "heavily_compressed_attention"],
                 mlp_layer_types=["hash_moe", "moe"])
    plain = curve(tiny_v4_model(**small))  # before the patch: RoPE is replaced module-wide
    model = tiny_v4_model(**small)
    apply_ortrex_kernels(model, backend="triton", liger=False)
    fused = curve(model)
    assert plain[-1] < 0.8 * plain[0]  # it trains
    torch.testing.assert_close(fused, plain, rtol=1e-4, atol=0)


def test_other_experts_backends_keep_their_forward_and_use_the_gate_hook():
    model, ids = tiny_v4_model(), _batch()
    model.set_experts_implementation("batched_mm")
    l0, g0, _ = _step(model, ids)
    apply_ortrex_kernels(model, backend="triton", liger=False)
    l1, g1, fn = _step(model, ids)
    _assert_same(l0, g0, l1, g1)
    nodes = _graph_nodes(fn)
    assert "LimitedSwiGLUPackedFunctionBackward" in nodes
    assert "MoePermuteFunctionBackward" not in nodes


def test_flags_off_change_nothing():
    model, ids = tiny_v4_model(), _batch()
    l0, g0, _ = _step(model, ids)
    apply_ortrex_kernels(model, swiglu=False, rms_norm=False, rope=False, moe_permute=False,
                         liger=False, backend="triton")
    assert not {type(m).__name__ for m in model.modules()} & OURS
    l1, g1, _ = _step(model, ids)
    assert torch.equal(l0, l1) and all(torch.equal(g0[n], g1[n]) for n in g0)


def _liger_bound(module) -> bool:
    fn = module.__dict__.get("forward")
    return fn is not None and fn.__module__.startswith("liger_kernel")


def test_liger_v4_patch_is_composed_for_what_it_covers():
    """Liger's own kernels do not run in Triton's interpreter (they pass Python floats where the
    interpreter wants tensors), so this checks the composition, not a Liger forward."""
    model = tiny_v4_model()
    apply_ortrex_kernels(model, backend="triton", liger=True)
    layer = model.model.layers[0]
    assert _liger_bound(model)  # fused linear cross-entropy
    assert _liger_bound(layer.input_layernorm) and _liger_bound(model.model.norm)
    assert type(layer.attn_hc.input_norm).__name__ == "OrtrexDeepseekV4UnweightedRMSNorm"
    assert type(layer.mlp.experts).__name__ == "OrtrexDeepseekV4Experts"
    remove_ortrex_kernels(model)
    assert not _liger_bound(model) and not _liger_bound(layer.input_layernorm)
    assert hf.DeepseekV4RMSNorm is v4.HF_NORM

    apply_ortrex_kernels(model, backend="triton", liger=True, weighted_rms_norm=True)
    assert not _liger_bound(layer.input_layernorm) and _liger_bound(model)
    assert type(layer.input_layernorm).__name__ == "OrtrexDeepseekV4RMSNorm"


def test_liger_is_not_applied_on_the_eager_backend():
    model = tiny_v4_model()
    apply_ortrex_kernels(model, backend="eager", liger=True)
    assert not _liger_bound(model) and not _liger_bound(model.model.norm)
