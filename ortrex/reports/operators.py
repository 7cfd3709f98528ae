"""Operator review: per mutation operator, its acceptance, its rejections by reason and a seeded
sample of accepted children, each with a statement excerpt and a diff of its semantic model
against its parent's.

Everything is selected in DuckDB: outcomes are grouped there, and the sample is drawn there (an
md5 of seed and child id orders each operator's accepted children), so only the sampled models
(a few per operator) are ever parsed, however large the store. A task's operator comes from the
mutate job's ``generated`` edge (run -> child semantic model); a task whose operator did not
apply stores no child and no operator, so it is counted apart.
"""

from __future__ import annotations

import html
import json
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import polars as pl

from ortrex.ir.expr import Cond, Expr, Param, Var, as_expr
from ortrex.ir.semantic import (
    ConstraintFamily,
    IndexSet,
    Parameter,
    SemanticModel,
    VariableFamily,
)
from ortrex.store.db import Store

SAMPLES = 3
EXCERPT_CHARS = 400
SHOWN_LINES = 15  # diff lines shown per sample on the page (the table keeps them all)
_VTYPES = {"C": "continuous", "I": "integer", "B": "binary"}

# One row per mutation task that produced a child: its operator (from the run's "generated"
# edge to the child) and its outcome or rejection reason.
TRIED_SQL = """
SELECT g.operator, t.id AS task_id, t.semantic_id AS child_id, t.instance_id, t.outcome,
       t.reason
FROM run_tasks t
JOIN lineage g ON g.parent_id = t.run_id AND g.child_id = t.semantic_id
WHERE g.relation = 'generated' AND g.child_kind = 'semantic_model' AND g.operator IS NOT NULL
"""

OUTCOMES_SQL = f"""
SELECT operator, CASE WHEN outcome = 'accepted' THEN 'accepted'
                      ELSE coalesce(reason, outcome) END AS outcome, count(*) AS n
FROM ({TRIED_SQL}) GROUP BY ALL ORDER BY operator, outcome
"""

UNATTRIBUTED_SQL = """
SELECT count(*) FROM run_tasks t JOIN runs r ON r.id = t.run_id
WHERE r.command = 'mutate' AND t.outcome = 'skipped'
"""

# The task id is "<run id>:r<round>:<parent semantic id>:<j>": its third part names the parent
# the operator was applied to (a crossover's child has a second, partner, parent).
SAMPLE_SQL = f"""
WITH acc AS (
    SELECT operator, child_id, min(instance_id) AS instance_id,
           min(split_part(task_id, ':', 3)) AS primary_parent
    FROM ({TRIED_SQL}) WHERE outcome = 'accepted' GROUP BY ALL
), pick AS (
    SELECT *, row_number() OVER (PARTITION BY operator
                                 ORDER BY md5($seed || ':' || child_id), child_id) AS rank
    FROM acc QUALIFY rank <= $k
), edge AS (
    SELECT p.*, l.parent_id, l.params::VARCHAR AS params
    FROM pick p LEFT JOIN lineage l ON l.child_id = p.child_id AND l.relation = 'mutated'
         AND l.operator = p.operator
    QUALIFY row_number() OVER (PARTITION BY p.operator, p.child_id
                               ORDER BY l.parent_id IS DISTINCT FROM p.primary_parent,
                                        l.parent_id) = 1
)
SELECT e.operator, e.rank, e.child_id, e.parent_id, e.instance_id, e.params,
       c.family, c.domain, c.model::VARCHAR AS child_model, pm.model::VARCHAR AS parent_model,
       (SELECT left(d.statement, {EXCERPT_CHARS + 200}) FROM documents d
        WHERE d.semantic_id = e.child_id AND d.status = 'accepted' AND d.statement IS NOT NULL
        ORDER BY d.form, d.kind, d.id LIMIT 1) AS statement
FROM edge e JOIN semantic_models c ON c.id = e.child_id
LEFT JOIN semantic_models pm ON pm.id = e.parent_id
ORDER BY e.operator, e.rank
"""


# ---------------------------------------------------------------- the model diff
@dataclass(frozen=True)
class Change:
    """One difference of a child model from its parent: ``+`` added, ``-`` removed,
    ``~`` changed."""

    op: str
    kind: str  # objective, variable, constraint, parameter, set, domain, family
    name: str
    detail: str

    def __str__(self) -> str:
        return f"{self.op} {self.kind}{' ' + self.name if self.name else ''}: {self.detail}"


def _short(text: str, n: int = 100) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[:n - 1].rstrip() + "…"


def _was(what: str, a: object, b: object) -> str:
    return f"{what} {_short(repr(a), 60)} -> {_short(repr(b), 60)}"


