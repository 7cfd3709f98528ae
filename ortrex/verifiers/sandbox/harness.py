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
import importlib.machinery
import os
import signal
import struct
import sys
import traceback
import types
import zlib
from typing import Any

from ortrex.verifiers.sandbox import capture_libs  # imported here: ortrex is masked in the sandbox

CAPTURE_FD, STATE_FD = 3, 4  # where the parent's capture files wait, in the program's process
_GRB_STATUS = {1: "not_solved", 2: "optimal", 3: "infeasible", 4: "infeasible_or_unbounded",
               5: "unbounded", 9: "time_limit", 13: "suboptimal"}
_HIGHS_STATUS = {"optimal": "optimal", "infeasible": "infeasible", "unbounded": "unbounded",
                 "not set": "not_solved", "empty": "not_solved"}
_PREFERRED = ("model", "m", "h")
# A capture frame: MAGIC, kind, payload length (<Q), sha256 of the payload, payload.
# Kinds: a model (zlib-compressed MPS); the licence refused the program's solve; a model over
# the file limit (payload: its size as text); the original names of the model before it
# (payload: the repr of a dict, new name -> original); a model solved with a callback, as it
# was before the solve (never taken: the rows its callback adds come in the model frame after
# the solve); the program's own optimum of the model before it (payload: the repr of
# ``(objective, bound)``, only where its solve was optimal).
FRAME_MAGIC = b"\x00ORTX"
FRAME_MODEL, FRAME_LICENCE, FRAME_TOO_LARGE, FRAME_NAMES = b"M", b"L", b"T", b"N"
FRAME_PARTIAL, FRAME_SOLVED = b"P", b"S"
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


