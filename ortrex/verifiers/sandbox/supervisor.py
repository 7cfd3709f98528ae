"""One sandboxed run, seen from its supervisor: the trusted process that sets the run up, starts
the program in a confined child, enforces the time limit, and collects what came back.

The supervisor reads its ``RunSpec`` from a pipe and writes the ``RunResult`` to another. It
enters the run's namespaces itself and mounts the run's size-capped tmpfs on its private
``/tmp``::

    /tmp/work   the program's /sandbox (data files, main.py; where it writes)
    /tmp/tmp    the program's /tmp        /tmp/shm   its /dev/shm
    /tmp/root   the program's minimal root (assembled by the program's process)
    /tmp/out    stdout, stderr and the capture channel: never visible to the program

The program's process is the init of a new PID namespace: killing it kills every process the
program started, whatever session or group they moved to. Nothing the program left is followed:
outputs are read through descriptors opened before it ran, collected files with
``O_NOFOLLOW`` as regular files only, everything under a size cap. When the supervisor exits,
the tmpfs goes with its mount namespace (without namespaces, the run directory is removed).
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import hashlib
import os
import pickle
import resource
import select
import shutil
import signal
import stat
import struct
import sys
import tempfile
import time
import traceback
import zlib
from dataclasses import dataclass
from typing import Any, NoReturn

from ortrex.verifiers.sandbox import cgroups, harness, isolation, linux, rootfs
from ortrex.verifiers.sandbox.cgroups import RunCgroup
from ortrex.verifiers.sandbox.isolation import SANDBOX_GID, SANDBOX_UID, Plan
from ortrex.verifiers.sandbox.programs import Job, RunResult

_STATE_CAP = 64 << 10
_OUT_FILES = ("stdout", "stderr", "capture", "state")


@dataclass(frozen=True)
class RunSpec:
    """Everything a supervisor needs: the job, how to confine it, where its cgroups are."""

    job: Job
    plan: Plan  # computed once by the server (or the cold caller), never by the supervisor
    cgroup: RunCgroup
    root: str | None = None  # parent directory of the run directory without namespaces


def send(fd: int, obj: object) -> None:
    """Write one length-prefixed pickle to a descriptor."""
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    view = memoryview(struct.pack("<Q", len(data)) + data)
    while view:
        view = view[os.write(fd, view):]


def _read_exact(fd: int, n: int, deadline: float | None) -> bytes:
    chunks, got = [], 0
    while got < n:
        if deadline is not None:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                raise TimeoutError
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def receive(fd: int, deadline: float | None = None) -> Any:
    """Read one length-prefixed pickle (``TimeoutError`` past ``deadline``, ``EOFError`` when
    the writer is gone). Only ever used between ortrex's own trusted processes."""
    (n,) = struct.unpack("<Q", _read_exact(fd, 8, deadline))
    return pickle.loads(_read_exact(fd, n, deadline))


def supervise(spec_fd: int, result_fd: int) -> NoReturn:
    """Entry of a supervisor process: read the spec, run it, write the result, exit."""
    try:
        spec = receive(spec_fd)
        os.close(spec_fd)
        result = _run(spec, result_fd)
    except BaseException as exc:
        result = RunResult("error", None, "", f"sandbox failure: {exc}\n"
                           f"{traceback.format_exc()[-2000:]}", 0.0)
    try:
        send(result_fd, result)
    finally:
        os._exit(0)


def cold_main() -> NoReturn:
    """Entry of a cold run (a fresh interpreter): spec on stdin, result on stdout."""
    supervise(0, 1)


def _enter_namespaces(p: Plan, disk_mb: int) -> str:
    """Enter the run's namespaces and mount its tmpfs; the run's base directory."""
    uid, gid = os.getuid(), os.getgid()
    flags = linux.CLONE_NEWNS | linux.CLONE_NEWPID | linux.CLONE_NEWNET | \
        linux.CLONE_NEWIPC | linux.CLONE_NEWUTS
    if p.mode == "user":
        linux.unshare(flags | linux.CLONE_NEWUSER)
        isolation.write_id_maps(uid, gid)
    else:
        linux.unshare(flags)
    linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
    base = run_base(p.root)
    linux.mount("tmpfs", base, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV,
                f"size={disk_mb}m,mode=0755")
    return base


