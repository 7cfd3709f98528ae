"""Kernel isolation for sandboxed programs: namespaces, Landlock and resource limits.

Everything here runs inside the forked child that becomes the program. What the kernel offers is
probed, used when present, and reported: a sandbox never claims an isolation it does not have.

* user + network + PID namespaces (``unshare``): no network interface but a downed loopback; the
  program's first process is the namespace's init, so killing it kills every descendant, even
  ones that left the process group.
* Landlock (Linux >= 5.13): writes only inside the sandbox directory (and to /dev/null); TCP
  bind and connect refused (ABI >= 4); no signals to processes outside the sandbox (ABI >= 6).
* rlimits: CPU seconds, address space, file size, open files, processes.
"""

from __future__ import annotations

import ctypes
import os
import resource
import time
from dataclasses import dataclass
from functools import lru_cache

CLONE_NEWNS, CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x20000, 0x10000000, 0x20000000, \
    0x40000000
PR_SET_NO_NEW_PRIVS = 38
_SYS_LANDLOCK_CREATE, _SYS_LANDLOCK_ADD_RULE, _SYS_LANDLOCK_RESTRICT = 444, 445, 446
_RULE_PATH_BENEATH = 1

# Landlock filesystem rights that change the filesystem (reads stay allowed everywhere).
_FS_WRITE = (1 << 1) | (1 << 4) | (1 << 5) | (1 << 6) | (1 << 7) | (1 << 8) | (1 << 9) | \
    (1 << 10) | (1 << 11) | (1 << 12)
_FS_REFER, _FS_TRUNCATE = 1 << 13, 1 << 14
_NET_TCP = (1 << 0) | (1 << 1)  # bind, connect
_SCOPE_ALL = (1 << 0) | (1 << 1)  # abstract unix sockets, signals


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed program."""

    wall_s: float = 30.0
    cpu_s: int = 30
    memory_mb: int = 2048  # address space on top of what the (warm) process already maps
    file_mb: int = 64  # the largest file it may write (stdout and stderr included)
    output_bytes: int = 256_000  # stdout / stderr kept, each
    max_procs: int = 128  # processes and threads of the sandbox user, all programs together
    max_files: int = 256


def _libc() -> ctypes.CDLL:
    return ctypes.CDLL(None, use_errno=True)


@lru_cache(maxsize=1)
def landlock_abi() -> int:
    """The kernel's Landlock ABI version (0 when unavailable)."""
    r = _libc().syscall(_SYS_LANDLOCK_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(r), 0)


@lru_cache(maxsize=1)
def namespaces_available() -> bool:
    """Whether an unprivileged process may create user, network and PID namespaces here."""
    pid = os.fork()
    if pid == 0:  # probe in a throw-away child: unshare changes the caller for good
        ok = _libc().unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID) == 0
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def support() -> dict[str, str]:
    """What a sandbox on this machine isolates, in words (stored with every run)."""
    ns = namespaces_available()
    abi = landlock_abi()
    return {
        "network": "network namespace" if ns else (
            "landlock: TCP refused (UDP open)" if abi >= 4 else "NONE"),
        "filesystem": "landlock: writes only in the sandbox directory" if abi else "NONE",
        "processes": ("PID namespace" if ns else "process group only") + (
            ", cgroup pids.max" if pids_cgroup_root() else
            (", RLIMIT_NPROC" if os.getuid() else ", NO process cap (root ignores NPROC)")),
        "signals": "landlock scope" if abi >= 6 else ("PID namespace" if ns else "NONE"),
    }


_PIDS_ROOTS = ("/sys/fs/cgroup/pids", "/sys/fs/cgroup")


