"""``ortrex export sft --long drop|split|keep`` through the real CLI: what becomes of examples
too long for ``--seq-length``, the counts, the warning line and the files read back."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from ortrex.export.indexed import megatron, read_index
from ortrex.export.manifest import sha256_file
from ortrex.export.sft import FIELDS, SftOptions, run_sft
from ortrex.export.templates import encode_example
from ortrex.export.tokenizers import load_tokenizer
from ortrex.export.verify import verify_export
from tests.conftest import run_cli

TOK = load_tokenizer()
SEQ = 64
SYSTEM = {"role": "system", "content": "You are an OR expert."}
Row = dict[str, list[dict[str, str]]]


def chat(*turns: tuple[str, str]) -> Row:
    """A conversation: the system message, then (user, assistant) turns."""
    msgs: list[dict[str, str]] = [SYSTEM]
    for u, a in turns:
        msgs += [{"role": "user", "content": u}, {"role": "assistant", "content": a}]
    return {"messages": msgs}


def turn(k: int, words: int = 6) -> tuple[str, str]:
    """A short turn of about ``words`` words of data."""
    return f"Model {k}: " + "data " * words, f"The optimum is {k * 7}."


# 3 short examples that fit; a 6-turn conversation that does not (split: 2 or more pieces);
# a 4-turn one whose second turn does not fit even alone; a single-turn one that is too long.
ROWS = [chat(turn(0)), chat(*[turn(10 + k) for k in range(6)]), chat(turn(1, 2)),
        chat(turn(20), ("Data " + "x " * 80, "Too long."), turn(21), turn(22)),
        chat(("Solve " + "y " * 90, "Never fits.")), chat(turn(2, 9))]


def rows_file(tmp_path: Path, rows: list[Row] = ROWS) -> Path:
    path = tmp_path / "sft.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def read(prefix: Path, field: str) -> list[list[int]]:
    ds = megatron().IndexedDataset(f"{prefix}_packed_{field}_document")
    return [np.asarray(ds[k]).tolist() for k in range(len(ds))]


def export(tmp_path: Path, name: str, *args: str, rows: list[Row] = ROWS
           ) -> tuple[Path, list[str], dict[str, int]]:
    """Run ``ortrex export sft``; (prefix, its warning lines, the manifest's counts)."""
    prefix = tmp_path / name
    r = run_cli("export", "sft", "--output-prefix", str(prefix), "--input",
                str(rows_file(tmp_path, rows)), "--seq-length", str(SEQ), *args,
                "--db", str(tmp_path / "s.duckdb"))  # the export's record, not ./ortrex.duckdb
    assert r.returncode == 0, r.stderr
    warnings = [ln for ln in r.stderr.splitlines() if ln.startswith("warning:")]
    manifest = json.loads(Path(f"{prefix}.manifest.json").read_text())
    assert manifest["options"]["long"] == (args[args.index("--long") + 1] if "--long" in args
                                           else "drop")
    assert all(v.ok for v in verify_export(prefix, SEQ))
    return prefix, warnings, manifest["documents"]


def fits(msgs: list[dict[str, str]]) -> bool:
    """Whether MindSpeed writes the conversation whole at ``SEQ``."""
    ex = encode_example(TOK, msgs, cutoff_len=SEQ)
    return not ex.truncated and len(ex.input_ids) < SEQ


def test_fitting_examples_are_mindspeed_bytes_and_unwarned(tmp_path: Path) -> None:
    rows = [r for r in ROWS if fits(r["messages"])]
    drop, warned, counts = export(tmp_path, "d", rows=rows)
    keep, warned_keep, _ = export(tmp_path, "k", "--long", "keep", rows=rows)
    assert warned == warned_keep == [] and counts["too long"] == 0 == counts["truncated"]
    for f in FIELDS:
        for ext in ("bin", "idx"):
            assert sha256_file(Path(f"{drop}_packed_{f}_document.{ext}")) == \
                sha256_file(Path(f"{keep}_packed_{f}_document.{ext}"))


def test_drop_is_the_default(tmp_path: Path) -> None:
    prefix, warned, counts = export(tmp_path, "d")
    assert warned == [f"warning: 3 of 6 examples were longer than --seq-length {SEQ} allows "
                      f"({SEQ - 1} tokens): dropped (use --long split|keep)"]
    assert (counts["too long"], counts["dropped (too long)"], counts["truncated"],
            counts["samples written"]) == (3, 3, 0, 3)
    kept = [encode_example(TOK, r["messages"], cutoff_len=SEQ) for r in ROWS
            if fits(r["messages"])]
    assert read(prefix, "input_ids") == [e.input_ids for e in kept]
    assert read(prefix, "labels") == [e.labels for e in kept]
    # a dropped example leaves no entry; every sample ends with the EOS of its reply
    assert read_index(Path(f"{prefix}_packed_input_ids_document.idx")).documents.tolist() \
        == [0, 1, 2, 3]
    assert all(len(ids) < SEQ and ids[-1] == 1 for ids in read(prefix, "input_ids"))


def split_oracle(msgs: list[dict[str, str]]) -> tuple[list[list[dict[str, str]]], int]:
    """What --long split should make of ``msgs``: the fitting runs of turns; turns lost."""
    system, n = msgs[:1], (len(msgs) - 1) // 2

    def run(i: int, j: int) -> list[dict[str, str]]:
        return system + msgs[1 + 2 * i:1 + 2 * j]

    out, lost, i = [], 0, 0
    while i < n:
        j = i
        while j < n and fits(run(i, j + 1)):
            j += 1
        if j == i:
            lost, i = lost + 1, i + 1
        else:
            out.append(run(i, j))
            i = j
    return out, lost


def test_split_cuts_at_turn_boundaries(tmp_path: Path) -> None:
    prefix, warned, counts = export(tmp_path, "s", "--long", "split")
    expect: list[list[dict[str, str]]] = []
    for r in ROWS:
        msgs = r["messages"]
        expect += [msgs] if fits(msgs) else split_oracle(msgs)[0]
    pieces = len(expect) - 3
    assert pieces >= 4  # the 6-turn conversation gives 2 or more, the 4-turn one 2 or more
    assert (counts["too long"], counts["split (too long)"], counts["pieces from splits"],
            counts["turns dropped from splits"], counts["dropped (too long)"],
            counts["truncated"]) == (3, 2, pieces, 1, 1, 0)
    assert warned == [f"warning: 3 of 6 examples were longer than --seq-length {SEQ} allows "
                      f"({SEQ - 1} tokens): 2 split at turn boundaries into {pieces} "
                      "examples, 1 turn too long even alone dropped from them, 1 dropped (no "
                      "turn fits even alone) (use --long drop|keep)"]
    ids, labels = read(prefix, "input_ids"), read(prefix, "labels")
    mask = read(prefix, "attention_mask")
    # every piece is a whole example of its own: BOS and the system text first, each reply
    # supervised up to its EOS, prompts masked, nothing cut
    want = [encode_example(TOK, m, cutoff_len=SEQ) for m in expect]
    assert ids == [e.input_ids for e in want] and labels == [e.labels for e in want]
    sys_ids = TOK.encode(SYSTEM["content"])
    for a, b, c in zip(ids, labels, mask, strict=True):
        assert len(a) < SEQ and a[0] == 0 and a[1:1 + len(sys_ids)] == sys_ids
        assert b[-1] == a[-1] == 1 and set(c) == {1}
        assert all(y in (-100, x) for x, y in zip(a, b, strict=True))
    # the 6-turn conversation's turns are all in its pieces, in order; the 4-turn one's but
    # the turn too long even alone
    for row, lost in ((ROWS[1], []), (ROWS[3], ROWS[3]["messages"][3:5])):
        runs, n_lost = split_oracle(row["messages"])
        assert len(runs) >= 2 and n_lost == len(lost) // 2
        assert [m for r in runs for m in r[1:]] == [m for m in row["messages"][1:]
                                                    if m not in lost]


def test_split_with_pack_and_append_eod(tmp_path: Path) -> None:
    prefix, warned, counts = export(tmp_path, "p", "--long", "split", "--neat-pack",
                                    "--append-eod")
    assert len(warned) == 1 and counts.get("cut to fit a pack", 0) == 0 == counts["truncated"]
    segments = []
    for ids, seg in zip(read(prefix, "input_ids"), read(prefix, "attention_mask"),
                        strict=True):
        assert len(ids) == SEQ
        for s in sorted(set(seg) - {0}):
            segments.append([x for x, g in zip(ids, seg, strict=True) if g == s])
    # each packed segment is a whole example, its EOS and the appended EOD last
    assert len(segments) == counts["samples packed"] == counts["samples in"] - counts[
        "too long"] + counts["pieces from splits"]
    assert all(s[0] == 0 and s[-2:] == [1, 1] and len(s) < SEQ for s in segments)


def test_keep_truncates_as_mindspeed(tmp_path: Path) -> None:
    for eod in ((), ("--append-eod",)):
        prefix, warned, counts = export(tmp_path, f"k{len(eod)}", "--long", "keep", *eod)
        # MindSpeed: each example truncated to SEQ - 1; with the EOD a cut one reaches SEQ
        # and is skipped, leaving an empty document entry
        want = [encode_example(TOK, r["messages"], cutoff_len=SEQ) for r in ROWS]
        tail = [1] if eod else []
        written = [e for e in want if len(e.input_ids) + len(tail) < SEQ]
        assert read(prefix, "input_ids") == [e.input_ids + tail for e in written]
        assert read(prefix, "labels") == [e.labels + tail for e in written]
        docs = read_index(Path(f"{prefix}_packed_labels_document.idx")).documents.tolist()
        assert docs == ([0, 1, 2, 3, 4, 5, 6] if not eod else [0, 1, 1, 2, 2, 2, 3])
        head = (f"warning: 3 of 6 examples were longer than --seq-length {SEQ} allows "
                f"({SEQ - 1} tokens): 3 truncated as MindSpeed-LLM does")
        assert warned == [head + ("; 3 still of 64 tokens or more, skipped" if eod else "")
                          + " (use --long drop|split)"]
        assert (counts["too long"], counts["truncated"]) == (3, 3)
        # the same bytes as the API's default (MindSpeed's behaviour, as before --long)
        run_sft(tmp_path / "api", inputs=[rows_file(tmp_path)],
                opts=SftOptions(seq_length=SEQ, append_eod=bool(eod)))
        for f in FIELDS:
            for ext in ("bin", "idx"):
                assert sha256_file(Path(f"{prefix}_packed_{f}_document.{ext}")) == \
                    sha256_file(tmp_path / f"api_packed_{f}_document.{ext}")
        for p in tmp_path.glob("api*"):
            p.unlink()


def test_unknown_long_is_one_line(tmp_path: Path) -> None:
    r = run_cli("export", "sft", "--output-prefix", str(tmp_path / "x"), "--input",
                str(rows_file(tmp_path)), "--long", "cut", "--db", str(tmp_path / "s.duckdb"))
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert r.stderr.strip().endswith("--long must be one of drop, split, keep, not 'cut'")
    assert not list(tmp_path.glob("x*"))
