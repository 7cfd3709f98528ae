"""Hostile programs, run as an attacker would, against the warm pool and the cold path: each
must fail, and the host is checked afterwards (no listener reached, nothing written or read
outside, no surviving process, no leaked cgroup or work directory, the next program still
correct)."""

from __future__ import annotations

import hashlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

import ortrex
from ortrex.paths import benchmarks_dir
from ortrex.verifiers.sandbox import cgroups, isolation
from ortrex.verifiers.sandbox.isolation import Limits
from ortrex.verifiers.sandbox.server import Job, RunResult, Sandbox, run_cold
from tests.verifiers.hostile import (
    MEMORY_SCAN,
    leftover_cgroups,
    marker,
    unix_listener,
    wait_until_gone,
)
from tests.verifiers.test_sandbox import LP, available_modes

QUICK = Limits(wall_s=10, cpu_s=10, memory_mb=1024)
NAMESPACES = isolation.plan().namespaces


@pytest.fixture(scope="module")
def warm() -> Iterator[Sandbox]:
    with Sandbox() as sb:
        yield sb


Runner = Callable[[Job], RunResult]


@pytest.fixture(params=["warm", "cold"])
def run(request: pytest.FixtureRequest, warm: Sandbox) -> Runner:
    """A warm-pool run and a cold run: the same isolation, both attacked."""
    return warm.run if request.param == "warm" else run_cold


def _still_correct(run: Runner) -> None:
    r = run(Job(LP))
    assert r.status == "ok" and r.capture_status == "ok" and r.state["objective"] == 6.0


# ----------------------------------------------------------------- 1. sockets and escape
def test_host_unix_sockets_are_unreachable(run: Runner, tmp_path: Path) -> None:
    outside = tmp_path / "escaped-as-root"
    with unix_listener(tmp_path) as host:
        code = f'''
import os, socket
for addr in ({host.path!r}, "/proc/1/root" + {host.path!r}, {host.abstract!r},
             "/run/docker.sock", "/var/run/docker.sock", "/tmp/tmux-0/default"):
    for kind in (socket.SOCK_STREAM, socket.SOCK_DGRAM, socket.SOCK_SEQPACKET):
        try:
            s = socket.socket(socket.AF_UNIX, kind)
            s.connect(addr)
            print("CONNECTED", addr, s.recv(20))
        except OSError as e:
            print("refused", e.errno)
try:
    open({str(outside)!r}, "w").write("x")
    print("WROTE OUTSIDE")
except OSError as e:
    print("no write", e.errno)
'''
        r = run(Job(code, limits=QUICK))
        time.sleep(0.3)  # a connection would have been accepted by now
        assert r.status == "ok", r.stderr
        assert "CONNECTED" not in r.stdout and "WROTE" not in r.stdout, r.stdout
        assert host.hits == 0 and not outside.exists()
    _still_correct(run)


