"""The operator review: model diffs, acceptance and rejections per operator, seeded samples."""

from __future__ import annotations

import html
import re
import shutil
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from ortrex.engine.documents.render_job import RenderSpec, run_render
from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.evolve import MutateReport, MutateSpec, run_mutate
from ortrex.engine.generate.job import JobSpec, run_job
from ortrex.engine.generate.mutate import NotApplicable, apply
from ortrex.ir.expr import V, total
from ortrex.ir.semantic import ConstraintFamily, SemanticModel
from ortrex.reports.corpus import build_report
from ortrex.reports.operators import diff_models, excerpt, model_summary, operator_review
from ortrex.store import Store
from tests.conftest import run_cli
from tests.samples import verified_parent

OPS = ("scale_data", "add_constraint", "cost_to_profit")


def _section(page: str, sid: str) -> str:
    return page.split(f'<section id="{sid}">', 1)[1].split("</section>", 1)[0]


def _operator_part(section: str, op: str) -> str:
    return section.split(f'<div class="operator" id="review-{op}">', 1)[1].split(
        '<div class="operator"', 1)[0]


# ---------------------------------------------------------------- diffs of semantic models
def test_diff_names_the_added_constraint_the_objective_sense_and_the_parameter() -> None:
    parent = REGISTRY["transportation"].sample(np.random.default_rng(3), "small")
    cost = parent.param_map["cost"]
    values = cost.values.copy()
    values[0, 0] *= 2
    values[1, 2] *= 2
    ratio = ConstraintFamily(
        "min_ratio", "Each mine ships at least one unit to every power plant in total.",
        (("s", "S"),), total("d", "D", V("x", "s", "d")), ">=", 1.0)
    child = replace(
        parent,
        params=tuple(replace(p, values=values) if p.name == "cost" else p
                     for p in parent.params),
        constraints=(*parent.constraints, ratio),
        objective=replace(parent.objective, sense="max"))
    lines = [str(c) for c in diff_models(parent, child)]
    assert lines == [
        "~ objective: min -> max",
        "+ constraint min_ratio: Each mine ships at least one unit to every power plant in "
        "total.",
        f"~ parameter cost: 2 of {cost.values.size} values changed (each x2)",
    ]
    assert diff_models(parent, SemanticModel.loads(parent.dumps())) == []


def test_diff_of_real_operators_names_what_they_changed() -> None:
    sm, _, values = verified_parent("transportation")[:3]

    def diff(op: str) -> tuple[dict, list[str]]:
        m = apply(op, sm, values, np.random.default_rng(1))
        return m.params, [str(c) for c in diff_models(sm, m.child)]

    params, lines = diff("remove_constraint")
    assert f"- constraint {params['constraint']}: " \
        f"{sm.constraints[[c.name for c in sm.constraints].index(params['constraint'])].meaning}" \
        in lines
    params, lines = diff("resize_set")
    assert (f"~ set {params['set']}: {params['from']} -> {params['to']} elements"
            in [ln.split(";")[0] for ln in lines])
    params, lines = diff("cost_to_profit")
    assert lines[0].startswith("~ objective: min -> max; expression changed (now also reads ")
    params, lines = diff("scale_data")
    p = sm.param_map[params["parameter"]]
    assert len(lines) == 1 and re.fullmatch(
        rf"~ parameter {p.name}: \d+ of {p.values.size} values changed.*", lines[0])
    params, lines = diff("rename_entities")
    assert lines and all(ln.startswith("~ set ") and "elements renamed" in ln for ln in lines)
    try:
        params, lines = diff("add_constraint")
    except NotApplicable:
        pytest.fail("add_constraint fits a transportation model")
    assert any(ln.startswith("+ constraint ") for ln in lines)


# ---------------------------------------------------------------- the review on a real store
@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, MutateReport]:
    path = tmp_path_factory.mktemp("review") / "r.duckdb"
    with Store(path, create=True) as s:
        run_job(s, JobSpec(("transportation", "knapsack_01", "diet"), 9, seed=4))
        rep = run_mutate(s, MutateSpec(OPS, "true", per_parent=3, seed=2))
        run_render(s, RenderSpec(forms=("DP",), kinds=("sft",)), decontaminator=None)
    return path, rep


