"""Entity names: drawn from real lists, never a word the gates or a reader would misread."""

from __future__ import annotations

import numpy as np

from ortrex.render.names import CODENAMES, LISTS, _faker_pool, element_names
from ortrex.verifiers.fidelity import _PLACEHOLDER
from ortrex.verifiers.language import check_language


def test_no_name_reads_as_a_placeholder() -> None:
    # Faker's Italian towns include None (Piedmont): a statement naming it failed fidelity.
    for kind in ("town", "person", "surname"):
        bad = [w for w in _faker_pool(kind) if _PLACEHOLDER.search(w)]
        assert bad == [], (kind, bad[:5])


def test_a_spent_pool_numbers_its_names_and_never_repeats() -> None:
    # A renaming takes new names while the old ones are still taken: once a small list is
    # spent, it is numbered (this looped for ever when every name was taken).
    taken: set[str] = set()
    first = element_names("list:shift", len(LISTS["shift"]), np.random.default_rng(0), taken)
    more = element_names("list:shift", 40, np.random.default_rng(1), taken)
    assert len(set(more)) == 40 and not set(first) & set(more)


def test_no_name_reads_as_a_malformed_plural() -> None:
    # Signatures and introductions name people and towns outside the problem's sets, so the
    # language gate judges them as words: "Rhys" reads as "Rhy" + "s", "Heinrichs" as "-chs".
    for kind in ("town", "person", "surname"):
        rep = check_language(" ".join(_faker_pool(kind)))
        assert not [f.text for f in rep.findings if f.code == "plural"], kind
    for words in (*LISTS.values(), CODENAMES):
        rep = check_language(" ".join(words))
        assert not [f.text for f in rep.findings if f.code == "plural"], words
