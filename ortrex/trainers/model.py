"""The model: any Hugging Face causal-LM configuration (a preset, a ``config.json``, a
Hugging Face directory with or without weights, or an ortrex checkpoint), built
deterministically, with the fused kernels asked for."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import torch

from ortrex.trainers.errors import TrainError

VOCAB = 129280  # the DeepSeek-V4 tokenizer: exported ids fit

# Small DeepSeek-V4 shapes (the real architecture: MLA-style attention with sliding, CSA and
# HCA layers, hash-routed then learned-routed MoE with a shared expert, mHC), sized for CPU.
PRESETS: dict[str, dict[str, Any]] = {
    "v4-tiny": dict(
        hidden_size=64, moe_intermediate_size=64, num_hidden_layers=2, num_attention_heads=4,
        head_dim=32, q_lora_rank=32, n_routed_experts=8, num_experts_per_tok=2, o_groups=2,
        o_lora_rank=32, index_n_heads=2, index_head_dim=16, index_topk=8, sliding_window=16,
        hc_mult=2, layer_types=["sliding_attention", "compressed_sparse_attention"],
        mlp_layer_types=["hash_moe", "moe"]),
    "v4-small": dict(
        hidden_size=256, moe_intermediate_size=256, num_hidden_layers=4, num_attention_heads=4,
        head_dim=64, q_lora_rank=128, n_routed_experts=8, num_experts_per_tok=2, o_groups=2,
        o_lora_rank=128, index_n_heads=4, index_head_dim=32, index_topk=64,
        sliding_window=128, hc_mult=4,
        layer_types=["sliding_attention", "compressed_sparse_attention",
                     "heavily_compressed_attention", "compressed_sparse_attention"],
        mlp_layer_types=["hash_moe", "moe", "moe", "moe"]),
}
CHECKPOINT_MARK = "ortrex-checkpoint.json"
KERNEL_OPS = ("swiglu", "rms_norm", "rope", "moe_permute", "liger")


@dataclass
class ModelSource:
    """Where a model comes from: a configuration, and weights when there are any."""

    spec: str
    config: Any  # transformers PretrainedConfig
    weights: str | None = None  # "hf:DIR" or "ckpt:DIR"


def _transformers() -> Any:
    try:
        import transformers
    except ImportError:
        raise TrainError("training needs transformers: pip install -e '.[train]'") from None
    return transformers


def _config_from_json(path: Path) -> Any:
    tf = _transformers()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrainError(f"{path}: not a readable JSON model configuration ({exc})") from None
    if not isinstance(data, dict) or "model_type" not in data:
        raise TrainError(f"{path}: a model configuration needs a 'model_type' field")
    kind = data.pop("model_type")
    try:
        return tf.AutoConfig.for_model(kind, **data)
    except (ValueError, TypeError, KeyError) as exc:
        raise TrainError(f"{path}: not a transformers configuration ({exc})") from None


def resolve(spec: str) -> ModelSource:
    """The model ``spec`` names (checked; nothing is built yet)."""
    if spec in PRESETS:
        cfg = _transformers().DeepseekV4Config(vocab_size=VOCAB, **PRESETS[spec])
        return ModelSource(spec, cfg)
    path = Path(spec).expanduser()
    if path.is_file():
        return ModelSource(spec, _config_from_json(path))
    if path.is_dir():
        if (path / CHECKPOINT_MARK).is_file():
            return ModelSource(spec, _config_from_json(path / "config.json"),
                               f"ckpt:{path}")
        if (path / "config.json").is_file():
            weights = any(path.glob("*.safetensors")) or any(path.glob("pytorch_model*.bin"))
            return ModelSource(spec, _config_from_json(path / "config.json"),
                               f"hf:{path}" if weights else None)
        raise TrainError(f"{path}: neither a checkpoint ({CHECKPOINT_MARK}) nor a Hugging Face "
                         "model directory (config.json)")
    raise TrainError(f"--model {spec}: not a preset ({', '.join(PRESETS)}), a config.json or "
                     "a model directory")


def vocab_size(src: ModelSource) -> int:
    """The model's embedding size."""
    cfg = src.config.get_text_config() if hasattr(src.config, "get_text_config") else src.config
    return int(cfg.vocab_size)


