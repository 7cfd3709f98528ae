"""``python -m ortrex`` and the ``ortrex`` command."""

from __future__ import annotations

import os
import signal
import sys


def _early(signum: int, frame: object) -> None:
    # Ctrl-C while the command line is still being imported: nothing has started, nothing
    # to commit or stop (the CLI installs its own handler before any work).
    sys.stderr.write("interrupted; run the same command to continue\n")
    os._exit(130)


def run() -> None:
    """Entry point: a Ctrl-C at any moment, even during the imports, is one clean line."""
    signal.signal(signal.SIGINT, _early)
    signal.signal(signal.SIGTERM, _early)
    from ortrex.cli import main

    raise SystemExit(main())


if __name__ == "__main__":
    run()
