"""The text of a launch script (``launch.plan`` has checked everything it uses)."""

from __future__ import annotations

from typing import Any

from ortrex.trainers.launch import _flags, _q, header
from ortrex.trainers.shapes import Shape

_CHECK_DATA = r'''
# Every dataset file the manifest lists, present before any device is touched.
for f in "${DATA_FILES[@]}"; do
  [[ -f "$f" ]] || { echo "error: $f: missing (see the export manifest)" >&2; exit 2; }
done
'''

_INDEXMAP = r'''
# MindSpeed-LLM's SFT index map, built once on node 0 from the .idx sequence count (the same
# bytes MindSpeed would write); the other nodes wait for its .ready marker.
NUM_SAMPLES=$((TRAIN_ITERS * GBS))
INDEXMAP="${SFT_PREFIX}_train_indexmap_${NUM_SAMPLES}ns_${SEED}s_shuffle_decoder_packed_idx.npy"
if [[ "$NODE_RANK" == "0" ]]; then
  if [[ ! -f "${INDEXMAP}.ready" ]]; then
    python -m ortrex export indexmap "$SFT_PREFIX" --train-iters "$TRAIN_ITERS" \
      --global-batch-size "$GBS" --seed "$SEED"
  fi
else
  waited=0
  until [[ -f "${INDEXMAP}.ready" ]]; do
    sleep 5; waited=$((waited + 5))
    if (( waited >= INDEXMAP_TIMEOUT )); then
      echo "error: ${INDEXMAP}.ready did not appear within ${INDEXMAP_TIMEOUT}s" >&2; exit 1
    fi
  done
fi
'''

_RESUME = r'''
# A restart continues from this run's own latest checkpoint (model, optimizer, RNG, data
# position); only the first start loads the base weights, without their optimizer.
if [[ -f "${SAVE_DIR}/latest_checkpointed_iteration.txt" ]]; then
  LOAD_ARGS=(--load "$SAVE_DIR")
elif [[ -n "$BASE_CKPT" ]]; then
  LOAD_ARGS=(--load "$BASE_CKPT" --finetune --no-load-optim --no-load-rng)
else
  LOAD_ARGS=()
fi
'''


def _v4_mindspeed(s: Shape) -> list[Any]:
    ratios = " ".join(str(r) for r in s.compress_ratios)
    return [
        "--spec mindspeed_llm.tasks.models.spec.deepseek4_spec layer_spec",
        "--multi-latent-attention", ("--qk-pos-emb-head-dim", s.rope_dim),
        ("--qk-head-dim", s.head_dim), ("--q-lora-rank", s.q_lora),
        ("--o-lora-rank", s.o_lora), ("--kv-lora-rank", s.kv_lora),
        ("--v-head-dim", s.v_head_dim), "--qk-layernorm", "--mla-fa-without-pad",
        "--enable-dsa-indexer", ("--index-n-heads", s.index_heads),
        ("--index-head-dim", s.index_head_dim), ("--index-topk", s.index_topk),
        "--enable-mhc", ("--hc-mult", s.hc_mult), "--kv-compress", ("--norm-eps", s.norm_eps),
        "--use-g2-attention", ("--o-groups", s.o_groups), ("--g2-window-size", s.window),
        ("--rope-head-dim", s.rope_dim), ("--original-seq-len", s.original_seq_len),
        ("--rope-factor", f"{s.rope_factor:g}"),
        ("--compress-rope-theta", f"{s.compress_rope_theta:.1f}"),
        ("--compress-ratios", ratios), "--position-embedding-type g2",
        ("--n-hash-layers", s.hash_layers),
        ("--moe-router-score-function", s.score_func), "--moe-router-enable-expert-bias",
        ("--moe-router-topk-scaling-factor", f"{s.routed_scale:g}"),
        "--moe-router-load-balancing-type none", "--seq-aux", "--moe-aux-loss-coeff 0.001",
        "--moe-router-group-topk 1", "--moe-router-num-groups 1", "--first-k-dense-replace -1",
        "--moe-router-dtype fp32",
        # The multi-token-prediction layer V4 checkpoints carry (and conversion keeps).
        "--mtp-spec mindspeed_llm.tasks.models.spec.deepseek4_spec mtp_spec",
        "--mtp-num-layers 1", "--mtp-loss-scaling-factor 0.3", "--mtp-mem-efficient-logits"]


