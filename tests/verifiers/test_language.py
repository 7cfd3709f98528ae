"""The language gate: every known failure pattern of template text is caught, and the
grammatical version of each passes."""

from __future__ import annotations

import pytest

from ortrex.verifiers.language import check_language, prose

BAD = {
    "We compare three technologys for the plant.": "plural",
    "The kitchen prepares five dishs.": "plural",
    "Each surgerys slot is booked.": "plural",
    "Each route ends at a edge site.": "article",
    "Send a ambulance to every district.": "article",
    "Fuel costs 20 USD per tonnes.": "per-plural",
    "We ship 1 tonnes on the first lane.": "number-agreement",
    "Follow the guideline guideline strictly.": "repeated-word",
    "It is required that A chiller runs at night.": "capital-inside",
    "Otherwise job 2 starts after job 1 ends. If job 1 comes first, job 2 waits.":
        "otherwise-first",
    "Each depot ships at most 5 tonnes , and more.": "spacing",
    "Each depot ships  at most 5 tonnes.": "spacing",
}
GOOD = [
    "We compare three technologies for the plant.",
    "The kitchen prepares five dishes.",
    "Each route ends at an edge site, an hour away; a unit costs 3 USD.",
    "Send an ambulance to every district.",
    "Fuel costs 20 USD per tonne.",
    "We ship 1 tonne on the first lane and 3 tonnes on the second.",
    "He said that that plan works.",
    "It is required that a chiller runs at night.",
    "If job 1 comes first, job 2 starts after it ends. Otherwise job 1 waits.",
    "An R&D project, a KPI report, an MRI scan and an FAQ page.",
    "Choose project a if it pays; 1 means yes, 0 means no.",
    "Octane is measured in index points; the analysis covers gas and glass.",
]


@pytest.mark.parametrize(("text", "code"), list(BAD.items()))
def test_known_failure_patterns_are_caught(text: str, code: str) -> None:
    rep = check_language(text)
    assert not rep.ok and code in {f.code for f in rep.findings}, rep.summary()


@pytest.mark.parametrize("text", GOOD)
def test_grammatical_text_passes(text: str) -> None:
    rep = check_language(text)
    assert rep.ok, rep.summary()


def test_only_prose_is_read() -> None:
    text = ("We ship pallets.\n\n| Depot | a edge |\n|---|---|\n\n```python\nx = 'a edge'\n```\n"
            'The key "a edge" holds it, and $a x$ is math.')
    assert check_language(text).ok
    assert "a edge" not in prose(text).replace('"a edge"', "")


def test_names_are_not_judged_as_words() -> None:
    text = "A Uber driver and a Oslo depot."
    assert not check_language(text).ok
    assert check_language(text, frozenset({"Uber", "Oslo"})).ok