def test_reads_are_confined(run: Runner, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("host secret")
    secret.chmod(0o644)
    repo = Path(ortrex.__file__).resolve().parents[1]
    targets = [str(secret), str(repo / "README.md"), str(repo / "ortrex" / "__init__.py"),
               "/root/.bashrc", "/etc/hostname", "/etc/hosts", "/var/log", "/run",
               "/proc/1/environ", "/sys/kernel"]
    shared = benchmarks_dir()
    if shared is not None:
        targets += [str(shared / "nl4opt" / "test.parquet"), str(shared)]
    code = f'''
import os, sys
for t in {targets!r}:
    try:
        if os.path.isdir(t):
            print("LEAK", t, os.listdir(t)[:3])
        else:
            print("LEAK", t, open(t, "rb").read(40))
    except OSError as e:
        print("hidden", t, e.errno)
for mod in ("ortrex", "ortrex.benchmarks.registry"):
    try:
        __import__(mod)
        print("LEAK import", mod)
    except ImportError:
        print("no import", mod)
print("ENV", sorted(k for k in os.environ if "ORTREX" in k or "KEY" in k or "PROXY" in k.upper()))
'''
    r = run(Job(code, limits=QUICK))
    assert r.status == "ok", r.stderr
    if NAMESPACES:
        assert "LEAK" not in r.stdout, r.stdout
    else:  # Landlock confines reads to the interpreter and its libraries
        assert "LEAK" not in r.stdout.replace("LEAK /proc", ""), r.stdout
    assert "ENV []" in r.stdout


def test_environment_is_an_allow_list(monkeypatch: pytest.MonkeyPatch) -> None:
    key = "sk-" + os.urandom(12).hex()
    for name in ("OPENAI_API_KEY", "ORTREX_SECRET", "HTTPS_PROXY"):
        monkeypatch.setenv(name, key)
    digest = hashlib.sha256(("ORTREX-MARK-" + key[3:] + "0" * 8).encode()).hexdigest()
    monkeypatch.setenv("ORTREX_MARK", "ORTREX-MARK-" + key[3:] + "0" * 8)
    with Sandbox() as sb:
        r = sb.run(Job("import os\nprint(sorted(os.environ))\n" +
                       MEMORY_SCAN.format(digest=digest), limits=QUICK))
        assert r.status == "ok", r.stderr
        assert key not in r.stdout and "KEY" not in r.stdout and "PROXY" not in r.stdout
        assert "FOUND 0" in r.stdout, r.stdout  # not even in the process's memory
    r = run_cold(Job(MEMORY_SCAN.format(digest=digest), limits=QUICK))
    assert "FOUND 0" in r.stdout, r.stdout + r.stderr


def test_no_run_sees_an_earlier_run(warm: Sandbox) -> None:
    mark = marker()
    digest = hashlib.sha256(mark.encode()).hexdigest()
    first = warm.run(Job(f"# {mark}\nprint({mark!r})\ndata = open('d.txt').read()\n",
                         {"d.txt": mark}))
    assert first.status == "ok" and mark in first.stdout
    r = warm.run(Job(MEMORY_SCAN.format(digest=digest), limits=QUICK))
    assert r.status == "ok", r.stderr
    assert "FOUND 0" in r.stdout, r.stdout
    # The scan does find the marker where it really is: in the run's own data.
    r = warm.run(Job("held = open('d.txt').read()\n" + MEMORY_SCAN.format(digest=digest),
                     {"d.txt": mark}, limits=QUICK))
    assert "FOUND 0" not in r.stdout and "FOUND" in r.stdout, r.stdout


@pytest.mark.skipif(not NAMESPACES, reason="no PID namespace on this machine")
def test_host_processes_are_invisible(run: Runner) -> None:
    code = '''
import os
pids = [p for p in os.listdir("/proc") if p.isdigit()]
seen = [open(f"/proc/{p}/cmdline", "rb").read() for p in pids]
print("PIDS", len(pids), any(b"pytest" in s for s in seen))
'''
    r = run(Job(code, limits=QUICK))
    assert r.status == "ok", r.stderr
    assert "PIDS 1 False" in r.stdout, r.stdout


def test_concurrent_runs_cannot_see_each_other(tmp_path: Path) -> None:
    name = "concurrent-" + os.urandom(6).hex()
    writer = Job(f"import time\nopen({name!r}, 'w').write('mine')\ntime.sleep(4)\n",
                 limits=QUICK)
    searcher = f'''
import os, time
time.sleep(1)
open({name + "-own"!r}, "w").write("x")
hits = []
for top in os.listdir("/"):
    if top in ("proc", "sys", "dev", "usr"):  # /usr: read-only system files, and slow to walk
        continue
    for d, _, files in os.walk("/" + top):
        hits += [os.path.join(d, f) for f in files if f.startswith({name!r})]
print("HITS", sorted(hits))
'''
    results: dict[str, RunResult] = {}
    with Sandbox(root=str(tmp_path)) as a, Sandbox(root=str(tmp_path)) as b:
        t = threading.Thread(target=lambda: results.setdefault("w", a.run(writer)))
        t.start()
        results["s"] = b.run(Job(searcher, limits=Limits(wall_s=60, cpu_s=60)))
        t.join()
    out = results["s"].stdout
    assert results["s"].status == "ok", results["s"].stderr
    own = f"{name}-own"
    assert own in out and f"{name}'" not in out.replace(own, ""), out


# ----------------------------------------------------------------- 3. processes and time
def test_setsid_escapees_die_with_the_run(run: Runner) -> None:
    mark = marker()
    code = f'''
import os, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        os.execv("/bin/sleep", [{mark!r}, "300"])
    os._exit(0)
time.sleep(0.5)
while True:
    pass
'''
    r = run(Job(code, limits=Limits(wall_s=2, cpu_s=10)))
    assert r.status == "timeout"
    assert wait_until_gone(mark.encode()) == []
    _still_correct(run)


def test_every_mode_kills_escapees_and_leaves_nothing(tmp_path: Path) -> None:
    for mode in available_modes():
        if mode == "none" and "kill" not in cgroups.available():
            continue  # a bare run has nothing but the process group
        mark = marker()
        code = (f"import os, time\nif os.fork() == 0:\n    os.setsid()\n"
                f"    os.execv('/bin/sleep', [{mark!r}, '300'])\ntime.sleep(30)\n")
        with Sandbox(mode=mode, root=str(tmp_path)) as sb:
            r = sb.run(Job(code, limits=Limits(wall_s=1.5, cpu_s=5)))
            assert r.status == "timeout", (mode, r.stderr)
            assert wait_until_gone(mark.encode()) == [], mode
            server = sb.proc.pid
        assert leftover_cgroups(server) == [], mode
        assert list(tmp_path.iterdir()) == [], mode


# ----------------------------------------------------------------- 4. planted files
def test_planted_files_are_never_followed(run: Runner, tmp_path: Path) -> None:
    big = tmp_path / "big.bin"
    with open(big, "wb") as f:
        f.truncate(400 << 20)  # sparse: 400 MB the parent must not read
    big.chmod(0o644)
    plants = {
        "fifo": "import os\nos.mkfifo('model.lp')\n",
        "link-host": f"import os\nos.symlink({str(big)!r}, 'model.lp')\n",
        "link-zero": "import os\nos.symlink('/dev/zero', 'model.lp')\n",
        "link-passwd": "import os\nos.symlink('/etc/passwd', 'model.lp')\n",
        "directory": "import os\nos.makedirs('model.lp/deeper')\n",
    }
    for name, code in plants.items():
        t0 = time.monotonic()
        r = run(Job(code, capture=False, collect=("model.lp",), limits=QUICK))
        assert r.status == "ok", (name, r.stderr)
        assert r.files == {}, name
        assert time.monotonic() - t0 < 5, name
    # The old names of the outputs and of the capture, planted as traps: nothing reads them.
    traps = LP + ("import os\nos.mkfifo('stdout.txt')\nos.mkfifo('stderr.txt')\n"
                  "os.makedirs('__captured_model__.mps/x')\nos.symlink('/dev/zero', "
                  "'__captured_state__.json')\n")
    t0 = time.monotonic()
    r = run(Job(traps, limits=QUICK))
    assert r.status == "ok" and r.capture_status == "ok" and r.state["objective"] == 6.0
    assert "OPTIMAL_OBJECTIVE: 6.0" in r.stdout and time.monotonic() - t0 < 5
    real = run(Job("open('model.lp', 'w').write('Minimize\\n x\\nEnd\\n')\n", capture=False,
                   collect=("model.lp",), limits=QUICK))
    assert real.files == {"model.lp": b"Minimize\n x\nEnd\n"}


# ----------------------------------------------------------------- 5. whole-run limits
@pytest.mark.skipif("memory" not in cgroups.available(), reason="no memory cgroup here")
def test_memory_cap_covers_the_whole_run(run: Runner) -> None:
    code = '''
import os, time
fds = []
for k in range(3):
    fd = os.memfd_create(f"m{k}")
    os.write(fd, b"x" * (100 << 20))
    fds.append(fd)
kids = []
for k in range(4):
    pid = os.fork()
    if pid == 0:
        block = bytearray(100 << 20)
        for i in range(0, len(block), 4096):
            block[i] = 1
        time.sleep(30)
        os._exit(0)
    kids.append(pid)
time.sleep(3)
print("ALL HELD")
'''
    r = run(Job(code, limits=Limits(wall_s=20, cpu_s=20, memory_mb=256)))
    assert "ALL HELD" not in r.stdout
    assert r.status in ("memory_limit", "killed", "error"), (r.status, r.stderr)
    _still_correct(run)


@pytest.mark.skipif(not NAMESPACES, reason="no size-capped tmpfs without namespaces")
def test_disk_cap_covers_tmp_and_the_work_directory(run: Runner) -> None:
    code = '''
written = 0
for path in ("/tmp/fill", "fill", "/dev/shm/fill"):
    try:
        with open(path, "wb") as f:
            for _ in range(720):
                f.write(b"x" * (1 << 20))
                f.flush()
                written += 1
    except OSError as e:
        print("stopped", e.errno)
print("WRITTEN", written)
'''
    r = run(Job(code, limits=Limits(wall_s=20, cpu_s=20, disk_mb=64, file_mb=1024)))
    assert r.status == "disk_limit", (r.status, r.stdout, r.stderr)
    written = int(r.stdout.split("WRITTEN")[1])
    assert written <= 64


# ----------------------------------------------------------------- 2. the capture channel
def _capture(run: Runner, code: str) -> RunResult:
    return run(Job(code, limits=QUICK))


def test_look_alike_models_are_forgeries(run: Runner) -> None:
    fake = '''
class Model:
    ObjVal = 7.0
    Status = 2
    def write(self, path):
        open(path, "w").write("NAME fake\\nENDATA\\n")
Model.__module__ = "gurobipy"
model = Model()
print("OPTIMAL_OBJECTIVE: 7")
'''
    r = _capture(run, fake)
    assert (r.capture_status, r.captured) == ("forged", None), r.capture_detail
    lying = LP.replace("model = gp.Model()", "class M(gp.Model):\n    @property\n"
                       "    def ObjVal(self):\n        return -12345.5\nmodel = M()")
    r = _capture(run, lying)
    assert (r.capture_status, r.captured) == ("forged", None), (r.stderr, r.capture_detail)


def test_writing_the_capture_channel_is_caught(run: Runner) -> None:
    code = LP + ('import os\nos.write(3, b"NAME x\\nENDATA\\n")\n'
                 'os.write(4, repr({"capture": "ok", "sha256": "0", "bytes": 13}).encode())\n')
    r = _capture(run, code)
    assert r.capture_status == "forged" and r.captured is None
    planted = LP + ('import os, json\nos.unlink = lambda *a: None\n'
                    'open("__captured_model__.mps", "w").write("NAME x\\nENDATA\\n")\n'
                    'json.dump({"status": "optimal", "objective": 7}, '
                    'open("__captured_state__.json", "w"))\n')
    r = _capture(run, planted)  # planted files are ignored: the real model is captured
    assert r.capture_status == "ok" and r.state["objective"] == 6.0


def test_rewriting_the_harness_changes_nothing(run: Runner) -> None:
    code = LP + '''
import gc, sys, types
for obj in gc.get_objects():
    if isinstance(obj, types.FunctionType) and obj.__module__ and "harness" in obj.__module__:
        obj.__code__ = (lambda *a, **k: None).__code__
for name, mod in list(sys.modules.items()):
    if "gurobipy" in name:
        for attr in ("write", "update"):
            try:
                setattr(mod, attr, None)
            except Exception:
                pass
import builtins
builtins.type = lambda *a: None
'''
    r = _capture(run, code)
    assert r.capture_status == "ok" and r.state == {"solver": "gurobipy", "status": "optimal",
                                                    "objective": 6.0}, r.capture_detail


def test_helpers_left_running_cannot_touch_the_capture(run: Runner) -> None:
    thread = LP + ('import threading, os, time\n'
                   'def spoil():\n    time.sleep(0.05)\n    os.write(3, b"junk")\n'
                   'threading.Thread(target=spoil, daemon=True).start()\n')
    r = _capture(run, thread)
    assert r.capture_status in ("refused", "forged") and r.captured is None
    child = LP + ('import os, time\nif os.fork() == 0:\n    time.sleep(0.3)\n'
                  '    os.write(3, b"junk")\n    os._exit(0)\n')
    r = _capture(run, child)
    if NAMESPACES:  # killed before the capture ran
        assert r.capture_status == "ok" and r.state["objective"] == 6.0
    else:
        assert r.capture_status in ("ok", "forged")
