"""The corpus report renders its plots in a real headless browser."""

from __future__ import annotations

import html
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.evolve import MutateSpec, run_mutate
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.reports.corpus import STAGES, write_report
from ortrex.store import Store


def _chromium() -> str | None:
    """A headless-capable Chromium binary: on PATH, else where Debian installs it."""
    for name in ("chromium-headless-shell", "chromium", "chromium-browser", "google-chrome"):
        if found := shutil.which(name):
            return found
    for name in ("chromium-headless-shell", "chromium"):
        if (path := Path("/usr/lib/chromium") / name).is_file():
            return str(path)
    return None


CHROMIUM = _chromium()
NO_CHROMIUM = ("no headless Chromium found (chromium-headless-shell, chromium, chromium-browser "
               "or google-chrome on PATH, or /usr/lib/chromium/); Debian: apt-get install "
               "chromium-headless-shell")


def _rendered_dom(page: Path) -> str:
    """The page's DOM once its scripts have drawn the plots, scripts left out."""
    assert CHROMIUM is not None
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--virtual-time-budget=8000",
         "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=120, check=True).stdout
    # plotly's own source names every class the drawn SVG uses: read the drawing only
    return re.sub(r"<script.*?</script>", "", dom, flags=re.S)


def _section(dom: str, sid: str) -> str:
    return dom.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]


def _tick_texts(svg: str, cls: str) -> list[str]:
    """The tick labels of the axes whose tick groups have class ``cls`` (a regex)."""
    return [html.unescape(t) for t in
            re.findall(rf'<g class="{cls}">(?:<[^>]*>)*?<text[^>]*>([^<]*)</text>', svg)]


def test_report_renders_in_headless_chromium(tmp_path: Path) -> None:
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
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
    dom = _rendered_dom(tmp_path / "report.html")
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


def test_report_plots_show_every_label_scale_and_count(tmp_path: Path) -> None:
    """Drawn by Chromium, on a store of every family: each family and form labelled, each
    heatmap cell numbered, the colour scale from 0, every stage outcome visible and counted,
    one measure per axis, and the store's distinct-4 told apart from the README's."""
    if CHROMIUM is None:
        pytest.skip(NO_CHROMIUM)
    with Store(tmp_path / "all.duckdb", create=True) as s:
        run_job(s, JobSpec(tuple(sorted(REGISTRY)), len(REGISTRY), seed=2))
        run_render(s, RenderSpec(forms=("DP", "DT"), kinds=("sft",)), decontaminator=None)
        run_mutate(s, MutateSpec(("scale_data", "objective_secondary"), "true", 1))
        cells = s.query("SELECT coalesce(i.family, 'external') AS family, d.form, count(*) AS n "
                        "FROM documents d LEFT JOIN instances i ON i.id = d.instance_id WHERE "
                        "d.status = 'accepted' AND d.form IS NOT NULL GROUP BY ALL").rows()
        stage_counts = sorted(n for sql in STAGES.values() for _, n in s.query(sql).rows())
        rep = write_report(s, tmp_path / "all.html", {"two problems": [
            "A bakery makes bread and cakes from 40 kg of flour. Bread earns 3 USD and a cake "
            "5 USD. How many of each?", "Let x be the number of trucks. Decision variables: x."]})
    families = {f for f, _, _ in cells}
    assert len(families) > 40, families  # enough rows that plotly would skip labels
    dom = _rendered_dom(tmp_path / "all.html")

    heat = _section(dom, "family_form")
    assert set(_tick_texts(heat, "ytick")) == families
    assert set(_tick_texts(heat, "xtick")) == {"DP", "DT"}
    colour_ticks = [float(t) for t in _tick_texts(heat, r"y\w+tick")]
    assert colour_ticks and min(colour_ticks) == 0, colour_ticks
    numbers = re.findall(r'<g class="heatmap-label"><text[^>]*>([^<]*)</text>', heat)
    # every (family, form) cell carries its count; an empty cell reads 0
    forms = {f for _, f, _ in cells}
    expected = [str(n) for _, _, n in cells] + ["0"] * (len(families) * len(forms) - len(cells))
    assert sorted(numbers) == sorted(expected)

    outcomes = _section(dom, "outcomes")
    rejected = [n for n in stage_counts if n < max(stage_counts)]
    assert rejected and min(stage_counts) * 10 < max(stage_counts)  # orders apart
    labels = sorted(int(t.replace(",", "")) for t in
                    re.findall(r'<text class="bartext[^>]*>([^<]*)</text>', outcomes))
    assert labels == stage_counts
    # Each bar's drawn height inside the plot area: the smallest stays visible beside the
    # largest (a linear axis draws 1 of 120 at under 1% of the tallest's height).
    plot_h = float(re.search(r'<clipPath id="clip\w+xyplot"[^>]*><rect[^>]*height="([\d.]+)"',
                             outcomes)[1])
    heights = []
    for y0, y1 in re.findall(r'<g class="point"><path d="M[\d.]+,([\d.-]+)V([\d.-]+)H',
                             outcomes):
        lo, hi = sorted((float(y0), float(y1)))
        if hi > lo:  # a stage without the outcome draws an empty bar
            heights.append(min(hi, plot_h) - max(lo, 0.0))
    assert len(heights) == len(stage_counts)
    assert min(heights) >= 0.1 * max(heights), heights

    # One measure per axis: each quality panel's axis is titled with its one measure.
    quality = _section(dom, "quality")
    titles = re.findall(r'<g class="g-y\d*title">(?:<[^>]*>)*?<text[^>]*>([^<]*)</text>',
                        quality)
    assert titles == ["distinct-4", "unique openings", "sentence skeletons per 100 sentences",
                      "statements declaring variables"]
    sizes = _section(dom, "sizes")
    assert len(re.findall(r'<g class="g-x\d*title">', sizes)) == 3

    # The store's distinct-4 says what it is measured on and why the README's differs.
    account = re.sub(r"<[^>]+>", "", quality.split('id="distinct4_sample">', 1)[1])
    assert re.match(r"What distinct-4 \(0\.\d+\) is measured on here", account), account
    assert "bench_corpus_quality.py" in account and "ortrex pipeline --count 500" in account
    statements = sum(n for _, _, n in cells)  # one sft document per instance and form
    assert f"{statements:,} statements of {len(families)} families" in account, account
    assert f"forms: DP {statements // 2}, DT {statements // 2}" in account, account
    assert "quality_table" in rep.sections