@lru_cache(maxsize=1)
def pids_cgroup_root() -> str | None:
    """A writable cgroup directory with the pids controller (v1 or v2), if any."""
    for root in _PIDS_ROOTS:
        if not os.path.isdir(root) or not os.access(root, os.W_OK):
            continue
        if root.endswith("/pids") or "pids" in _read(os.path.join(root, "cgroup.controllers")):
            probe = os.path.join(root, f"ortrex-probe-{os.getpid()}")
            try:
                os.mkdir(probe)
                os.rmdir(probe)
                return root
            except OSError:
                continue
    return None


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def make_pids_cgroup(limit: int) -> str | None:
    """A fresh cgroup capping processes and threads at ``limit`` (root ignores RLIMIT_NPROC,
    so this is what stops a fork bomb when running as root). None where there is none."""
    root = pids_cgroup_root()
    if root is None:
        return None
    path = os.path.join(root, f"ortrex-sandbox-{os.getpid()}-{time.monotonic_ns()}")
    try:
        os.mkdir(path)
        with open(os.path.join(path, "pids.max"), "w") as f:
            f.write(str(limit))
    except OSError:
        return None
    return path


def join_cgroup(path: str | None) -> None:
    """Move the calling process into ``path``."""
    if path:
        with open(os.path.join(path, "cgroup.procs"), "w") as f:
            f.write("0")


_LEFT: list[str] = []  # cgroups whose last processes were still being reaped


def remove_cgroup(path: str | None) -> None:
    """Remove a sandbox cgroup; one still busy (its killed processes not yet reaped by the
    kernel) is retried on later calls instead of being waited for."""
    for p in [*_LEFT, *([path] if path else [])]:
        try:
            os.rmdir(p)
            if p in _LEFT:
                _LEFT.remove(p)
        except FileNotFoundError:
            if p in _LEFT:
                _LEFT.remove(p)
        except OSError:
            if p not in _LEFT:
                _LEFT.append(p)


def remove_left_cgroups(wait_s: float = 2.0) -> None:
    """Retry the busy cgroups for up to ``wait_s`` (at exit)."""
    deadline = time.monotonic() + wait_s
    while _LEFT and time.monotonic() < deadline:
        remove_cgroup(None)
        if _LEFT:
            time.sleep(0.02)


def enter_namespaces() -> bool:
    """Move the calling process into new user, network and PID namespaces (its next child is
    the PID namespace's init). Returns False, changing nothing, where the kernel refuses."""
    uid, gid = os.getuid(), os.getgid()
    if _libc().unshare(CLONE_NEWUSER | CLONE_NEWNET | CLONE_NEWPID) != 0:
        return False
    # Keep the same ids inside, so the program sees who it is and owns its files.
    for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"{uid} {uid} 1"),
                       ("/proc/self/gid_map", f"{gid} {gid} 1")):
        try:
            with open(path, "w") as f:
                f.write(text)
        except OSError:
            pass
    return True


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def restrict_writes(directory: str) -> bool:
    """Landlock the calling process: filesystem changes only under ``directory`` (plus writes to
    /dev/null), no TCP, no signals outside. Returns False where Landlock is unavailable."""
    abi = landlock_abi()
    if abi == 0:
        return False
    libc = _libc()
    fs = _FS_WRITE | (_FS_REFER if abi >= 2 else 0) | (_FS_TRUNCATE if abi >= 3 else 0)
    attr = _RulesetAttr(fs, _NET_TCP if abi >= 4 else 0, _SCOPE_ALL if abi >= 6 else 0)
    size = 24 if abi >= 6 else (16 if abi >= 4 else 8)
    ruleset = libc.syscall(_SYS_LANDLOCK_CREATE, ctypes.byref(attr), ctypes.c_size_t(size),
                           ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        for path, rights in ((directory, fs),
                             ("/dev/null", (1 << 1) | (_FS_TRUNCATE if abi >= 3 else 0))):
            fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
            try:
                rule = _PathBeneath(rights, fd)
                if libc.syscall(_SYS_LANDLOCK_ADD_RULE, ctypes.c_int(ruleset),
                                ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                                ctypes.c_uint32(0)) != 0:
                    return False
            finally:
                os.close(fd)
        if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return False
        return libc.syscall(_SYS_LANDLOCK_RESTRICT, ctypes.c_int(ruleset),
                            ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)


def _mapped_mb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def apply_limits(limits: Limits) -> None:
    """rlimits for the calling process (inherited by anything it starts)."""
    mb = 1 << 20
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    address = (_mapped_mb() + limits.memory_mb) * mb
    resource.setrlimit(resource.RLIMIT_AS, (address, address))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * mb, limits.file_mb * mb))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.max_files, limits.max_files))
    resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_procs, limits.max_procs))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
