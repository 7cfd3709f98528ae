"""Static checks of a program before it runs: one code block, allowed imports, no stray file or
network access, every name defined, and the common gurobipy / highspy mistakes."""

from __future__ import annotations

import ast
import builtins
import posixpath
import re
from dataclasses import dataclass, field

# Libraries that model, other than the two solvers: their models are captured when the
# program solves them (seed import), so a program using only these needs no gurobipy model.
MODELLING_IMPORTS = frozenset({"pulp", "pyomo", "ortools", "coptpy"})
ALLOWED_IMPORTS = frozenset({
    "gurobipy", "highspy", "numpy", "pandas", "scipy", "json", "csv", "math", "itertools",
    "collections", "functools", "typing", "dataclasses", "fractions", "decimal", "statistics",
    "operator", "re", "random", "heapq", "bisect", "string", "copy", "pprint", "enum",
    "__future__",  # a compiler directive: it imports nothing
    *MODELLING_IMPORTS,
})
# Standard modules a rendered program has no use for but a real one often imports (argument
# parsing, paths, timing). Findings of their own kind: seeds tolerate them, since the sandbox
# confines what they can reach; rendered documents do not. Modules that reach outside the
# process (sockets, processes, native code, dynamic imports) are in neither set: refused.
STDLIB_IMPORTS = frozenset({
    "sys", "os", "time", "argparse", "pathlib", "glob", "logging", "warnings", "datetime",
    "io", "textwrap", "traceback", "contextlib", "abc", "types", "numbers", "timeit", "gzip",
    "zipfile", "shutil", "tempfile", "pickle", "struct", "array", "queue", "cmath",
    "platform", "inspect", "uuid", "hashlib", "calendar", "zoneinfo", "graphlib", "weakref",
    "unicodedata", "difflib", "locale", "base64", "zlib", "bz2", "lzma", "shlex", "getopt",
    "optparse", "configparser", "tomllib", "fnmatch", "errno", "stat", "atexit",
    "tracemalloc", "cProfile", "pstats", "profile", "sqlite3", "copyreg", "secrets",
    # Pure-Python modelling helpers real programs use (graphs for routing and networks).
    "networkx",
})
# Plotting libraries: a finding of their own (seeds tolerate it; the harness makes their
# plots draw nothing, with a stand-in where the library is not installed).
PLOT_IMPORTS = frozenset({"matplotlib", "pylab", "seaborn", "plotly", "IPython",
                          "ipywidgets"})
FORBIDDEN_CALLS = frozenset({"eval", "exec", "compile", "__import__", "input", "breakpoint",
                             "globals", "vars", "getattr", "setattr", "delattr"})
_FENCE = re.compile(r"```[ \t]*([\w+-]*)[^\n]*\n(.*?)```", re.S)
_RESULT_ATTRS = frozenset({"X", "x", "ObjVal", "objVal", "Pi", "RC", "Slack", "ObjBound"})


@dataclass(frozen=True)
class Finding:
    """One problem: a short code, the line, and a sentence."""

    code: str
    line: int
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.message} [{self.code}]"


