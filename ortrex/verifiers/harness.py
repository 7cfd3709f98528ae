"""What runs inside the sandbox around the untrusted program: run it as ``__main__``, then
capture the model it built.

The capture is the program's *submission*, never evidence of a result: the parent reads the
model back, re-solves it with its own solvers and checks it against the instance or the answer;
the solve state written here is informational. The harness still refuses the cheap forgeries,
so that what it submits is the model object the program left behind:

* the solver classes and their C methods are taken before the program runs, and only an object
  of exactly that type counts (no look-alike class, no subclass with lying properties);
* the capture goes to descriptors the parent opened; a program that wrote to them first is
  caught (they must be empty when the harness starts), and files it planted are ignored;
* before capturing, every other process of the PID namespace is killed, and the capture is
  refused while other threads of the program still run, so nothing can race it;
* the steps after the program's ``exec`` run inline in this frame with references bound
  before it (replacing a module function or attribute changes nothing). Code that rewrites this
  frame's locals (Python >= 3.13's ``frame.f_locals`` proxy) or memory (``ctypes``) can still
  choose what is submitted; it cannot choose what the parent computes from it.
"""

from __future__ import annotations

import builtins
import contextlib
import hashlib
import os
import signal
import sys
import traceback
from typing import Any

CAPTURE_FD, STATE_FD = 3, 4  # where the parent's capture files wait, in the program's process
_GRB_STATUS = {1: "not_solved", 2: "optimal", 3: "infeasible", 4: "infeasible_or_unbounded",
               5: "unbounded", 9: "time_limit", 13: "suboptimal"}
_HIGHS_STATUS = {"optimal": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
                 "not set": "not_solved", "empty": "not_solved"}
_PREFERRED = ("model", "m", "h")


def _solver_refs(code: str) -> tuple[Any, ...]:
    """The real solver classes and the C methods the capture calls, taken before the program
    runs: (Model, update, write, getAttr, Highs, writeModel, getModelStatus,
    modelStatusToString, getInfo), None where a solver is missing. A solver neither preloaded
    nor named in the program is not imported (highspy alone costs a cold run 0.1 s); a
    program that reaches it by other means has its model taken for a look-alike."""
    grb: tuple[Any, ...] = (None,) * 4
    hs: tuple[Any, ...] = (None,) * 5
    wanted = {m for m in ("gurobipy", "highspy") if m in sys.modules or m in code}
    if "gurobipy" in wanted:
        with contextlib.suppress(ImportError):
            import gurobipy

            m = gurobipy.Model
            grb = (m, m.update, m.write, m.getAttr)
    if "highspy" in wanted:
        with contextlib.suppress(ImportError, AttributeError, StopIteration):
            import highspy

            cls = highspy.Highs
            base = next(c for c in cls.__mro__ if c.__module__.startswith("highspy._core"))
            hs = (cls, base.writeModel, base.getModelStatus, base.modelStatusToString,
                  base.getInfo)
    return grb + hs


