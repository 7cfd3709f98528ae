"""Fused DeepSeek-V4 kernels against the eager Hugging Face modules, at V4-Flash shapes (GPU).

Liger-Kernel's benchmark shape: for each op, the ``huggingface`` provider (the eager module or
function of ``modeling_deepseek_v4``) and the ``ortrex`` provider (the Triton kernels) are timed
in the modes ``forward``, ``backward`` (RoPE) and ``full`` (forward + backward) over 4,096 /
8,192 / 16,384 tokens: time p50 / p20 / p80 (``triton.testing.do_bench``), peak memory, and the
achieved bandwidth -- the bytes the fused kernels must read and write, over the time -- as a
share of the device's peak. Then a small V4 model's training step (forward, backward, AdamW)
for HF eager, Liger's V4 patch alone, and ortrex + Liger: tokens/s and peak memory. Every
figure is a CSV row (kernel, provider, mode, metric, unit, x, p50, p20, p80, config, device,
time, version) appended to ``--csv``; a table of ratios closes the run.

Shapes (V4-Flash): hidden 4096, expert intermediate 2048, 256 experts top-6, 64 heads x
head_dim 512 with rope 64, mHC 4 x 4096 = 16,384. Goals on an H200: limited SwiGLU fwd+bwd
>= 3x eager, weightless RMSNorm >= 3x, RoPE bwd >= 2x, permute + unpermute >= 2x, each >= 70%
of HBM bandwidth; the model step faster than Liger's V4 patch alone.

Without a CUDA GPU it prints that it needs one and exits 0. ``--smoke`` runs every code path at
toy shapes on the CPU through Triton's interpreter (timings meaningless; it checks the script).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from types import SimpleNamespace

if "--smoke" in sys.argv:  # before triton.jit sees any kernel
    os.environ["TRITON_INTERPRET"] = "1"

import torch
import torch.nn.functional as F
from rich.console import Console
from rich.table import Table

console = Console()

# Peak HBM bandwidth (TB/s) by device name, for when the driver does not report the clock.
PEAK_TBS = {"H200": 4.8, "H100 SXM": 3.35, "H100 PCIe": 2.0, "H100": 3.35, "A100-SXM4-80GB": 2.039,
            "A100 80GB PCIe": 1.935, "A100": 1.555, "L40S": 0.864, "B200": 8.0, "GH200": 4.0}

GOALS = {("swiglu_limit", "full"): 3.0, ("rms_norm_q_b", "full"): 3.0,
         ("rms_norm_mhc", "full"): 3.0, ("rope", "backward"): 2.0,
         ("moe_permute_unpermute", "full"): 2.0}
BANDWIDTH_GOAL = 0.70


@dataclass
class Case:
    """One op at one size: a callable per provider per mode, and the bytes the kernels move."""

    kernel: str
    x: int
    config: dict
    providers: dict[str, dict[str, Callable[[], object]]]
    bytes: dict[str, float]
    grads: list[torch.Tensor] = field(default_factory=list)


# ---------------------------------------------------------------------------------------------
# Timing and memory
# ---------------------------------------------------------------------------------------------


def bench(fn: Callable[[], object], grads: list[torch.Tensor], device: torch.device,
          ) -> tuple[float, float, float]:
    """(p50, p20, p80) in ms."""
    if device.type == "cuda":
        import triton.testing

        q = triton.testing.do_bench(fn, quantiles=[0.5, 0.2, 0.8], grad_to_none=grads,
                                    warmup=25, rep=100)
        return float(q[0]), float(q[1]), float(q[2])
    times = []
    for _ in range(3):
        for g in grads:
            g.grad = None
        t = time.perf_counter()
        fn()
        times.append(1e3 * (time.perf_counter() - t))
    times.sort()
    return statistics.median(times), times[0], times[-1]


def peak_memory_mb(fn: Callable[[], object], grads: list[torch.Tensor],
                   device: torch.device) -> float:
    """Peak memory above what was allocated before one call, in MB."""
    for g in grads:
        g.grad = None
    if device.type != "cuda":
        fn()
        return float("nan")
    torch.cuda.synchronize()
    torch.cuda.empty_cache()
    base = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    fn()
    torch.cuda.synchronize()
    return (torch.cuda.max_memory_allocated() - base) / 2**20


def peak_bandwidth_tbs(device: torch.device, override: float | None) -> float:
    """The device's peak memory bandwidth in TB/s (override, driver clock, or known table)."""
    if override:
        return override
    if device.type != "cuda":
        return float("nan")
    props = torch.cuda.get_device_properties(device)
    clock_khz = getattr(props, "memory_clock_rate", 0)
    bus_bits = getattr(props, "memory_bus_width", 0)
    if clock_khz and bus_bits:
        return 2 * clock_khz * 1e3 * bus_bits / 8 / 1e12
    for name, tbs in PEAK_TBS.items():
        if name in props.name:
            return tbs
    raise SystemExit(f"unknown peak bandwidth for {props.name}: pass --peak-tbs")


