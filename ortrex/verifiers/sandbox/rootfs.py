"""The minimal root a sandboxed program sees: the interpreter, its libraries and the system's
shared libraries read-only, its own work directory and ``/tmp``, a few device nodes, a fresh
``/proc`` of its PID namespace, and nothing else (no home, repository, ``/run``, ``/var``,
benchmark data or host sockets). ortrex's own package is hidden even where it lies inside a
visible directory (an installed wheel in site-packages).

The plan is computed once per process; the build runs in the program's process, inside its
own mount namespace, before it drops its privileges.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ortrex.verifiers.sandbox import linux

WORKDIR = "/sandbox"
_SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
_ETC_FILES = ("/etc/ld.so.cache", "/etc/localtime")
_DEVICES = ("null", "zero", "full", "random", "urandom")
_PACKAGE_DIRS = ("site-packages", "dist-packages")


@dataclass(frozen=True)
class RootPlan:
    """What the minimal root holds, in host paths."""

    binds: tuple[str, ...]  # directories and files bound read-only at the same path
    links: tuple[tuple[str, str], ...]  # symlinks recreated (path, target): /lib -> usr/lib
    masks: tuple[str, ...]  # directories inside a bind hidden under an empty read-only tmpfs

    def readable(self) -> list[str]:
        """Every path a program may read (for Landlock where there is no mount namespace)."""
        return [*self.binds, "/proc", *(f"/dev/{d}" for d in _DEVICES)]


def _chain(path: str) -> tuple[str, list[tuple[str, str]]]:
    """The real path of ``path`` and every symlink met on the way, as (link, target)."""
    links: list[tuple[str, str]] = []
    parts = Path(os.path.abspath(path)).parts[1:]
    cur = "/"
    todo = list(parts)
    hops = 0
    while todo:
        nxt = os.path.join(cur, todo.pop(0))
        if os.path.islink(nxt) and hops < 40:
            hops += 1
            target = os.readlink(nxt)
            links.append((nxt, target))
            todo = list(Path(target).parts[1:] if target.startswith("/") else
                        Path(target).parts) + todo
            if target.startswith("/"):
                cur = "/"
            continue
        cur = os.path.normpath(nxt)
    return cur, links


def inside(path: str, parent: str) -> bool:
    """Whether ``path`` is ``parent`` or lies under it."""
    return path == parent or path.startswith(parent.rstrip("/") + "/")


def make_plan(hidden: tuple[str, ...] = ()) -> RootPlan:
    """The plan for this interpreter: its prefixes and ``sys.path``, the system libraries;
    ``hidden`` paths (and ortrex's package) masked where a bind would show them."""
    wanted: list[str] = []
    links: dict[str, str] = {}
    for p in _SYSTEM:
        if os.path.islink(p):
            links[p] = os.readlink(p)
        elif os.path.isdir(p):
            wanted.append(p)
    ortrex_pkg = str(Path(__file__).resolve().parents[2])
    # A source checkout on sys.path (PYTHONPATH=.) would show the whole repository: only
    # installed packages' directories are bound.
    checkout = os.path.dirname(ortrex_pkg)
    paths = [p for p in sys.path if p and (os.path.realpath(p) != checkout or
                                           os.path.basename(p) in _PACKAGE_DIRS)]
    candidates = [sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix,
                  *paths, *_ETC_FILES]
    for p in candidates:
        if not os.path.exists(p):
            continue
        real, chain = _chain(p)
        if real in ("/", "/tmp"):
            # A script's folder on sys.path (python /tmp/x.py): binding it would show the
            # host's whole /tmp (or more); what lies inside /tmp is bound path by path.
            continue
        links.update(chain)
        wanted.append(real)
    binds: list[str] = []
    for p in sorted(set(wanted), key=lambda s: (s.count("/"), s)):
        if not any(inside(p, b) for b in binds):
            binds.append(p)
    # Links inside a bound directory come with it.
    kept_links = tuple(sorted((k, v) for k, v in links.items()
                              if not any(inside(k, b) for b in binds)))
    masks = []
    for h in (ortrex_pkg, *hidden):
        if h and os.path.exists(h):
            real, _ = _chain(h)
            if any(inside(real, b) and real != b for b in binds):
                masks.append(real)
    return RootPlan(tuple(binds), kept_links, tuple(sorted(set(masks))))


def _mountpoint(root: str, path: str, is_dir: bool) -> str:
    target = root + path
    if is_dir:
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT, 0o644))
    return target


def build_and_enter(plan: RootPlan, base: str, uid: int, gid: int) -> None:
    """In a fresh mount namespace: assemble the root under ``base/root`` from the plan and
    the run's ``base/{work,tmp,shm}``, then make it ``/`` (the host tree detached)."""
    root = os.path.join(base, "root")
    linux.bind(root, root, read_only=False, recursive=False)  # pivot_root needs a mount
    # The run's /tmp first: what the plan binds inside /tmp (an interpreter in a virtual
    # environment there) is mounted on top of it, not hidden under it.
    linux.bind(os.path.join(base, "tmp"), _mountpoint(root, "/tmp", True), read_only=False,
               recursive=False)
    for path in plan.binds:
        linux.bind(path, _mountpoint(root, path, os.path.isdir(path)))
    for path, target in plan.links:
        link = root + path
        os.makedirs(os.path.dirname(link), exist_ok=True)
        if not os.path.lexists(link):
            os.symlink(target, link)
    for path in plan.masks:
        linux.mount("tmpfs", root + path, "tmpfs", linux.MS_RDONLY | linux.MS_NOSUID |
                    linux.MS_NODEV | linux.MS_NOEXEC, "size=4k,mode=0555")
    os.makedirs(root + "/dev", exist_ok=True)
    for dev in _DEVICES:
        linux.bind(f"/dev/{dev}", _mountpoint(root, f"/dev/{dev}", False), read_only=False,
                   recursive=False)
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"),
                         ("stdout", "/proc/self/fd/1"), ("stderr", "/proc/self/fd/2")):
        os.symlink(target, f"{root}/dev/{name}")
    for sub, path in (("shm", "/dev/shm"), ("work", WORKDIR)):
        linux.bind(os.path.join(base, sub), _mountpoint(root, path, True), read_only=False,
                   recursive=False)
    os.makedirs(root + "/etc", exist_ok=True)
    for name, text in (("passwd", f"sandbox:x:{uid}:{gid}:sandbox:{WORKDIR}:/bin/sh\n"),
                       ("group", f"sandbox:x:{gid}:\n")):
        if not os.path.exists(f"{root}/etc/{name}"):
            with open(f"{root}/etc/{name}", "w") as f:
                f.write(text)
    linux.mount("proc", _mountpoint(root, "/proc", True), "proc",
                linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC)
    old = os.path.join(root, ".old")
    os.mkdir(old)
    linux.pivot_root(root, old)
    os.chdir("/")
    linux.umount("/.old")
    os.rmdir("/.old")
    linux.remount_read_only("/")