def run(code: str, capture: bool, pid_ns_init: bool, workdir: str, tmp: str) -> int:
    """Run ``code`` as ``__main__`` in this (confined) process (``workdir`` its directory,
    ``tmp`` its temporary one), then capture its model; the program's exit code. After the
    program, only locals bound here and C-level callables run (no module global, no Python
    function the program could have rewritten)."""
    (grb, grb_update, grb_write, grb_attr, hs, hs_write, hs_status, hs_str,
     hs_info) = _solver_refs(code) if capture else (None,) * 9
    fstat, listdir, write, unlink, urandom = os.fstat, os.listdir, os.write, os.unlink, \
        os.urandom
    o_open, o_read, o_close, kill, waitpid = os.open, os.read, os.close, os.kill, os.waitpid
    read_flags, sigkill = os.O_RDONLY | os.O_NOFOLLOW, signal.SIGKILL
    sha256, repr_, type_, str_, issubclass_ = hashlib.sha256, repr, type, str, issubclass
    list_, len_, int_, float_, isinstance_, int_t = list, len, int, float, isinstance, int
    memoryview_, type_attr = memoryview, type.__getattribute__
    print_exception = traceback.print_exception
    grb_status, highs_status, preferred = dict(_GRB_STATUS), dict(_HIGHS_STATUS), _PREFERRED
    out, err = sys.stdout, sys.stderr
    channel = [(s.st_dev, s.st_ino) for s in (fstat(CAPTURE_FD), fstat(STATE_FD))] \
        if capture else []
    threads_before = len(listdir("/proc/self/task"))
    for name in [n for n in sys.modules if n == "ortrex" or n.startswith("ortrex.")]:
        del sys.modules[name]  # ortrex is not importable in here, nor reachable by name
    g: dict[str, Any] = {"__name__": "__main__", "__file__": f"{workdir}/main.py",
                         "__builtins__": builtins}
    code_ = 0
    try:
        exec(compile(code, "main.py", "exec"), g)
    except SystemExit as e:
        code_ = e.code if isinstance_(e.code, int_t) else (0 if e.code is None else 1)
    except BaseException as exc:
        # Plain try/except from here on: contextlib's classes are the program's to rewrite.
        try:  # noqa: SIM105
            print_exception(type_(exc), exc, exc.__traceback__.tb_next)  # from main.py down
        except BaseException:
            pass
        code_ = 1
    for stream in (out, err):
        try:  # noqa: SIM105
            stream.flush()
        except BaseException:
            pass
    if not capture:
        return code_ & 0xFF
    if pid_ns_init:  # nothing the program started may run beside the capture
        try:
            kill(-1, sigkill)
            while waitpid(-1, 0)[0] > 0:
                pass
        except OSError:
            pass
    state: dict[str, Any] = {"capture": "none", "why": "no gurobipy Model or highspy Highs "
                             "object among the program's globals"}
    threads = len_(listdir("/proc/self/task"))
    try:
        sizes = [fstat(CAPTURE_FD), fstat(STATE_FD)]
        tampered = [(s.st_dev, s.st_ino) for s in sizes] != channel or \
            sizes[0].st_size > 0 or sizes[1].st_size > 0
    except OSError:
        tampered = True
    chosen, kind = None, ""
    if tampered:
        state = {"capture": "forged", "why": "the program wrote to or replaced the capture "
                 "channel"}
    elif threads > threads_before:
        state = {"capture": "refused", "why": f"{threads - threads_before} thread(s) of the "
                 "program still running at capture time"}
    else:
        items = [(k, v) for k, v in list_(g.items()) if type_(k) is str_]
        order = [v for k in preferred for kk, v in items if kk == k] + [v for _, v in items]
        for obj in order:
            t = type_(obj)
            if grb is not None and t is grb:
                chosen, kind = obj, "gurobipy"
                break
            if hs is not None and t is hs:
                chosen, kind = obj, "highspy"
                break
            try:
                mod, name = type_attr(t, "__module__"), type_attr(t, "__name__")
            except AttributeError:
                mod, name = None, None
            if (grb is not None and issubclass_(t, grb)) or \
                    (hs is not None and issubclass_(t, hs)) or \
                    (type_(name) is str_ and name in ("Model", "Highs")) or \
                    (type_(mod) is str_ and mod.split(".")[0] in ("gurobipy", "highspy")):
                state = {"capture": "forged", "why": f"a {name!s:.60} object imitates a "
                         "solver model (only gurobipy.Model or highspy.Highs itself counts)"}
                break
    if chosen is not None:
        path = f"{tmp}/.ortrex-capture-{urandom(8).hex()}.mps"
        try:
            if kind == "gurobipy":
                grb_update(chosen)
                grb_write(chosen, path)
                status = int_(grb_attr(chosen, "Status"))
                solved = status == 2 and int_(grb_attr(chosen, "SolCount")) > 0
                state = {"solver": kind, "status": grb_status.get(status, f"gurobi_{status}"),
                         "objective": float_(grb_attr(chosen, "ObjVal")) if solved else None}
            else:
                hs_write(chosen, path)
                text = str_(hs_str(chosen, hs_status(chosen))).lower()
                status_text = highs_status.get(text, text.replace(" ", "_"))
                state = {"solver": kind, "status": status_text,
                         "objective": float_(hs_info(chosen).objective_function_value)
                         if status_text == "optimal" else None}
            fd = o_open(path, read_flags)
            chunks = []
            while chunk := o_read(fd, 1 << 20):
                chunks.append(chunk)
            o_close(fd)
            unlink(path)
            data = b"".join(chunks)
            view = memoryview_(data)
            while view:
                view = view[write(CAPTURE_FD, view):]
            state.update(capture="ok", sha256=sha256(data).hexdigest(), bytes=len_(data))
        except Exception as exc:  # a model that cannot be written is reported, not fatal
            state = {"capture": "error", "why": f"model capture failed: {exc!s:.300}"}
    try:  # noqa: SIM105
        write(STATE_FD, repr_(state).encode())  # read back with ast.literal_eval
    except OSError:
        pass
    return code_ & 0xFF