def _js(x: Expr | float) -> str:
    return json.dumps(as_expr(x).to_json(), sort_keys=True, default=str)


def _conds(conds: Iterable[Cond]) -> str:
    return json.dumps([c.to_json() for c in conds], sort_keys=True)


def _over(dims: Iterable[str]) -> str:
    dims = list(dims)
    return f"over {' x '.join(dims)}" if dims else "scalar"


def _names(e: Expr) -> set[str]:
    """Parameters and variables an expression reads."""
    return {n.name for n in e.walk() if isinstance(n, (Param, Var))}


def _shape(v: np.ndarray) -> str:
    return "x".join(map(str, v.shape)) or "scalar"


def _param_change(a: Parameter, b: Parameter) -> list[str]:
    out = []
    if a.index != b.index or a.values.shape != b.values.shape:
        out.append(f"shape {_shape(a.values)} -> {_shape(b.values)}"
                   + (f" ({_over(a.index)} -> {_over(b.index)})" if a.index != b.index else ""))
    else:
        diff = a.values != b.values
        n = int(diff.sum())
        if n:
            note = ""
            old, new = a.values[diff], b.values[diff]
            nz = old != 0
            if nz.all():
                ratio = new / old
                if np.allclose(ratio, ratio[0], rtol=1e-9):
                    note = f" (each x{ratio[0]:.3g})"
                else:
                    note = f" (mean change {float(np.mean((new - old) / np.abs(old))):+.0%})"
            out.append(f"{n} of {a.values.size} values changed{note}")
    if a.unit != b.unit:
        out.append(_was("unit", a.unit, b.unit))
    if a.description != b.description:
        out.append(_was("meaning", a.description, b.description))
    if a.integer != b.integer:
        out.append(f"integer data {'yes' if a.integer else 'no'} -> "
                   f"{'yes' if b.integer else 'no'}")
    return out


def _var_change(a: VariableFamily, b: VariableFamily) -> list[str]:
    out = []
    if a.vtype != b.vtype:
        out.append(f"{_VTYPES.get(a.vtype, a.vtype)} -> {_VTYPES.get(b.vtype, b.vtype)}")
    if a.dims != b.dims:
        out.append(f"{_over(s for _, s in a.dims)} -> {_over(s for _, s in b.dims)}")
    if (_js(a.lb), _js(a.ub)) != (_js(b.lb), _js(b.ub)):
        out.append("bounds changed")
    if _conds(a.where) != _conds(b.where):
        out.append("condition changed")
    if a.description != b.description:
        out.append(_was("meaning", a.description, b.description))
    if a.unit != b.unit:
        out.append(_was("unit", a.unit, b.unit))
    if a.role != b.role:
        out.append(f"role {a.role or '-'} -> {b.role or '-'}")
    return out


def _con_change(a: ConstraintFamily, b: ConstraintFamily) -> list[str]:
    out = []
    if a.sense != b.sense:
        out.append(f"sense {a.sense} -> {b.sense}")
    if a.forall != b.forall:
        out.append(f"for each {_over(s for _, s in a.forall)} -> "
                   f"{_over(s for _, s in b.forall)}")
    if _js(a.lhs) != _js(b.lhs):
        out.append("left-hand side changed")
    if _js(a.rhs) != _js(b.rhs):
        out.append("right-hand side changed")
    if _conds(a.where) != _conds(b.where):
        out.append("condition changed")
    if a.meaning != b.meaning:
        out.append(_was("meaning", a.meaning, b.meaning))
    if a.role != b.role:
        out.append(f"role {a.role or '-'} -> {b.role or '-'}")
    return out


def _var_text(v: VariableFamily) -> str:
    return (f"{_short(v.description or 'no description')} ({_VTYPES.get(v.vtype, v.vtype)}, "
            f"{_over(s for _, s in v.dims)})")


def _param_text(p: Parameter) -> str:
    unit = f", {p.unit}" if p.unit else ""
    return f"{_short(p.description or 'no description')} ({_over(p.index)}{unit})"


