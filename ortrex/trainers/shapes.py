"""Model shapes and parallel sizes for launch generation, checked the way Megatron-LM and
MindSpeed-LLM will check them (before a cluster is booked, with a line saying what to change)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.trainers.errors import TrainError

PARALLEL_KEYS = ("tp", "pp", "ep", "cp", "vpp", "etp")


@dataclass(frozen=True)
class Shape:
    """The sizes of a model that launch flags and checks need."""

    name: str
    layers: int
    hidden: int
    heads: int
    vocab: int
    ffn: int
    experts: int = 0
    topk: int = 0
    moe_ffn: int = 0
    shared_ffn: int = 0
    deepseek_v4: bool = False
    q_lora: int = 0
    kv_lora: int = 0
    o_lora: int = 0
    o_groups: int = 0
    head_dim: int = 0
    rope_dim: int = 0
    v_head_dim: int = 0
    index_heads: int = 0
    index_head_dim: int = 0
    index_topk: int = 0
    hc_mult: int = 0
    compress_ratios: tuple[int, ...] = field(default_factory=tuple)
    hash_layers: int = 0
    swiglu_limit: float = 0.0
    window: int = 0
    rope_theta: float = 10000.0
    compress_rope_theta: float = 0.0
    rope_factor: float = 0.0
    original_seq_len: int = 0
    max_position: int = 4096
    norm_eps: float = 1e-6
    routed_scale: float = 1.0
    score_func: str = "softmax"
    kv_heads: int = 0


# DeepSeek-V4-Flash as the SLAI-T-Rex scripts and MindSpeed-LLM's V4 recipe give it.
V4_FLASH = Shape(
    name="v4-flash", layers=43, hidden=4096, heads=64, vocab=129280, ffn=4096, experts=256,
    topk=6, moe_ffn=2048, shared_ffn=2048, deepseek_v4=True, q_lora=1024, kv_lora=512,
    o_lora=1024, o_groups=8, head_dim=512, rope_dim=64, v_head_dim=128, index_heads=64,
    index_head_dim=128, index_topk=512, hc_mult=4,
    compress_ratios=(0, 0, *([4, 128] * 20), 4), hash_layers=3, swiglu_limit=10.0,
    window=128, rope_theta=10000.0, compress_rope_theta=160000.0, rope_factor=16.0,
    original_seq_len=65536, max_position=163840, norm_eps=1e-6, routed_scale=1.5,
    score_func="sqrtsoftplus", kv_heads=1)
SIZES = {"v4-flash": V4_FLASH}
_RATIO = {"sliding_attention": 0, "compressed_sparse_attention": 4,
          "heavily_compressed_attention": 128}


def _v4_from_config(name: str, c: dict[str, Any]) -> Shape:
    types = c.get("layer_types") or []
    rates = {**{"compressed_sparse_attention": 4, "heavily_compressed_attention": 128},
             **(c.get("compress_rates") or {})}
    ratios = tuple(0 if t == "sliding_attention" else int(rates.get(t, _RATIO.get(t, 0)))
                   for t in types) or tuple(int(r) for r in c.get("compress_ratios") or ())
    mlp = c.get("mlp_layer_types") or []
    hash_layers = sum(1 for t in mlp if t == "hash_moe") if mlp else int(
        c.get("num_hash_layers", 3))
    head_dim = int(c.get("head_dim", 512))
    rope = c.get("rope_parameters") or c.get("rope_scaling") or {}
    comp = rope.get("compress", rope) if isinstance(rope, dict) else {}
    return Shape(
        name=name, layers=int(c["num_hidden_layers"]), hidden=int(c["hidden_size"]),
        heads=int(c["num_attention_heads"]), vocab=int(c["vocab_size"]),
        ffn=int(c.get("intermediate_size", c.get("moe_intermediate_size", 0))),
        experts=int(c.get("n_routed_experts", 0)), topk=int(c.get("num_experts_per_tok", 0)),
        moe_ffn=int(c.get("moe_intermediate_size", 0)),
        shared_ffn=int(c.get("moe_intermediate_size", 0)) * int(c.get("n_shared_experts", 1)),
        deepseek_v4=True, q_lora=int(c.get("q_lora_rank", 0)), kv_lora=int(c.get(
            "kv_lora_rank", 512)), o_lora=int(c.get("o_lora_rank", 0)),
        o_groups=int(c.get("o_groups", 0)), head_dim=head_dim,
        rope_dim=int(c.get("qk_rope_head_dim") or head_dim * float(
            c.get("partial_rotary_factor") or 0.125)),
        v_head_dim=int(c.get("v_head_dim", 128)), index_heads=int(c.get("index_n_heads", 0)),
        index_head_dim=int(c.get("index_head_dim", 0)), index_topk=int(c.get("index_topk", 0)),
        hc_mult=int(c.get("hc_mult", 4)), compress_ratios=ratios, hash_layers=hash_layers,
        swiglu_limit=float(c.get("swiglu_limit", 0.0)), window=int(c.get("sliding_window",
                                                                           128)),
        rope_theta=float(c.get("rope_theta", 10000.0)),
        compress_rope_theta=float(c.get("compress_rope_theta", 160000.0)),
        rope_factor=float(comp.get("factor", 16.0)),
        original_seq_len=int(comp.get("original_max_position_embeddings", 65536)),
        max_position=int(c.get("max_position_embeddings", 163840)),
        norm_eps=float(c.get("rms_norm_eps", 1e-6)),
        routed_scale=float(c.get("routed_scaling_factor", 1.0)),
        score_func=str(c.get("scoring_func", "sqrtsoftplus")), kv_heads=1)


def load_shape(spec: str) -> Shape:
    """A preset (``v4-flash``) or the shape of a Hugging Face ``config.json``."""
    if spec in SIZES:
        return SIZES[spec]
    path = Path(spec)
    if path.is_dir():
        path = path / "config.json"
    try:
        c = json.loads(path.read_text(encoding="utf-8"))
    except OSError:
        raise TrainError(f"--model-size {spec}: not a preset ({', '.join(SIZES)}) nor a "
                         "readable config.json") from None
    except ValueError as exc:
        raise TrainError(f"{path}: not valid JSON ({exc})") from None
    try:
        if c.get("model_type") == "deepseek_v4":
            return _v4_from_config(path.stem, c)
        experts = int(c.get("num_local_experts") or c.get("num_experts") or
                      c.get("n_routed_experts") or 0)
        return Shape(
            name=path.stem, layers=int(c["num_hidden_layers"]), hidden=int(c["hidden_size"]),
            heads=int(c["num_attention_heads"]), vocab=int(c["vocab_size"]),
            ffn=int(c.get("intermediate_size", 4 * int(c["hidden_size"]))), experts=experts,
            topk=int(c.get("num_experts_per_tok", 0)),
            moe_ffn=int(c.get("moe_intermediate_size", 0) or c.get("intermediate_size", 0)),
            max_position=int(c.get("max_position_embeddings", 4096)),
            norm_eps=float(c.get("rms_norm_eps", 1e-6)),
            rope_theta=float(c.get("rope_theta", 10000.0)),
            kv_heads=int(c.get("num_key_value_heads", c["num_attention_heads"])))
    except KeyError as exc:
        raise TrainError(f"{path}: field {exc.args[0]!r} is missing") from None
    except (TypeError, ValueError) as exc:
        raise TrainError(f"{path}: a size is not a number ({exc})") from None


@dataclass(frozen=True)
class Parallel:
    """Parallel sizes and what they imply."""

    tp: int = 1
    pp: int = 1
    ep: int = 1
    cp: int = 1
    vpp: int = 1
    etp: int = 1
    world: int = 1

    @property
    def dp(self) -> int:
        """Data-parallel replicas."""
        return self.world // (self.tp * self.pp * self.cp)


def parse_parallel(text: str, world: int) -> Parallel:
    """``tp=..,pp=..,ep=..,cp=..,vpp=..`` (sizes not given are 1)."""
    sizes: dict[str, int] = {}
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        key, sep, value = part.partition("=")
        key = key.strip().lower()
        if not sep or key not in PARALLEL_KEYS:
            raise TrainError(f"--parallel: {part!r} is not one of "
                             f"{', '.join(k + '=N' for k in PARALLEL_KEYS)}")
        try:
            n = int(value)
        except ValueError:
            raise TrainError(f"--parallel: {key}={value!r} is not a whole number") from None
        if n < 1:
            raise TrainError(f"--parallel: {key}={n} must be at least 1")
        if key in sizes:
            raise TrainError(f"--parallel: {key} given twice")
        sizes[key] = n
    return Parallel(world=world, **sizes)


def check(shape: Shape, par: Parallel, *, engine: str, seq_length: int, micro: int,
          global_batch: int, noop_layers: int) -> None:
    """Every size rule, first failure first, as one line naming the numbers."""
    mp = par.tp * par.pp * par.cp
    if par.world % mp:
        raise TrainError(f"world size {par.world} is not divisible by TP x PP x CP = "
                         f"{par.tp} x {par.pp} x {par.cp} = {mp}")
    layers = shape.layers + noop_layers
    if noop_layers and engine != "mindspeed":
        raise TrainError("--noop-layers is a MindSpeed-LLM feature; Megatron-LM needs the "
                         "layers to divide PP x VPP as they are")
    if par.vpp > 1 and par.pp == 1:
        raise TrainError(f"VPP = {par.vpp} needs pipeline parallelism (PP > 1)")
    if layers % (par.pp * par.vpp):
        hint = ""
        if engine == "mindspeed":
            pad = -layers % (par.pp * par.vpp)
            hint = f"; pad with --noop-layers {noop_layers + pad}, or choose PP x VPP " \
                   f"dividing {layers}"
        raise TrainError(f"{layers} layers{f' ({noop_layers} no-op)' if noop_layers else ''}"
                         f" are not divisible by PP x VPP = {par.pp} x {par.vpp} = "
                         f"{par.pp * par.vpp}{hint}")
    if par.ep > 1 and not shape.experts:
        raise TrainError(f"EP = {par.ep} needs a mixture-of-experts model; {shape.name} has "
                         "no experts")
    if shape.experts and shape.experts % par.ep:
        raise TrainError(f"{shape.experts} experts are not divisible by EP = {par.ep}")
    if (par.dp * par.cp * par.tp) % (par.ep * par.etp):
        raise TrainError(f"EP x ETP = {par.ep} x {par.etp} must divide DP x CP x TP = "
                         f"{par.dp} x {par.cp} x {par.tp} (world {par.world})")
    if shape.heads % par.tp:
        raise TrainError(f"{shape.heads} attention heads are not divisible by TP = {par.tp}")
    if engine == "mindspeed" and par.cp > 1 and shape.heads % (par.tp * par.cp):
        raise TrainError(f"Ulysses context parallelism splits heads: {shape.heads} heads are "
                         f"not divisible by TP x CP = {par.tp * par.cp}")
    if micro < 1 or global_batch < 1:
        raise TrainError("--micro-batch-size and --global-batch-size must be at least 1")
    if global_batch % (par.dp * micro):
        raise TrainError(f"global batch {global_batch} is not divisible by DP x micro-batch "
                         f"= {par.dp} x {micro} = {par.dp * micro} (DP = world {par.world} / "
                         f"(TP x PP x CP))")
    need = par.cp if engine == "mindspeed" else (2 * par.cp if par.cp > 1 else 1)
    if seq_length % need:
        what = "CP" if engine == "mindspeed" else "2 x CP (Megatron's load-balanced causal CP)"
        raise TrainError(f"sequence length {seq_length} is not divisible by {what} = {need}")
    if seq_length > shape.max_position:
        raise TrainError(f"sequence length {seq_length} exceeds the model's "
                         f"{shape.max_position} positions")
