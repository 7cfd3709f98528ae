"""Kernel isolation for sandboxed programs: what this machine offers, and the steps a program's
process takes to confine itself before the program runs.

Modes, the strongest the kernel allows (probed once per process, never assumed):

* ``root``: ortrex runs as root; the run gets new mount, PID, network, IPC and UTS namespaces,
  and the program drops to the unprivileged user 65534 (a Unix-socket peer never sees root);
* ``user``: the same namespaces inside a new user namespace, the program's capabilities dropped;
* ``landlock``: no namespaces: Landlock confines reads to the interpreter and system libraries,
  writes to the run's directory; processes and the network stay visible (reported so);
* ``none``: rlimits only (reported, and warned about once).

In every mode that has it: Landlock (writes only in the work directory and ``/tmp``, no TCP, no
signals or abstract sockets outside), seccomp (``syscalls``), cgroups (``cgroups``: one memory
cap for the whole run, a process cap, kill-all), rlimits (CPU seconds, address space, file
size, open files) and an allow-listed environment (no API keys, proxies or ``ORTREX_*``).
"""

from __future__ import annotations

import os
import resource
import sys
from dataclasses import dataclass
from functools import lru_cache

from ortrex.verifiers.sandbox import cgroups, landlock, linux, rootfs, syscalls
from ortrex.verifiers.sandbox.rootfs import WORKDIR, RootPlan

SANDBOX_UID = SANDBOX_GID = 65534  # "nobody": what a root-run sandbox program becomes
_NS = linux.CLONE_NEWNS | linux.CLONE_NEWPID | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | \
    linux.CLONE_NEWUTS
# The whole environment a program sees (nothing is inherited).
_PROGRAM_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1", "OMP_NUM_THREADS": "1",
                "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "USER": "sandbox",
                "LOGNAME": "sandbox",
                # A program that plots (a seed may) draws off-screen: there is no display.
                "MPLBACKEND": "Agg"}
# What the fork server keeps of its parent's environment (its memory is every program's).
SERVER_ENV_KEYS = ("PATH", "PYTHONPATH", "LANG", "LC_ALL", "TZ", "TMPDIR")


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed program."""

    wall_s: float = 30.0
    cpu_s: int = 30
    memory_mb: int = 2048  # the whole run (memory cgroup); also each process's address space
    file_mb: int = 64  # the largest file it may write (stdout and stderr included)
    disk_mb: int = 256  # everything it writes (work directory, /tmp, /dev/shm: one tmpfs)
    output_bytes: int = 256_000  # stdout / stderr kept, each
    max_procs: int = 128  # processes and threads of the run
    max_files: int = 256


@dataclass(frozen=True)
class Plan:
    """How runs are confined on this machine (computed once per process)."""

    mode: str  # root | user | landlock | none
    root: RootPlan
    landlock_abi: int
    seccomp: bool
    cgroups: dict[str, str]

    @property
    def namespaces(self) -> bool:
        """Whether runs get their own namespaces (and a minimal root)."""
        return self.mode in ("root", "user")


def _probe(flags: int, map_ids: bool) -> bool:
    """Whether a child may enter namespaces ``flags`` and mount a tmpfs there."""
    uid, gid = os.getuid(), os.getgid()
    pid = os.fork()
    if pid == 0:  # probe in a throw-away child: unshare changes the caller for good
        try:
            linux.unshare(flags)
            if map_ids:
                write_id_maps(uid, gid)
            linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
            linux.mount("tmpfs", "/tmp", "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=1m")
            os._exit(0)
        except BaseException:
            os._exit(1)
    _, status = os.waitpid(pid, 0)
    return os.waitstatus_to_exitcode(status) == 0


def write_id_maps(uid: int, gid: int) -> None:
    """Map this user namespace's root to the caller's own ids (the one mapping an
    unprivileged process may write)."""
    for path, text in (("/proc/self/setgroups", "deny"), ("/proc/self/uid_map", f"0 {uid} 1"),
                       ("/proc/self/gid_map", f"0 {gid} 1")):
        linux.write_file(path, text)


@lru_cache(maxsize=1)
def detect_mode() -> str:
    """The strongest isolation mode this process can use."""
    if os.geteuid() == 0 and _probe(_NS, False):
        return "root"
    if _probe(_NS | linux.CLONE_NEWUSER, True):
        return "user"
    return "landlock" if landlock.abi() else "none"


_PLANS: dict[tuple[str | None, tuple[str, ...]], Plan] = {}


def plan(mode: str | None = None, hidden: tuple[str, ...] = ()) -> Plan:
    """The plan of this process's runs; ``mode`` forces a weaker mode (tests, benchmarks)."""
    key = (mode, hidden)
    if key not in _PLANS:
        chosen = detect_mode()
        order = ("root", "user", "landlock", "none")
        if mode is not None:
            if mode not in order:
                raise ValueError(f"unknown sandbox mode {mode!r}; expected one of {order}")
            if order.index(mode) < order.index(chosen) or (mode == "user" and not _probe(
                    _NS | linux.CLONE_NEWUSER, True)):
                raise ValueError(f"sandbox mode {mode!r} is not available here (best: "
                                 f"{chosen!r})")
            chosen = mode
        bare = chosen == "none"  # rlimits and cgroups only
        _PLANS[key] = Plan(chosen, rootfs.make_plan(hidden), 0 if bare else landlock.abi(),
                           not bare and syscalls.available(), cgroups.available())
    return _PLANS[key]


