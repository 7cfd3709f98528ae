"""The training plot's title names the stage once."""

from __future__ import annotations

from pathlib import Path

from ortrex.trainers.observe import title


def test_a_run_folder_named_for_its_stage_is_not_said_twice() -> None:
    assert title("cpt", Path("runs/cpt")) == "CPT"
    assert title("sft", Path("runs/sft-stage1")) == "SFT: sft-stage1"