def _model_flags(s: Shape, engine: str) -> list[Any]:
    flags: list[Any] = [
        ("--num-layers", "$NUM_LAYERS"), ("--hidden-size", s.hidden),
        ("--ffn-hidden-size", s.ffn), ("--num-attention-heads", s.heads),
        ("--max-position-embeddings", s.max_position), ("--vocab-size", s.vocab)
        if engine == "mindspeed" else None, ("--padded-vocab-size", s.vocab)
        if engine == "mindspeed" else None, "--make-vocab-size-divisible-by 1"
        if engine == "mindspeed" else None, ("--rotary-base", f"{s.rope_theta:g}"),
        ("--norm-epsilon", s.norm_eps), "--normalization RMSNorm", "--swiglu",
        "--untie-embeddings-and-output-weights", "--disable-bias-linear",
        "--attention-dropout 0.0", "--hidden-dropout 0.0", "--init-method-std 0.02"]
    if s.kv_heads and s.kv_heads != s.heads and not s.deepseek_v4:
        flags += ["--group-query-attention", ("--num-query-groups", s.kv_heads)]
    if s.experts:
        flags += [("--num-experts", s.experts), ("--moe-router-topk", s.topk),
                  ("--moe-ffn-hidden-size", s.moe_ffn or s.ffn), "--moe-grouped-gemm",
                  "--moe-token-dispatcher-type alltoall", "--moe-permute-fusion",
                  "--moe-layer-freq 1"]
        if s.shared_ffn:
            flags.append(("--moe-shared-expert-intermediate-size", s.shared_ffn))
        if engine == "mindspeed":
            flags.append("--moe-permutation-async-comm")
    if engine == "mindspeed":
        flags += ["--use-flash-attn", "--use-fused-rotary-pos-emb",
                  "--use-rotary-position-embeddings", "--use-fused-swiglu",
                  "--use-fused-rmsnorm", "--no-masked-softmax-fusion",
                  "--attention-softmax-in-fp32", "--no-gradient-accumulation-fusion"]
        if s.swiglu_limit:
            flags.append(("--swiglu-limit", f"{s.swiglu_limit:g}"))
        if s.deepseek_v4:
            flags += _v4_mindspeed(s)
    else:
        flags += ["--position-embedding-type rope", "--attention-backend auto",
                  "--cross-entropy-loss-fusion"]
        if s.swiglu_limit:
            # Megatron-Core clamps in its unfused SwiGLU only (both halves, shared experts
            # too, as DeepSeek-V4 does).
            flags += [("--activation-func-clamp-value", f"{s.swiglu_limit:g}"),
                      "--no-bias-swiglu-fusion"]
        if s.deepseek_v4:
            flags += ["--multi-latent-attention", ("--q-lora-rank", s.q_lora),
                      ("--kv-lora-rank", s.kv_lora), ("--qk-head-dim", s.head_dim),
                      ("--qk-pos-emb-head-dim", s.rope_dim), ("--v-head-dim", s.v_head_dim),
                      "--qk-layernorm", "--rope-type yarn",
                      ("--rotary-scaling-factor", f"{s.rope_factor:g}"),
                      ("--original-max-position-embeddings", s.original_seq_len),
                      "--moe-router-enable-expert-bias",
                      ("--moe-router-topk-scaling-factor", f"{s.routed_scale:g}"),
                      "--moe-router-score-function sigmoid",
                      "--moe-router-load-balancing-type seq_aux_loss",
                      "--moe-aux-loss-coeff 0.001", "--moe-router-dtype fp32"]
    return flags


