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
* seeds (``at_solve``) are captured each time the program asks a solver to solve, before the
  solve runs, every model it builds whatever its name or scope, as frames the parent checks
  (``frames``); the solve itself still runs here, so the program goes on as written, but its
  result is never used: a licence that refuses the solve, or the time limit, costs the program
  and not the capture. The program can write to that channel too; what it could forge there is
  a model, which is what a seed's program submits anyway (the scorer does not use this mode);
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
import struct
import sys
import traceback
import zlib
from typing import Any

CAPTURE_FD, STATE_FD = 3, 4  # where the parent's capture files wait, in the program's process
_GRB_STATUS = {1: "not_solved", 2: "optimal", 3: "infeasible", 4: "infeasible_or_unbounded",
               5: "unbounded", 9: "time_limit", 13: "suboptimal"}
_HIGHS_STATUS = {"optimal": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
                 "not set": "not_solved", "empty": "not_solved"}
_PREFERRED = ("model", "m", "h")
# A capture frame: MAGIC, kind, payload length (<Q), sha256 of the payload, payload.
# Kinds: a model (zlib-compressed MPS); the licence refused the program's solve; a model over
# the file limit (payload: its size as text).
FRAME_MAGIC = b"\x00ORTX"
FRAME_MODEL, FRAME_LICENCE, FRAME_TOO_LARGE = b"M", b"L", b"T"
FRAME_HEAD = struct.Struct("<5sc Q 32s")
GUROBI_SIZE_LIMIT = 10010  # GRB.Error.SIZE_LIMIT_EXCEEDED


def frame(kind: bytes, payload: bytes) -> bytes:
    """One capture frame."""
    return FRAME_HEAD.pack(FRAME_MAGIC, kind, len(payload),
                           hashlib.sha256(payload).digest()) + payload


def _solve_methods() -> tuple[Any, Any, Any, Any, Any]:
    """(gurobipy.Model, its optimize, GurobiError, HiGHS's C base class, its run): what the
    capture at solve hooks, None where a solver is missing."""
    grb = opt = err = hs = run = None
    with contextlib.suppress(ImportError):
        import gurobipy

        grb, opt, err = gurobipy.Model, gurobipy.Model.optimize, gurobipy.GurobiError
    with contextlib.suppress(ImportError, AttributeError, StopIteration):
        import highspy

        hs = next(c for c in highspy.Highs.__mro__ if c.__module__.startswith("highspy._core"))
        run = hs.run
    return grb, opt, err, hs, run


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


def _install_at_solve(tmp: str, file_bytes: int, written: list[int]) -> None:
    """Hook every solve of gurobipy and highspy: the model is captured as a frame, then solved
    as the program asked (``written`` counts the bytes the hooks wrote to the channel)."""
    grb, grb_opt, grb_err, hs, hs_run = _solve_methods()
    fstat, write, o_open, o_read, o_close, unlink = os.fstat, os.write, os.open, os.read, \
        os.close, os.unlink
    urandom, compress, frame_, str_, getattr_ = os.urandom, zlib.compress, frame, str, getattr

    def emit(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[write(CAPTURE_FD, view):]
        written[0] += len(data)

    def capture(obj: Any, writer: Any) -> None:
        path = f"{tmp}/.ortrex-solve-{urandom(8).hex()}.mps"
        try:
            writer(obj, path)
            fd = o_open(path, os.O_RDONLY | os.O_NOFOLLOW)
            chunks = []
            while chunk := o_read(fd, 1 << 20):
                chunks.append(chunk)
            o_close(fd)
            unlink(path)
        except Exception:  # a model the solver cannot write is the program's problem
            return
        payload = compress(b"".join(chunks), 1)
        # A frame past the file limit would be cut (and SIGXFSZ end the program): say so.
        if fstat(CAPTURE_FD).st_size + len(payload) + FRAME_HEAD.size + 64 > file_bytes:
            emit(frame_(FRAME_TOO_LARGE, str_(sum(map(len, chunks))).encode()))
        else:
            emit(frame_(FRAME_MODEL, payload))

    if grb is not None:
        def optimize(self: Any, *args: Any, **kwargs: Any) -> Any:
            with contextlib.suppress(Exception):
                self.update()
            capture(self, grb.write)
            try:
                return grb_opt(self, *args, **kwargs)
            except grb_err as exc:
                if getattr_(exc, "errno", None) == GUROBI_SIZE_LIMIT:
                    emit(frame_(FRAME_LICENCE, b""))
                raise

        grb.optimize = optimize
    if hs is not None:
        hs_write = hs.writeModel

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            capture(self, hs_write)
            return hs_run(self, *args, **kwargs)

        hs.run = run


def run(code: str, capture: bool, pid_ns_init: bool, workdir: str, tmp: str,
        at_solve: bool = False, argv: tuple[str, ...] = (), file_bytes: int = 64 << 20) -> int:
    """Run ``code`` as ``__main__`` in this (confined) process (``workdir`` its directory,
    ``tmp`` its temporary one, ``argv`` its arguments), then capture its model (or, with
    ``at_solve``, each model at the moment it is solved); the program's exit code. After the
    program, only locals bound here and C-level callables run (no module global, no Python
    function the program could have rewritten)."""
    written = [0]
    if capture and at_solve:
        _install_at_solve(tmp, file_bytes, written)
    (grb, grb_update, grb_write, grb_attr, hs, hs_write, hs_status, hs_str,
     hs_info) = _solver_refs(code) if capture else (None,) * 9
    fstat, listdir, write, unlink, urandom = os.fstat, os.listdir, os.write, os.unlink, \
        os.urandom
    o_open, o_read, o_close, kill, waitpid = os.open, os.read, os.close, os.kill, os.waitpid
    read_flags, sigkill = os.O_RDONLY | os.O_NOFOLLOW, signal.SIGKILL
    sha256, repr_, type_, str_, issubclass_ = hashlib.sha256, repr, type, str, issubclass
    list_, len_, int_, float_, isinstance_, int_t = list, len, int, float, isinstance, int
    memoryview_, type_attr = memoryview, type.__getattribute__
    frame_, compress = frame, zlib.compress
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
    sys.argv = ["main.py", *argv]
    if workdir not in sys.path:  # helper modules beside main.py import as they would there
        sys.path.insert(0, workdir)
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
            sizes[0].st_size != written[0] or sizes[1].st_size > 0
    except OSError:
        tampered = True
    chosen, kind = None, ""
    if tampered:
        state = {"capture": "forged", "why": "the program wrote to or replaced the capture "
                 "channel"}
    elif written[0]:  # captured at solve: the models were the ones it solved
        state = {"capture": "ok", "at_solve": True}
    elif at_solve and code_ != 0:  # a model left half-built by a failure is not a submission
        state = {"capture": "none", "why": "the program failed before it asked for a solve"}
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
            if at_solve:  # one more frame, like those written at solve
                data = frame_(FRAME_MODEL, compress(data, 1))
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
