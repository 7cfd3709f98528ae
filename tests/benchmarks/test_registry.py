"""The benchmark registry: every registered benchmark feeds decontamination, the texts are the
ones decontamination always used, and a benchmark added by a plugin is picked up everywhere."""

from __future__ import annotations

import json
import os
import sys
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pyarrow.parquet as pq
import pytest

import ortrex.plugins
from ortrex.benchmarks import base
from ortrex.benchmarks.base import BenchmarkError, BenchmarkSource, BenchmarkText
from ortrex.benchmarks.registry import (
    NAMES,
    TITLES,
    decontamination_texts,
    load,
    parse_names,
    reference_model_paths,
    register,
    registered,
)
from ortrex.verifiers.dedup import Decontaminator, benchmark_texts, signature
from tests.conftest import run_cli

TOY_MODULE = "ortrex_toy_benchmark"

# The "add a benchmark" recipe: one module, one class, one decorator.
TOY = '''"""A toy benchmark: ``toy/test.jsonl`` rows of a question and its optimum."""

from ortrex.benchmarks.base import BenchmarkSource, Item, Reader, number
from ortrex.benchmarks.registry import register


@register
class Toy(BenchmarkSource):
    """One item per line."""

    name = "toy"
    title = "Toy"
    files = ("toy/test.jsonl",)

    def load(self, r: Reader) -> list[Item]:
        """The items, ``toy_<line>``."""
        items = []
        for k, row in enumerate(r.jsonl(self.files[0])):
            ans, why = number(row["answer"])
            items.append(Item(self.name, f"toy_{k}", row["question"], self.scoring, ans,
                              unscoreable=why))
        return items
'''

TOY_ROWS = [
    {"question": "A bakery sells loaves at 3 dollars and rolls at 1 dollar; flour for at most "
                 "40 loaves or 90 rolls is in stock. How many of each maximise revenue?",
     "answer": 120},
    {"question": "A courier picks three of five parcels with weights 2, 3, 4, 5 and 9 under a "
                 "12 kg limit to carry the most value; which three?", "answer": "n/a"},
]


def _raw_texts(root: Path) -> list[tuple[str, str, str]]:
    """(source, key, text) of the four public benchmarks, read straight from their files."""
    out = [("nl4opt", str(k), str(q)) for k, q in enumerate(
        pq.read_table(root / "nl4opt" / "test.parquet").column("en_question").to_pylist())]
    out += [("optibench", str(k), str(row["en_question"])) for k, row in enumerate(
        json.loads((root / "optibench" / "OptiBench.json").read_text()))]
    for folder in ("bench4opt", "bench4opt_feasible"):
        for line in (root / folder / "test.jsonl").read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                out.append((folder, str(row["id"]), str(row["problem"])))
    return out


@pytest.mark.shared
def test_every_registered_benchmark_feeds_decontamination(shared_benchmarks: Path) -> None:
    texts = decontamination_texts(shared_benchmarks)
    checked = []
    for name, cls in registered().items():
        src = cls()
        if cls.needs_store or not src.present(shared_benchmarks):
            continue
        # Its own texts only: NL4OPT's questions are also OptiBench's, so the whole index
        # would find them even if NL4OPT fed nothing.
        mine = [t for t in texts if t.source == (cls.text_source or name)]
        assert mine, f"{name} is registered but gives decontamination no text"
        d = Decontaminator(mine)
        items = load(name, shared_benchmarks).items
        assert any(d.check(signature(it.question)) for it in items[:5]), name
        checked.append(name)
    assert set(NAMES) <= set(checked)


@pytest.mark.shared
def test_decontamination_texts_are_the_ones_read_from_the_files(
        shared_benchmarks: Path) -> None:
    new = [(t.source, t.key, t.text) for t in decontamination_texts(shared_benchmarks)]
    expected = _raw_texts(shared_benchmarks)
    assert Counter(s for s, _, _ in expected) == {"nl4opt": 289, "optibench": 600,
                                                  "bench4opt": 394, "bench4opt_feasible": 344}
    assert Counter(new) == Counter(expected)
    assert benchmark_texts(shared_benchmarks) == decontamination_texts(shared_benchmarks)


@pytest.mark.shared
def test_reference_models_are_the_bench4opt_lp_files(shared_benchmarks: Path,
                                                     reference_lps: list[Path]) -> None:
    assert reference_model_paths(shared_benchmarks) == reference_lps
    assert reference_model_paths() == reference_lps  # default root: the shared benchmarks


