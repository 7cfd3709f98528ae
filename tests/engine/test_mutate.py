"""Mutation operators and evolution jobs: verified children, intended differences, lineage."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.generate.evolve import MutateSpec, run_mutate, select_parents
from ortrex.engine.generate.job import JobError, JobSpec, run_job
from ortrex.engine.generate.mutate import (
    CROSSOVER_PARTNERS,
    OPERATORS,
    NotApplicable,
    apply,
)
from ortrex.engine.generate.pipeline import verify
from ortrex.engine.operators.crossover import compatible
from ortrex.ir.semantic import SemanticModel
from ortrex.store import Store
from ortrex.verifiers.equivalence.check import check_equivalence
from tests.samples import verified_parent


@pytest.fixture(scope="module")
def parents() -> dict[str, tuple]:
    return {f: verified_parent(f)[:3] for f in sorted(REGISTRY)}


@pytest.fixture(scope="module")
def more_parents(parents: dict[str, tuple]) -> list[tuple[str, tuple]]:
    """A small and a medium draw per family (vocabularies differ: tonnes are not countable,
    boxes are; a sparser small cover is often trivially integral, a medium one is not)."""
    return [*parents.items(),
            *((f, verified_parent(f, 21, "medium")[:3]) for f in sorted(REGISTRY))]


def _mates(family: str) -> Iterator[SemanticModel]:
    """Draws of ``family`` to pair a crossover parent with."""
    for seed in range(30):
        yield REGISTRY[family].sample(np.random.default_rng(seed), "small")


@pytest.mark.parametrize("op", sorted(OPERATORS))
def test_each_operator_on_at_least_two_families(op: str, parents: dict[str, tuple],
                                                more_parents: list[tuple[str, tuple]]) -> None:
    good = set()
    tries: list[tuple[str, tuple, SemanticModel | None]] = []
    for fam, parent in more_parents:
        if op != "crossover":
            tries.append((fam, parent, None))
            continue
        # Partners in the same story and units (an incoherent pair is refused): a few, as
        # a resource row nowhere near binding is rejected (slack_capacity).
        mates = [q for f in CROSSOVER_PARTNERS.get(fam, ()) for q in _mates(f)
                 if compatible(parent[0], q)]
        tries += [(fam, parent, q) for q in mates[:5]]
    for fam, (sm, inst, values), other in tries:
        try:
            m = apply(op, sm, values, np.random.default_rng(1), other)
        except NotApplicable:
            continue
        child = m.child.ground()
        assert m.child.descriptors["mutations"][-1] == op
        if OPERATORS[op].presentation:
            # The same instance told another way: new wording, same model.
            assert m.child.content_id != sm.content_id
            assert check_equivalence(inst, child).verdict == "equivalent"
            good.add(fam)
        elif verify(child, m.child).accepted:
            assert child.structural_fingerprint != inst.structural_fingerprint, (fam, m.params)
            good.add(fam)
    assert len(good) >= 2, f"{op} verified on {good}"


def test_the_constraint_catalogue() -> None:
    from ortrex.engine.operators.base import Context
    from ortrex.engine.operators.constraints import _CATALOGUE

    assert set(_CATALOGUE) == {"budget", "minimum_service", "capacity", "ratio", "either_or",
                               "precedence"}
    made = {}
    draws = [(fam, verified_parent(fam)[:3])
             for fam in ("transportation", "knapsack_01", "diet", "set_cover")]
    # An either-or binds only where the plan chooses both ends: a knapsack that does.
    draws.append(next(("knapsack_01", p) for p in (verified_parent("knapsack_01", k)[:3]
                                                  for k in range(8, 40))
                      if p[2]["x"][0] > 0.5 and p[2]["x"][-1] > 0.5))
    for fam, (sm, inst, values) in draws:
        for kind, fn in _CATALOGUE.items():
            try:
                m = fn(Context(sm, values, np.random.default_rng(2)))
            except NotApplicable:
                continue
            child = m.child.ground()
            assert child.num_rows > inst.num_rows and m.params["kind"] == kind
            made.setdefault(kind, []).append(fam)
    assert set(made) == set(_CATALOGUE), made


def test_not_applicable_is_explained() -> None:
    sm, _, values = verified_parent("knapsack_01")[:3]
    with pytest.raises(NotApplicable, match="no countable continuous family"):
        apply("integer_quantities", sm, values, np.random.default_rng(0))
    with pytest.raises(NotApplicable, match="no second parent"):
        apply("crossover", sm, values, np.random.default_rng(0))
    with pytest.raises(KeyError, match="unknown operator"):
        apply("teleport", sm, values, np.random.default_rng(0))


_PAIRS = {(a, b) for a, bs in CROSSOVER_PARTNERS.items() for b in bs}
FAMILIES = ("transportation", "knapsack_01", "diet", "facility_location", "knapsack_multidim")


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    with Store(tmp_path / "m.duckdb", create=True) as s:
        run_job(s, JobSpec(FAMILIES, len(FAMILIES), seed=5))
        yield s


def test_evolution_rounds_lineage_and_resume(store: Store) -> None:
    ops = ("domain_shift", "rename_entities", "objective_secondary", "add_constraint",
           "scale_data", "crossover", "integer_quantities")
    spec = MutateSpec(ops, "family <> 'diet'", per_parent=3, rounds=2, seed=1)
    n_instances = store.query("SELECT count(*) FROM instances").item()
    rep = run_mutate(store, spec)
    assert rep.rounds_done == 2 and rep.accepted > 0
    assert rep.tasks == sum(c["tasks"] for c in rep.by_operator.values())
    # Presentation children are new semantic models of stored instances, never copies.
    same = store.query(
        "SELECT count(*) FROM lineage m JOIN lineage g ON g.parent_id = m.child_id AND "
        "g.relation = 'grounded' JOIN lineage pg ON pg.parent_id = m.parent_id AND "
        "pg.relation = 'grounded' WHERE m.relation = 'mutated' AND m.operator IN "
        "('domain_shift', 'rename_entities') AND g.child_id = pg.child_id").item()
    assert same == rep.same_instance > 0
    new_instances = store.query("SELECT count(*) FROM instances").item() - n_instances
    assert new_instances <= rep.tasks - rep.same_instance - sum(rep.skipped.values())
    # Every accepted child walks back, through the DAG, to a sampled seed model.
    children = store.query("SELECT DISTINCT semantic_id FROM run_tasks WHERE run_id = ? AND "
                           "outcome = 'accepted'", [spec.run_id])["semantic_id"].to_list()
    for sid in children:
        anc = store.query("SELECT relation, depth FROM lineage_ancestors(?)", [sid])
        assert "sampled" in anc["relation"].to_list()
        assert anc["depth"].max() <= 2 * spec.rounds + 1
    # Round-two children descend from round-one children.
    deep = store.query("SELECT count(*) FROM run_tasks WHERE run_id = ? AND id LIKE ?",
                       [spec.run_id, f"{spec.run_id}:r2:%"]).item()
    assert deep > 0
    # Every verified child has its lineage edge: parent(s), operator and parameters.
    verified = store.query("SELECT count(DISTINCT semantic_id) FROM run_tasks WHERE run_id = ? "
                           "AND outcome <> 'skipped'", [spec.run_id]).item()
    assert verified <= rep.tasks - sum(rep.skipped.values())  # equal children share an id
    edges = store.query("SELECT count(DISTINCT child_id), count(*) FILTER (WHERE params IS "
                        "NULL OR operator IS NULL) FROM lineage WHERE relation = 'mutated' AND "
                        "run_id = ?", [spec.run_id]).row(0)
    assert edges == (verified, 0)
    # A crossover pairs parents whose stories and units agree.
    pairs = store.query(
        "SELECT list(s.model) FROM lineage l "
        "JOIN semantic_models s ON s.id = l.parent_id WHERE l.relation = 'mutated' AND "
        "l.operator = 'crossover' AND l.run_id = ? GROUP BY l.child_id", [spec.run_id])
    for (models,) in pairs.rows():
        if len(models) == 2:
            a, b = (SemanticModel.loads(m) for m in models)
            a, b = (a, b) if (a.family, b.family) in _PAIRS else (b, a)
            assert compatible(a, b), (a.family, a.domain, b.family, b.domain)
    stats = store.query("SELECT operator, children, accepted FROM operator_stats").rows()
    assert all(a <= c for _, c, a in stats)
    # The same job again resumes: nothing left to do, nothing changes.
    before = store.counts()
    again = run_mutate(store, spec)
    assert again.tasks == 0 and again.resumed_from == rep.tasks and store.counts() == before


def test_presentation_children_get_their_own_documents(store: Store) -> None:
    from ortrex.engine.documents.render_job import RenderSpec, run_render

    # One transportation parent (the job may have accepted more than one).
    one = store.query("SELECT min(id) FROM instances WHERE family = 'transportation' AND "
                      "status = 'accepted'").item()
    spec = MutateSpec(("domain_shift",), one, per_parent=1)
    rep = run_mutate(store, spec)
    assert rep.same_instance == 1
    run_render(store, RenderSpec(forms=("DP",), kinds=("sft",)), decontaminator=None)
    rows = store.query("SELECT d.instance_id, d.semantic_id, s.domain FROM documents d "
                       "JOIN semantic_models s ON s.id = d.semantic_id "
                       "WHERE d.instance_id = ?", [one]).rows()
    assert len(rows) == 2 and rows[0][0] == rows[1][0]  # one instance, two tellings
    assert rows[0][1] != rows[1][1] and rows[0][2] != rows[1][2]


def test_bad_selections_and_operators(store: Store) -> None:
    with pytest.raises(JobError, match="unknown operator 'teleport'"):
        MutateSpec(("teleport",), "true")
    with pytest.raises(JobError, match=r"'scale_cost' \(did you mean '\w+'\?\)"):
        MutateSpec(("scale_cost",), "true")
    with pytest.raises(JobError, match="selects no accepted instance"):
        select_parents(store, "family = 'nothing'")
    with pytest.raises(JobError, match=r"no_such_column.*\(the filter can use: semantic_id"):
        select_parents(store, "no_such_column = 1")
    with pytest.raises(JobError, match="--from is empty"):
        MutateSpec(("scale_data",), " ")
    iid = store.query("SELECT id FROM instances LIMIT 1").item()
    assert len(select_parents(store, iid[:12])) == 1
    # An operator that does not fit is skipped with a counted reason; the job goes on.
    rep = run_mutate(store, MutateSpec(("integer_quantities",), "family = 'knapsack_01'", 2))
    assert rep.skipped == {"not applicable": 2} and rep.accepted == 0
