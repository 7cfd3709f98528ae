"""The corpus report: one self-contained HTML page of tables and interactive plots.

Every number is aggregated in DuckDB (the page never holds a row per document), so the report
on a store with 100,000 documents takes seconds. plotly's JavaScript is embedded once; the page
needs no network.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import polars as pl

from ortrex import __version__
from ortrex.reports.operators import operator_review, review_html
from ortrex.store.db import Store

STAGES = {
    "generate": "SELECT coalesce(reject_reason, status) AS outcome, count(*) AS n FROM instances "
                "WHERE status IN ('accepted', 'rejected') GROUP BY ALL",
    "render": "SELECT coalesce(reject_reason, status) AS outcome, count(*) AS n FROM documents "
              "WHERE kind IN ('cpt', 'sft', 'paraphrase') GROUP BY ALL",
    "seeds": "SELECT coalesce(reject_reason, status) AS outcome, count(*) AS n FROM documents "
             "WHERE kind = 'seed' GROUP BY ALL",
    "mutate": "SELECT CASE WHEN t.outcome = 'skipped' THEN 'not applicable' ELSE "
              "coalesce(t.reason, t.outcome) END AS outcome, count(*) AS n FROM run_tasks t "
              "JOIN runs r ON r.id = t.run_id WHERE r.command = 'mutate' GROUP BY ALL",
}


@dataclass
class Report:
    """The page and what went into it."""

    html: str
    sections: list[str] = field(default_factory=list)
    seconds: float = 0.0
    tables: dict[str, pl.DataFrame] = field(default_factory=dict)  # section data, by name


def _q(store: Store, sql: str) -> pl.DataFrame:
    return store.query(sql)


def _fig_html(fig: Any, first: bool) -> str:
    import plotly.io as pio

    # a figure that sized itself (one row per family) keeps its height
    fig.update_layout(margin={"l": 60, "r": 20, "t": 50, "b": 60},
                      height=fig.layout.height or 420, template="plotly_white")
    return pio.to_html(fig, full_html=False, include_plotlyjs="inline" if first else False,
                       config={"displaylogo": False, "responsive": True})


def _table(df: pl.DataFrame) -> str:
    head = "".join(f"<th>{html.escape(c)}</th>" for c in df.columns)
    rows = "".join("<tr>" + "".join(f"<td>{html.escape(str(v))}</td>" for v in r) + "</tr>"
                   for r in df.iter_rows())
    return f"<table><thead><tr>{head}</tr></thead><tbody>{rows}</tbody></table>"


def build_report(store: Store,
                 references: Mapping[str, Sequence[str]] | None = None,
                 review_seed: int = 0,
                 classes: Mapping[str, Sequence[str]] | None = None) -> Report:
    """Query the store and lay out the page (``references``: corpora of problem statements,
    by name, the corpus-quality section measures next to the store's; ``review_seed``: the
    seed of the operator review's sample; ``classes``: each family's problem classes, for
    the corpus by class)."""
    import plotly.graph_objects as go
    from plotly.subplots import make_subplots

    t0 = time.perf_counter()
    parts: list[tuple[str, str, str]] = []  # (section id, title, body)
    figs: list[tuple[str, str, Any, str]] = []  # (section id, title, figure, caption html)
    tables: dict[str, pl.DataFrame] = {}

    counts = store.counts()
    parts.append(("counts", "Store contents", _table(pl.DataFrame(
        {"table": list(counts), "rows": list(counts.values())}))))

    ff = _q(store, "SELECT coalesce(i.family, 'external') AS family, d.form, count(*) AS n "
                   "FROM documents d LEFT JOIN instances i ON i.id = d.instance_id "
                   "WHERE d.status = 'accepted' AND d.form IS NOT NULL GROUP BY ALL "
                   "ORDER BY ALL")
    if ff.height:
        pv = ff.pivot(on="form", index="family", values="n").fill_null(0).sort("family")
        forms = [c for c in pv.columns if c != "family"]
        families = pv["family"].to_list()
        z = pv.select(forms).to_numpy().tolist()
        # The colour scale starts at zero (plotly would start it at the smallest count); it
        # honours zmin only when zmax is given too.
        fig = go.Figure(go.Heatmap(
            z=z, x=forms, y=families, colorscale="Blues", zmin=0,
            zmax=max(max(r) for r in z) or 1, texttemplate="%{z}", textfont={"size": 11},
            # whole-number ticks: a count of documents has no halves
            colorbar={"title": {"text": "documents"}, "tick0": 0,
                      "dtick": 1 if max(max(r) for r in z) <= 10 else None},
            hovertemplate="%{y} / %{x}: %{z}<extra></extra>"))
        # Every family and form named (plotly skips category labels that would crowd), one
        # row tall enough for its label and cell number, the first family on top.
        fig.update_layout(height=max(420, 20 * len(families) + 140), xaxis_side="top",
                          xaxis={"tickmode": "array", "tickvals": forms, "title": "form"},
                          yaxis={"tickmode": "array", "tickvals": families,
                                 "autorange": "reversed", "automargin": True})
        figs.append(("family_form", "Accepted documents by family and form", fig, ""))

    if classes:
        by_class = _by_class(store, classes)
        if by_class.height:
            tables["classes"] = by_class
            parts.append(("classes", "Accepted instances and documents by problem class",
                          _table(by_class)))

    diff = _q(store, "SELECT floor(difficulty / 10) * 10 AS bin, coalesce(difficulty_band, '?') "
                     "AS band, count(*) AS n FROM instances WHERE status = 'accepted' AND "
                     "difficulty IS NOT NULL GROUP BY ALL ORDER BY ALL")
    if diff.height:
        fig = go.Figure()
        for band in ("easy", "medium", "hard", "?"):
            d = diff.filter(pl.col("band") == band)
            if d.height:
                fig.add_bar(x=d["bin"].to_list(), y=d["n"].to_list(), name=band)
        fig.update_layout(barmode="stack", xaxis_title="difficulty score (bins of 10)",
                          yaxis_title="accepted instances")
        figs.append(("difficulty", "Difficulty of accepted instances", fig, ""))

    sizes = _q(store, "SELECT 'variables' AS what, floor(log10(greatest(n_vars, 1)) * 4) / 4 AS "
                      "bin, count(*) AS n FROM instances WHERE status = 'accepted' GROUP BY ALL "
                      "UNION ALL SELECT 'rows', floor(log10(greatest(n_rows, 1)) * 4) / 4, "
                      "count(*) FROM instances WHERE status = 'accepted' GROUP BY ALL "
                      "UNION ALL SELECT 'nonzeros', floor(log10(greatest(nnz, 1)) * 4) / 4, "
                      "count(*) FROM instances WHERE status = 'accepted' GROUP BY ALL "
                      "ORDER BY ALL")
    if sizes.height:
        # one panel per measure: variables, rows and nonzeros are different quantities
        whats = ("variables", "rows", "nonzeros")
        fig = make_subplots(rows=1, cols=len(whats), shared_yaxes=True,
                            horizontal_spacing=0.04)
        for k, what in enumerate(whats, 1):
            d = sizes.filter(pl.col("what") == what)
            fig.add_scatter(x=[10 ** b for b in d["bin"].to_list()], y=d["n"].to_list(),
                            name=what, mode="lines+markers", line_shape="hv", showlegend=False,
                            row=1, col=k)
            fig.update_xaxes(type="log", title_text=f"{what} (log scale, quarter decades)",
                             row=1, col=k)
        fig.update_yaxes(title_text="accepted instances", rangemode="tozero", row=1, col=1)
        figs.append(("sizes", "Instance sizes", fig, ""))

    fig = go.Figure()
    stage_rows = []
    for stage, sql in STAGES.items():
        d = _q(store, sql)
        for outcome, n in d.iter_rows():
            stage_rows.append((stage, outcome, n))
    if stage_rows:
        outcomes = sorted({o for _, o, _ in stage_rows}, key=lambda o: (o != "accepted", o))
        counts_by = {(st, o): n for st, o, n in stage_rows}
        for o in outcomes:
            # None, not 0, where a stage lacks the outcome: no bar and no "0" label
            ys = [counts_by.get((st, o)) for st in STAGES]
            fig.add_bar(x=list(STAGES), y=ys, name=o, text=[f"{n:,}" if n else "" for n in ys],
                        textposition="outside", cliponaxis=False)
        # Rejections run orders of magnitude below acceptances: grouped bars on a log axis
        # with their counts keep a handful of rejections visible next to thousands.
        # The axis starts half a decade below 1, so that a single rejection is a bar, and
        # ends above the largest for its label.
        top = math.log10(max(n for _, _, n in stage_rows))
        fig.update_layout(barmode="group", yaxis_type="log", yaxis_range=[-0.5, top + 0.35],
                          yaxis_dtick=1, yaxis_title="items (log scale)")  # 1, 10, 100 only
        figs.append(("outcomes", "Acceptance and rejection reasons by stage", fig,
                     "<p class=\"caption\">Logarithmic scale; each bar is labelled with its "
                     "count.</p>"))

    ops = _q(store, "SELECT * FROM operator_stats")
    if ops.height:
        fig = go.Figure(go.Bar(x=ops["operator"].to_list(),
                               y=ops["acceptance_rate"].to_list(),
                               text=[f"{a}/{c}" for a, c in zip(ops["accepted"], ops["children"],
                                                                strict=True)],
                               textposition="outside"))
        fig.update_layout(yaxis_title="accepted / verified children", yaxis_range=[0, 1.15],
                          xaxis={"tickmode": "array", "tickvals": ops["operator"].to_list()})
        figs.append(("operators", "Mutation operators: acceptance rate", fig, ""))

    review = operator_review(store, seed=review_seed)
    if review.acceptance.height:
        tables.update({"operator_review": review.acceptance,
                       "operator_outcomes": review.outcomes,
                       "operator_samples": review.samples})
        parts.append(("operator_review", "Operator review", review_html(review)))

    lat = _q(store, "SELECT verifier, floor(log10(greatest(runtime_s, 1e-5)) * 5) / 5 AS bin, "
                    "count(*) AS n FROM verifications WHERE runtime_s IS NOT NULL "
                    "GROUP BY ALL ORDER BY ALL")
    if lat.height:
        fig = go.Figure()
        for v in lat["verifier"].unique().sort().to_list():
            d = lat.filter(pl.col("verifier") == v)
            fig.add_scatter(x=[10 ** b for b in d["bin"].to_list()], y=d["n"].to_list(),
                            mode="lines+markers", name=v, line_shape="hv")
        fig.update_layout(xaxis_type="log", xaxis_title="seconds (log scale)",
                          yaxis_title="verifications")
        figs.append(("latency", "Verification latency by verifier", fig, ""))
        summary = _q(store, "SELECT verifier, count(*) AS n, round(median(runtime_s) * 1000, 2) "
                            "AS median_ms, round(quantile_cont(runtime_s, 0.95) * 1000, 2) AS "
                            "p95_ms FROM verifications WHERE runtime_s IS NOT NULL GROUP BY ALL "
                            "ORDER BY ALL")
        parts.append(("latency_table", "Verification latency", _table(summary)))

    quality = _quality(store, references or {})
    if quality is not None:
        figs.append(("quality", "Corpus quality next to the benchmarks", quality[0],
                     quality[2]))
        parts.append(("quality_table", "Corpus quality of problem statements",
                      quality[1] + quality[2]))

    body = []
    for k, (sid, title, fig, caption) in enumerate(figs):
        body.append(f'<section id="{sid}"><h2>{html.escape(title)}</h2>'
                    f'<div class="plot">{_fig_html(fig, k == 0)}</div>{caption}</section>')
    for sid, title, content in parts:
        body.append(f'<section id="{sid}"><h2>{html.escape(title)}</h2>{content}</section>')
    stamp = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    page = _PAGE.format(version=__version__, stamp=stamp, path=html.escape(str(store.path)),
                        body="\n".join(body))
    return Report(page, [f[0] for f in figs] + [s for s, _, _ in parts],
                  time.perf_counter() - t0, tables)


def _quality(store: Store, references: Mapping[str, Sequence[str]]
             ) -> tuple[Any, str, str] | None:
    """The corpus-quality figure, table and the account of what the store's figures are
    measured on: a seeded sample of the store's statements measured with
    ``ortrex.reports.quality`` next to each reference corpus."""
    from plotly.subplots import make_subplots

    from ortrex.reports.quality import (
        DRAWS,
        GOALS,
        LABELS,
        goal_text,
        measure,
        meets,
        store_sample,
    )

    sample = store_sample(store)
    if len(sample) < 10:
        return None
    texts = [r["statement"] for r in sample]
    layouts = [r["layout"] for r in sample]
    corpora = {f"this store ({len(texts):,} statements)": measure(
        texts, [r["family"] for r in sample])}
    for name, ref in references.items():
        if ref:
            corpora[name] = measure(list(ref))
    dicts = {name: q.to_dict() for name, q in corpora.items()}
    rows = {"measure": [LABELS[m] for m in LABELS]}
    for name, d in dicts.items():
        rows[name] = [f"{d[m]:,}" if isinstance(d[m], int) else f"{d[m]:g}" for m in LABELS]
    rows["goal (template-only)"] = [goal_text(m) for m in LABELS]
    ok = meets(next(iter(corpora.values())))
    situation = sum(x.startswith("situation:") for x in layouts) / len(layouts)
    missed = [LABELS[m] for m, v in ok.items() if not v]
    table = _table(pl.DataFrame(rows)) + (
        f"<p>Goals met by this store: {sum(ok.values())} of {len(ok)}"
        + (f" (missed: {', '.join(missed)})" if missed else "")
        + f". Situation statements: {situation:.0%} of the sample; the rest are specification "
        "sheets.</p>")
    store_q = next(iter(dicts.values()))
    about = _sample_account(sample, store_q["distinct_4"], store_q["sample_tokens"], DRAWS)
    # One panel, and one axis, per measure: shares, a rate per 100 sentences and a count of
    # tokens are unlike quantities; each panel draws its goal where it has one.
    shown = ("distinct_4", "unique_openings", "skeletons_per_100", "declares_variables")
    goals = {m: v for m, _, v in GOALS}
    fig = make_subplots(rows=1, cols=len(shown), horizontal_spacing=0.07)
    palette = ("#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2")
    for k, m in enumerate(shown, 1):
        for j, (name, d) in enumerate(dicts.items()):
            fig.add_bar(x=[name], y=[d[m]], name=name, legendgroup=name, showlegend=k == 1,
                        marker_color=palette[j % len(palette)], text=[f"{d[m]:g}"],
                        textposition="outside", cliponaxis=False, row=1, col=k)
        if m in goals:
            fig.add_hline(y=goals[m], line_dash="dash", line_color="#555", row=1, col=k,
                          annotation_text=f"goal {goal_text(m)}", annotation_font_size=10)
        top = max([d[m] for d in dicts.values()] + [goals.get(m, 0)])
        fig.update_yaxes(title_text=LABELS[m], range=[0, top * 1.2 or 1], row=1, col=k)
        fig.update_xaxes(showticklabels=False, row=1, col=k)
    fig.update_layout(legend={"orientation": "h", "y": -0.08})
    return fig, table, about


def _sample_account(sample: Sequence[Mapping[str, Any]], distinct_4: float, tokens: int,
                    draws: int) -> str:
    """What the store's corpus-quality figures are measured on, and why they differ from the
    README's headline (a different set of statements, not a different measure)."""
    from collections import Counter

    def mix(key: str) -> str:
        return ", ".join(f"{html.escape(str(k))} {n:,}"
                         for k, n in sorted(Counter(r[key] for r in sample).items()))

    families = len({r["family"] for r in sample})
    mutated = sum(bool(r["mutated"]) for r in sample)
    external = sum(bool(r["external"]) for r in sample)
    return (
        f'<p class="caption" id="distinct4_sample"><b>What distinct-4 ({distinct_4:g}) is '
        f"measured on here.</b> A seeded sample of this store's accepted CPT/SFT statements, "
        f"one per instance and form (at most 2,000): {len(sample):,} statements of {families} "
        f"famil{'y' if families == 1 else 'ies'}; forms: {mix('form')}; size bands: "
        f"{mix('size')}; {mutated:,} from mutated models and {external:,} from imported "
        f"instances. distinct-4 is distinct 4-grams over all 4-grams (numbers as one token, "
        f"table rows left out), the mean of {draws} seeded draws of 25,000 tokens "
        f"(this sample's draw: {tokens:,} tokens). "
        "The README's corpus-quality headline uses the same measure on a different set of "
        "statements: <code>benchmarks/bench_corpus_quality.py</code> on a fresh default "
        "<code>ortrex pipeline --count 500</code> (1,500 statements, all three forms DP, DT "
        "and DPS, the default size mix of small 30%, medium 45% and large 25%, no mutated "
        "children, no imports). The goals are set on that corpus. This page's figure moves "
        "with the store's mix: forms and size bands read differently (the benchmark reports "
        "each apart), a mutated child repeats most of its parent's wording, and a sample of "
        "fewer than 25,000 tokens reads higher than a full draw.</p>")


