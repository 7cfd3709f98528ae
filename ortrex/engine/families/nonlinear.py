"""Nonlinear families: a portfolio under a quadratic risk limit (convex QCQP), Haverly-style
pooling (bilinear quality balances), multi-item lot sizing under a space limit (the
square-root law as rotated cones) and the quadratic assignment problem (a non-convex MIQP).

HiGHS takes none of them (quadratic rows, or a quadratic objective over binaries): Gurobi
solves each to global optimality and the pipeline flags the instances ``single_solver``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, P, V, total
from ortrex.ir.semantic import SemanticModel


# ------------------------------------------------------------------ risk-limited portfolio
def factor_covariance(rng: np.random.Generator, n: int, scale: float
                      ) -> tuple[np.ndarray, np.ndarray]:
    """A covariance matrix from two factors plus specific risk (in units of ``scale``
    squared), rounded to two decimals and symmetric, and each asset's loading on the market
    factor (riskier assets earn more)."""
    beta = rng.uniform(0.5, 1.6, n)
    style = rng.normal(0, 1, n)
    market, other = scale * rng.uniform(0.8, 1.1), scale * rng.uniform(0.3, 0.6)
    specific = (scale * rng.uniform(0.4, 1.0, n)) ** 2
    cov = market ** 2 * np.outer(beta, beta) + other ** 2 * np.outer(style, style) + \
        np.diag(specific)
    cov = rounded((cov + cov.T) / 2, 2)
    cov = (cov + cov.T) / 2
    # Rounding moves eigenvalues by about 0.01 at most; the specific risk keeps it far from 0.
    assert np.linalg.eigvalsh(cov).min() > 0.1
    return cov, beta


@register
class RiskLimitedPortfolio(Family):
    """Most expected return with the variance of the portfolio capped (a convex quadratic
    constraint), the budget spent in full, per-asset and per-sector limits."""

    name = "risk_limited_portfolio"
    classes = ("nonlinear/qcqp", "finance/portfolio")
    problem_class = "QCP"
    summary = "Split the {budget} over {A}s for the highest expected return while the " \
              "variance of the return stays within its limit."
    sizes = {"small": {"A": (4, 5), "S": (2, 2)}, "medium": {"A": (10, 16), "S": (3, 4)},
             "large": {"A": (150, 165), "S": (6, 8)}}
    vocabularies = (
        Vocabulary("finance", "Risk-budgeted fund",
                   "A fund manager spreads capital over {A}s for the best expected return "
                   "within a variance limit.",
                   {"A": ("stock", "list:ticker"), "S": ("sector", "list:equity_sector")},
                   {"org": "fund", "budget": "capital", "ret": "% per year",
                    "risk": "variance of the fund's return", "group": "sector",
                    "hold": "hold"}),
        Vocabulary("public_services", "Pension reserve",
                   "A municipal pension scheme invests its reserve in {A}s, with the "
                   "variance of the return capped by its trustees.",
                   {"A": ("fund", "codename"), "S": ("asset class", "list:asset_class")},
                   {"org": "pension scheme", "budget": "reserve", "ret": "% per year",
                    "risk": "variance of the reserve's return", "group": "asset class",
                    "hold": "invest in"}),
        Vocabulary("energy", "Generation portfolio",
                   "A utility spreads its investment over {A}s for the best expected "
                   "margin, keeping the variance of that margin under a limit.",
                   {"A": ("generation project", "codename"), "S": ("region", "code:Region")},
                   {"org": "utility", "budget": "investment budget", "ret": "% margin",
                    "risk": "variance of the margin", "group": "region",
                    "hold": "put money into"}),
        Vocabulary("agriculture", "Crop plan under risk",
                   "A farm co-operative shares its land among {A}s for the best expected "
                   "margin, with the variance of the margin capped.",
                   {"A": ("crop variety", "codename"), "S": ("crop", "list:crop")},
                   {"org": "farm co-operative", "budget": "land", "ret": "% gross margin",
                    "risk": "variance of the gross margin", "group": "crop",
                    "hold": "plant"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Everything in one asset: the limits decided nothing."""
        w = np.asarray(values["w"])
        return "the whole budget sits in one asset" if np.sum(w > 1e-6) <= 1 else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n, nS = b.dims["A"], b.dims["S"]
        b.set("A")
        b.set("S")
        cov, beta = factor_covariance(rng, n, rng.uniform(12, 20))
        # Expected returns rise with the market loading, with noise: the best assets are
        # the risky ones, so the variance limit is what holds the return back.
        mean = rounded(rng.uniform(1.0, 2.5) + rng.uniform(3, 5) * beta +
                       rng.normal(0, 0.8, n), 2)
        mean = np.maximum(mean, 0.5)
        # Sectors gather assets of like market loading (a growth sector, a defensive one),
        # so the return-chasing assets crowd into one sector and its cap bites.
        order = np.argsort(beta + rng.normal(0, 0.15, n))
        sector = np.empty(n, dtype=int)
        sector[order] = np.arange(n) * nS // n
        member = np.zeros((nS, n))
        member[sector, np.arange(n)] = 1.0
        # Limits that still let the equal split through (so the plan is feasible), and
        # bite on a plan chasing the best returns.
        limit = rounded(np.maximum(rng.uniform(1.6, 3.0, n) / n, 1.2 / n) + 0.004, 3)
        limit = np.minimum(limit, 1.0)
        biggest = member.sum(axis=1).max() / n
        sector_cap = float(np.ceil((biggest + rng.uniform(0.005, 0.03)) * 100) / 100)
        sector_cap = min(sector_cap, 0.95) if nS > 1 else 1.0
        # The return-chasing plan (greedy is optimal over per-asset and per-sector caps).
        greedy, room, left = np.zeros(n), np.full(nS, sector_cap), 1.0
        for a in np.argsort(-mean):
            take = min(limit[a], room[sector[a]], left)
            greedy[a], room[sector[a]], left = take, room[sector[a]] - take, left - take
        even = np.full(n, 1.0 / n)
        v_even, v_greedy = float(even @ cov @ even), float(greedy @ cov @ greedy)
        hi = max(v_greedy, v_even * 1.05)
        cap = float(np.round(v_even + rng.uniform(0.4, 0.85) * (hi - v_even), 1))
        cap = max(cap, float(np.ceil(v_even * 10) / 10) + 0.1)
        b.param("mean", ("A",), mean, "expected return of each {A}", "{ret}")
        b.param("cov", ("A", "A"), cov, "covariance of returns between {A}s", "({ret})^2")
        b.param("member", ("S", "A"), member, "1 if a {A} belongs to a {S}", "0/1",
                integer=True)
        b.param("limit", ("A",), limit, "largest share of the {budget} in each {A}",
                "share of the {budget}")
        b.param("sector_cap", (), sector_cap, "largest share of the {budget} in any one {S}",
                "share of the {budget}")
        b.param("risk_cap", (), cap, "highest variance allowed for the return", "({ret})^2")
        b.var("w", (("a", "A"),), "share of the {budget} in {A} a", ub=P("limit", "a"),
              unit="share of the {budget}", role="quantity")
        b.con("fully_invested", "The shares add up to the whole {budget}.", (),
              total("a", "A", V("w", "a")), "=", 1.0, role="balance")
        b.con("sector_limit", "No {S} takes more than its largest share.", (("s", "S"),),
              total("a", "A", P("member", "s", "a") * V("w", "a")), "<=", P("sector_cap"),
              role="capacity")
        b.con("risk_limit", "The variance of the return stays within the limit.", (),
              total("a", "A", total("c", "A", P("cov", "a", "c") * V("w", "a") *
                                    V("w", "c"))), "<=", P("risk_cap"), role="capacity")
        b.objective("max", total("a", "A", P("mean", "a") * V("w", "a")),
                    "expected return in {ret}")


