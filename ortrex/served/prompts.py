"""Prompts: one template per benchmark with its output contract; zero-shot by default, k-shot
from a user-supplied pool retrieved with BM25, never showing an item itself or its paraphrase
twin."""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ortrex.benchmarks.base import BenchmarkError, Item

SYSTEM = ("You are an expert in operations research and mathematical optimization. You write "
          "correct, runnable Python with gurobipy.")

_SOLVE = """Formulate the optimization problem below and solve it with gurobipy.

Output contract:
- Reply with your reasoning, then exactly one fenced ```python code block (the last one counts).
- Build the model in a variable named `model`, call `model.optimize()`, and print the optimal \
objective as `OPTIMAL_OBJECTIVE: <value>`.{data}

Problem:
{question}
"""

DATA_FILE_NOTE = """
- The problem's data is in the file `data.json` in the working directory: read it with \
`json.load(open("data.json"))`; do not retype the data."""

_LP = """Formulate the optimization problem below with gurobipy, but do not solve it.

Output contract:
- Reply with your reasoning, then exactly one fenced ```python code block (the last one counts).
- Read the data from `data.json` in the working directory (`json.load(open("data.json"))`).
- Build the model in a variable named `model`, give every variable explicit lower and upper \
bounds, and write it with `model.write("model.lp")`. Do not call `model.optimize()`.

Problem:
{question}
"""

TEMPLATES = {"objective": _SOLVE, "lp": _LP}


def user_prompt(item: Item) -> str:
    """The user message of an item (its benchmark's template)."""
    if item.kind == "lp":
        return _LP.format(question=item.question.strip())
    return _SOLVE.format(question=item.question.strip(), data=DATA_FILE_NOTE if item.files else "")


def template_hash() -> str:
    """sha256 of the templates (recorded in the manifest)."""
    return hashlib.sha256(json.dumps([SYSTEM, _SOLVE, DATA_FILE_NOTE, _LP]).encode()).hexdigest()


@dataclass(frozen=True)
class Shot:
    """A worked example of the pool: a question and a good answer."""

    id: str
    question: str
    answer: str


_WORD = re.compile(r"[a-z0-9]+")


def _tokens(text: str) -> list[str]:
    return _WORD.findall(text.lower())


def _norm(text: str) -> str:
    return " ".join(_tokens(text))


class Pool:
    """A few-shot pool (JSONL with ``question`` and ``answer``, optional ``id``) and BM25 over
    its questions."""

    def __init__(self, path: Path) -> None:
        from rank_bm25 import BM25Okapi

        self.shots: list[Shot] = []
        try:
            lines = path.read_text(encoding="utf-8").splitlines()
        except OSError as exc:
            raise BenchmarkError(f"{path}: cannot read the few-shot pool ({exc.strerror})"
                                 ) from None
        for k, line in enumerate(lines, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
                self.shots.append(Shot(str(row.get("id", f"pool_{k}")), str(row["question"]),
                                       str(row["answer"])))
            except (ValueError, KeyError, TypeError) as exc:
                raise BenchmarkError(f"{path}:{k}: a pool line needs 'question' and 'answer' "
                                     f"({exc})") from None
        if not self.shots:
            raise BenchmarkError(f"{path}: the few-shot pool is empty")
        self.sha256 = hashlib.sha256(path.read_bytes()).hexdigest()
        self.norms = [_norm(s.question) for s in self.shots]
        self.bm25 = BM25Okapi([_tokens(s.question) or ["_"] for s in self.shots])

    def select(self, item: Item, k: int) -> list[Shot]:
        """The ``k`` most similar shots, excluding the item, its twin and any shot whose
        question is the item's question."""
        banned = {item.id, item.twin}
        own = _norm(item.question)
        scores = self.bm25.get_scores(_tokens(item.question) or ["_"])
        order = sorted(range(len(self.shots)), key=lambda i: (-scores[i], i))
        out = []
        for i in order:
            s = self.shots[i]
            if s.id in banned or self.norms[i] == own:
                continue
            out.append(s)
            if len(out) == k:
                break
        return out


def messages(item: Item, shots: list[Shot] | None = None) -> list[dict[str, Any]]:
    """The chat messages of an item (system, shots as earlier turns, the question)."""
    out: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}]
    for s in shots or []:
        shot = Item(item.benchmark, s.id, s.question, item.kind, files=item.files)
        out += [{"role": "user", "content": user_prompt(shot)},
                {"role": "assistant", "content": s.answer}]
    out.append({"role": "user", "content": user_prompt(item)})
    return out
