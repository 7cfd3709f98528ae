"""The language gate: grammar and morphology checks of rendered prose, through ``inflect``
(articles, plurals, singulars) and patterns for the failures template engines make.

Each finding has a code (the document's rejection detail names it). Every code is a *family*
of failures, found by its pattern rather than by the example that revealed it:

* ``article``: ``a`` / ``an`` that does not fit the next word (``a edge``, ``an chiller``);
* ``plural``: a plural built by concatenation (``technologys``, ``dishs``, ``boxs``,
  ``Dependencys``) or a plural of a plural (``boltss``, ``citiess``, ``classs``);
* ``per-plural``: a rate over a plural (``USD per tonnes``);
* ``number-agreement``: ``1`` with a plural noun (``1 tonnes``, ``1 priority points``);
* ``repeated-word``: the same word twice (``guideline guideline``);
* ``collision``: two function words that cannot follow each other, where a template lost the
  noun between them (``free for in``, ``the of``, ``a the``, ``cost of .``);
* ``capital-inside``: a capitalised article inside a sentence (``required that A chiller``);
* ``lowercase-i``: the pronoun I written ``i`` (``i need``, ``i'm``);
* ``parenthetical``: a parenthesis between a function word and its phrase
  (``are (Poggetto and Riposto) two sites``);
* ``punctuation``: doubled punctuation (``etc..``, ``,,``, ``:.``, ``?.``); an ellipsis is fine;
* ``glued-number``: a number right after a name ending in digits (``WO1 1``, ``Q1 187``),
  which reads as one number;
* ``pronoun-agreement``: ``it`` standing for a plural (``the stock bars used as low as it can
  be``), or ``they`` for a singular;
* ``repeated-sentence``: the same sentence twice in one text;
* ``otherwise-first``: an ``Otherwise ...`` sentence with no ``if`` before it;
* ``spacing``: a space before punctuation, or a doubled space.

Only prose is read: tables, code blocks, inline code and quoted keys are left out, but the
comments of code blocks are read for malformed plurals (a comment is prose a model learns).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache

import inflect

_ENGINE = inflect.engine()
_VOWEL_LETTERS = set("AEFHILMNORSX")
_CODE_BLOCK = re.compile(r"```.*?```|\$\$.*?\$\$|\$[^$\n]+\$", re.S)
_FENCED = re.compile(r"```[^\n]*\n(.*?)```", re.S)
_COMMENT = re.compile(r"#[ \t]*([^\n]*)")
_INLINE = re.compile(r"`[^`\n]*`|\"[^\"\n]*\"")
_ARTICLE = re.compile(r"\b(a|an|A|An) ([A-Za-z][\w&/-]*)")
# Naive pluralisation: "-y" + "s" after a consonant, "s" after a sibilant, and "s" on a word
# that already ends in a plural "s" (a consonant before "ss" never ends an English word;
# "iess" and "sss" are a plural's plural). Any case, so headings are read too.
_NAIVE_PLURAL = re.compile(r"\b[A-Za-z]*[a-z](?:[b-df-hj-np-tv-xz]ys|(?:sh|ch|x|z)s|"
                           r"[b-df-hj-np-rtv-xz]ss|iess|sss|(?:x|sh|z)ess)\b")
_PER = re.compile(r"\bper ([a-z][a-z-]+)\b")
# "1" and the noun phrase after it: "1 tonnes", "1 priority points".
_ONE = re.compile(r"(?<![\d.,])\b1 ([a-z][a-z-]+)(?: ([a-z][a-z-]+))?")
_REPEAT = re.compile(r"\b([A-Za-z]{2,}) +\1\b", re.I)
_CAPITAL = re.compile(r"\b(?:that|than|which|where|because|if|and|or) (?:A|An|The) [a-z]")
_SPACING = re.compile(r"\S +[,;:.!?](?:\s|$)|\S  +\S")
# Function words between which a template's noun went missing ("free for in Q1").
_PREPOSITIONS = frozenset({"for", "in", "of", "to", "at", "on", "by", "with", "from", "per",
                           "into", "onto", "during"})
_CONJUNCTIONS = frozenset({"and", "or", "but", "nor"})
_COPULAS = frozenset({"is", "are", "was", "were"})
_ARTICLES = frozenset({"the", "a", "an"})
_FUNCTION = _PREPOSITIONS | _ARTICLES | _CONJUNCTIONS | _COPULAS
_WORD_PAIR = re.compile(
    rf"\b(?P<a>{'|'.join(sorted(_PREPOSITIONS | _ARTICLES, key=len, reverse=True))}) "
    rf"(?P<b>{'|'.join(sorted(_FUNCTION, key=len, reverse=True))})\b(?![-/'’\[_])", re.I)
_NO_NOUN = re.compile(r"\b(?:the|per) ?[,.;!?](?!\w)", re.I)  # "the .", "costs per ."
# "between X and to Y": a pair's second end with a preposition of its own ("and to" alone is
# fine: "to Oslo and to Bergen", "from Oslo and from Bergen").
# A bound word before a name and its number: a lead ("carries at most {items}") whose entries
# name their element ("at most Lane1 up to 15", "needs at least Protein 50 g").
_BOUND_NAME = re.compile(r"\b(?:at (?:most|least)|up to) [A-Z][\w-]* (?:up to |at )?\(?\d")
_PAIR_PREPOSITION = re.compile(r"\bbetween [^.;:,()]{1,40}? and (?:to|from|at|of|in)\b", re.I)
# Preposition pairs English allows ("log in to", "fit in with"); "on" is often a particle.
_PAIR_OK = frozenset({("in", "on"), ("in", "to"), ("in", "with")})
# Prepositions that open a fixed phrase, which may follow another ("of at least 5").
_PHRASE_START = {"at": re.compile(r" (?:least|most|all|once|first|random|any|no|times)\b"),
                 "in": re.compile(r" (?:total|all|full|part|turn|advance|order|time)\b"),
                 "on": re.compile(r" (?:average|top|time|hand)\b"),
                 "by": re.compile(r" (?:far|then|now)\b")}
# The pronoun I written "i": at a sentence's or clause's start, or contracted ("i'm"); an
# index letter ("where i is a product", "for i in") is followed by one of _INDEX_NEXT.
_LOWER_I = re.compile(r"(?<![\w'’.-])i(?P<contracted>['’](?:m|ve|d|ll))?(?![\w'’.-])")
_INDEX_NEXT = frozenset({"is", "in", "and", "or", "to", "of", "from", "ranges", "runs",
                         "denotes", "indexes", "over", "the", "with", "at", "on", "by", "for",
                         "than", "as", "be", "belongs", "equals", "th", "j", "k"})
_PRONOUN_AFTER = frozenset({"and", "but", "so", "that", "if", "when", "because", "as",
                            "what", "than", "then", "while", "before", "after", "now",
                            "where", "since", "unless", "until", "hi", "hello", "why",
                            "how", "which", "who", "yes", "no", "also", "here", "there"})
# A parenthesis right after a word that cannot end a phrase ("are (A and B) two sites").
# (After a preposition a bracket is often an index tuple: "107 for (Beans, Jan)".)
_PAREN = re.compile(r"\b(?P<w>the|a|an|is|are|was|were|be|our|their|its|my|your|these|those)"
                    r" \((?P<in>[^()\n]{1,200})\) (?=\w)", re.I)
_DOUBLE_PUNCT = re.compile(r"(?<![.\d])\.\.(?![.\d])|…\.|[,;:] ?[,;:.!?]|[.!?] ?[,;:]"
                           r"(?!\d)|[!?] ?\.")
_ABBREVIATION = re.compile(r"\b(?:e\.g|i\.e|etc|vs|approx|incl|no|cf|al)\.$", re.I)
_GLUED = re.compile(r"\b(?P<code>[A-Za-z][A-Za-z_]*\d+) (?P<num>[-+]?\d[\d,]*(?:\.\d+)?)\b")
_COMPARISON = re.compile(r"\bthe (?P<np>[a-z][\w -]{0,80}?) as (?:\w+ ){0,2}as "
                         r"(?P<pro>it|they) (?:can|could|will|may|might) be\b", re.I)
# "no more than as many", "not less than as much": a bound swapped into an equal comparison.
_DOUBLE_COMPARISON = re.compile(r"\b(?:more|less|fewer) than as (?:many|much)\b", re.I)
_PHRASE_END = re.compile(r"\b(?:of|per|in|for|from|on|at|plus|net|over|across|between|"
                         r"among|to|by|with)\b")
_PARTICIPLES = frozenset({"sent", "kept", "made", "built", "cut", "run", "held", "bought",
                          "sold", "paid", "chosen", "taken", "given", "driven", "done", "spent",
                          "left", "lost", "set", "put", "met", "won", "shown", "drawn", "grown",
                          "hired", "needed"})
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
# Plural-looking words that are singular (or fine after "per"), and words inflect misreads.
_NOT_PLURAL = frozenset({"series", "species", "news", "analysis", "basis", "bus", "gas",
                         "lens", "status", "process", "class", "mass", "pass", "glass",
                         "business", "address", "campus", "bonus", "virus", "plus", "focus",
                         "canvas", "chassis", "access", "axis", "thesis", "corpus", "census",
                         "genus", "minus", "alias", "atlas", "iris", "loss", "ms", "cms",
                         "means", "stands",
                         # "-chs" said "-ks": real plurals
                         "epochs", "stomachs", "monarchs", "techs", "lochs", "matriarchs",
                         "patriarchs", "eunuchs"})
_PRONOUNS = frozenset({"it", "they", "we", "you", "he", "she", "this", "that", "these",
                       "those", "there", "which", "who"})
_REPEAT_OK = frozenset({"that", "had"})  # "that that", "had had": grammatical
# Verbs in -s after a numbered name ("job 1 comes first"): not a plural after "1".
_VERBS_S = frozenset("""comes goes needs takes starts ends runs waits has is gets uses holds
costs means makes leaves enters serves covers ships sends receives carries brings gives pays
works stays follows precedes requires depends finishes begins opens closes produces yields
supplies demands reaches visits feeds buys sells offers lasts weighs counts
equals""".split())  # noqa: SIM905


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

    @property
    def codes(self) -> set[str]:
        """The codes of the findings."""
        return {f.code for f in self.findings}

    def summary(self) -> str:
        """The first findings."""
        return "; ".join(str(f) for f in self.findings[:5]) + (
            f"; and {len(self.findings) - 5} more" if len(self.findings) > 5 else "")


def prose(text: str) -> str:
    """The prose of a statement or document: no tables, code, formulas or quoted keys."""
    text = _CODE_BLOCK.sub("CODE", text)
    lines = [ln for ln in text.splitlines() if not ln.lstrip().startswith("|")]
    return _INLINE.sub("§", "\n".join(lines))


def comments(text: str) -> str:
    """The comments of a text's fenced code blocks, one per line."""
    return "\n".join(m.group(1) for block in _FENCED.finditer(text)
                     for m in _COMMENT.finditer(_INLINE.sub("§", block.group(1))))