def _parallel_flags(p: dict[str, Any], engine: str) -> list[Any]:
    par, s = p["par"], p["spec"]
    flags: list[Any] = [("--tensor-model-parallel-size", par.tp),
                        ("--pipeline-model-parallel-size", par.pp),
                        ("--expert-model-parallel-size", par.ep),
                        ("--expert-tensor-parallel-size", par.etp),
                        ("--context-parallel-size", par.cp)]
    if par.vpp > 1:
        per = (p["shape"].layers + s.noop_layers) // (par.pp * par.vpp)
        flags.append(("--num-layers-per-virtual-pipeline-stage", per))
    if par.tp > 1:
        flags.append("--sequence-parallel")
    if engine == "mindspeed" and par.cp > 1:
        flags.append("--context-parallel-algo ulysses_cp_algo")
    if engine == "mindspeed" and s.noop_layers:
        real = p["shape"].layers
        flags.append(("--noop-layers", ",".join(str(real + i) for i in range(s.noop_layers))))
    return flags


def _train_flags(p: dict[str, Any], engine: str) -> list[Any]:
    s = p["spec"]
    flags: list[Any] = [
        ("--seq-length", "$SEQ_LEN"), ("--micro-batch-size", "$MBS"),
        ("--global-batch-size", "$GBS"), ("--train-iters", "$TRAIN_ITERS"),
        ("--lr", "$LR"), ("--min-lr", "$MIN_LR"), "--lr-decay-style cosine",
        ("--lr-decay-iters", "$TRAIN_ITERS"), ("--lr-warmup-iters", s.warmup_iters),
        "--weight-decay 1e-2", "--clip-grad 1.0", "--adam-beta1 0.9", "--adam-beta2 0.999",
        "--bf16", "--use-distributed-optimizer", "--use-mcore-models"
        if engine == "mindspeed" else None, "--transformer-impl local"
        if engine == "mindspeed" else None, "--recompute-granularity full",
        "--recompute-method uniform", "--recompute-num-layers 1",
        ("--seed", "$SEED"), ("--save", '"$SAVE_DIR"'), ("--save-interval", p["save_interval"]),
        "--log-interval 1", "--log-throughput", ("--distributed-timeout-minutes", 120)]
    if engine == "mindspeed":
        flags += ["--initial-loss-scale 65536", "--ckpt-format torch", "--no-shared-storage",
                  "--manual-gc", "--manual-gc-interval 50"]
    else:
        flags += ["--ckpt-format torch_dist"]
    if engine == "mindspeed":
        flags += [("--tokenizer-type", "PretrainedFromHF"),
                  ("--tokenizer-name-or-path", '"$TOKENIZER"')]
    else:
        flags += [("--tokenizer-type", "HuggingFaceTokenizer"),
                  ("--tokenizer-model", '"$TOKENIZER"')]
    if s.stage == "cpt":
        flags.append(("--data-cache-path", '"$DATA_CACHE"'))
        if p["valid"]:
            flags += [("--train-data-path", "$DATA_PATH"), ("--valid-data-path", "$VALID_PATH"),
                      "--eval-interval 50", "--eval-iters 10"]
        else:
            flags += [("--data-path", "$DATA_PATH"), "--split 100,0,0",
                      ("--eval-interval", "$TRAIN_ITERS"), "--eval-iters 0"]
    else:
        opts = p["datasets"][0].manifest.get("options") or {}
        flags += [("--data-path", '"$SFT_PREFIX"'), "--split 100,0,0", "--finetune",
                  "--stage sft", "--is-instruction-dataset",
                  ("--prompt-type", opts.get("prompt_type") or "deepseek4"),
                  ("--eval-interval", "$TRAIN_ITERS"), "--eval-iters 0"]
        if opts.get("neat_pack"):
            flags += ["--reset-attention-mask", "--neat-pack"]
    return flags


