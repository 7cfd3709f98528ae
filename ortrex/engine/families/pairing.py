"""Pairing and partitioning: generalized assignment, graph colouring, weighted matching in a
general graph and crew pairing (set partitioning over candidate duties).

Graphs are sets of their own: an undirected edge (a clash, an allowed pair) has two integer
parameters ``end_a`` and ``end_b``, the positions of its two end nodes, and rows that sum
over the nodes of an edge (or the edges of a node) read them through ``link`` conditions.
"""

from __future__ import annotations

from collections.abc import Mapping
from itertools import pairwise

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, all_at, register, rounded
from ortrex.ir.expr import Cond, Idx, P, V, total
from ortrex.ir.semantic import SemanticModel


# ------------------------------------------------------------------ generalized assignment
@register
class GeneralizedAssignment(Family):
    """Tasks to agents whose capacity limits what the tasks use (use depends on the agent)."""

    name = "generalized_assignment"
    classes = ("assignment/generalized",)
    problem_class = "BIP"
    summary = "Give each {T} to one {A} within every {A}'s {cap_word}, at least total cost."
    sizes = {"small": {"A": (2, 3), "T": (6, 8)}, "medium": {"A": (3, 5), "T": (12, 20)},
             "large": {"A": (5, 6), "T": (30, 36)}}
    vocabularies = (
        Vocabulary("workforce", "Job allocation",
                   "A contractor gives each {T} to one {A}, within each {A}'s free hours.",
                   {"A": ("technician", "person"), "T": ("job", "list:job")},
                   {"money": "USD", "use": "hours", "cap_word": "free hours",
                    "org": "building contractor", "give": "give", "did": "done"}),
        Vocabulary("computing", "Batch placement",
                   "A platform team places each {T} on one {A}, within each {A}'s "
                   "CPU hours this week.",
                   {"A": ("server", "codename"), "T": ("batch job", "list:service")},
                   {"money": "USD", "use": "CPU hours", "cap_word": "CPU hours",
                    "org": "platform team", "give": "place", "did": "run"}),
        Vocabulary("healthcare", "Home visits",
                   "A home-care service gives each {T} to one {A}, within each {A}'s "
                   "shift.",
                   {"A": ("nurse", "person"), "T": ("patient visit", "surname")},
                   {"money": "EUR", "use": "minutes", "cap_word": "shift minutes",
                    "org": "home-care service", "give": "give", "did": "made"}),
        Vocabulary("education", "Course staffing",
                   "A faculty gives each {T} to one {A}, within each {A}'s teaching hours.",
                   {"A": ("lecturer", "surname"), "T": ("course", "list:topic")},
                   {"money": "EUR", "use": "hours", "cap_word": "teaching hours",
                    "org": "faculty", "give": "give", "did": "taught"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every task goes to its cheapest agent: the capacities decide nothing."""
        cost = np.asarray(sm.param_map["cost"].values)
        x = np.asarray(values["x"]).reshape(cost.shape)
        if np.all(x[np.argmin(cost, axis=0), np.arange(cost.shape[1])] > 0.5):
            return "every task goes to its cheapest agent: no capacity binds"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nA, nT = b.dims["A"], b.dims["T"]
        b.set("A")
        b.set("T")
        minutes = b.vocab.words["use"] == "minutes"
        # Work of each task at a typical agent (a visit of some minutes, a course of a term's
        # teaching hours, a job of a few hours), and each agent's pace (below 1: faster).
        long_ = b.vocab.domain in ("healthcare", "education")
        work = rng.uniform(20, 90, nT) if long_ else rng.uniform(2, 9, nT)
        pace = rng.uniform(0.7, 1.4, nA)
        use = rounded(np.outer(pace, work) * rng.uniform(0.85, 1.18, (nA, nT)),
                      0 if long_ else 1)
        # Faster agents cost more per hour, so the cheap ones run out of capacity first.
        rate = (rng.uniform(0.6, 1.1) if minutes else rng.uniform(35, 70)) * pace ** -1.6
        cost = rounded(use * rate[:, None] * rng.uniform(0.9, 1.1, (nA, nT)), 0)
        cost = np.maximum(cost, 1.0)
        # Capacities about an even share of the work, and never below a plan that fits
        # (largest tasks first, each to the agent with the most room left).
        target = work.sum() * pace.mean() / nA * rng.uniform(0.88, 1.0, nA)
        load = np.zeros(nA)
        for t in np.argsort(-work):
            a = int(np.argmax(target - load - use[:, t]))
            load[a] += use[a, t]
        # Every task fits every agent alone (else that pairing could never be chosen).
        capacity = np.ceil(np.maximum(np.maximum(target, load), use.max(axis=1) * 1.1))
        if minutes:
            capacity = np.ceil(capacity / 5) * 5
        b.param("use", ("A", "T"), use, "{use} each {A} needs for each {T}", "{use}")
        b.param("cost", ("A", "T"), cost, "cost of each {T} {did} by each {A}", "{money}")
        b.param("capacity", ("A",), capacity, "{cap_word} of each {A}", "{use}")
        b.var("x", (("a", "A"), ("t", "T")), "1 if {A} a takes {T} t", vtype="B",
              role="assignment")
        b.con("each_task", "Every {T} goes to exactly one {A}.", (("t", "T"),),
              total("a", "A", V("x", "a", "t")), "=", 1.0, role="assignment")
        b.con("capacity_limit", "The {T}s of a {A} fit within its {cap_word}.", (("a", "A"),),
              total("t", "T", P("use", "a", "t") * V("x", "a", "t")), "<=",
              P("capacity", "a"), role="capacity")
        b.objective("min", total("a", "A", total("t", "T", P("cost", "a", "t") *
                                                 V("x", "a", "t"))), "total cost in {money}")


# ------------------------------------------------------------------ graphs
def _edges(b: Builder, pairs: list[tuple[int, int]]) -> None:
    """The edge set ``E`` and the positions of each edge's two ends."""
    b.set("E", len(pairs))
    b.param("end_a", ("E",), np.array([p[0] for p in pairs], dtype=float),
            "position of the first {V} of each {E}", "{V} index", integer=True)
    b.param("end_b", ("E",), np.array([p[1] for p in pairs], dtype=float),
            "position of the second {V} of each {E}", "{V} index", integer=True)
    b.extra["edges"] = [[int(i), int(j)] for i, j in pairs]


def clash_graph(rng: np.random.Generator, n: int) -> list[tuple[int, int]]:
    """Conflicts as groups that share a member (students taking several exams): every group
    of 2-4 nodes is a clique; every node is in some group, the graph is no bipartite one."""
    pairs: set[tuple[int, int]] = set()
    groups = max(3, round(float(n * rng.uniform(0.7, 1.0))))
    members = [sorted(rng.choice(n, size=int(rng.integers(2, 5)), replace=False).tolist())
               for _ in range(groups)]
    members.append(sorted(rng.choice(n, size=3, replace=False).tolist()))  # an odd cycle
    seen = {v for g in members for v in g}
    for v in range(n):
        if v not in seen:  # every node clashes with something
            members.append(sorted([v, int(rng.choice([u for u in range(n) if u != v]))]))
    for g in members:
        for k, i in enumerate(g):
            for j in g[k + 1:]:
                pairs.add((i, j))
    return sorted(pairs)


def greedy_colours(n: int, pairs: list[tuple[int, int]]) -> int:
    """Colours a largest-degree-first greedy colouring uses (an upper bound)."""
    adj: list[set[int]] = [set() for _ in range(n)]
    for i, j in pairs:
        adj[i].add(j)
        adj[j].add(i)
    colour: dict[int, int] = {}
    for v in sorted(range(n), key=lambda u: -len(adj[u])):
        taken = {colour[u] for u in adj[v] if u in colour}
        colour[v] = next(c for c in range(n) if c not in taken)
    return max(colour.values()) + 1


@register
class GraphColouring(Family):
    """Graph colouring: nodes to colours, adjacent nodes apart, fewest colours used."""

    name = "graph_colouring"
    classes = ("assignment/colouring", "scheduling/timetabling")
    problem_class = "BIP"
    summary = "Give every {V} a {C} so that no two clashing {V}s share one, using the " \
              "fewest {C}s."
    sizes = {"small": {"V": (6, 8)}, "medium": {"V": (10, 16)}, "large": {"V": (28, 34)}}
    vocabularies = (
        Vocabulary("education", "Exam timetable",
                   "A registry puts every {V} in one {C}; {V}s that share students clash.",
                   {"V": ("exam", "list:topic"), "E": ("clash", "code:Clash"),
                    "C": ("exam slot", "code:Slot")},
                   {"org": "registry", "clash": "share students", "put": "schedule",
                    "why": "no student can sit two exams at once"}),
        Vocabulary("telecom", "Channel plan",
                   "A network planner gives every {V} one {C}; nearby {V}s interfere.",
                   {"V": ("transmitter", "town"), "E": ("interference pair", "code:Pair"),
                    "C": ("frequency channel", "code:Ch")},
                   {"org": "network planner", "clash": "interfere",
                    "put": "assign a channel to",
                    "why": "their signals would jam each other"}),
        Vocabulary("computing", "Maintenance windows",
                   "A platform team runs every {V} in one {C}; {V}s that lock the same "
                   "table clash.",
                   {"V": ("batch job", "list:service"), "E": ("lock conflict", "code:Lock"),
                    "C": ("maintenance window", "code:Window")},
                   {"org": "platform team", "clash": "lock the same table", "put": "run",
                    "why": "one would only sit and wait for the other's lock"}),
        Vocabulary("workforce", "Meeting slots",
                   "An office schedules every {V} in one {C}; {V}s with a shared member "
                   "clash.",
                   {"V": ("committee meeting", "codename"), "E": ("member overlap", "code:Overlap"),
                    "C": ("time slot", "code:Slot")},
                   {"org": "head office", "clash": "have a member in common",
                    "put": "schedule", "why": "nobody can attend two meetings at once"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every colour offered is used."""
        w = values["w"]
        return f"all {w.size} colours offered are used" if all_at(w) else None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["V"]
        b.set("V")
        pairs = clash_graph(rng, n)
        _edges(b, pairs)
        # One colour more than a greedy colouring needs: with exactly that many the answer
        # is often "all of them".
        b.set("C", greedy_colours(n, pairs) + 1)
        b.var("x", (("i", "V"), ("c", "C")), "1 if {V} i gets {C} c", vtype="B",
              role="assignment")
        b.var("w", (("c", "C"),), "1 if {C} c is used", vtype="B", role="selection")
        b.con("each_node", "Every {V} gets exactly one {C}.", (("i", "V"),),
              total("c", "C", V("x", "i", "c")), "=", 1.0, role="assignment")
        # Two clashing nodes exclude each other in a colour, and only a used colour takes
        # any: the row is what makes the count of colours used mean something (a link, never
        # removed: without it one colour does for all).
        both = total("i", "V", V("x", "i", "c"), Cond("link", "e", "i", param="end_a")) + \
            total("i", "V", V("x", "i", "c"), Cond("link", "e", "i", param="end_b"))
        b.con("no_clash", "The two {V}s of a {E} never share a {C}, and only a used {C} is "
              "given.", (("e", "E"), ("c", "C")), both - V("w", "c"), "<=", 0.0,
              role="linking")
        b.con("in_order", "{C}s are used in order.", (("c", "C"),),
              V("w", "c") - V("w", Idx("c") - 1), "<=", 0.0, where=(Cond("not_first", "c"),),
              role="symmetry")
        b.objective("min", total("c", "C", V("w", "c")), "number of {C}s used")


def group_pairs(rng: np.random.Generator, n: int, outside: float
                ) -> tuple[list[tuple[int, int]], np.ndarray]:
    """Allowed pairs among ``n`` people: close groups (mostly of three, which no pairing
    can pair off completely) where everyone may pair with everyone, and about ``outside``
    pairs per person with someone of another group; whether each pair is within a group."""
    order = [int(v) for v in rng.permutation(n)]
    groups: list[list[int]] = []
    while order:
        size = int(rng.choice([2, 3, 3, 3, 3, 3, 4, 5]))
        groups.append(order[:size])
        order = order[size:]
    if len(groups) > 1 and len(groups[-1]) == 1:  # nobody is a group of one
        last = groups.pop()
        groups[-1] += last
    home = {v: g for g, members in enumerate(groups) for v in members}
    inner = {(min(i, j), max(i, j)) for g in groups for i in g for j in g if i != j}
    pairs = set(inner)
    for _ in range(round(outside * n / 2)):
        i, j = (int(v) for v in rng.choice(n, size=2, replace=False))
        if home[i] != home[j]:
            pairs.add((min(i, j), max(i, j)))
    out = sorted(pairs)
    return out, np.array([p in inner for p in out])


@register
class WeightedMatching(Family):
    """Maximum-weight matching in a general graph: pairs without a shared member."""

    name = "weighted_matching"
    classes = ("assignment/matching",)
    problem_class = "BIP"
    summary = "Choose {E}s of greatest total {score} so that no {V} is in two of them."
    sizes = {"small": {"V": (7, 9)}, "medium": {"V": (14, 22)}, "large": {"V": (66, 80)}}
    vocabularies = (
        Vocabulary("healthcare", "Kidney exchange",
                   "A transplant centre chooses two-way {E}s between {V}s; a {V} takes part "
                   "in at most one.",
                   {"V": ("patient-donor pair", "surname"), "E": ("swap", "code:Swap")},
                   {"org": "transplant centre", "score": "expected benefit",
                    "points": "benefit points", "pair_up": "swap kidneys with",
                    "join": "take part in", "deals": "two-way kidney swaps"}),
        Vocabulary("education", "Study partners",
                   "A school pairs {V}s into study partners; a {V} has at most one partner.",
                   {"V": ("student", "person"), "E": ("pairing", "code:Pair")},
                   {"org": "school", "score": "compatibility", "points": "compatibility points",
                    "pair_up": "study with", "join": "be in", "deals": "study pairs"}),
        Vocabulary("workforce", "Mentoring buddies",
                   "A company pairs {V}s as buddies; a {V} has at most one buddy.",
                   {"V": ("employee", "person"), "E": ("pairing", "code:Duo")},
                   {"org": "HR team", "score": "fit", "points": "fit points",
                    "pair_up": "work alongside", "join": "be in", "deals": "buddy pairs"}),
        Vocabulary("transport", "Team driving",
                   "A haulier forms two-driver teams from its {V}s; a {V} drives in at most "
                   "one team.",
                   {"V": ("driver", "surname"), "E": ("team", "code:Team")},
                   {"org": "haulier", "score": "rating", "points": "rating points",
                    "pair_up": "share a cab with", "join": "be in",
                    "deals": "two-driver teams"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["V"]
        b.set("V")
        pairs, inner = group_pairs(rng, n, rng.uniform(1.8, 2.8))
        _edges(b, pairs)
        # Pairs within a group fit well, pairs across groups less so.
        score = np.where(inner, rng.uniform(60, 100, len(pairs)), rng.uniform(15, 65, len(pairs)))
        score = rounded(score, 0)
        b.param("score", ("E",), score, "{score} of each {E}", "{points}")
        b.var("x", (("e", "E"),), "1 if {E} e is chosen", vtype="B", role="selection")
        ends = total("e", "E", V("x", "e"), Cond("link", "e", "i", param="end_a")) + \
            total("e", "E", V("x", "e"), Cond("link", "e", "i", param="end_b"))
        b.con("once", "No {V} is in two chosen {E}s.", (("i", "V"),), ends, "<=", 1.0,
              role="packing")
        b.objective("max", total("e", "E", P("score", "e") * V("x", "e")), "total {score}")


# ------------------------------------------------------------------ crew pairing
def task_day(rng: np.random.Generator, n_days: int
             ) -> tuple[list[tuple[float, float]], list[tuple[int, ...]]]:
    """A day of tasks that all start and end at the home base (round trips out of a hub,
    pieces of work from a depot): (start, end) in hours, sorted by start, drawn as
    ``n_days`` working days of 2-4 tasks each (``fits``); those days, as task positions,
    cover every task once."""
    drawn: list[list[tuple[float, float]]] = []
    for _ in range(n_days):
        clock = float(rng.uniform(6.0, 16.0))
        day = [(clock, clock + float(rng.uniform(0.6, 1.8)))]
        for _ in range(int(rng.integers(1, 4))):
            start = day[-1][1] + float(rng.uniform(0.5, 6.0))
            end = start + float(rng.uniform(0.6, 1.8))
            if end - day[0][0] > 12.0:
                break
            day.append((start, end))
        drawn.append([(round(t0, 2), round(t1, 2)) for t0, t1 in day])
    flat = sorted((t, d) for d, day in enumerate(drawn) for t in day)
    tasks = [t for t, _ in flat]
    days = [tuple(k for k, (_, d) in enumerate(flat) if d == day) for day in range(n_days)]
    return tasks, days


def fits(tasks: list[tuple[float, float]], chain: tuple[int, ...]) -> bool:
    """Whether ``chain`` is a working day: each task 30 minutes to 6 hours after the last
    (a split duty), at most 12 hours from first start to last end."""
    gaps = [tasks[j][0] - tasks[i][1] for i, j in pairwise(chain)]
    return all(0.5 <= g <= 6.0 for g in gaps) and \
        tasks[chain[-1]][1] - tasks[chain[0]][0] <= 12.0


def candidate_duties(rng: np.random.Generator, tasks: list[tuple[float, float]],
                     days: list[tuple[int, ...]], wanted: int) -> list[tuple[int, ...]]:
    """Candidate duties: chains of 2-4 tasks that make a working day (``fits``), among them
    a partition of every task into such chains, the rest drawn from all chains."""
    n = len(tasks)
    follows = [[j for j in range(n) if fits(tasks, (i, j))] for i in range(n)]
    chains: list[tuple[int, ...]] = []

    def extend(chain: tuple[int, ...]) -> None:
        if len(chain) >= 2:
            chains.append(chain)
        if len(chain) < 4:
            for j in follows[chain[-1]]:
                if fits(tasks, (*chain, j)):
                    extend((*chain, j))

    for i in range(n):
        extend((i,))
    duties = list(days)  # a partition: the plan is feasible
    own = set(duties)
    rest = [c for c in chains if c not in own]
    take = min(len(rest), max(0, wanted - len(duties)))
    for k in (rng.choice(len(rest), size=take, replace=False) if take else ()):
        duties.append(rest[int(k)])
    order = rng.permutation(len(duties))
    return [duties[int(k)] for k in order]


@register
class CrewPairing(Family):
    """Crew pairing as set partitioning: every task in exactly one chosen duty."""

    name = "crew_pairing"
    classes = ("scheduling/crew", "covering/set_partitioning")
    problem_class = "BIP"
    summary = "Choose {D}s at least cost so that every {F} is {worked} by exactly one of them."
    # ``N``: the working days the tasks are drawn from (2-4 tasks each); ``D``: duties offered.
    # A small set partitioning is often integral at the root (a dozen tasks leave few
    # alternatives), whatever the costs: measured, the relaxation was fractional in 60% of
    # draws of 14 tasks and 40 duties, two in three of 16 and 45, nine in ten from 22 tasks
    # and 100 duties on.
    sizes = {"small": {"N": (6, 7), "D": (42, 48)}, "medium": {"N": (9, 11), "D": (100, 130)},
             "large": {"N": (12, 15), "D": (170, 210)}}
    vocabularies = (
        Vocabulary("transport", "Crew pairings",
                   "An airline covers each of tomorrow's {F}s out of its hub with exactly one "
                   "{D}.",
                   {"F": ("round trip", "code:LX"), "D": ("pairing", "code:P")},
                   {"money": "USD", "org": "airline", "crew": "crew", "work": "fly",
                    "worked": "flown", "base": "hub"}),
        Vocabulary("public_services", "Driver duties",
                   "A city bus operator covers each {F} from its depot with exactly one "
                   "{D}.",
                   {"F": ("bus run", "code:Run"), "D": ("duty", "code:Duty")},
                   {"money": "EUR", "org": "bus operator", "crew": "driver", "work": "drive",
                    "worked": "driven", "base": "depot"}),
        Vocabulary("healthcare", "Transfer crews",
                   "A patient transport service covers each {F} from its station with "
                   "exactly one {D}.",
                   {"F": ("transfer trip", "code:Trip"), "D": ("crew shift", "code:Shift")},
                   {"money": "EUR", "org": "patient transport service", "crew": "crew",
                    "work": "drive", "worked": "driven", "base": "station"}),
        Vocabulary("workforce", "Train crew turns",
                   "A rail operator covers each {F} from its main station with exactly one "
                   "{D}.",
                   {"F": ("train round trip", "code:Svc"), "D": ("crew turn", "code:Turn")},
                   {"money": "EUR", "org": "rail operator", "crew": "crew", "work": "work",
                    "worked": "worked", "base": "main station"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        tasks, days = task_day(rng, b.dims["N"])
        duties = candidate_duties(rng, tasks, days, b.dims["D"])
        b.set("F", len(tasks))
        b.set("D", len(duties))
        covers = np.zeros((len(duties), len(tasks)))
        cost = np.zeros(len(duties))
        pay = rng.uniform(0.9, 1.1)
        for d, chain in enumerate(duties):
            covers[d, list(chain)] = 1.0
            work = sum(tasks[k][1] - tasks[k][0] for k in chain)
            span = tasks[chain[-1]][1] - tasks[chain[0]][0]
            # A day's pay, the hours at work, waits between tasks (paid at a lower rate),
            # and a premium for a long day.
            cost[d] = pay * (320 + 85 * work + 40 * (span - work) + 60 * max(0.0, span - 9))
        b.param("covers", ("D", "F"), covers, "1 if a {D} includes a {F}", "0/1",
                integer=True)
        b.param("cost", ("D",), rounded(cost * rng.uniform(0.95, 1.05, len(duties)), 0),
                "cost of each {D}", "{money}")
        b.var("y", (("d", "D"),), "1 if {D} d is chosen", vtype="B", role="selection")
        b.con("each_task", "Every {F} is {worked} by exactly one chosen {D}.", (("f", "F"),),
              total("d", "D", P("covers", "d", "f") * V("y", "d")), "=", 1.0,
              role="assignment")
        b.objective("min", total("d", "D", P("cost", "d") * V("y", "d")),
                    "total cost in {money}")