def _by_class(store: Store, classes: Mapping[str, Sequence[str]]) -> pl.DataFrame:
    """Accepted instances and documents per problem class (a family counts in each of its
    classes; a family the mapping does not know is ``unclassified``)."""
    per = _q(store, "SELECT coalesce(i.family, 'external') AS family, count(DISTINCT i.id) AS "
                    "instances, count(d.id) AS documents FROM instances i LEFT JOIN documents d "
                    "ON d.instance_id = i.id AND d.status = 'accepted' WHERE i.status = "
                    "'accepted' GROUP BY ALL")
    rows = [(c, family, n_inst, n_docs) for family, n_inst, n_docs in per.iter_rows()
            for c in classes.get(family, ("unclassified",))]
    df = pl.DataFrame(rows, schema={"class": pl.Utf8, "family": pl.Utf8, "instances": pl.Int64,
                                    "documents": pl.Int64}, orient="row")
    return df.group_by("class").agg(pl.col("family").sort().str.join(", ").alias("families"),
                                    pl.col("instances").sum(), pl.col("documents").sum()
                                    ).sort("class")


def write_report(store: Store, output: Path,
                 references: Mapping[str, Sequence[str]] | None = None,
                 review_seed: int = 0,
                 classes: Mapping[str, Sequence[str]] | None = None) -> Report:
    """Build the report and write it atomically."""
    from ortrex.ir.formats.text import write_atomic

    rep = build_report(store, references, review_seed, classes)
    Path(output).parent.mkdir(parents=True, exist_ok=True)
    write_atomic(output, rep.html.encode("utf-8"))
    return rep