def _hash_tables(model: torch.nn.Module, seed: int) -> None:
    """DeepSeek-V4's hash-routed layers route by a fixed token -> experts table that real
    checkpoints ship; a fresh model gets a seeded random one (distinct experts per token),
    not transformers' all-zero placeholder that sends every token to expert 0."""
    for name, mod in model.named_modules():
        table = getattr(mod, "tid2eid", None)
        if not isinstance(table, torch.Tensor):
            continue
        n_exp, k = int(mod.num_experts), table.shape[1]
        g = torch.Generator().manual_seed(seed * 1_000_003 + sum(map(ord, name)))
        with torch.no_grad():
            for start in range(0, table.shape[0], 16384):
                rows = min(16384, table.shape[0] - start)
                pick = torch.rand(rows, n_exp, generator=g).argsort(dim=1)[:, :k]
                table[start:start + rows] = pick.to(table.dtype)


def build(src: ModelSource, seed: int) -> torch.nn.Module:
    """The model in fp32 on CPU: initialised from ``seed`` (the same on every rank), or with
    the weights of a Hugging Face directory (an ortrex checkpoint is loaded by the caller)."""
    tf = _transformers()
    torch.manual_seed(seed)
    if src.weights and src.weights.startswith("hf:"):
        try:
            model = tf.AutoModelForCausalLM.from_pretrained(src.weights[3:],
                                                            dtype=torch.float32)
        except (OSError, ValueError) as exc:
            raise TrainError(f"{src.weights[3:]}: cannot load the weights ({exc})") from None
    else:
        try:
            model = tf.AutoModelForCausalLM.from_config(src.config, dtype=torch.float32)
        except ValueError as exc:
            raise TrainError(f"--model {src.spec}: not a causal language model ({exc})"
                             ) from None
        _hash_tables(model, seed)
    model.config.use_cache = False
    return model


def kernels_available() -> bool:
    """Whether ``ortrex.kernels`` provides ``apply_ortrex_kernels`` in this build."""
    try:
        from ortrex.kernels import apply_ortrex_kernels  # noqa: F401
    except ImportError:
        return False
    return True


def fused_backend() -> str | None:
    """The backend ortrex's kernels would run on here when it is a fused one (triton, npu);
    None where they would run their eager references (then ``auto`` trains eager: the
    references are the definition of correct, not a speed-up)."""
    if not kernels_available():
        return None
    from ortrex.kernels.registry import resolve

    name = resolve(None)[0]
    return None if name == "eager" else name


def apply_kernels(model: torch.nn.Module, kind: str) -> str:
    """Patch ``model`` with the kernels asked for; the kind actually used (``auto``: ortrex
    where its fused backend runs, else eager). ortrex's patch is class-level (as Liger's),
    so an earlier run in this process that patched is undone first for eager and liger."""
    have = kernels_available()
    if kind == "auto":
        kind = "ortrex" if fused_backend() else "eager"
    if kind in ("eager", "liger") and have:
        from ortrex.kernels import remove_ortrex_kernels

        remove_ortrex_kernels(model)
    if kind == "eager":
        return "eager"
    if kind == "ortrex":
        if not have:
            raise TrainError("--kernels ortrex needs ortrex.kernels.apply_ortrex_kernels, "
                             "which this build does not have; use --kernels eager or liger")
        from ortrex.kernels import apply_ortrex_kernels

        apply_ortrex_kernels(model)
        return "ortrex"
    if not torch.cuda.is_available() and os.environ.get("TRITON_INTERPRET") != "1":
        raise TrainError("--kernels liger runs Triton kernels and needs a CUDA GPU "
                         "(or TRITON_INTERPRET=1); use --kernels eager on this machine")
    try:
        from liger_kernel.transformers.monkey_patch import _apply_liger_kernel_to_instance
    except ImportError:
        raise TrainError("--kernels liger needs liger-kernel: pip install -e '.[train]'"
                         ) from None
    _apply_liger_kernel_to_instance(model=model)
    return "liger"


def describe(model: torch.nn.Module) -> dict[str, Any]:
    """Parameter counts for the run's summary."""
    total = sum(p.numel() for p in model.parameters())
    emb = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Embedding))
    return {"parameters": total, "embedding_parameters": emb,
            "model_type": getattr(model.config, "model_type", type(model).__name__)}
