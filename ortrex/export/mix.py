"""Mixtures: several CPT sources (store queries, external JSONL corpora) exported side by side,
with the ``--data-path`` string that trains on them at the recipe's token shares.

Megatron's blended dataset asks dataset *i* for ``ceil(N * w_i)`` samples and every GPT sample
is ``seq_length + 1`` tokens, so a weight is a share of training *tokens*: the weights are the
recipe's shares (normalised). The measured token counts say how many epochs of each source a
training budget draws (``train_tokens`` in the recipe), so an under-sized source shows up as
repetition instead of silently skewing the mix.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ortrex.export.cpt import CptOptions, run_cpt
from ortrex.export.errors import ExportError, require


@dataclass
class MixSource:
    """One component of a mixture and what its export measured."""

    name: str
    share: float
    prefix: str
    tokens: int = 0
    documents: int = 0
    weight: float = 0.0
    epochs: float | None = None


def load_recipe(path: Path) -> dict[str, Any]:
    """The recipe (YAML), checked field by field."""
    yaml: Any = require("yaml")

    try:
        recipe = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise ExportError(f"{path}: cannot read: {exc.strerror or exc}") from None
    except yaml.YAMLError as exc:
        raise ExportError(f"{path}: not valid YAML ({exc})") from None
    if not isinstance(recipe, dict):
        raise ExportError(f"{path}: the recipe must be a mapping")
    for key in ("output", "sources"):
        if key not in recipe:
            raise ExportError(f"{path}: missing field {key!r}")
    srcs = recipe["sources"]
    if not isinstance(srcs, list) or not srcs:
        raise ExportError(f"{path}: 'sources' must be a non-empty list")
    names = set()
    for k, s in enumerate(srcs):
        where = f"{path}: sources[{k}]"
        if not isinstance(s, dict) or "name" not in s or "share" not in s:
            raise ExportError(f"{where}: needs 'name' and 'share'")
        if s["name"] in names:
            raise ExportError(f"{where}: name {s['name']!r} used twice")
        names.add(s["name"])
        if not isinstance(s["share"], (int, float)) or s["share"] <= 0:
            raise ExportError(f"{where}: 'share' must be a positive number")
        if ("input" in s) == ("from_db" in s):
            raise ExportError(f"{where}: give exactly one of 'input' (JSONL) and 'from_db' "
                              "(a SQL filter over documents)")
    return recipe


def run_mix(recipe_path: Path, db: str | None, workers: int = 1,
            progress: Any = None) -> tuple[list[MixSource], str]:
    """Export every source, then compute the weights; (sources, the --data-path string)."""
    recipe = load_recipe(recipe_path)
    out_dir = Path(recipe["output"])
    if not out_dir.is_absolute():
        out_dir = recipe_path.parent / out_dir
    out_dir.mkdir(parents=True, exist_ok=True)
    opts_base = {"seq_length": recipe.get("seq_length"), "long": recipe.get("long", "split"),
                 "append_eod": bool(recipe.get("append_eod", False))}
    total_share = sum(float(s["share"]) for s in recipe["sources"])
    result = []
    for s in recipe["sources"]:
        key = str(s.get("json_key", "text"))
        opts = CptOptions(keys=(key,), **opts_base)
        prefix = out_dir / str(s["name"])
        if "input" in s:
            inp = Path(s["input"])
            inp = inp if inp.is_absolute() else recipe_path.parent / inp
            rep = run_cpt(prefix, inputs=[inp], tokenizer=recipe.get("tokenizer"), opts=opts,
                          workers=workers, progress=progress, record_db=db)
        else:
            if db is None:
                raise ExportError(f"source {s['name']!r} reads the store: no store given")
            rep = run_cpt(prefix, db=db, where=str(s["from_db"]),
                          tokenizer=recipe.get("tokenizer"), opts=opts, workers=workers,
                          progress=progress)
        result.append(MixSource(str(s["name"]), float(s["share"]) / total_share,
                                f"{prefix}_{key}_document", rep.tokens,
                                rep.counts["documents written"]))
    budget = recipe.get("train_tokens")
    for m in result:
        m.weight = m.share
        if budget:
            m.epochs = budget * m.share / max(m.tokens, 1)
    data_path = " ".join(f"{m.weight:.6f} {m.prefix}" for m in result)
    (out_dir / "mixture.json").write_text(json.dumps({
        "recipe": str(recipe_path), "data_path": data_path,
        "sources": [m.__dict__ for m in result]}, indent=2) + "\n")
    return result, data_path
