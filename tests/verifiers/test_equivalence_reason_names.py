"""A not-equivalent reason names the rows and variables as written, not normalised numbers."""

from __future__ import annotations

from pathlib import Path

import pytest

from ortrex.verifiers.equivalence import check_equivalence

A = ("Maximize\n obj: 3 x + 2 y + z\nSubject To\n cap: x + y + z <= 4\n mix: x + 3 y <= 6\n"
     " lab: 2 x + z <= 5\nEnd\n")


@pytest.mark.parametrize(("edit", "named"), [
    ((" lab: 2 x + z <= 5", " lab: 2 x + z <= 7"),
     "in A: row 'lab' (<= 5); in B: row 'lab' (<= 7)"),
    (("obj: 3 x + 2 y + z", "obj: 3 x + 2 y + 2 z"),
     "in A: variable 'z' (objective 1); in B: variable 'z' (objective 2)"),
    (("End", "Bounds\n y <= 9\nEnd"), "in A: variable 'y' (ub inf); in B: variable 'y' (ub 9)"),
    ((" mix: x + 3 y <= 6", " mix: 2 x + 6 y <= 13"), "in A: row 'mix' (<= 6); in B: row 'mix' "
     "(<= 13)"),
])
def test_the_reason_names_what_differs(tmp_path: Path, edit: tuple[str, str], named: str
                                       ) -> None:
    a, b = tmp_path / "a.lp", tmp_path / "b.lp"
    a.write_text(A)
    b.write_text(A.replace(*edit))
    r = check_equivalence(a, b)
    assert r.verdict == "not_equivalent"
    assert named in r.reason, r.reason


def test_a_coefficient_is_named_by_row_and_variable(tmp_path: Path) -> None:
    a, b = tmp_path / "a.lp", tmp_path / "b.lp"
    a.write_text(A.replace(" cap: x + y + z <= 4", " cap: x + y + z = 4"))
    b.write_text(A.replace(" cap: x + y + z <= 4", " cap: x + y + 2 z = 4"))
    r = check_equivalence(a, b)
    assert r.verdict == "not_equivalent", r.reason
    assert "row 'cap', variable 'z' (coefficient 1)" in r.reason, r.reason
    assert "row 'cap', variable 'z' (coefficient 2)" in r.reason, r.reason
