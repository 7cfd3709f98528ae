"""The seccomp filter of sandboxed programs, built with libseccomp (through ``pyseccomp``, which
also gets the architecture details right: a foreign-ABI system call kills the process).

Everything is allowed except: sockets of any family but IPv4 / IPv6 (so no Unix socket, whose
pathname form Landlock does not cover; the network namespace has no interface anyway), namespace
and mount calls, clone with namespace flags (clone3, whose flags seccomp cannot see, answers
ENOSYS so the C library falls back to clone), io_uring (its operations bypass seccomp), tracing
and other processes' memory, kernel keyrings, BPF, perf, userfaultfd, modules, clocks, reboot.
"""

from __future__ import annotations

import errno
from functools import lru_cache
from typing import Any

_DENIED = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd", "bpf",
    "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key", "unshare", "setns",
    "mount", "umount2", "pivot_root", "chroot", "mount_setattr", "fsopen", "fsmount",
    "fsconfig", "fspick", "move_mount", "open_tree", "open_by_handle_at", "name_to_handle_at",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "kexec_load", "kexec_file_load",
    "init_module", "finit_module", "delete_module", "reboot", "swapon", "swapoff", "syslog",
    "acct", "quotactl", "settimeofday", "clock_settime", "clock_adjtime", "adjtimex",
    "lookup_dcookie", "vhangup", "iopl", "ioperm", "uselib", "nfsservctl",
)
_NS_FLAGS = (0x80, 0x20000, 0x2000000, 0x4000000, 0x8000000, 0x10000000, 0x20000000,
             0x40000000)  # time, mount, cgroup, uts, ipc, user, pid, net
_AF_INET, _AF_INET6 = 2, 10


@lru_cache(maxsize=1)
def _module() -> Any:
    try:
        import pyseccomp
    except (ImportError, OSError, AttributeError, TypeError):  # no libseccomp on this machine
        return None
    return pyseccomp


def available() -> bool:
    """Whether a seccomp filter can be built here (libseccomp found)."""
    return _module() is not None


@lru_cache(maxsize=1)
def program_filter() -> Any:
    """The filter (built once per process; ``load()`` it in the program's process)."""
    sc = _module()
    if sc is None:
        return None
    f = sc.SyscallFilter(sc.ALLOW)
    deny = sc.ERRNO(errno.EPERM)
    for name in _DENIED:
        try:
            f.add_rule(deny, name)
        except (OSError, ValueError, RuntimeError):  # not a system call on this architecture
            continue
    f.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    for flag in _NS_FLAGS:
        f.add_rule(deny, "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    no_family = sc.ERRNO(errno.EAFNOSUPPORT)
    f.add_rule(no_family, "socket", sc.Arg(0, sc.LT, _AF_INET))
    f.add_rule(no_family, "socket", sc.Arg(0, sc.GT, _AF_INET6))
    for family in range(_AF_INET + 1, _AF_INET6):
        f.add_rule(no_family, "socket", sc.Arg(0, sc.EQ, family))
    return f


def load() -> bool:
    """Install the filter on the calling process (after ``no_new_privs``); False where
    libseccomp is missing."""
    f = program_filter()
    if f is None:
        return False
    f.load()
    return True
