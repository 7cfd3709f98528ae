"""Corpus-quality measures of problem statements, comparable across corpora.

Every measure maps numbers to one token (``<num>``), and leaves markdown table rows out (a
table row holds data, not language: ``| <num> | <num> |`` is neither variety nor its lack),
so that data neither passes for variety nor counts against it:

* **distinct-n**: distinct n-grams over all n-grams of a seeded sample of statements worth
  ``tokens`` tokens (n-grams never cross statements), the mean over ``DRAWS`` seeded samples
  (one sample of a corpus whose long statements run to thousands of tokens holds a few dozen
  of them, and its figure moves by +-0.15 from one seed to the next);
* **vocabulary**: distinct tokens in a sample, the mean over the same draws;
* **unique openings**: distinct first sentences over statements;
* **shared prefixes**: share of statements whose first 15 tokens another statement of the same
  group (family) starts with too;
* **skeletons per 100 sentences**: sentences reduced to their shape (function words and
  punctuation kept, other words and numbers as slots); distinct shapes per 100 sentences in a
  seeded draw of 1,500 (a fixed draw keeps corpora of any size comparable);
* **length**: token-count percentiles;
* **declares variables**: share of statements that spell out the decision variables (their
  names, types or bounds), which a client describing a situation never does.
"""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ortrex.store.db import Store

_TOKEN = re.compile(r"\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?%?|[A-Za-z_][\w'’-]*|[^\w\s]")
_NUMBER = re.compile(r"^\d")
_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z*#(\"'`-])|\n+")
_MARKUP = re.compile(r"^\s*(?:#+|\*\*[^*]+\*\*:?|[-*]|\d+[.)]|\|)\s*")
_DECLARES = re.compile(
    r"\bdecision variables?\b|\b(?:a |an )?(?:yes/no \(0/1\)|binary|integer|continuous|"
    r"non-?negative|whole-number) (?:choice|variable|quantity|decision)s?\b|"
    r"\bfree in sign\b|\blet [a-z]\w{0,3}(?:_\{?\w+\}?)? (?:be|denote)\b|"
    r"\bdefined only where\b|\bvariables?\s*:", re.I)
PREFIX_TOKENS = 15
MIN_SENTENCE_TOKENS = 4
SKELETON_SAMPLE = 1500  # sentences drawn for the skeleton count (NL4OPT has about 1,600)
DRAWS = 8  # seeded samples the n-gram measures are averaged over
_TABLE_ROW = re.compile(r"^\s*\|.*$\n?", re.M)


def tokens(text: str) -> list[str]:
    """Lower-cased word and punctuation tokens, every number as ``<num>``."""
    return ["<num>" if _NUMBER.match(t) else t.lower() for t in _TOKEN.findall(text)]


def prose(text: str) -> str:
    """A statement without its markdown table rows (the text the n-gram measures read)."""
    return _TABLE_ROW.sub("", text)


def sentences(text: str) -> list[str]:
    """The sentences of a text (lines and sentence ends split; list and table marks gone)."""
    out = []
    for part in _SENTENCE.split(text):
        if part.lstrip().startswith("|"):  # a table row holds data, not a sentence
            continue
        s = _MARKUP.sub("", part).strip()
        if len(tokens(s)) >= MIN_SENTENCE_TOKENS:  # not a heading, greeting or signature
            out.append(s)
    return out


# Function words stay in a skeleton; every other word is a slot.
_FUNCTION = frozenset("""\
a an the and or but nor if then else otherwise when while where which who
whom whose that this these those there here it its it's they them their we our us you your i me
my he she his her is are was were be been being has have had do does did can could may might
must shall should will would of in on at by for from to into onto over under with without
within between among per each every all any some no not only both either neither more most
less least than as so such too very also just up down out off about after before during until
since through across along""".split())  # noqa: SIM905


def skeleton(sentence: str) -> str:
    """A sentence's shape: function words and punctuation kept, every other word a slot
    (``w``), numbers ``n``; repeated slots collapse, so lists of any length look alike."""
    out: list[str] = []
    for w in _TOKEN.findall(sentence):
        low = w.lower()
        slot = "n" if _NUMBER.match(w) else (low if low in _FUNCTION or not w[0].isalnum()
                                              else "w")
        if slot in ("w", "n") and out and out[-1] == slot:
            continue
        out.append(slot)
    return " ".join(out)


def declares_variables(text: str) -> bool:
    """Whether a statement spells out decision variables (names, types or bounds)."""
    return bool(_DECLARES.search(text))


def _opening(text: str) -> str:
    for s in sentences(text):
        return " ".join(tokens(s))
    return ""


def _sample(texts: Sequence[str], budget: int, rng: random.Random,
            tables: bool = False) -> list[list[str]]:
    order = list(range(len(texts)))
    rng.shuffle(order)
    out, n = [], 0
    for k in order:
        toks = tokens(texts[k] if tables else prose(texts[k]))
        out.append(toks)
        n += len(toks)
        if n >= budget:
            break
    return out


def distinct_n(docs: Sequence[Sequence[str]], n: int) -> float:
    """Distinct n-grams over all n-grams (within each token list)."""
    grams = [tuple(d[k:k + n]) for d in docs for k in range(len(d) - n + 1)]
    return len(set(grams)) / len(grams) if grams else 0.0