# ---------------------------------------------------------------------------------------------
# Cases (HF eager vs ortrex Triton)
# ---------------------------------------------------------------------------------------------


def _modes(fwd: Callable[[], torch.Tensor], dy: torch.Tensor) -> dict[str, Callable[[], object]]:
    def full() -> None:
        fwd().backward(dy)

    return {"forward": fwd, "full": full}


def swiglu_case(tokens: int, dims: dict, device: torch.device, dtype: torch.dtype) -> Case:
    """Routed experts' activation over the permuted pairs, with the routing probability."""
    from ortrex.kernels.deepseek_v4 import HF_EXPERTS
    from ortrex.kernels.swiglu_limit import limited_swiglu

    rows, inter = tokens * dims["topk"], dims["expert_inter"]
    x = (torch.randn(rows, 2 * inter, device=device) * 4).to(dtype).requires_grad_()
    p = torch.rand(rows, device=device).to(dtype).requires_grad_()
    dy = torch.randn(rows, inter, device=device).to(dtype)
    hf = SimpleNamespace(limit=10.0, act_fn=F.silu)  # what _apply_gate reads from its module
    providers = {
        "huggingface": _modes(lambda: HF_EXPERTS._apply_gate(hf, x) * p.unsqueeze(-1), dy),
        "ortrex": _modes(lambda: limited_swiglu(x, limit=10.0, prob=p, backend="triton"), dy),
    }
    e = x.element_size()
    fwd = rows * (3 * inter + 1) * e
    return Case("swiglu_limit", tokens, {"rows": rows, "intermediate": inter, "dtype": str(dtype)},
                providers, {"forward": fwd, "full": fwd + rows * (5 * inter + 2) * e}, [x, p])


def rms_norm_case(kernel: str, rows: int, cols: int, x_value: int, device: torch.device,
                  dtype: torch.dtype) -> Case:
    """V4's weightless RMSNorm (q_b_norm over head_dim, or the mHC input norm in fp32)."""
    from transformers.models.deepseek_v4.modeling_deepseek_v4 import DeepseekV4UnweightedRMSNorm

    from ortrex.kernels.rms_norm import rms_norm

    x = torch.randn(rows, cols, device=device).to(dtype).requires_grad_()
    dy = torch.randn(rows, cols, device=device).to(dtype)
    hf = DeepseekV4UnweightedRMSNorm(1e-6)
    providers = {"huggingface": _modes(lambda: hf(x), dy),
                 "ortrex": _modes(lambda: rms_norm(x, None, backend="triton"), dy)}
    n = rows * cols * x.element_size()
    return Case(kernel, x_value, {"rows": rows, "cols": cols, "dtype": str(dtype)}, providers,
                {"forward": 2 * n, "full": 5 * n}, [x])


