"""Statements at the large size: matrices pasted as tables in DP text, read back cell by cell,
and the frames around a statement (headings, labels, data notes, titles) varied by seed."""

from __future__ import annotations

import re

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.ir.semantic import SemanticModel
from ortrex.render.statement import FORMS, render_statement
from ortrex.reports.quality import prose
from tests.render.reading import SITUATIONS, assert_determines, fidelity

_ROW = re.compile(r"^\|.*\|$", re.M)


def _large(family: str, seed: int = 3) -> SemanticModel:
    return REGISTRY[family].sample(np.random.default_rng(seed), "large")


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_every_family_reads_back_at_the_large_size(family: str) -> None:
    sm = _large(family)
    for k, form in enumerate(FORMS):
        layout = SITUATIONS[(k + len(family)) % len(SITUATIONS)]
        assert_determines(sm, render_statement(sm, form, layout, seed=k))


def test_a_large_matrix_is_pasted_into_dp_text_as_a_table() -> None:
    sm = _large("capital_budgeting")
    spend = next(p for p in sm.params if len(p.index) == 2)
    assert spend.values.size > 24
    st_ = render_statement(sm, "DP", "situation:narrative", seed=1)
    rows = _ROW.findall(st_.text)
    # A header, its rule and one row per project: the matrix is a grid, not a sentence.
    assert len(rows) == len(sm.set_map[spend.index[0]]) + 2
    assert fidelity(sm, st_).ok
    # One cell changed in the pasted grid is caught by reading the text back.
    cell = rows[2].split("|")[2].strip()
    bad = st_.text.replace(rows[2], rows[2].replace(f"| {cell} |", "| 123.456 |", 1))
    report = fidelity(sm, st_, text=bad)
    assert not report.ok and any(spend.name in p or "123.456" in p for p in report.problems)
    # The prose around it names what it holds, and no other data line lists the matrix.
    assert all(line.count(";") < 5 for line in prose(st_.text).splitlines())


def test_a_small_matrix_stays_in_sentences() -> None:
    sm = REGISTRY["capital_budgeting"].sample(np.random.default_rng(2), "small")
    spend = next(p for p in sm.params if len(p.index) == 2)
    assert spend.values.size <= 24
    st_ = render_statement(sm, "DP", "situation:narrative", seed=1)
    assert not _ROW.search(st_.text)
    assert fidelity(sm, st_).ok


def test_headings_labels_notes_and_titles_vary_by_seed() -> None:
    sm = REGISTRY["knapsack_01"].sample(np.random.default_rng(5), "medium")
    briefs = [render_statement(sm, "DT", "situation:brief", seed=s).text for s in range(40)]
    tickets = [render_statement(sm, "DPS", "situation:ticket", seed=s).text for s in range(40)]
    headings = {tuple(re.findall(r"^(?:#{3,4} .+|\*\*[^*]+\*\*|[A-Z][\w ,-]+:)$", t, re.M))
                for t in briefs}
    labels = {tuple(re.findall(r"^\*\*([^*]+):\*\*", t, re.M)) for t in tickets}
    titles = {t.splitlines()[0] for t in briefs}
    # The sentence right before the first table of a DT statement.
    notes = {t.split("\n\n|")[0].rsplit("\n\n", 1)[-1] for t in briefs}
    assert len(headings) >= 20 and len(labels) >= 20
    assert len(titles) >= 25 and len(notes) >= 20
    for t in tickets:  # each ticket still has its five labelled parts, in order
        assert len(re.findall(r"^\*\*[^*]+:\*\*", t, re.M)) == 5
