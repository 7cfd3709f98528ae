"""Running untrusted Python programs: a warm fork server and a cold subprocess, same isolation.

Each run gets its own supervisor (``supervisor``), which confines the program (``isolation``:
namespaces and a minimal root, Landlock, seccomp, cgroups, rlimits, an allow-listed
environment), enforces the time limit and collects what came back; the program's model is
captured by the in-sandbox harness (``harness``) and re-checked by the caller, never believed.

The warm pool is a fork server: a process that has imported numpy, gurobipy and highspy once.
Right after those imports, before it has seen any job, it forks a *template*; every run's
supervisor is a fresh fork of that template, so a program's process holds the preloaded
modules and its own job, never a trace of an earlier job or result. The server itself (which
does see every job) only creates the run's cgroups, hands the template two pipes, and reads
the result back.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import select
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from typing import NoReturn

from ortrex.verifiers.sandbox import cgroups, isolation, syscalls
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.programs import CAPTURE_STATUSES, Job, RunResult
from ortrex.verifiers.sandbox.supervisor import RunSpec, receive, send, supervise

# What the warm server imports before forking. Every fork copies the server's page tables, so
# this is kept to what generated programs use (pandas and scipy would double the fork cost);
# a program importing anything else pays for that import itself.
PRELOAD = ("numpy", "gurobipy", "highspy")
PRELOAD_SEEDS = (*PRELOAD, "pandas")  # external seed programs often read CSV with pandas
_GRACE_S = 30.0  # beyond the wall limit, how long a supervisor may take to report
# How long the caller waits for the fork server: its start (the preload imports), and the
# template's answer to "fork a supervisor" (a fork, so seconds at most). The caller's wait for
# a run's result allows the server's own wall + grace on the supervisor, and the template's
# deadline, and one more grace on top (a loaded machine), before it deems the server stuck.
HANDSHAKE_S = 120.0
TEMPLATE_S = 20.0
_WARNED = False

__all__ = ["CAPTURE_STATUSES", "PRELOAD", "PRELOAD_SEEDS", "Job", "Limits", "RunResult",
           "Sandbox", "run_cold"]


def hidden_paths() -> tuple[str, ...]:
    """Host paths no program may read even where a visible directory holds them: the
    benchmark data (ground truths, reference LPs)."""
    from ortrex.paths import benchmarks_dir

    found = [str(benchmarks_dir() or ""), os.environ.get("ORTREX_BENCHMARKS", "")]
    return tuple(sorted({os.path.realpath(p) for p in found if p}))


def server_env() -> dict[str, str]:
    """The fork server's whole environment (every program's memory starts as a copy of it)."""
    env = {k: os.environ[k] for k in isolation.SERVER_ENV_KEYS if k in os.environ}
    env.update(OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1", MKL_NUM_THREADS="1",
               PYTHONDONTWRITEBYTECODE="1")
    return env


def _spec(job: Job, root: str | None, p: isolation.Plan) -> tuple[RunSpec, cgroups.RunCgroup]:
    cg = cgroups.create(job.limits.memory_mb, job.limits.max_procs)
    return RunSpec(job, p, cg, root), cg


def _exchange(spec: RunSpec, spec_w: int, res_r: int, pid: int) -> RunResult:
    """Send the spec to a supervisor, wait for its result (bounded), clean up."""
    deadline = time.monotonic() + spec.job.limits.wall_s + _GRACE_S
    try:
        with contextlib.suppress(BrokenPipeError):
            send(spec_w, spec)
        result = receive(res_r, deadline)
        if not isinstance(result, RunResult):
            raise EOFError
        return result
    except TimeoutError:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.kill(pid, signal.SIGKILL)  # still running, so the PID is still its own
        return RunResult("error", None, "", "sandbox failure: the supervisor did not report",
                         spec.job.limits.wall_s + _GRACE_S)
    except EOFError:
        return RunResult("error", None, "", "sandbox failure: the supervisor died", 0.0)
    finally:
        os.close(spec_w)
        os.close(res_r)
        cgroups.kill(spec.cgroup)
        cgroups.remove(spec.cgroup)


_TEMPLATE_GONE = "sandbox failure: the sandbox template"  # every TemplateDied result


class TemplateDied(RuntimeError):
    """The warm server's template is gone: the server stops, to be started afresh."""


