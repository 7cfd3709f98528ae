"""One set of cgroups per sandboxed run: a memory cap for everything the run holds (processes,
memfds, tmpfs pages), a process cap, and a way to kill every process of the run at once
(``cgroup.kill``, or SIGKILL to every listed PID until none is left).

cgroup v2 and v1 hierarchies (and hybrids: v1 controllers beside a v2 tree used only for
``cgroup.kill``) are found in ``/proc/self/mountinfo``; what cannot be created (no
permission, no controller) is simply absent and reported as such.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import signal
import time
from dataclasses import dataclass, field
from functools import lru_cache

from ortrex.verifiers.sandbox.linux import write_file

_COUNTER = itertools.count()
_LEFT: list[str] = []  # cgroups whose killed processes were still being reaped


@dataclass(frozen=True)
class Hierarchy:
    """A mounted cgroup hierarchy we may create children in."""

    version: int  # 1 or 2
    base: str  # directory new cgroups are created under
    controllers: frozenset[str]


def _own_path(version: int, controller: str) -> str:
    """This process's cgroup path in a hierarchy (from /proc/self/cgroup)."""
    try:
        with open("/proc/self/cgroup") as f:
            for line in f:
                _, names, path = line.rstrip("\n").split(":", 2)
                if (version == 2 and names == "") or controller in names.split(","):
                    return path
    except OSError:
        pass
    return "/"


def _probe(base: str) -> set[str] | None:
    """The interface files of a new child cgroup of ``base`` (None: cannot create one)."""
    probe = os.path.join(base, f"ortrex-probe-{os.getpid()}-{next(_COUNTER)}")
    try:
        os.mkdir(probe)
    except OSError:
        return None
    try:
        return set(os.listdir(probe))
    finally:
        os.rmdir(probe)


@lru_cache(maxsize=1)
def hierarchies() -> tuple[Hierarchy, ...]:
    """The cgroup hierarchies this process may create run cgroups in."""
    found: list[Hierarchy] = []
    try:
        with open("/proc/self/mountinfo") as f:
            lines = f.read().splitlines()
    except OSError:
        return ()
    for line in lines:
        pre, _, post = line.partition(" - ")
        fields, post_fields = pre.split(), post.split()
        if len(fields) < 5 or len(post_fields) < 3:
            continue
        mount_point, fstype, options = fields[4], post_fields[0], post_fields[2]
        if fstype == "cgroup2":
            ctl = set(_read(os.path.join(mount_point, "cgroup.subtree_control")).split())
            # v2 forbids processes in inner nodes: run cgroups are children of the root.
            files = _probe(mount_point)
            if files is not None:
                kill = {"kill"} if "cgroup.kill" in files else set()
                found.append(Hierarchy(2, mount_point, frozenset(kill | ctl)))
        elif fstype == "cgroup":
            wanted = {"memory", "pids"} & set(options.split(","))
            if not wanted:
                continue
            own = os.path.join(mount_point, _own_path(1, next(iter(wanted))).lstrip("/"))
            for base in (own, mount_point):  # under our own cgroup: its limits still apply
                if os.path.isdir(base) and _probe(base) is not None:
                    found.append(Hierarchy(1, base, frozenset(wanted)))
                    break
    return tuple(found)


def _read(path: str) -> str:
    try:
        with open(path) as f:
            return f.read()
    except OSError:
        return ""


def available() -> dict[str, str]:
    """Which run-cgroup features this process can use: memory, pids, kill (with version)."""
    out: dict[str, str] = {}
    for h in hierarchies():
        if "kill" in h.controllers:
            out.setdefault("kill", "cgroup v2 cgroup.kill")
        for c in ("memory", "pids"):
            if c in h.controllers:
                out.setdefault(c, f"cgroup v{h.version} {c}")
    return out


@dataclass
class RunCgroup:
    """The cgroups of one run (one directory per hierarchy)."""

    dirs: list[tuple[Hierarchy, str]] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        """The cgroup directories (what a process joins)."""
        return [d for _, d in self.dirs]


def create(memory_mb: int, max_procs: int) -> RunCgroup:
    """New cgroups for one run, capped at ``memory_mb`` (no swap) and ``max_procs`` tasks."""
    cg = RunCgroup()
    name = f"ortrex-sandbox-{os.getpid()}-{next(_COUNTER)}"
    mem = str(memory_mb << 20)
    taken: set[str] = set()
    for h in hierarchies():
        wanted = {"memory", "pids", "kill"} & h.controllers - taken
        if not wanted:
            continue
        path = os.path.join(h.base, name)
        try:
            os.mkdir(path)
        except OSError:
            continue
        settings: list[tuple[str, str]] = []
        if "memory" in wanted:
            settings += [("memory.max", mem), ("memory.swap.max", "0")] if h.version == 2 else \
                [("memory.limit_in_bytes", mem), ("memory.memsw.limit_in_bytes", mem)]
        if "pids" in wanted:
            settings.append(("pids.max", str(max_procs)))
        for key, value in settings:
            if os.path.exists(os.path.join(path, key)):
                with contextlib.suppress(OSError):  # swap accounting may be off
                    write_file(os.path.join(path, key), value)
        taken |= wanted
        cg.dirs.append((h, path))
    return cg


def join(paths: list[str]) -> None:
    """Move the calling process into every cgroup of ``paths``."""
    for path in paths:
        write_file(os.path.join(path, "cgroup.procs"), "0")


def _pids(path: str) -> list[int]:
    return [int(p) for p in _read(os.path.join(path, "cgroup.procs")).split()]


def kill(cg: RunCgroup, wait_s: float = 2.0) -> bool:
    """SIGKILL every process of the run (those that left their process group or session
    included); True when every cgroup is empty afterwards."""
    for h, path in cg.dirs:
        if h.version == 2 and os.path.exists(os.path.join(path, "cgroup.kill")):
            with contextlib.suppress(OSError):
                write_file(os.path.join(path, "cgroup.kill"), "1")
    deadline = time.monotonic() + wait_s
    while True:
        alive = [p for _, path in cg.dirs for p in _pids(path)]
        if not alive:
            return True
        for pid in alive:  # v1 has no cgroup.kill; pids.max stops a fork race
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        if time.monotonic() > deadline:
            return False
        time.sleep(0.002)


def oom_killed(cg: RunCgroup) -> bool:
    """Whether the kernel killed a process of the run for going over its memory cap."""
    for h, path in cg.dirs:
        text = _read(os.path.join(path, "memory.events" if h.version == 2 else
                                  "memory.oom_control"))
        for line in text.splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip() not in ("", "0"):
                return True
    return False


def remove(cg: RunCgroup | None) -> None:
    """Remove a run's cgroups; one still busy (its killed processes not yet reaped by the
    kernel) is retried on later calls instead of being waited for."""
    for p in [*_LEFT, *(cg.paths if cg else [])]:
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


def remove_left(wait_s: float = 2.0) -> None:
    """Retry the busy cgroups for up to ``wait_s`` (at exit)."""
    deadline = time.monotonic() + wait_s
    while _LEFT and time.monotonic() < deadline:
        remove(None)
        if _LEFT:
            time.sleep(0.02)
