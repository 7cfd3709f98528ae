"""Static checks of a program before it runs: one code block, allowed imports, no stray file or
network access, every name defined, and the common gurobipy / highspy mistakes."""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import dataclass, field

ALLOWED_IMPORTS = frozenset({
    "gurobipy", "highspy", "numpy", "pandas", "scipy", "json", "csv", "math", "itertools",
    "collections", "functools", "typing", "dataclasses", "fractions", "decimal", "statistics",
    "operator", "re", "random", "heapq", "bisect", "string", "copy", "pprint", "enum",
})
# Standard modules a rendered program has no use for but a real one often imports (argument
# parsing, paths, timing). Findings of their own kind: seeds tolerate them, since the sandbox
# confines what they can reach; rendered documents do not.
STDLIB_IMPORTS = frozenset({
    "sys", "os", "time", "argparse", "pathlib", "glob", "logging", "warnings", "datetime",
    "io", "textwrap", "traceback", "contextlib", "abc", "types", "numbers", "timeit", "gzip",
    "zipfile", "shutil", "tempfile", "pickle", "struct", "array", "queue", "cmath",
    "platform", "inspect",
})
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


def _call_name(node: ast.Call) -> str:
    f = node.func
    if isinstance(f, ast.Name):
        return f.id
    if isinstance(f, ast.Attribute):
        return f.attr
    return ""


def _model_var(tree: ast.Module, ctor: str) -> list[tuple[str, int]]:
    """(name, line) of module-level assignments ``name = ...Model(...)`` / ``Highs()``."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Call) and \
                _call_name(node.value) == ctor:
            for t in node.targets:
                if isinstance(t, ast.Name):
                    out.append((t.id, node.lineno))
    return out


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
    except SyntaxError as e:
        report.findings.append(Finding("syntax", e.lineno or 1, f"syntax error: {e.msg}"))
        return report
    add = report.findings.append
    defined = _Defined()
    defined.visit(tree)
    uses_gurobi = uses_highs = False
    first_optimize: int | None = None
    result_reads: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            mods = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""]
            for mod in mods:
                top = mod.split(".")[0]
                uses_gurobi |= top == "gurobipy"
                uses_highs |= top == "highspy"
                if top in ALLOWED_IMPORTS:
                    continue
                if top in STDLIB_IMPORTS:
                    add(Finding("import-stdlib", node.lineno, f"import of {mod!r}"))
                elif top and (f"{top}.py" in data_files or
                              any(f.startswith(f"{top}/") for f in data_files)):
                    add(Finding("import-local", node.lineno,
                                f"import of {mod!r}, a module given beside the program"))
                else:
                    add(Finding("import", node.lineno, f"import of {mod!r} is not allowed"))
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            if node.id not in defined.names:
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
            if name in ("optimize", "run", "minimize", "maximize", "solve") and \
                    isinstance(node.func, ast.Attribute):
                first_optimize = node.lineno if first_optimize is None else \
                    min(first_optimize, node.lineno)
            if name in ("write", "writeModel", "writeSolution", "to_csv", "savetxt", "dump"):
                add(Finding("file-write", node.lineno, f"{name}() writes a file"))
        elif isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Load) and \
                node.attr in _RESULT_ATTRS:
            result_reads.append((node.lineno, node.attr))
    if uses_gurobi:
        names = _model_var(tree, "Model")
        if not names:
            add(Finding("no-model", 1, "no gurobipy Model is created"))
        elif model_name not in {n for n, _ in names}:
            add(Finding("model-name", names[0][1],
                        f"the model is named {names[0][0]!r}, the contract says {model_name!r}"))
    if uses_highs and not _model_var(tree, "Highs"):
        add(Finding("no-model", 1, "no highspy Highs object is created"))
    if (uses_gurobi or uses_highs) and first_optimize is None:
        add(Finding("no-optimize", 1, "the model is never optimized"))
    elif first_optimize is not None:
        for line, attr in result_reads:
            if line < first_optimize:
                add(Finding("read-before-optimize", line,
                            f".{attr} is read before the model is optimized"))
                break
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
        emit(Finding("file-write", node.lineno, f"open(..., {mode.value!r}) writes a file"))
    if isinstance(path, ast.Constant) and isinstance(path.value, str):
        if path.value not in data_files:
            emit(Finding("file-access", node.lineno,
                         f"opens {path.value!r}, which is not one of the data files"))
    elif path is not None and not data_files:
        emit(Finding("file-access", node.lineno, "opens a file, but the problem has no data "
                                                 "files"))
