"""Whether a situation statement determines its model: every rule, the goal and every whole
decision told, each in a sentence the text holds (the statement's account is the evidence)."""

from __future__ import annotations

from ortrex.ir.semantic import SemanticModel
from ortrex.render.tellings import TELLINGS


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
    return out
