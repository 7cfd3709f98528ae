"""Project rules: the README quick start, CI running its test command, one-way imports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# The layers, lowest first (docs/layout.md): a package imports only itself and the layers below
# it. Leaves: the IR, the job layer, where the shared data lives, the rich consoles, the kernels,
# the plugin loader.
LAYERS: tuple[tuple[str, ...], ...] = (
    ("plugins",),  # a leaf every registry loads, the kernel table included
    ("ir", "jobs", "paths", "ui", "kernels"),
    ("store",),
    ("render", "benchmarks"),
    ("verifiers",),
    ("served",),
    ("engine", "evaluation", "reports", "export"),
    ("flywheel", "trainers"),
    ("cli",),
)
def _allowed(layer: str) -> set[str]:
    below: set[str] = set()
    for tier in LAYERS:
        if layer in tier:
            return below | {layer}
        below |= set(tier)
    raise AssertionError(f"{layer} is in no layer")


def quick_start() -> list[str]:
    text = (ROOT / "README.md").read_text()
    section = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```(?:bash|sh)?\n(.*?)```", section, re.S)
    assert block, "the quick start needs a fenced command block"
    return [ln for ln in block.group(1).splitlines() if ln.strip() and not ln.startswith("#")]


def test_quick_start_has_exactly_two_commands() -> None:
    commands = quick_start()
    assert len(commands) == 2, commands
    assert "ortrex pipeline --count 500" in commands[0] and "pytest" in commands[1]


def test_ci_runs_the_readme_test_command() -> None:
    ci = (ROOT / ".ci" / "run").read_text()
    assert quick_start()[1] in ci
    assert "ORTREX_REQUIRE_SHARED=1" in ci


def _imports(path: Path) -> list[tuple[str, str | None]]:
    """(module, name) for every ortrex import in a file, lazy ones in functions included."""
    found: list[tuple[str, str | None]] = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found += [(a.name, None) for a in node.names if a.name.startswith("ortrex")]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0 \
                and node.module.startswith("ortrex"):
            found += [(node.module, a.name) for a in node.names]
    return found


def _ortrex_imports(path: Path) -> set[str]:
    return {m.split(".")[1] for m, _ in _imports(path) if "." in m}


def _modules() -> dict[str, Path]:
    found = {}
    for path in (ROOT / "ortrex").rglob("*.py"):
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts)
        found[name.removesuffix(".__init__")] = path
    return found


def _layer_files(layer: str) -> list[Path]:
    folder = ROOT / "ortrex" / layer
    return list(folder.rglob("*.py")) if folder.is_dir() else [folder.with_suffix(".py")]


def test_every_package_has_a_layer() -> None:
    named = {name for tier in LAYERS for name in tier}
    present = {p.name.removesuffix(".py") for p in (ROOT / "ortrex").iterdir()
               if not p.name.startswith("_") and ((p.is_dir() and (p / "__init__.py").exists())
                                                  or p.suffix == ".py")}
    assert present == named


def test_layers_import_one_way() -> None:
    bad = []
    for tier in LAYERS:
        for layer in tier:
            for path in _layer_files(layer):
                extra = _ortrex_imports(path) - _allowed(layer)
                if extra:
                    bad.append(f"{path.relative_to(ROOT)} imports {sorted(extra)}")
    assert not bad, bad


# The two documented facades of the IR: a CanonicalModel delegates to its fingerprint, normal
# form and serialisation, and a SemanticModel to its grounding; both import them lazily.
FACADES = ({"ortrex.ir.canonical", "ortrex.ir.fingerprint", "ortrex.ir.normalize",
            "ortrex.ir.serialization"}, {"ortrex.ir.ground", "ortrex.ir.semantic"})


def _edges() -> dict[str, set[str]]:
    mods = _modules()
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, path in mods.items():
        for module, imported in _imports(path):
            target = f"{module}.{imported}" if f"{module}.{imported}" in mods else module
            # A submodule importing its own package's facade is no cycle worth the name only
            # when the package is not the module's own: within a package it is one.
            if target in mods and target != name:
                edges[name].add(target)
    return edges


def _cycles(edges: dict[str, set[str]]) -> list[set[str]]:
    """Strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found: list[set[str]] = []
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            node, it = work[-1]
            nxt = next(it, None)
            if nxt is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    comp = set()
                    while True:
                        m = stack.pop()
                        on.discard(m)
                        comp.add(m)
                        if m == node:
                            break
                    if len(comp) > 1:
                        found.append(comp)
            elif nxt not in index:
                index[nxt] = low[nxt] = len(index)
                stack.append(nxt)
                on.add(nxt)
                work.append((nxt, iter(sorted(edges[nxt]))))
            elif nxt in on:
                low[node] = min(low[node], index[nxt])
    return found


