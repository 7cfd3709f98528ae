"""A program to run in the sandbox (``Job``) and what happened to it (``RunResult``)."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from ortrex.verifiers.sandbox.isolation import Limits

# capture_status values: the model the program left was captured (``ok``); it left none
# (``none``); it ended before the capture ran (``absent``: os._exit, a crash, a kill, the time
# limit); the capture was refused while its threads still ran (``refused``); it imitated a
# solver model or wrote to the capture channel (``forged``); writing the model failed
# (``error``); every model it solved was over the file limit (``too_large``); a solve with a
# callback left no model with the callback's rows (``unsupported``); no capture was asked for
# (``off``).
CAPTURE_STATUSES = ("ok", "none", "absent", "refused", "forged", "error", "too_large",
                    "unsupported", "off")


@dataclass
class RunResult:
    """What happened to one program."""

    # ok | error | timeout | cpu_limit | memory_limit | output_limit | disk_limit | killed
    status: str
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    captured: bytes | None = None  # MPS text of the model the program left (capture "ok")
    truncated: bool = False
    isolation: dict[str, str] = field(default_factory=dict)
    # The captured model's state as the program's process reported it (solver, status,
    # objective): informational only, the parent re-solves the model itself.
    state: dict[str, Any] | None = None
    files: dict[str, bytes] = field(default_factory=dict)  # the job's ``collect`` outputs
    capture_status: str = "off"
    capture_detail: str = ""
    # Capture at solve: the MPS text of every model the program solved, in order (``captured``
    # is the first), and what else the frames said ("licence refused the solve", a model over
    # the file limit).
    captures: list[bytes] = field(default_factory=list)
    capture_notes: list[str] = field(default_factory=list)
    # Names the model file could not hold as the program gave them (control characters,
    # spaces): the safe name the captured model uses -> the program's own name (data only).
    renamed: dict[str, str] = field(default_factory=dict)
    # Capture at solve: the program's own (objective, bound) of each captured model where its
    # solve was optimal, else None. Never a score: only a disagreement with the parent's
    # re-solve is used (it shows the capture missed part of what the solver solved).
    solved: list[tuple[float, float] | None] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly (the captured model and collected files as their sizes)."""
        d = asdict(self)
        d["captured"] = None if self.captured is None else len(self.captured)
        d["captures"] = [len(c) for c in self.captures]
        d["files"] = {k: len(v) for k, v in self.files.items()}
        return d


def _plain(name: str, what: str, nested: bool) -> None:
    parts = name.split("/")
    if not name or name == "main.py" or any(not p or p.startswith(".") for p in parts) or \
            (not nested and len(parts) > 1):
        raise ValueError(f"{what} name {name!r} must be a plain relative "
                         f"{'path' if nested else 'file name'}")


@dataclass(frozen=True)
class Job:
    """A program, its data files and limits."""

    code: str
    files: dict[str, str | bytes] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    capture: bool = True
    collect: tuple[str, ...] = ()  # files the program writes that come back (e.g. model.lp)
    # "end": the model the program left (what the scorer and the rendered documents use);
    # "solve": every model, at the moment the program asks a solver to solve it (seeds).
    capture_at: str = "end"
    args: tuple[str, ...] = ()  # the program's command-line arguments

    def __post_init__(self) -> None:
        for name in self.files:
            _plain(name, "data file", nested=True)
        for name in self.collect:
            _plain(name, "collected file", nested=False)
        if self.capture_at not in ("end", "solve"):
            raise ValueError(f"capture_at must be 'end' or 'solve', not {self.capture_at!r}")
        if not all(isinstance(a, str) and "\0" not in a for a in self.args):
            raise ValueError("program arguments must be text without NUL characters")
