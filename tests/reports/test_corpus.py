"""The corpus report renders its plots in a real headless browser."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.generate.evolve import MutateSpec, run_mutate
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.reports.corpus import write_report
from ortrex.store import Store

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip("headless Chromium is not installed (Debian package `chromium`)")
    with Store(tmp_path / "r.duckdb", create=True) as s:
        run_job(s, JobSpec(("knapsack_01", "transportation", "diet"), 6, seed=2))
        run_render(s, RenderSpec(forms=("DP", "DT"), kinds=("sft",)), decontaminator=None)
        run_mutate(s, MutateSpec(("scale_data", "objective_secondary"), "true", 1))
        refs = {"two problems": ["A bakery makes bread and cakes from 40 kg of flour. Bread "
                                 "earns 3 USD and a cake 5 USD. How many of each?",
                                 "Let x be the number of trucks. Decision variables: x."]}
        rep = write_report(s, tmp_path / "report.html", refs)
    expected = {"family_form", "difficulty", "sizes", "outcomes", "operators", "latency",
                "quality"}
    assert expected <= set(rep.sections) and "quality_table" in rep.sections
    assert "operator_review" in rep.sections and rep.tables["operator_review"].height
    # The store's statements measured next to the reference corpus, with the goals.
    table = rep.html.split('<section id="quality_table">', 1)[1].split("</section>", 1)[0]
    assert "distinct-4" in table and "two problems" in table and "&gt;= 0.55" in table
    assert "statements declaring variables" in table
    page = (tmp_path / "report.html").read_text()
    assert "<script" in page and not re.search(r"<script[^>]*\bsrc=", page)  # self-contained
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
         "--dump-dom", (tmp_path / "report.html").as_uri()],
        capture_output=True, text=True, timeout=120).stdout
    for section in expected:
        part = dom.split(f'<section id="{section}">', 1)[1].split("</section>", 1)[0]
        # plotly draws each figure into SVG layers once its script has run
        assert re.search(r'<svg class="main-svg"', part), section
        assert len(re.findall(r"<path", part)) > 3, section


def test_report_on_an_empty_store(tmp_path: Path) -> None:
    with Store(tmp_path / "e.duckdb", create=True) as s:
        rep = write_report(s, tmp_path / "empty.html")
    assert rep.sections == ["counts"] and "Store contents" in rep.html


def test_report_counts_the_corpus_by_problem_class(tmp_path: Path) -> None:
    with Store(tmp_path / "c.duckdb", create=True) as s:
        run_job(s, JobSpec(("knapsack_01", "facility_location"), 8, seed=3))
        run_render(s, RenderSpec(forms=("DP",), kinds=("sft",)), decontaminator=None)
        accepted = dict(s.query("SELECT family, count(*) FROM instances WHERE status = "
                                "'accepted' GROUP BY ALL").iter_rows())
        docs = dict(s.query("SELECT i.family, count(*) FROM documents d JOIN instances i ON "
                            "i.id = d.instance_id WHERE d.status = 'accepted' GROUP BY ALL"
                            ).iter_rows())
        # facility_location is left out of the mapping: it is counted as unclassified.
        classes = {"knapsack_01": ("packing/knapsack", "logic/implication")}
        rep = write_report(s, tmp_path / "c.html", classes=classes)
    assert set(accepted) == {"knapsack_01", "facility_location"}, accepted
    table = {r[0]: r[1:] for r in rep.tables["classes"].iter_rows()}
    k, f = "knapsack_01", "facility_location"
    assert table["packing/knapsack"] == table["logic/implication"] == (k, accepted[k], docs[k])
    assert table["unclassified"] == (f, accepted[f], docs[f])
    assert 'id="classes"' in rep.html and "packing/knapsack" in rep.html
