"""Real public optimisation programs (modelling examples of Gurobi, PuLP, Pyomo, OR-Tools, COPT
answers, ...) imported with ``import_seeds``: the outcome of each source's programs (accepted,
or the reason), what happened to the programs in the sandbox, the share of programs that ran
to the end whose model was captured and verified, and the time.

The programs are never vendored or downloaded here: ``--seeds FILE`` is a seed JSONL built
elsewhere (one line per program, ``metadata.structure`` naming its source). ``--details``
lists every seed that was not accepted with its reason and detail.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path

from rich.console import Console
from rich.table import Table

from ortrex.engine.ingest.seeds import SeedLimits, import_seeds
from ortrex.store import Store

console = Console(width=160)

SEEDS_SQL = (
    "SELECT json_extract_string(l.params, '$.seed_id') AS seed, "
    "coalesce(json_extract_string(l.params, '$.metadata.structure'), 'seed') AS source, "
    "d.status, coalesce(d.reject_reason, '') AS reason, coalesce(d.reject_detail, '') AS detail, "
    "json_extract_string(s.details, '$.status') AS program, "
    "coalesce(CAST(json_extract(s.details, '$.models_captured') AS INT), 0) AS models, "
    "coalesce(json_extract_string(s.details, '$.error'), '') AS error, "
    "CAST(a.details AS VARCHAR) AS agreement "
    "FROM documents d JOIN lineage l ON l.child_id = d.id AND l.relation = 'imported' "
    "LEFT JOIN verifications s ON s.subject_id = d.id AND s.verifier = 'sandbox' "
    "LEFT JOIN verifications a ON a.subject_id = d.id AND a.verifier = 'agreement'")
# The statuses of a captured model that mean a solver verdict was reached (the model was read
# and solved by the parent), as opposed to a model that could not be read or was not solved.
SOLVED = {"accepted", "rejected", "trivial"}


def verified(agreement: str | None) -> bool:
    """Whether at least one captured model of the seed was read and judged by the solvers."""
    if not agreement:
        return False
    models = json.loads(agreement).get("models") or []
    return any(m.get("status") in SOLVED for m in models)


def outcome(status: str, reason: str) -> str:
    return "accepted" if status == "accepted" else (reason or status)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--seeds", type=Path, required=True, help="the seed JSONL to import")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--program-time-limit", type=float, default=30.0)
    ap.add_argument("--time-limit", type=float, default=10.0)
    ap.add_argument("--budget", type=float, default=90.0)
    ap.add_argument("--db", type=Path, help="keep the store here (default: a temporary one)")
    ap.add_argument("--details", action="store_true", help="list every seed not accepted")
    args = ap.parse_args()
    limits = SeedLimits(args.program_time_limit, args.time_limit, args.budget)
    with tempfile.TemporaryDirectory() as tmp:
        db = args.db or Path(tmp) / "bench.duckdb"
        t0 = time.perf_counter()
        with Store(db, create=True) as store:
            rep = import_seeds(store, args.seeds, workers=args.workers, limits=limits)
            elapsed = time.perf_counter() - t0
            rows = store.query(SEEDS_SQL).rows()
            solvers = Counter(store.query(
                "SELECT verifier || ': ' || status FROM verifications WHERE subject_kind = "
                "'instance'").to_series().to_list())

    by_source: dict[str, Counter[str]] = defaultdict(Counter)
    programs: dict[str, Counter[str]] = defaultdict(Counter)
    share: dict[str, Counter[str]] = defaultdict(Counter)
    failures = []
    for seed, src, status, reason, detail, program, models, error, agreement in rows:
        by_source[src][outcome(status, reason)] += 1
        programs[src][program or "not run"] += 1
        for key in (src, "all"):
            share[key]["seeds"] += 1
            if program == "ok":
                share[key]["ran"] += 1
                share[key]["captured"] += models > 0
                share[key]["verified"] += models > 0 and verified(agreement)
                share[key]["accepted"] += status == "accepted"
        if status != "accepted":
            failures.append((src, reason or status, seed, program or "not run", models,
                             (detail or error)[:220]))

    outcomes = sorted({o for c in by_source.values() for o in c},
                      key=lambda o: (o != "accepted", o))
    sources = sorted(by_source)
    t = Table(title=f"{rep.seeds} programs from {args.seeds.name}, {args.workers} workers, "
                    f"limits program {limits.program_s:g} s / solve {limits.solve_s:g} s / "
                    f"seed {limits.budget_s:g} s: outcome (accepted, or the reason) per source")
    t.add_column("outcome")
    for src in sources:
        t.add_column(src, justify="right")
    t.add_column("all", justify="right")
    for o in outcomes:
        t.add_row(o, *[str(by_source[src].get(o, "")) for src in sources],
                  str(sum(by_source[src].get(o, 0) for src in sources)),
                  style="bold" if o == "accepted" else None)
    t.add_row("total", *[str(sum(by_source[src].values())) for src in sources],
              str(sum(sum(c.values()) for c in by_source.values())), style="bold")
    console.print(t)

    p = Table(title="the program in the sandbox, per source")
    kinds = sorted({k for c in programs.values() for k in c})
    p.add_column("source")
    for k in kinds:
        p.add_column(k, justify="right")
    for src in sorted(programs):
        p.add_row(src, *[str(programs[src].get(k, "")) for k in kinds])
    console.print(p)

    s = Table(title="programs that ran to the end: model captured, verified, accepted")
    for col in ("source", "seeds", "ran to the end", "captured", "captured and verified",
                "% verified of ran", "accepted", "% accepted of ran"):
        s.add_column(col, justify="left" if col == "source" else "right")
    for src in sorted(share, key=lambda k: (k == "all", k)):
        c = share[src]
        ran = c["ran"] or 1
        s.add_row(src, str(c["seeds"]), str(c["ran"]), str(c["captured"]), str(c["verified"]),
                  f"{100 * c['verified'] / ran:.0f}%", str(c["accepted"]),
                  f"{100 * c['accepted'] / ran:.0f}%", style="bold" if src == "all" else None)
    console.print(s)

    m = Table(title="summary")
    m.add_column("what")
    m.add_column("value", justify="right")
    for what, v in [("seeds", rep.seeds), ("programs that ran to the end", rep.ran),
                    ("seeds with a model captured", rep.captured),
                    ("models verified (per seed)", rep.models), ("accepted", rep.accepted),
                    *[(f"solver verdicts {k}", c) for k, c in sorted(solvers.items())],
                    ("seconds", f"{elapsed:.1f}"), ("seconds / seed",
                                                     f"{elapsed / max(1, rep.seeds):.2f}")]:
        m.add_row(what, str(v))
    console.print(m)

    if args.details:
        f = Table(title="seeds not accepted", show_lines=False)
        for col in ("source", "reason", "seed", "program", "models", "detail"):
            f.add_column(col, overflow="fold")
        for row in sorted(failures):
            f.add_row(*[str(x) for x in row])
        console.print(f)


if __name__ == "__main__":
    main()