# An article is never followed by these: "a is", "a and" is an index letter or a name.
_NOT_NOUN = frozenset({"is", "are", "was", "were", "be", "and", "or", "to", "in", "of", "on",
                       "at", "by", "for", "with", "from", "has", "have", "can", "must", "may",
                       "will", "the", "as", "if", "than", "so", "nor", "but"})
_ACRONYM = re.compile(r"^[A-Z][A-Z&/0-9-]*[A-Z0-9]\b")


# Acronyms read as words, not letter by letter: "a MILP", "a MIP".
_SAID_AS_WORDS = frozenset({"MILP", "MIP", "MINLP", "MIQP", "MIQCP", "NASA", "UNESCO"})


@lru_cache(maxsize=8192)
def _expected_article(word: str) -> str:
    if word in _SAID_AS_WORDS:
        return "a"
    if _ACRONYM.match(word):  # read letter by letter: "an R&D project", "a KPI"
        return "an" if word[0] in _VOWEL_LETTERS else "a"
    return str(_ENGINE.a(word)).split(" ", 1)[0].lower()


@lru_cache(maxsize=8192)
def _is_plural(word: str) -> bool:
    if word in _NOT_PLURAL or len(word) <= 3 or not word.endswith("s"):
        return False
    single = _ENGINE.singular_noun(word)
    return isinstance(single, str) and single != word