_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>ortrex corpus report</title>
<style>
body {{ font-family: system-ui, sans-serif; margin: 2rem auto; max-width: 1100px; color: #222; }}
h1 {{ font-size: 1.6rem; }} h2 {{ font-size: 1.15rem; margin-top: 2rem; }}
table {{ border-collapse: collapse; font-size: 0.9rem; }}
td, th {{ border: 1px solid #ddd; padding: 0.25rem 0.6rem; text-align: right; }}
th {{ background: #f4f6f8; }} td:first-child, th:first-child {{ text-align: left; }}
.meta {{ color: #666; font-size: 0.85rem; }}
h3 {{ font-size: 1rem; margin: 1.5rem 0 0.2rem; }} td.left {{ text-align: left; }}
.sample {{ border-left: 3px solid #dde3ea; padding-left: 0.8rem; margin: 0.8rem 0; }}
.caption {{ font-size: 0.85rem; color: #444; max-width: 60rem; }}
.label {{ font-size: 0.8rem; color: #555; margin: 0.4rem 0 0.1rem; }}
blockquote.excerpt {{ margin: 0; white-space: pre-wrap; font-size: 0.88rem; }}
pre.diff {{ margin: 0; background: #f7f8fa; padding: 0.4rem; font-size: 0.82rem;
           white-space: pre-wrap; }}
</style></head>
<body><h1>ortrex corpus report</h1>
<p class="meta">store {path} &middot; ortrex {version} &middot; {stamp}</p>
{body}
</body></html>
"""
