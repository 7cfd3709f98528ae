"""The Python blocks of the README and the library page run as written, on real files."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
LP = ("Maximize\n obj: 3 x + 2 y\nSubject To\n c1: x + y <= 4\n c2: x + 3 y <= 6\n"
      "Bounds\n x <= 3\nEnd\n")


def blocks(page: str) -> list[str]:
    return BLOCK.findall((ROOT / page).read_text())


def test_the_readme_and_the_library_page_have_python_blocks_to_run() -> None:
    assert len(blocks("docs/library.md")) >= 2
    assert not blocks("README.md")  # the README's code is its two quick-start commands


@pytest.mark.parametrize("index", range(len(blocks("docs/library.md"))))
def test_a_library_block_runs(index: int, tmp_path: Path) -> None:
    from ortrex.ir.formats import read_model, write_model

    # The files the blocks name: one small LP, the same model as a program's LP and as MPS.
    for name in ("model_0_problem0.lp", "program.lp"):
        (tmp_path / name).write_text(LP)
    write_model(read_model(tmp_path / "program.lp"), tmp_path / "reference.mps")
    cwd = os.getcwd()
    os.chdir(tmp_path)
    try:
        scope: dict[str, object] = {}
        exec(compile(blocks("docs/library.md")[index], f"library.md block {index}", "exec"),
             scope)
    finally:
        os.chdir(cwd)
    if "r" in scope:  # the equivalence block: the same model is proven so, and certified
        from ortrex.verifiers.equivalence import check_certificate

        r = scope["r"]
        assert r.verdict == "equivalent", r.reason  # type: ignore[attr-defined]
        assert check_certificate(tmp_path / "program.lp", tmp_path / "reference.mps",
                                 r.certificate) == ""  # type: ignore[attr-defined]
    if "m" in scope:  # the IR block wrote the model it read
        assert (tmp_path / "model.mps").exists()


def test_equivalence_takes_every_input_kind_the_library_page_names(tmp_path: Path) -> None:
    import gurobipy as gp
    import highspy

    from ortrex.ir.formats import read_model
    from ortrex.verifiers.equivalence import check_certificate, check_equivalence

    path = tmp_path / "m.lp"
    path.write_text(LP)
    env = gp.Env(params={"OutputFlag": 0})
    grb = gp.read(str(path), env=env)
    hs = highspy.Highs()
    hs.setOptionValue("output_flag", False)
    hs.readModel(str(path))
    for a in (read_model(path), str(path), path, grb, hs):
        r = check_equivalence(a, tmp_path / "m.lp")
        assert r.verdict == "equivalent", (type(a), r.reason)
        assert check_certificate(a, path, r.certificate) == "", type(a)
    grb.dispose()
    env.dispose()