# ------------------------------------------------------------------ pooling
def pipes(rng: np.random.Generator, quality: np.ndarray, nL: int) -> np.ndarray:
    """Which pooled sources are piped into which pool (``pipe[l, i]``, 0/1): every pool gets
    a cleaner and a dirtier source (so its quality is a choice) and one or two more, every
    source reaches a pool, and no two pools share the same pipes (pools that could stand in
    for each other would only multiply the same plan). ``quality`` is sorted, cleanest
    first."""
    nI = quality.size
    if nL == 1:
        return np.ones((1, nI))
    third = max(1, nI // 3)
    while True:
        pipe = np.zeros((nL, nI))
        for q in range(nL):
            pipe[q, rng.integers(0, third)] = 1.0  # a clean source
            pipe[q, rng.integers(nI - third, nI)] = 1.0  # a dirty one
            extra = rng.choice(nI, int(rng.integers(1, 3)), replace=False)
            pipe[q, extra] = 1.0
        for i in np.flatnonzero(pipe.sum(axis=0) == 0):
            pipe[rng.integers(nL), i] = 1.0
        if len({tuple(r) for r in pipe}) == nL:
            return pipe


@register
class Pooling(Family):
    """Haverly's pooling problem with several pools: sources piped into pools whose quality
    is a decision, pools and the sources kept apart feeding products under quality limits
    (bilinear balances), every pool within its capacity."""

    name = "pooling"
    classes = ("nonlinear/bilinear", "blending/blending")
    problem_class = "QCP"
    summary = "Route {I}s through {L}s (and {K}s straight) into {J}s for the most profit, " \
              "every {J} within its {prop} limit."
    # The pools' quality balances are bilinear: Gurobi's spatial branch and bound is quick
    # while each pool has its own pipes and capacity, and slow (10-50 s at 3 pools, one
    # thread) when pools are interchangeable, all piped to every source (measured).
    # At least two pools and two kept sources in every band (one pool is Haverly's own
    # problem; two read as the network they are).
    sizes = {"small": {"I": (3, 4), "K": (2, 2), "L": (2, 2), "J": (2, 3)},
             "medium": {"I": (5, 7), "K": (2, 3), "L": (2, 3), "J": (3, 5)},
             "large": {"I": (13, 15), "K": (4, 5), "L": (4, 4), "J": (12, 13)}}
    vocabularies = (
        Vocabulary("energy", "Refinery pooling",
                   "A refinery blends {I}s in shared {L}s, and {K}s straight into {J}s, "
                   "keeping each {J} within its sulphur limit.",
                   {"I": ("crude", "list:crude"), "K": ("side stream", "list:stream"),
                    "L": ("pool tank", "code:Tank"),
                    "J": ("refinery product", "list:refinery_fuel")},
                   {"org": "refinery", "prop": "sulphur", "level": "% sulphur",
                    "qty": "barrels per day", "money": "USD per barrel", "cash": "USD",
                    "goods": "oil", "blend": "blend", "line": "pipeline",
                    "period": "day"}),
        Vocabulary("agriculture", "Feed pooling",
                   "A feed mill pools {I}s in {L}s and adds {K}s directly to make {J}s "
                   "whose mycotoxin level stays under each limit.",
                   {"I": ("grain lot", "list:grain"), "K": ("clean lot", "list:grain"),
                    "L": ("silo", "code:Silo"), "J": ("feed", "code:Feed")},
                   {"org": "feed mill", "prop": "mycotoxin", "level": "ppb mycotoxin",
                    "qty": "tonnes per week", "money": "USD per tonne", "cash": "USD",
                    "goods": "grain", "blend": "mix", "line": "conveyor",
                    "period": "week"}),
        Vocabulary("manufacturing", "Scrap melting",
                   "A foundry melts {I}s together in {L}s and adds {K}s straight to the "
                   "ladle, keeping the copper of every {J} under its limit.",
                   {"I": ("scrap grade", "code:Scrap"), "K": ("pure charge", "code:Charge"),
                    "L": ("melting furnace", "code:Furnace"), "J": ("alloy", "code:Alloy")},
                   {"org": "foundry", "prop": "copper", "level": "% copper",
                    "qty": "tonnes per day", "money": "EUR per tonne", "cash": "EUR",
                    "goods": "metal", "blend": "melt", "line": "charging route",
                    "period": "day"}),
        Vocabulary("utilities", "Water blending",
                   "A water company mixes {I}s in {L}s and {K}s directly into {J}s, "
                   "keeping the nitrate of each {J} below its limit.",
                   {"I": ("borehole", "code:Borehole"), "K": ("treated source", "code:Plant"),
                    "L": ("reservoir", "code:Reservoir"), "J": ("supply zone", "town")},
                   {"org": "water company", "prop": "nitrate", "level": "mg nitrate per L",
                    "qty": "megalitres per day", "money": "EUR per megalitre",
                    "cash": "EUR", "goods": "water", "blend": "blend", "line": "main",
                    "period": "day"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """The pools carry nothing: the products are made from the kept sources alone."""
        if float(np.sum(values["x"])) <= 1e-6:
            return "nothing flows through the pools"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nI, nK, nL, nJ = (b.dims[k] for k in ("I", "K", "L", "J"))
        b.set("I")
        b.set("K")
        b.set("L")
        b.set("J")
        unit = {"% sulphur": 1.0, "ppb mycotoxin": 10.0, "% copper": 0.2,
                "mg nitrate per L": 20.0}[b.vocab.words["level"]]
        money = {"USD per barrel": 1.0, "USD per tonne": 2.0, "EUR per tonne": 30.0,
                 "EUR per megalitre": 4.0}[b.vocab.words["money"]]
        # Pooled sources from clean and dear to dirty and cheap (at least one of each); the
        # kept sources in between or clean, and dear.
        q = np.sort(rng.uniform(0.5, 3.5, nI))
        q[0], q[-1] = rng.uniform(0.5, 1.2), rng.uniform(2.8, 3.8)
        q = np.sort(q)
        cost_i = 5.0 + 12.0 * (3.8 - q) / 3.3 + rng.normal(0, 0.6, nI)
        qk = rng.uniform(1.0, 2.2, nK)
        # Cheaper than a blend of the pooled sources of the same quality: scarce, so every
        # unit of them is used.
        cost_k = 5.0 + 12.0 * (3.8 - qk) / 3.3 - rng.uniform(0.3, 1.5, nK)
        spec = np.sort(rng.uniform(1.2, 2.8, nJ))
        # A product's price tops the cheapest two-source blend that meets its limit (blending
        # pays), by a margin that differs between products.
        lo, hi = q[0], q[-1]
        share = (hi - spec) / (hi - lo)  # of the clean source in a blend right at the limit
        base = share * cost_i[0] + (1 - share) * cost_i[-1]
        price = base * rng.uniform(1.08, 1.35, nJ) + rng.uniform(0.5, 1.5, nJ)
        demand = rounded(rng.uniform(80, 300, nJ), -1)
        avail_k = rounded(rng.uniform(0.15, 0.35, nK) * demand.sum() / nK, -1)
        # The pools together hold less than the products could take beyond the kept sources:
        # which products the pooled streams go to is a choice.
        rest = max(float(demand.sum() - avail_k.sum()), 40.0 * nL)
        cap = rounded(rest * rng.uniform(0.45, 0.85) * rng.dirichlet(np.full(nL, 4.0)), -1)
        cap = np.maximum(cap, 20.0)
        pipe = pipes(rng, q, nL)
        d = 3 if unit < 1 else 2
        b.param("quality", ("I",), rounded(q * unit, d), "{prop} of each {I}", "{level}")
        b.param("quality_k", ("K",), rounded(qk * unit, d), "{prop} of each {K}", "{level}")
        b.param("limit", ("J",), rounded(spec * unit, d), "highest {prop} of each {J}",
                "{level}")
        b.param("cost", ("I",), rounded(cost_i * money, 2), "cost of each {I}", "{money}")
        b.param("cost_k", ("K",), rounded(cost_k * money, 2), "cost of each {K}", "{money}")
        b.param("price", ("J",), rounded(price * money, 2), "selling price of each {J}",
                "{money}")
        b.param("demand", ("J",), demand, "most of each {J} that can be sold", "{qty}")
        b.param("supply_k", ("K",), avail_k, "{qty} of each {K} available", "{qty}")
        b.param("pool_cap", ("L",), cap, "most each {L} can pass on", "{qty}")
        b.param("pipe", ("L", "I"), pipe, "1 if the {I} has a {line} into the {L}", "0/1",
                integer=True)
        qmax = float(rounded(q * unit, d).max())  # no pool is dirtier than its worst source
        b.var("x", (("i", "I"), ("l", "L")), "{qty} of {I} i sent into {L} l", unit="{qty}",
              role="quantity")
        b.var("y", (("l", "L"), ("j", "J")), "{qty} from {L} l blended into {J} j",
              unit="{qty}", role="quantity")
        b.var("z", (("k", "K"), ("j", "J")), "{qty} of {K} k blended straight into {J} j",
              unit="{qty}", role="quantity")
        b.var("p", (("l", "L"),), "{prop} of what {L} l holds", ub=qmax, unit="{level}",
              role="auxiliary")
        b.con("piped", "A {I} goes only into a {L} it has a {line} to, and never beyond what "
              "the {L} can pass on.", (("i", "I"), ("l", "L")),
              V("x", "i", "l") - P("pool_cap", "l") * P("pipe", "l", "i"), "<=", 0.0,
              role="linking")
        b.con("pool_balance", "What flows into a {L} flows out of it.", (("l", "L"),),
              total("i", "I", V("x", "i", "l")) - total("j", "J", V("y", "l", "j")), "=",
              0.0, role="balance")
        b.con("pool_capacity", "No {L} passes on more than it can.", (("l", "L"),),
              total("j", "J", V("y", "l", "j")), "<=", P("pool_cap", "l"), role="capacity")
        b.con("pool_quality", "A {L}'s {prop} is the average of the {I}s poured into it.",
              (("l", "L"),),
              total("i", "I", P("quality", "i") * V("x", "i", "l")) -
              total("j", "J", V("p", "l") * V("y", "l", "j")), "=", 0.0, role="definition")
        b.con("quality_limit", "Every {J} stays within its {prop} limit.", (("j", "J"),),
              total("l", "L", V("p", "l") * V("y", "l", "j")) +
              total("k", "K", P("quality_k", "k") * V("z", "k", "j")) -
              total("l", "L", P("limit", "j") * V("y", "l", "j")) -
              total("k", "K", P("limit", "j") * V("z", "k", "j")), "<=", 0.0, role="ratio")
        b.con("demand_limit", "No more of a {J} is made than can be sold.", (("j", "J"),),
              total("l", "L", V("y", "l", "j")) + total("k", "K", V("z", "k", "j")), "<=",
              P("demand", "j"), role="capacity")
        b.con("supply_k_limit", "No {K} is used beyond what is available.", (("k", "K"),),
              total("j", "J", V("z", "k", "j")), "<=", P("supply_k", "k"), role="capacity")
        b.objective("max",
                    total("j", "J", P("price", "j") * (total("l", "L", V("y", "l", "j")) +
                                                       total("k", "K", V("z", "k", "j")))) -
                    total("i", "I", P("cost", "i") * total("l", "L", V("x", "i", "l"))) -
                    total("k", "K", P("cost_k", "k") * total("j", "J", V("z", "k", "j"))),
                    "profit in {cash} per {period}")


# ------------------------------------------------------------------ lot sizing under space
@register
class LotSizeSpace(Family):
    """Multi-item economic order quantities under a shared space limit: ordering cost
    K_i D_i / Q_i written with orders per year n_i and the rotated cone n_i Q_i >= D_i."""

    name = "lot_size_space"
    classes = ("nonlinear/qcqp", "inventory/lot_sizing")
    problem_class = "QCP"
    summary = "Choose an order size for every {I} at least ordering and holding cost, " \
              "with the {space} shared by all of them."
    sizes = {"small": {"I": (3, 4)}, "medium": {"I": (8, 15)}, "large": {"I": (76, 95)}}
    vocabularies = (
        Vocabulary("retail", "Store room orders",
                   "A shop orders each {I} in lots; every lot takes room in the "
                   "{space}.",
                   {"I": ("product line", "list:gadget")},
                   {"org": "electronics shop", "space": "store room", "room": "shelf metres",
                    "unit": "units", "one": "unit", "money": "USD", "order": "order"}),
        Vocabulary("manufacturing", "Raw material lots",
                   "A plant buys each {I} in lots that all share the {space}.",
                   {"I": ("raw material", "list:raw_material")},
                   {"org": "plant", "space": "materials yard", "room": "square metres",
                    "unit": "tonnes", "one": "tonne", "money": "EUR", "order": "order"}),
        Vocabulary("healthcare", "Pharmacy orders",
                   "A hospital pharmacy orders each {I} in lots that share its "
                   "{space}.",
                   {"I": ("medicine", "list:api")},
                   {"org": "hospital pharmacy", "space": "stock room",
                    "room": "litres", "unit": "packs", "one": "pack", "money": "EUR",
                    "order": "order"}),
        Vocabulary("food", "Canned goods depot",
                   "A food depot orders each {I} in lots that share its {space}.",
                   {"I": ("canned good", "list:canned_good")},
                   {"org": "food depot", "space": "warehouse", "room": "pallet places",
                    "unit": "cases", "one": "case", "money": "USD", "order": "order"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """The space limit leaves room: every item orders its own unconstrained lot."""
        if "space" not in sm.param_map or "q" not in values:  # a child without the limit
            return None
        a = np.asarray(sm.param_map["space"].values)
        cap = float(np.asarray(sm.param_map["room"].values))
        if float(a @ np.asarray(values["q"])) < cap * (1 - 1e-4):
            return "the space limit does not bind: every lot is its own economic order size"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["I"]
        b.set("I")
        demand = rounded(rng.uniform(400, 12000, n), -1)
        setup = rounded(rng.uniform(20, 180, n), 0)
        hold = rounded(rng.uniform(0.4, 12.0, n), 2)
        space = rounded(rng.uniform(0.01, 0.12, n), 3)
        eoq = np.sqrt(2 * setup * demand / hold)
        # The room holds only part of what the unconstrained lots would take: the square-root
        # law no longer answers alone. Space per lot at its largest (a delivery arrives whole).
        room = float(np.round(space @ eoq * rng.uniform(0.45, 0.75), 0))
        # A supplier's minimum lot for every item: for some near the lot they would get
        # anyway scaled by the squeeze (so some minimums bind), for the rest a small one; the
        # minimums together leave room to spare, so the plan stays feasible. (A minimum above
        # zero also keeps the orders per year bounded: Gurobi 13's presolve returned a far
        # from optimal point as optimal on a few instances with unbounded lots, measured.)
        squeeze = room / float(space @ eoq)
        least = np.where(rng.uniform(size=n) < 0.4,
                         rounded(eoq * squeeze * rng.uniform(0.8, 1.3, n), -1),
                         rounded(eoq * squeeze * rng.uniform(0.1, 0.35, n), -1))
        least = np.maximum(least, 5.0)
        while float(space @ least) > 0.9 * room and least.max() > 5.0:
            least = np.maximum(np.floor(least * 0.8 / 5) * 5, 5.0)
        room = max(room, float(np.ceil(space @ least / 0.9)))
        b.param("demand", ("I",), demand, "yearly demand of each {I}", "{unit} per year")
        b.param("setup", ("I",), setup, "cost of placing one order of each {I}",
                "{money} per order")
        b.param("hold", ("I",), hold, "cost of holding one {one} of each {I} for a year",
                "{money} per {one} and year")
        b.param("space", ("I",), space, "{room} one {one} of each {I} takes",
                "{room} per {one}")
        b.param("room", (), room, "{room} of {space} available", "{room}")
        b.param("min_lot", ("I",), least, "smallest order of each {I} the supplier accepts",
                "{unit}")
        b.var("q", (("i", "I"),), "order size of {I} i", lb=P("min_lot", "i"), unit="{unit}",
              role="quantity")
        b.var("n", (("i", "I"),), "orders of {I} i per year", unit="orders per year",
              role="quantity")
        b.con("cover_demand", "The orders of a {I} cover its yearly demand.", (("i", "I"),),
              V("n", "i") * V("q", "i"), ">=", P("demand", "i"), role="demand")
        b.con("space_limit", "The lots fit in the {space} together.", (),
              total("i", "I", P("space", "i") * V("q", "i")), "<=", P("room"),
              role="capacity")
        b.objective("min", total("i", "I", P("setup", "i") * V("n", "i")) +
                    total("i", "I", 0.5 * P("hold", "i") * V("q", "i")),
                    "yearly ordering and holding cost in {money}")


# ------------------------------------------------------------------ quadratic assignment
def _layout(rng: np.random.Generator, n: int) -> np.ndarray:
    """Distances between ``n`` spots scattered over a long floor (walking distances:
    straight lines times a detour), symmetric, zero on the diagonal, to a tenth of a metre
    (whole metres and whole flows tied layouts' costs by coincidence)."""
    pts = rng.uniform(0, 1, (n, 2)) * np.array([90.0, 30.0])
    d = np.linalg.norm(pts[:, None] - pts[None], axis=2)
    detour = rng.uniform(1.1, 1.4, (n, n))
    d = rounded(d * (detour + detour.T) / 2, 1)
    d = np.maximum(d, 2.0)
    np.fill_diagonal(d, 0.0)
    return d


@register
class QuadraticAssignment(Family):
    """Koopmans-Beckmann quadratic assignment: facilities to locations, one each, at least
    flow times distance over all pairs (a non-convex quadratic objective in binaries)."""

    name = "quadratic_assignment"
    classes = ("assignment/quadratic",)
    problem_class = "MIQP"
    summary = "Put every {F} in its own {L} so that the {flow} between {F}s travels the " \
              "least distance."
    # n^2 variables: on one thread Gurobi proves n = 8 optimal within 2.5 s (16 draws), while
    # n = 9 took 1 s typically but up to 55 s, n = 10 up to 17 s and n = 12 over a minute
    # (measured, sparse flows), so the large band is 64 variables, below the 150 of other
    # families: 150 would be n = 13.
    sizes = {"small": {"F": (4, 4)}, "medium": {"F": (6, 7)}, "large": {"F": (8, 8)}}
    vocabularies = (
        Vocabulary("manufacturing", "Plant layout",
                   "A plant puts each {F} in one {L} of its new hall; parts move between "
                   "{F}s every day.",
                   {"F": ("workshop", "list:workstation"), "L": ("bay", "code:Bay")},
                   {"org": "plant", "flow": "parts traffic", "qty": "trolley loads per day",
                    "length": "m", "load": "trolley-metres per day", "put": "place"}),
        Vocabulary("healthcare", "Ward placement",
                   "A hospital moves each {F} into one {L} of its new wing; patients and "
                   "staff walk between them.",
                   {"F": ("ward", "list:ward"), "L": ("floor area", "code:Area")},
                   {"org": "hospital", "flow": "patient and staff trips",
                    "qty": "trips per day", "length": "m", "load": "walking metres per day",
                    "put": "place"}),
        Vocabulary("retail", "Store layout",
                   "A department store puts each {F} in one {L}; shoppers walk between "
                   "{F}s.",
                   {"F": ("department", "list:department"), "L": ("floor zone", "code:Zone")},
                   {"org": "department store", "flow": "shopper traffic",
                    "qty": "shoppers per hour", "length": "m",
                    "load": "shopper-metres per hour", "put": "put"}),
        Vocabulary("logistics", "Warehouse zoning",
                   "A distribution centre gives each {F} one {L}; goods move between "
                   "{F}s all day.",
                   {"F": ("work area", "list:warehouse_section"), "L": ("dock zone", "code:Dock")},
                   {"org": "distribution centre", "flow": "forklift traffic",
                    "qty": "forklift trips per day", "length": "m",
                    "load": "forklift-metres per day", "put": "place"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["F"]
        b.set("F")
        b.set("L", n)
        dist = _layout(rng, n)
        # Flows: a few heavy pairs on a background of light ones, most pairs without any
        # (sparser as the layout grows: with two thirds of the pairs trading Gurobi took
        # 5-48 s at n = 9, measured); symmetric (traffic both ways counted once per
        # direction).
        light = 0.55 if n <= 5 else 0.8 / n
        flow = np.where(rng.uniform(size=(n, n)) < light, rng.uniform(1, 8, (n, n)), 0.0)
        heavy = rng.uniform(size=(n, n)) < 0.12
        flow = np.where(heavy, rng.uniform(15, 40, (n, n)), flow)
        flow = np.triu(rounded(flow, 0), 1)
        flow = flow + flow.T
        # Every facility trades with the rest through some chain (a random spanning tree):
        # a pair that only trades with each other could swap places at no cost.
        order = rng.permutation(n)
        for t in range(1, n):
            i, k = int(order[t]), int(order[rng.integers(t)])
            if flow[i, k] == 0:
                flow[i, k] = flow[k, i] = float(rng.integers(2, 9))
        b.param("flow", ("F", "F"), flow, "{flow} between each pair of {F}s", "{qty}")
        b.param("dist", ("L", "L"), dist, "distance between each pair of {L}s",
                "{length}")
        b.var("x", (("i", "F"), ("j", "L")), "1 if {F} i goes to {L} j", vtype="B",
              role="assignment")
        b.con("each_facility", "Every {F} gets exactly one {L}.", (("i", "F"),),
              total("j", "L", V("x", "i", "j")), "=", 1.0, role="assignment")
        b.con("each_location", "Every {L} holds exactly one {F}.", (("j", "L"),),
              total("i", "F", V("x", "i", "j")), "=", 1.0, role="assignment")
        b.objective("min", total("i", "F", total("k", "F", total("j", "L", total(
            "l", "L", P("flow", "i", "k") * P("dist", "j", "l") * V("x", "i", "j") *
            V("x", "k", "l"), Cond("ne", "j", "l"))), Cond("ne", "i", "k"))),
            "total {flow} times distance in {load}")
