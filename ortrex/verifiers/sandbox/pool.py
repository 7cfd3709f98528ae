"""SandboxPool: one warm sandbox per thread, for the jobs that score served models' programs."""

from __future__ import annotations

import threading
from typing import Any

from ortrex.verifiers.sandbox.server import Sandbox


class SandboxPool:
    """One warm sandbox per scoring thread."""

    def __init__(self) -> None:
        self.local = threading.local()
        self.all: list[Any] = []
        self.lock = threading.Lock()

    def get(self) -> Any:
        """This thread's sandbox."""
        sb = getattr(self.local, "sb", None)
        if sb is None or sb.proc.poll() is not None:  # none yet, or its fork server died
            sb = Sandbox()
            self.local.sb = sb
            with self.lock:
                self.all.append(sb)
        return sb

    def close(self) -> None:
        """Stop every sandbox."""
        for sb in self.all:
            sb.close()
