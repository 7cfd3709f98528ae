"""Project rules: the README quick start, CI running its test command, one-way imports."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Which ortrex subpackages each layer may import (DESIGN.md: data flows one way).
ALLOWED = {
    # jobs: the job layer, a leaf every layer may use (executors, driver, failures).
    "jobs": {"jobs"},
    "ir": {"ir"},
    # paths: a leaf that only says where the shared data lives (the sandbox hides it).
    "verifiers": {"ir", "verifiers", "paths", "jobs"},
    "render": {"ir", "render"},
    "store": {"ir", "store"},
    # engine -> evaluation, export: the clean flywheel (engine/distill, engine/flywheel) asks
    # served models through the evaluation's client, prompts and sandboxed scoring, and holds
    # its examples to the SFT contract of export's chat templates; neither imports engine.
    "engine": {"ir", "verifiers", "render", "store", "engine", "paths", "jobs", "evaluation",
               "export"},
    "export": {"ir", "store", "export", "jobs"},
    "kernels": {"kernels"},
    # store: a training run is a `runs` row with lineage export -> run -> checkpoint -> model;
    # ui (a leaf: rich consoles): the progress line of a run and the recipe's tables, printed
    # while the run goes, not at the end.
    "trainers": {"trainers", "kernels", "export", "store", "ui"},
    "evaluation": {"ir", "verifiers", "store", "evaluation", "paths", "jobs"},
}


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


def _ortrex_imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    found = set()
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        for name in names:
            parts = name.split(".")
            if parts[0] == "ortrex" and len(parts) > 1:
                found.add(parts[1])
    return found


def test_layers_import_one_way() -> None:
    bad = []
    for layer, allowed in ALLOWED.items():
        for path in (ROOT / "ortrex" / layer).rglob("*.py"):
            extra = _ortrex_imports(path) - allowed
            if extra:
                bad.append(f"{path.relative_to(ROOT)} imports {sorted(extra)}")
    assert not bad, bad


def test_only_the_entry_points_import_the_cli() -> None:
    cli = ROOT / "ortrex" / "cli"
    users = [p.relative_to(ROOT) for p in (ROOT / "ortrex").rglob("*.py")
             if "cli" in _ortrex_imports(p) and p.name != "__main__.py" and cli not in p.parents]
    assert users == []
