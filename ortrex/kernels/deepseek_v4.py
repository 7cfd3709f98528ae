"""DeepSeek-V4 modules with the fused ops in: subclasses of the ``transformers`` classes that
``patch.apply_ortrex_kernels`` swaps in (read from ``modeling_deepseek_v4`` 5.24).

* ``DeepseekV4MLP`` (dense MLP and shared experts): limited SwiGLU on separate gate / up;
* ``DeepseekV4Experts``: the ``_apply_gate`` hook (used by every experts backend of
  ``@use_experts_implementation``: eager, grouped_mm, batched_mm, ...) runs the packed limited
  SwiGLU; the forward is a grouped path over permuted tokens (permute -> grouped gate_up matmul
  -> limited SwiGLU x routing probability in one kernel -> grouped down matmul -> unpermute);
* ``DeepseekV4UnweightedRMSNorm`` (``q_b_norm``, mHC ``input_norm``, ``hc_head``): weightless
  RMSNorm with the HF rounding chain; ``DeepseekV4RMSNorm`` only on request (Liger covers it);
* ``apply_rotary_pos_emb`` (attention q / kv / output, compressors, indexer): interleaved
  partial RoPE, rotating the rope slice in place.
"""

from __future__ import annotations

from dataclasses import dataclass

import torch
from transformers.models.deepseek_v4 import modeling_deepseek_v4 as hf

from ortrex.kernels.moe_permute import moe_permute, moe_unpermute
from ortrex.kernels.rms_norm import rms_norm
from ortrex.kernels.rope import rope
from ortrex.kernels.swiglu_limit import limited_swiglu

try:  # the grouped matmul transformers' own grouped_mm backend uses (alignment fallbacks included)
    from transformers.integrations.moe import _grouped_linear
except ImportError:  # pragma: no cover - older or newer transformers
    _grouped_linear = None

# The classes as transformers defines them, taken before any patch replaces the module names.
HF_MLP = hf.DeepseekV4MLP
HF_EXPERTS = hf.DeepseekV4Experts
HF_UNWEIGHTED_NORM = hf.DeepseekV4UnweightedRMSNorm
HF_NORM = hf.DeepseekV4RMSNorm
HF_ROPE = hf.apply_rotary_pos_emb


@dataclass
class PatchState:
    """What the patched modules do; set by ``apply_ortrex_kernels`` (one per process)."""

    backend: str = "eager"
    swiglu: bool = True
    moe_permute: bool = True
    rope_inplace: bool = True


STATE = PatchState()


def _check_silu(config: object) -> None:
    act = getattr(config, "hidden_act", "silu")
    if act != "silu":
        raise ValueError(f"ortrex limited SwiGLU needs hidden_act='silu', the model has {act!r}")


