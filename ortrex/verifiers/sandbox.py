"""Running untrusted Python programs: a warm fork server and a cold subprocess, same isolation.

Each program runs in a fresh temporary directory holding its data files, in its own session and
process group, inside new user / network / PID namespaces and under Landlock and rlimits where
the kernel allows (``isolation.support()`` says what this machine gives; every result carries
it). A wall-clock timeout kills the whole group; stdout and stderr are kept up to a cap. After
the program ends, the model it built (a gurobipy ``Model`` or a highspy ``Highs`` among its
globals, ``model`` / ``h`` first) is written out as MPS from inside the sandbox: the captured
model, compared with the instance by the equivalence checker.

The warm pool is a fork server: a process that has already imported numpy, gurobipy and highspy
forks one child per program, so a small program costs a fork instead of an interpreter start.
"""

from __future__ import annotations

import contextlib
import json
import os
import pickle
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from ortrex.verifiers import isolation
from ortrex.verifiers.isolation import Limits

CAPTURE_FILE = "__captured_model__.mps"
STATE_FILE = "__captured_state__.json"  # the captured model's solve status and objective
# What the warm server imports before forking. Every fork copies the server's page tables, so
# this is kept to what generated programs use (pandas and scipy would double the fork cost);
# a program importing anything else pays for that import itself.
PRELOAD = ("numpy", "gurobipy", "highspy")
PRELOAD_SEEDS = (*PRELOAD, "pandas")  # external seed programs often read CSV with pandas
_WARNED = False


