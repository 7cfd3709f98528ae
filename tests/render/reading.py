"""How a test reads a statement: the fidelity check as the render job runs it, the pattern
lists (modelling artefacts, words of wholeness, objective cues) and the determination check."""

from __future__ import annotations

import re

from ortrex.ir.semantic import SemanticModel
from ortrex.render.account import devices, in_text, untold
from ortrex.render.situation import column_labels, goal_noun
from ortrex.render.statement import LAYOUTS, Statement
from ortrex.render.tellings import TELLINGS
from ortrex.verifiers.fidelity import FidelityReport, check_fidelity
from ortrex.verifiers.language import (
    ARTEFACTS,  # what a client never says (the benchmark counts it)
    check_language,
)

SITUATIONS = [x for x in LAYOUTS if x.startswith("situation:")]
# Words that say a decision is whole or yes/no, in business terms.
WHOLE = re.compile(
    r"\bwhole\b|\beither\b|all or nothing|yes-or-no|\bin or out\b|in part\b|"
    r"\bexactly one\b|\bonce\b|\b(?:at most|not more than) one\b|no halfway|"
    r"\bon or off\b|half-open|"
    r"\bnot both\b|a fraction of|(?:cannot|may not|must not|can never) be shared|"
    r"\bno more than one\b|\bpart of (?:a|an|one)\b|\bsplit\b", re.I)
MIN_CUES = re.compile(r"lowest|least|minimi[sz]|small|cheapest|as few|as low|as little|"
                      r"fewest|fewer|\bdown\b|shortest|keep .* to a minimum|minimum", re.I)
MAX_CUES = re.compile(r"highest|largest|maximi[sz]|\bmost\b|as much|as high|greatest|"
                      r"(?<!-)\bup\b|more .* is better|the best", re.I)


def names_of(sm: SemanticModel) -> frozenset[str]:
    return frozenset(e for s in sm.sets for e in s.elements)


def fidelity(sm: SemanticModel, st_: Statement, text: str | None = None,
             files: dict[str, str] | None = None) -> FidelityReport:
    """The fidelity check as the render job runs it (tables may use business labels)."""
    return check_fidelity(sm, st_.form, st_.text if text is None else text,
                          st_.files if files is None else files, column_labels(sm))


def assert_determines(sm: SemanticModel, st_: Statement) -> None:
    """The statement's facts map to exactly the verified model: every number read back in
    place, derived data derivable, every rule told (or a device the optimum does not need),
    the objective's sense and every decision's wholeness said in words."""
    rep = fidelity(sm, st_)
    assert rep.ok, (st_.layout, rep.summary())
    lang = check_language(st_.text, names_of(sm))
    assert lang.ok, (st_.layout, lang.summary())
    hits = [m.group(0) for m in ARTEFACTS.finditer(st_.text)]
    assert not hits, (st_.layout, hits)
    missing = untold(sm, st_.text, st_.account)
    assert not missing, (st_.layout, missing)
    for c in sm.constraints:
        if c.name in devices(sm):
            assert c.name not in st_.account
    goal = st_.account["objective"]
    # The cue is in the words around what is measured ("the largest delay ... as low as").
    around = re.sub(re.escape(goal_noun(sm)), " ", goal, flags=re.I)
    right, wrong = (MIN_CUES, MAX_CUES) if sm.objective.sense == "min" else (MAX_CUES, MIN_CUES)
    assert right.search(around) and not wrong.search(around), (sm.objective.sense, goal)
    t = TELLINGS.get(sm.family)
    aux = set(t.auxiliaries) if t else set()
    if any(v.vtype in ("I", "B") and v.name not in aux for v in sm.variables):
        assert WHOLE.search(st_.text), "no word says a decision is whole"


def told(st_: Statement, sentence: str) -> bool:
    """A sentence of the account appears in the statement's text."""
    return in_text(sentence, st_.text)