# ---------------------------------------------------------------- the clean template
def _template(sock: socket.socket) -> NoReturn:
    """Fork one supervisor per request; it never sees a job (supervisors read their own)."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)  # the server's pipes to its parent stay with the server
    os.close(null)
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # supervisors are reaped by the kernel
    while True:
        try:
            msg, fds, _, _ = socket.recv_fds(sock, 16, 2)
        except OSError:
            os._exit(0)
        if not msg or len(fds) != 2:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            signal.signal(signal.SIGCHLD, signal.SIG_DFL)
            sock.close()
            supervise(fds[0], fds[1])
        for fd in fds:
            os.close(fd)
        sock.sendall(struct.pack("<q", pid))


def _run_warm(sock: socket.socket, job: Job, root: str | None, p: isolation.Plan) -> RunResult:
    spec, cg = _spec(job, root, p)
    spec_r, spec_w = os.pipe()
    res_r, res_w = os.pipe()
    try:
        try:
            # The socket's timeout (the template deadline, set in serve) bounds both calls.
            socket.send_fds(sock, [b"run"], [spec_r, res_w])
            reply = sock.recv(8)
        except TimeoutError:
            raise TemplateDied(f"the sandbox template did not answer within "
                               f"{sock.gettimeout():g} s") from None
        except OSError:
            reply = b""
        if len(reply) != 8:
            raise TemplateDied("the sandbox template died")
        (pid,) = struct.unpack("<q", reply)
    except BaseException:
        for fd in (spec_w, res_r):
            os.close(fd)
        cgroups.remove(cg)
        raise
    finally:
        os.close(spec_r)
        os.close(res_w)
    return _exchange(spec, spec_w, res_r, pid)


def serve() -> None:
    """Fork-server loop on stdin/stdout: its settings (preload, mode, hidden paths) first, then
    one pickled (Job, root) in, one RunResult out. (Settings come through the pipe, not argv:
    a program's /proc/1/cmdline is the server's.)"""
    import importlib

    preload, mode, hidden, template_s = receive(0)
    for name in preload:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    p = isolation.plan(mode, hidden)
    if p.seccomp:
        syscalls.program_filter()  # built once here, loaded in every program's process
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    template = os.fork()
    if template == 0:
        ours.close()
        _template(theirs)
    theirs.close()
    ours.settimeout(template_s)
    sys.stdout = sys.stderr  # stray prints of the server must not corrupt the pipe
    send(1, ("ready", isolation.support(p)))
    while True:
        try:
            job, root = receive(0)
        except EOFError:
            cgroups.remove_left()
            return
        try:
            result = _run_warm(ours, job, root, p)
        except TemplateDied as exc:  # the caller starts a new server (see SandboxPool)
            # A stuck (stopped) template never reads the closed socket: kill it, not leave it.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(template, signal.SIGKILL)  # unreaped, so the PID is still its own
            with contextlib.suppress(BrokenPipeError):
                send(1, RunResult("error", None, "", f"sandbox failure: {exc}", 0.0))
            cgroups.remove_left()
            return
        except Exception as exc:
            result = RunResult("error", None, "", f"sandbox failure: {exc}", 0.0)
        try:
            send(1, result)
        except BrokenPipeError:  # the caller is gone (stopped mid-run): so is the server
            cgroups.remove_left()
            return


class Sandbox:
    """A warm fork server (one program at a time; make one per worker). ``mode`` forces a
    weaker isolation mode than the machine's best (tests and benchmarks compare them)."""

    def __init__(self, preload: tuple[str, ...] = PRELOAD, root: str | None = None,
                 mode: str | None = None, handshake_s: float = HANDSHAKE_S,
                 template_s: float = TEMPLATE_S) -> None:
        self.root = root
        self.template_s = template_s
        hidden = hidden_paths()
        # The server's stderr goes to a file, not the user's terminal: a server that cannot
        # start (a broken site hook, a missing library) is then one line in the error below
        # instead of a Python fatal-error dump per worker.
        self._err = tempfile.TemporaryFile()  # noqa: SIM115 (lives as long as the server)
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from ortrex.verifiers.sandbox.server import serve; serve()"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._err,
            start_new_session=True, env=server_env())
        self.lock = threading.Lock()
        self._to = self.proc.stdin.fileno()  # type: ignore[union-attr]
        self._from = self.proc.stdout.fileno()  # type: ignore[union-attr]
        why = "did not start"
        try:
            send(self._to, (tuple(preload), mode, hidden, template_s))
            hello, self.isolation = receive(self._from, time.monotonic() + handshake_s)
        except TimeoutError:  # before OSError: it is one
            hello, why = None, f"did not start within {handshake_s:g} s"
        except (EOFError, ValueError, OSError, pickle.UnpicklingError):
            hello = None
        if hello != "ready":
            self._kill()
            cause = self._last_error()
            raise RuntimeError(f"sandbox fork server {why}" + (f": {cause}" if cause else ""))
        _warn_once(self.isolation)

    def run(self, job: Job) -> RunResult:
        """Run one program in a fresh supervisor forked from the clean template."""
        # The server bounds the supervisor (wall + grace) and the template (template_s); this
        # bounds the server itself, one more grace on top, so a stuck server is an error
        # result (and a dead server, restarted by the pool) rather than a hang.
        wait_s = job.limits.wall_s + 2 * _GRACE_S + self.template_s
        with self.lock:
            if self.proc.poll() is not None:
                cause = self._last_error()
                raise RuntimeError(f"sandbox fork server died (exit {self.proc.returncode})"
                                   + (f": {cause}" if cause else ""))
            t0 = time.monotonic()
            deadline = t0 + wait_s
            try:
                _send_by(self._to, (job, self.root), deadline)
                result = receive(self._from, deadline)
            except TimeoutError:
                self._kill()
                return RunResult("error", None, "", f"sandbox failure: the fork server did "
                                 f"not answer within {wait_s:g} s", time.monotonic() - t0)
            except (EOFError, OSError, ValueError, pickle.UnpicklingError):
                self._kill()
                return RunResult("error", None, "", "sandbox failure: the fork server died "
                                 "mid-run", time.monotonic() - t0)
            if not isinstance(result, RunResult):
                self._kill()
                return RunResult("error", None, "", "sandbox failure: the fork server "
                                 "answered no result", time.monotonic() - t0)
            if result.stderr.startswith(_TEMPLATE_GONE):
                self._kill()  # it is exiting (TemplateDied): make it dead now, for the pool
            return result

    def _last_error(self) -> str:
        """The last line the server wrote to stderr (its exception), if any."""
        with contextlib.suppress(OSError):
            self._err.seek(max(self._err.seek(0, os.SEEK_END) - 4096, 0))
            lines = [ln.strip() for ln in self._err.read().decode(errors="replace").splitlines()]
            return next((ln for ln in reversed(lines) if ln), "")[:300]
        return ""

    def _kill(self) -> None:
        """Kill the server's whole process group (server and template; supervisors have
        their own sessions and end with their own deadlines) and reap the server."""
        if self.proc.poll() is None:
            # Not yet reaped, so the group (its PID: start_new_session) is still its own.
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            with contextlib.suppress(OSError):
                pipe.close()  # type: ignore[union-attr]

    def close(self) -> None:
        """Stop the server (its template follows when the socket closes)."""
        if self.proc.poll() is None:
            with contextlib.suppress(OSError):
                self.proc.stdin.close()  # type: ignore[union-attr]
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        with contextlib.suppress(OSError):
            self._err.close()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _warn_once(iso: dict[str, str]) -> None:
    global _WARNED
    missing = isolation.gaps(iso)
    if missing and not _WARNED:
        _WARNED = True
        print(f"ortrex sandbox: weak or no isolation of {', '.join(missing)} on this machine; "
              "`ortrex doctor` says what is missing", file=sys.stderr)


