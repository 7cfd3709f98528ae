"""Thin wrappers over the Linux system calls the sandbox needs (namespaces, mounts, pivot_root,
capabilities); each raises ``OSError`` naming the call on failure."""

from __future__ import annotations

import ctypes
import os
import platform

CLONE_NEWNS, CLONE_NEWUTS, CLONE_NEWIPC = 0x20000, 0x4000000, 0x8000000
CLONE_NEWUSER, CLONE_NEWPID, CLONE_NEWNET = 0x10000000, 0x20000000, 0x40000000
CLONE_NEWCGROUP = 0x02000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC = 1, 2, 4, 8
MS_REMOUNT, MS_BIND, MS_REC, MS_PRIVATE = 32, 4096, 16384, 1 << 18
MNT_DETACH = 2
PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_CAP_AMBIENT = 38, 24, 47
_PR_CAP_AMBIENT_CLEAR_ALL = 4
_CAP_VERSION_3 = 0x20080522
# pivot_root has no glibc wrapper: its number per architecture.
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203,
                   "s390x": 217}

_LIBC = ctypes.CDLL(None, use_errno=True)


def libc() -> ctypes.CDLL:
    """The C library (errno kept)."""
    return _LIBC


def _check(result: int, what: str) -> None:
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def unshare(flags: int) -> None:
    """Move the caller into new namespaces (``CLONE_NEW*`` flags)."""
    _check(_LIBC.unshare(ctypes.c_int(flags)), "unshare")


def mount(source: str | None, target: str, fstype: str | None, flags: int,
          data: str | None = None) -> None:
    """mount(2)."""
    _check(_LIBC.mount(_enc(source), target.encode(), _enc(fstype), ctypes.c_ulong(flags),
                       _enc(data)), f"mount {target}")


def _enc(s: str | None) -> bytes | None:
    return None if s is None else s.encode()


_KEPT_FLAGS = MS_NOEXEC | 1024 | 2048 | 4096  # noexec, noatime, nodiratime, relatime


def bind(source: str, target: str, read_only: bool = True, recursive: bool = True) -> None:
    """Bind ``source`` on ``target``; read-only binds need a second, remounting call."""
    mount(source, target, None, MS_BIND | (MS_REC if recursive else 0))
    if read_only:
        remount_read_only(target)


def remount_read_only(target: str) -> None:
    """Make the mount at ``target`` read-only, nosuid and nodev. The flags a user namespace may
    not drop (atime, noexec) are kept as they are, or the kernel refuses the remount."""
    kept = os.statvfs(target).f_flag & _KEPT_FLAGS
    mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | kept)


def umount(target: str, flags: int = MNT_DETACH) -> None:
    """umount2(2)."""
    _check(_LIBC.umount2(target.encode(), ctypes.c_int(flags)), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    """pivot_root(2)."""
    nr = _SYS_PIVOT_ROOT.get(platform.machine())
    if nr is None:
        raise OSError(38, f"pivot_root: unknown system call number on {platform.machine()}")
    _check(_LIBC.syscall(ctypes.c_long(nr), new_root.encode(), put_old.encode()),
           "pivot_root")


def no_new_privs() -> None:
    """No execve may ever grant privileges again (required by Landlock and seccomp)."""
    _check(_LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "prctl(NO_NEW_PRIVS)")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_bounding_set() -> None:
    """Empty the bounding and ambient sets (no execve can regain a capability)."""
    for cap in range(64):
        if _LIBC.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) != 0 and ctypes.get_errno() == 22:
            break  # EINVAL: past the last capability
    _LIBC.prctl(PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)


def drop_capabilities() -> None:
    """Empty every capability set of the caller."""
    drop_bounding_set()
    head = _CapHeader(_CAP_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_LIBC.capset(ctypes.byref(head), data), "capset")


def write_file(path: str, text: str) -> None:
    """Write a small control file (procfs, cgroupfs) in one call."""
    fd = os.open(path, os.O_WRONLY | os.O_CLOEXEC)
    try:
        os.write(fd, text.encode())
    finally:
        os.close(fd)


def close_fds_above(fd: int) -> None:
    """Close every descriptor above ``fd`` (one close_range(2) call where the kernel has it)."""
    os.closerange(fd + 1, 1 << 20)
