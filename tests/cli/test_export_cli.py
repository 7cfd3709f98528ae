"""``ortrex export`` end to end: from a real store, with lineage; bad input; verify; mixtures."""

from __future__ import annotations

import json
import os
from pathlib import Path

from tests.conftest import run_cli


def test_export_from_the_store_with_lineage(tmp_path: Path) -> None:
    db = str(tmp_path / "s.duckdb")
    r = run_cli("pipeline", "--count", "4", "--families", "transportation,knapsack_01",
                "--workers", "1", "--db", db, timeout=600)
    assert r.returncode == 0, r.stderr
    out = tmp_path / "out"
    out.mkdir()
    r = run_cli("export", "cpt", "--output-prefix", str(out / "cpt"), "--from-db",
                "--seq-length", "4096", "--append-eod", "--workers", "2", "--db", db)
    assert r.returncode == 0, r.stderr
    r = run_cli("export", "sft", "--output-prefix", str(out / "sft"), "--from-db", "--pack",
                "--seq-length", "4096", "--db", db)
    assert r.returncode == 0, r.stderr
    # Two of the examples do not fit 4,096 tokens: dropped (the default), and said so.
    assert "warning: 2 of 12 examples were longer than --seq-length 4096" in r.stderr, r.stderr
    for prefix in ("cpt", "sft"):
        r = run_cli("export", "verify", str(out / prefix), "--seq-length", "4096")
        assert r.returncode == 0 and "ok" in r.stdout, r.stdout + r.stderr
    rows = json.loads(run_cli("sql", "SELECT e.kind, count(l.parent_id) AS docs FROM exports e "
                              "JOIN lineage l ON l.child_id = e.id GROUP BY ALL ORDER BY 1",
                              "--db", db, "--format", "json").stdout)
    assert rows == [{"kind": "cpt", "docs": 12}, {"kind": "sft", "docs": 10}]
    r = run_cli("export", "indexmap", str(out / "sft"), "--train-iters", "3",
                "--global-batch-size", "4")
    assert r.returncode == 0 and (out / "sft_train_indexmap_12ns_1234s_shuffle_decoder_packed_"
                                        "idx.npy.ready").exists()
    r = run_cli("export", "jsonl", "--output", str(out / "all.jsonl"), "--db", db)
    assert r.returncode == 0 and len((out / "all.jsonl").read_text().splitlines()) == 24
    # A filter on a column that does not exist: one line naming it and what exists, exit 2,
    # nothing written, for every export that takes --where.
    for args in (("cpt", "--output-prefix", str(out / "w" / "c"), "--from-db"),
                 ("sft", "--output-prefix", str(out / "w" / "s"), "--from-db"),
                 ("jsonl", "--output", str(out / "w.jsonl"))):
        r = run_cli("export", *args, "--where", "famly = 'knapsack_01'", "--db", db)
        assert r.returncode == 2 and "Traceback" not in r.stderr, (args, r.stderr)
        line = r.stderr.strip()
        assert len(line.splitlines()) == 1 and "famly" in line and "template" in line, line
    assert not (out / "w").exists() and not (out / "w.jsonl").exists()
    r = run_cli("export", "cpt", "--output-prefix", str(out / "k"), "--from-db", "--where",
                "instance_id IN (SELECT id FROM instances WHERE family = 'knapsack_01')",
                "--db", db)
    assert r.returncode == 0, r.stderr
    n = json.loads(run_cli("sql", "SELECT n_docs FROM exports WHERE path LIKE '%k'", "--db", db,
                           "--format", "json").stdout)
    assert n == [{"n_docs": 6}]  # the knapsack half of the 12
    # A flipped byte is found: exit 1 with the problem named.
    idx = out / "cpt_text_document.idx"
    data = bytearray(idx.read_bytes())
    data[0] ^= 0xFF
    idx.write_bytes(bytes(data))
    r = run_cli("export", "verify", str(out / "cpt"))
    assert r.returncode == 1 and "bad magic" in r.stdout


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def test_export_bad_input(tmp_path: Path) -> None:
    good = tmp_path / "d.jsonl"
    good.write_text('{"text": "a"}\n')
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"text": "a"}\nnot json\n')
    cases = [
        (("cpt", "--output-prefix", str(tmp_path / "o"), "--input", str(bad)),
         "bad.jsonl:2: not valid JSON"),
        (("cpt", "--output-prefix", str(tmp_path / "nodir" / "sub" / "o"), "--input",
          str(bad)), "bad.jsonl:2: not valid JSON"),  # the folder it made goes again
        (("cpt", "--output-prefix", str(tmp_path / "o"), "--input", str(good), "--tokenizer",
          str(tmp_path)), "no tokenizer.json"),
        (("sft", "--output-prefix", str(tmp_path / "o"), "--input", str(good), "--prompt-type",
          "llama9"), "unknown prompt type"),
        (("cpt", "--output-prefix", str(tmp_path / "o")), "give either --input"),
        (("cpt", "--output-prefix", str(tmp_path / "o"), "--input", str(good), "--long", "cut"),
         "--long must be one of"),
    ]
    for args, needle in cases:
        r = run_cli("export", *args, "--db", str(tmp_path / "x.duckdb"))
        assert r.returncode == 2, (args, r.stderr)
        assert needle in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.jsonl", "d.jsonl"]
    r = run_cli("export", "cpt", "--output-prefix", str(tmp_path / "o"), "--input", str(bad),
                "--skip-bad", "--db", str(tmp_path / "x.duckdb"))
    assert r.returncode == 0 and "bad lines skipped" in r.stdout
    # A prefix in folders that do not exist yet: made, as --db and export mix make theirs.
    r = run_cli("export", "cpt", "--output-prefix", str(tmp_path / "new" / "deeper" / "o"),
                "--input", str(good), "--db", str(tmp_path / "x.duckdb"))
    assert r.returncode == 0, r.stderr
    assert (tmp_path / "new" / "deeper" / "o_text_document.bin").is_file()
    mode = (tmp_path / "new" / "deeper" / "o.manifest.json").stat().st_mode & 0o777
    assert mode == 0o666 & ~_umask(), oct(mode)  # not mkstemp's 0600


