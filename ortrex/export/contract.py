"""The SFT contract an example must meet before it is exported: messages MindSpeed accepts
(system, then alternating user / assistant turns ending with an answer), one user turn and one
answer, exactly one Python block (the program that was validated), no placeholder text, and
reasoning only in the thinking channel (``reasoning_content``, which the ``deepseek4`` template
renders between ``<think>`` and ``</think>`` with ``--enable-thinking``) when the example has
thinking, none when it has not."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ortrex.export.errors import ExportError
from ortrex.export.templates import END_THINK, THINK, conversation, render

_FENCE = re.compile(r"```[ \t]*(?:python3?|py)?[ \t]*\n(.*?)```", re.S | re.I)
# What a finished answer never holds (T-Rex's quality gate, plus our own leftovers).
_UNFINISHED = re.compile(r"\b(?:TODO|TBD|FIXME|placeholder|lorem ipsum)\b|\bN/A\b|"
                         r"\)Skip|Skip the rest|\{[a-z_]+\}", re.I)


def sft_contract(messages: Sequence[dict[str, Any]], program: str | None = None,
                 thinking: bool = False) -> list[str]:
    """What is wrong with an example, one line each (empty: it meets the contract)."""
    try:
        _, turns = conversation(messages)
    except ExportError as exc:
        return [str(exc)]
    out = []
    if len(turns) != 1:
        out.append(f"expected one question and one answer, got {len(turns)} turns")
    t = turns[-1]
    if not t.user.strip():
        out.append("the user turn is empty")
    blocks = _FENCE.findall(t.content)
    if len(blocks) != 1:
        out.append(f"the answer holds {len(blocks)} Python blocks, expected 1")
    elif program is not None and blocks[0].strip() != program.strip():
        out.append("the answer's program is not the one that was validated")
    if thinking:
        if not (t.reasoning or "").strip():
            out.append("no reasoning in the thinking channel")
        elif "```" in (t.reasoning or ""):
            out.append("code in the reasoning")
        else:
            target = render(None, "deepseek4", None, turns, thinking=True).texts[-1]  # type: ignore[arg-type]
            if not target.startswith(t.reasoning or "") or END_THINK not in target:
                out.append("the reasoning does not render in the thinking channel")
    elif t.reasoning:
        out.append("reasoning in an example without thinking")
    if THINK in t.content or END_THINK in t.content:
        out.append("thinking tags in the answer's content")
    # Placeholders are looked for in prose only (code has its own braces and names).
    for where, text in (("answer", _FENCE.sub("", t.content)), ("reasoning", t.reasoning or "")):
        m = _UNFINISHED.search(text)
        if m:
            out.append(f"unfinished text in the {where}: {m.group(0)!r}")
    return out