@dataclass
class StaticReport:
    """The code that was checked and what is wrong with it."""

    code: str
    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No findings."""
        return not self.findings

    def summary(self) -> str:
        """The findings, one per line."""
        return "; ".join(str(f) for f in self.findings)


def extract_code(text: str) -> tuple[str, list[Finding]]:
    """The program in ``text``: the single fenced block when fences are used, else the text."""
    if "```" not in text:
        return text, []
    blocks = [(lang.lower(), body) for lang, body in _FENCE.findall(text)]
    code_blocks = [b for lang, b in blocks if lang in ("", "python", "py", "python3")]
    if len(code_blocks) != 1:
        return (code_blocks[0] if code_blocks else ""), [Finding(
            "code-blocks", 1, f"expected exactly one Python code block, found {len(code_blocks)}")]
    return code_blocks[0], []


class _Defined(ast.NodeVisitor):
    """Every name bound anywhere (flow-insensitive: a use before assignment is not flagged)."""

    def __init__(self) -> None:
        self.names: set[str] = set(dir(builtins)) | {"__name__", "__file__"}
        self.star = False  # a ``from m import *``: the names it binds are unknown here

    def visit_Name(self, node: ast.Name) -> None:
        if isinstance(node.ctx, (ast.Store, ast.Del)):
            self.names.add(node.id)

    def visit_arg(self, node: ast.arg) -> None:
        self.names.add(node.arg)

    def _def(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> None:
        self.names.add(node.name)
        self.generic_visit(node)

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _def

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            self.names.add(a.asname or a.name.split(".")[0])

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        for a in node.names:
            self.star |= a.name == "*"
            self.names.add(a.asname or a.name)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_Global(self, node: ast.Global) -> None:
        self.names.update(node.names)

    visit_Nonlocal = visit_Global  # type: ignore[assignment]

    def visit_MatchAs(self, node: ast.MatchAs) -> None:
        if node.name:
            self.names.add(node.name)
        self.generic_visit(node)

    def visit_MatchStar(self, node: ast.MatchStar) -> None:
        if node.name:
            self.names.add(node.name)

    def visit_MatchMapping(self, node: ast.MatchMapping) -> None:
        if node.rest:
            self.names.add(node.rest)
        self.generic_visit(node)


def _call_name(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


# What creates a solver's model: its class (``Model`` / ``Highs``) however it is reached
# (``gp.Model``, ``gurobipy.Model``, ``self.gp.Model``, an imported name), and functions that
# return one (gurobipy's ``read`` of a model file) called on the module or imported from it
# (``f.read()`` is a file's).
_CTORS = {"gurobipy": ("Model", frozenset({"read"})), "highspy": ("Highs", frozenset())}
_SOLVE_CALLS = frozenset({"optimize", "run", "minimize", "maximize", "solve", "Solve"})
# The bodies a result read is ordered within: a read in one is not ordered against a solve in
# another (a method printing results may come before the method that solves).
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)


def _creations(tree: ast.Module, module: str) -> list[ast.Call]:
    """Every call that creates a ``module`` model, anywhere: a function, a class, a ``with``,
    a ``return``, a comprehension."""
    cls, funcs = _CTORS[module]
    aliases: set[str] = set()  # names bound to the module itself
    imported: set[str] = set()  # local names of its class and functions
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            aliases.update(a.asname or a.name for a in node.names if a.name == module)
        elif isinstance(node, ast.ImportFrom) and node.module == module:
            imported.update(a.asname or a.name for a in node.names if a.name in funcs | {cls})
            if any(a.name == "*" for a in node.names):
                imported.update(funcs)
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        by_attr = isinstance(f, ast.Attribute) and (f.attr == cls or (
            f.attr in funcs and isinstance(f.value, ast.Name) and f.value.id in aliases))
        if by_attr or (isinstance(f, ast.Name) and (f.id == cls or f.id in imported)):
            out.append(node)
    return out


def _bound_names(tree: ast.Module, calls: list[ast.Call]) -> list[tuple[str, int]]:
    """(name, line) of the plain names the created models are assigned to (``model = ...``,
    ``model: gp.Model = ...``, ``(model := ...)``): what the contract's model name is."""
    ids = {id(c) for c in calls}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and \
                id(node.value) in ids:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            out.extend((t.id, node.lineno) for t in targets if isinstance(t, ast.Name))
    return sorted(out, key=lambda nl: nl[1])


