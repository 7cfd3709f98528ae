"""Hostile programs are contained: the host survives, time bounds hold, nothing outside changes."""

from __future__ import annotations

import http.server
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import ClassVar

import pytest

from ortrex.verifiers import isolation
from ortrex.verifiers.isolation import Limits
from ortrex.verifiers.sandbox import Job, Sandbox, run_cold

FAST = Limits(wall_s=3.0, cpu_s=5, memory_mb=1024)
SUPPORT = isolation.support()


def need(aspect: str) -> None:
    """These tests check isolation the kernel gives; say loudly when it gives none."""
    if SUPPORT[aspect].startswith("NONE"):
        pytest.skip(f"this kernel gives no {aspect} isolation: {SUPPORT[aspect]}")


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


def test_isolation_is_reported(sandbox: Sandbox) -> None:
    r = sandbox.run(Job("print('hi')"))
    assert r.status == "ok" and r.stdout == "hi\n"
    assert r.isolation == SUPPORT and set(SUPPORT) == {"network", "filesystem", "processes",
                                                        "signals"}


def test_infinite_loop_is_killed_on_time(sandbox: Sandbox) -> None:
    t0 = time.monotonic()
    r = sandbox.run(Job("while True:\n    pass\n", limits=FAST))
    took = time.monotonic() - t0
    assert r.status == "timeout"
    assert FAST.wall_s <= took < FAST.wall_s + 1.5


def test_cpu_limit() -> None:
    with Sandbox() as sb:
        r = sb.run(Job("while True:\n    pass\n", limits=Limits(wall_s=10, cpu_s=1)))
    assert r.status == "cpu_limit" and r.seconds < 5


def _processes() -> int:
    return len([p for p in os.listdir("/proc") if p.isdigit()])


def test_fork_bomb_is_contained(sandbox: Sandbox) -> None:
    need("processes")
    before = _processes()
    code = ("import os\nwhile True:\n    try:\n        os.fork()\n"
            "    except OSError:\n        pass\n")
    t0 = time.monotonic()
    r = sandbox.run(Job(code, limits=FAST))
    assert r.status in ("timeout", "killed")
    assert time.monotonic() - t0 < FAST.wall_s + 2.0
    # Every forked copy is gone. The count is machine-wide and the other test worker starts
    # processes too: leaked copies would stay, that noise comes and goes, so one clean
    # sample within 5 s is the test.
    deadline = time.monotonic() + 5
    counts = [_processes()]
    while counts[-1] > before + 2 and time.monotonic() < deadline:
        time.sleep(0.1)
        counts.append(_processes())
    assert min(counts) <= before + 2, (before, counts)
    assert subprocess.run(["true"], check=False).returncode == 0  # the host can still fork
    assert sandbox.run(Job("print(1)")).stdout == "1\n"  # and the pool still serves


def test_huge_allocation_fails_inside(sandbox: Sandbox) -> None:
    r = sandbox.run(Job("x = bytearray(10 * 1024 ** 3)\nprint('allocated')\n", limits=FAST))
    assert r.status == "memory_limit" and "allocated" not in r.stdout
    assert r.seconds < 2


def test_writes_outside_the_sandbox_are_refused(sandbox: Sandbox, tmp_path: Path) -> None:
    need("filesystem")
    targets = [tmp_path / "escape.txt", Path("/tmp") / f"ortrex-escape-{os.getpid()}.txt",
               Path.cwd() / "escape.txt"]
    watched = tmp_path / "existing.txt"
    watched.write_text("keep me")
    code = "\n".join([
        "import os, pathlib",
        f"targets = {[str(t) for t in targets]!r}",
        "for t in targets + ['../escape.txt']:",
        "    try:",
        "        pathlib.Path(t).write_text('x')",
        "        print('WROTE', t)",
        "    except OSError as e:",
        "        print('refused', type(e).__name__)",
        f"for t in [{str(watched)!r}]:",
        "    try:",
        "        os.remove(t)",
        "        print('REMOVED', t)",
        "    except OSError:",
        "        print('refused remove')",
        "pathlib.Path('inside.txt').write_text('fine')",
        "print('inside ok', pathlib.Path('inside.txt').read_text())",
    ])
    for run in (sandbox.run, run_cold):
        r = run(Job(code, limits=FAST))
        assert r.status == "ok", r.stderr
        assert "WROTE" not in r.stdout and "REMOVED" not in r.stdout
        assert "inside ok fine" in r.stdout
        assert not any(t.exists() for t in targets)
        assert watched.read_text() == "keep me"


