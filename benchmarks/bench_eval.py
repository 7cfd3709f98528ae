"""Evaluation benchmark: the oracle through the whole scoring path on all 1,627 public items.

A real OpenAI-compatible server on loopback (``tests/evaluation/openai_server.py``) answers
every item with its reference program (NL4OPT, OptiBench: a program whose optimum is the ground
truth); ``ortrex eval``'s runner requests, extracts, runs every program in warm sandboxes
(``--workers``, default 2) and checks objectives and LP equivalence. Prints items/s per
benchmark and the split between waiting for completions and sandboxed execution (summed over
items, so with overlap they add up to more than the wall time). ``--latency S`` makes the server
wait S seconds per completion, as a served model would. Goal: the four-benchmark pass in
under 3 minutes on two cores.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

from rich.console import Console
from rich.table import Table

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from ortrex.benchmarks.registry import NAMES, TITLES, load
from ortrex.evaluation.runner import EvalSpec, run_eval
from ortrex.served.client import Sampling
from tests.evaluation.openai_server import Server, State, oracle_answers

console = Console(width=150)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--latency", type=float, default=0.0, help="seconds per completion")
    ap.add_argument("--concurrency", type=int, default=16)
    args = ap.parse_args()
    t = Table(title=f"Oracle evaluation, {args.workers} sandboxes, completion latency "
                    f"{args.latency:g} s, concurrency {args.concurrency}")
    for c in ("benchmark", "items", "wall s", "items/s", "waiting s (sum)", "exec s (sum)",
              "exec ms/item", "pass@1"):
        t.add_column(c, justify="right")
    total_items, total_wall = 0, 0.0
    state = State({}, delay_s=args.latency)
    with Server(state) as srv, tempfile.TemporaryDirectory(prefix="ortrex-bench-eval-") as d:
        for name in NAMES:
            # NL4OPT and OptiBench share questions with different answers: one at a time.
            bench = load(name)
            state.set_answers(oracle_answers([bench]))
            spec = EvalSpec([name], srv.url, Sampling("oracle"), Path(d) / name,
                            workers=args.workers, concurrency=args.concurrency)
            t0 = time.perf_counter()
            out, summary = run_eval(spec)
            wall = time.perf_counter() - t0
            timing = json.loads((out / "manifest.json").read_text())["timing"]
            n = len(bench.items)
            total_items += n
            total_wall += wall
            t.add_row(TITLES[name], str(n), f"{wall:.1f}", f"{n / wall:.1f}",
                      f"{timing['waiting_s']:.1f}", f"{timing['exec_s']:.1f}",
                      f"{1e3 * timing['exec_s'] / n:.1f}",
                      f"{100 * summary['benchmarks'][name]['pass@1']:.2f}")
    t.add_row("all", str(total_items), f"{total_wall:.1f}", f"{total_items / total_wall:.1f}",
              "", "", "", "")
    console.print(t)
    console.print(f"four-benchmark oracle pass: {total_wall:.0f} s (goal < 180 s)")


if __name__ == "__main__":
    main()
