"""Capture at solve: every model a program solves comes back, in order, whatever its name or
scope; frames are checked; a program tampering with the channel is caught."""

from __future__ import annotations

import zlib

import pytest

from ortrex.verifiers.sandbox import harness
from ortrex.verifiers.sandbox.server import PRELOAD_SEEDS, Job, Limits, Sandbox
from ortrex.verifiers.sandbox.supervisor import _frames


@pytest.fixture(scope="module")
def box() -> Sandbox:
    with Sandbox(PRELOAD_SEEDS) as sb:
        yield sb


def _job(code: str, **kw: object) -> Job:
    return Job(code, limits=Limits(wall_s=kw.pop("wall_s", 10.0)),  # type: ignore[arg-type]
               capture_at="solve", **kw)  # type: ignore[arg-type]


def test_every_solve_is_captured_in_order(box: Sandbox) -> None:
    code = ("import gurobipy as gp, highspy\n"
            "def one(ub):\n"
            "    m = gp.Model(f'm{ub}')\n"
            "    x = m.addVar(ub=ub, name='x')\n"
            "    m.setObjective(x, gp.GRB.MAXIMIZE)\n"
            "    m.optimize()\n"
            "for ub in (1, 2):\n"
            "    one(ub)\n"
            "h = highspy.Highs()\n"
            "h.setOptionValue('output_flag', False)\n"
            "v = h.addVariable(0, 9)\n"
            "h.maximize(v)\n")
    r = box.run(_job(code))
    assert r.status == "ok" and r.capture_status == "ok"
    assert len(r.captures) == 3 and r.captured == r.captures[0]
    assert b"m1" in r.captures[0] and b"m2" in r.captures[1]
    assert b" 9" in r.captures[2] or b"9\n" in r.captures[2]


def test_arguments_and_helpers(box: Sandbox) -> None:
    code = ("import sys\nfrom lib.make import make\nm = make(float(sys.argv[1]))\n"
            "m.optimize()\nprint(m.ObjVal)\n")
    helper = ("import gurobipy as gp\ndef make(ub):\n    m = gp.Model()\n"
              "    x = m.addVar(ub=ub)\n    m.setObjective(x, gp.GRB.MAXIMIZE)\n    return m\n")
    r = box.run(_job(code, files={"lib/__init__.py": "", "lib/make.py": helper}, args=("4.5",)))
    assert r.status == "ok" and r.stdout.strip().endswith("4.5") and len(r.captures) == 1


def test_a_model_left_by_a_failing_program_is_not_taken(box: Sandbox) -> None:
    code = ("import gurobipy as gp\nmodel = gp.Model()\nx = model.addVar()\n"
            "raise ValueError('half built')\n")
    r = box.run(_job(code))
    assert r.status == "error" and r.captures == [] and r.capture_status == "none"


def test_the_capture_survives_the_time_limit(box: Sandbox) -> None:
    code = ("import gurobipy as gp, time\nm = gp.Model()\nx = m.addVar(ub=3)\n"
            "m.setObjective(x, gp.GRB.MAXIMIZE)\nm.optimize()\ntime.sleep(30)\n")
    r = box.run(_job(code, wall_s=3.0))
    assert r.status == "timeout" and r.capture_status == "ok" and len(r.captures) == 1


def test_writing_to_the_channel_is_forgery(box: Sandbox) -> None:
    code = ("import gurobipy as gp, os\nm = gp.Model()\nx = m.addVar(ub=3)\n"
            "m.optimize()\nos.write(3, b'NAME fake\\nENDATA\\n')\n")
    r = box.run(_job(code))
    assert r.capture_status == "forged" and r.captures == []


