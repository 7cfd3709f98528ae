"""Checkpoints with ``torch.distributed.checkpoint``: every rank writes its shards of the model
and optimizer into a temporary folder; rank 0 adds the scheduler, data position, per-rank RNG
states, the model's config.json and the marker, then renames the folder: a checkpoint either is
complete or does not exist (a kill mid-save leaves a ``.tmp`` folder the next run removes)."""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import warnings
from pathlib import Path
from typing import Any

import numpy as np
import torch

from ortrex import __version__
from ortrex.trainers.dist import Dist
from ortrex.trainers.errors import TrainError
from ortrex.trainers.model import CHECKPOINT_MARK

_STEP = re.compile(r"^step_(\d{7})$")
TRAINER = "trainer.json"


def step_dir(root: Path, step: int) -> Path:
    """The folder of the checkpoint after ``step`` steps."""
    return root / f"step_{step:07d}"


def complete(root: Path) -> list[Path]:
    """Complete checkpoints under ``root``, oldest first."""
    if not root.is_dir():
        return []
    found = [p for p in root.iterdir() if p.is_dir() and _STEP.match(p.name)]
    return sorted(found, key=lambda p: int(p.name[5:]))


def clean_partial(root: Path) -> None:
    """Remove what a kill during a save left behind."""
    if root.is_dir():
        for p in root.glob(".step_*.tmp"):
            shutil.rmtree(p, ignore_errors=True)


def _rng() -> dict[str, Any]:
    state = {"torch": torch.get_rng_state(), "numpy": np.random.get_state(),
             "python": random.getstate()}
    if torch.cuda.is_available():
        state["cuda"] = torch.cuda.get_rng_state_all()
    return state


def _set_rng(state: dict[str, Any]) -> None:
    torch.set_rng_state(state["torch"])
    np.random.set_state(state["numpy"])
    random.setstate(state["python"])
    if "cuda" in state and torch.cuda.is_available():
        torch.cuda.set_rng_state_all(state["cuda"])


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_json(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(data, f, indent=2, default=str)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())


def save(root: Path, step: int, model: torch.nn.Module, optimizer: Any, scheduler: Any,
         d: Dist, meta: dict[str, Any], hf_config: Any) -> Path:
    """Save after ``step`` steps (collective: every rank calls it); the final folder."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import get_state_dict

    final = step_dir(root, step)
    tmp = root / f".step_{step:07d}.tmp"
    if d.main:
        shutil.rmtree(tmp, ignore_errors=True)
        tmp.mkdir(parents=True)
    d.barrier()
    msd, osd = get_state_dict(model, optimizer)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        dcp.save({"model": msd, "optim": osd}, checkpoint_id=str(tmp))
    torch.save(_rng(), tmp / f"rng_{d.rank}.pt")
    d.barrier()
    if d.main:
        hf_config.to_json_file(str(tmp / "config.json"))
        _write_json(tmp / TRAINER, {**meta, "step": step, "world_size": d.world,
                                    "scheduler": scheduler.state_dict()})
        _write_json(tmp / CHECKPOINT_MARK, {"format": 1, "ortrex_version": __version__,
                                            "step": step, "run_id": meta.get("run_id"),
                                            "stage": meta.get("stage"),
                                            "tokenizer": meta.get("tokenizer")})
        _fsync_dir(tmp)
        if final.exists():  # the same step saved again by a rerun of a finished run
            shutil.rmtree(final)
        os.replace(tmp, final)
        _fsync_dir(root)
    d.barrier()
    return final


def read_meta(path: Path) -> dict[str, Any]:
    """A checkpoint's trainer state (``TrainError`` when it is not a whole checkpoint)."""
    for need in (CHECKPOINT_MARK, TRAINER, ".metadata", "config.json"):
        if not (path / need).is_file():
            raise TrainError(f"{path}: corrupt checkpoint ({need} is missing)")
    try:
        meta = json.loads((path / TRAINER).read_text(encoding="utf-8"))
        json.loads((path / CHECKPOINT_MARK).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise TrainError(f"{path}: corrupt checkpoint ({exc})") from None
    if not isinstance(meta, dict) or "step" not in meta:
        raise TrainError(f"{path}: corrupt checkpoint ({TRAINER} has no step)")
    return meta


def _dcp_load(state: dict[str, Any], path: Path, partial: bool = False) -> None:
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.api import CheckpointException
    from torch.distributed.checkpoint.default_planner import DefaultLoadPlanner

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            dcp.load(state, checkpoint_id=str(path),
                     planner=DefaultLoadPlanner(allow_partial_load=partial))
    # DCP raises many kinds (pickle, OS, ...), and wraps them in CheckpointException, which
    # is a BaseException.
    except (Exception, CheckpointException) as exc:
        first = str(exc).strip().splitlines()[0][:200] if str(exc).strip() else ""
        raise TrainError(f"{path}: corrupt checkpoint ({type(exc).__name__}: {first})"
                         ) from None


def load_weights(path: Path, model: torch.nn.Module) -> None:
    """The model weights of a checkpoint (any number of ranks wrote it) into ``model``."""
    from torch.distributed.checkpoint.state_dict import get_model_state_dict, set_model_state_dict

    read_meta(path)
    msd = get_model_state_dict(model)
    _dcp_load({"model": msd}, path)
    set_model_state_dict(model, msd)


def load(path: Path, model: torch.nn.Module, optimizer: Any, scheduler: Any, d: Dist
         ) -> dict[str, Any]:
    """Everything of a checkpoint back (collective); its trainer state."""
    import torch.distributed.checkpoint as dcp
    from torch.distributed.checkpoint.state_dict import (
        StateDictOptions,
        get_state_dict,
        set_model_state_dict,
        set_optimizer_state_dict,
    )

    meta = read_meta(path)
    msd, osd = get_state_dict(model, optimizer)
    _dcp_load({"model": msd}, path)
    set_model_state_dict(model, msd)
    # A parameter that never had a gradient (unused by the data so far) has no optimizer
    # state in the checkpoint, while get_state_dict made one for it: load the optimizer
    # partially, then drop the states the checkpoint did not have, as the saved run had none.
    _dcp_load({"optim": osd}, path, partial=True)
    set_optimizer_state_dict(model, optimizer, osd, options=StateDictOptions(strict=False))
    saved = dcp.FileSystemReader(str(path)).read_metadata().state_dict_metadata
    for name, p in model.named_parameters():
        if p in optimizer.state and f"optim.state.{name}.step" not in saved:
            del optimizer.state[p]
    scheduler.load_state_dict(meta["scheduler"])
    for group, lr in zip(optimizer.param_groups, scheduler.get_last_lr(), strict=True):
        group["lr"] = lr
    rng = path / f"rng_{d.rank}.pt"
    if rng.is_file():
        try:
            _set_rng(torch.load(rng, weights_only=False))
        except Exception as exc:  # a damaged pickle
            raise TrainError(f"{rng}: corrupt checkpoint ({type(exc).__name__})") from None
    return meta