@dataclass
class Quality:
    """The measures of one corpus."""

    statements: int
    sample_tokens: int
    distinct_3: float
    distinct_4: float
    vocabulary: int
    unique_openings: float
    shared_prefixes: float
    skeletons_per_100: float
    length_p10: int
    length_p50: int
    length_p90: int
    declares_variables: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly."""
        return asdict(self)


def measure(texts: Sequence[str], groups: Sequence[str] | None = None, tokens_budget: int = 25_000,
            seed: int = 0, tables: bool = False) -> Quality:
    """The measures of ``texts`` (``groups``: each text's family, for shared prefixes;
    ``tables``: read table rows too, for comparison with the figures of earlier issues)."""
    rng = random.Random(seed)
    samples = [_sample(texts, tokens_budget, rng, tables) for _ in range(DRAWS)]
    sample_tokens = sum(len(d) for d in samples[0])
    vocab = round(sum(len({t for d in s for t in d}) for s in samples) / DRAWS)
    d3, d4 = (sum(distinct_n(s, n) for s in samples) / DRAWS for n in (3, 4))
    openings = [_opening(t) for t in texts]
    unique = len(set(openings)) / max(len(texts), 1)
    groups = list(groups) if groups is not None else [""] * len(texts)
    prefixes: dict[tuple[str, tuple[str, ...]], int] = {}
    keys = []
    for text, g in zip(texts, groups, strict=True):
        key = (g, tuple(tokens(text)[:PREFIX_TOKENS]))
        keys.append(key)
        prefixes[key] = prefixes.get(key, 0) + 1
    shared = sum(1 for k in keys if prefixes[k] > 1) / max(len(texts), 1)
    all_sentences = [s for t in texts for s in sentences(t)]
    rng.shuffle(all_sentences)
    drawn = all_sentences[:SKELETON_SAMPLE]
    per_100 = 100 * len({skeleton(s) for s in drawn}) / max(len(drawn), 1)
    lengths = sorted(len(tokens(t)) for t in texts) or [0]

    def pct(q: float) -> int:
        return lengths[min(len(lengths) - 1, int(q * (len(lengths) - 1) + 0.5))]

    return Quality(len(texts), sample_tokens, round(d3, 3), round(d4, 3), vocab,
                   round(unique, 3), round(shared, 3), round(per_100, 1),
                   pct(0.1), pct(0.5), pct(0.9),
                   round(sum(map(declares_variables, texts)) / max(len(texts), 1), 3))


# The goals of a template-only corpus (issue 13): (measure, at least / at most, value).
GOALS: tuple[tuple[str, str, float], ...] = (
    ("distinct_4", ">=", 0.55), ("unique_openings", ">=", 0.80),
    ("skeletons_per_100", ">=", 60.0), ("vocabulary", ">=", 1500),
    ("declares_variables", "<=", 0.20))
LABELS = {"statements": "statements", "sample_tokens": "tokens in the sample",
          "distinct_3": "distinct-3", "distinct_4": "distinct-4",
          "vocabulary": "vocabulary per 25k tokens", "unique_openings": "unique openings",
          "shared_prefixes": "shared 15-token prefixes (within a family)",
          "skeletons_per_100": "sentence skeletons per 100 sentences",
          "length_p10": "length p10 (tokens)", "length_p50": "length p50 (tokens)",
          "length_p90": "length p90 (tokens)",
          "declares_variables": "statements declaring variables"}


def meets(q: Quality) -> dict[str, bool]:
    """Which goals a corpus meets."""
    d = q.to_dict()
    return {m: (d[m] >= v if op == ">=" else d[m] <= v) for m, op, v in GOALS}


def goal_text(metric: str) -> str:
    """``>= 0.55`` for a measure with a goal, else empty."""
    for m, op, v in GOALS:
        if m == metric:
            return f"{op} {v:g}"
    return ""


def store_sample(store: Store, limit: int = 2000, seed: int = 0) -> list[dict[str, Any]]:
    """A seeded sample of the store's accepted statements (one per instance and form), each
    with its family, layout, form, size band and whether a mutated model or an import made it.
    Bounded, so the measure costs the same on any store."""
    df = store.query(
        "SELECT statement, family, layout, form, size, mutated, external FROM (SELECT "
        "any_value(d.statement) AS statement, "
        "any_value(coalesce(i.family, 'external')) AS family, "
        "any_value(split_part(coalesce(d.template, ''), '/', 1)) AS layout, d.form AS form, "
        "any_value(coalesce(json_extract_string(s.descriptors, '$.size'), '?')) AS size, "
        # a child of a mutation repeats most of its parent's telling, so the report counts them
        "bool_or(m.child_id IS NOT NULL) AS mutated, bool_or(i.family IS NULL) AS external, "
        "hash(d.instance_id || d.form || ?) AS k FROM documents d "
        "LEFT JOIN instances i ON i.id = d.instance_id "
        "LEFT JOIN semantic_models s ON s.id = d.semantic_id "
        "LEFT JOIN (SELECT DISTINCT child_id FROM lineage WHERE relation = 'mutated') m "
        "ON m.child_id = d.semantic_id WHERE d.status = 'accepted' AND "
        "d.statement IS NOT NULL AND d.kind IN ('cpt', 'sft') GROUP BY d.instance_id, d.form) "
        "ORDER BY k LIMIT ?",
        [str(seed), limit])
    return df.to_dicts()


def store_statements(store: Store, limit: int = 2000, seed: int = 0) -> tuple[
        list[str], list[str], list[str]]:
    """A seeded sample of the store's accepted statements (one per instance and form): their
    texts, families and layouts (``store_sample`` without the rest)."""
    rows = store_sample(store, limit, seed)
    return ([r["statement"] for r in rows], [r["family"] for r in rows],
            [r["layout"] for r in rows])
