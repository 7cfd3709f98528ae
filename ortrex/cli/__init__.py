"""The ``ortrex`` command line: one sub-command per user job; the work happens elsewhere.

The commands live in modules by group: ``store_cmds`` (init, sql, lineage, info, report),
``model_cmds`` (import-lp, solve, equiv), ``corpus_cmds`` (generate, pipeline, render,
verify, import-seeds, mutate), ``distill_cmds`` (distill, clean), ``eval_cmds``,
``export_cmds`` and ``sandbox_cmds``.
"""

from __future__ import annotations

import os
import sys
import warnings

import typer

from ortrex.cli.app import APP_SETTINGS, UsageError, app


def _user_errors() -> tuple[type[BaseException], ...]:
    """Exception types that mean bad input (reported in one line, exit 2): only those of
    modules the command imported (importing the store to name its error would add ~2 s of
    DuckDB, SQLAlchemy and polars to a command that never touched it, such as a bad `solve`)."""
    from ortrex.ir.formats.errors import ModelFileError, UnsupportedModelError

    errors: list[type[BaseException]] = [ModelFileError, UnsupportedModelError, UsageError]
    if "ortrex.store.errors" in sys.modules:
        errors.append(sys.modules["ortrex.store.errors"].StoreError)
    if "ortrex.jobs.executors" in sys.modules:
        errors.append(sys.modules["ortrex.jobs.executors"].JobError)
    if "ortrex.export.errors" in sys.modules:
        errors.append(sys.modules["ortrex.export.errors"].ExportError)
    if "ortrex.engine.ingest.seeds" in sys.modules:
        errors.append(sys.modules["ortrex.engine.ingest.seeds"].SeedFileError)
    if "ortrex.benchmarks.base" in sys.modules:
        errors.append(sys.modules["ortrex.benchmarks.base"].BenchmarkError)
    if "ortrex.trainers.errors" in sys.modules:
        errors.append(sys.modules["ortrex.trainers.errors"].TrainError)
    if "ortrex.served.client" in sys.modules:
        errors.append(sys.modules["ortrex.served.client"].EndpointError)
    if "ortrex.plugins" in sys.modules:
        errors.append(sys.modules["ortrex.plugins"].PluginError)
    if "ortrex.kernels.registry" in sys.modules:
        errors.append(sys.modules["ortrex.kernels.registry"].KernelBackendError)
    return tuple(errors)


# Registration order is the order of `ortrex --help`.
from ortrex.cli import (  # noqa: E402, F401
    corpus_cmds,
    distill_cmds,
    eval_cmds,
    export_cmds,
    kernel_cmds,
    model_cmds,
    sandbox_cmds,
    store_cmds,
    train_cmds,
)

INTERRUPTED = "interrupted; run the same command to continue"


def _on_signal(signum: int, frame: object) -> None:
    """The first Ctrl-C or SIGTERM stops the command where it is (jobs commit what is finished
    and stop their workers); later ones are ignored while that clean-up, which is bounded in
    time, runs."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    from ortrex.jobs.failures import Interrupted, mark_signalled

    mark_signalled()
    raise Interrupted(INTERRUPTED)


_PLAIN_SHOWWARNING = warnings.showwarning


def _show_warning(message: Warning | str, category: type[Warning], filename: str, lineno: int,
                  file: object = None, line: str | None = None) -> None:
    """Warnings about a user's files are one ``warning: ...`` line on stderr (no source
    location: it is the file, not our code, that is being talked about)."""
    from ortrex.ir.formats.errors import ModelFileWarning

    if issubclass(category, ModelFileWarning):
        print(f"warning: {message}", file=sys.stderr)
    else:
        _PLAIN_SHOWWARNING(message, category, filename, lineno, file, line)


def _interrupted(exc: BaseException, kind: type[BaseException]) -> bool:
    """Whether ``exc`` is, or was raised because of, a Ctrl-C: a signal landing inside an
    import can come back wrapped (Python reports an exception in ``__set_name__`` as a
    RuntimeError caused by it)."""
    seen: set[int] = set()
    cur: BaseException | None = exc
    while cur is not None and id(cur) not in seen:
        if isinstance(cur, (kind, KeyboardInterrupt)):
            return True
        seen.add(id(cur))
        cur = cur.__cause__ or cur.__context__
    return False


def _app_for(args: list[str]) -> typer.Typer:
    """The app holding only the command ``args`` run, where that is plain: typer builds the
    parameters of every registered command before it runs one (~70 ms for all of ours); the
    whole app for help, ``--version``, a misspelt command or none."""
    from typer.main import get_command_name

    rest = iter(args)
    for arg in rest:
        if arg == "--db":
            next(rest, None)
        elif not (arg == "--debug" or arg.startswith("--db=")):
            break
    else:
        return app
    commands = [c for c in app.registered_commands
                if (c.name or get_command_name(c.callback.__name__)) == arg]  # type: ignore[union-attr]
    groups = [g for g in app.registered_groups if g.name == arg]
    if not commands and not groups:
        return app
    one = typer.Typer(**APP_SETTINGS)  # type: ignore[arg-type]
    one.registered_callback = app.registered_callback
    one.registered_commands, one.registered_groups = commands, groups
    return one


def main(argv: list[str] | None = None) -> int:
    """Entry point: user errors print one line and exit 2; ``--debug`` shows tracebacks;
    Ctrl-C prints one line and exits 130."""
    import signal

    args = sys.argv[1:] if argv is None else argv
    debug = "--debug" in args or os.environ.get("ORTREX_DEBUG") == "1"
    # Raised as our own exception, not KeyboardInterrupt: click would swallow that into a
    # blank line (and typer's exit code), the message never printed.
    from ortrex.jobs.failures import mark_signalled, signalled

    mark_signalled(False)
    signal.signal(signal.SIGINT, _on_signal)
    signal.signal(signal.SIGTERM, _on_signal)
    warnings.showwarning = _show_warning
    try:
        # Standalone mode: typer reports usage errors itself (exit 2) and exits via SystemExit.
        _app_for(args)(args=args, prog_name="ortrex")
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    except KeyboardInterrupt:
        print(INTERRUPTED, file=sys.stderr)
        return 130
    except Exception as exc:
        from ortrex.jobs.driver import Interrupted

        if _interrupted(exc, Interrupted) or signalled():
            print(INTERRUPTED, file=sys.stderr)
            return 130
        if debug:
            raise
        if isinstance(exc, _user_errors()):
            print(f"error: {exc}", file=sys.stderr)
            return 2
        from ortrex.cli.options import EnvironmentFailure

        if isinstance(exc, EnvironmentFailure):  # the job ran, and the machine defeated it
            print(f"error: {exc}", file=sys.stderr)
            return 1
        print(f"internal error: {type(exc).__name__}: {exc} (run with --debug for the traceback)",
              file=sys.stderr)
        return 1
    return 0
