"""What ``ortrex launch`` is asked for, and the exported datasets a launch script reads."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ENGINES = ("mindspeed", "megatron")


@dataclass
class LaunchSpec:
    """What ``ortrex launch`` was asked for."""

    engine: str
    stage: str
    manifests: list[Path]
    parallel: str = "tp=1,pp=1,ep=1,cp=1,vpp=1"
    model_size: str = "v4-flash"
    nodes: int = 1
    devices_per_node: int = 8
    seq_length: int | None = None
    micro_batch_size: int = 1
    global_batch_size: int = 128
    train_iters: int = 250
    lr: float | None = None
    min_lr: float | None = None
    warmup_iters: int = 10
    noop_layers: int = 0
    valid_manifest: Path | None = None
    hf_model: Path | None = None
    load: Path | None = None
    save: Path = Path("checkpoints")
    save_interval: int | None = None
    seed: int = 1234
    output: Path = Path("launch.sh")


@dataclass
class Dataset:
    """One exported dataset as the manifest describes it."""

    prefix: str  # what --data-path names (CPT: _<key>_document; SFT: the export prefix)
    manifest: dict[str, Any]
    path: Path
    weight: float | None = None
    files: list[str] = field(default_factory=list)
