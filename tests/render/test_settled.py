"""Statements settle every modelling choice (issue 30, item 3): whether a decision is whole or
may be split wherever the two readings have different optima, shifts that wrap round said so,
a unit on every parameter that fits what it measures, plausible data, and few specification
sheets, none contradicting itself."""

from __future__ import annotations

import re
from dataclasses import replace

import numpy as np
import pytest

from ortrex.engine.families import REGISTRY
from ortrex.ir.semantic import SemanticModel
from ortrex.render.account import grain_told, grain_wordings, untold
from ortrex.render.language import capital, unit
from ortrex.render.situation import column_labels
from ortrex.render.statement import FORMS, LAYOUTS, SPEC_LAYOUTS, render_statement
from ortrex.render.tellings import TELLINGS
from ortrex.verifiers.solvers import objectives_agree, solve_highs

SITUATIONS = [x for x in LAYOUTS if x.startswith("situation:")]
DRAWS = (*(("small", k) for k in range(4)), ("medium", 4), ("medium", 5))


def _flipped(sm: SemanticModel, name: str) -> SemanticModel:
    """The other reading of one decision: whole where it was continuous, and the reverse."""
    return replace(sm, variables=tuple(
        replace(v, vtype="I" if v.vtype == "C" else "C") if v.name == name else v
        for v in sm.variables))


def _differs(a: SemanticModel, b: SemanticModel) -> bool:
    """Whether two readings of a problem have different optima (or one has none)."""
    ra, rb = solve_highs(a.ground()), solve_highs(b.ground())
    if ra.status.value != rb.status.value:
        return True
    return ra.status.value == "optimal" and not objectives_agree(ra.objective, rb.objective)


def _readings_that_matter(sm: SemanticModel) -> list[str]:
    """The decisions (continuous or whole, not the modeller's auxiliaries) whose other reading
    changes the optimum."""
    aux = set(TELLINGS[sm.family].auxiliaries)
    return [v.name for v in sm.variables
            if v.vtype in ("C", "I") and v.name not in aux and _differs(sm, _flipped(sm, v.name))]


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_integrality_is_stated_wherever_it_changes_the_optimum(family: str) -> None:
    for size, seed in DRAWS:
        sm = REGISTRY[family].sample(np.random.default_rng(seed), size)
        for name in _readings_that_matter(sm):
            for k, layout in enumerate(SITUATIONS):
                form = FORMS[k % len(FORMS)]
                st_ = render_statement(sm, form, layout, seed=seed * 10 + k)
                said = grain_told(sm, st_.text, st_.account)
                assert name in said, (family, seed, name, layout, st_.text)
            # A specification sheet states every decision's domain.
            spec = render_statement(sm, "DP", "specification:sections", seed=seed).text
            v = next(x for x in sm.variables if x.name == name)
            assert ("a whole number" if v.vtype == "I" else "a continuous quantity") in spec


@pytest.mark.parametrize("family", ["lot_sizing", "diet"])
def test_cases_and_servings_say_whether_they_may_be_fractional(family: str) -> None:
    """The issue's two examples: the other reading moves the optimum, and every statement
    says which reading holds."""
    found = 0
    for seed in range(12):
        sm = REGISTRY[family].sample(np.random.default_rng(seed), "small")
        if "x" not in _readings_that_matter(sm):
            continue
        found += 1
        for s in range(6):
            st_ = render_statement(sm, FORMS[s % 3], SITUATIONS[s % len(SITUATIONS)], seed=s)
            said = grain_told(sm, st_.text, st_.account)
            assert re.search(r"fraction|whole|split", said["x"]), said["x"]
    assert found >= 2  # the choice is a real one in these families