def test_names_titles_and_errors() -> None:
    assert NAMES == ("nl4opt", "optibench", "b4o-feasible", "b4o-orgeval")
    assert list(registered())[:5] == [*NAMES, "ortrex-heldout"]
    assert TITLES["b4o-orgeval"] == "B4O-ORGEval" and TITLES["ortrex-heldout"] == "ortrex-heldout"
    assert parse_names("all") == list(NAMES)
    assert parse_names(" NL4OPT, ortrex-heldout") == ["nl4opt", "ortrex-heldout"]
    with pytest.raises(BenchmarkError, match=r"unknown benchmark 'mmlu'; expected one of "
                                             r"nl4opt, optibench, b4o-feasible, b4o-orgeval, "
                                             r"ortrex-heldout$"):
        parse_names("nl4opt,mmlu")
    with pytest.raises(BenchmarkError, match="no benchmark named"):
        parse_names(" , ")
    with pytest.raises(BenchmarkError, match=r"ortrex-heldout needs a store \(--db\)"):
        load("ortrex-heldout")
    assert decontamination_texts(Path("/nonexistent")) == []
    assert reference_model_paths(Path("/nonexistent")) == []


def test_registration_cannot_be_half_done() -> None:
    class NoFiles(BenchmarkSource):
        name, title = "nofiles", "No files"

    class NoLoad(BenchmarkSource):
        name, title, files = "noload", "No load", ("x.jsonl",)

    class Twin(BenchmarkSource):
        name, title, files = "nl4opt", "Another NL4OPT", ("x.jsonl",)

        def load(self, r: base.Reader) -> list[base.Item]:
            return []

    for cls, why in ((NoFiles, "names no data files"), (NoLoad, "defines no load"),
                     (Twin, "registered twice")):
        with pytest.raises(BenchmarkError, match=why):
            register(cls)
    assert "nofiles" not in registered() and registered()["nl4opt"].title == "NL4OPT"


# ---------------------------------------------------------------- the "add a benchmark" recipe
@pytest.fixture
def toy_plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The toy benchmark module on sys.path, named by ORTREX_PLUGINS, and its data folder;
    the plugin loader and the registry are restored afterwards."""
    (tmp_path / "plugins").mkdir()
    (tmp_path / "plugins" / f"{TOY_MODULE}.py").write_text(TOY)
    data = tmp_path / "data"
    (data / "toy").mkdir(parents=True)
    (data / "toy" / "test.jsonl").write_text("".join(json.dumps(r) + "\n" for r in TOY_ROWS))
    monkeypatch.syspath_prepend(str(tmp_path / "plugins"))
    monkeypatch.setenv(ortrex.plugins.ENV, TOY_MODULE)
    monkeypatch.setattr(ortrex.plugins, "_loaded", set())
    monkeypatch.setattr(base, "_SOURCES", dict(base.sources()))
    yield data
    sys.modules.pop(TOY_MODULE, None)


def test_a_plugin_benchmark_is_registered_loaded_and_decontaminated(toy_plugin: Path) -> None:
    assert "toy" in registered() and TITLES["toy"] == "Toy"
    assert parse_names("all") == [*NAMES, "toy"]
    bench = load("toy", toy_plugin)
    assert bench.title == "Toy" and [it.id for it in bench.items] == ["toy_0", "toy_1"]
    assert bench.items[0].answer == 120 and bench.items[1].unscoreable
    assert len(bench.sha256) == 64
    texts = decontamination_texts(toy_plugin)  # the four public benchmarks are absent here
    assert texts == [BenchmarkText("toy", f"toy_{k}", r["question"])
                     for k, r in enumerate(TOY_ROWS)]
    d = Decontaminator(texts)
    assert d.check(signature(TOY_ROWS[0]["question"] + " Answer briefly.")) is not None


def test_selftest_and_eval_see_a_plugin_benchmark(toy_plugin: Path) -> None:
    path = os.pathsep.join(p for p in (str(toy_plugin.parent / "plugins"),
                                       os.environ.get("PYTHONPATH")) if p)
    env = {"ORTREX_PLUGINS": TOY_MODULE, "PYTHONPATH": path}
    r = run_cli("eval", "selftest", "--benchmarks", "toy", "--data-dir", str(toy_plugin),
                env=env)
    assert r.returncode == 0, r.stderr
    assert "toy: 2 items, 1 can never pass" in r.stdout
    # Without the plugin the name is unknown, in one line.
    r = run_cli("eval", "selftest", "--benchmarks", "toy", "--data-dir", str(toy_plugin),
                env={"ORTREX_PLUGINS": ""})
    assert r.returncode == 2 and "unknown benchmark 'toy'" in r.stderr