def _send_by(fd: int, obj: object, deadline: float) -> None:
    """``send`` that gives up (``TimeoutError``) at ``deadline``: a stopped reader with a full
    pipe would block a plain write forever."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([], [fd], [], left)[1]:
            raise TimeoutError
        # Writable means a page is free: a write of at most PIPE_BUF cannot block then.
        view = view[os.write(fd, view[:select.PIPE_BUF]):]


# ---------------------------------------------------------------- cold runs
def run_cold(job: Job, root: str | None = None, mode: str | None = None) -> RunResult:
    """The same isolation with a new ``python`` process per run (the baseline)."""
    spec, _ = _spec(job, root, isolation.plan(mode, hidden_paths()))
    spec_r, spec_w = os.pipe()
    res_r, res_w = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-c", "from ortrex.verifiers.sandbox.supervisor import cold_main; "
             "cold_main()"], stdin=spec_r, stdout=res_w, stderr=subprocess.DEVNULL,
            env=server_env(), start_new_session=True)
    except BaseException:
        for fd in (spec_w, res_r):
            os.close(fd)
        cgroups.remove(spec.cgroup)
        raise
    finally:
        os.close(spec_r)
        os.close(res_w)
    try:
        return _exchange(spec, spec_w, res_r, proc.pid)
    finally:
        proc.wait()
