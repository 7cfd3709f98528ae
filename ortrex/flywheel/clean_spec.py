"""What ``ortrex clean`` is asked for: the branches, the repair mode, the endpoint and models,
and the run id they make. Read by the job (``flywheel.clean``) and by one answer's rounds
(``flywheel.rounds``)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ortrex.flywheel.distill import Served
from ortrex.jobs import JobError
from ortrex.store.ids import content_id

BRANCHES = ("clean", "clean_cot")
REPAIRS = ("auto", "deterministic", "served")


@dataclass
class CleanSpec:
    """How answers are cleaned."""

    served: Served | None = None  # the endpoint (None: deterministic repairs, verifier review)
    model: str | None = None  # the repairing model
    reviewer: str | None = None  # the reviewing model (default: ``model``)
    branches: tuple[str, ...] = BRANCHES
    repair: str = "auto"
    where: str | None = None  # SQL filter over the answers
    limit: int | None = None
    max_rounds: int = 3
    workers: int = 2
    exec_timeout: float = 60.0
    temperature: float = 0.0
    max_tokens: int = 8192
    seed: int = 42

    def __post_init__(self) -> None:
        for b in self.branches:
            if b not in BRANCHES:
                raise JobError(f"unknown branch {b!r}; expected some of {', '.join(BRANCHES)}")
        if not self.branches:
            raise JobError("give at least one branch")
        if self.repair not in REPAIRS:
            raise JobError(f"unknown --repair {self.repair!r}; expected one of "
                           f"{', '.join(REPAIRS)}")
        if self.max_rounds < 1:
            raise JobError(f"--max-rounds must be at least 1, got {self.max_rounds}")
        if (self.served is None) != (self.model is None):
            raise JobError("give both --base-url and --model, or neither")
        if self.repair == "served" and self.served is None:
            raise JobError("--repair served needs a served model (--base-url and --model)")

    def settings(self) -> dict[str, Any]:
        """What makes two runs the same run."""
        return {"base_url": self.served.base_url.rstrip("/") if self.served else None,
                "model": self.model, "reviewer": self.reviewer or self.model,
                "branches": list(self.branches), "repair": self.repair, "where": self.where,
                "limit": self.limit, "max_rounds": self.max_rounds,
                "exec_timeout": self.exec_timeout, "temperature": self.temperature,
                "max_tokens": self.max_tokens, "seed": self.seed}

    @property
    def run_id(self) -> str:
        """Content-derived: the same command is the same run."""
        return content_id("run", "clean", self.settings())
