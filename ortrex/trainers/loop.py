"""The training loop: AdamW with warmup and cosine decay, gradient accumulation and
clipping, bf16 autocast on GPUs, FSDP2 over ``torchrun`` processes, checkpoints, validation,
the log, the plot and the store.

The loss of a step is the mean over every target token of the global batch: each micro-batch
contributes its summed token losses divided by the global target count (summed over ranks
first), so one process with accumulation and N processes compute the same gradient.
"""

from __future__ import annotations

import contextlib
import math
import resource
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from ortrex.trainers import checkpoint as ckpt
from ortrex.trainers import datasets as D
from ortrex.trainers import model as M
from ortrex.trainers import observe, record, sources
from ortrex.trainers.config import TrainConfig
from ortrex.trainers.dist import Dist, set_sync, shard
from ortrex.trainers.errors import TrainError
from ortrex.trainers.flops import flops_per_token, peak_flops


@dataclass
class TrainResult:
    """What a finished run reports."""

    output: Path
    run_id: str
    steps: int
    kernels: str
    losses: list[float] = field(default_factory=list)
    valid: dict[int, dict[str, float]] = field(default_factory=dict)
    checkpoints: list[Path] = field(default_factory=list)
    tokens_per_s: float = 0.0
    mfu: float | None = None
    peak_memory: int = 0
    model: dict[str, Any] = field(default_factory=dict)
    resumed_from: int = 0


def lr_lambda(cfg: TrainConfig) -> Any:
    """Linear warmup to ``lr``, then cosine to ``min_lr`` at the last step (as Megatron)."""
    floor = cfg.final_min_lr / cfg.lr

    def f(step: int) -> float:
        if cfg.warmup_iters and step < cfg.warmup_iters:
            return (step + 1) / cfg.warmup_iters
        span = max(cfg.train_iters - cfg.warmup_iters, 1)
        t = min(max(step - cfg.warmup_iters, 0) / span, 1.0)
        return floor + (1 - floor) * 0.5 * (1 + math.cos(math.pi * t))

    return f


def optimizer(model: torch.nn.Module, cfg: TrainConfig) -> torch.optim.Optimizer:
    """AdamW; no weight decay on vectors (norms, biases, gates' scales), as Megatron."""
    decay = [p for p in model.parameters() if p.requires_grad and p.ndim >= 2]
    plain = [p for p in model.parameters() if p.requires_grad and p.ndim < 2]
    return torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                              {"params": plain, "weight_decay": 0.0}], lr=cfg.lr,
                             betas=(cfg.adam_beta1, cfg.adam_beta2), eps=cfg.adam_eps)


def micro_loss(model: torch.nn.Module, batch: dict[str, torch.Tensor], shifted: bool,
               n_targets: torch.Tensor, device: torch.device, bf16: bool) -> torch.Tensor:
    """This micro-batch's summed token losses over ``n_targets`` (the model computes it:
    shifted labels as they are, SFT labels shifted inside, as MindSpeed does)."""
    ids = batch["input_ids"].to(device, non_blocking=True)
    labels = batch["labels"].to(device, non_blocking=True)
    kw: dict[str, Any] = {"num_items_in_batch": n_targets.to(device)}
    if shifted:
        kw["shift_labels"] = labels
    amp = torch.autocast("cuda", dtype=torch.bfloat16) if bf16 and device.type == "cuda" \
        else contextlib.nullcontext()
    with amp:
        return model(input_ids=ids, labels=labels, use_cache=False, **kw).loss


@torch.no_grad()
def evaluate(model: torch.nn.Module, sets: dict[str, Any], cfg: TrainConfig, d: Dist,
             pad: int, bf16: bool) -> dict[str, float]:
    """Mean token loss of every validation set."""
    model.eval()
    out = {}
    for name, samples in sets.items():
        total = torch.zeros(2, dtype=torch.float64, device=d.device)
        # An SFT set is read at its own longest sample (a CPT run's shorter windows would
        # cut the answers off).
        seq = max(cfg.seq_length, getattr(samples, "longest", 0))
        for b in D.valid_batches(samples, cfg.micro_batch_size, d.world, d.rank, seq, pad):
            n = b["targets"].clamp(min=1).to(torch.float32)
            loss = micro_loss(model, b, samples.shifted, n, d.device, bf16)
            total[0] += loss.double() * b["targets"].double().to(d.device)
            total[1] += b["targets"].double().to(d.device)
        d.sum(total)
        if total[1] == 0:
            raise TrainError(f"validation set {name!r}: its first {len(samples)} samples have "
                             "no target token (answers cut off by --seq-length?)")
        out[name] = float(total[0] / total[1])
    model.train()
    return out


