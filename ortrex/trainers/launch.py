"""``ortrex launch mindspeed|megatron``: a launch script for the engines that train the big
models, fed by export manifests, every size checked first (``shapes.check``).

What the generated scripts do differently from the public SLAI-T-Rex ones (spec §5 of the
MindSpeed formats reference): no ``--fix-router`` (it replaces learned routing with round
robin); no ``--ckpt-step`` (a restart resumes from ``--save``'s own latest iteration, with
optimizer and RNG saved and loaded, while the first start loads the base weights with
``--finetune --no-load-optim --no-load-rng``); data are ortrex exports checked file by file
before launch (no convert_data.sh, SFT ``--data-path`` is the prefix without ``_packed_`` and
without a weight); a CPT export that dropped long documents is reported; the SFT index map is
built by ``python -m ortrex export indexmap`` (no script path to get wrong) on node 0 from the
``.idx`` sequence count and the other nodes wait for its ``.ready`` marker; the data cache path
is passed (not deleted and never used); ``--sequence-parallel`` only with TP > 1; ``set -euo
pipefail`` so a missing variable stops the script; ``torchrun`` rather than the deprecated
``torch.distributed.launch``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ortrex.trainers.errors import TrainError
from ortrex.trainers.launch_spec import ENGINES, Dataset, LaunchSpec
from ortrex.trainers.shapes import check, load_shape, parse_parallel


def _read_manifest(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TrainError(f"{path}: cannot read ({exc.strerror or exc})") from None
    except ValueError as exc:
        raise TrainError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise TrainError(f"{path}: not a manifest")
    return data


def _export_of(path: Path) -> str:
    name = path.name
    if not name.endswith(".manifest.json"):
        raise TrainError(f"{path}: an export manifest is named PREFIX.manifest.json")
    return str(path.with_name(name[: -len(".manifest.json")]).resolve())


def _datasets(path: Path, stage: str) -> list[Dataset]:
    """The datasets a manifest (or an `ortrex export mix` mixture.json) describes."""
    data = _read_manifest(path)
    if "sources" in data and "data_path" in data:  # a mixture
        out = []
        for s in data["sources"]:
            # `ortrex export mix` wrote source NAME as NAME_<key>_document beside NAME.
            mpath = Path(str(s["prefix"])).parent / f"{s['name']}.manifest.json"
            if not mpath.is_absolute() and not mpath.is_file():
                mpath = path.parent / mpath.name
            ds = _datasets(mpath, stage)
            for d in ds:
                d.weight = float(s["weight"])
            out += ds
        return out
    kind = data.get("kind")
    export = _export_of(path)
    files = sorted((data.get("files") or {}).keys())
    if kind != stage:
        raise TrainError(f"{path}: a {kind} export; launch it with --stage {kind}"
                         if kind in ("cpt", "sft") else f"{path}: not an export manifest "
                         "(no kind cpt or sft)")
    for f in files:
        if f.endswith((".bin", ".idx")) and not (path.parent / f).is_file():
            raise TrainError(f"{path.parent / f}: missing (listed in {path.name})")
    if kind == "sft":
        return [Dataset(export, data, path, files=files)]
    keys = (data.get("options") or {}).get("keys") or ["text"]
    return [Dataset(f"{export}_{k}_document", data, path, files=files) for k in keys]


def _notes(datasets: list[Dataset], stage: str, seq: int) -> list[str]:
    """What the manifests say that a user should know before training."""
    notes = []
    for d in datasets:
        counts, opts = d.manifest.get("documents") or {}, d.manifest.get("options") or {}
        if counts.get("dropped (too long)"):
            notes.append(f"{d.path.name}: {counts['dropped (too long)']:,} documents were "
                         "dropped at export for being too long; export with --long split to "
                         "keep them")
        if stage == "sft" and not opts.get("enable_thinking"):
            notes.append(f"{d.path.name}: exported in chat mode, so reasoning inside "
                         "assistant turns is not in the targets (export with "
                         "--enable-thinking to train on it)")
        if stage == "sft" and opts.get("pack") and opts.get("seq_length") != seq:
            raise TrainError(f"{d.path.name}: packed at {opts.get('seq_length')} tokens; "
                             f"launch with --seq-length {opts.get('seq_length')}")
    return notes


def _tokenizer_dir(datasets: list[Dataset]) -> str:
    tok = datasets[0].manifest.get("tokenizer") or {}
    if tok.get("file"):
        return str(Path(tok["file"]).parent)
    raise TrainError(f"{datasets[0].path}: the manifest names no tokenizer file")


def plan(spec: LaunchSpec) -> dict[str, Any]:
    """Everything the script needs, checked (``TrainError`` on the first problem)."""
    if spec.engine not in ENGINES:
        raise TrainError(f"unknown engine {spec.engine!r}; expected one of {', '.join(ENGINES)}")
    if spec.stage not in ("cpt", "sft"):
        raise TrainError(f"--stage must be cpt or sft, got {spec.stage!r}")
    if spec.engine == "megatron" and spec.stage == "sft":
        raise TrainError("Megatron-LM cannot read packed SFT datasets (its --sft path "
                         "tokenizes JSONL itself); launch SFT with `ortrex launch mindspeed "
                         "--stage sft` or train it with `ortrex train --stage sft`")
    if not spec.manifests:
        raise TrainError("give --manifest P.manifest.json")
    for name in ("nodes", "devices_per_node", "train_iters", "warmup_iters"):
        if getattr(spec, name) < (0 if name == "warmup_iters" else 1):
            raise TrainError(f"--{name.replace('_', '-')} must be positive, got "
                             f"{getattr(spec, name)}")
    if spec.noop_layers < 0:
        raise TrainError(f"--noop-layers must not be negative, got {spec.noop_layers}")
    datasets = [d for m in spec.manifests for d in _datasets(m, spec.stage)]
    if spec.stage == "sft" and len(datasets) > 1:
        raise TrainError("MindSpeed-LLM's SFT reads one dataset (data_path[0]); mix SFT "
                         "sources into one export")
    shape = load_shape(spec.model_size)
    opts = datasets[0].manifest.get("options") or {}
    seq = spec.seq_length or opts.get("seq_length") or 4096
    par = parse_parallel(spec.parallel, spec.nodes * spec.devices_per_node)
    check(shape, par, engine=spec.engine, seq_length=seq, micro=spec.micro_batch_size,
          global_batch=spec.global_batch_size, noop_layers=spec.noop_layers)
    vocab = max(int((d.manifest.get("tokenizer") or {}).get("vocab_size") or 0)
                for d in datasets)
    if vocab > shape.vocab:
        raise TrainError(f"the export's tokenizer has {vocab:,} tokens, the model "
                         f"{shape.name} {shape.vocab:,}: ids would not fit")
    valid = _datasets(spec.valid_manifest, "cpt") if spec.valid_manifest else []
    if valid and spec.stage == "sft":
        raise TrainError("--valid-manifest is for CPT; MindSpeed-LLM's SFT validates on a "
                         "--split of its one dataset")
    if spec.engine == "megatron" and shape.deepseek_v4 and spec.hf_model:
        raise TrainError("DeepSeek-V4 weights do not load into Megatron-LM's GPT (it has no "
                         "V4 attention, mHC or hash routing); launch V4 with `ortrex launch "
                         "mindspeed`")
    if spec.load and spec.hf_model:
        raise TrainError("give --hf-model (converted first) or --load, not both")
    if spec.save_interval is not None and spec.save_interval < 1:
        raise TrainError(f"--save-interval must be at least 1, got {spec.save_interval}")
    weights = [d.weight for d in datasets]
    if len(datasets) > 1 and any(w is None for w in weights):
        weights = [float(d.manifest.get("tokens") or 1) for d in datasets]
    data_path = " ".join(f"{w:g} {d.prefix}" for w, d in zip(weights, datasets, strict=True)) \
        if len(datasets) > 1 else datasets[0].prefix
    lr = spec.lr if spec.lr is not None else (3.0e-6 if spec.stage == "cpt" else 5.0e-6)
    notes = _notes(datasets, spec.stage, seq)
    if spec.engine == "megatron" and shape.deepseek_v4:
        notes.append("Megatron-LM has no DeepSeek-V4 attention (sliding/CSA/HCA with the "
                     "indexer), mHC or hash routing: this script trains an MLA + MoE GPT of "
                     "V4's sizes, and V4 weights do not load into it; train V4 itself with "
                     "`ortrex launch mindspeed`")
    return {"spec": spec, "shape": shape, "par": par, "seq": seq, "datasets": datasets,
            "valid": valid, "data_path": data_path, "lr": lr,
            "min_lr": spec.min_lr if spec.min_lr is not None else lr / 10,
            "tokenizer": _tokenizer_dir(datasets), "notes": notes,
            "save_interval": spec.save_interval or max(spec.train_iters // 2, 1)}


def write_launch(spec: LaunchSpec) -> tuple[Path, list[str]]:
    """Check, render and write the script atomically (executable); (path, notes)."""
    from ortrex.trainers.launch_script import render

    p = plan(spec)
    text = render(p)
    out = spec.output
    if not out.parent.is_dir():
        raise TrainError(f"{out.parent}: the output directory does not exist")
    tmp = out.with_name(f".{out.name}.tmp-{os.getpid()}")
    tmp.write_text(text, encoding="utf-8")
    mask = os.umask(0)
    os.umask(mask)
    os.chmod(tmp, 0o777 & ~mask)
    os.replace(tmp, out)
    return out, p["notes"]


__all__ = ["ENGINES", "LaunchSpec", "plan", "write_launch"]