def run_base(root: rootfs.RootPlan) -> str:
    """Where the run's tmpfs goes (in the run's own mount namespace, so the host never sees
    it): over ``/tmp``, unless the interpreter or a package the program needs lies there (a
    virtual environment in /tmp, as tox, nox and many CI images make it), which the tmpfs
    would hide before the root is built; then over ``/dev/shm``, whose host contents no
    program sees either way (its own /dev/shm is a directory of the run)."""
    if any(rootfs.inside(b, "/tmp") for b in (*root.binds, *root.masks)) and \
            os.path.isdir("/dev/shm"):
        return "/dev/shm"
    return "/tmp"


def _layout(base: str, job: Job, owner: tuple[int, int] | None,
            own_tmpfs: bool) -> dict[str, int]:
    """The run directory: program dirs, data files, main.py; the out/ descriptors (on a
    tmpfs of their own where there are namespaces, so a full work directory leaves room for
    stdout, stderr and the capture)."""
    for sub, mode in (("work", 0o700), ("tmp", 0o700), ("shm", 0o700), ("root", 0o755),
                      ("out", 0o700)):
        os.mkdir(os.path.join(base, sub), mode)
    if own_tmpfs:
        size = 2 * job.limits.file_mb + max(job.limits.file_mb, 64) + 1
        linux.mount("tmpfs", os.path.join(base, "out"), "tmpfs",
                    linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC, f"size={size}m,mode=0700")
    work = os.path.join(base, "work")
    for name, content in [*job.files.items(), ("main.py", job.code)]:
        path = os.path.join(work, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(content if isinstance(content, bytes) else content.encode())
    if owner is not None:  # the program runs as this user
        for sub in ("tmp", "shm"):
            os.chown(os.path.join(base, sub), *owner)
        for dirpath, dirnames, filenames in os.walk(work):
            for name in [*dirnames, *filenames]:
                os.chown(os.path.join(dirpath, name), *owner)
        os.chown(work, *owner)
    return {name: os.open(os.path.join(base, "out", name),
                          os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o600)
            for name in _OUT_FILES}


def _program(spec: RunSpec, p: Plan, base: str, out: dict[str, int]) -> NoReturn:
    """The program's process: join the run's cgroups, confine itself, run the program."""
    code = 1
    try:
        cgroups.join(spec.cgroup.paths)
        os.setpgid(0, 0)
        null = os.open("/dev/null", os.O_RDONLY)
        # Out of the way first (a source may sit on a target number), then into place.
        sources = [fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 16) for fd in
                   (null, out["stdout"], out["stderr"], out["capture"], out["state"])]
        for target, fd in enumerate(sources):
            os.dup2(fd, target)  # the copy does not close on exec
        linux.close_fds_above(harness.STATE_FD)
        sys.stdout = open(1, "w", buffering=1, closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", buffering=1, closefd=False)  # noqa: SIM115
        has_pids = any("pids" in h.controllers for h, _ in spec.cgroup.dirs)
        workdir, tmp = isolation.confine(p, base, spec.job.limits, has_pids)
        code = harness.run(spec.job.code, spec.job.capture, p.namespaces, workdir, tmp,
                           at_solve=spec.job.capture_at == "solve", argv=spec.job.args,
                           file_bytes=spec.job.limits.file_mb << 20)
    except BaseException:
        with contextlib.suppress(BaseException):
            traceback.print_exc()
    finally:
        os._exit(code)


def _wait(pid: int, wall_s: float, namespaces: bool) -> tuple[int, bool, float]:
    """(wait status, timed out, CPU seconds): wait for the program at most ``wall_s``."""
    deadline = time.monotonic() + wall_s
    try:
        fd: int | None = os.pidfd_open(pid)
    except OSError:  # before Linux 5.3: poll
        fd = None
    try:
        while True:
            done, status, usage = os.wait4(pid, os.WNOHANG)
            if done:
                return status, False, usage.ru_utime + usage.ru_stime
            left = deadline - time.monotonic()
            if left <= 0:
                break
            if fd is None:
                time.sleep(min(0.005, left))
            else:
                select.select([fd], [], [], left)
    finally:
        if fd is not None:
            os.close(fd)
    # The PID namespace's init: its death takes every process of the namespace with it.
    targets = [lambda: os.kill(pid, signal.SIGKILL)]
    if not namespaces:
        targets.append(lambda: os.killpg(pid, signal.SIGKILL))
    for target in targets:
        with contextlib.suppress(ProcessLookupError, PermissionError):
            target()
    _, status, usage = os.wait4(pid, 0)
    return status, True, usage.ru_utime + usage.ru_stime


def _read_fd(fd: int, cap: int) -> tuple[bytes, bool]:
    """Up to ``cap`` bytes of an out/ file from its start, and whether there was more."""
    size = os.fstat(fd).st_size
    data = os.pread(fd, min(size, cap), 0) if size else b""
    return data, size > cap


def _collect_file(work: str, name: str, cap: int) -> bytes | None:
    """A file the program wrote, if it is a regular file (links, FIFOs, devices and
    directories are not followed), at most ``cap`` bytes."""
    try:
        fd = os.open(os.path.join(work, name), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK |
                     os.O_CLOEXEC)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > cap:
            return None
        return os.pread(fd, st.st_size, 0)
    finally:
        os.close(fd)


def _read_state(out: dict[str, int]) -> tuple[bytes, Any]:
    """The state file the harness writes last: its bytes, and what they parse to (None when
    empty, over the cap or not a Python literal)."""
    text, over = _read_fd(out["state"], _STATE_CAP)
    if not text or over:
        return text, None
    try:
        return text, ast.literal_eval(text.decode("utf-8"))
    except (ValueError, SyntaxError, MemoryError, RecursionError, UnicodeDecodeError,
            TypeError):
        return text, None


def _capture(job: Job, out: dict[str, int], cap: int) -> tuple[str, str, bytes | None,
                                                                  dict[str, Any] | None]:
    """(capture status, detail, model bytes, reported state) from the capture channel."""
    if not job.capture:
        return "off", "", None, None
    text, state = _read_state(out)
    data, too_big = _read_fd(out["capture"], cap)
    if not text:
        return "absent", ("the program ended before its model could be captured (os._exit, a "
                          "crash, a signal or the time limit)"), None, None
    if not isinstance(state, dict) or not isinstance(state.get("capture"), str):
        return "forged", "the capture state was not written by the harness", None, None
    status, why = state["capture"], str(state.get("why", ""))[:300]
    if status != "ok":
        return (status if status in ("none", "refused", "forged", "error") else "forged"), \
            why, None, None
    if too_big:
        return "error", f"the captured model is over {cap >> 20} MB", None, None
    if state.get("bytes") != len(data) or state.get("sha256") != hashlib.sha256(data).hexdigest():
        return "forged", "the captured model is not what the harness wrote", None, None
    reported: dict[str, Any] = {k: state.get(k) for k in ("solver", "status", "objective")}
    renamed = state.get("renamed")
    if isinstance(renamed, dict):
        reported["renamed"] = {str(k)[:200]: str(v)[:200] for k, v in
                               list(renamed.items())[:harness.NAME_KEEP]}
    return "ok", "", data, reported


def inflate_budget(file_mb: int) -> int:
    """The most bytes a run's capture may inflate to, all frames together: four times the
    run's file limit (no honest model is larger than that limit: the harness writes each one
    to a file under it before compressing it)."""
    return 4 * (max(file_mb, 1) << 20)


def _names(payload: bytes) -> dict[str, str]:
    """A names frame's ``new -> original`` map (nothing where it is not one)."""
    try:
        got = ast.literal_eval(payload[:_STATE_CAP].decode("utf-8"))
    except (ValueError, SyntaxError, MemoryError, RecursionError, UnicodeDecodeError,
            TypeError):
        return {}
    if not isinstance(got, dict):
        return {}
    return {str(k)[:200]: str(v)[:200] for k, v in list(got.items())[:harness.NAME_KEEP]}


CALLBACK_NOTE = "unsupported: callback constraints"


def _solved(payload: bytes) -> tuple[float, float] | None:
    """A solved frame's (objective, bound) (None where it is not one)."""
    try:
        got = ast.literal_eval(payload[:200].decode("ascii"))
    except (ValueError, SyntaxError, MemoryError, RecursionError, UnicodeDecodeError,
            TypeError):
        return None
    if isinstance(got, tuple) and len(got) == 2 and all(isinstance(v, float) for v in got):
        return got
    return None


def _frames(data: bytes, budget: int
            ) -> tuple[list[bytes], list[str], str, dict[str, str], list[Any]]:
    """Models, notes, what was wrong with the channel ('' if nothing), the original names and
    the program's own optimum of each model (None where it reached none) of a capture-at-solve
    channel. Every frame is checked against its own hash before any is inflated (a forged
    channel costs no inflation); models are inflated last first (the last ones are the seed's)
    until ``budget`` bytes are spent in all (a zip bomb stops there). A model solved with a
    callback counts only as the frame written after its solve (with the callback's rows)."""
    spans: list[list[Any]] = []
    notes: list[str] = []
    pos, head, wrong, pending, unfinished = 0, harness.FRAME_HEAD, "", False, 0
    renamed: dict[str, str] = {}
    while pos < len(data):
        if len(data) - pos < head.size:
            wrong = "the last capture frame is cut"
            break
        magic, kind, n, digest = head.unpack_from(data, pos)
        start = pos + head.size
        if magic != harness.FRAME_MAGIC:
            return [], notes, "the capture channel holds something the harness did not write", \
                {}, []
        if len(data) - start < n:
            wrong = "the last capture frame is cut"
            break
        payload = memoryview(data)[start:start + n]
        if hashlib.sha256(payload).digest() != digest:
            return [], notes, "a capture frame does not match its hash", {}, []
        pos = start + n
        if kind == harness.FRAME_MODEL:
            spans.append([payload, None])
            pending = False
        elif kind == harness.FRAME_PARTIAL:
            unfinished += pending
            pending = True
        elif kind == harness.FRAME_SOLVED:
            if spans and not pending:
                spans[-1][1] = _solved(bytes(payload))
        elif kind == harness.FRAME_NAMES:
            renamed.update(_names(bytes(payload)))
        elif kind == harness.FRAME_LICENCE:  # payload: the library ('': gurobipy)
            who = bytes(payload[:20]).decode("ascii", "replace") or "Gurobi"
            notes.append(f"the sandbox's {who} licence refused the program's solve")
        elif kind == harness.FRAME_TOO_LARGE:
            notes.append(f"a model of {bytes(payload).decode('ascii', 'replace')[:20]} bytes "
                         "was over the capture's file limit")
    unfinished += pending
    if unfinished:
        notes.append(f"{CALLBACK_NOTE}: {unfinished} solve(s) with a callback left no model "
                     "with the rows the callback added (the solve did not end, or a row was "
                     "not linear)")
    models: list[bytes] = []
    own: list[Any] = []
    left, dropped = budget, 0
    for payload, solved in reversed(spans):
        z = zlib.decompressobj()
        try:
            text = z.decompress(payload, left + 1) if left > 0 else b""
        except zlib.error:
            return [], notes, "a captured model is not valid zlib data", {}, []
        if left <= 0 or len(text) > left or z.unconsumed_tail:
            dropped += 1
            left = 0
            continue
        left -= len(text)
        models.append(text)
        own.append(solved)
    if dropped:
        notes.append(f"{dropped} earlier model(s) not taken: the capture's models inflate to "
                     f"more than {budget >> 20} MB in all")
    models.reverse()
    own.reverse()
    return models, notes, wrong, renamed, own


def _capture_at_solve(out: dict[str, int], cap: int, budget: int
                      ) -> tuple[str, str, list[bytes], list[str], dict[str, str], list[Any]]:
    """(status, detail, models, notes, original names, the program's own optimum of each) of
    a capture-at-solve run. The frames stand whether or not the program finished (they were
    written before each solve)."""
    text, state = _read_state(out)
    said = state.get("capture") if isinstance(state, dict) else None
    why = str(state.get("why", ""))[:300] if isinstance(state, dict) else ""
    # The harness saw bytes in the channel that no hook wrote: refused before any inflation.
    if said == "forged" or (text and not isinstance(state, dict)):
        return "forged", why or "the capture state was not written by the harness", [], [], \
            {}, []
    data, too_big = _read_fd(out["capture"], cap)
    models, notes, wrong, renamed, own = _frames(data, budget)
    if "did not write" in wrong or "hash" in wrong:
        return "forged", wrong, [], notes, {}, []
    if too_big:
        wrong = wrong or f"the capture channel is over {cap >> 20} MB"
    # A solve with a callback whose rows never came: what was captured is a relaxation of
    # what the program solved, whichever models came before it.
    callback = next((n for n in notes if n.startswith(CALLBACK_NOTE)), None)
    if callback:
        return "unsupported", callback, [], notes, {}, []
    if models:  # a cut last frame (the time limit struck mid-write) leaves the others
        return "ok", wrong, models, notes, renamed, own
    if wrong:
        return "error", wrong, [], notes, {}, []
    if any("file limit" in n for n in notes):
        return "too_large", notes[-1], [], notes, {}, []
    if any("not taken" in n for n in notes):
        return "too_large", notes[-1], [], notes, {}, []
    if not text:
        return "absent", ("the program ended before it asked for a solve and before its model "
                          "could be captured"), [], notes, {}, []
    if said in ("refused", "error"):
        return said, why, [], notes, {}, []
    return "none", ("the program solved no model of gurobipy, highspy, PuLP, Pyomo, OR-Tools "
                    "or COPT and left none"), [], notes, {}, []


def _limit_memory(extra: int) -> None:
    """Cap this process's address space at what it maps now plus ``extra`` bytes."""
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return
    size = pages * os.sysconf("SC_PAGE_SIZE") + extra
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard != resource.RLIM_INFINITY:
        size = min(size, hard)
    with contextlib.suppress(ValueError, OSError):
        resource.setrlimit(resource.RLIMIT_AS, (size, hard))


def _verdict(job: Job, status: int, timed_out: bool, cpu: float, err: str, oom: bool,
             disk_full: bool) -> tuple[str, int | None]:
    code = os.waitstatus_to_exitcode(status)
    sig = -code if code < 0 else 0
    if timed_out:
        return "timeout", code
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= job.limits.cpu_s - 0.05):
        return "cpu_limit", code  # a namespace's init ignores SIGXCPU: the hard limit kills it
    if sig == signal.SIGXFSZ or "[Errno 27] File too large" in err:
        return "output_limit", code
    if "MemoryError" in err or (sig == signal.SIGKILL and oom):
        return "memory_limit", code
    if disk_full:
        return "disk_limit", code
    if sig:
        return "killed", code
    return ("ok" if code == 0 else "error"), code