class _Handler(http.server.BaseHTTPRequestHandler):
    hits: ClassVar[list[str]] = []

    def do_GET(self) -> None:
        _Handler.hits.append(self.path)
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"secret")

    def log_message(self, *args: object) -> None:
        pass


def test_no_network(sandbox: Sandbox) -> None:
    need("network")
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    port = server.server_address[1]
    try:
        # The server answers the host...
        import urllib.request

        assert urllib.request.urlopen(f"http://127.0.0.1:{port}/host", timeout=5).read() == \
            b"secret"
        code = "\n".join([
            "import socket, urllib.request",
            "for attempt in ('tcp', 'http', 'udp'):",
            "    try:",
            "        if attempt == 'tcp':",
            f"            socket.create_connection(('127.0.0.1', {port}), timeout=2)",
            "        elif attempt == 'http':",
            f"            urllib.request.urlopen('http://127.0.0.1:{port}/sandbox', timeout=2)",
            "        else:",
            "            s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)",
            f"            s.sendto(b'x', ('127.0.0.1', {port}))",
            "        print('REACHED', attempt)",
            "    except OSError as e:",
            "        print('blocked', attempt, type(e).__name__)",
        ])
        r = sandbox.run(Job(code, limits=FAST))
    finally:
        server.shutdown()
    assert r.status == "ok", r.stderr
    assert "REACHED" not in r.stdout, r.stdout
    assert _Handler.hits == ["/host"]  # ...but never heard from the sandbox


def test_killing_the_parent_fails(sandbox: Sandbox) -> None:
    need("signals")
    server_pid = sandbox.proc.pid
    code = "\n".join([
        "import os, signal",
        f"for pid in (os.getppid(), {os.getpid()}, {server_pid}):",
        "    try:",
        "        os.kill(pid, signal.SIGKILL)",
        "        print('sent', pid)",
        "    except OSError as e:",
        "        print('refused', pid, type(e).__name__)",
        f"for pgid in ({os.getpgid(0)}, {os.getpgid(server_pid)}):",
        "    try:",
        "        os.killpg(pgid, signal.SIGKILL)",
        "    except OSError as e:",
        "        print('refused group', type(e).__name__)",
        "print('still here')",
    ])
    r = sandbox.run(Job(code, limits=FAST))
    assert sandbox.proc.poll() is None  # the fork server survived
    assert sandbox.run(Job("print('alive')")).stdout == "alive\n"
    assert "still here" in r.stdout  # and so did this test process, obviously


def test_output_is_capped(sandbox: Sandbox) -> None:
    limits = Limits(wall_s=5, file_mb=4, output_bytes=10_000)
    r = sandbox.run(Job("import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
                        limits=limits))
    assert r.status == "output_limit"
    assert len(r.stdout) == 10_000 and r.truncated


def test_data_files_and_capture(sandbox: Sandbox) -> None:
    code = "\n".join([
        "import json",
        "import gurobipy as gp",
        "data = json.load(open('data.json'))",
        "model = gp.Model()",
        "model.Params.OutputFlag = 0",
        "x = model.addVar(ub=data['cap'], name='x')",
        "model.setObjective(x, gp.GRB.MAXIMIZE)",
        "model.optimize()",
        "print('OPTIMAL_OBJECTIVE:', model.ObjVal)",
    ])
    r = sandbox.run(Job(code, {"data.json": '{"cap": 7}'}))
    assert r.status == "ok" and "OPTIMAL_OBJECTIVE: 7.0" in r.stdout
    assert r.captured is not None and b"UP" in r.captured
    with pytest.raises(ValueError, match="plain relative path"):
        sandbox.run(Job("pass", {"../x.json": "{}"}))


def test_warm_and_cold_agree(sandbox: Sandbox) -> None:
    job = Job("import sys\nprint('out')\nprint('err', file=sys.stderr)\nraise SystemExit(3)\n")
    for r in (sandbox.run(job), run_cold(job)):
        assert (r.status, r.exit_code, r.stdout, r.stderr) == ("error", 3, "out\n", "err\n")
