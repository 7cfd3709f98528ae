"""Deadlines on every wait for the fork server and its template: a server or template stopped
for real (SIGSTOP) mid-run, or a server stuck in its start, is an error (a "sandbox failure"
result, or RuntimeError at the start) within its deadline, never a hang; the stuck processes
are killed, and the scoring pool's next sandbox is a fresh working one."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest

from ortrex.verifiers.sandbox import server as sandbox_mod
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.pool import SandboxPool
from ortrex.verifiers.sandbox.server import Job, RunResult, Sandbox

WALL = Limits(wall_s=1.0, cpu_s=5, memory_mb=1024)
SLEEPY = Job("import time\ntime.sleep(0.8)\nprint('woke')\n", capture=False, limits=WALL)
HELLO = Job("print('hi')", capture=False, limits=WALL)


def children(pid: int) -> list[int]:
    """The live children of a process."""
    try:
        text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    except FileNotFoundError:
        return []
    return [int(x) for x in text.split()]


def gone(pid: int) -> bool:
    """Whether a process no longer runs (absent, or a zombie waiting for its parent)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return True
    return stat.rsplit(")", 1)[1].split()[0] in ("Z", "X")


def wait_for(cond: object, timeout: float = 10.0) -> None:
    """Poll ``cond()`` until it holds."""
    deadline = time.monotonic() + timeout
    while not cond():  # type: ignore[operator]
        assert time.monotonic() < deadline, "condition not reached"
        time.sleep(0.005)


def template_of(sb: Sandbox) -> int:
    """The fork server's template: its only child."""
    (pid,) = children(sb.proc.pid)
    return pid


def test_stopped_server_mid_run_is_an_error_within_the_deadline(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_mod, "_GRACE_S", 0.5)  # the caller's side: wall + 2 * 0.5
    sb = Sandbox(template_s=0.5)
    try:
        assert sb.run(HELLO).stdout == "hi\n"
        template = template_of(sb)
        got: list[RunResult] = []
        t0 = time.monotonic()
        runner = threading.Thread(target=lambda: got.append(sb.run(SLEEPY)))
        runner.start()
        # Mid-run: once the template has forked the run's supervisor, stop the server.
        wait_for(lambda: children(template))
        os.kill(sb.proc.pid, signal.SIGSTOP)
        runner.join(10)
        took = time.monotonic() - t0
        assert not runner.is_alive(), "Sandbox.run hung on a stopped server"
        (r,) = got
        assert r.status == "error", r
        assert r.stderr == "sandbox failure: the fork server did not answer within 2.5 s"
        assert 2.5 <= took < 4.0, took
        # The stopped server and its template are killed (the whole process group).
        assert sb.proc.poll() == -signal.SIGKILL
        wait_for(lambda: gone(template))
        with pytest.raises(RuntimeError, match="sandbox fork server died"):
            sb.run(HELLO)
    finally:
        sb.close()


def test_the_pool_replaces_a_stopped_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sandbox_mod, "_GRACE_S", 0.5)
    pool = SandboxPool()
    try:
        sb = pool.get()
        sb.template_s = 0.5  # the caller's wait: wall 1 + 2 * 0.5 + 0.5
        os.kill(sb.proc.pid, signal.SIGSTOP)
        t0 = time.monotonic()
        r = sb.run(HELLO)
        assert r.status == "error" and r.stderr.startswith("sandbox failure:"), r
        assert time.monotonic() - t0 < 4.0
        fresh = pool.get()
        assert fresh is not sb and fresh.proc.poll() is None
        r = fresh.run(HELLO)
        assert r.status == "ok" and r.stdout == "hi\n", r
        assert pool.get() is fresh  # a live server is kept
    finally:
        pool.close()


def test_stopped_template_fails_the_run_within_its_deadline() -> None:
    sb = Sandbox(template_s=1.0)
    try:
        assert sb.run(HELLO).stdout == "hi\n"
        template = template_of(sb)
        os.kill(template, signal.SIGSTOP)
        t0 = time.monotonic()
        r = sb.run(HELLO)
        took = time.monotonic() - t0
        assert r.status == "error", r
        assert r.stderr == "sandbox failure: the sandbox template did not answer within 1 s"
        assert 1.0 <= took < 2.5, took
        # The server killed the stuck template, and is itself dead, for the pool to restart.
        wait_for(lambda: gone(template))
        assert sb.proc.poll() is not None
    finally:
        sb.close()
    with Sandbox() as again:  # nothing of the stuck one is in the way of a new server
        assert again.run(HELLO).stdout == "hi\n"


def test_server_stuck_in_its_start_is_killed_at_the_handshake_deadline(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A preload that never finishes importing (the server's cwd, so its sys.path, is ours).
    pid_file = tmp_path / "server.pid"
    (tmp_path / "ortrex_test_stuck_preload.py").write_text(
        f"import os, time\nopen({str(pid_file)!r}, 'w').write(str(os.getpid()))\n"
        "time.sleep(120)\n")
    monkeypatch.chdir(tmp_path)
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"^sandbox fork server did not start within 2 s$"):
        Sandbox(preload=("ortrex_test_stuck_preload",), handshake_s=2.0)
    assert 2.0 <= time.monotonic() - t0 < 4.0
    server = int(pid_file.read_text())
    assert gone(server)
