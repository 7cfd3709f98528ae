"""What runs inside the sandbox around the untrusted program: run it as ``__main__``, then
capture the model it built.

The capture is the program's *submission*, never evidence of a result: the parent reads the
model back, re-solves it with its own solvers and checks it against the instance or the answer;
the solve state written here is informational. The harness still refuses the cheap forgeries,
so that what it submits is the model object the program left behind:

* the solver classes and their C methods are taken before the program runs, and only an object
  of exactly that type counts (no look-alike class, no subclass with lying properties);
* names a model file cannot hold as they are (control characters, line or tab breaks, spaces:
  a reader would take the rest of the line for a section) are replaced by safe names before
  the model is written, and the originals travel apart, as data (``renamed``);
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
import types
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
# the file limit (payload: its size as text); the original names of the model before it
# (payload: the repr of a dict, new name -> original).
FRAME_MAGIC = b"\x00ORTX"
FRAME_MODEL, FRAME_LICENCE, FRAME_TOO_LARGE, FRAME_NAMES = b"M", b"L", b"T", b"N"
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


def _solver_refs(code: str) -> tuple[tuple[Any, ...] | None, tuple[Any, ...] | None]:
    """The real solver classes and the C methods the capture calls, taken before the program
    runs: gurobipy's (Model, update, write, getAttr, setAttr, getVars, getConstrs,
    getQConstrs, getGenConstrs) and HiGHS's (Highs, its C base, writeModel, getModelStatus,
    modelStatusToString, getInfo, getModel, passModel, setOptionValue, and the ``lp_``,
    ``col_names_``, ``row_names_`` and ``model_name_`` descriptors), None where a solver is
    missing. A solver neither preloaded nor named in the program is not imported (highspy
    alone costs a cold run 0.1 s); a program that reaches it by other means has its model
    taken for a look-alike."""
    grb: tuple[Any, ...] | None = None
    hs: tuple[Any, ...] | None = None
    wanted = {m for m in ("gurobipy", "highspy") if m in sys.modules or m in code}
    if "gurobipy" in wanted:
        with contextlib.suppress(ImportError):
            import gurobipy

            m = gurobipy.Model
            grb = (m, m.update, m.write, m.getAttr, m.setAttr, m.getVars, m.getConstrs,
                   m.getQConstrs, m.getGenConstrs)
    if "highspy" in wanted:
        with contextlib.suppress(ImportError, AttributeError, StopIteration, KeyError):
            import highspy

            cls = highspy.Highs
            base = next(c for c in cls.__mro__ if c.__module__.startswith("highspy._core"))
            lp_t = highspy.HighsLp
            hs = (cls, base, base.writeModel, base.getModelStatus, base.modelStatusToString,
                  base.getInfo, base.getModel, base.passModel, base.setOptionValue,
                  highspy.HighsModel.__dict__["lp_"], lp_t.__dict__["col_names_"],
                  lp_t.__dict__["row_names_"], lp_t.__dict__["model_name_"])
    return grb, hs


# The renaming helpers below look up no global name (the program can rewrite this module's
# globals): every callable comes in as an argument, and after the program the capture runs
# fresh functions made from their code objects (taken before it ran; code is immutable).
NAME_KEEP = 128  # original names kept as data per capture (the rest are only counted)


def _unsafe_names(names: Any, tag: str, t: tuple[Any, ...]) -> tuple[list[int], list[str]]:
    """The indices of the names a model file cannot hold as they are (not a str, a control
    or separator character, a space: a reader would take the rest of the line for structure;
    a leading ``$``: MPS readers take it for a comment; an empty name is the solver's to
    generate), and a safe name for each (the printable part, ``~``, ``tag``, the index)."""
    type_, str_, len_, isprintable = t[0], t[1], t[2], t[3]
    bad, new = [], []
    k, n = 0, len_(names)
    while k < n:
        name = names[k]
        if type_(name) is not str_ or (name and (not isprintable(name) or " " in name or
                                                 name[0] == "$")):
            clean = ""
            if type_(name) is str_:
                for ch in name[:64]:
                    clean += ch if isprintable(ch) and ch != " " else "_"
            bad.append(k)
            new.append(f"{clean}~{tag}{k}")
        k += 1
    return bad, new


def _keep(renamed: dict[str, str], names: Any, bad: list[int], new: list[str],
          t: tuple[Any, ...]) -> None:
    """Record ``new -> original`` for the first renamed names (originals cut to 200 chars)."""
    str_, len_, most = t[1], t[2], t[7]
    k = 0
    while k < len_(bad) and len_(renamed) < most:
        renamed[new[k]] = str_(names[bad[k]])[:200]
        k += 1


def _gurobi_safe(m: Any, r: tuple[Any, ...], t: tuple[Any, ...],
                 copy: Any = None) -> tuple[Any, dict[str, str]]:
    """``m`` itself when every name of the gurobipy model is safe, else the model with safe
    names (``m`` renamed in place, or a ``copy`` of it where one is given); new -> original."""
    update, get_attr, set_attr = r[1], r[3], r[4]
    unsafe, keep = t[4], t[5]
    plan = []
    for get, attr, tag in ((r[5], "VarName", "x"), (r[6], "ConstrName", "c"),
                           (r[7], "QCName", "q"), (r[8], "GenConstrName", "g")):
        objs = get(m)
        if objs:
            names = get_attr(m, attr, objs)
            bad, new = unsafe(names, tag, t)
            if bad:
                plan.append((get, attr, names, bad, new))
    name = get_attr(m, "ModelName")
    bad_name = name and unsafe([name], "m", t)[0]
    if not plan and not bad_name:
        return m, {}
    target = m if copy is None else copy(m)
    renamed: dict[str, str] = {}
    for get, attr, names, bad, new in plan:
        objs, picked = get(target), []
        for k in bad:
            picked.append(objs[k])
        set_attr(target, attr, picked, new)
        keep(renamed, names, bad, new, t)
    if bad_name:
        set_attr(target, "ModelName", "")
        renamed["(model name)"] = t[1](name)[:200]
    update(target)
    return target, renamed


def _highs_safe(h: Any, r: tuple[Any, ...], t: tuple[Any, ...]) -> tuple[Any, dict[str, str]]:
    """``h`` itself when every name of the HiGHS model is safe, else a fresh HiGHS object
    holding its model with safe names; new -> original."""
    base, get_model, pass_model, set_option = r[1], r[6], r[7], r[8]
    lp_d, cols_d, rows_d, name_d = r[9], r[10], r[11], r[12]
    unsafe, keep, list_ = t[4], t[5], t[6]
    model = get_model(h)
    lp = lp_d.__get__(model)
    cols, rows, name = cols_d.__get__(lp), rows_d.__get__(lp), name_d.__get__(lp)
    bad_c, new_c = unsafe(cols, "x", t)
    bad_r, new_r = unsafe(rows, "c", t)
    bad_name = name and unsafe([name], "m", t)[0]
    if not bad_c and not bad_r and not bad_name:
        return h, {}
    renamed: dict[str, str] = {}
    for old, bad, new, d in ((cols, bad_c, new_c, cols_d), (rows, bad_r, new_r, rows_d)):
        names = list_(old)
        k = 0
        while k < t[2](bad):
            names[bad[k]] = new[k]
            k += 1
        d.__set__(lp, names)
        keep(renamed, old, bad, new, t)
    if bad_name:
        name_d.__set__(lp, "")
        renamed["(model name)"] = t[1](name)[:200]
    lp_d.__set__(model, lp)
    fresh = base()
    set_option(fresh, "output_flag", False)
    pass_model(fresh, model)
    return fresh, renamed


def _install_at_solve(tmp: str, file_bytes: int, written: list[int]) -> None:
    """Hook every solve of gurobipy and highspy: the model is captured as a frame (with safe
    names, the originals in a names frame), then solved as the program asked (``written``
    counts the bytes the hooks wrote to the channel)."""
    grb, grb_opt, grb_err, hs, hs_run = _solve_methods()
    grb_r, hs_r = _solver_refs("gurobipy highspy")
    fstat, write, o_open, o_read, o_close, unlink = os.fstat, os.write, os.open, os.read, \
        os.close, os.unlink
    urandom, compress, frame_, str_, getattr_ = os.urandom, zlib.compress, frame, str, getattr
    tools = (type, str, len, str.isprintable, _unsafe_names, _keep, list, NAME_KEEP)
    gurobi_safe, highs_safe = _gurobi_safe, _highs_safe
    grb_copy, grb_dispose = (grb.copy, grb.dispose) if grb is not None else (None, None)

    def emit(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[write(CAPTURE_FD, view):]
        written[0] += len(data)

    def capture(obj: Any, kind: str) -> None:
        path = f"{tmp}/.ortrex-solve-{urandom(8).hex()}.mps"
        renamed: dict[str, str] = {}
        try:
            if kind == "gurobipy":
                assert grb_r is not None
                # A copy is renamed: the program's own model keeps its names.
                safe, renamed = gurobi_safe(obj, grb_r, tools, grb_copy)
                try:
                    grb_r[2](safe, path)
                finally:
                    if safe is not obj:
                        grb_dispose(safe)
            else:
                assert hs_r is not None
                safe, renamed = highs_safe(obj, hs_r, tools)
                hs_r[2](safe, path)
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
            if renamed:
                emit(frame_(FRAME_NAMES, repr(renamed).encode()))

    if grb is not None:
        def optimize(self: Any, *args: Any, **kwargs: Any) -> Any:
            with contextlib.suppress(Exception):
                self.update()
            capture(self, "gurobipy")
            try:
                return grb_opt(self, *args, **kwargs)
            except grb_err as exc:
                if getattr_(exc, "errno", None) == GUROBI_SIZE_LIMIT:
                    emit(frame_(FRAME_LICENCE, b""))
                raise

        grb.optimize = optimize
    if hs is not None:
        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            capture(self, "highspy")
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
    grb_r, hs_r = _solver_refs(code) if capture else (None, None)
    grb, grb_update, grb_write, grb_attr = grb_r[:4] if grb_r else (None,) * 4
    hs, hs_write, hs_status, hs_str, hs_info = (hs_r[0], *hs_r[2:6]) if hs_r else (None,) * 5
    # The renaming helpers' code objects (immutable) and the builtins they are given, taken
    # now: after the program, fresh functions are made from them, whatever it rewrote.
    basics, keep_most = (type, str, len, str.isprintable), NAME_KEEP
    code_of = types.FunctionType.__dict__["__code__"].__get__
    function, tuple_ = types.FunctionType, tuple
    helper_code = tuple(code_of(f) for f in (_unsafe_names, _keep, _gurobi_safe, _highs_safe))
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
        unsafe_f, keep_f, gurobi_safe, highs_safe = (function(c, {}) for c in helper_code)
        tools = tuple_((*basics, unsafe_f, keep_f, list_, keep_most))
        path = f"{tmp}/.ortrex-capture-{urandom(8).hex()}.mps"
        renamed: dict[str, str] = {}
        try:
            if kind == "gurobipy":
                grb_update(chosen)
                # The program is over: renamed in place.
                _, renamed = gurobi_safe(chosen, grb_r, tools, None)
                grb_write(chosen, path)
                status = int_(grb_attr(chosen, "Status"))
                solved = status == 2 and int_(grb_attr(chosen, "SolCount")) > 0
                state = {"solver": kind, "status": grb_status.get(status, f"gurobi_{status}"),
                         "objective": float_(grb_attr(chosen, "ObjVal")) if solved else None}
            else:
                safe, renamed = highs_safe(chosen, hs_r, tools)
                hs_write(safe, path)
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
                if renamed:
                    data += frame_(FRAME_NAMES, repr_(renamed).encode())
            view = memoryview_(data)
            while view:
                view = view[write(CAPTURE_FD, view):]
            state.update(capture="ok", sha256=sha256(data).hexdigest(), bytes=len_(data))
            if renamed and not at_solve:
                state["renamed"] = renamed
        except Exception as exc:  # a model that cannot be written is reported, not fatal
            state = {"capture": "error", "why": f"model capture failed: {exc!s:.300}"}
    try:  # noqa: SIM105
        write(STATE_FD, repr_(state).encode())  # read back with ast.literal_eval
    except OSError:
        pass
    return code_ & 0xFF
