"""Model FLOPs per token and the hardware peak they are measured against (MFU).

FLOPs per token = 6 x the parameters a token passes through in matrix products (routed
experts counted at top-k of n, embeddings not at all, the output layer in full) plus the
attention scores and values: 12 x heads x head_dim x the keys a query sees (causal: half the
sequence; DeepSeek-V4's sliding layers at most their window, compressed layers the window plus
the compressed entries they attend to). An estimate, as Megatron's own is.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import torch

# Dense bf16 tensor-core peaks (TFLOP/s), by device name.
GPU_PEAKS = {"H200": 989.0, "H100": 989.0, "H800": 989.0, "H20": 148.0, "A100": 312.0,
             "A800": 312.0, "L40S": 362.0, "L4": 121.0, "A10": 125.0, "4090": 165.0,
             "B200": 2250.0, "GB200": 2500.0}


def _attended(cfg: Any, layer_type: str | None, seq: int) -> float:
    half = seq / 2
    window = getattr(cfg, "sliding_window", None) or seq
    if layer_type == "sliding_attention":
        return min(window, half)
    if layer_type in ("compressed_sparse_attention", "heavily_compressed_attention"):
        rates = getattr(cfg, "compress_rates", None) or {}
        rate = rates.get(layer_type, 4 if layer_type.startswith("compressed") else 128)
        compressed = half / rate
        if layer_type == "compressed_sparse_attention":
            compressed = min(compressed, getattr(cfg, "index_topk", compressed))
        return min(window, half) + compressed
    return half


def flops_per_token(model: torch.nn.Module, seq: int) -> float:
    """Training FLOPs (forward and backward) per token at sequence length ``seq``."""
    cfg = model.config
    top_k = getattr(cfg, "num_experts_per_tok", None)
    matmul = 0.0
    embeddings = {id(m.weight) for m in model.modules() if isinstance(m, torch.nn.Embedding)}
    tied = getattr(cfg, "tie_word_embeddings", False)
    for mod in model.modules():
        n_exp = getattr(mod, "num_experts", None)
        for p in mod.parameters(recurse=False):
            if p.ndim < 2:
                continue
            if id(p) in embeddings:
                matmul += p.numel() if tied else 0  # a tied embedding is also the output
                continue
            share = top_k / n_exp if (n_exp and top_k and p.ndim == 3) else 1.0
            matmul += p.numel() * share
    heads = getattr(cfg, "num_attention_heads", 0) or 0
    head_dim = getattr(cfg, "head_dim", None) or (
        getattr(cfg, "hidden_size", 0) // max(heads, 1))
    layers = getattr(cfg, "num_hidden_layers", 0) or 0
    types = getattr(cfg, "layer_types", None) or [None] * layers
    attention = sum(12 * heads * head_dim * _attended(cfg, t, seq) for t in types)
    return 6 * matmul + attention


def _cpu_ghz() -> float | None:
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8")
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith("cpu MHz"):
            return float(line.split(":")[1]) / 1000
    return None


def peak_flops(device: torch.device, given_tflops: float | None = None) -> tuple[float, str]:
    """(FLOP/s, how it was obtained): the value given, a GPU's datasheet bf16 peak, or on CPU
    threads x clock x 32 fp32 FLOP per cycle (two 256-bit FMA pipes; a figure that does not
    move with the machine's load, as a measured one would)."""
    if given_tflops:
        return given_tflops * 1e12, "given"
    if device.type == "cuda":
        name = torch.cuda.get_device_name(device)
        for key, tf in GPU_PEAKS.items():
            if key in name:
                return tf * 1e12, f"{name} datasheet (bf16 dense)"
        return 0.0, f"{name}: unknown peak (give --peak-tflops)"
    ghz = _cpu_ghz()
    if not ghz:
        return 0.0, "CPU clock unknown (give --peak-tflops)"
    threads = torch.get_num_threads()
    return threads * ghz * 1e9 * 32, f"CPU {threads} threads x {ghz:.2f} GHz x 32 FLOP/cycle"