def support(p: Plan | None = None) -> dict[str, str]:
    """What a sandbox on this machine isolates, in words (stored with every run). A layer the
    machine lacks starts with ``NONE:``, a weaker stand-in with ``WEAK:``; nothing is claimed
    that the kernel did not give."""
    p = p or plan()
    ns, abi, cg = p.namespaces, p.landlock_abi, p.cgroups
    procs = ", ".join([cg.get("pids", "RLIMIT_NPROC"), *([cg["kill"]] if "kill" in cg else [])])
    return {
        "mode": p.mode,
        "filesystem": ("mount namespace: minimal read-only root, private work directory and "
                       "/tmp" + (", landlock" if abi else "")) if ns else (
            "WEAK: landlock only: reads limited to the interpreter and system libraries, "
            "writes to the run directory" if abi else "NONE: the whole host filesystem"),
        "network": "network namespace (no interface)" if ns else (
            "WEAK: landlock: TCP refused, UDP open" if abi >= 4 else "NONE: host network"),
        "sockets": "seccomp: IPv4/IPv6 only, no Unix sockets" if p.seccomp else (
            "WEAK: no seccomp; host Unix sockets unreachable from the minimal root" if ns else
            "NONE: host Unix sockets reachable"),
        "processes": (f"PID namespace with its own /proc, {procs}" if ns else
                      f"NONE: host processes visible; {procs}"),
        "memory": (f"{cg['memory']} for the whole run" if "memory" in cg else
                   "WEAK: RLIMIT_AS per process only") + (
            ", size-capped tmpfs work directory" if ns else
            " (WEAK: disk use not capped)"),
        "signals": "landlock scope" if abi >= 6 else (
            "PID namespace" if ns else "NONE: host processes can be signalled"),
        "privileges": {"root": f"uid {SANDBOX_UID}, no capabilities",
                       "user": "user namespace, no capabilities",
                       "landlock": "no capabilities",
                       "none": "NONE: the caller's privileges"}[p.mode],
        "environment": "allow-list (no API keys, proxies or ORTREX_*)",
    }


def gaps(report: dict[str, str]) -> list[str]:
    """The layers a support report marks missing or weak."""
    return [k for k, v in report.items() if v.startswith(("NONE", "WEAK")) or "(WEAK" in v]


def _mapped_mb() -> int:
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmSize:"):
                    return int(line.split()[1]) // 1024
    except OSError:
        pass
    return 0


def apply_limits(limits: Limits, cap_processes: bool) -> None:
    """rlimits for the calling process (inherited by anything it starts)."""
    mb = 1 << 20
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s + 1))
    address = (_mapped_mb() + limits.memory_mb) * mb
    resource.setrlimit(resource.RLIMIT_AS, (address, address))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits.file_mb * mb, limits.file_mb * mb))
    resource.setrlimit(resource.RLIMIT_NOFILE, (limits.max_files, limits.max_files))
    if cap_processes:  # per user, machine-wide: only where no pids cgroup caps the run
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.max_procs, limits.max_procs))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def own_cgroup_namespace() -> bool:
    """Enter a new cgroup namespace where the kernel allows it; whether it did."""
    # Called once the process has joined the run's cgroups, so they become the namespace's
    # root: /proc/self/cgroup then reads "0::/" and "N:ctrl:/", not the host's cgroup paths
    # (a container's id, the fork server's PID). Best effort: before Linux 4.6, or where a
    # container's seccomp profile refuses it, the paths stay visible (nothing else depends
    # on it).
    try:
        linux.unshare(linux.CLONE_NEWCGROUP)
    except OSError:
        return False
    return True


def confine(p: Plan, base: str, limits: Limits, has_pids_cgroup: bool) -> tuple[str, str]:
    """Confine the calling process (a fresh child of the run's supervisor, already in the
    run's namespaces and cgroups) for good; returns the program's working directory and its
    temporary directory."""
    ids = (SANDBOX_UID, SANDBOX_GID) if p.mode == "root" else (os.getuid(), os.getgid())
    with open("/proc/self/oom_score_adj", "w") as f:  # the program dies first, not its keeper
        f.write("1000")
    if p.namespaces:
        own_cgroup_namespace()
        linux.unshare(linux.CLONE_NEWNS)
        rootfs.build_and_enter(p.root, base, *ids)
        workdir, tmp = WORKDIR, "/tmp"
        read = ["/"]
        write = [WORKDIR, "/tmp", "/dev/shm", *(f"/dev/{d}" for d in ("null", "zero", "full"))]
    else:
        workdir, tmp = os.path.join(base, "work"), os.path.join(base, "tmp")
        read = [*p.root.readable(), base]
        write = [workdir, tmp, "/dev/null"]
    os.chdir(workdir)
    if p.mode == "root":
        linux.drop_bounding_set()  # while CAP_SETPCAP is still held
        os.setgroups([])  # then 0 -> 65534 clears every other capability set
        os.setresgid(SANDBOX_GID, SANDBOX_GID, SANDBOX_GID)
        os.setresuid(SANDBOX_UID, SANDBOX_UID, SANDBOX_UID)
    elif p.mode in ("user", "landlock"):
        linux.drop_capabilities()
    os.environ.clear()
    os.environ.update(_PROGRAM_ENV, HOME=workdir, TMPDIR=tmp)
    apply_limits(limits, cap_processes=not has_pids_cgroup)
    linux.no_new_privs()
    if p.landlock_abi:
        landlock.restrict(read, write)
    if p.seccomp:
        syscalls.load()
    sys.argv = ["main.py"]
    return workdir, tmp