def _prepare_output(out: Path, cfg: TrainConfig, d: Dist) -> Path | None:
    """The checkpoint to resume from (None: a fresh start); refuses to mix runs."""
    root = out / "checkpoints"
    done = ckpt.complete(root)
    if done and not cfg.resume:
        raise TrainError(f"{out}: holds checkpoints of an earlier run (up to "
                         f"{done[-1].name}); give --resume to continue it, or another "
                         "--output")
    if not done:
        return None
    meta = ckpt.read_meta(done[-1])
    theirs = meta.get("identity") or {}
    mine = json_safe(cfg.identity())
    diff = sorted(k for k in set(theirs) | set(mine) if theirs.get(k) != mine.get(k))
    if diff:
        k = diff[0]
        raise TrainError(f"{done[-1]}: made with other settings ({k}: {theirs.get(k)!r} "
                         f"there, {mine.get(k)!r} now); resume with the same settings or "
                         "give another --output")
    return done[-1]


def json_safe(obj: Any) -> Any:
    """``obj`` as it reads back from JSON."""
    import json

    return json.loads(json.dumps(obj, default=str))


def _peak_memory(device: torch.device) -> int:
    if device.type == "cuda":
        return int(torch.cuda.max_memory_allocated(device))
    return int(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) * 1024