def _env(engine: str) -> str:
    common = ["export CUDA_DEVICE_MAX_CONNECTIONS=1"] + [
        f"export {v}=1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")]
    if engine == "mindspeed":
        return "\n".join([
            'ASCEND_ENV="${ASCEND_ENV:-/usr/local/Ascend/ascend-toolkit/set_env.sh}"',
            'if [[ -f "$ASCEND_ENV" ]]; then source "$ASCEND_ENV"; fi',
            "export HCCL_CONNECT_TIMEOUT=7200", "export HCCL_EXEC_TIMEOUT=7200",
            "export ACL_DEVICE_SYNC_TIMEOUT=7200",
            "export PYTORCH_NPU_ALLOC_CONF=expandable_segments:True",
            "export TASK_QUEUE_ENABLE=1", "export CPU_AFFINITY_CONF=1",
            'export HCCL_ALGO="alltoall=level0:NA;level1:pipeline"',
            'export HCCL_BUFFSIZE="${HCCL_BUFFSIZE:-200}"  # HCCL default; raise for large EP',
            "export PYTHONUNBUFFERED=1", *common,
            'export PYTHONPATH="${MINDSPEED_DIR}:${MINDSPEED_LLM_DIR}/Megatron-LM:'
            '${PYTHONPATH:-}"'])
    return "\n".join(["export NCCL_IB_TIMEOUT=22", "export TORCH_NCCL_ASYNC_ERROR_HANDLING=1",
                      "export PYTHONUNBUFFERED=1", *common,
                      'export PYTHONPATH="${MEGATRON_LM_DIR}:${PYTHONPATH:-}"'])


def _conversion(p: dict[str, Any], engine: str) -> tuple[str, str]:
    """(before training: Hugging Face -> Megatron layout; after: back, on request)."""
    s, par, shape = p["spec"], p["par"], p["shape"]
    if s.hf_model is None:
        return "", ""
    if engine == "mindspeed":
        noop = ",".join(str(shape.layers + i) for i in range(s.noop_layers))
        common = ["--model-type-hf deepseek4" if shape.deepseek_v4 else "--model-type-hf llama2",
                  "--moe-grouped-gemm" if shape.experts else None,
                  "--mtp-num-layers 1" if shape.deepseek_v4 else None,
                  f"--noop-layers {noop}" if noop else None]
        to_mg = ["--load-model-type hf", "--save-model-type mg", '--load-dir "$HF_MODEL"',
                 '--save-dir "$BASE_CKPT"', f"--target-tensor-parallel-size {par.tp}",
                 f"--target-pipeline-parallel-size {par.pp}",
                 f"--target-expert-parallel-size {par.ep}", *common]
        to_hf = ["--load-model-type mg", "--save-model-type hf", '--load-dir "$SAVE_DIR"',
                 '--save-dir "${SAVE_DIR}/hf"', *common]
        cmd = 'python "${MINDSPEED_LLM_DIR}/convert_ckpt_v2.py"'
    else:
        to_mg = ['-c "from megatron.bridge import AutoBridge; import sys; '
                 'AutoBridge.import_ckpt(sys.argv[1], sys.argv[2])"', '"$HF_MODEL"',
                 '"$BASE_CKPT"']
        to_hf = ['-c "from megatron.bridge import AutoBridge; import sys; '
                 'b = AutoBridge.from_hf_pretrained(sys.argv[1]); '
                 'b.export_ckpt(sys.argv[2], sys.argv[3])"', '"$HF_MODEL"', '"$SAVE_DIR"',
                 '"${SAVE_DIR}/hf"']
        cmd = "python"
    before = f'''
# Hugging Face weights -> the Megatron layout for these parallel sizes (node 0, once; the
# other nodes wait for its marker on the shared file system).
if [[ ! -f "${{BASE_CKPT}}/.ortrex-converted" ]]; then
  if [[ "$NODE_RANK" == "0" ]]; then
    {cmd} \\
{_flags(to_mg)}
    touch "${{BASE_CKPT}}/.ortrex-converted"
  else
    until [[ -f "${{BASE_CKPT}}/.ortrex-converted" ]]; do sleep 10; done
  fi
fi
'''
    after = f'''
# Back to Hugging Face for serving and `ortrex eval` (CONVERT_BACK=1, node 0).
if [[ "${{CONVERT_BACK:-0}}" == "1" && "$NODE_RANK" == "0" ]]; then
  {cmd} \\
{_flags(to_hf)}
fi
'''
    return before, after


