"""English morphology for rendered text, through ``inflect`` (never string concatenation):
plurals, articles, number words, lists, and units that agree with their numbers."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import inflect

_ENGINE = inflect.engine()
# Letters whose name starts with a vowel sound ("an R&D project", "an MRI scan").
_VOWEL_LETTERS = set("AEFHILMNORSX")
_ACRONYM = re.compile(r"^[A-Z][A-Z&/0-9-]*\b")
_PER = re.compile(r"\bper ([A-Za-z][\w-]*)")


def engine() -> Any:
    """The shared inflect engine."""
    return _ENGINE


# Nouns inflect reads as something else ("mine" as a pronoun).
_PLURALS = {"mine": "mines", "mines": "mines", "yours": "yours"}
# Singular nouns ending in "s" that inflect would read as plurals ("gas" as of "ga").
_SINGULAR_S = frozenset({"gas", "bus", "lens", "atlas", "canvas", "alias", "bias", "chaos",
                         "iris", "plus", "minus", "yes", "thermos", "asbestos",
                         "kudos", "pancreas", "ethos", "pathos", "cosmos", "rhinoceros"})
# Where a noun phrase's head ends: a preposition, or a rate's article ("containers a week").
_PREPOSITION = re.compile(r" (?:of|for|per|in|on|at|from|to|with|by|a|an|each|every) ")


def is_plural(word: str) -> bool:
    """Whether ``word`` is already a plural (``bolts``, ``boxes``), so ``plural`` keeps it."""
    if len(word) <= 3 or not word.endswith("s") or word in _SINGULAR_S or \
            word.endswith(("ss", "us", "is", "ous")) or not word.isalpha():
        return False
    single = _ENGINE.singular_noun(word)
    return isinstance(single, str) and single != word and \
        str(_ENGINE.plural_noun(single)) == word


@lru_cache(maxsize=4096)
def plural(noun: str) -> str:
    """The plural of a (possibly compound) noun: ``bolt of cloth`` -> ``bolts of cloth``; a
    plural stays as it is (``bolts``, never ``boltss``)."""
    if not noun:
        return noun
    if "/" in noun.split(" ", 1)[0]:
        return noun  # a unit symbol ("Gbit/s", "MMcf/day") has no plural
    phrase, sep, rest = _split_head(noun)
    head, space, last = phrase.rpartition(" ")
    if last in _PLURALS:
        return head + space + _PLURALS[last] + sep + rest
    if is_plural(last) or (last[:1].isupper() and is_plural(last.lower())):
        return noun  # pluralising a plural doubles its "s"
    if any(c.isupper() for c in last[1:]) and last.isalpha():
        return noun  # a unit symbol or acronym ("kWh", "MWh", "GB") has no plural
    if sep:
        return str(_ENGINE.plural_noun(phrase)) + sep + rest
    return str(_ENGINE.plural_noun(noun))


def _split_head(noun: str) -> tuple[str, str, str]:
    """A noun phrase split before its first preposition (``bolt``, `` of ``, ``cloth``)."""
    m = _PREPOSITION.search(noun)
    return (noun[:m.start()], m.group(0), noun[m.end():]) if m else (noun, "", "")


@lru_cache(maxsize=4096)
def singular(word: str) -> str:
    """The singular of a plural noun (unchanged when it is not one, or is a unit symbol)."""
    for joint in (" per ", " of "):  # "megalitres per day" -> "megalitre per day"
        if joint in word:
            head, _, rest = word.partition(joint)
            return f"{singular(head)}{joint}{rest}"
    if "-" in word:  # "person-hours" -> "person-hour"
        head, _, last = word.rpartition("-")
        return f"{head}-{singular(last)}" if head and last else word
    if len(word) <= 3 or not word.isalpha() or word.isupper():
        return word
    s = _ENGINE.singular_noun(word)
    return s if isinstance(s, str) and s else word


@lru_cache(maxsize=4096)
def article(noun: str) -> str:
    """``a`` or ``an`` before ``noun`` (acronyms by their letters' sound), with the noun."""
    m = _ACRONYM.match(noun)
    if m and len(m.group(0)) > 1:
        return ("an " if noun[0] in _VOWEL_LETTERS else "a ") + noun
    return str(_ENGINE.a(noun))


def count(n: int) -> str:
    """A count as a reader writes it: words up to ten, digits beyond."""
    return str(_ENGINE.number_to_words(n)) if 0 <= n <= 10 else str(n)


def counted(n: int, noun: str) -> str:
    """``three mines``, ``one depot``, ``12 stores``."""
    return f"{count(n)} {noun if n == 1 else plural(noun)}"


def join(items: list[str], conj: str = "and") -> str:
    """``A``, ``A and B``, ``A, B and C``."""
    items = [str(i) for i in items]
    if len(items) <= 2:
        return f" {conj} ".join(items)
    return f"{', '.join(items[:-1])} {conj} {items[-1]}"


def unit(text: str, value: float | None = None) -> str:
    """A unit as written after a number: ``per tonnes`` -> ``per tonne``; a plural leading
    noun agrees with the number (``1 tonne``, ``2 tonnes``)."""
    if not text:
        return text
    out = _PER.sub(lambda m: "per " + singular(m.group(1)), text)
    if value is not None and abs(float(value)) == 1:
        # The phrase's head noun agrees: "1 priority point", "1 bolt of cloth", "1 tonne".
        phrase, sep, rest = _split_head(out)
        words = phrase.split(" ")
        for k in range(len(words) - 1, -1, -1):
            if singular(words[k]) != words[k] or k == 0:
                words[k] = singular(words[k])
                break
        out = " ".join(words) + sep + rest
    return out


def capital(text: str) -> str:
    """First letter upper-cased (the rest untouched)."""
    return text[:1].upper() + text[1:] if text else text


_PLURAL_KEY = re.compile(r"\{(\w+)\}s\b")
_ARTICLE_KEY = re.compile(r"\b([Aa]) \{(\w+)\}")


def fill_words(text: str, entities: Mapping[str, str], words: Mapping[str, str]) -> str:
    """A description template filled from a vocabulary: ``{S}`` the entity of set S,
    ``{S}s`` its plural and ``a {S}`` with the right article (inflect, not concatenation),
    ``{word}`` a vocabulary word. Raises ``KeyError`` for an unknown placeholder."""
    def plural_of(m: re.Match[str]) -> str:
        return plural(entities[m.group(1)]) if m.group(1) in entities else m.group(0)

    def article_of(m: re.Match[str]) -> str:
        if m.group(2) not in entities:
            return m.group(0)
        text = article(entities[m.group(2)])
        return capital(text) if m.group(1) == "A" else text

    text = _ARTICLE_KEY.sub(article_of, _PLURAL_KEY.sub(plural_of, text))
    return text.format_map(_Strict({**entities, **words}))


class _Strict(dict):  # type: ignore[type-arg]
    def __missing__(self, key: str) -> str:
        raise KeyError(f"vocabulary has no word for {{{key}}}")