def train(cfg: TrainConfig, d: Dist, db: str | None, show_progress: bool = True,
          command: str = "train") -> TrainResult:
    """Run (or resume) one training run; every rank calls it."""
    cfg.check()
    out = cfg.output_dir()
    paths, weights = sources.parse_data_path(cfg.data)
    train_src = sources.for_stage(cfg.stage, paths)
    if weights is None and len(train_src) > 1:  # as Megatron: in proportion to their sizes
        weights = [float(s.tokens) for s in train_src]
    valid_src = {name: sources.inspect(p) for name, p in cfg.valid.items()}
    msrc = M.resolve(cfg.model)
    vocab = M.vocab_size(msrc)
    sources.check_vocab(train_src + list(valid_src.values()), vocab, cfg.model)
    sources.check_lengths(train_src, cfg.seq_length)
    resume_from = _prepare_output(out, cfg, d)
    eos, pad = sources.special_ids(train_src)

    dp = d.world
    if cfg.global_batch_size % (cfg.micro_batch_size * dp):
        raise TrainError(f"--global-batch-size {cfg.global_batch_size} is not a multiple of "
                         f"--micro-batch-size x processes ({cfg.micro_batch_size} x {dp})")
    accum = cfg.global_batch_size // (cfg.micro_batch_size * dp)
    num_samples = cfg.train_iters * cfg.global_batch_size
    if d.main:
        (out / "checkpoints").mkdir(parents=True, exist_ok=True)
        ckpt.clean_partial(out / "checkpoints")
    d.barrier()
    cache = out / "data-cache"
    if cfg.stage == "cpt":
        samples: Any = D.CptSamples(train_src, weights, cfg.seq_length, num_samples, cfg.seed,
                                    cache, eos, vocab)
    else:
        samples = D.SftSamples(train_src, weights, num_samples, cfg.seed)
    valid: dict[str, Any] = {}
    for name, s in valid_src.items():
        if s.kind == "cpt":
            valid[name] = D.CptSamples([s], None, cfg.seq_length, cfg.eval_samples,
                                       cfg.seed, cache, eos, vocab)
        else:
            valid[name] = D.SequentialSft(s, cfg.eval_samples)

    model = M.build(msrc, cfg.seed)
    init_ckpt = None
    if msrc.weights and msrc.weights.startswith("ckpt:"):
        path = Path(msrc.weights[5:])
        ckpt.load_weights(path, model)
        mark = ckpt.read_meta(path)
        init_ckpt = mark.get("checkpoint_id")
    kernels = M.apply_kernels(model, cfg.kernels)
    if cfg.activation_checkpointing:
        if hasattr(model, "activation_checkpointing_enable"):
            model.activation_checkpointing_enable({"use_reentrant": False})
        else:  # transformers before 5.24
            model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={
                "use_reentrant": False})
    info = M.describe(model)
    fpt = flops_per_token(model, cfg.seq_length)
    model = shard(model, d)
    model.train()
    bf16 = d.device.type == "cuda" if cfg.bf16 is None else bool(cfg.bf16)
    opt = optimizer(model, cfg)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lr_lambda(cfg))
    start = 0
    if resume_from is not None:
        meta = ckpt.load(resume_from, model, opt, sched, d)
        start = int(meta["step"])
    rid = record.run_id(cfg.identity())
    tok = train_src[0].tokenizer
    if d.main and db:
        record.start(db, rid, command, {**json_safe(cfg.identity()), "kernels": kernels,
                                        "output": str(out.resolve())},
                     train_src + list(valid_src.values()), init_ckpt)
    peak, peak_how = peak_flops(d.device, cfg.peak_tflops)
    res = TrainResult(out, rid, cfg.train_iters, kernels, model=info, resumed_from=start)
    log = observe.Log(out / observe.LOG, start if resume_from else None) if d.main else None
    meta_base = {"identity": json_safe(cfg.identity()), "run_id": rid, "stage": cfg.stage,
                 "tokenizer": tok, "kernels": kernels}

    def save(step: int) -> None:
        cid = record.checkpoint_id(rid, step)
        path = ckpt.save(out / "checkpoints", step, model, opt, sched, d,
                         {**meta_base, "checkpoint_id": cid,
                          "consumed_samples": step * cfg.global_batch_size},
                         _hf_config(model))
        res.checkpoints.append(path)
        if d.main and db:
            record.checkpoint(db, rid, cid, path, step)

    def run_eval(step: int) -> None:
        if not valid:
            return
        v = evaluate(model, valid, cfg, d, pad, bf16)
        res.valid[step] = v
        if log:
            log.write({"step": step, **{f"valid/{k}": x for k, x in v.items()}})

    batches = D.StepBatches(samples, cfg.micro_batch_size, dp, d.rank, accum,
                            cfg.seq_length, pad)
    it = D.loader(batches, start, cfg.data_workers)
    save_every = cfg.save_interval or cfg.train_iters
    eval_every = cfg.eval_interval or save_every
    try:
        if start == 0:
            run_eval(0)
        t_run, tokens_run = time.perf_counter(), 0
        with observe.progress(cfg.train_iters, start, show_progress and d.main) as bar:
            for step in range(start, cfg.train_iters):
                t0 = time.perf_counter()
                micro = [next(it) for _ in range(accum)]
                n = d.sum(torch.stack([b["targets"] for b in micro]).sum().to(d.device))
                if int(n) == 0:  # every label -100: nothing to learn, the schedule moves on
                    sched.step()
                    if log:
                        log.write({"step": step + 1, "skipped": "no target token"})
                    continue
                total = torch.zeros((), dtype=torch.float64, device=d.device)
                for a, b in enumerate(micro):
                    set_sync(model, a == accum - 1)
                    loss = micro_loss(model, b, samples.shifted, n, d.device, bf16)
                    (loss * d.world).backward()
                    total += loss.detach().double()
                norm = torch.nn.utils.clip_grad_norm_(
                    model.parameters(), cfg.clip_grad if cfg.clip_grad > 0 else float("inf"))
                norm = norm.full_tensor() if hasattr(norm, "full_tensor") else norm
                lr = opt.param_groups[0]["lr"]
                opt.step()
                sched.step()
                opt.zero_grad(set_to_none=True)
                step_loss = float(d.sum(total))
                if not math.isfinite(step_loss):
                    raise TrainError(f"step {step + 1}: the loss is {step_loss} (lower --lr "
                                     "or check the data)")
                dt = time.perf_counter() - t0
                toks = cfg.global_batch_size * cfg.seq_length
                tokens_run += toks
                tps = toks / dt
                mfu = fpt * tps / (peak * d.world) if peak else None
                res.losses.append(step_loss)
                if log:
                    log.write({"step": step + 1, "loss": step_loss, "lr": lr,
                               "grad_norm": float(norm), "targets": int(n),
                               "tokens": (step + 1) * toks, "tokens_per_s": tps,
                               "mfu": mfu, "seconds": dt,
                               "cut": int(sum(int(b["cut"]) for b in micro))})
                bar(step=step + 1, loss=step_loss, lr=lr, tps=tps, mfu=mfu)
                done = step + 1
                if done % eval_every == 0 or done == cfg.train_iters:
                    run_eval(done)
                if done % save_every == 0 or done == cfg.train_iters:
                    save(done)
        elapsed = time.perf_counter() - t_run
        res.tokens_per_s = tokens_run / elapsed if elapsed > 0 and tokens_run else 0.0
        res.mfu = fpt * res.tokens_per_s / (peak * d.world) if peak and tokens_run else None
    finally:
        if log:
            log.close()
    if d.main:
        observe.plot(out / observe.LOG, out / observe.PLOT, observe.title(cfg.stage, out))
    res.peak_memory = _peak_memory(d.device)
    if d.main and db:
        record.finish(db, rid, {"steps": cfg.train_iters, "resumed_from": start,
                                "final_loss": res.losses[-1] if res.losses else None,
                                "valid": res.valid.get(cfg.train_iters),
                                "tokens_per_s": res.tokens_per_s, "mfu": res.mfu,
                                "peak_flops": peak_how, "checkpoints":
                                    [str(p) for p in ckpt.complete(out / "checkpoints")]})
    if not res.checkpoints:
        res.checkpoints = ckpt.complete(out / "checkpoints")
    return res


def _hf_config(model: torch.nn.Module) -> Any:
    import copy

    cfg = copy.deepcopy(model.config)
    cfg.use_cache = True  # what a served model wants (training passes use_cache=False)
    return cfg
