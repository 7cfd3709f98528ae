"""Landlock (Linux >= 5.13): the calling process may read only beneath the paths it is given,
change files only beneath the writable ones, make no TCP connection (ABI >= 4) and signal or
reach abstract sockets of no process outside its domain (ABI >= 6)."""

from __future__ import annotations

import ctypes
import os
from functools import lru_cache

from ortrex.verifiers.sandbox.linux import libc, no_new_privs

_SYS_CREATE, _SYS_ADD_RULE, _SYS_RESTRICT = 444, 445, 446  # the same on every architecture
_RULE_PATH_BENEATH = 1

EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_CHANGE = sum(1 << b for b in range(4, 13))  # remove / make dirs, files, sockets, fifos, links
REFER, TRUNCATE, IOCTL_DEV = 1 << 13, 1 << 14, 1 << 15
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | TRUNCATE | IOCTL_DEV
_NET_TCP = (1 << 0) | (1 << 1)  # bind, connect
_SCOPE_ALL = (1 << 0) | (1 << 1)  # abstract unix sockets, signals


@lru_cache(maxsize=1)
def abi() -> int:
    """The kernel's Landlock ABI version (0 when unavailable)."""
    r = libc().syscall(_SYS_CREATE, None, ctypes.c_size_t(0), ctypes.c_uint32(1))
    return max(int(r), 0)


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64),
                ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


def _handled(level: int) -> int:
    fs = EXECUTE | WRITE_FILE | READ_FILE | READ_DIR | _CHANGE
    return fs | (REFER if level >= 2 else 0) | (TRUNCATE if level >= 3 else 0) | \
        (IOCTL_DEV if level >= 5 else 0)


def restrict(read: list[str], write: list[str]) -> bool:
    """Landlock the calling process: reads beneath ``read`` (and ``write``), changes beneath
    ``write``; missing paths are skipped. False where Landlock is unavailable."""
    level = abi()
    if level == 0:
        return False
    fs = _handled(level)
    attr = _RulesetAttr(fs, _NET_TCP if level >= 4 else 0, _SCOPE_ALL if level >= 6 else 0)
    size = 24 if level >= 6 else (16 if level >= 4 else 8)
    lc = libc()
    ruleset = lc.syscall(_SYS_CREATE, ctypes.byref(attr), ctypes.c_size_t(size),
                         ctypes.c_uint32(0))
    if ruleset < 0:
        return False
    try:
        reading = EXECUTE | READ_FILE | READ_DIR
        for paths, rights in ((read, reading), (write, fs)):
            for path in paths:
                try:
                    fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
                except OSError:
                    continue
                try:
                    allowed = rights if os.path.isdir(path) else rights & _FILE_RIGHTS
                    rule = _PathBeneath(allowed, fd)
                    if lc.syscall(_SYS_ADD_RULE, ctypes.c_int(ruleset),
                                  ctypes.c_int(_RULE_PATH_BENEATH), ctypes.byref(rule),
                                  ctypes.c_uint32(0)) != 0:
                        return False
                finally:
                    os.close(fd)
        no_new_privs()
        return lc.syscall(_SYS_RESTRICT, ctypes.c_int(ruleset), ctypes.c_uint32(0)) == 0
    finally:
        os.close(ruleset)