def test_a_grain_wording_follows_the_decisions_type() -> None:
    """Whole lots make "need not be whole" false: it is no longer told, the wholeness is."""
    sm = REGISTRY["lot_sizing"].sample(np.random.default_rng(3), "small")
    assert set(grain_wordings(sm)) == {"x", "s"}
    whole = replace(sm, variables=tuple(replace(v, vtype="I") if v.name in ("x", "s") else v
                                        for v in sm.variables))
    assert grain_wordings(whole) == {}
    for seed in range(8):
        st_ = render_statement(whole, "DP", "situation:narrative", seed=seed)
        assert not re.search(r"need not be whole|can be fractional|fractions of", st_.text)
        assert untold(whole, st_.text, st_.account) == []
        assert {"x", "s"} <= set(grain_told(whole, st_.text, st_.account))
    # A statement that drops its grain sentence is incomplete.
    st_ = render_statement(sm, "DP", "situation:narrative", seed=1)
    sentence = grain_told(sm, st_.text, st_.account)["x"]
    cut = re.sub(re.escape(sentence[1:]), "", st_.text, flags=re.I)
    assert any("how whole 'x'" in m for m in untold(sm, cut, st_.account))


def _cyclic_interval(col: np.ndarray) -> bool:
    """The blocks a shift works are one run of consecutive blocks, wrapping round."""
    on = col > 0.5
    return int(np.sum(on & ~np.roll(on, 1))) == 1


def _contiguous(col: np.ndarray) -> bool:
    on = np.flatnonzero(col > 0.5)
    return bool(on.size) and on[-1] - on[0] + 1 == on.size


_WRAP = re.compile(r"again|cycl|wrap|following|follows|comes", re.I)


@pytest.mark.parametrize("size", ["small", "medium"])
def test_shifts_that_wrap_round_say_so(size: str) -> None:
    wrapped = 0
    for seed in range(10):
        sm = REGISTRY["shift_scheduling"].sample(np.random.default_rng(seed), size)
        cover = np.asarray(sm.param_map["covers"].values)
        assert all(_cyclic_interval(cover[:, s]) for s in range(cover.shape[1]))
        if all(_contiguous(cover[:, s]) for s in range(cover.shape[1])):
            continue
        wrapped += 1
        first, last = sm.set_map["T"].elements[0], sm.set_map["T"].elements[-1]
        for k, layout in enumerate(LAYOUTS):
            text = render_statement(sm, FORMS[k % 3], layout, seed=seed + k).text
            parts = re.split(r"(?<=[.;])\s", text)
            if layout.startswith("situation:"):
                ok = any(first in p and last in p and _WRAP.search(p) for p in parts)
            else:  # a sheet tells it in its story
                ok = "the last" in text and "followed by the first again" in text
            assert ok, (layout, text)
    assert wrapped  # every roster has a shift running past the last block


# Units that cannot measure these quantities: (element or label pattern, unit pattern).
FORBIDDEN = (
    (re.compile(r"^(?:Volume|Length|Pallets|Floor|Axle)$"), re.compile(r"\bkg\b"),
     "a load dimension in kilograms"),
    (re.compile(r"^(?:Licences|Bandwidth|Compute|Transcoding)$"), re.compile(r"\bGB\b"),
     "licences or compute in gigabytes"),
    (re.compile(r"^Energy$"), re.compile(r"%|\bgrams?\b"), "energy as a share or a weight"),
    (re.compile(r"^(?:Iron|Zinc|Folate|VitaminA|VitaminC)$"), re.compile(r"\bgrams?\b"),
     "a micronutrient in grams per serving"),
    (re.compile(r"^(?!.*\bcost\b).*\b(?:time|hours?|minutes)\b"),
     re.compile(r"^(?:USD|EUR|kUSD)$"), "a duration in money"),
    (re.compile(r"\b(?:cost|price)\b"), re.compile(r"^(?:kg|tonnes|GB|km|m3|cm|mm)$"),
     "a cost in a physical unit"),
)


def _domains(family: str) -> list[SemanticModel]:
    """One small instance of each of the family's vocabularies."""
    fam, out, seen = REGISTRY[family], [], set()
    for seed in range(60):
        sm = fam.sample(np.random.default_rng(seed), "small")
        if sm.domain not in seen:
            seen.add(sm.domain)
            out.append(sm)
        if len(seen) == len(fam.vocabularies):
            break
    return out