def test_review_section_shows_acceptance_rejections_samples_and_diffs(
        store: tuple[Path, MutateReport], tmp_path: Path) -> None:
    path, mut = store
    with Store(path, read_only=True) as s:
        rep = build_report(s)
        # Accepted children per operator, by another path than the review's (mutated edges).
        children = {(op, c) for op, c in s.query(
            "SELECT l.operator, l.child_id FROM lineage l JOIN run_tasks t ON "
            "t.semantic_id = l.child_id AND t.outcome = 'accepted' WHERE l.relation = "
            "'mutated'").iter_rows()}
    assert "operator_review" in rep.sections
    section = _section(rep.html, "operator_review")
    table = rep.tables["operator_review"]
    made = [op for op in OPS if mut.by_operator.get(op, {}).get("tasks", 0)
            > mut.by_operator[op].get("skipped", 0)]
    assert made and sorted(made) == table["operator"].to_list()
    samples = rep.tables["operator_samples"]
    for op in made:
        counts = mut.by_operator[op]
        tried = counts["tasks"] - counts.get("skipped", 0)
        part = _operator_part(section, op)
        # Acceptance and rejections as the mutate job itself counted them.
        assert f"acceptance {counts.get('accepted', 0)} / {tried} (" in part
        for key, n in counts.items():
            if key.startswith("rejected:"):
                assert f"{key.removeprefix('rejected:')} ({n})" in part
        n_samples = part.count('<div class="sample">')
        ours = samples.filter(samples["operator"] == op)
        accepted = {c for o, c in children if o == op}
        assert n_samples == ours.height == min(3, len(accepted))
        assert set(ours["child_id"]) <= accepted
        for diff in re.findall(r'<pre class="diff">(.*?)</pre>', part, re.S):
            assert re.match(r"[+~-] (objective|variable|constraint|parameter|set)", diff)
        if n_samples:
            assert part.count('<p class="label">statement</p>') == n_samples
    assert mut.by_operator["scale_data"]["accepted"] > 3  # the sample is a choice
    # The same sample on a second run (through the CLI), another with another seed.
    out = tmp_path / "again.html"
    r = run_cli("report", "--output", str(out), "--db", str(path))
    assert r.returncode == 0, r.stderr
    assert _section(out.read_text(), "operator_review") == section
    with Store(path, read_only=True) as s:
        others = [operator_review(s, seed=k).samples for k in range(1, 6)]
    first = set(samples.filter(samples["operator"] == "scale_data")["child_id"])
    assert any(set(o.filter(o["operator"] == "scale_data")["child_id"]) != first
               for o in others)


def test_review_escapes_statements_and_shows_any_rejection_reason(
        store: tuple[Path, MutateReport], tmp_path: Path) -> None:
    path = tmp_path / "copy.duckdb"
    shutil.copy(store[0], path)
    with Store(path) as s:
        review = operator_review(s)
        child = review.samples.filter(review.samples["operator"] == "scale_data")["child_id"][0]
        other = review.samples.filter(review.samples["operator"] != "scale_data").row(
            0, named=True)
        untold = other["child_id"]
        model = SemanticModel.loads(s.query("SELECT model::VARCHAR FROM semantic_models WHERE "
                                            "id = ?", [untold]).item())
        with s.transaction():
            s.conn.execute("DELETE FROM documents WHERE semantic_id = ?", [untold])
            s.conn.execute("UPDATE documents SET statement = '<script>alert(1)</script> & more' "
                           "WHERE semantic_id = ?", [child])
            # A semantic post-check's reason, stored like any other rejection reason.
            s.conn.execute(
                "UPDATE run_tasks SET outcome = 'rejected', reason = 'postcheck:one_tour' "
                "WHERE id = (SELECT min(t.id) FROM run_tasks t JOIN lineage g ON g.parent_id = "
                "t.run_id AND g.child_id = t.semantic_id AND g.relation = 'generated' WHERE "
                "g.operator = 'scale_data' AND t.outcome = 'accepted')")
        page = build_report(s).html
    section = _section(page, "operator_review")
    assert "&lt;script&gt;alert(1)&lt;/script&gt; &amp; more" in section
    assert "<script>alert" not in page
    assert "postcheck:one_tour (1)" in _operator_part(section, "scale_data")
    # A child without a rendered statement is shown by its model's story and goal.
    told = _operator_part(section, other["operator"]).split(untold[:12], 1)[1]
    assert told.split("</blockquote>", 1)[0].endswith(
        '<p class="label">model summary</p><blockquote class="excerpt">'
        + html.escape(excerpt(model_summary(model))))
    assert model.descriptors["summary"] in model_summary(model)