def diff_models(parent: SemanticModel, child: SemanticModel) -> list[Change]:
    """What the child changed: objective, variable and constraint families, parameters, sets,
    domain; each added, removed or changed, with its name and a short meaning."""
    out: list[Change] = []
    po, co = parent.objective, child.objective
    said = [f"{po.sense} -> {co.sense}"] if po.sense != co.sense else []
    if _js(po.expr) != _js(co.expr):
        was, now = _names(po.expr), _names(co.expr)
        reads = [f"now also reads {', '.join(sorted(now - was))}" if now - was else "",
                 f"no longer reads {', '.join(sorted(was - now))}" if was - now else ""]
        detail = ", ".join(r for r in reads if r)
        said.append("expression changed" + (f" ({detail})" if detail else ""))
    if po.description != co.description:
        said.append(_was("meaning", po.description, co.description))
    if said:
        out.append(Change("~", "objective", "", "; ".join(said)))

    def families(kind: str, old: Mapping[str, Any], new: Mapping[str, Any],
                 text: Callable[[Any], str], change: Callable[[Any, Any], list[str]]) -> None:
        for name in new:
            if name not in old:
                out.append(Change("+", kind, name, text(new[name])))
        for name in old:
            if name not in new:
                out.append(Change("-", kind, name, text(old[name])))
            else:
                got = change(old[name], new[name])
                if got:
                    out.append(Change("~", kind, name, "; ".join(got)))

    families("variable", parent.var_map, child.var_map, _var_text, _var_change)
    families("constraint", {c.name: c for c in parent.constraints},
             {c.name: c for c in child.constraints},
             lambda c: _short(c.meaning or "no meaning given"), _con_change)
    families("parameter", parent.param_map, child.param_map, _param_text, _param_change)

    def set_change(a: IndexSet, b: IndexSet) -> list[str]:
        got = []
        ea, eb = a.elements, b.elements
        if len(ea) != len(eb):
            got.append(f"{len(ea)} -> {len(eb)} elements")
        elif ea != eb:
            renamed = len(set(eb) - set(ea))
            got.append(f"{renamed} of {len(eb)} elements renamed" if renamed
                       else "elements reordered")
        if a.entity != b.entity:
            got.append(_was("entity", a.entity, b.entity))
        return got

    families("set", parent.set_map, child.set_map,
             lambda s: f"{len(s)} elements" + (f" ({s.entity})" if s.entity else ""), set_change)
    if parent.domain != child.domain:
        out.append(Change("~", "domain", "", f"{parent.domain} -> {child.domain}"))
    if parent.family != child.family:
        out.append(Change("~", "family", "", f"{parent.family} -> {child.family}"))
    return out


def model_summary(sm: SemanticModel) -> str:
    """A short telling of a model when no statement was rendered: its story and goal."""
    d = sm.descriptors
    text = f"{d.get('story', '')} {d.get('summary', '')}".strip()
    return text or (f"{sm.family} ({sm.domain}): {sm.objective.sense} "
                    f"{sm.objective.description or 'objective'}")


