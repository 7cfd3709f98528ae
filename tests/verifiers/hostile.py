"""Hostile programs and the host-side probes that check they failed (shared by the hostile
suites)."""

from __future__ import annotations

import contextlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path

# Scans the program's own writable memory for ``ORTREX-MARK-<32 hex>`` and prints how many
# occurrences hash to the given sha256 (the scanning program never holds the marker itself).
MEMORY_SCAN = '''
import ctypes, hashlib, re
want = {digest!r}
pattern = re.compile(rb"ORTREX-MARK-[0-9a-f]{{32}}")
found = 0
for line in open("/proc/self/maps"):
    addr, perms = line.split()[:2]
    if not perms.startswith("rw"):
        continue
    lo, hi = (int(x, 16) for x in addr.split("-"))
    try:
        blob = ctypes.string_at(lo, hi - lo)
    except Exception:
        continue
    for m in pattern.finditer(blob):
        if hashlib.sha256(m.group()).hexdigest() == want:
            found += 1
    del blob
print("FOUND", found)
'''


def marker() -> str:
    """A fresh ``ORTREX-MARK-<32 hex>``."""
    return "ORTREX-MARK-" + os.urandom(16).hex()


class UnixListener:
    """A pathname and an abstract Unix socket on the host that count every connection."""

    def __init__(self, directory: Path) -> None:
        directory.chmod(0o777)
        self.path = str(directory / "host.sock")
        self.abstract = f"\0ortrex-test-{os.getpid()}-{os.urandom(4).hex()}"
        self.hits = 0
        self.socks = []
        for addr in (self.path, self.abstract):
            s = socket.socket(socket.AF_UNIX)
            s.bind(addr)
            s.listen(8)
            s.settimeout(0.2)
            self.socks.append(s)
        os.chmod(self.path, 0o777)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        while not self.stop.is_set():
            for s in self.socks:
                with contextlib.suppress(TimeoutError, OSError):
                    conn, _ = s.accept()
                    self.hits += 1
                    conn.sendall(b"root shell> ")
                    conn.close()

    def close(self) -> None:
        self.stop.set()
        self.thread.join(2)
        for s in self.socks:
            s.close()


@contextlib.contextmanager
def unix_listener(directory: Path) -> Iterator[UnixListener]:
    """A host listener for the test's duration."""
    listener = UnixListener(directory)
    try:
        yield listener
    finally:
        listener.close()


def processes_with(needle: bytes) -> list[int]:
    """Host PIDs whose command line holds ``needle``."""
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            with contextlib.suppress(OSError):
                if needle in Path(f"/proc/{pid}/cmdline").read_bytes():
                    out.append(int(pid))
    return out


def wait_until_gone(needle: bytes, seconds: float = 3.0) -> list[int]:
    """The processes still holding ``needle`` after up to ``seconds``."""
    deadline = time.monotonic() + seconds
    left = processes_with(needle)
    while left and time.monotonic() < deadline:
        time.sleep(0.05)
        left = processes_with(needle)
    return left


def leftover_cgroups(creator: int) -> list[str]:
    """Run cgroups made by process ``creator`` (a fork server, or this process for cold runs)
    still on the machine."""
    from ortrex.verifiers.sandbox import cgroups

    out = []
    for h in cgroups.hierarchies():
        with contextlib.suppress(OSError):
            out += [n for n in os.listdir(h.base) if n.startswith(f"ortrex-sandbox-{creator}-")]
    return out