def test_frames_are_checked() -> None:
    good = harness.frame(harness.FRAME_MODEL, zlib.compress(b"NAME a\nENDATA\n"))
    lic = harness.frame(harness.FRAME_LICENCE, b"")
    budget = 4 << 20
    models, notes, wrong, _, _ = _frames(good + lic + good, budget)
    assert models == [b"NAME a\nENDATA\n"] * 2 and len(notes) == 1 and not wrong
    models, _, wrong, _, _ = _frames(good + good[:-3], budget)
    assert len(models) == 1 and "cut" in wrong
    bad = bytearray(good)
    bad[-1] ^= 1
    assert "hash" in _frames(bytes(bad), budget)[2]
    assert "did not write" in _frames(b"x" * 60, budget)[2]
    bomb = harness.frame(harness.FRAME_MODEL, zlib.compress(b"\0" * (1 << 20)))
    assert _frames(bomb, budget)[0] == [b"\0" * (1 << 20)]  # under the budget: taken whole
    # Five 1 MB bombs against a 4 MB budget: the last four are taken, the first is not
    # inflated past what is left, and a note says so.
    models, notes, _, _, _ = _frames(bomb * 5, budget)
    assert len(models) == 4 and any("not taken" in n for n in notes)
    # A frame whose hash does not match stops everything before any inflation.
    assert _frames(bomb * 5 + bytes(bad), budget)[0] == []


# A program forging well-hashed model frames, each of 64 MB of zeros squeezed to 64 kB, then
# leaving before the harness can say what it wrote; measured in a process of its own, whose
# children's peak RSS is the sandbox's (the fork server, the supervisor, the program).
_BOMB = '''
import os, zlib, hashlib, struct
c = zlib.compressobj(9)
payload = b"".join(c.compress(b"\\0" * (1 << 20)) for _ in range({mb})) + c.flush()
head = struct.Struct("<5sc Q 32s")
fr = head.pack(b"\\x00ORTX", b"M", len(payload), hashlib.sha256(payload).digest()) + payload
os.write(3, fr * {n})
os._exit(0)
'''
_MEASURE = '''
import json, resource, sys
from ortrex.verifiers.sandbox.server import PRELOAD_SEEDS, Job, Limits, Sandbox
with Sandbox(PRELOAD_SEEDS) as sb:
    r = sb.run(Job(sys.stdin.read(), limits=Limits(wall_s=20, file_mb=4), capture_at="solve"))
print(json.dumps({"capture": r.capture_status, "models": [len(m) for m in r.captures],
                  "notes": r.capture_notes,
                  "peak_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024}))
'''


def _peak(code: str) -> dict[str, object]:
    import json
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _MEASURE], input=code, capture_output=True,
                         text=True, timeout=120, check=True)
    return json.loads(out.stdout.splitlines()[-1])


def test_a_capture_bomb_is_refused_within_the_budget_at_bounded_memory() -> None:
    from ortrex.verifiers.sandbox.supervisor import inflate_budget

    budget_mb = inflate_budget(4) >> 20  # the runs below have a 4 MB file limit
    honest = _peak("import gurobipy as gp\nm = gp.Model()\nx = m.addVar(ub=3)\n"
                   "m.setObjective(x, gp.GRB.MAXIMIZE)\nm.optimize()\n")
    assert honest["capture"] == "ok" and len(honest["models"]) == 1  # type: ignore[arg-type]
    # Twenty frames of 64 MB each: 1.28 GB inflated whole; none fits the budget.
    big = _peak(_BOMB.format(mb=64, n=20))
    assert big["capture"] == "too_large" and big["models"] == []
    # Twenty of 2 MB: the last ones that fit the budget are taken, the rest are not inflated.
    small = _peak(_BOMB.format(mb=2, n=20))
    assert small["capture"] == "ok" and small["models"] == [2 << 20] * (budget_mb // 2)
    assert any("not taken" in n for n in small["notes"])  # type: ignore[union-attr]
    # The sandbox's peak stays within a few budgets of an honest run's, far from 1.28 GB.
    for got in (big, small):
        assert got["peak_mb"] - honest["peak_mb"] < 4 * budget_mb + 32, (got, honest)  # type: ignore[operator]
