"""What a sandboxed program learns of the host from /proc: its cgroups read as the root of a
cgroup namespace of its own (no container id, no fork server PID, no run cgroup name), in
every namespace mode, warm and cold, for the program and anything it starts; /proc/self/
mountinfo names no host path beyond the identity-bound system directories it already sees."""

from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from ortrex.verifiers.sandbox import isolation
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.server import Job, RunResult, Sandbox, hidden_paths, run_cold
from tests.verifiers.test_sandbox import available_modes

QUICK = Limits(wall_s=10, cpu_s=10, memory_mb=1024)
NAMESPACES = isolation.plan().namespaces
NS_MODES = [m for m in available_modes() if m in ("root", "user")]
pytestmark = pytest.mark.skipif(not NAMESPACES, reason="no namespaces on this machine "
                                                       "(ortrex doctor)")

# Every cgroup view the program can open: its own, its thread's, PID 1's of its namespace,
# and a child process's (a fork sees what its parent sees).
READ_CGROUPS = '''
import json, os, subprocess, sys
views = {p: open(p).read() for p in ("/proc/self/cgroup", "/proc/thread-self/cgroup",
                                     "/proc/1/cgroup")}
views["child"] = subprocess.run([sys.executable, "-c",
                                 "print(open('/proc/self/cgroup').read(), end='')"],
                                capture_output=True, text=True).stdout
print(json.dumps(views))
'''


def host_cgroup_paths() -> set[str]:
    """The host's own cgroup paths (of this test process) that are not the root."""
    paths = set()
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        path = line.split(":", 2)[2]
        if path != "/":
            paths |= {path, *(p for p in path.split("/") if p)}
    return paths


@pytest.fixture(scope="module")
def warms() -> Iterator[dict[str, Sandbox]]:
    """A warm sandbox per namespace mode."""
    sandboxes = {m: Sandbox(mode=m) for m in NS_MODES}
    try:
        yield sandboxes
    finally:
        for sb in sandboxes.values():
            sb.close()


Runner = Callable[[Job], RunResult]


@pytest.fixture(params=[*(f"warm-{m}" for m in NS_MODES), "cold"])
def run(request: pytest.FixtureRequest, warms: dict[str, Sandbox]) -> Runner:
    """A warm run in each namespace mode, and a cold run."""
    kind = request.param
    return warms[kind[5:]].run if kind.startswith("warm-") else run_cold


def test_proc_cgroup_shows_no_host_path(run: Runner) -> None:
    r = run(Job(READ_CGROUPS, capture=False, limits=QUICK))
    assert r.status == "ok", r.stderr
    views = json.loads(r.stdout)
    host = Path("/proc/self/cgroup").read_text().splitlines()
    for where, text in views.items():
        lines = text.splitlines()
        # The same hierarchies as the host, each at its root: "0::/", "N:ctrl:/".
        assert [ln.rsplit(":", 1)[0] for ln in lines] == [
            ln.rsplit(":", 1)[0] for ln in host], (where, text)
        assert all(ln.endswith(":/") for ln in lines), (where, text)
    # Nothing of the host's paths, nor the run cgroup's name (it holds the server's PID).
    for needle in (*host_cgroup_paths(), "ortrex-sandbox"):
        assert needle not in r.stdout, needle


def test_mountinfo_names_only_identity_binds(run: Runner, tmp_path: Path) -> None:
    r = run(Job("print(open('/proc/self/mountinfo').read())", capture=False, limits=QUICK))
    assert r.status == "ok", r.stderr
    mounts = [ln.split() for ln in r.stdout.splitlines() if ln]
    assert mounts
    for m in mounts:
        root, point, fstype = m[3], m[4], m[m.index("-") + 1]
        # A host directory is bound at its own path (its root is its mount point); the run's
        # tmpfs, proc and the device nodes have roots inside their own filesystems.
        assert root == point or fstype in ("tmpfs", "proc", "devtmpfs"), m
    # No hidden directory, no test directory, no run directory of the host is named.
    for needle in (*hidden_paths(), str(tmp_path), os.getcwd() + "/tests", "ortrex-sandbox"):
        assert needle not in r.stdout, needle


def test_no_cgroup_namespace_allowed_is_no_failure() -> None:
    # A process without CAP_SYS_ADMIN (root dropped to nobody, or an ordinary user) is refused
    # the unshare: it is told so, and goes on.
    pid = os.fork()
    if pid == 0:
        code = 3
        try:
            if os.geteuid() == 0:
                os.setresgid(65534, 65534, 65534)
                os.setresuid(65534, 65534, 65534)
            before = Path("/proc/self/cgroup").read_text()
            entered = isolation.own_cgroup_namespace()
            code = 0 if not entered and Path("/proc/self/cgroup").read_text() == before else 1
        finally:
            os._exit(code)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
