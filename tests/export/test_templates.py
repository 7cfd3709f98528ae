"""Chat templates reproduce MindSpeed-LLM's vectors (spec §3.2) token for token."""

from __future__ import annotations

import pytest

from ortrex.export.errors import ExportError
from ortrex.export.templates import (
    encode_example,
    encode_pairs,
    infer_seqlen,
    split_reasoning,
    truncate,
)
from ortrex.export.tokenizers import load_tokenizer

TOK = load_tokenizer()


def m(*pairs: str, system: str | None = None) -> list[dict[str, str]]:
    msgs = [{"role": "system", "content": system}] if system else []
    for k, text in enumerate(pairs):
        msgs.append({"role": "user" if k % 2 == 0 else "assistant", "content": text})
    return msgs


def test_special_token_ids() -> None:
    assert (TOK.bos_id, TOK.eos_id, TOK.pad_id, TOK.vocab_size) == (0, 1, 1, 129280)
    for text, tid in (("<｜User｜>", 128803), ("<｜Assistant｜>", 128804), ("<think>", 128821),
                      ("</think>", 128822)):
        assert TOK.encode(text) == [tid]


def test_deepseek4_chat_one_turn() -> None:
    e = encode_example(TOK, m("What is 2+2?", "4", system="You are helpful."))
    assert e.input_ids == [0, 3476, 477, 11502, 16, 128803, 3085, 344, 223, 20, 13, 20, 33,
                           128804, 128822, 22, 1]
    assert e.labels == [-100] * 15 + [22, 1]


def test_deepseek4_chat_two_turns() -> None:
    e = encode_example(TOK, m("Hi", "Hello!", "2+2?", "4"))
    assert e.input_ids == [0, 128803, 23166, 128804, 128822, 19923, 3, 1, 128803, 20, 13, 20,
                           33, 128804, 128822, 22, 1]
    assert e.labels == [-100] * 5 + [19923, 3, 1] + [-100] * 7 + [22, 1]


def test_deepseek4_thinking() -> None:
    e = encode_example(TOK, m("2+2?", "<think>add</think>4"), thinking=True)
    assert e.input_ids == [0, 128803, 20, 13, 20, 33, 128804, 128821, 3327, 128822, 22, 1]
    assert e.labels == [-100] * 8 + [3327, 128822, 22, 1]
    # Two turns: the first is rendered as in chat mode, its reasoning dropped.
    two = encode_example(TOK, m("Hi", "<think>greet</think>Hello!", "2+2?",
                                "<think>add</think>4"), thinking=True)
    chat_first = encode_example(TOK, m("Hi", "Hello!"))
    assert two.input_ids[:len(chat_first.input_ids)] == chat_first.input_ids
    assert two.input_ids[-5:] == [128821, 3327, 128822, 22, 1]  # source ends <think>
    assert two.labels[-5:] == [-100, 3327, 128822, 22, 1]
    # Chat mode discards reasoning, whitespace after </think> included.
    chat = encode_example(TOK, m("2+2?", " <think>\n add \n</think>\n\n4"))
    assert chat.input_ids[-2:] == [22, 1]


def test_reasoning_split_rule() -> None:
    assert split_reasoning("  <think>\n a b \n</think>\n\n answer") == ("answer", "a b")
    assert split_reasoning("no reasoning") == ("no reasoning", None)
    assert split_reasoning("<think>x</think>y", "given") == ("y", "given")


def test_deepseek3_rendering() -> None:
    from ortrex.export.templates import conversation

    system, turns = conversation(m("Hi", "Hello!", "2+2?", "4", system="SYS"))
    pairs = encode_pairs(TOK, "deepseek3", system, turns)
    (s1, t1), (s2, t2) = pairs
    assert s1 == [0, *TOK.encode("SYS"), *TOK.encode("<｜User｜>Hi<｜Assistant｜>")]
    assert t1 == [*TOK.encode("Hello!"), 1]
    assert s2 == TOK.encode("<｜User｜>2+2?<｜Assistant｜>") and t2 == [*TOK.encode("4"), 1]
    # deepseek4 differs only by the </think> after the assistant marker.
    d4 = encode_pairs(TOK, "deepseek4", system, turns)
    assert d4[0][0][-1] == 128822 and d4[0][0][:-1] == s1


def test_truncation_rules() -> None:
    assert infer_seqlen(10, 3, 8) == (5, 3)  # small target: cut the source
    assert infer_seqlen(2, 20, 8) == (2, 6)  # small source: cut the target
    assert infer_seqlen(10, 10, 8) == (4, 4)  # both in proportion
    pairs = [(list(range(10)), [7, 8, 1]), (list(range(5)), [9, 1])]
    cut, was_cut = truncate(pairs, "deepseek4", 12)
    assert was_cut and sum(len(s) + len(t) for s, t in cut) <= 11
    long_target = encode_example(TOK, m("Hi", "word " * 200), cutoff_len=32)
    assert len(long_target.input_ids) == 31 and long_target.input_ids[-1] != 1  # EOS cut off
    assert long_target.truncated


def test_malformed_conversations() -> None:
    for msgs, needle in ((m("only a question"), "alternate"),
                         ([{"role": "assistant", "content": "x"},
                           {"role": "user", "content": "y"}], "expected a user"),
                         ([{"role": "user", "content": ["not", "text"]},
                           {"role": "assistant", "content": "y"}], "must be text")):
        with pytest.raises(ExportError, match=needle):
            encode_example(TOK, msgs)
    with pytest.raises(ExportError, match="unknown prompt type"):
        encode_example(TOK, m("a", "b"), prompt_type="llama")
