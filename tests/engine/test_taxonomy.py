"""The problem-class taxonomy: every family in known classes, refusals at registration, and
`ortrex families --classes` as a user reads it."""

from __future__ import annotations

import pytest

from ortrex.engine.families import REGISTRY
from ortrex.engine.families.base import Family, register
from ortrex.engine.families.taxonomy import CLASSES, TaxonomyError, area, check_classes
from tests.conftest import run_cli


def test_every_family_is_in_known_classes() -> None:
    for name, fam in REGISTRY.items():
        assert fam.classes, name
        assert set(fam.classes) <= set(CLASSES), name
    # Every class is area/class, and the areas are few and named.
    assert all(c.count("/") == 1 and area(c) for c in CLASSES)
    assert check_classes("x", ["routing/tsp"]) == ("routing/tsp",)


@pytest.mark.parametrize(("classes", "message"), [
    ((), "declares no class"),
    (("routing/teleport",), "unknown class 'routing/teleport'"),
])
def test_a_family_outside_the_taxonomy_is_refused(classes: tuple[str, ...],
                                                  message: str) -> None:
    base = type(REGISTRY["knapsack_01"])
    cls: type[Family] = type("Stray", (base,), {"name": "stray_mix", "classes": classes})
    with pytest.raises(TaxonomyError, match=message):
        register(cls)
    assert "stray_mix" not in REGISTRY


def test_families_classes_lists_the_taxonomy_with_its_families() -> None:
    r = run_cli("families", "--classes", env={"COLUMNS": "250"})
    assert r.returncode == 0, r.stderr
    rows = {line.split("│")[1].strip(): line.split("│")[3].strip()
            for line in r.stdout.splitlines() if line.count("│") == 4}
    assert set(CLASSES) <= set(rows)
    for name, fam in REGISTRY.items():
        for c in fam.classes:
            assert name in rows[c].replace(" ", "").split(","), (name, c)
    empty = [c for c in CLASSES if not any(c in f.classes for f in REGISTRY.values())]
    assert all(rows[c] == "-" for c in empty)
    assert f"{len(CLASSES)} problem classes" in r.stdout
    # The plain listing names each family's classes beside its solver class.
    r = run_cli("families", env={"COLUMNS": "250"})
    assert r.returncode == 0 and "MILP: routing/tsp" in r.stdout
