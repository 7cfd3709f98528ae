"""Readers against the solvers' own: every MPS / LP file of a folder read by ortrex, by HiGHS
(``Highs.readModel``) and by Gurobi (``gurobipy.read``), each model solved, the answers compared.

The folder defaults to ``$ORTREX_SOLVER_TESTS`` (for example HiGHS's public ``check/instances``,
from a checkout of its repository; never vendored here). Prints, per file, which readers read
it, the three optima and whether they agree, then the counts: files each reader reads, status
and objective agreement where two read the same file, and ortrex's warnings. Gurobi's pip
licence solves only small models: larger ones are read but their optimum is ``skipped``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.table import Table

from ortrex.ir.formats import read_model
from ortrex.verifiers.solvers import SolveStatus, solve_highs

console = Console(width=160)
SUFFIXES = (".mps", ".lp", ".mps.gz", ".lp.gz")
TIME = 20.0


def _highs(path: Path) -> tuple[str, float | None]:
    import highspy

    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("time_limit", TIME)
    if h.readModel(str(path)) == highspy.HighsStatus.kError:
        return "unread", None
    h.setOptionValue("mip_rel_gap", 1e-9)
    h.run()
    st = h.getModelStatus()
    if st == highspy.HighsModelStatus.kOptimal:
        return "optimal", float(h.getInfo().objective_function_value)
    return h.modelStatusToString(st).lower(), None


def _gurobi(path: Path) -> tuple[str, float | None]:
    import gurobipy as gp

    env = gp.Env(empty=True)
    env.setParam("OutputFlag", 0)
    env.start()
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            m = gp.read(str(path), env)
    except gp.GurobiError:
        return "unread", None
    m.Params.TimeLimit = TIME
    m.Params.MIPGap = 1e-9
    try:
        m.optimize()
    except gp.GurobiError as exc:
        return ("skipped_license" if "size-limited" in str(exc) else "error"), None
    if m.Status == gp.GRB.OPTIMAL:
        return "optimal", float(m.ObjVal)
    return {gp.GRB.INFEASIBLE: "infeasible", gp.GRB.UNBOUNDED: "unbounded",
            gp.GRB.INF_OR_UNBD: "infeasible_or_unbounded"}.get(m.Status, str(m.Status)), None


def _ortrex(path: Path) -> tuple[str, float | None, str]:
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err):
            m = read_model(path)
    except Exception as exc:  # any refusal is counted
        return "unread", None, str(exc).splitlines()[0][:90]
    r = solve_highs(m, time_limit=TIME)
    if r.status is SolveStatus.OPTIMAL:
        return "optimal", r.objective, err.getvalue().strip()[:90]
    return r.status.value, None, err.getvalue().strip()[:90]


def _agree(a: float | None, b: float | None) -> bool:
    return a is not None and b is not None and abs(a - b) <= 1e-6 * max(1.0, abs(b))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("folder", nargs="?", default=os.environ.get("ORTREX_SOLVER_TESTS"))
    args = ap.parse_args()
    if not args.folder or not Path(args.folder).is_dir():
        print("give a folder of MPS / LP files (or set ORTREX_SOLVER_TESTS), for example "
              "HiGHS's check/instances", file=sys.stderr)
        raise SystemExit(0)
    files = sorted(p for p in Path(args.folder).iterdir() if p.name.endswith(SUFFIXES))
    t = Table(title=f"{len(files)} files from {args.folder}")
    for col in ("file", "ortrex", "HiGHS", "Gurobi", "agree", "ortrex says"):
        t.add_column(col, overflow="fold")
    counts: dict[str, int] = {"files": len(files)}
    rows: list[dict[str, Any]] = []
    t0 = time.perf_counter()
    for f in files:
        o_st, o_v, note = _ortrex(f)
        h_st, h_v = _highs(f)
        g_st, g_v = _gurobi(f)
        rows.append({"o": (o_st, o_v), "h": (h_st, h_v), "g": (g_st, g_v)})
        fmt = (lambda s, v: s if v is None else f"{v:.10g}")  # noqa: E731
        both = [v for st, v in ((h_st, h_v), (g_st, g_v)) if v is not None]
        agree = "-" if o_v is None or not both else \
            ("yes" if all(_agree(o_v, v) for v in both) else "NO")
        if o_v is None and o_st != "unread" and h_st not in ("unread", "optimal"):
            agree = "yes" if o_st.startswith(h_st[:5]) else agree
        t.add_row(f.name, fmt(o_st, o_v), fmt(h_st, h_v), fmt(g_st, g_v), agree, note)
    for name, key in (("ortrex", "o"), ("HiGHS", "h"), ("Gurobi", "g")):
        counts[f"read by {name}"] = sum(r[key][0] != "unread" for r in rows)
    for a, b in (("o", "h"), ("o", "g")):
        pairs = [r for r in rows if r[a][0] != "unread" and r[b][0] != "unread"
                 and r[b][0] not in ("skipped_license",)]
        counts[f"read by {a} and {b}"] = len(pairs)
        counts[f"{a}/{b} status agree"] = sum(
            (r[a][0] == r[b][0]) or (r[a][0].startswith("infeasible") and
                                     r[b][0].startswith("infeasible")) for r in pairs)
        counts[f"{a}/{b} optimum differs"] = sum(
            r[a][1] is not None and r[b][1] is not None and not _agree(r[a][1], r[b][1])
            for r in pairs)
    console.print(t)
    s = Table(title=f"summary ({time.perf_counter() - t0:.0f} s; o = ortrex, h = HiGHS, "
                    "g = Gurobi)")
    s.add_column("what")
    s.add_column("count", justify="right")
    for k, v in counts.items():
        s.add_row(k, str(v))
    console.print(s)


if __name__ == "__main__":
    main()