def _own_nodes(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` outside the functions and classes nested in it."""
    out, todo = [], list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        out.append(node)
        if not isinstance(node, _SCOPES):
            todo.extend(ast.iter_child_nodes(node))
    return out


def _is_result_read(node: ast.AST) -> bool:
    """A read of a solution attribute; gurobipy's lowercase ``.x`` only off an element
    (``x[i].x``, ``m.getVarByName("a").x``): ``self.x`` or ``point.x`` is a program's own."""
    if not (isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and
            node.attr in _RESULT_ATTRS):
        return False
    return node.attr != "x" or isinstance(node.value, (ast.Subscript, ast.Call))


def _read_before_optimize(tree: ast.Module) -> Finding | None:
    """The first result read (``.X``, ``.ObjVal``) that comes before the first solve of its
    own scope (module, function or class body); a scope that never solves is not judged (it
    may run after a solve elsewhere)."""
    found: list[Finding] = []
    for scope in [tree, *(n for n in ast.walk(tree) if isinstance(n, _SCOPES))]:
        nodes = _own_nodes(scope)
        solves = [n.lineno for n in nodes if isinstance(n, ast.Call) and
                  isinstance(n.func, ast.Attribute) and n.func.attr in _SOLVE_CALLS]
        if not solves:
            continue
        first = min(solves)
        found.extend(Finding("read-before-optimize", n.lineno,
                             f".{n.attr} is read before the model is optimized")
                     for n in nodes if _is_result_read(n) and n.lineno < first)
    return min(found, key=lambda f: f.line) if found else None


def check_program(text: str, data_files: tuple[str, ...] = (),
                  model_name: str = "model") -> StaticReport:
    """Check a program (or a reply with one fenced code block) before running it.

    ``data_files`` are the files the statement gives it (the only ones it may open, read-only);
    ``model_name`` is the name the contract gives the gurobipy model (``h`` for highspy).
    """
    code, findings = extract_code(text)
    report = StaticReport(code, findings)
    try:
        tree = ast.parse(code)
        # The compiler's own checks too ('return' outside a function): compiled, never run.
        compile(tree, "main.py", "exec", dont_inherit=True)
    except (SyntaxError, ValueError) as e:
        line = getattr(e, "lineno", None) or 1
        report.findings.append(Finding("syntax", line,
                                       f"syntax error: {getattr(e, 'msg', None) or e}"))
        return report
    add = report.findings.append
    defined = _Defined()
    defined.visit(tree)
    uses_gurobi = uses_highs = uses_other = solves = local = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""]
            for mod in mods:
                top = mod.split(".")[0]
                uses_gurobi |= top == "gurobipy"
                uses_highs |= top == "highspy"
                uses_other |= top in MODELLING_IMPORTS
                if top in ALLOWED_IMPORTS:
                    continue
                if top in STDLIB_IMPORTS:
                    add(Finding("import-stdlib", node.lineno, f"import of {mod!r}"))
                elif top in PLOT_IMPORTS:
                    add(Finding("import-plot", node.lineno,
                                f"import of {mod!r}, a plotting library"))
                elif top and (f"{top}.py" in data_files or
                              any(f.startswith(f"{top}/") for f in data_files)):
                    local = True
                    add(Finding("import-local", node.lineno,
                                f"import of {mod!r}, a module given beside the program"))
                else:
                    add(Finding("import", node.lineno, f"import of {mod!r} is not allowed"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            # After a star import any name may be bound by it: none is called undefined.
            if node.id not in defined.names and not defined.star:
                add(Finding("undefined", node.lineno, f"name {node.id!r} is never defined"))
        elif isinstance(node, ast.Call):
            name = _call_name(node)
            if isinstance(node.func, ast.Name) and name in FORBIDDEN_CALLS:
                add(Finding("call", node.lineno, f"call to {name}() is not allowed"))
            if isinstance(node.func, ast.Name) and name == "open":
                _check_open(node, data_files, add)
            if name in ("addConstr", "addConstrs", "addLConstr"):
                for expr in _constraint_exprs(node):
                    if isinstance(expr, ast.BoolOp):
                        add(Finding("gurobi-boolop", node.lineno, "Python 'and'/'or' in a "
                                    f"constraint of {name}(): it keeps only one side"))
                    elif isinstance(expr, ast.Compare) and len(expr.ops) > 1:
                        add(Finding("gurobi-chained", node.lineno, "a chained comparison in "
                                    f"{name}() keeps only one side; use two constraints"))
            solves |= name in _SOLVE_CALLS and isinstance(node.func, ast.Attribute)
            if name in ("write", "writeModel", "writeSolution", "to_csv", "savetxt", "dump"):
                add(Finding("file-write", node.lineno, f"{name}() writes a file"))
    if uses_gurobi:
        made = _creations(tree, "gurobipy")
        names = _bound_names(tree, made)
        # A program that models with another library may import gurobipy for its constants;
        # one that imports its own helper module may build the model in there.
        if not made and not uses_other and not local:
            add(Finding("no-model", 1, "no gurobipy Model is created"))
        elif made and model_name not in {n for n, _ in names}:
            add(Finding("model-name", names[0][1] if names else made[0].lineno,
                        f"the model is named {names[0][0]!r}, the contract says {model_name!r}"
                        if names else f"the model is not assigned to a name; the contract "
                        f"says {model_name!r}"))
    if uses_highs and not uses_other and not local and not _creations(tree, "highspy"):
        add(Finding("no-model", 1, "no highspy Highs object is created"))
    if (uses_gurobi or uses_highs) and not solves:
        add(Finding("no-optimize", 1, "the model is never optimized"))
    # .X / .ObjVal are the two solvers' result attributes (``m.x`` is a Pyomo variable).
    elif (uses_gurobi or uses_highs) and not uses_other and \
            (early := _read_before_optimize(tree)) is not None:
        add(early)
    report.findings.sort(key=lambda f: (f.line, f.code))
    return report


def _constraint_exprs(node: ast.Call) -> list[ast.expr]:
    """The constraint expressions a call passes: its arguments, or the element of a generator
    (its ``if`` filters are ordinary Python and may use ``and``)."""
    out = []
    for a in [*node.args[:1], *(k.value for k in node.keywords if k.arg in ("constr", "lhs"))]:
        out.append(a.elt if isinstance(a, (ast.GeneratorExp, ast.ListComp)) else a)
    return out


def _check_open(node: ast.Call, data_files: tuple[str, ...], add: object) -> None:
    """``open`` only for the data files, and only to read them."""
    emit = add  # a bound list.append
    path = node.args[0] if node.args else next(
        (k.value for k in node.keywords if k.arg == "file"), None)
    mode = node.args[1] if len(node.args) > 1 else next(
        (k.value for k in node.keywords if k.arg == "mode"), None)
    if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and \
            set(mode.value) & set("wax+"):
        # A file it writes is its own, not one it reads without being given: one finding.
        emit(Finding("file-write", node.lineno, f"open(..., {mode.value!r}) writes a file"))
        return
    if isinstance(path, ast.Constant) and isinstance(path.value, str):
        # "./data.json" is the data file "data.json".
        if posixpath.normpath(path.value) not in data_files:
            emit(Finding("file-access", node.lineno,
                         f"opens {path.value!r}, which is not one of the data files"))
    elif path is not None and not data_files:
        emit(Finding("file-access", node.lineno, "opens a file, but the problem has no data "
                                                 "files"))