def test_mixture_recipe(tmp_path: Path) -> None:
    (tmp_path / "math.jsonl").write_text("".join(
        json.dumps({"text": f"Lemma {k}: x^{k} grows."}) + "\n" for k in range(50)))
    (tmp_path / "code.jsonl").write_text("".join(
        json.dumps({"content": f"def f{k}(x):\n    return x * {k}\n"}) + "\n" for k in range(30)))
    (tmp_path / "recipe.yaml").write_text(
        "output: mix\nappend_eod: true\ntrain_tokens: 10000\nsources:\n"
        "  - {name: math, share: 3, input: math.jsonl}\n"
        "  - {name: code, share: 1, input: code.jsonl, json_key: content}\n")
    r = run_cli("export", "mix", "--recipe", str(tmp_path / "recipe.yaml"), "--db",
                str(tmp_path / "m.duckdb"))
    assert r.returncode == 0, r.stderr
    line = next(x for x in r.stdout.splitlines() if x.startswith("--data-path"))
    parts = line.split('"')[1].split()
    weights = dict(zip(parts[1::2], map(float, parts[0::2]), strict=True))
    assert weights == {str(tmp_path / "mix" / "math_text_document"): 0.75,
                       str(tmp_path / "mix" / "code_content_document"): 0.25}
    mixture = json.loads((tmp_path / "mix" / "mixture.json").read_text())
    assert all(s["tokens"] > 0 and s["epochs"] > 0 for s in mixture["sources"])
    (tmp_path / "bad.yaml").write_text("output: mix\nsources:\n  - {name: a, share: -1}\n")
    r = run_cli("export", "mix", "--recipe", str(tmp_path / "bad.yaml"))
    assert r.returncode == 2 and "'share' must be a positive number" in r.stderr


def test_missing_export_extra_is_one_clear_line(tmp_path: Path) -> None:
    import subprocess
    import sys

    good = tmp_path / "d.jsonl"
    good.write_text('{"text": "a"}\n')
    for module in ("tokenizers", "torch"):
        code = (f"import sys; sys.modules[{module!r}] = None\n"
                "from ortrex.cli import main\n"
                f"sys.exit(main(['export', 'cpt', '--output-prefix', {str(tmp_path / 'o')!r}, "
                f"'--input', {str(good)!r}, '--db', {str(tmp_path / 'x.duckdb')!r}]))\n")
        r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                           timeout=300)
        assert r.returncode == 2, r.stderr
        assert f"export needs {module}: pip install -e '.[export]'" in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d.jsonl"]
