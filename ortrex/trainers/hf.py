"""``ortrex train export-hf``: a checkpoint as a Hugging Face model directory (safetensors,
config.json, generation_config.json, the export's tokenizer), written under a temporary name
and renamed, so a served model (vLLM, SGLang, transformers) can be scored by ``ortrex eval``."""

from __future__ import annotations

import hashlib
import os
import shutil
from pathlib import Path
from typing import Any

import torch

from ortrex.trainers import checkpoint as ckpt
from ortrex.trainers import model as M
from ortrex.trainers import record
from ortrex.trainers.errors import TrainError


def _tokenizer_files(meta: dict[str, Any]) -> list[Path]:
    """The tokenizer the checkpoint's data was exported with (its sha256 checked)."""
    from ortrex.export.errors import ExportError
    from ortrex.export.manifest import sha256_file
    from ortrex.export.tokenizers import load_tokenizer

    tok = meta.get("tokenizer") or {}
    path = Path(tok["file"]) if tok.get("file") else None
    if path is None or not path.is_file():
        try:
            path = Path(load_tokenizer(tok.get("name")).path)
        except ExportError as exc:
            raise TrainError(f"the checkpoint's tokenizer is not here ({exc})") from None
    if tok.get("sha256") and sha256_file(path) != tok["sha256"]:
        raise TrainError(f"{path}: not the tokenizer the training data was exported with "
                         "(sha256 differs from the export manifest)")
    files = [path]
    cfg = path.parent / "tokenizer_config.json"
    if cfg.is_file():
        files.append(cfg)
    return files


def _digest(folder: Path) -> str:
    h = hashlib.sha256()
    for p in sorted(folder.glob("*.safetensors")):
        with open(p, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    return h.hexdigest()


def export_hf(path: Path, out: Path, db: str | None) -> dict[str, Any]:
    """Write the model of checkpoint ``path`` to ``out`` (which must not exist)."""
    meta = ckpt.read_meta(path)
    if out.exists():
        raise TrainError(f"{out}: already exists (give a new directory)")
    if not out.parent.is_dir():
        raise TrainError(f"{out.parent}: the output's parent directory does not exist")
    tok_files = _tokenizer_files(meta)
    tf = M._transformers()
    tf.utils.logging.disable_progress_bar()
    config = M.resolve(str(path)).config
    model = tf.AutoModelForCausalLM.from_config(config, dtype=torch.float32)
    ckpt.load_weights(path, model)
    tmp = out.parent / f".{out.name}.tmp-{os.getpid()}"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        model.config.use_cache = True
        gen = model.generation_config
        tok = meta.get("tokenizer") or {}
        for key, src in (("eos_token_id", "eos_id"), ("pad_token_id", "pad_id")):
            if tok.get(src) is not None:
                setattr(gen, key, int(tok[src]))
        model.save_pretrained(str(tmp), safe_serialization=True)
        for f in tok_files:
            shutil.copyfile(f, tmp / f.name)
        sha = _digest(tmp)
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    info = {"output": str(out), "step": meta["step"], "sha256": sha,
            "parameters": sum(p.numel() for p in model.parameters())}
    cid = meta.get("checkpoint_id")
    if db and cid:
        info["model_id"] = record.model(db, cid, meta.get("run_id"), out, sha)
    return info
