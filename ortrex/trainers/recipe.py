"""``ortrex train recipe``: the report's recipe as one command.

Stages, in order: CPT on an OR + general mixture; SFT stage I on code-only targets (lr 5e-7)
from the selected CPT checkpoint; SFT stage II on Clean-CoT targets with 10-15% general
instruction data mixed in (lr 1e-6) from the selected stage-I checkpoint; and the matched
comparison, the same two SFT stages from the base model (identical data, optimizer, budget and
evaluation). After each stage its checkpoints are compared on every objective at once
(held-out losses, an ``ortrex eval`` score when the recipe serves them) and one is selected.
Data given as store queries or JSONL are exported first (``output/data``); a rerun reuses
the exports, skips finished stages and resumes a stopped one.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path
from typing import Any

from ortrex.trainers.config import TrainConfig, from_mapping, load_yaml
from ortrex.trainers.dist import Dist
from ortrex.trainers.errors import TrainError
from ortrex.trainers.selection import Candidate, select, table

TOP_KEYS = {"output", "model", "kernels", "train", "data", "valid", "stages", "compare",
            "eval", "export"}
DATA_KEYS = {"cpt", "sft_code", "sft_cot", "sft_general", "general_share"}
STAGE_DEFAULTS = {"cpt": {"lr": 3.0e-6}, "sft1": {"lr": 5.0e-7}, "sft2": {"lr": 1.0e-6}}
SOURCE_KEYS = {"prefix", "from_db", "input", "heldout", "data_path", "mix", "kind", "key"}


def load(path: Path) -> dict[str, Any]:
    """The recipe, checked field by field."""
    r = load_yaml(path)
    where = str(path)
    for k in r:
        if k not in TOP_KEYS:
            raise TrainError(f"{where}: unknown field {k!r}")
    for k in ("data", "stages"):
        if not isinstance(r.get(k), dict):
            raise TrainError(f"{where}: {k!r} must be a mapping")
    for k in r["data"]:
        if k not in DATA_KEYS:
            raise TrainError(f"{where}: data: unknown field {k!r}")
    for k in ("cpt", "sft_code", "sft_cot"):
        if k not in r["data"]:
            raise TrainError(f"{where}: data.{k} is required")
    share = float(r["data"].get("general_share", 0.12))
    if r["data"].get("sft_general") is not None and not 0 < share < 1:
        raise TrainError(f"{where}: data.general_share must be between 0 and 1, got {share}")
    for k in r["stages"]:
        if k not in STAGE_DEFAULTS:
            raise TrainError(f"{where}: stages: unknown stage {k!r} (cpt, sft1, sft2)")
    for name, spec in list(r["data"].items()) + list((r.get("valid") or {}).items()):
        if name == "general_share" or spec is None:
            continue
        if isinstance(spec, str):
            continue
        if not isinstance(spec, dict) or not spec.keys() & SOURCE_KEYS or \
                spec.keys() - SOURCE_KEYS:
            raise TrainError(f"{where}: {name}: give one of prefix, from_db, input, heldout"
                             ", data_path or mix")
    base = dict(r.get("train") or {})
    for stage in STAGE_DEFAULTS:  # every stage's options, checked now, not hours later
        from_mapping({**base, **(r["stages"].get(stage) or {})}, f"{where}: stages.{stage}")
    if r.get("eval") is not None:
        from ortrex.trainers.recipe_eval import check_eval

        check_eval(r["eval"], where)
    return r


def _export(name: str, spec: Any, kind: str, out: Path, db: str | None,
            opts: dict[str, Any]) -> str:
    """The dataset prefix of a data entry, exporting it first when needed."""
    from ortrex.export.cpt import CptOptions, run_cpt
    from ortrex.export.sft import SftOptions, long_warning, run_sft

    if isinstance(spec, str):
        return spec
    if "prefix" in spec:
        return str(spec["prefix"])
    if "data_path" in spec:
        return str(spec["data_path"])
    kind = str(spec.get("kind", kind))
    prefix = out / name
    ready = Path(f"{prefix}.manifest.json").is_file()
    if "mix" in spec:
        from ortrex.export.mix import run_mix

        mixture = Path(spec["mix"])
        _, data_path = run_mix(mixture, db)
        return data_path
    src: dict[str, Any] = {}
    if spec.get("heldout") or "from_db" in spec:
        if db is None or not Path(db).is_file():
            raise TrainError(f"{name}: reads the store, and there is none at {db}")
        src = {"db": db, "where": str(spec.get("from_db", "true")),
               "held_out": bool(spec.get("heldout"))}
    else:
        src = {"inputs": [Path(spec["input"])]}
    if not ready:
        out.mkdir(parents=True, exist_ok=True)
        if kind == "cpt":
            run_cpt(prefix, opts=CptOptions(seq_length=opts.get("seq_length"),
                                            append_eod=bool(opts.get("append_eod", True))),
                    record_db=db, **src)
        else:
            sft = SftOptions(
                prompt_type=str(opts.get("prompt_type", "deepseek4")),
                thinking=bool(opts.get("enable_thinking", False)),
                pack=bool(opts.get("pack", False)),
                seq_length=int(opts.get("seq_length") or 8192),
                long=str(opts.get("long", "drop")))  # as `ortrex export sft`: never cut silently
            warning = long_warning(run_sft(prefix, opts=sft, record_db=db, **src), sft)
            if warning:
                print(f"warning: {prefix}: {warning}", file=sys.stderr)
    return f"{prefix}_{spec.get('key', 'text')}_document" if kind == "cpt" else str(prefix)


def _candidates(out: Path, ev: dict[str, Any] | None, stage: str, db: str | None,
                d: Dist) -> list[Candidate]:
    """The stage's checkpoints with their held-out losses (from the run log) and scores
    (``ev.stages``: the stage names to score, default all)."""
    from ortrex.trainers import checkpoint as ckpt
    from ortrex.trainers.observe import LOG, read_log

    valid: dict[int, dict[str, float]] = {}
    for row in read_log(out / LOG):
        v = {k[6:]: x for k, x in row.items() if k.startswith("valid/")}
        if v:
            valid.setdefault(int(row["step"]), {}).update(v)
    cands = [Candidate(int(p.name[5:]), str(p), valid.get(int(p.name[5:]), {}))
             for p in ckpt.complete(out / "checkpoints")]
    if ev and stage in (ev.get("stages") or [stage]):
        from ortrex.trainers.hf import export_hf
        from ortrex.trainers.recipe_eval import score

        for c in cands:
            if d.main:
                hf = out / "hf" / f"step_{c.step:07d}"
                hf.parent.mkdir(parents=True, exist_ok=True)
                if not hf.exists():
                    export_hf(Path(c.path), hf, db)
                score(ev, hf, out / "eval" / f"step_{c.step:07d}", db)
            d.barrier()
            from ortrex.trainers.recipe_eval import mean_pass_at_1

            summary = out / "eval" / f"step_{c.step:07d}" / "summary.json"
            c.score = mean_pass_at_1(summary) if summary.is_file() else None
    return cands


def _finished(cfg: TrainConfig) -> bool:
    """Whether the stage's run reached its last step with these very settings (a rerun of
    the recipe then skips it)."""
    from ortrex.trainers import checkpoint as ckpt
    from ortrex.trainers.loop import json_safe

    done = ckpt.complete(cfg.output_dir() / "checkpoints")
    if not done:
        return False
    meta = ckpt.read_meta(done[-1])
    return int(meta["step"]) == cfg.train_iters and \
        meta.get("identity") == json_safe(cfg.identity())


def run_recipe(path: Path, d: Dist, db: str | None) -> dict[str, Any]:
    """Run every stage; print one selection table per stage and the comparison."""
    from ortrex.trainers.loop import train
    from ortrex.ui import console

    r = load(path)
    root = Path(r.get("output", "recipe-run"))
    root = root if root.is_absolute() else path.parent / root
    data_dir = root / "data"
    eopts = dict(r.get("export") or {})
    prefixes: dict[str, str] = {}
    valid: dict[str, str] = {}
    if d.main:
        for key, kind in (("cpt", "cpt"), ("sft_code", "sft"), ("sft_cot", "sft"),
                          ("sft_general", "sft")):
            if r["data"].get(key) is not None:
                prefixes[key] = _export(key, r["data"][key], kind, data_dir, db, eopts)
        for name, spec in (r.get("valid") or {}).items():
            valid[name] = _export(f"valid_{name}", spec, "sft", data_dir, db, eopts)
        (root / "prefixes.json").write_text(json.dumps({"data": prefixes, "valid": valid}))
    d.barrier()
    if not d.main:
        saved = json.loads((root / "prefixes.json").read_text())
        prefixes, valid = saved["data"], saved["valid"]
    share = float(r["data"].get("general_share", 0.12))
    sft2_data = prefixes["sft_cot"] if "sft_general" not in prefixes else \
        f"{1 - share:g} {prefixes['sft_cot']} {share:g} {prefixes['sft_general']}"
    base_model = str(r.get("model", "v4-small"))
    shared = {**(r.get("train") or {}), "kernels": r.get("kernels", "auto"), "valid": valid}
    ev = r.get("eval")
    report: dict[str, Any] = {"stages": {}}

    def stage(name: str, kind: str, data: str, model: str, settings: str) -> Candidate:
        opts = {**shared, **STAGE_DEFAULTS[settings], **(r["stages"].get(settings) or {})}
        cfg: TrainConfig = from_mapping({**opts, "stage": kind, "data": data, "model": model,
                                         "output": str(root / name), "resume": True},
                                        f"{path}: stages.{settings}").check()
        if not _finished(cfg):
            train(cfg, d, db, command=f"train recipe {name}")
        cands = _candidates(root / name, ev, name, db, d)
        best = select(cands)
        if best is None:
            raise TrainError(f"{root / name}: the stage left no checkpoint")
        if d.main:
            what = " + ".join(Path(x).name for x in data.split()
                              if not x.replace(".", "", 1).isdigit())
            console.print(table(f"{name}: {kind} on {what} from {Path(model).name}", cands))
        report["stages"][name] = {"selected": best.path, "candidates": [
            dataclasses.asdict(c) for c in cands]}
        return best

    cpt = stage("cpt", "cpt", prefixes["cpt"], base_model, "cpt")
    s1 = stage("sft1", "sft", prefixes["sft_code"], cpt.path, "sft1")
    s2 = stage("sft2", "sft", sft2_data, s1.path, "sft2")
    arms = {"base -> CPT -> SFT": s2}
    if r.get("compare", True):
        b1 = stage("base-sft1", "sft", prefixes["sft_code"], base_model, "sft1")
        arms["base -> SFT"] = stage("base-sft2", "sft", sft2_data, b1.path, "sft2")
    if d.main:
        console.print(_comparison(arms))
        report["final"] = {k: dataclasses.asdict(v) for k, v in arms.items()}
        (root / "selection.json").write_text(json.dumps(report, indent=2, default=str) + "\n")
    return report


def _comparison(arms: dict[str, Candidate]) -> Any:
    from rich.table import Table

    names = sorted({n for c in arms.values() for n in c.losses})
    t = Table(title="matched comparison (selected checkpoints, identical SFT data, "
                    "optimizer, budget and evaluation)")
    t.add_column("objective")
    for arm in arms:
        t.add_column(arm, justify="right", no_wrap=True)
    if len(arms) == 2:
        t.add_column("CPT effect", justify="right")
    vals = list(arms.values())
    for n in names:
        row = [f"held-out loss {n}"] + [f"{c.losses.get(n, float('nan')):.4f}" for c in vals]
        if len(vals) == 2 and n in vals[0].losses and n in vals[1].losses:
            row.append(f"{vals[0].losses[n] - vals[1].losses[n]:+.4f}")
        t.add_row(*row)
    if any(c.score is not None for c in vals):
        row = ["eval pass@1"] + ["" if c.score is None else f"{100 * c.score:.1f}%"
                                 for c in vals]
        if len(vals) == 2 and all(c.score is not None for c in vals):
            row.append(f"{100 * (vals[0].score - vals[1].score):+.1f} pts")  # type: ignore
        t.add_row(*row)
    t.add_row("checkpoint", *[Path(c.path).parent.parent.name + "/" + Path(c.path).name
                              for c in vals])
    return t