def render(p: dict[str, Any]) -> str:
    """The whole script."""
    s = p["spec"]
    engine, shape = s.engine, p["shape"]
    files = [str((d.path.parent / f).resolve()) for d in p["datasets"] + p["valid"] for f in d.files
             if f.endswith((".bin", ".idx"))]
    base = s.load or (s.save.parent / (s.save.name + "-base") if s.hf_model else None)
    if engine == "mindspeed":
        entry = ('"${MINDSPEED_LLM_DIR}/pretrain_deepseek4.py"' if shape.deepseek_v4
                 else '"${MINDSPEED_LLM_DIR}/pretrain_gpt.py"') if s.stage == "cpt" \
            else '"${MINDSPEED_LLM_DIR}/posttrain_gpt.py"'
        dirs = ['MINDSPEED_LLM_DIR="${MINDSPEED_LLM_DIR:?set MINDSPEED_LLM_DIR to the '
                'MindSpeed-LLM checkout}"',
                'MINDSPEED_DIR="${MINDSPEED_DIR:-${MINDSPEED_LLM_DIR}/../MindSpeed}"']
    else:
        entry = '"${MEGATRON_LM_DIR}/pretrain_gpt.py"'
        dirs = ['MEGATRON_LM_DIR="${MEGATRON_LM_DIR:?set MEGATRON_LM_DIR to the Megatron-LM '
                'checkout}"']
    before, after = _conversion(p, engine)
    flags = _parallel_flags(p, engine) + _model_flags(shape, engine) + _train_flags(p, engine)
    sft = s.stage == "sft"
    lines = [
        "#!/usr/bin/env bash", header(p), "set -euo pipefail", "",
        *dirs, _env(engine), "",
        f'NNODES="${{NNODES:-{s.nodes}}}"',
        f'DEVICES_PER_NODE="${{DEVICES_PER_NODE:-{s.devices_per_node}}}"',
        'NODE_RANK="${NODE_RANK:?set NODE_RANK (0 on the first node)}"',
        'MASTER_ADDR="${MASTER_ADDR:?set MASTER_ADDR to the first node}"',
        f'MASTER_PORT="${{MASTER_PORT:-{6000 if s.stage == "cpt" else 6001}}}"',
        f'if (( NNODES * DEVICES_PER_NODE != {p["par"].world} )); then echo "error: this '
        f'script was checked for {p["par"].world} devices" >&2; exit 2; fi', "",
        f"NUM_LAYERS={shape.layers + s.noop_layers}", f"SEQ_LEN={p['seq']}",
        f"MBS={s.micro_batch_size}", f"GBS={s.global_batch_size}",
        f"TRAIN_ITERS={s.train_iters}", f"LR={p['lr']:g}", f"MIN_LR={p['min_lr']:g}",
        f"SEED={s.seed}", f'TOKENIZER={_q(p["tokenizer"])}',
        f'SAVE_DIR="${{SAVE_DIR:-{s.save}}}"',
        f'BASE_CKPT="${{BASE_CKPT:-{base or ""}}}"',
        f'HF_MODEL={_q(s.hf_model) if s.hf_model else ""}',
        f'DATA_CACHE="${{DATA_CACHE:-{s.save}/data-cache}}"',
        "INDEXMAP_TIMEOUT=${INDEXMAP_TIMEOUT:-1800}",
        f"DATA_PATH={_q(p['data_path'])}" if not sft else
        f"SFT_PREFIX={_q(p['data_path'])}",
        f"VALID_PATH={_q(' '.join(d.prefix for d in p['valid']))}" if p["valid"] else "",
        "DATA_FILES=(", *[f"  {_q(f)}" for f in files], ")",
        _CHECK_DATA, _INDEXMAP if sft else "", before, _RESUME,
        'mkdir -p "$SAVE_DIR" "$DATA_CACHE"',
        "torchrun --nnodes \"$NNODES\" --nproc-per-node \"$DEVICES_PER_NODE\" "
        "--node-rank \"$NODE_RANK\" \\",
        "    --master-addr \"$MASTER_ADDR\" --master-port \"$MASTER_PORT\" \\",
        f"    {entry} \\", _flags(flags) + " \\", '    ${LOAD_ARGS[@]+"${LOAD_ARGS[@]}"} \\',
        f"    --distributed-backend {'nccl'}", after]
    text = "\n".join(x for x in lines if x is not None) + "\n"
    while "\n\n\n" in text:
        text = text.replace("\n\n\n", "\n\n")
    return text
