"""The README is a front door and the manual in docs/ stays true: links, module paths, commands."""

from __future__ import annotations

import importlib
import importlib.util
import re
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = ROOT / "docs"
MAX_README_LINES = 200

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
SPAN = re.compile(r"`([^`\n]+)`")
LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
MODULE = re.compile(r"(?<![\w./-])ortrex(?:\.[A-Za-z_]\w*)+")
PATH = re.compile(r"(?<![\w./-])(?:ortrex|tests|benchmarks|docs|\.ci)/[\w./-]*")
NOT_MODULES = {"ortrex.duckdb", "ortrex.duckdb.lock"}  # the default store and its job lock


def pages() -> list[Path]:
    return [README, *sorted(DOCS.glob("*.md"))]


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


def code(text: str) -> list[str]:
    """The fenced blocks and the inline code spans of a page (spans outside the blocks)."""
    blocks = FENCE.findall(text)
    return blocks + SPAN.findall(FENCE.sub("", text))


def links(text: str) -> list[str]:
    """Every link target of a page, code left out."""
    return LINK.findall(SPAN.sub("", FENCE.sub("", text)))


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    text = heading.strip().lower().replace("`", "")
    return re.sub(r"[^\w\- ]", "", text).replace(" ", "-")


@cache
def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: dict[str, int] = {}
    for line in FENCE.sub("", page.read_text()).splitlines():
        if m := re.match(r"#{1,6} (.+)", line):
            base = slug(m.group(1))
            n = seen.get(base, 0)
            seen[base] = n + 1
            found.add(base if n == 0 else f"{base}-{n}")
    return found


# (a) the README is a front door


def test_readme_is_short() -> None:
    lines = README.read_text().splitlines()
    assert len(lines) <= MAX_README_LINES, f"README.md has {len(lines)} lines"


def test_readme_links_every_page_of_the_manual() -> None:
    linked = {(ROOT / t.split("#", 1)[0]).resolve() for t in links(README.read_text())}
    missing = [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked]
    assert not missing, f"README.md does not link to {missing}"


def test_the_manual_has_its_pages() -> None:
    expected = {"pipeline", "documents", "mutation", "export", "evaluation", "flywheel",
                "library", "lineage", "kernels", "training", "scale", "benchmarks", "layout",
                "extending"}
    assert expected <= {p.stem for p in DOCS.glob("*.md")}


# (b) links resolve


@pytest.mark.parametrize("page", pages(), ids=_rel)
def test_relative_links_point_to_files(page: Path) -> None:
    bad = []
    for target in links(page.read_text()):
        if re.match(r"[a-z]+:", target):
            continue  # http:, https:, mailto:
        path, _, anchor = target.partition("#")
        dest = (page.parent / path).resolve() if path else page
        if not dest.exists():
            bad.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            bad.append(f"{target}: no heading #{anchor} in {dest.name}")
    assert not bad, bad


# (c) module paths import, and file paths exist


def resolve(dotted: str) -> None:
    """Import the longest importable prefix of ``dotted``; the rest must be its attributes."""
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        name = ".".join(parts[:i])
        try:
            spec = importlib.util.find_spec(name)
        except ModuleNotFoundError:
            continue  # a parent is not a package: a shorter prefix is the module
        if spec is None:
            continue
        obj = importlib.import_module(name)
        for attr in parts[i:]:
            obj = getattr(obj, attr)  # AttributeError: the path names nothing
        return
    raise ModuleNotFoundError(dotted)


@pytest.mark.parametrize("page", pages(), ids=_rel)
def test_module_paths_import(page: Path) -> None:
    names = {m for chunk in code(page.read_text()) for m in MODULE.findall(chunk)}
    bad = []
    for name in sorted(names - NOT_MODULES):
        try:
            resolve(name)
        except (ImportError, AttributeError) as exc:
            bad.append(f"{name}: {type(exc).__name__}: {exc}")
    assert not bad, bad


@pytest.mark.parametrize("page", pages(), ids=_rel)
def test_file_paths_exist(page: Path) -> None:
    paths = {p.rstrip(".") for chunk in code(page.read_text()) for p in PATH.findall(chunk)}
    # A folder ends with a slash and a file with a suffix; anything else is prose ("docs/s").
    paths = {p for p in paths if p.endswith("/") or re.search(r"\.\w+$", p)}
    bad = sorted(p for p in paths if not (ROOT / p).exists())
    assert not bad, bad