def _install_at_solve(tmp: str, file_bytes: int, written: list[int], code: str = ""
                      ) -> tuple[type, ...]:
    """Hook every solve of gurobipy and highspy, and of the modelling libraries the program
    names (``capture_libs``): the model is captured as a frame (with safe names, the originals
    in a names frame), then solved as the program asked (``written`` counts the bytes the
    hooks wrote to the channel); the libraries' real model classes."""
    grb, grb_opt, grb_err, hs, hs_run = _solve_methods()
    grb_r, hs_r = _solver_refs("gurobipy highspy")
    fstat, write, o_open, o_read, o_close, unlink = os.fstat, os.write, os.open, os.read, \
        os.close, os.unlink
    urandom, compress, frame_, str_, getattr_ = os.urandom, zlib.compress, frame, str, getattr
    tools = (type, str, len, str.isprintable, _unsafe_names, _keep, list, NAME_KEEP)
    gurobi_safe, highs_safe = _gurobi_safe, _highs_safe
    grb_copy, grb_dispose = (grb.copy, grb.dispose) if grb is not None else (None, None)
    float_, int_, repr_, dict_, tuple_, range_ = float, int, repr, dict, tuple, range
    recording: list[list[Any]] = []  # the rows callbacks add during each solve in progress
    depth = [0]  # inside a library's solve: the gurobipy or highspy one under it is not taken

    def emit(data: bytes) -> None:
        view = memoryview(data)
        while view:
            view = view[write(CAPTURE_FD, view):]
        written[0] += len(data)

    def capture(obj: Any, kind: str, frame_kind: bytes = FRAME_MODEL) -> None:
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
        model_frame(b"".join(chunks), frame_kind, renamed)

    def model_frame(text: bytes, frame_kind: bytes = FRAME_MODEL,
                    renamed: dict[str, str] | None = None) -> None:
        payload = compress(text, 1)
        # A frame past the file limit would be cut (and SIGXFSZ end the program): say so.
        if fstat(CAPTURE_FD).st_size + len(payload) + FRAME_HEAD.size + 64 > file_bytes:
            emit(frame_(FRAME_TOO_LARGE, str_(len(text)).encode()))
        else:
            emit(frame_(frame_kind, payload))
            if renamed:
                emit(frame_(FRAME_NAMES, repr(renamed).encode()))

    def solved(objective: float, bound: float) -> None:
        emit(frame_(FRAME_SOLVED, repr_((float_(objective), float_(bound))).encode()))

    if grb is not None:
        import gurobipy

        get_attr, lin_expr, grb_var = grb.getAttr, gurobipy.LinExpr, gurobipy.Var

        def side(e: Any) -> tuple[dict[int, float], float]:
            """A linear side of a callback's row: its coefficients by variable index and its
            constant (anything else raises: the row cannot be carried)."""
            if type(e) in (int_, float_):
                return {}, float_(e)
            if type(e) is grb_var:
                return {int_(e.index): 1.0}, 0.0
            if type(e) is not lin_expr:
                raise TypeError("not a linear expression")
            coefs: dict[int, float] = {}
            for k in range_(e.size()):
                j = int_(e.getVar(k).index)
                coefs[j] = coefs.get(j, 0.0) + float_(e.getCoeff(k))
            return coefs, float_(e.getConstant())

        def recorder(method: Any) -> Any:
            def added(self: Any, lhs: Any, sense: Any = None, rhs: Any = None,
                      *args: Any, **kwargs: Any) -> Any:
                if recording:
                    try:
                        if sense is None:  # a TempConstr: x + y <= 3
                            lhs, sense, rhs = lhs._lhs, lhs._sense, lhs._rhs
                        (a, ca), (b, cb) = side(lhs), side(rhs)
                        for j, v in b.items():
                            a[j] = a.get(j, 0.0) - v
                        row = (tuple_(sorted((j, v) for j, v in a.items() if v)),
                               str_(sense)[:1], cb - ca)
                    except Exception:
                        row = None  # a row the capture cannot carry: the model is not taken
                    recording[-1].append(row)
                if sense is None:
                    return method(self, lhs, *args, **kwargs)
                return method(self, lhs, sense, rhs, *args, **kwargs)
            return added

        def complete(m: Any, rows: list[Any]) -> None:
            """The model ``m`` with the rows its callback added, captured after its solve."""
            if None in rows:
                return  # the partial frame stands alone: the parent says why it is not taken
            c = grb_copy(m)
            try:
                cv = c.getVars()
                for k, (coefs, sense, rhs) in enumerate(dict_.fromkeys(rows)):
                    c.addLConstr(lin_expr([v for _, v in coefs], [cv[j] for j, _ in coefs]),
                                 sense, rhs, name=f"callback_row_{k}")
                c.update()
                capture(c, "gurobipy")
            except Exception:
                return
            finally:
                grb_dispose(c)

        def grb_solved(m: Any) -> None:
            try:
                if int_(get_attr(m, "Status")) != 2 or int_(get_attr(m, "SolCount")) < 1:
                    return
                objective = float_(get_attr(m, "ObjVal"))
                try:
                    bound = float_(get_attr(m, "ObjBound"))
                except Exception:  # a continuous model has no bound attribute: its optimum
                    bound = objective
                solved(objective, bound)
            except Exception:
                pass

        def optimize(self: Any, *args: Any, **kwargs: Any) -> Any:
            if depth[0]:  # a library's solve, captured as that library's model
                return grb_opt(self, *args, **kwargs)
            with contextlib.suppress(Exception):
                self.update()
            callback = args[0] if args else kwargs.get("callback")
            # With a callback, lazy constraints and user cuts join the model during the
            # solve: it is captured after, with them (the frame before is never taken alone).
            capture(self, "gurobipy", FRAME_MODEL if callback is None else FRAME_PARTIAL)
            rows: list[Any] = []
            if callback is not None:
                recording.append(rows)
            try:
                result = grb_opt(self, *args, **kwargs)
            except grb_err as exc:
                if getattr_(exc, "errno", None) == GUROBI_SIZE_LIMIT:
                    emit(frame_(FRAME_LICENCE, b""))
                raise
            finally:
                if callback is not None:
                    recording.pop()
            if callback is not None:
                complete(self, rows)
            grb_solved(self)
            return result

        grb.optimize = optimize
        grb.cbLazy, grb.cbCut = recorder(grb.cbLazy), recorder(grb.cbCut)
    if hs is not None:
        hs_status, hs_str, hs_info = hs_r[3], hs_r[4], hs_r[5]  # type: ignore[index]

        def run(self: Any, *args: Any, **kwargs: Any) -> Any:
            if depth[0]:  # a library's solve, captured as that library's model
                return hs_run(self, *args, **kwargs)
            capture(self, "highspy")
            result = hs_run(self, *args, **kwargs)
            try:
                if str_(hs_str(self, hs_status(self))).lower() == "optimal":
                    info = hs_info(self)
                    objective = float_(info.objective_function_value)
                    bound = float_(info.mip_dual_bound)
                    # a continuous model reports no dual bound: its optimum is exact
                    solved(objective, bound if int_(info.mip_node_count) > 0 and
                           abs(bound) < 1e300 else objective)
            except Exception:
                pass
            return result

        hs.run = run
    def refused(library: str) -> None:
        emit(frame_(FRAME_LICENCE, library.encode()[:20]))

    return capture_libs.install(code, tmp, model_frame, solved, depth, refused)