@dataclass
class RunResult:
    """What happened to one program."""

    status: str  # ok | error | timeout | cpu_limit | memory_limit | output_limit | killed
    exit_code: int | None
    stdout: str
    stderr: str
    seconds: float
    captured: bytes | None = None  # MPS text of the model the program built
    truncated: bool = False
    isolation: dict[str, str] = field(default_factory=dict)
    # The captured model's state: solver, status ("optimal", "infeasible", "not_solved", ...)
    # and objective when optimal, as the program left it.
    state: dict[str, Any] | None = None
    files: dict[str, bytes] = field(default_factory=dict)  # the job's ``collect`` outputs

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly (the captured model and collected files as their sizes)."""
        d = asdict(self)
        d["captured"] = None if self.captured is None else len(self.captured)
        d["files"] = {k: len(v) for k, v in self.files.items()}
        return d


@dataclass(frozen=True)
class Job:
    """A program, its data files and limits."""

    code: str
    files: dict[str, str | bytes] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    capture: bool = True
    collect: tuple[str, ...] = ()  # files the program writes that come back (e.g. model.lp)

    def __post_init__(self) -> None:
        for name in self.files:
            parts = name.split("/")
            if not name or name == "main.py" or any(not p or p.startswith(".") for p in parts):
                raise ValueError(f"data file name {name!r} must be a plain relative path")


# ---------------------------------------------------------------- inside the sandbox
_GRB_STATUS = {1: "not_solved", 2: "optimal", 3: "infeasible", 4: "infeasible_or_unbounded",
               5: "unbounded", 9: "time_limit", 13: "suboptimal"}


def _write_state(state: dict[str, Any]) -> None:
    with open(STATE_FILE, "w") as f:
        json.dump(state, f)


def _capture(g: dict[str, Any]) -> None:
    """Write the model the program built (gurobipy or highspy) as MPS in the working dir, and
    its solve state (status, objective) beside it."""
    for name in (CAPTURE_FILE, STATE_FILE):  # never report files the program wrote itself
        with contextlib.suppress(OSError):
            os.unlink(name)
    found = [g.get("model"), g.get("m"), g.get("h"), *g.values()]
    for obj in found:
        mod = type(obj).__module__.split(".")[0]
        try:
            if mod == "gurobipy" and type(obj).__name__ == "Model":
                obj.update()
                obj.write(CAPTURE_FILE)
                status = _GRB_STATUS.get(int(obj.Status), f"gurobi_{int(obj.Status)}")
                objective = float(obj.ObjVal) if status == "optimal" and obj.SolCount else None
                _write_state({"solver": "gurobipy", "status": status, "objective": objective})
                return
            if mod == "highspy" and type(obj).__name__ == "Highs":
                obj.writeModel(CAPTURE_FILE)
                name = obj.modelStatusToString(obj.getModelStatus()).lower()
                status = {"optimal": "optimal", "infeasible": "infeasible",
                          "unbounded": "unbounded", "not set": "not_solved",
                          "empty": "not_solved"}.get(name, name.replace(" ", "_"))
                objective = obj.getInfo().objective_function_value if status == "optimal" \
                    else None
                _write_state({"solver": "highspy", "status": status, "objective": objective})
                return
        except Exception as exc:  # a model that cannot be written is reported, not fatal
            print(f"[sandbox] model capture failed: {exc}", file=sys.stderr)
            return


def _program_main(job: Job, workdir: str) -> int:
    """Run the program in this process (already isolated); the exit code."""
    g: dict[str, Any] = {"__name__": "__main__", "__file__": os.path.join(workdir, "main.py")}
    code = 0
    try:
        exec(compile(job.code, "main.py", "exec"), g)
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    except BaseException:
        traceback.print_exc()
        code = 1
    finally:
        with contextlib.suppress(Exception):
            sys.stdout.flush()
        if job.capture:
            _capture(g)
    return code


def _become_program(job: Job, workdir: str, use_ns: bool, cgroup: str | None) -> None:
    """In a fresh child: isolate, then run the program; never returns."""
    code = 1
    try:
        os.setsid()
        isolation.join_cgroup(cgroup)
        if use_ns and isolation.enter_namespaces():
            # After unshare the next child is the PID namespace's init and runs the program;
            # this process only waits and passes the exit status on. When init ends, the
            # kernel kills whatever is left inside. (One process fewer than an init that
            # only waits: every fork of a process with gurobipy loaded costs milliseconds.)
            pid = os.fork()
            if pid:
                _, status = os.waitpid(pid, 0)
                os._exit(_encode(status))
        os.chdir(workdir)
        for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
            out = os.open(name, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            os.dup2(out, fd)
            os.close(out)
        null = os.open("/dev/null", os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        os.environ.update(TMPDIR=workdir, HOME=workdir, OMP_NUM_THREADS="1")
        isolation.apply_limits(job.limits)
        isolation.restrict_writes(workdir)
        code = _program_main(job, workdir)
    except BaseException:
        traceback.print_exc()
    finally:
        os._exit(code)


def _encode(status: int) -> int:
    """An exit code that carries a signal death through one more process (128 + signal)."""
    if os.WIFSIGNALED(status):
        return 128 + os.WTERMSIG(status)
    return os.waitstatus_to_exitcode(status) & 0xFF


# ---------------------------------------------------------------- the parent side
def _prepare(job: Job, root: str | None = None) -> str:
    workdir = tempfile.mkdtemp(prefix="ortrex-sandbox-", dir=root)
    for name, content in job.files.items():
        mode = "wb" if isinstance(content, bytes) else "w"
        path = os.path.join(workdir, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, mode) as f:
            f.write(content)
    with open(os.path.join(workdir, "main.py"), "w") as f:
        f.write(job.code)
    return workdir


def _wait(pid: int, wall_s: float) -> tuple[int | None, bool, float]:
    """(wait status, timed out, CPU seconds of it and its reaped children): wait for ``pid``
    at most ``wall_s``; kill its group after."""
    deadline = time.monotonic() + wall_s
    try:
        fd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        fd = None
    try:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if fd is not None:
                select.select([fd], [], [], left)
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return status, False, usage.ru_utime + usage.ru_stime
            if fd is None:
                time.sleep(min(0.005, left))
    finally:
        if fd is not None:
            os.close(fd)
    _kill_group(pid)
    _, status, usage = os.wait4(pid, 0)
    return status, True, usage.ru_utime + usage.ru_stime


def _kill_group(pid: int) -> None:
    for target in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target()


def _read_capped(path: str, cap: int) -> tuple[str, bool]:
    try:
        with open(path, "rb") as f:
            data = f.read(cap + 1)
    except OSError:
        return "", False
    return data[:cap].decode("utf-8", "replace"), len(data) > cap


def _collect(job: Job, workdir: str, status: int | None, timed_out: bool, seconds: float,
             iso: dict[str, str], cpu: float = 0.0) -> RunResult:
    code = None if status is None else os.waitstatus_to_exitcode(status)
    out, t1 = _read_capped(os.path.join(workdir, "stdout.txt"), job.limits.output_bytes)
    err, t2 = _read_capped(os.path.join(workdir, "stderr.txt"), job.limits.output_bytes)
    captured, state = None, None
    cap_path = os.path.join(workdir, CAPTURE_FILE)
    if job.capture and os.path.exists(cap_path):
        with open(cap_path, "rb") as f:
            captured = f.read()
        with contextlib.suppress(OSError, ValueError), \
                open(os.path.join(workdir, STATE_FILE)) as f:
            state = json.load(f)
    files = {}
    for name in job.collect:
        path = os.path.join(workdir, name)
        # Only a regular file inside the work directory (a link could point anywhere).
        if os.path.isfile(path) and not os.path.islink(path):
            with open(path, "rb") as f:
                files[name] = f.read()  # bounded by the file-size rlimit
    # A signal death through the namespace init arrives as 128 + signal.
    sig = -code if code is not None and code < 0 else (code - 128 if code and code > 128 else 0)
    if timed_out:
        verdict = "timeout"
    elif sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= job.limits.cpu_s - 0.05):
        # A namespace's init ignores SIGXCPU: the hard limit's SIGKILL ends it instead.
        verdict = "cpu_limit"
    elif sig == signal.SIGXFSZ or "[Errno 27] File too large" in err:
        verdict = "output_limit"
    elif "MemoryError" in err:
        verdict = "memory_limit"
    elif sig:
        verdict = "killed"
    else:
        verdict = "ok" if code == 0 else "error"
    shutil.rmtree(workdir, ignore_errors=True)
    return RunResult(verdict, code, out, err, seconds, captured, t1 or t2, iso, state, files)


def run_forked(job: Job, root: str | None = None) -> RunResult:
    """Fork the calling process into the sandbox and run ``job`` there (the fork server's
    step; call it from a single-threaded process)."""
    iso = isolation.support()
    workdir = _prepare(job, root)
    use_ns = isolation.namespaces_available()
    t0 = time.perf_counter()
    cgroup = isolation.make_pids_cgroup(job.limits.max_procs)
    pid = os.fork()
    if pid == 0:
        _become_program(job, workdir, use_ns, cgroup)
    try:
        status, timed_out, cpu = _wait(pid, job.limits.wall_s)
    finally:
        isolation.remove_cgroup(cgroup)
    return _collect(job, workdir, status, timed_out, time.perf_counter() - t0, iso, cpu)


def _warn_once(iso: dict[str, str]) -> None:
    global _WARNED
    missing = [k for k, v in iso.items() if v in ("NONE", "process group only")]
    if missing and not _WARNED:
        _WARNED = True
        print(f"ortrex sandbox: this kernel gives no isolation of {', '.join(missing)}; "
              f"programs run with: {iso}", file=sys.stderr)


# ---------------------------------------------------------------- fork server
def _send(f: Any, obj: object) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(struct.pack("<Q", len(data)) + data)
    f.flush()


def _recv(f: Any) -> Any:
    head = f.read(8)
    if len(head) < 8:
        raise EOFError
    (n,) = struct.unpack("<Q", head)
    return pickle.loads(f.read(n))


def serve(preload: tuple[str, ...] = PRELOAD) -> None:
    """Fork-server loop on stdin/stdout: one pickled Job in, one RunResult out."""
    import importlib

    for name in preload:
        with contextlib.suppress(ImportError):
            importlib.import_module(name)
    isolation.support()  # probe once, before serving
    rfile, wfile = sys.stdin.buffer, sys.stdout.buffer
    sys.stdout = sys.stderr  # stray prints of the server must not corrupt the pipe
    _send(wfile, "ready")
    while True:
        try:
            job, root = _recv(rfile)
        except EOFError:
            isolation.remove_left_cgroups()
            return
        try:
            result = run_forked(job, root)
        except Exception as exc:
            result = RunResult("error", None, "", f"sandbox failure: {exc}", 0.0)
        _send(wfile, result)


class Sandbox:
    """A warm fork server (one program at a time; make one per worker)."""

    def __init__(self, preload: tuple[str, ...] = PRELOAD, root: str | None = None) -> None:
        self.root = root
        self.proc = subprocess.Popen(
            [sys.executable, "-c", "from ortrex.verifiers.sandbox import serve; serve("
             f"{tuple(preload)!r})"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            start_new_session=True)
        self.lock = threading.Lock()
        if _recv(self.proc.stdout) != "ready":
            raise RuntimeError("sandbox fork server did not start")
        self.isolation = isolation.support()
        _warn_once(self.isolation)

    def run(self, job: Job) -> RunResult:
        """Run one program in a forked, isolated child of the warm server."""
        with self.lock:
            if self.proc.poll() is not None:
                raise RuntimeError(f"sandbox fork server died (exit {self.proc.returncode})")
            _send(self.proc.stdin, (job, self.root))
            return _recv(self.proc.stdout)

    def close(self) -> None:
        """Stop the server."""
        if self.proc.poll() is None:
            self.proc.stdin.close()  # type: ignore[union-attr]
            try:
                self.proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

    def __enter__(self) -> Sandbox:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


# ---------------------------------------------------------------- cold runs
_COLD = """
import pickle, sys
from ortrex.verifiers.sandbox import _cold_child
_cold_child(sys.argv[1])
"""


def _cold_child(job_path: str) -> None:
    """Entry of a cold run: a fresh interpreter that isolates itself and runs the program."""
    with open(job_path, "rb") as f:
        job, workdir, use_ns, cgroup = pickle.load(f)
    os.unlink(job_path)
    _become_program(job, workdir, use_ns, cgroup)


def run_cold(job: Job, root: str | None = None) -> RunResult:
    """The same isolation with a new ``python`` process per program (the baseline)."""
    iso = isolation.support()
    workdir = _prepare(job, root)
    fd, job_path = tempfile.mkstemp(prefix="ortrex-job-", suffix=".pkl", dir=root)
    cgroup = isolation.make_pids_cgroup(job.limits.max_procs)
    with os.fdopen(fd, "wb") as f:
        pickle.dump((job, workdir, isolation.namespaces_available(), cgroup), f)
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-c", _COLD, job_path], stdin=subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        status, timed_out, cpu = _wait(proc.pid, job.limits.wall_s)
    finally:
        isolation.remove_cgroup(cgroup)
    proc.returncode = 0  # reaped by _wait
    Path(job_path).unlink(missing_ok=True)
    return _collect(job, workdir, status, timed_out, time.perf_counter() - t0, iso, cpu)