def test_the_checks_see_what_they_check() -> None:
    text = "see `ortrex.jobs.drive` and\n```python\nfrom ortrex.ir import x\n```\n[a](b.md#c)"
    assert sorted(MODULE.findall(" ".join(code(text)))) == ["ortrex.ir", "ortrex.jobs.drive"]
    assert links(text) == ["b.md#c"]
    assert slug("Seeds: `ortrex import-seeds`") == "seeds-ortrex-import-seeds"
    assert slug("Where this differs from DESIGN.md, and why") == \
        "where-this-differs-from-designmd-and-why"
    resolve("ortrex.verifiers.equivalence.check_equivalence")
    with pytest.raises(AttributeError):
        resolve("ortrex.verifiers.equivalence.no_such_name")
    with pytest.raises(ModuleNotFoundError):
        resolve("ortrexx.nothing")


# (d) the commands table names real commands


def command_table() -> dict[str, list[str]]:
    """``{command: [sub-commands]}`` from the README's commands table."""
    section = README.read_text().split("\n## Commands", 1)[1].split("\n## ", 1)[0]
    rows: dict[str, list[str]] = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) >= 2 and (m := re.fullmatch(r"`ortrex ([\w-]+)`", cells[0])):
            rows[m.group(1)] = SPAN.findall(cells[1])
    return rows


def help_commands(output: str) -> list[str]:
    """The command names a click ``--help`` lists under ``Commands:``."""
    if "\nCommands:\n" not in output:
        return []
    listing = output.split("\nCommands:\n", 1)[1]
    return [m.group(1) for m in re.finditer(r"^  ([\w-]+)", listing, re.M)]


@cache
def helps() -> dict[tuple[str, ...], subprocess.CompletedProcess[str]]:
    """``ortrex [command] --help`` for the top level and every command of the table, in parallel."""
    argvs = [(), *((c,) for c in command_table())]

    def run(argv: tuple[str, ...]) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "ortrex", *argv, "--help"], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)

    with ThreadPoolExecutor(max_workers=4) as pool:
        return dict(zip(argvs, pool.map(run, argvs), strict=True))


def test_the_table_names_every_command() -> None:
    top = helps()[()]
    assert top.returncode == 0, top.stderr
    listed = help_commands(top.stdout)
    assert listed, top.stdout
    assert sorted(command_table()) == sorted(listed)


@pytest.mark.parametrize("command", sorted(command_table()))
def test_a_table_command_is_real(command: str) -> None:
    result = helps()[(command,)]
    assert result.returncode == 0, f"ortrex {command} --help: {result.stderr.strip()[-500:]}"
    assert sorted(command_table()[command]) == sorted(help_commands(result.stdout)), \
        f"the sub-commands of ortrex {command} in the README differ from its --help"


# Each recipe of docs/extending.md is the code a test writes into a temporary package and runs.
RECIPES = {"family": ("tests.engine.test_extending", "FAMILY"),
           "operator": ("tests.engine.test_extending", "OPERATOR"),
           "check": ("tests.verifiers.test_check_list", "TOY"),
           "benchmark": ("tests.benchmarks.test_registry", "TOY"),
           "kernel": ("tests.engine.test_extending", "KERNEL")}


def test_every_extending_recipe_is_the_code_a_test_runs() -> None:
    text = (ROOT / "docs" / "extending.md").read_text()
    for name, (module, const) in RECIPES.items():
        block = re.search(rf"<!-- recipe: {name} -->\n```python\n(.*?)```\n<!-- /recipe -->",
                          text, re.S)
        assert block, f"docs/extending.md has no {name} recipe"
        tested = getattr(importlib.import_module(module), const)
        assert block.group(1).strip() == tested.strip(), f"{name}: not {module}.{const}"


def test_the_layer_table_of_the_layout_page_is_the_one_the_layer_test_checks() -> None:
    from tests.test_project import LAYERS

    text = (ROOT / "docs" / "layout.md").read_text()
    rows = re.findall(r"^\| \d+ \| (.*?) \|$", text, re.M)
    tiers = tuple(tuple(re.findall(r"`(\w+)`", row.split(" (")[0])) for row in rows)
    assert tiers == LAYERS