def _head(phrase: str) -> str:
    """The head noun of a noun phrase: its last word before a preposition, past a trailing
    participle (``stock bars used`` -> ``bars``, ``number of bars`` -> ``number``)."""
    words = _PHRASE_END.split(phrase, maxsplit=1)[0].split()
    while len(words) > 1 and (words[-1].endswith("ed") or words[-1] in _PARTICIPLES):
        words.pop()
    return words[-1].lower() if words else ""


Add = Callable[[Finding], None]


def _naive_plurals(text: str, names: frozenset[str], add: Add) -> None:
    for m in _NAIVE_PLURAL.finditer(text):
        word = m.group(0)
        if word not in names and word.lower() not in _NOT_PLURAL:
            add(Finding("plural", word))


def _collisions(body: str, add: Add) -> None:
    for m in _WORD_PAIR.finditer(body):
        a, b = m.group("a").lower(), m.group("b").lower()
        if a == b:
            continue  # a doubled word is "repeated-word"'s
        if a in ("a", "an"):
            bad = b in _ARTICLES and m.group("a") != "A"  # "A" may be a name: "A the" rare
        elif a == "the":
            bad = True  # "the of", "the and", "the is": the noun is missing
        elif a == "on":
            bad = False  # a particle: "keep it on for an hour", "carries on from 6am"
        elif b in _PREPOSITIONS:
            # "for in", "of to"; "of at least", "for at most": a fixed phrase follows;
            # "accounted for on both sides": the first belongs to the verb before it
            before = re.search(r"(\w+)\W*$", body[max(0, m.start() - 30):m.start()])
            verb = before is not None and (before.group(1).lower().endswith("ed") or
                                           before.group(1).lower() in _PARTICIPLES)
            bad = (a, b) not in _PAIR_OK and not verb and not (
                b in _PHRASE_START and _PHRASE_START[b].match(body, m.end()))
        else:  # a preposition before an article, a conjunction or a verb: "for the" is fine
            bad = a in ("of", "per") and b in _CONJUNCTIONS  # "the cost of and"
        if bad:
            add(Finding("collision", m.group(0)))
    for m in _NO_NOUN.finditer(body):
        add(Finding("collision", m.group(0)))
    for m in _PAIR_PREPOSITION.finditer(body):
        add(Finding("collision", m.group(0)))
    for m in _BOUND_NAME.finditer(body):
        add(Finding("collision", m.group(0)))