# The plotting libraries a seed may import (``static.PLOT_IMPORTS``). An installed one is the
# real library, drawing off-screen (``MPLBACKEND=Agg`` in the program's environment); one this
# machine lacks is a stand-in, so a program that plots still runs to its solve. A plot is never
# part of what is checked. The stand-in is the harness's code; the program only calls it.
PLOT_MODULES = ("matplotlib", "pylab", "seaborn", "plotly", "IPython", "ipywidgets")


class PlotStub(types.ModuleType):
    """A plotting library that is not installed: every attribute, call, item and context of it
    is itself, so plots draw nothing and fail nowhere."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") and name.endswith("__"):  # the import system's questions
            raise AttributeError(name)
        return self

    def __call__(self, *args: Any, **kwargs: Any) -> PlotStub:
        return self

    def __getitem__(self, key: Any) -> PlotStub:
        return self

    def __setitem__(self, key: Any, value: Any) -> None:  # plt.rcParams["font.size"] = 12
        pass

    def __iter__(self) -> Any:
        return iter(())

    def __enter__(self) -> PlotStub:  # with plt.style.context(...)
        return self

    def __exit__(self, *exc: object) -> bool:
        return False

    def subplots(self, nrows: int = 1, ncols: int = 1, *args: Any, squeeze: bool = True,
                 **kwargs: Any) -> tuple[PlotStub, Any]:
        """A figure and its axes, shaped as the real ``subplots`` shapes them (``fig, ax``,
        ``fig, (a, b)``, ``axes[0, 1]``, ``axes.flat``)."""
        try:
            import numpy

            axes = numpy.empty((nrows, ncols), dtype=object)
            axes.fill(self)
        except (ImportError, TypeError, ValueError):
            return self, self
        if squeeze:
            axes = axes.squeeze()
            return self, (self if axes.ndim == 0 else axes)
        return self, axes


class _PlotFinder:
    """Finds the stand-in for a plotting library (or a module inside one) this machine does
    not have: consulted after every real finder, and never inside an installed library."""

    def __init__(self, roots: tuple[str, ...]) -> None:
        self.roots, self.stub = roots, PlotStub

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        top = name.partition(".")[0]
        if top not in self.roots or (top != name and
                                     not isinstance(sys.modules.get(top), self.stub)):
            return None
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec: Any) -> PlotStub:
        return self.stub(spec.name)

    def exec_module(self, module: Any) -> None:
        pass


def install_plot_stubs(code: str) -> None:
    """Stand-ins for the plotting libraries this machine lacks, where ``code`` names one."""
    if any(m in code for m in PLOT_MODULES):
        sys.meta_path.append(_PlotFinder(PLOT_MODULES))


def run(code: str, capture: bool, pid_ns_init: bool, workdir: str, tmp: str,
        at_solve: bool = False, argv: tuple[str, ...] = (), file_bytes: int = 64 << 20) -> int:
    """Run ``code`` as ``__main__`` in this (confined) process (``workdir`` its directory,
    ``tmp`` its temporary one, ``argv`` its arguments), then capture its model (or, with
    ``at_solve``, each model at the moment it is solved); the program's exit code. After the
    program, only locals bound here and C-level callables run (no module global, no Python
    function the program could have rewritten)."""
    written = [0]
    libraries: tuple[type, ...] = ()
    if capture and at_solve:
        libraries = _install_at_solve(tmp, file_bytes, written, code)
    if at_solve:  # seeds: the one kind of program the static check lets plot
        install_plot_stubs(code)
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
            if t in libraries:  # PuLP's, COPT's... own model: taken at solve or not at all
                continue
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