class OrtrexDeepseekV4MLP(HF_MLP):
    """Dense MLP / shared expert: ``down(limited_swiglu(gate(x), up(x)))``."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not STATE.swiglu:
            return super().forward(x)
        _check_silu(self.config)
        act = limited_swiglu(self.gate_proj(x), self.up_proj(x), limit=self.limit,
                             backend=STATE.backend)
        return self.down_proj(act)


def _loop_linear(x: torch.Tensor, weight: torch.Tensor, counts: list[int]) -> torch.Tensor:
    """Per-expert matmuls over contiguous row groups (when transformers has no grouped path)."""
    parts = [torch.nn.functional.linear(chunk, weight[e])
             for e, chunk in enumerate(x.split(counts)) if counts[e]]
    return torch.cat(parts) if parts else x.new_zeros((0, weight.shape[1]))


def grouped_experts_forward(self: HF_EXPERTS, hidden_states: torch.Tensor,
                            top_k_index: torch.Tensor, top_k_weights: torch.Tensor,
                            ) -> torch.Tensor:
    """Routed experts over permuted tokens; the probability is fused into the activation."""
    permuted, probs, perm = moe_permute(hidden_states, top_k_index, num_experts=self.num_experts,
                                        probs=top_k_weights, backend=STATE.backend)
    if _grouped_linear is not None:
        offsets = torch.cumsum(perm.tokens_per_expert, 0, dtype=torch.int32)
        gate_up = _grouped_linear(permuted, self.gate_up_proj, offsets,
                                  is_transposed=self.is_transposed)
    else:
        counts = perm.tokens_per_expert.tolist()
        gate_up = _loop_linear(permuted.to(self.gate_up_proj.dtype), self.gate_up_proj, counts)
    if STATE.swiglu:
        _check_silu(self.config)
        act = limited_swiglu(gate_up, limit=self.limit, prob=probs, backend=STATE.backend)
    else:
        act = HF_EXPERTS._apply_gate(self, gate_up) * probs.unsqueeze(-1).to(gate_up.dtype)
    if _grouped_linear is not None:
        out = _grouped_linear(act, self.down_proj, offsets, is_transposed=self.is_transposed)
    else:
        out = _loop_linear(act.to(self.down_proj.dtype), self.down_proj, counts)
    return moe_unpermute(out, perm, backend=STATE.backend).to(hidden_states.dtype)


class OrtrexDeepseekV4Experts(HF_EXPERTS):
    """Routed experts: the gate hook runs the limited SwiGLU; grouped path over permuted tokens."""

    def _apply_gate(self, gate_up: torch.Tensor) -> torch.Tensor:
        if not STATE.swiglu:
            return HF_EXPERTS._apply_gate(self, gate_up)
        _check_silu(self.config)
        return limited_swiglu(gate_up, limit=self.limit, backend=STATE.backend)

    def forward(self, hidden_states: torch.Tensor, top_k_index: torch.Tensor,
                top_k_weights: torch.Tensor) -> torch.Tensor:
        # The grouped permute path replaces transformers' eager loop and grouped_mm; other
        # backends (batched_mm, deepgemm, sonicmoe) and expert parallelism keep their own
        # forward and still get the gate hook above.
        impl = getattr(self.config, "_experts_implementation", None)
        if (STATE.moe_permute and impl in (None, "eager", "grouped_mm")
                and not getattr(self, "_is_expert_parallel", False)):
            return grouped_experts_forward(self, hidden_states, top_k_index, top_k_weights)
        return super().forward(hidden_states, top_k_index, top_k_weights)


class OrtrexDeepseekV4UnweightedRMSNorm(HF_UNWEIGHTED_NORM):
    """Weightless RMSNorm with the HF rounding chain."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        eps = getattr(self, "eps", None) or self.variance_epsilon  # 5.24's name, 5.25's
        return rms_norm(x, None, eps=eps, backend=STATE.backend)


class OrtrexDeepseekV4RMSNorm(HF_NORM):
    """Weighted RMSNorm, fp32 weight, V4's fp32 chain (used instead of Liger's on request)."""

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return rms_norm(x, self.weight, eps=self.variance_epsilon, backend=STATE.backend)


def apply_rotary_pos_emb(x: torch.Tensor, cos: torch.Tensor, sin: torch.Tensor,
                         unsqueeze_dim: int = 1) -> torch.Tensor:
    """Drop-in for ``modeling_deepseek_v4.apply_rotary_pos_emb`` (same signature)."""
    return rope(x, cos, sin, unsqueeze_dim=unsqueeze_dim, inplace=STATE.rope_inplace,
                backend=STATE.backend)


# Which HF class each of ours replaces (module attribute name, HF class, ours).
SWAPS = {
    "swiglu": ("DeepseekV4MLP", HF_MLP, OrtrexDeepseekV4MLP),
    "experts": ("DeepseekV4Experts", HF_EXPERTS, OrtrexDeepseekV4Experts),
    "rms_norm": ("DeepseekV4UnweightedRMSNorm", HF_UNWEIGHTED_NORM,
                 OrtrexDeepseekV4UnweightedRMSNorm),
    "weighted_rms_norm": ("DeepseekV4RMSNorm", HF_NORM, OrtrexDeepseekV4RMSNorm),
}