def _lower_i(body: str, add: Add) -> None:
    for m in _LOWER_I.finditer(body):
        if m.group("contracted"):
            add(Finding("lowercase-i", m.group(0)))
            continue
        nxt = re.match(r" ([a-z]+)\b", body[m.end():])
        if nxt is None or nxt.group(1) in _INDEX_NEXT or (
                nxt.group(1).endswith("s") and nxt.group(1) != "was"):
            continue  # "product i,", "where i is", "after i ends": an index letter
        before = body[:m.start()].rstrip()
        prev = re.search(r"(\w+)\W*$", before)
        starts = not before or before[-1] in ".!?:;,(\n—" or (
            prev is not None and before[-1].isalpha() and prev.group(1).lower() in _PRONOUN_AFTER)
        if starts:
            add(Finding("lowercase-i", m.group(0) + nxt.group(0)))


def _parentheticals(body: str, add: Add) -> None:
    for m in _PAREN.finditer(body):
        inside = m.group("in")
        after = re.match(r"\w+", body[m.end():])
        if inside[:1].isdigit() or (after and after.group(0).lower() in _CONJUNCTIONS):
            continue  # a note ("spectrum of (1 means yes, 0 means no) and ...")
        # "the (optional) fee" is an aside; names or a list in brackets right after a verb
        # or an article, with the phrase they belong to still to come, are misplaced.
        # (A tuple names one index, "that is (Ganesh, Fezzano) with 0": commas, no "and".)
        if re.search(r"\b(?:and|or)\b", inside) or (inside[:1].isupper() and "," not in inside):
            add(Finding("parenthetical", m.group(0).strip()))


