"""The language gate: grammar and morphology checks of rendered prose, through ``inflect``
(articles, plurals, singulars) and patterns for the failures template engines make.

Each finding has a code (the document's rejection detail names it):

* ``article``: ``a`` / ``an`` that does not fit the next word (``a edge``, ``an chiller``);
* ``plural``: a regular plural built by concatenation (``technologys``, ``dishs``, ``boxs``);
* ``per-plural``: a rate over a plural (``USD per tonnes``);
* ``number-agreement``: ``1`` with a plural noun (``1 tonnes``);
* ``repeated-word``: the same word twice (``guideline guideline``);
* ``capital-inside``: a capitalised article inside a sentence (``required that A chiller``);
* ``otherwise-first``: an ``Otherwise ...`` sentence with no ``if`` before it;
* ``spacing``: a space before punctuation, or a doubled space.

Only prose is read: tables, code blocks, inline code and quoted keys are left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import lru_cache

import inflect

_ENGINE = inflect.engine()
_VOWEL_LETTERS = set("AEFHILMNORSX")
_CODE_BLOCK = re.compile(r"```.*?```|\$\$.*?\$\$|\$[^$\n]+\$", re.S)
_INLINE = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"")
_ARTICLE = re.compile(r"\b(a|an|A|An) ([A-Za-z][\w&/-]*)")
_Y_PLURAL = re.compile(r"\b[a-z]+[^aeiou\W]ys\b")
_SIBILANT = re.compile(r"\b[a-z]+(?:sh|ch|x|ss|zz)s\b")
_PER = re.compile(r"\bper ([a-z][a-z-]+)\b")
_ONE = re.compile(r"(?<![\d.,])\b1 ([a-z][a-z-]+)\b")
_REPEAT = re.compile(r"\b([A-Za-z]{2,}) +\1\b", re.I)
_CAPITAL = re.compile(r"\b(?:that|than|which|where|because|if|and|or) (?:A|An|The) [a-z]")
_SPACING = re.compile(r"\S +[,;:.!?](?:\s|$)|\S  +\S")
# Plural-looking words that are singular (or fine after "per"), and words inflect misreads.
_NOT_PLURAL = frozenset({"series", "species", "news", "analysis", "basis", "bus", "gas",
                         "lens", "status", "process", "class", "mass", "pass", "glass",
                         "business", "address", "campus", "bonus", "virus", "plus", "focus",
                         "canvas", "chassis", "access", "axis", "thesis", "corpus", "census",
                         "genus", "minus", "alias", "atlas", "iris", "loss", "ms", "cms",
                         "means", "stands"})
_REPEAT_OK = frozenset({"that", "had"})  # "that that", "had had": grammatical
# Verbs in -s after a numbered name ("job 1 comes first"): not a plural after "1".
_VERBS_S = frozenset("""comes goes needs takes starts ends runs waits has is gets uses holds
costs means makes leaves enters serves covers ships sends receives carries brings gives pays
works stays follows precedes requires depends finishes begins opens closes produces supplies
demands reaches visits feeds buys sells offers lasts weighs counts equals""".split())  # noqa: SIM905


@dataclass(frozen=True)
class Finding:
    """One language problem: its code and the words that show it."""

    code: str
    text: str

    def __str__(self) -> str:
        return f"{self.code}: {self.text!r}"


@dataclass
class LanguageReport:
    """What the gate found in one text."""

    findings: list[Finding] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No finding."""
        return not self.findings

    def summary(self) -> str:
        """The first findings."""
        return "; ".join(str(f) for f in self.findings[:5]) + (
            f"; and {len(self.findings) - 5} more" if len(self.findings) > 5 else "")


def prose(text: str) -> str:
    """The prose of a statement or document: no tables, code, formulas or quoted keys."""
    text = _CODE_BLOCK.sub("CODE", text)
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("|")]
    return _INLINE.sub("§", "\n".join(lines))


# An article is never followed by these: "a is", "a and" is an index letter or a name.
_NOT_NOUN = frozenset({"is", "are", "was", "were", "be", "and", "or", "to", "in", "of", "on",
                       "at", "by", "for", "with", "from", "has", "have", "can", "must", "may",
                       "will", "the", "as", "if", "than", "so", "nor", "but"})
_ACRONYM = re.compile(r"^[A-Z][A-Z&/0-9-]*[A-Z0-9]\b")


@lru_cache(maxsize=8192)
def _expected_article(word: str) -> str:
    if _ACRONYM.match(word):  # read letter by letter: "an R&D project", "a KPI"
        return "an" if word[0] in _VOWEL_LETTERS else "a"
    return str(_ENGINE.a(word)).split(" ", 1)[0].lower()


@lru_cache(maxsize=8192)
def _is_plural(word: str) -> bool:
    if word in _NOT_PLURAL or len(word) <= 3 or not word.endswith("s"):
        return False
    single = _ENGINE.singular_noun(word)
    return isinstance(single, str) and single != word


def check_language(text: str, names: frozenset[str] = frozenset()) -> LanguageReport:
    """The language findings of ``text`` (``names``: proper names the text may contain,
    never judged as words)."""
    rep = LanguageReport()
    body = prose(text)
    add = rep.findings.append
    for m in _ARTICLE.finditer(body):
        art, word = m.group(1).lower(), m.group(2)
        if word in names or m.group(1) in names or word in _NOT_NOUN:
            continue  # a name's sound is its own; "A" a name; "a is": a letter
        if art != _expected_article(word):
            add(Finding("article", m.group(0)))
    for rx, code in ((_Y_PLURAL, "plural"), (_SIBILANT, "plural")):
        for m in rx.finditer(body):
            if m.group(0) not in names and m.group(0) not in _NOT_PLURAL:
                add(Finding(code, m.group(0)))
    for m in _PER.finditer(body):
        if _is_plural(m.group(1)):
            add(Finding("per-plural", m.group(0)))
    for m in _ONE.finditer(body):
        if m.group(1) not in _VERBS_S and _is_plural(m.group(1)):
            add(Finding("number-agreement", m.group(0)))
    for m in _REPEAT.finditer(body):
        if m.group(1).lower() not in _REPEAT_OK and m.group(1) not in names:
            add(Finding("repeated-word", m.group(0)))
    for m in _CAPITAL.finditer(body):
        add(Finding("capital-inside", m.group(0)))
    sentences = re.split(r"(?<=[.!?])\s+", body)
    for k, s in enumerate(sentences):
        if s.startswith("Otherwise") and not (k and re.search(r"\bif\b", sentences[k - 1],
                                                              re.I)):
            add(Finding("otherwise-first", s[:60]))
    for m in _SPACING.finditer(body):
        if "\n" not in m.group(0):
            add(Finding("spacing", m.group(0)))
    return rep


# What a client describing a situation never says: a modeller's devices and the phrasing of
# specification sheets.
ARTEFACTS = re.compile(
    r"big[- ]?m\b|sub-?tours?|\bposition\b|LP relaxation|free in sign|decision variables?|"
    r"\bbinary\b|\b0/1\b|\bslack\b|defined only where|It is required that|"
    r"\bindex\b(?! points)|shortfall of:|\bsubject to\b", re.I)


def artefacts(text: str) -> list[str]:
    """The modelling artefacts a statement shows (``big-M``, ``binary``, ``slack``...)."""
    return [m.group(0) for m in ARTEFACTS.finditer(text)]
