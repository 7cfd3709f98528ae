"""``ortrex train`` (CPT and SFT on exported datasets, on one process or under torchrun),
``ortrex train recipe``, ``ortrex train export-hf``; ``ortrex launch mindspeed|megatron``."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ortrex.cli.app import DbOption, UsageError, app, store_path

train_app = typer.Typer(rich_markup_mode=None, no_args_is_help=False,
                        help="Train on exported datasets (CPT, SFT), run the report's recipe, "
                             "export checkpoints for serving.")
app.add_typer(train_app, name="train")
launch_app = typer.Typer(rich_markup_mode=None, no_args_is_help=True,
                         help="Write MindSpeed-LLM or Megatron-LM launch scripts from export "
                              "manifests, with every size checked.")
app.add_typer(launch_app, name="launch")


def _opt(help_: str, **kw: Any) -> Any:
    return typer.Option(help=help_, show_default=False, **kw)


def _valid(values: list[str] | None) -> dict[str, str]:
    out = {}
    for v in values or []:
        name, sep, prefix = v.partition("=")
        if not sep:
            name, prefix = Path(v).name or "valid", v
        if not name or not prefix:
            raise UsageError(f"--valid needs NAME=PREFIX, got {v!r}")
        out[name] = prefix
    return out


def _summary(res: Any) -> Table:
    t = Table(title=f"train {res.output}", show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    t.add_row("run", res.run_id)
    t.add_row("model", f"{res.model.get('model_type')}, {res.model.get('parameters', 0):,} "
              f"parameters ({res.model.get('embedding_parameters', 0):,} in embeddings)")
    t.add_row("kernels", res.kernels)
    t.add_row("steps", f"{res.steps:,}" + (f" (resumed at {res.resumed_from})"
                                           if res.resumed_from else ""))
    if res.losses:
        t.add_row("loss: first / last step", f"{res.losses[0]:.4f} / {res.losses[-1]:.4f}")
    last = res.valid.get(res.steps) or {}
    for name, v in last.items():
        first = (res.valid.get(0) or {}).get(name)
        t.add_row(f"valid loss {name}", (f"{first:.4f} -> " if first is not None else "") +
                  f"{v:.4f}")
    t.add_row("tokens / s", f"{res.tokens_per_s:,.0f}")
    t.add_row("MFU", "" if res.mfu is None else f"{100 * res.mfu:.2f}%")
    t.add_row("peak memory", f"{res.peak_memory / 2**20:,.0f} MiB")
    for p in res.checkpoints[-3:]:
        t.add_row("checkpoint", str(p))
    return t


@train_app.callback(invoke_without_command=True)
def train_cmd(
    ctx: typer.Context,
    stage: Annotated[str | None, _opt("cpt (token streams) or sft (packed conversations).")]
    = None,
    data: Annotated[str | None, _opt("An export prefix, or the --data-path \"w1 p1 w2 p2 ...\" "
                                     "string of `ortrex export mix`.")] = None,
    valid: Annotated[list[str] | None, _opt("NAME=PREFIX of a held-out export (repeatable): "
                                            "its loss at every evaluation.")] = None,
    model: Annotated[str | None, _opt("Preset (v4-tiny, v4-small: default), config.json, "
                                      "Hugging Face directory or checkpoint.")] = None,
    kernels: Annotated[str | None, _opt("ortrex, liger or eager (default: ortrex where its "
                                        "Triton or NPU backend runs, else eager).")] = None,
    config: Annotated[Path | None, _opt("YAML file of these options (the command line "
                                        "wins).")] = None,
    output: Annotated[Path | None, _opt("Run folder (default train-runs/<stage>-<settings "
                                        "hash>).")] = None,
    seq_length: Annotated[int | None, _opt("Tokens per sample (default 1024).")] = None,
    micro_batch_size: Annotated[int | None, _opt("Samples per forward (default 1).")] = None,
    global_batch_size: Annotated[int | None, _opt("Samples per step, all processes (default "
                                                  "8).")] = None,
    train_iters: Annotated[int | None, _opt("Steps (default 100).")] = None,
    lr: Annotated[float | None, _opt("Peak learning rate (default 3e-4).")] = None,
    min_lr: Annotated[float | None, _opt("Final learning rate (default lr / 10).")] = None,
    warmup_iters: Annotated[int | None, _opt("Linear warmup steps (default 0).")] = None,
    weight_decay: Annotated[float | None, _opt("AdamW weight decay (default 0.01).")] = None,
    clip_grad: Annotated[float | None, _opt("Gradient norm clip; 0 for none (default 1).")]
    = None,
    seed: Annotated[int | None, _opt("Initialisation and data-order seed (default 1234).")]
    = None,
    bf16: Annotated[bool | None, typer.Option("--bf16/--no-bf16", help="bf16 autocast "
                                              "(default: on a GPU).", show_default=False)]
    = None,
    activation_checkpointing: Annotated[bool | None, typer.Option(
        "--activation-checkpointing", help="Recompute activations in the backward pass.",
        show_default=False)] = None,
    save_interval: Annotated[int | None, _opt("Checkpoint every N steps (default: the last "
                                              "step).")] = None,
    eval_interval: Annotated[int | None, _opt("Validation every N steps (default: at each "
                                              "checkpoint).")] = None,
    eval_samples: Annotated[int | None, _opt("Samples per validation set (default 64).")]
    = None,
    data_workers: Annotated[int | None, _opt("Data-loader processes (default 1).")] = None,
    peak_tflops: Annotated[float | None, _opt("Hardware peak for MFU (default: datasheet bf16 "
                                              "on GPUs, threads x clock x 32 on CPU).")]
    = None,
    resume: Annotated[bool, typer.Option("--resume", help="Continue the run in --output from "
                                         "its last checkpoint.")] = False,
    db: DbOption = None,
) -> None:
    """Train on exported datasets: the same command on one process or under `torchrun
    --nproc-per-node N -m ortrex train ...` (FSDP2)."""
    if ctx.invoked_subcommand is not None:
        return
    from ortrex.trainers.config import build_config

    cfg = build_config(config, {
        "stage": stage, "data": data, "valid": _valid(valid), "model": model,
        "kernels": kernels, "output": str(output) if output else None,
        "seq_length": seq_length, "micro_batch_size": micro_batch_size,
        "global_batch_size": global_batch_size, "train_iters": train_iters, "lr": lr,
        "min_lr": min_lr, "warmup_iters": warmup_iters, "weight_decay": weight_decay,
        "clip_grad": clip_grad, "seed": seed, "bf16": bf16,
        "activation_checkpointing": activation_checkpointing, "save_interval": save_interval,
        "eval_interval": eval_interval, "eval_samples": eval_samples,
        "data_workers": data_workers, "peak_tflops": peak_tflops, "resume": resume or None})
    from ortrex.trainers.dist import setup, teardown
    from ortrex.trainers.loop import train

    d = setup()
    try:
        res = train(cfg, d, str(store_path(db)))
    finally:
        teardown()
    if d.main:
        from ortrex.ui import console

        console.print(_summary(res))


@train_app.command("export-hf")
def export_hf_cmd(
    checkpoint: Annotated[Path, typer.Argument(help="A checkpoint folder (run/checkpoints/"
                                               "step_NNNNNNN).")],
    output: Annotated[Path, typer.Argument(help="The Hugging Face directory to write (must "
                                           "not exist).")],
    db: DbOption = None,
) -> None:
    """Write a checkpoint as a Hugging Face model directory (safetensors, config, tokenizer)."""
    from ortrex.trainers.hf import export_hf
    from ortrex.ui import console

    path = store_path(db)
    info = export_hf(checkpoint, output, str(path) if path.exists() else None)
    console.print(f"wrote [bold]{info['output']}[/] (step {info['step']}, "
                  f"{info['parameters']:,} parameters, sha256 {info['sha256'][:16]})")


@train_app.command("recipe")
def recipe_cmd(
    recipe: Annotated[Path, typer.Argument(help="The recipe (YAML).")],
    db: DbOption = None,
) -> None:
    """The report's recipe in one command: CPT, SFT stage I (code-only targets), SFT stage II
    (Clean-CoT plus general instructions) and the matched comparison without CPT; checkpoint
    selection on held-out losses (and an eval score) with one table per stage."""
    from ortrex.trainers.dist import setup, teardown
    from ortrex.trainers.recipe import run_recipe

    d = setup()
    try:
        run_recipe(recipe, d, str(store_path(db)))
    finally:
        teardown()


def _launch(engine: str, **kw: Any) -> None:
    from ortrex.trainers.launch import LaunchSpec, write_launch
    from ortrex.ui import console

    spec = LaunchSpec(engine=engine, **kw)
    path, notes = write_launch(spec)
    for n in notes:
        print(f"warning: {n}", file=sys.stderr)
    console.print(f"wrote [bold]{path}[/] ({engine}, {spec.stage})")


StageOpt = Annotated[str, typer.Option("--stage", help="cpt or sft.")]
ManifestOpt = Annotated[list[Path], typer.Option(
    "--manifest", help="P.manifest.json of the export (or the mixture.json of `ortrex export "
    "mix`); repeat for several CPT datasets.")]
ParallelOpt = Annotated[str, typer.Option(
    "--parallel", help="tp=..,pp=..,ep=..,cp=..,vpp=.. (missing sizes are 1).")]
SizeOpt = Annotated[str, typer.Option("--model-size", help="v4-flash, or a Hugging Face "
                                      "config.json.")]


def _launch_cmd(engine: str) -> Any:
    def cmd(
        stage: StageOpt,
        manifest: ManifestOpt,
        parallel: ParallelOpt = "tp=1,pp=1,ep=1,cp=1,vpp=1",
        model_size: SizeOpt = "v4-flash",
        nodes: Annotated[int, typer.Option(help="Machines.")] = 1,
        devices_per_node: Annotated[int, typer.Option(help="NPUs or GPUs per machine.")] = 8,
        seq_length: Annotated[int | None, _opt("Tokens per sample (default: the export's "
                                               "--seq-length, else 4096).")] = None,
        micro_batch_size: Annotated[int, typer.Option(help="Samples per forward.")] = 1,
        global_batch_size: Annotated[int, typer.Option(help="Samples per step.")] = 128,
        train_iters: Annotated[int, typer.Option(help="Steps.")] = 250,
        lr: Annotated[float | None, _opt("Peak learning rate (default: CPT 3e-6, SFT "
                                         "5e-6).")] = None,
        min_lr: Annotated[float | None, _opt("Final learning rate (default lr / 10).")]
        = None,
        warmup_iters: Annotated[int, typer.Option(help="Warmup steps.")] = 10,
        noop_layers: Annotated[int, typer.Option(help="No-op layers appended so that the "
                                                 "layers divide PP x VPP (MindSpeed-LLM).")]
        = 0,
        valid_manifest: Annotated[Path | None, _opt("Held-out CPT export for validation "
                                                    "losses.")] = None,
        hf_model: Annotated[Path | None, _opt("Hugging Face weights to start from "
                                              "(converted to Megatron's layout first).")]
        = None,
        load: Annotated[Path | None, _opt("A Megatron checkpoint to start from instead.")]
        = None,
        save: Annotated[Path, typer.Option(help="Checkpoint folder of the run.")] = Path(
            "checkpoints"),
        save_interval: Annotated[int | None, _opt("Checkpoint every N steps (default: "
                                                  "half the run).")] = None,
        seed: Annotated[int, typer.Option(help="Data order seed (MindSpeed --seed).")] = 1234,
        output: Annotated[Path, typer.Option(help="The script to write.")] = Path(
            f"launch_{engine}.sh"),
    ) -> None:
        _launch(engine, stage=stage, manifests=list(manifest), parallel=parallel,
                model_size=model_size, nodes=nodes, devices_per_node=devices_per_node,
                seq_length=seq_length, micro_batch_size=micro_batch_size,
                global_batch_size=global_batch_size, train_iters=train_iters, lr=lr,
                min_lr=min_lr, warmup_iters=warmup_iters, noop_layers=noop_layers,
                valid_manifest=valid_manifest, hf_model=hf_model, load=load, save=save,
                save_interval=save_interval, seed=seed, output=output)

    what = "MindSpeed-LLM (Ascend NPU)" if engine == "mindspeed" else "Megatron-LM (GPU)"
    cmd.__doc__ = (f"Write a {what} "
                   "launch script: environment, parallel sizes (checked), fused-op flags, data "
                   "paths from the manifest, index map with its ready marker, checkpoint "
                   "conversion.")
    return cmd


launch_app.command("mindspeed")(_launch_cmd("mindspeed"))
launch_app.command("megatron")(_launch_cmd("megatron"))
