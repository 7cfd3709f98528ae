"""The training configuration: one dataclass, filled from defaults, then ``--config
train.yaml``, then the command line, and checked field by field."""

from __future__ import annotations

import dataclasses
import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ortrex.trainers.errors import TrainError

STAGES = ("cpt", "sft")
KERNELS = ("auto", "ortrex", "liger", "eager")


@dataclass
class TrainConfig:
    """Everything one training run needs (YAML keys are these names, ``-`` or ``_``)."""

    stage: str = ""
    data: str = ""  # a prefix, or the "w1 p1 w2 p2 ..." string `ortrex export mix` prints
    valid: dict[str, str] = field(default_factory=dict)  # name -> held-out prefix
    model: str = "v4-small"  # preset, config.json, Hugging Face directory or checkpoint
    kernels: str = "auto"
    output: str | None = None
    seq_length: int = 1024
    micro_batch_size: int = 1
    global_batch_size: int = 8
    train_iters: int = 100
    lr: float = 3.0e-4
    min_lr: float | None = None  # default lr / 10
    warmup_iters: int = 0
    weight_decay: float = 0.01
    adam_beta1: float = 0.9
    adam_beta2: float = 0.999
    adam_eps: float = 1.0e-8
    clip_grad: float = 1.0
    seed: int = 1234
    bf16: bool | None = None  # default: on a GPU
    activation_checkpointing: bool = False
    save_interval: int | None = None  # default: the last step only
    eval_interval: int | None = None  # default: at every checkpoint
    eval_samples: int = 64
    data_workers: int = 1
    peak_tflops: float | None = None
    resume: bool = False

    def check(self) -> TrainConfig:
        """Raise ``TrainError`` naming the first bad field; returns self."""
        if self.stage not in STAGES:
            raise TrainError(f"--stage must be one of {', '.join(STAGES)}, got {self.stage!r}")
        if not self.data.strip():
            raise TrainError("--data is required (an export prefix or the --data-path string "
                             "of `ortrex export mix`)")
        if self.kernels not in KERNELS:
            raise TrainError(f"--kernels must be one of {', '.join(KERNELS)}, got "
                             f"{self.kernels!r}")
        for name in ("seq_length", "micro_batch_size", "global_batch_size", "train_iters",
                     "eval_samples"):
            if int(getattr(self, name)) < 1:
                raise TrainError(f"--{name.replace('_', '-')} must be at least 1, got "
                                 f"{getattr(self, name)}")
        for name in ("save_interval", "eval_interval"):
            v = getattr(self, name)
            if v is not None and v < 1:
                raise TrainError(f"--{name.replace('_', '-')} must be at least 1, got {v}")
        if self.warmup_iters < 0 or self.warmup_iters > self.train_iters:
            raise TrainError(f"--warmup-iters must be between 0 and --train-iters "
                             f"({self.train_iters}), got {self.warmup_iters}")
        if self.lr <= 0 or (self.min_lr is not None and not 0 <= self.min_lr <= self.lr):
            raise TrainError(f"need 0 < --lr and 0 <= --min-lr <= --lr (got lr {self.lr}, "
                             f"min-lr {self.min_lr})")
        if self.clip_grad < 0 or self.weight_decay < 0 or self.data_workers < 0:
            raise TrainError("--clip-grad, --weight-decay and --data-workers must not be "
                             "negative")
        if self.global_batch_size % self.micro_batch_size:
            raise TrainError(f"--global-batch-size {self.global_batch_size} is not a multiple "
                             f"of --micro-batch-size {self.micro_batch_size}")
        for name, prefix in self.valid.items():
            if not name or not str(prefix).strip():
                raise TrainError(f"--valid needs NAME=PREFIX, got {name}={prefix}")
        return self

    @property
    def final_min_lr(self) -> float:
        """The learning rate at the end of the cosine."""
        return self.lr / 10 if self.min_lr is None else self.min_lr

    def identity(self) -> dict[str, Any]:
        """What makes two runs the same run (resume, output folder, run id): everything but
        where it writes, whether it resumes, and how fast it goes."""
        skip = {"output", "resume", "data_workers", "peak_tflops", "kernels"}
        return {k: v for k, v in dataclasses.asdict(self).items() if k not in skip}

    def digest(self) -> str:
        """A short hash of :meth:`identity`."""
        blob = json.dumps(self.identity(), sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:10]

    def output_dir(self) -> Path:
        """``--output``, else ``train-runs/<stage>-<digest>``."""
        return Path(self.output) if self.output else Path("train-runs") / \
            f"{self.stage}-{self.digest()}"


FIELDS = {f.name: f for f in dataclasses.fields(TrainConfig)}


def _coerce(name: str, value: Any, where: str) -> Any:
    """``value`` as the field's type (YAML gives ints for floats, strings for paths)."""
    kind = FIELDS[name].type
    if value is None:
        return None
    try:
        if name == "valid":
            if not isinstance(value, dict):
                raise TypeError("a mapping of name: prefix")
            return {str(k): str(v) for k, v in value.items()}
        if kind in ("int", "int | None"):
            if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
                raise TypeError("an integer")
            return int(value)
        if kind in ("float", "float | None"):
            if isinstance(value, bool):
                raise TypeError("a number")
            return float(value)
        if kind in ("bool", "bool | None"):
            if not isinstance(value, bool):
                raise TypeError("true or false")
            return value
        if not isinstance(value, (str, int, float)):
            raise TypeError("text")
        return str(value)
    except (TypeError, ValueError) as exc:
        msg = exc.args[0] if isinstance(exc, TypeError) else "a number"
        raise TrainError(f"{where}: field {name!r} must be {msg}, got {value!r}") from None


def from_mapping(values: dict[str, Any], where: str, base: TrainConfig | None = None
                 ) -> TrainConfig:
    """``base`` (default: the defaults) with ``values`` applied, each checked by name."""
    cfg = dataclasses.replace(base) if base else TrainConfig()
    for key, value in values.items():
        name = str(key).replace("-", "_")
        if name not in FIELDS:
            raise TrainError(f"{where}: unknown field {key!r}")
        setattr(cfg, name, _coerce(name, value, where))
    return cfg


def load_yaml(path: Path) -> dict[str, Any]:
    """A YAML mapping from ``path`` (one clear line when it is not one)."""
    import yaml

    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise TrainError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        line = f":{mark.line + 1}" if mark is not None else ""
        raise TrainError(f"{path}{line}: not valid YAML ({getattr(exc, 'problem', exc)})"
                         ) from None
    except UnicodeDecodeError:
        raise TrainError(f"{path}: not UTF-8 text") from None
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise TrainError(f"{path}: the configuration must be a mapping of option: value")
    return data


def build_config(yaml_path: Path | None, overrides: dict[str, Any]) -> TrainConfig:
    """Defaults, then the YAML file, then the command line (options left unset are None)."""
    cfg = from_mapping(load_yaml(yaml_path), str(yaml_path)) if yaml_path else TrainConfig()
    given = {k: v for k, v in overrides.items() if v is not None and v != {}}
    return from_mapping(given, "command line", cfg).check()