def _run(spec: RunSpec, result_fd: int) -> RunResult:
    with contextlib.suppress(OSError):
        os.setsid()
    job, limits = spec.job, spec.job.limits
    p = spec.plan
    iso = isolation.support(p)
    if p.namespaces:
        base = _enter_namespaces(p, limits.disk_mb)
    else:
        base = tempfile.mkdtemp(prefix="ortrex-sandbox-", dir=spec.root)
    try:
        out = _layout(base, job, (SANDBOX_UID, SANDBOX_GID) if p.mode == "root" else None,
                      p.namespaces)
        t0 = time.perf_counter()
        pid = os.fork()
        if pid == 0:
            os.close(result_fd)
            _program(spec, p, base, out)
        cap = max(limits.file_mb, 64) << 20
        # From here on the supervisor reads what the program left: its own memory is capped
        # (outside the run's cgroup, it would otherwise have none).
        _limit_memory(cap + 3 * inflate_budget(limits.file_mb) + (512 << 20))
        status, timed_out, cpu = _wait(pid, limits.wall_s, p.namespaces)
        seconds = time.perf_counter() - t0
        cgroups.kill(spec.cgroup)  # whatever left the program's group (no PID namespace)
        stdout, t1 = _read_fd(out["stdout"], limits.output_bytes)
        stderr, t2 = _read_fd(out["stderr"], limits.output_bytes)
        err = stderr.decode("utf-8", "replace")
        captures: list[bytes] = []
        notes: list[str] = []
        renamed: dict[str, str] = {}
        own: list[Any] = []
        if job.capture and job.capture_at == "solve":
            cstatus, cdetail, captures, notes, renamed, own = _capture_at_solve(
                out, cap, inflate_budget(limits.file_mb))
            captured, state = (captures[0] if captures else None), None
        else:
            cstatus, cdetail, captured, state = _capture(job, out, cap)
            if state is not None:
                renamed = state.pop("renamed", {})
        work = os.path.join(base, "work")
        files = {n: d for n in job.collect if (d := _collect_file(work, n, cap)) is not None}
        vfs = os.statvfs(base)
        disk_full = p.namespaces and vfs.f_bavail * vfs.f_frsize < (64 << 10)
        verdict, code = _verdict(job, status, timed_out, cpu, err,
                                 cgroups.oom_killed(spec.cgroup), disk_full)
        return RunResult(verdict, code, stdout.decode("utf-8", "replace"), err, seconds,
                         captured, t1 or t2, iso, state, files, cstatus, cdetail, captures,
                         notes, renamed, own)
    finally:
        if not p.namespaces:
            if sys.version_info >= (3, 12):
                shutil.rmtree(base, onexc=_force)
            else:
                shutil.rmtree(base, onerror=_force)


def _force(func: Any, path: str, exc: Any) -> None:
    """rmtree's error hook: a directory the program made unreadable is opened up, retried."""
    with contextlib.suppress(OSError):
        os.chmod(os.path.dirname(path), 0o700)
        os.chmod(path, 0o700)
        func(path)
