"""The extension recipes of docs/extending.md, done: a family (roles at each declaration, a
statement telling), an operator (its own post-check) and a kernel op (a table row), each a
plugin module in a temporary package named by ``$ORTREX_PLUGINS``, are picked up by the
registries on their next read, the generate job's worker processes included."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import duckdb
import numpy as np
import pytest

from ortrex import plugins
from tests.engine.test_family_completeness import in_domain

# --- recipe: a family ----------------------------------------------------------------------
FAMILY = '''\
"""A feed-mix family as a plugin: the model, a role on every part, and how a client tells it."""

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import P, V, total
from ortrex.render.telling import Fact, Rule, Telling
from ortrex.render.tellings import register_telling


@register
class FeedMix(Family):
    """Least-cost feed mix: enough of every nutrient from the feeds on hand."""

    name = "feed_mix"
    problem_class = "LP"
    classes = ("blending/diet",)  # its place in the taxonomy (ortrex families --classes)
    summary = "Mix {F}s at least cost so that every {N} need is met."
    sizes = {"small": {"F": (4, 6), "N": (2, 3)}, "medium": {"F": (6, 12), "N": (3, 5)},
             "large": {"F": (12, 30), "N": (5, 8)}}
    vocabularies = (
        Vocabulary("agriculture", "Feed mix", "A farm mixes {F}s to cover each {N} need.",
                   {"F": ("feedstuff", "list:feedstuff"), "N": ("nutrient", "list:feed_nutrient")},
                   {"unit": "kg", "money": "USD", "level": "units"}),
        Vocabulary("healthcare", "Ward menu", "A ward plans {F}s that meet each {N} need.",
                   {"F": ("dish", "list:dish"), "N": ("nutrient", "list:school_nutrient")},
                   {"unit": "portions", "money": "EUR", "level": "points"}),
        Vocabulary("education", "Lunch plan", "A school serves {F}s that meet each {N} target.",
                   {"F": ("dish", "list:dish"), "N": ("nutrient", "list:school_nutrient")},
                   {"unit": "portions", "money": "EUR", "level": "points"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nF, nN = b.dims["F"], b.dims["N"]
        b.set("F")
        b.set("N")
        content = rounded(rng.uniform(1, 30, (nN, nF)), 1)
        ref = rng.uniform(0.5, 4, nF)
        b.param("cost", ("F",), rounded(rng.uniform(0.5, 6, nF)), "cost of one unit of each {F}",
                "{money} per {unit}")
        b.param("content", ("N", "F"), content, "{N} in one unit of each {F}", "{level}")
        b.param("need", ("N",), rounded(content @ ref * rng.uniform(0.7, 0.95, nN), 1),
                "requirement of each {N}", "{level}")
        b.param("limit", ("F",), np.ceil(ref * rng.uniform(1.5, 3, nF)),
                "most units of each {F}", "{unit}")
        # Every variable and constraint family says what it means (ortrex.ir.roles): the
        # operators and post-checks read the model by these roles.
        b.var("x", (("f", "F"),), "{unit} of {F} f", ub=P("limit", "f"), unit="{unit}",
              role="quantity")
        b.con("need_met", "Each {N} need is met.", (("n", "N"),),
              total("f", "F", P("content", "n", "f") * V("x", "f")), ">=", P("need", "n"),
              role="demand")
        b.objective("min", total("f", "F", P("cost", "f") * V("x", "f")), "cost in {money}")


# How the client tells it: openings, one fact per parameter, a rule per constraint family,
# goals. Every placeholder must fill in every domain above (tests/engine/
# test_family_completeness.py checks the built-in families; a statement of a family without
# a telling is an error).
register_telling("feed_mix", Telling(
    openings=("We mix {n_F} {Fs}{names_F} and must cover {n_N} {N} needs{names_N}.",
              "Every day we blend {n_F} {Fs} so that each {N} need is covered."),
    facts={
        "cost": Fact(("Prices ({unit_cost}): {items}.",), label="price"),
        "content": Fact(("What one unit of each {F} gives ({unit_content}): {items}.",),
                        ("{e} {v}",), label="content per unit"),
        "need": Fact(("We need at least {items}.",), label="requirement"),
        "limit": Fact(("At most {items} of each.",), label="maximum"),
    },
    rules=(Rule(("need_met",), ("Every {N} need has to be met.",
                                "The mix must cover each {N} need."),
                ("Each {N} need is met.",)),),
    goals=("We want the cheapest mix that meets the needs.",),
    objective="cost in {money}",
    asks=("How much of each {F}, and at what cost?",),
    report={"x": "{v} {unit} of {f}"},
))
'''

# --- recipe: an operator -------------------------------------------------------------------
OPERATOR = '''\
"""An operator as a plugin: every requirement raised by a tenth, with the check its children
must pass."""

from dataclasses import replace

from ortrex.engine.operators.base import Context, Mutation, NotApplicable, round_like, with_changes
from ortrex.engine.operators.registry import PostCheck, operator
from ortrex.ir.expr import Param, as_expr


def costs_something(sm, model, x, objective):
    """A raised requirement is never met for free (one line why not, else None)."""
    return "the optimum costs nothing" if abs(objective) <= 1e-9 else None


@operator("every requirement raised by a tenth",
          postcheck=PostCheck("costs_something", costs_something))
def raise_requirements(ctx: Context) -> Mutation:
    """The right-hand sides of the demand rows, 10% higher."""
    sm = ctx.parent
    names = {e.name for c in sm.constraints if c.role == "demand" and c.sense == ">="
             for e in as_expr(c.rhs).walk() if isinstance(e, Param)}
    if not names:
        raise NotApplicable("no requirement to raise")
    params = tuple(replace(p, values=round_like(p, p.values * 1.1)) if p.name in names else p
                   for p in sm.params)
    return with_changes(sm, "raise_requirements", {"parameters": sorted(names)}, params=params)
'''

# --- recipe: a kernel op -------------------------------------------------------------------
KERNEL = '''\
"""A fused op as a plugin: one row of the kernel table."""

from ortrex.kernels.registry import KernelOp, register_kernel

register_kernel(KernelOp(
    "toy_gelu", "toy_kernels.gelu", flag="toy_gelu", npu=("npu_gelu",),
    npu_impl="torch_npu.npu_gelu"))
'''

Write = Callable[[str, str], None]


@pytest.fixture
def plugin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Write]:
    """Write plugin modules into a temporary package named by ``$ORTREX_PLUGINS``; afterwards
    their registrations, modules and load marks are gone."""
    from ortrex.engine.families import REGISTRY
    from ortrex.engine.operators.registry import OPERATORS
    from ortrex.kernels.registry import KERNELS
    from ortrex.render.tellings import TELLINGS

    tables = (REGISTRY, OPERATORS, KERNELS, TELLINGS)
    before = [set(t) for t in tables]
    monkeypatch.syspath_prepend(str(tmp_path))
    names: list[str] = []

    def write(module: str, code: str) -> None:
        (tmp_path / f"{module}.py").write_text(code)
        names.append(module)
        monkeypatch.setenv(plugins.ENV, ",".join(names))

    yield write
    monkeypatch.delenv(plugins.ENV)
    for table, had in zip(tables, before, strict=True):
        for name in set(table) - had:
            del table[name]
    for module in names:
        sys.modules.pop(module, None)
        plugins._loaded.discard(module)


def test_a_plugin_family_generates_a_verified_told_instance(plugin: Write) -> None:
    from ortrex.engine.families import REGISTRY
    from ortrex.engine.generate.pipeline import run_task
    from ortrex.render.statement import render_statement

    plugin("toy_family", FAMILY)
    assert "feed_mix" in REGISTRY  # the read loads the plugin
    results = [run_task("feed_mix", "small", 0, task, time_limit=5.0) for task in range(6)]
    accepted = [r for r in results if r.outcome.accepted]
    assert accepted, [r.outcome.rejection for r in results]
    sm = accepted[0].semantic
    assert {v.name: v.role for v in sm.variables} == {"x": "quantity"}
    assert {c.name: c.role for c in sm.constraints} == {"need_met": "demand"}
    assert accepted[0].outcome.results[0].status == "optimal"
    # Told from its telling in every domain, never from the meaning ("Each ... need is met.").
    for k, vocab in enumerate(REGISTRY["feed_mix"].vocabularies):
        told = render_statement(in_domain(REGISTRY["feed_mix"], vocab, k), "DP",
                                layout="situation:narrative", seed=k)
        assert "need is met" not in told.account["need_met"], told.account


def test_a_plugin_family_reaches_the_generate_job_workers(plugin: Write, tmp_path: Path
                                                          ) -> None:
    plugin("toy_family", FAMILY)
    db = tmp_path / "toy.duckdb"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), *sys.path]))
    args = ["--db", str(db), "generate", "--families", "feed_mix", "--count", "2",
            "--workers", "1", "--time-limit", "5"]
    code = f"import sys; from ortrex.cli import main; sys.exit(main({args!r}))"
    r = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr
    with duckdb.connect(str(db), read_only=True) as con:
        assert con.execute("SELECT count(*) FROM instances WHERE family = 'feed_mix'"
                           ).fetchone() == (2,)


def test_a_plugin_operator_mutates_a_real_family_and_brings_its_check(plugin: Write) -> None:
    from ortrex.engine.generate.mutate import OPERATORS, apply
    from ortrex.engine.generate.pipeline import verify
    from ortrex.engine.generate.postchecks import checks_for
    from tests.samples import verified_parent

    plugin("toy_operator", OPERATOR)
    assert OPERATORS["raise_requirements"].postcheck.name == "costs_something"
    sm, _, values, _, _ = verified_parent("diet")
    child = apply("raise_requirements", sm, values, np.random.default_rng(0)).child
    need = child.param_map["need"].values
    assert np.all(need > sm.param_map["need"].values)
    assert child.descriptors["mutations"] == ["raise_requirements"]
    names = [name for name, _ in checks_for(child)]
    assert names[-1] == "costs_something" and "costs_something" not in \
        [name for name, _ in checks_for(sm)]
    out = verify(child.ground(), child)
    assert out.accepted, out.rejection


def test_a_plugin_kernel_row_is_listed(plugin: Write) -> None:
    from ortrex.kernels import registry

    plugin("toy_kernel", KERNEL)
    row = registry.KERNELS["toy_gelu"]
    assert [op.name for op in registry.ops()] == [*registry.OPS, "toy_gelu"]
    eager = {c.op: c.impl for c in registry.explain("eager")}
    assert eager["toy_gelu"] == "PyTorch reference" and row.module == "toy_kernels.gelu"


def test_a_plugin_that_cannot_be_imported_is_named(plugin: Write) -> None:
    from ortrex.engine.families import REGISTRY

    plugin("toy_broken", "raise RuntimeError('no licence')\n")
    with pytest.raises(plugins.PluginError, match=r"plugin 'toy_broken'.*RuntimeError: no "
                                                  "licence"):
        _ = "diet" in REGISTRY