def test_no_import_cycles_but_the_two_ir_facades() -> None:
    cycles = [sorted(c) for c in _cycles(_edges()) if c not in FACADES]
    assert not cycles, cycles


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [{"a", "b", "c"}]


def test_no_module_imports_another_modules_private_names() -> None:
    mods = _modules()
    bad = [f"{path.relative_to(ROOT)} imports {module}.{imported}"
           for name, path in mods.items() for module, imported in _imports(path)
           if imported and imported.startswith("_") and not imported.startswith("__")
           and module != name]
    assert not bad, bad


def test_only_the_entry_points_import_the_cli() -> None:
    cli = ROOT / "ortrex" / "cli"
    users = [p.relative_to(ROOT) for p in (ROOT / "ortrex").rglob("*.py")
             if "cli" in _ortrex_imports(p) and p.name != "__main__.py" and cli not in p.parents]
    assert users == []


# Module names that name the same role in every package that has one.
ROLE_MODULES = {"base": "a package's base classes", "registry": "a package's registry",
                "errors": "a package's exceptions", "sources": "where a job's input comes from"}
# The same subject seen from two layers: a family and its telling (one module per family
# group on each side), English made (render) and checked (verifiers).
MIRRORS = ({"engine/families", "render/tellings"}, {"render/language.py", "verifiers/language.py"})


def _mirrored(paths: list[Path]) -> bool:
    rel = [str(p.relative_to(ROOT / "ortrex")) for p in paths]
    return any(all(r in m or str(Path(r).parent) in m for r in rel) for m in MIRRORS)


def test_one_name_means_one_thing() -> None:
    classes: dict[str, set[str]] = {}
    basenames: dict[str, list[Path]] = {}
    for path in (ROOT / "ortrex").rglob("*.py"):
        package = path.relative_to(ROOT / "ortrex").parts[0].removesuffix(".py")
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
                classes.setdefault(node.name, set()).add(package)
        if path.name != "__init__.py":
            basenames.setdefault(path.stem, []).append(path)
    twice = {name: sorted(pkgs) for name, pkgs in classes.items() if len(pkgs) > 1}
    assert not twice, f"one class name, several packages: {twice}"
    modules = {stem: [str(p.relative_to(ROOT)) for p in paths]
               for stem, paths in basenames.items()
               if len(paths) > 1 and stem not in ROLE_MODULES and not _mirrored(paths)}
    assert not modules, f"one module name, unrelated jobs: {modules}"


def test_the_name_check_catches_a_duplicate() -> None:
    assert not _mirrored([ROOT / "ortrex/render/data.py", ROOT / "ortrex/trainers/data.py"])
    assert _mirrored([ROOT / "ortrex/engine/families/routing.py",
                      ROOT / "ortrex/render/tellings/routing.py"])


def test_the_package_says_what_it_is_and_ships_its_licence_and_types() -> None:
    """An installed ortrex names its licence (with the text beside it), its authors and
    classifiers, and marks itself typed (PEP 561) for its users' checkers."""
    import tomllib
    from importlib.metadata import metadata

    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert (ROOT / "LICENSE").read_text().startswith("MIT License")
    assert project["authors"] and "Typing :: Typed" in project["classifiers"]
    assert (ROOT / "ortrex" / "py.typed").is_file()
    meta = metadata("ortrex")
    assert meta["License-Expression"] == "MIT" or meta["License"] == "MIT", meta.items()


def test_pytest_runs_without_xdist_and_collect_only_gives_its_total() -> None:
    import subprocess
    import sys

    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:xdist", "--collect-only",
                        "-q", "tests/test_wheel.py"], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.strip().splitlines()[-1].startswith("1 test collected"), r.stdout


def test_the_top_level_api_resolves_lazily() -> None:
    import subprocess
    import sys

    code = ("import sys, ortrex\nassert 'duckdb' not in sys.modules, 'DuckDB loaded'\n"
            "missing = [n for n in ortrex.__all__ if getattr(ortrex, n, None) is None]\n"
            "assert not missing, missing\n"
            "from ortrex.verifiers.equivalence import check_equivalence\n"
            "assert ortrex.check_equivalence is check_equivalence\n"
            "print(len(ortrex.__all__))\n")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and int(r.stdout) >= 10, r.stderr
