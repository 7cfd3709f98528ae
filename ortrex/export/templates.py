"""Chat templates as MindSpeed-LLM renders them: ``deepseek4`` (chat and thinking) and
``deepseek3``; per-turn truncation; input ids and labels (-100 over prompts).

``deepseek4`` renders each turn's source and target as text and tokenizes each with
``add_special_tokens=False``; ``deepseek3`` (the older LlamaFactory ``Template``) tokenizes each
element separately, with the BOS and EOS tokens as ids.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ortrex.export.errors import ExportError
from ortrex.export.tokenizers import Tok

PROMPT_TYPES = ("deepseek4", "deepseek3")
IGNORE = -100
BOS, EOS = "<｜begin▁of▁sentence｜>", "<｜end▁of▁sentence｜>"
USER, ASSISTANT = "<｜User｜>", "<｜Assistant｜>"
THINK, END_THINK = "<think>", "</think>"
_INLINE = re.compile(r"^\s*<think>\s*(.*?)\s*</think>\s*", re.S)


@dataclass(frozen=True)
class Turn:
    """One user message (with the system text before the first) and its assistant reply."""

    user: str
    content: str
    reasoning: str | None = None


@dataclass(frozen=True)
class Example:
    """Token ids and labels of one sample."""

    input_ids: list[int]
    labels: list[int]
    truncated: bool = False


def split_reasoning(content: str, reasoning: str | None = None) -> tuple[str, str | None]:
    """(content, reasoning): an inline leading ``<think>...</think>`` is parsed out, all
    whitespace after ``</think>`` dropped (as MindSpeed does)."""
    m = _INLINE.match(content)
    if m:
        return content[m.end():], reasoning if reasoning is not None else m.group(1)
    return content, reasoning


def conversation(messages: Sequence[dict[str, Any]]) -> tuple[str | None, list[Turn]]:
    """(system, turns) of OpenAI-style messages; ``ExportError`` for a shape MindSpeed
    filters out (roles not alternating user/assistant, no final assistant reply) or tools."""
    msgs = list(messages)
    system = None
    if msgs and msgs[0].get("role") in ("system", "developer"):
        system = str(msgs[0].get("content") or "")
        msgs = msgs[1:]
    if not msgs or len(msgs) % 2:
        raise ExportError("messages must alternate user/assistant and end with an assistant "
                          "reply")
    turns = []
    for k in range(0, len(msgs), 2):
        u, a = msgs[k], msgs[k + 1]
        if u.get("role") != "user" or a.get("role") != "assistant":
            raise ExportError(f"message {k + 1 + (system is not None)}: expected a user then an "
                              f"assistant message, got {u.get('role')!r}, {a.get('role')!r}")
        if a.get("tool_calls") or u.get("tool_calls") or "tools" in u:
            raise ExportError("tool calls are not supported by this exporter")
        for m in (u, a):
            if not isinstance(m.get("content"), str):
                raise ExportError(f"message content must be text, got "
                                  f"{type(m.get('content')).__name__}")
        content, reasoning = split_reasoning(a["content"], a.get("reasoning_content"))
        turns.append(Turn(u["content"], content, reasoning))
    return system, turns


# ---------------------------------------------------------------- rendering
@dataclass(frozen=True)
class Rendering:
    """The texts a conversation tokenizes to (each with ``add_special_tokens=False``), and how
    their ids assemble into (source, target) pairs; split so a whole chunk of conversations
    can be encoded in one batch."""

    prompt_type: str
    texts: list[str]

    def pairs(self, tok: Tok, ids: list[list[int]]) -> list[tuple[list[int], list[int]]]:
        """(source ids, target ids) per turn from the ids of ``texts``."""
        if self.prompt_type == "deepseek4":
            return [(ids[i], ids[i + 1]) for i in range(0, len(ids), 2)]
        assert tok.bos_id is not None and tok.eos_id is not None
        out = []
        for k in range(0, len(ids), 3):
            sys_ids, user_ids, content_ids = ids[k], ids[k + 1], ids[k + 2]
            src = ([tok.bos_id, *sys_ids] if k == 0 else []) + user_ids
            out.append((src, [*content_ids, tok.eos_id]))
        return out


def render(tok: Tok, prompt_type: str, system: str | None, turns: list[Turn],
           thinking: bool = False) -> Rendering:
    """The texts of a conversation under ``prompt_type``."""
    texts: list[str] = []
    if prompt_type == "deepseek4":
        last = len(turns) - 1
        for k, t in enumerate(turns):
            src = (BOS + (system or "")) if k == 0 else ""
            think_here = thinking and k == last  # earlier turns drop their reasoning
            src += USER + t.user + ASSISTANT + (THINK if think_here else END_THINK)
            tgt = ((t.reasoning or "") + END_THINK if think_here else "") + t.content + EOS
            texts += [src, tgt]
    elif prompt_type == "deepseek3":
        if thinking:
            raise ExportError("--enable-thinking applies to deepseek4 only")
        if tok.bos_id is None or tok.eos_id is None:
            raise ExportError("deepseek3 needs a tokenizer with BOS and EOS tokens")
        # The older Template tokenizes each element alone; BOS and EOS go in as ids.
        for k, t in enumerate(turns):
            texts += [(system or "") if k == 0 else "", USER + t.user + ASSISTANT, t.content]
    else:
        raise ExportError(f"unknown prompt type {prompt_type!r}; expected one of "
                          f"{', '.join(PROMPT_TYPES)}")
    return Rendering(prompt_type, texts)


def encode_pairs(tok: Tok, prompt_type: str, system: str | None, turns: list[Turn],
                 thinking: bool = False) -> list[tuple[list[int], list[int]]]:
    """(source ids, target ids) per turn, untruncated."""
    r = render(tok, prompt_type, system, turns, thinking)
    return r.pairs(tok, tok.encode_batch(r.texts, special=False))


# ---------------------------------------------------------------- truncation
def infer_seqlen(source_len: int, target_len: int, cutoff: int) -> tuple[int, int]:
    """LlamaFactory's rule: cut the source if the target is small, the target if the source is
    small, both in proportion otherwise."""
    if target_len * 2 < cutoff:
        max_target = cutoff
    elif source_len * 2 < cutoff:
        max_target = cutoff - source_len
    else:
        max_target = int(cutoff * (target_len / (source_len + target_len)))
    new_target = min(max_target, target_len)
    new_source = min(max(cutoff - new_target, 0), source_len)
    return new_source, new_target


def infer_max_len(source_len: int, target_len: int, max_len: int,
                  reserved_label_len: int = 1) -> tuple[int, int]:
    """The older LlamaFactory 0.8.2 rule (``deepseek3``)."""
    max_target = int(max_len * (target_len / (source_len + target_len)))
    max_target = max(max_target, reserved_label_len)
    max_source = max_len - min(max_target, target_len)
    return max_source, max_target


def truncate(pairs: list[tuple[list[int], list[int]]], prompt_type: str, cutoff_len: int
             ) -> tuple[list[tuple[list[int], list[int]]], bool]:
    """Pairs cut turn by turn to the template's budget; and whether anything was cut."""
    out, total, cut = [], 0, False
    budget = cutoff_len - 1 if prompt_type == "deepseek4" else cutoff_len
    for src, tgt in pairs:
        if total >= budget:
            cut = True
            break
        if prompt_type == "deepseek4":
            s, t = infer_seqlen(len(src), len(tgt), budget - total)
        else:
            s, t = infer_max_len(len(src), len(tgt), budget - total)
        cut |= s < len(src) or t < len(tgt)
        out.append((src[:s], tgt[:t]))
        total += len(src[:s]) + len(tgt[:t])
    return out, cut


def assemble(pairs: list[tuple[list[int], list[int]]], prompt_type: str, cutoff_len: int
             ) -> Example:
    """Input ids and labels of truncated pairs (-100 over the sources)."""
    cut_pairs, cut = truncate(pairs, prompt_type, cutoff_len)
    ids: list[int] = []
    labels: list[int] = []
    for src, tgt in cut_pairs:
        ids += src + tgt
        labels += [IGNORE] * len(src) + tgt
    return Example(ids, labels, cut)


def encode_example(tok: Tok, messages: Sequence[dict[str, Any]], prompt_type: str = "deepseek4",
                   thinking: bool = False, cutoff_len: int = 100_000) -> Example:
    """Input ids and labels of one conversation, as MindSpeed-LLM's instruction handler."""
    system, turns = conversation(messages)
    return assemble(encode_pairs(tok, prompt_type, system, turns, thinking), prompt_type,
                    cutoff_len)