# Descriptions of the parameters that are pure numbers, told without a unit.
DIMENSIONLESS = re.compile(r"^(probability|share|weight) of ")


@pytest.mark.parametrize("family", sorted(REGISTRY))
def test_every_parameter_has_a_unit_that_fits(family: str) -> None:
    for sm in _domains(family):
        links = sm.position_params()
        labels = column_labels(sm)
        dt = render_statement(sm, "DT", "situation:brief", seed=1).text
        for p in sm.params:
            if p.name in sm.derived_params or p.name in links:
                continue
            if not p.unit:  # a pure number: a probability, a share, a weight
                assert DIMENSIONLESS.match(p.description), (family, sm.domain, p.name)
                assert f"| {capital(labels[p.name])} |" in dt, (family, p.name, dt)
                continue
            note = "1 means yes, 0 means no" if p.unit == "0/1" else unit(p.unit)
            assert f"{capital(labels[p.name])} ({note})" in dt, (family, p.name, dt)
            names = [labels[p.name], p.description,
                     *(e for s in p.index for e in sm.set_map[s].elements)]
            for what, bad, why in FORBIDDEN:
                hit = [n for n in names if what.search(n)]
                assert not (hit and bad.search(p.unit)), (family, sm.domain, p.name, p.unit,
                                                          hit, why)


def test_data_lie_in_plausible_ranges() -> None:
    for size in ("small", "medium", "large"):
        for seed in range(30):
            sm = REGISTRY["blending"].sample(np.random.default_rng(seed), size)
            attrs = sm.set_map["A"].elements
            content = np.asarray(sm.param_map["content"].values)
            row = dict(zip(attrs, content, strict=True))
            if sm.domain == "agriculture":  # percentages of a feed
                assert "Energy" not in attrs
                assert content.max() <= 70 and content.min() > 0  # starch reaches 70%
                for name, cap in (("Calcium", 2.5), ("Methionine", 0.8), ("Sodium", 0.5),
                                  ("Phosphorus", 1.2)):
                    if name in row:
                        assert row[name].max() <= cap, (name, row[name])
            if sm.domain == "energy" and "Octane" in row:
                assert row["Octane"].min() >= 85
    sm = REGISTRY["diet"].sample(np.random.default_rng(0), "small")
    if sm.domain == "healthcare":
        assert sm.param_map["content"].unit == "% of daily value"


def test_plausible_ranges_keep_the_blend_feasible() -> None:
    for seed in range(12):
        sm = REGISTRY["blending"].sample(np.random.default_rng(seed), "small")
        assert solve_highs(sm.ground()).status.value == "optimal", (seed, sm.domain)


def test_specification_sheets_are_rare_and_never_contradict_themselves() -> None:
    sm = REGISTRY["knapsack_01"].sample(np.random.default_rng(4), "small")
    layouts = [render_statement(sm, "DP", seed=s).layout for s in range(600)]
    share = sum(x.startswith("specification:") for x in layouts) / len(layouts)
    assert 0 < share <= 0.05
    # "1 if pipeline e is on the route: a continuous quantity" contradicts itself.
    yes_no = re.compile(r"1 if (?:(?!0 if not)[^:.])*: a (?:continuous quantity|whole number)")
    for family in sorted(REGISTRY):
        sm = REGISTRY[family].sample(np.random.default_rng(2), "small")
        for name in SPEC_LAYOUTS:
            text = render_statement(sm, "DP", f"specification:{name}", seed=3).text
            assert not yes_no.search(text), (family, yes_no.search(text))
    sm = REGISTRY["shortest_path"].sample(np.random.default_rng(2), "small")
    text = render_statement(sm, "DP", "specification:sections", seed=3).text
    assert "0 if not, values in between allowed: a continuous quantity" in text