def excerpt(text: str, n: int = EXCERPT_CHARS) -> str:
    """The first ``n`` characters of ``text``, cut at a word, with an ellipsis when cut."""
    if len(text) <= n:
        return text
    cut = text[:n]
    space = cut.rfind(" ")
    return (cut[:space] if space > n // 2 else cut).rstrip() + " …"


# ---------------------------------------------------------------- the review
@dataclass
class OperatorReview:
    """The review's tables: acceptance per operator and the sampled children."""

    acceptance: pl.DataFrame  # operator, tried, accepted, acceptance, rejections
    outcomes: pl.DataFrame  # operator, outcome, n
    samples: pl.DataFrame  # operator, rank, child_id, parent_id, ..., excerpt, diff
    unattributed: int  # mutation tasks that made no child (not applicable, invalid)


def operator_review(store: Store, seed: int = 0, per_operator: int = SAMPLES
                    ) -> OperatorReview:
    """Acceptance, rejections by reason and ``per_operator`` seeded samples per operator."""
    outcomes = store.query(OUTCOMES_SQL)
    if outcomes.height:
        acceptance = (outcomes.group_by("operator").agg(
            pl.col("n").sum().alias("tried"),
            pl.col("n").filter(pl.col("outcome") == "accepted").sum().alias("accepted"),
            pl.format("{} ({})", pl.col("outcome"), pl.col("n"))
            .filter(pl.col("outcome") != "accepted").sort().str.join("; ")
            .alias("rejections"))
            .with_columns((pl.col("accepted") / pl.col("tried")).round(3).alias("acceptance"))
            .select("operator", "tried", "accepted", "acceptance", "rejections")
            .sort("operator"))
    else:
        acceptance = pl.DataFrame(schema={"operator": pl.Utf8, "tried": pl.Int64,
                                          "accepted": pl.Int64, "acceptance": pl.Float64,
                                          "rejections": pl.Utf8})
    raw = store.query(SAMPLE_SQL, {"seed": str(seed), "k": per_operator})
    rows = []
    for r in raw.iter_rows(named=True):
        child = SemanticModel.loads(r["child_model"])
        if r["parent_model"] is None:
            lines = ["parent model not in the store"]
        else:
            lines = [str(c) for c in diff_models(SemanticModel.loads(r["parent_model"]), child)]
        statement = r["statement"]
        rows.append({
            "operator": r["operator"], "rank": int(r["rank"]), "child_id": r["child_id"],
            "parent_id": r["parent_id"], "instance_id": r["instance_id"],
            "family": r["family"], "domain": r["domain"], "params": r["params"],
            "excerpt_from": "statement" if statement else "model summary",
            "excerpt": excerpt(statement if statement else model_summary(child)),
            "diff": lines or ["no change to the model"]})
    samples = pl.DataFrame(rows, schema={
        "operator": pl.Utf8, "rank": pl.Int64, "child_id": pl.Utf8, "parent_id": pl.Utf8,
        "instance_id": pl.Utf8, "family": pl.Utf8, "domain": pl.Utf8, "params": pl.Utf8,
        "excerpt_from": pl.Utf8, "excerpt": pl.Utf8, "diff": pl.List(pl.Utf8)})
    unattributed = int(store.query(UNATTRIBUTED_SQL).item())
    return OperatorReview(acceptance, outcomes, samples, unattributed)


def _params_text(params: str | None) -> str:
    """The operator's parameters without the job's bookkeeping (round, seed)."""
    if not params:
        return ""
    try:
        d = json.loads(params)
    except ValueError:
        return _short(params, 120)
    if not isinstance(d, dict):
        return _short(params, 120)
    shown = {k: v for k, v in d.items() if k not in ("round", "seed")}
    return _short(", ".join(f"{k}={v:g}" if isinstance(v, float) and math.isfinite(v)
                            else f"{k}={v}" for k, v in shown.items()), 160)


def review_html(review: OperatorReview) -> str:
    """The section's body: an acceptance table, then each operator's rejections and samples
    (every store text escaped)."""
    e = html.escape
    acc = review.acceptance
    head = "".join(f"<th>{c}</th>" for c in ("operator", "children tried", "accepted",
                                             "acceptance", "rejected, by reason"))
    body = "".join(
        f"<tr><td><a href=\"#review-{e(op)}\">{e(op)}</a></td><td>{tried}</td>"
        f"<td>{accepted}</td><td>{rate:.0%}</td><td class=\"left\">{e(rej or '-')}</td></tr>"
        for op, tried, accepted, rate, rej in acc.iter_rows())
    out = [f"<p>Per mutation operator: the verified children it made (tried) and how many "
           f"were accepted, rejections by reason, and up to {SAMPLES} accepted children drawn "
           "with a fixed seed, each with a statement excerpt and the diff of its model against "
           "its parent's.</p>",
           f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"]
    if review.unattributed:
        out.append(f"<p class=\"meta\">{review.unattributed:,} mutation tasks made no child "
                   "(the operator did not apply, or the child was invalid); the store does "
                   "not name their operator.</p>")
    by_op = review.samples.partition_by("operator", as_dict=True) if review.samples.height \
        else {}
    for op, tried, accepted, rate, rej in acc.iter_rows():
        out.append(f"<div class=\"operator\" id=\"review-{e(op)}\"><h3>{e(op)}</h3>"
                   f"<p class=\"meta\">acceptance {accepted} / {tried} ({rate:.0%})"
                   f"{' &middot; rejected: ' + e(rej) if rej else ''}</p>")
        got = by_op.get((op,))
        if got is None or not got.height:
            out.append("<p class=\"meta\">no accepted child to sample</p></div>")
            continue
        for s in got.sort("rank").iter_rows(named=True):
            lines = list(s["diff"])
            more = len(lines) - SHOWN_LINES
            shown = lines[:SHOWN_LINES] + ([f"… and {more} more"] if more > 0 else [])
            params = _params_text(s["params"])
            out.append(
                "<div class=\"sample\"><p class=\"meta\">"
                f"child <code>{e(s['child_id'][:12])}</code> of parent "
                f"<code>{e((s['parent_id'] or '?')[:12])}</code> &middot; {e(s['family'])} "
                f"&middot; {e(s['domain'] or '')}"
                f"{' &middot; ' + e(params) if params else ''}</p>"
                f"<p class=\"label\">{e(s['excerpt_from'])}</p>"
                f"<blockquote class=\"excerpt\">{e(s['excerpt'])}</blockquote>"
                f"<p class=\"label\">model diff against the parent</p>"
                f"<pre class=\"diff\">{e(chr(10).join(shown))}</pre></div>")
        out.append("</div>")
    return "\n".join(out)


__all__ = ["Change", "OperatorReview", "diff_models", "excerpt", "model_summary",
           "operator_review", "review_html"]
