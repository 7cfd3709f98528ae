"""Whether a situation statement determines its model: every rule, the goal and every whole
decision told, each in a sentence the text holds (the statement's account is the evidence)."""

from __future__ import annotations

import re

from ortrex.ir.semantic import SemanticModel
from ortrex.render.telling import Words, fill
from ortrex.render.tellings import TELLINGS

# The number-neutral swaps a statement's rules may take ("must" / "will have to"): both a
# wording and the text are brought to one form before a wording is looked for.
_SWAPS = tuple((re.compile(a), b) for a, b in (
    (r"\bwill have to\b", "must"), (r"\b(?:may not|must not|can never)\b", "cannot"),
    (r"\b(?:no more than|not more than)\b", "at most"),
    (r"\b(?:no less than|not less than)\b", "at least"), (r"\beach\b", "every"),
    (r"\bgo (?:beyond|over)\b", "exceed")))


def devices(sm: SemanticModel) -> set[str]:
    """Constraint families a client never states (linearisation and subtour devices)."""
    t = TELLINGS.get(sm.family)
    return set(t.devices if t else ()) | set(sm.descriptors.get("devices", []))


def settled(sm: SemanticModel) -> set[str]:
    """Variable families whose wholeness needs no words (auxiliaries, settled by the rules)."""
    t = TELLINGS.get(sm.family)
    own = (t.settled + t.auxiliaries) if t else ()
    return set(own) | set(sm.descriptors.get("settled", [])) | set(
        sm.descriptors.get("auxiliaries", []))


def in_text(sentence: str, text: str) -> bool:
    """A sentence of the account appears in the text (a connective may lower its first
    letter, so the first letter is not compared)."""
    return bool(sentence) and sentence[1:] in text


def _canonical(text: str) -> str:
    text = text.lower()
    for rx, to in _SWAPS:
        text = rx.sub(to, text)
    return text


def grain_wordings(sm: SemanticModel) -> dict[str, list[str]]:
    """Each decision's grain wordings that hold for the model: the telling's rules that state
    a variable's type (``telling.divisible`` / ``telling.whole``), filled in, while every
    variable they name has that type."""
    t = TELLINGS.get(sm.family)
    if t is None:
        return {}
    vtypes = {v.name: v.vtype for v in sm.variables}
    words = Words(sm, "DP", {})
    out: dict[str, list[str]] = {}
    for r in t.rules:
        if r.covers or not r.types or any(vtypes.get(v) != ty for v, ty in r.types.items()):
            continue
        filled = []
        for text in r.tellings:
            try:
                filled.append(fill(text, words))
            except (KeyError, ValueError, IndexError):
                continue  # a wording naming what this model lacks is never told
        for v in r.types:
            out.setdefault(v, []).extend(filled)
    return out


def grain_told(sm: SemanticModel, text: str, account: dict[str, str]) -> dict[str, str]:
    """The sentence of ``text`` saying how whole each decision is, by variable: the account's
    wholeness sentence, else a grain wording of the telling (``grain_wordings``)."""
    out = {v: account[v] for v in (x.name for x in sm.variables)
           if v in account and in_text(account[v], text)}
    body = _canonical(text)
    for v, options in grain_wordings(sm).items():
        if v in out:
            continue
        for option in options:
            if in_text(_canonical(option), body):
                out[v] = option
                break
    return out


def untold(sm: SemanticModel, text: str, account: dict[str, str],
           verbatim: bool = True) -> list[str]:
    """What the statement leaves out, one line each (empty: it determines the model).

    ``verbatim``: each account sentence must be in ``text`` (off for a paraphrase, which the
    fidelity gate holds to the data but whose sentences are its own)."""
    out: list[str] = []

    def need(key: str, what: str) -> None:
        if key not in account:
            out.append(f"{what} is not told")
        elif verbatim and not in_text(account[key], text):
            out.append(f"{what}: its sentence is not in the text")

    hidden = devices(sm)
    for c in sm.constraints:
        if c.name not in hidden:
            need(c.name, f"rule {c.name!r}")
    need("objective", "the goal")
    whole = settled(sm)
    for v in sm.variables:
        if v.vtype in ("I", "B") and v.name not in whole:
            need(v.name, f"the wholeness of {v.name!r}")
    if verbatim:  # whole or divisible: said wherever the telling has words for it
        said = grain_told(sm, text, account)
        for v in grain_wordings(sm):
            if v not in said:
                out.append(f"how whole {v!r} is (whole or fractional) is not told")
    return out