def rope_case(tokens: int, dims: dict, device: torch.device, dtype: torch.dtype) -> Case:
    """Queries [1, H, S, D] (a transposed view, as V4 makes them); interleaved rope, last 64."""
    from ortrex.kernels.deepseek_v4 import HF_ROPE
    from ortrex.kernels.rope import rope

    h, d, rd = dims["heads"], dims["head_dim"], dims["rope_dim"]
    base = torch.randn(1, tokens, h * d, device=device).to(dtype).requires_grad_()
    ang = torch.rand(1, tokens, rd // 2, device=device) * 6
    cos, sin = ang.cos().to(dtype), ang.sin().to(dtype)
    dy = torch.randn(1, h, tokens, d, device=device).to(dtype)

    def q() -> torch.Tensor:
        return base.view(1, tokens, h, d).transpose(1, 2)

    def ours() -> torch.Tensor:
        return rope(q(), cos, sin, inplace=True, backend="triton")

    def fwd_nograd(f: Callable[[], torch.Tensor]) -> Callable[[], torch.Tensor]:
        # forward as in the model, where q is a fresh activation: no autograd leaf to protect,
        # so ortrex rotates the rope slice in place
        def run() -> torch.Tensor:
            with torch.no_grad():
                return f()
        return run

    graphs: dict[str, torch.Tensor] = {}

    def bwd(name: str, f: Callable[[], torch.Tensor]) -> Callable[[], None]:
        def run() -> None:
            if name not in graphs:
                graphs[name] = f()
            graphs[name].backward(dy, retain_graph=True)
        return run

    def hf() -> torch.Tensor:
        return HF_ROPE(q(), cos, sin)

    providers = {
        "huggingface": {"forward": fwd_nograd(hf), "backward": bwd("hf", hf),
                        "full": lambda: hf().backward(dy)},
        "ortrex": {"forward": fwd_nograd(ours), "backward": bwd("ortrex", ours),
                   "full": lambda: ours().backward(dy)},
    }
    e = base.element_size()
    rows = h * tokens
    return Case("rope", tokens, {"heads": h, "head_dim": d, "rope_dim": rd, "dtype": str(dtype)},
                providers, {"forward": rows * 2 * rd * e, "backward": rows * 2 * d * e,
                            "full": rows * 4 * d * e}, [base])


def permute_case(tokens: int, dims: dict, device: torch.device, dtype: torch.dtype) -> Case:
    """Permute T tokens to 256 experts (top-6) and unpermute with the routing probabilities."""
    from ortrex.kernels.moe_permute import moe_permute, moe_unpermute

    e, k, hidden = dims["experts"], dims["topk"], dims["hidden"]
    x = torch.randn(tokens, hidden, device=device).to(dtype).requires_grad_()
    idx = torch.rand(tokens, e, device=device).topk(k, dim=-1).indices
    probs = torch.rand(tokens, k, device=device).to(dtype).requires_grad_()
    dy = torch.randn(tokens, hidden, device=device).to(dtype)

    def hf() -> torch.Tensor:
        # transformers' grouped_mm experts path, with the expert matmuls left out
        _, perm = torch.sort(idx.reshape(-1))
        sel = x[perm // k] * probs.reshape(-1)[perm].unsqueeze(-1)
        inv = torch.empty_like(perm)
        inv[perm] = torch.arange(perm.numel(), device=perm.device)
        return sel[inv].view(tokens, k, hidden).sum(dim=1)

    def ours() -> torch.Tensor:
        permuted, _, plan = moe_permute(x, idx, num_experts=e, backend="triton")
        return moe_unpermute(permuted, plan, probs, backend="triton")

    n = tokens * hidden * x.element_size()
    return Case("moe_permute_unpermute", tokens, {"experts": e, "topk": k, "hidden": hidden,
                                                  "dtype": str(dtype)},
                {"huggingface": _modes(hf, dy), "ortrex": _modes(ours, dy)},
                {"forward": (3 * k + 1) * n, "full": 2 * (3 * k + 1) * n}, [x, probs])


def check(case: Case) -> str:
    """The providers agree on the forward output (max |diff| relative to the output's scale)."""
    with torch.no_grad():
        a = case.providers["huggingface"]["forward"]()
        b = case.providers["ortrex"]["forward"]()
    a, b = a.float(), b.float()
    scale = a.abs().max().item() or 1.0
    rel = (a - b).abs().max().item() / scale
    if rel > 2e-2:
        raise SystemExit(f"{case.kernel} at {case.x}: ortrex differs from HF by {rel:.3g} "
                         "(relative): not benchmarking a wrong kernel")
    return f"{rel:.1e}"


# ---------------------------------------------------------------------------------------------
# Whole model step
# ---------------------------------------------------------------------------------------------


def small_v4(smoke: bool) -> dict:
    """A small DeepSeek-V4: Flash's per-head shapes and routing, few layers, small vocabulary."""
    if smoke:
        return dict(vocab_size=256, hidden_size=64, moe_intermediate_size=48,
                    num_hidden_layers=2, num_attention_heads=4, head_dim=64, q_lora_rank=32,
                    n_routed_experts=8, num_experts_per_tok=2, o_groups=2, o_lora_rank=16,
                    index_n_heads=2, index_head_dim=32, index_topk=4, sliding_window=8,
                    compress_rates={"compressed_sparse_attention": 4,
                                    "heavily_compressed_attention": 8},
                    layer_types=["sliding_attention", "compressed_sparse_attention"],
                    mlp_layer_types=["hash_moe", "moe"], use_cache=False)
    return dict(vocab_size=32768, hidden_size=1024, moe_intermediate_size=512,
                num_hidden_layers=4, num_attention_heads=16, head_dim=512, q_lora_rank=512,
                n_routed_experts=64, num_experts_per_tok=6, o_groups=4, o_lora_rank=256,
                index_n_heads=16, index_head_dim=128, index_topk=256, sliding_window=128,
                layer_types=["sliding_attention", "compressed_sparse_attention",
                             "heavily_compressed_attention", "compressed_sparse_attention"],
                mlp_layer_types=["hash_moe", "moe", "moe", "moe"], use_cache=False)


def model_steps(args: argparse.Namespace, device: torch.device, dtype: torch.dtype,
                ) -> list[tuple[str, float, float, float, float, dict]]:
    """(provider, tokens/s p50, p20, p80, peak MB, config) for HF, Liger alone, ortrex + Liger."""
    from transformers import DeepseekV4Config, DeepseekV4ForCausalLM

    from ortrex.kernels import apply_ortrex_kernels, remove_ortrex_kernels

    cfg_kw = small_v4(args.smoke)
    seq = 32 if args.smoke else args.model_seq
    steps = 2 if args.smoke else args.model_steps
    ids = torch.randint(0, cfg_kw["vocab_size"], (args.model_batch, seq), device=device)
    backend = "triton"
    rows = []
    for provider in ("huggingface", "liger", "ortrex"):
        torch.manual_seed(0)
        # _from_config keeps V4's fp32 modules (norms, mHC, sinks) in fp32, as checkpoints load
        model = DeepseekV4ForCausalLM._from_config(DeepseekV4Config(**cfg_kw), dtype=dtype)
        model = model.to(device)
        if provider == "liger":  # Liger's V4 patch alone, through ortrex so it can be undone
            apply_ortrex_kernels(model, swiglu=False, rms_norm=False, rope=False,
                                 moe_permute=False, liger=not args.smoke, backend=backend)
        elif provider == "ortrex":
            apply_ortrex_kernels(model, liger=not args.smoke, backend=backend)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)

        def step(model: torch.nn.Module = model, opt: torch.optim.Optimizer = opt) -> None:
            opt.zero_grad(set_to_none=True)
            model(input_ids=ids, labels=ids).loss.backward()
            opt.step()

        step()  # warm-up: autotuning, allocator
        times = []
        if device.type == "cuda":
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats()
        for _ in range(steps):
            t = time.perf_counter()
            step()
            if device.type == "cuda":
                torch.cuda.synchronize()
            times.append(time.perf_counter() - t)
        peak = torch.cuda.max_memory_allocated() / 2**20 if device.type == "cuda" else float("nan")
        toks = [ids.numel() / t for t in sorted(times)]
        q = statistics.quantiles(toks, n=10, method="inclusive") if len(toks) >= 2 else toks * 9
        rows.append((provider, statistics.median(toks), q[1], q[7], peak,
                     {**{k: v for k, v in cfg_kw.items() if not isinstance(v, (list, dict))},
                      "seq": seq, "batch": args.model_batch, "dtype": str(dtype)}))
        remove_ortrex_kernels(model)
        del model, opt, step
        if device.type == "cuda":
            torch.cuda.empty_cache()
    return rows


# ---------------------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------------------


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", default="4096,8192,16384", help="token counts to sweep")
    ap.add_argument("--ops", default="swiglu_limit,rms_norm_q_b,rms_norm_mhc,rope,"
                                     "moe_permute_unpermute,model")
    ap.add_argument("--csv", type=Path, default=Path("bench_kernels.csv"),
                    help="CSV file the rows are appended to")
    ap.add_argument("--peak-tbs", type=float, default=None,
                    help="peak memory bandwidth in TB/s (default: from the device)")
    ap.add_argument("--model-seq", type=int, default=4096)
    ap.add_argument("--model-batch", type=int, default=1)
    ap.add_argument("--model-steps", type=int, default=10)
    ap.add_argument("--smoke", action="store_true",
                    help="toy shapes on the CPU through Triton's interpreter (checks the script)")
    args = ap.parse_args()

    if args.smoke:
        device, dtype = torch.device("cpu"), torch.float32
        dims = dict(hidden=64, expert_inter=48, experts=8, topk=2, heads=4, head_dim=64,
                    rope_dim=8, hc=4)
        token_list = [16, 32]
    elif not torch.cuda.is_available():
        print("bench_kernels needs a CUDA GPU (torch.cuda.is_available() is False here); "
              "nothing measured. Run it on a GPU machine, or --smoke to check the script.")
        return 0
    else:
        device, dtype = torch.device("cuda"), torch.bfloat16
        dims = dict(hidden=4096, expert_inter=2048, experts=256, topk=6, heads=64, head_dim=512,
                    rope_dim=64, hc=4)
        token_list = [int(t) for t in args.tokens.split(",")]
    ops = args.ops.split(",")
    peak = peak_bandwidth_tbs(device, args.peak_tbs)
    device_name = torch.cuda.get_device_name(device) if device.type == "cuda" else "cpu (smoke)"
    from importlib.metadata import version

    ver = version("ortrex")
    stamp = datetime.now(UTC).isoformat(timespec="seconds")
    console.print(f"{device_name}: peak {peak:.2f} TB/s; tokens {token_list}; {dtype}")

    out_rows: list[list[object]] = []
    results: dict[tuple[str, str, str, int], tuple[float, float, float, float, float]] = {}

    def emit(kernel, provider, mode, metric, unit, x_name, x, p50, p20, p80, config) -> None:
        out_rows.append([kernel, provider, mode, metric, unit, x_name, x, f"{p50:.6g}",
                         f"{p20:.6g}", f"{p80:.6g}", json.dumps(config), device_name, stamp,
                         ver])

    for t in token_list:
        cases = []
        if "swiglu_limit" in ops:
            cases.append(swiglu_case(t, dims, device, dtype))
        if "rms_norm_q_b" in ops:
            cases.append(rms_norm_case("rms_norm_q_b", t * dims["heads"], dims["head_dim"], t,
                                       device, dtype))
        if "rms_norm_mhc" in ops:
            cases.append(rms_norm_case("rms_norm_mhc", t, dims["hc"] * dims["hidden"], t, device,
                                       torch.float32))
        if "rope" in ops:
            cases.append(rope_case(t, dims, device, dtype))
        if "moe_permute_unpermute" in ops:
            cases.append(permute_case(t, dims, device, dtype))
        for case in cases:
            agree = check(case)
            for provider, modes in case.providers.items():
                for mode, fn in modes.items():
                    p50, p20, p80 = bench(fn, case.grads, device)
                    mem = peak_memory_mb(fn, case.grads, device)
                    gbs = case.bytes[mode] / (p50 * 1e-3) / 1e9
                    share = gbs / (peak * 1e3) if peak == peak else float("nan")
                    results[(case.kernel, provider, mode, t)] = (p50, p20, p80, mem, share)
                    cfg = {**case.config, "agree": agree}
                    emit(case.kernel, provider, mode, "speed", "ms", "T", t, p50, p20, p80, cfg)
                    emit(case.kernel, provider, mode, "memory", "MB", "T", t, mem, mem, mem, cfg)
                    emit(case.kernel, provider, mode, "bandwidth", "share of peak", "T", t,
                         share, share, share, cfg)
            del case
        if device.type == "cuda":
            torch.cuda.empty_cache()

    model_rows = model_steps(args, device, dtype) if "model" in ops else []
    for provider, p50, p20, p80, mem, cfg in model_rows:
        emit("v4_model_step", provider, "full", "throughput", "tokens/s", "seq", cfg["seq"],
             p50, p20, p80, cfg)
        emit("v4_model_step", provider, "full", "memory", "MB", "seq", cfg["seq"], mem, mem, mem,
             cfg)

    new = not args.csv.exists()
    with args.csv.open("a", newline="") as fh:
        w = csv.writer(fh)
        if new:
            w.writerow(["kernel", "provider", "mode", "metric", "unit", "x_name", "x", "p50",
                        "p20", "p80", "config", "device", "timestamp", "version"])
        w.writerows(out_rows)

    table = Table(title=f"ortrex vs eager HF on {device_name} (p50; bandwidth = kernel bytes / "
                        f"time / {peak:.2f} TB/s)",
                  caption="goals: limited SwiGLU full, RMSNorm full >= 3x; RoPE backward, "
                          "permute + unpermute full >= 2x; each >= 70% of peak bandwidth")
    for col in ("op", "mode", "T", "HF ms", "ortrex ms", "speed-up", "goal", "HF MB",
                "ortrex MB", "ortrex bw", "HF bw"):
        table.add_column(col, justify="left" if col in ("op", "mode") else "right")
    for (kernel, provider, mode, t), (p50, _, _, mem, share) in results.items():
        if provider != "ortrex":
            continue
        hf = results[(kernel, "huggingface", mode, t)]
        goal = GOALS.get((kernel, mode))
        speed = hf[0] / p50
        ok = "" if goal is None else ("met" if speed >= goal and share >= BANDWIDTH_GOAL
                                      else "missed")
        table.add_row(kernel, mode, str(t), f"{hf[0]:.3f}", f"{p50:.3f}", f"{speed:.2f}x", ok,
                      f"{hf[3]:.0f}", f"{mem:.0f}", f"{100 * share:.0f}%", f"{100 * hf[4]:.0f}%")
    console.print(table)
    if model_rows:
        mt = Table(title="small V4 training step (forward, backward, AdamW)")
        for col in ("provider", "tokens/s p50", "p20", "p80", "peak MB", "vs HF", "vs Liger"):
            mt.add_column(col, justify="left" if col == "provider" else "right")
        by = {r[0]: r for r in model_rows}
        for provider, p50, p20, p80, mem, _ in model_rows:
            mt.add_row(provider, f"{p50:,.0f}", f"{p20:,.0f}", f"{p80:,.0f}", f"{mem:,.0f}",
                       f"{p50 / by['huggingface'][1]:.2f}x", f"{p50 / by['liger'][1]:.2f}x")
        console.print(mt)
    console.print(f"{len(out_rows)} rows appended to {args.csv}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
