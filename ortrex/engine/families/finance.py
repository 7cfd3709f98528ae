"""Capital budgeting with project dependencies, and Markowitz portfolio selection (QP)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.ir.expr import Cond, P, V, total
from ortrex.ir.semantic import SemanticModel


@register
class CapitalBudgeting(Family):
    """Multi-period capital budgeting; some projects require others."""

    name = "capital_budgeting"
    classes = ("finance/capital_budgeting", "logic/implication")
    problem_class = "BIP"
    summary = "Select {J}s of greatest value within yearly budgets, respecting prerequisites."
    sizes = {"small": {"J": (4, 6), "Y": (2, 3), "D": (1, 2)},
             "medium": {"J": (8, 12), "Y": (2, 4), "D": (2, 5)},
             "large": {"J": (12, 16), "Y": (3, 4), "D": (4, 8)}}
    vocabularies = (
        Vocabulary("finance", "R&D portfolio",
                   "A company chooses {J}s to fund over the next {Y}s.",
                   {"J": ("R&D project", "codename"), "Y": ("year", "year"),
                    "D": ("prerequisite", "code:Dep")},
                   {"money": "MUSD", "org": "R&D board", "fund": "fund"}),
        Vocabulary("public_services", "Municipal works",
                   "A city council selects {J}s for its multi-{Y} plan.",
                   {"J": ("infrastructure project", "codename"), "Y": ("budget year", "year"),
                    "D": ("dependency", "code:Dep")},
                   {"money": "MEUR", "org": "city council", "fund": "approve"}),
        Vocabulary("energy", "Grid upgrades",
                   "A utility picks {J}s for its investment plan over several {Y}s.",
                   {"J": ("grid upgrade", "town"), "Y": ("year", "year"),
                    "D": ("prerequisite", "code:Dep")},
                   {"money": "MUSD", "org": "utility's investment committee",
                    "fund": "fund"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every project funded: the budgets are no limit."""
        return "every project is funded: the budgets are no limit" if all_at(
            values["y"]) else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nJ, nY, nD = b.dims["J"], b.dims["Y"], b.dims["D"]
        b.set("J")
        b.set("Y")
        # A project spends from its first year to the end of its build (the whole horizon
        # for most), nothing once it is built: never a year of nothing before the work is done,
        # never a project that costs nothing; the first year's outlay is the largest share.
        build = np.where(rng.random(nJ) < 0.6, nY, rng.integers(1, max(nY, 2), nJ))
        building = np.arange(nY)[None, :] < build[:, None]
        outlay = np.column_stack([rng.uniform(5, 20, nJ), rng.uniform(2, 20, (nJ, nY - 1))])
        spend = rounded(outlay * building, 1)
        value = rounded(spend.sum(axis=1) * rng.uniform(1.1, 2.0, nJ) + 1, 1)
        pairs = set()
        while len(pairs) < nD:
            i, j = sorted(int(v) for v in rng.choice(nJ, 2, replace=False))
            pairs.add((i, j))  # project j needs project i
        req, dep = zip(*sorted(pairs), strict=True)
        b.set("D", len(pairs))
        b.param("spend", ("J", "Y"), spend, "spending of each {J} in each {Y}", "{money}")
        # A share of the total (not everything fits), yet at least the dearest project's
        # spending in that year: each project fits every year's budget on its own.
        budget = np.maximum(rounded(spend.sum(axis=0) * rng.uniform(0.4, 0.7, nY), 1),
                            spend.max(axis=0))
        b.param("budget", ("Y",), budget, "budget of each {Y}", "{money}")
        b.param("value", ("J",), value, "net present value of each {J}", "{money}")
        b.param("required", ("D",), np.array(req, dtype=float), "the {J} that must be funded "
                "first", "{J} index", integer=True)
        b.param("dependent", ("D",), np.array(dep, dtype=float), "the {J} that depends on it",
                "{J} index", integer=True)
        b.var("y", (("j", "J"),), "1 if {J} j is funded", vtype="B", role="selection")
        b.con("budget_limit", "Spending in each {Y} stays within its budget.", (("t", "Y"),),
              total("j", "J", P("spend", "j", "t") * V("y", "j")), "<=", P("budget", "t"),
              role="budget")
        b.con("prerequisite", "A {J} is funded only if the {J} it depends on is.", (("d", "D"),),
              total("j", "J", V("y", "j"), Cond("link", "d", "j", param="dependent")) -
              total("i", "J", V("y", "i"), Cond("link", "d", "i", param="required")), "<=", 0.0,
              role="logic")
        b.objective("max", total("j", "J", P("value", "j") * V("y", "j")),
                    "total value in {money}")


@register
class Portfolio(Family):
    """Markowitz mean-variance portfolio: least variance for a required return (convex QP)."""

    name = "portfolio"
    classes = ("finance/portfolio", "nonlinear/qp")
    problem_class = "QP"
    summary = "Split a budget over {A}s to reach a target return with the least risk."
    sizes = {"small": {"A": (3, 5)}, "medium": {"A": (8, 20)}, "large": {"A": (30, 80)}}
    vocabularies = (
        Vocabulary("finance", "Equity fund",
                   "A fund manager allocates capital across {A}s.",
                   {"A": ("stock", "list:ticker")},
                   {"ret": "% per year", "org": "fund", "budget": "capital",
                    "risk": "volatility of returns"}),
        Vocabulary("energy", "Generation mix",
                   "A utility spreads investment over {A}s to limit price risk.",
                   {"A": ("generation technology", "list:technology")},
                   {"ret": "% margin", "org": "utility", "budget": "investment budget",
                    "risk": "margin risk"}),
        Vocabulary("agriculture", "Crop mix",
                   "A farm co-operative shares its land among {A}s to balance yield risk.",
                   {"A": ("crop", "list:crop")},
                   {"ret": "% yield gain", "org": "farm co-operative", "budget": "land",
                    "risk": "yield risk"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["A"]
        b.set("A")
        factors = rng.normal(0, 1, (n, 2)) * rng.uniform(1, 4, 2)
        cov = rounded(factors @ factors.T + np.diag(rng.uniform(1, 6, n)), 4)
        cov = (cov + cov.T) / 2
        mean = rounded(rng.uniform(2, 12, n), 2)
        cap = float(np.round(min(1.0, max(2.0 / n, rng.uniform(0.35, 0.7))), 2))
        # The best return reachable under the caps, by filling the best assets first.
        best, room = 0.0, 1.0
        for r in sorted(mean, reverse=True):
            take = min(cap, room)
            best, room = best + take * r, room - take
        target = float(np.round(mean.mean() + rng.uniform(0.3, 0.8) * (best - mean.mean()), 2))
        b.param("mean", ("A",), mean, "expected return of each {A}", "{ret}")
        b.param("cov", ("A", "A"), cov, "covariance of returns between {A}s", "({ret})^2")
        b.param("target", (), target, "required expected return", "{ret}")
        b.param("cap", (), cap, "largest share of any one {A}", "share of the budget")
        b.var("w", (("a", "A"),), "share of the budget in {A} a", ub=P("cap"),
              unit="share of the budget", role="quantity")
        b.con("fully_invested", "The shares add up to the whole budget.", (),
              total("a", "A", V("w", "a")), "=", 1.0, role="balance")
        b.con("return_target", "The expected return reaches the target.", (),
              total("a", "A", P("mean", "a") * V("w", "a")), ">=", P("target"), role="target")
        b.objective("min", total("a", "A", total("c", "A", P("cov", "a", "c") * V("w", "a") *
                                                 V("w", "c"))),
                    "variance of the return")