def _punctuation(body: str, add: Add) -> None:
    for m in _DOUBLE_PUNCT.finditer(body):
        if m.group(0)[0] == "." and m.group(0) != ".." and \
                _ABBREVIATION.search(body[max(0, m.start() - 8):m.start() + 1]):
            continue  # "e.g.," "etc.;": an abbreviation's full stop, then its punctuation
        add(Finding("punctuation", body[max(0, m.start() - 6):m.end()].strip()))


def _glued(body: str, add: Add) -> None:
    for m in _GLUED.finditer(body):
        after = body[m.end():m.end() + 2]
        if after[:1] in (":", "-", "/") and not after.startswith(": "):
            continue  # a time or a range ("Q1 10:30", "WO1 3-5")
        add(Finding("glued-number", m.group(0)))  # a name too: the two read as one number


def _comparisons(body: str, add: Add) -> None:
    for m in _DOUBLE_COMPARISON.finditer(body):
        add(Finding("double-comparison", m.group(0)))
    for m in _COMPARISON.finditer(body):
        head = _head(m.group("np"))
        if not head or not head.isalpha():
            continue
        plural = _is_plural(head) or head in ("people", "staff", "data")
        if (m.group("pro").lower() == "it") == plural:
            add(Finding("pronoun-agreement", m.group(0)))


def _norm(sentence: str) -> str:
    text = re.sub(r"^(?:[-*>#]+|\d+[.)])\s*", "", sentence.strip())  # a list mark or a heading
    return re.sub(r"[\W_]+", " ", re.sub(r"\bCODE\b|§", " ", text)).strip().lower()


def _repeated_sentences(body: str, add: Add) -> None:
    # A statement says each thing once. A document (code or formulas in it) quotes its
    # statement's sentences again in its walkthrough and formulation, so there a repeat
    # counts only inside one paragraph.
    blocks = re.split(r"\n\s*\n", body) if "CODE" in body else [body]
    for block in blocks:
        seen: set[str] = set()
        for s in _SENTENCE.split(block):
            key = _norm(s)
            if len(key.split()) < 4:
                continue  # a heading, a label or a short answer may recur
            if key in seen:
                add(Finding("repeated-sentence", s.strip()[:80]))
            seen.add(key)


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
    _naive_plurals(body, names, add)
    _naive_plurals(comments(text), names, add)
    for m in _PER.finditer(body):
        if _is_plural(m.group(1)):
            add(Finding("per-plural", m.group(0)))
    for m in _ONE.finditer(body):
        first, second = m.group(1), m.group(2)
        if first in _VERBS_S or first in _PRONOUNS or first in _PREPOSITIONS or \
                first in ("among", "between", "across", "apiece", "each"):
            continue  # "job 1 comes first", "with y at 1 it caps them"
        if _is_plural(first) or (second and second not in _VERBS_S and first not in _NOT_NOUN
                                 and not _is_plural(first) and _is_plural(second)
                                 and not first.endswith(("ly", "ing"))):
            add(Finding("number-agreement", m.group(0)))
    for m in _REPEAT.finditer(body):
        if m.group(1).lower() not in _REPEAT_OK and m.group(1) not in names:
            add(Finding("repeated-word", m.group(0)))
    _collisions(body, add)
    for m in _CAPITAL.finditer(body):
        if m.group(0).split(" ")[1] not in names:  # "C the largest and A the smallest"
            add(Finding("capital-inside", m.group(0)))
    _lower_i(body, add)
    _parentheticals(body, add)
    _punctuation(body, add)
    _glued(body, add)
    _comparisons(body, add)
    _repeated_sentences(body, add)
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
