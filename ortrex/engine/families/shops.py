"""Shop scheduling: unrelated parallel machines, permutation flow shop, job shop, and the
resource-constrained project (RCPSP).

The makespan is a modeller's epigraph variable (``cmax``, role auxiliary) held up by one row
per machine or operation; the job shop's machine conflicts are big-M disjunctions whose M is
the sum of all processing times (no schedule without idle time is longer), and its routes are
told leg by leg (a leg takes a job from one machine straight to the next); the flow shop is
Wagner's position-based model (the places of the sequence are numbered like the jobs, so no
set of places exists outside the model); the project is time-indexed over a window that ends
where a feasible schedule built by the sampler ends (serial schedule generation), and weighs
each activity's finishing time by its priority.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register
from ortrex.ir.expr import Cond, Idx, P, V, total
from ortrex.ir.semantic import SemanticModel


@register
class ParallelMachines(Family):
    """Unrelated parallel machines: every job on one machine, the last machine done early."""

    name = "parallel_machines"
    classes = ("scheduling/parallel_machines", "logic/min_max")
    problem_class = "MILP"
    summary = "Give every {J} to one {M} so that the busiest {M} finishes as early as possible."
    sizes = {"small": {"J": (5, 6), "M": (2, 3)}, "medium": {"J": (9, 12), "M": (3, 4)},
             "large": {"J": (16, 18), "M": (8, 9)}}
    vocabularies = (
        Vocabulary("manufacturing", "Machining centres",
                   "A machine shop spreads {J}s over its {M}s, which differ in speed.",
                   {"J": ("work order", "code:WO"), "M": ("machining centre", "code:MC")},
                   {"time": "minutes", "org": "machine shop", "run": "machine",
                    "shift": "shift"}),
        Vocabulary("media", "Print shop",
                   "A print shop spreads tonight's {J}s over its {M}s.",
                   {"J": ("print job", "codename"), "M": ("press", "code:Press")},
                   {"time": "minutes", "org": "print shop", "run": "print",
                    "shift": "night shift"}),
        Vocabulary("computing", "Render farm",
                   "A studio spreads {J}s over the {M}s of its render farm.",
                   {"J": ("render job", "codename"), "M": ("render node", "code:Node")},
                   {"time": "minutes", "org": "animation studio", "run": "render",
                    "shift": "overnight batch"}),
        Vocabulary("healthcare", "Laboratory analysers",
                   "A hospital laboratory spreads {J}s over its {M}s.",
                   {"J": ("sample batch", "code:Batch"), "M": ("analyser", "code:Analyser")},
                   {"time": "minutes", "org": "hospital laboratory", "run": "process",
                    "shift": "morning run"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every job on its fastest machine: the loads never compete."""
        if "proc" not in sm.param_map or "x" not in sm.var_map:
            return None  # a mutation changed what the bound is about
        proc = np.asarray(sm.param_map["proc"].values, dtype=float)
        x = np.asarray(values["x"], dtype=float)
        if proc.ndim != 2 or x.size != proc.size:
            return None
        fastest = proc <= proc.min(axis=1, keepdims=True)
        if np.all(fastest[x.reshape(proc.shape) > 0.5]):
            return "every job runs on its fastest machine: the loads never compete"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nJ, nM = b.dims["J"], b.dims["M"]
        b.set("J")
        b.set("M")
        # Unrelated machines: a job's own size, each machine's pace, and how well the job
        # suits the machine. One machine is clearly faster, so sending every job to its
        # fastest machine overloads it (that answer would be trivial).
        size = rng.uniform(12, 45, nJ)
        pace = rng.uniform(0.85, 1.3, nM)
        pace[int(rng.integers(nM))] = rng.uniform(0.6, 0.75)
        fit = rng.uniform(0.75, 1.35, (nJ, nM))
        proc = np.maximum(2.0, np.round(size[:, None] * pace[None, :] * fit))
        b.param("proc", ("J", "M"), proc, "time each {J} takes on each {M}", "{time}",
                integer=True)
        b.var("x", (("j", "J"), ("m", "M")), "1 if {J} j runs on {M} m", vtype="B",
              role="assignment")
        b.var("cmax", (), "time at which the last {M} finishes (the makespan)", unit="{time}",
              role="auxiliary")
        b.con("one_machine", "Every {J} runs on exactly one {M}.", (("j", "J"),),
              total("m", "M", V("x", "j", "m")), "=", 1.0, role="assignment")
        b.con("load", "The work given to each {M} ends by the makespan.", (("m", "M"),),
              total("j", "J", P("proc", "j", "m") * V("x", "j", "m")) - V("cmax"), "<=", 0.0,
              role="definition")
        b.objective("min", V("cmax"), "finishing time of the last {J} in {time}")


@register
class FlowShop(Family):
    """Permutation flow shop (Wagner's position-based model), minimising the makespan."""

    name = "flow_shop"
    classes = ("scheduling/flow_shop",)
    problem_class = "MILP"
    summary = "Sequence {J}s through the same {M}s in order, finishing the last as early as " \
              "possible."
    sizes = {"small": {"J": (4, 5), "M": (4, 4)}, "medium": {"J": (6, 8), "M": (4, 5)},
             "large": {"J": (10, 11), "M": (4, 5)}}
    vocabularies = (
        Vocabulary("manufacturing", "Fabrication line",
                   "A fabrication shop sends {J}s through its {M}s in a fixed order.",
                   {"J": ("work order", "code:WO"), "M": ("workstation", "code:WS")},
                   {"time": "minutes", "org": "fabrication shop", "line": "line",
                    "item": "order"}),
        Vocabulary("media", "Print finishing",
                   "A print shop sends {J}s through its {M}s in a fixed order.",
                   {"J": ("print job", "codename"), "M": ("finishing machine", "code:Unit")},
                   {"time": "minutes", "org": "print shop", "line": "finishing line",
                    "item": "job"}),
        Vocabulary("computing", "Release pipeline",
                   "A software team sends {J}s through the {M}s of its pipeline in order.",
                   {"J": ("release build", "codename"), "M": ("pipeline stage", "code:Stage")},
                   {"time": "minutes", "org": "platform team", "line": "pipeline",
                    "item": "build"}),
        Vocabulary("hospitality", "Banquet kitchen",
                   "A banquet kitchen sends {J}s through its {M}s in a fixed order.",
                   {"J": ("banquet order", "surname"), "M": ("kitchen station", "code:Station")},
                   {"time": "minutes", "org": "banquet kitchen", "line": "kitchen line",
                    "item": "order"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nJ, nM = b.dims["J"], b.dims["M"]
        b.set("J")
        b.set("M")
        # Stations of similar weight: with one clear bottleneck (or only two stations) the
        # relaxation of Wagner's model is mostly integral already (measured: 40% of small
        # instances with two or three stations, about 12% with four).
        proc = rng.integers(2, 21, (nJ, nM)).astype(float)
        b.param("proc", ("J", "M"), proc, "time each {J} takes at each {M}", "{time}",
                integer=True)
        # The places of the sequence are numbered like the jobs (place k: the k-th job listed).
        b.var("z", (("j", "J"), ("k", "J")), "1 if {J} j takes the k-th place of the sequence",
              vtype="B", role="position")
        b.var("c", (("k", "J"), ("m", "M")), "time at which the k-th {J} of the sequence "
              "leaves {M} m", unit="{time}", role="timing")
        b.con("one_place", "Every {J} takes exactly one place in the sequence.", (("j", "J"),),
              total("k", "J", V("z", "j", "k")), "=", 1.0, role="assignment")
        b.con("one_job", "Every place of the sequence holds exactly one {J}.", (("k", "J"),),
              total("j", "J", V("z", "j", "k")), "=", 1.0, role="assignment")
        work = total("j", "J", P("proc", "j", "m") * V("z", "j", "k"))
        # At the first station the term of the station before is absent (it leaves the set).
        b.con("route", "A {J} starts at a {M} only once it has left the {M} before.",
              (("k", "J"), ("m", "M")), V("c", "k", "m") - V("c", "k", Idx("m") - 1) - work,
              ">=", 0.0, role="logic")
        b.con("one_at_a_time", "A {M} starts the next {J} only once the one before has left.",
              (("k", "J"), ("m", "M")), V("c", "k", "m") - V("c", Idx("k") - 1, "m") - work,
              ">=", 0.0, where=(Cond("not_first", "k"),), role="definition")
        last = total("k", "J", total("m", "M", V("c", "k", "m"), Cond("last", "m")),
                     Cond("last", "k"))
        b.objective("min", last, "finishing time of the last {J} in {time}")


@register
class JobShop(Family):
    """Job shop: own machine routes, disjunctive big-M sequencing, minimising the makespan."""

    name = "job_shop"
    classes = ("scheduling/job_shop",)
    problem_class = "MILP"
    summary = "Schedule {J}s, each with its own route through the {M}s, finishing as early " \
              "as possible."
    sizes = {"small": {"J": (3, 4), "M": (3, 3)}, "medium": {"J": (4, 5), "M": (3, 4)},
             "large": {"J": (6, 6), "M": (4, 5)}}
    vocabularies = (
        Vocabulary("manufacturing", "Machine shop",
                   "A machine shop routes each {J} through its {M}s in the job's own order.",
                   {"J": ("job", "code:Job"), "M": ("machine", "list:machine_tool"),
                    "L": ("route leg", "code:Leg")},
                   {"time": "minutes", "org": "machine shop", "operation": "operation",
                    "do": "machine"}),
        Vocabulary("healthcare", "Diagnostic day",
                   "A diagnostic centre sends each {J} through its {M}s in the patient's own "
                   "order.",
                   {"J": ("patient", "surname"), "M": ("diagnostic unit", "list:diagnostic"),
                    "L": ("route leg", "code:Leg")},
                   {"time": "minutes", "org": "diagnostic centre", "operation": "examination",
                    "do": "examine"}),
        Vocabulary("hospitality", "Restaurant kitchen",
                   "A restaurant kitchen sends each {J} through its {M}s in the dish's own "
                   "order.",
                   {"J": ("table order", "code:Table"),
                    "M": ("kitchen station", "list:kitchen_station"),
                    "L": ("route leg", "code:Leg")},
                   {"time": "minutes", "org": "restaurant kitchen", "operation": "step",
                    "do": "prepare"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nJ, nM = b.dims["J"], b.dims["M"]
        b.set("J")
        b.set("M")
        proc = np.round(rng.uniform(3, 20, (nJ, nM)))
        # Each job's route is a permutation of the machines, told leg by leg: a leg takes a
        # job from one machine straight to the next of its route.
        legs = [(j, int(route[k]), int(route[k + 1])) for j in range(nJ)
                for route in [rng.permutation(nM)] for k in range(nM - 1)]
        b.set("L", len(legs))
        job, src, dst = (np.array(col, dtype=float) for col in zip(*legs, strict=True))
        b.param("proc", ("J", "M"), proc, "time each {J} needs on each {M}", "{time}",
                integer=True)
        b.param("leg_job", ("L",), job, "the {J} that moves on each {L}", "{J}", integer=True)
        b.param("leg_from", ("L",), src, "the {M} each {L} leaves", "{M}", integer=True)
        b.param("leg_to", ("L",), dst, "the {M} each {L} reaches", "{M}", integer=True)
        b.param("big_m", (), float(proc.sum()), "a time longer than any schedule without idle "
                "time (all processing times together)", "{time}")
        b.derive("big_m", "sum(sum(row) for row in proc)")
        b.var("s", (("j", "J"), ("m", "M")), "start time of {J} j on {M} m", unit="{time}",
              role="timing")
        pair = (Cond("lt", "i", "j"),)
        b.var("y", (("i", "J"), ("j", "J"), ("m", "M")), "1 if {J} i comes before {J} j on "
              "{M} m", vtype="B", where=pair, role="ordering")
        b.var("cmax", (), "time at which the last {J} is finished (the makespan)",
              unit="{time}", role="auxiliary")
        on_leg = Cond("link", "l", "j", param="leg_job")
        leaves, reaches = (Cond("link", "l", "m", param="leg_from"),
                           Cond("link", "l", "n", param="leg_to"))
        b.con("route", "On each {L}, its {J} starts on the next {M} only once it is done on "
              "the {M} it leaves.", (("l", "L"),),
              total("j", "J", total("n", "M", V("s", "j", "n"), reaches)
                    - total("m", "M", V("s", "j", "m"), leaves), on_leg), ">=",
              total("j", "J", total("m", "M", P("proc", "j", "m"), leaves), on_leg),
              role="logic")
        b.con("i_first", "If {J} i comes first on {M} m, {J} j starts there after {J} i is "
              "done.", (("i", "J"), ("j", "J"), ("m", "M")),
              V("s", "i", "m") + P("proc", "i", "m") - V("s", "j", "m")
              - P("big_m") * (1 - V("y", "i", "j", "m")), "<=", 0.0, where=pair,
              role="definition")
        b.con("j_first", "Otherwise {J} i starts on {M} m after {J} j is done there.",
              (("i", "J"), ("j", "J"), ("m", "M")),
              V("s", "j", "m") + P("proc", "j", "m") - V("s", "i", "m")
              - P("big_m") * V("y", "i", "j", "m"), "<=", 0.0, where=pair, role="definition")
        b.con("makespan", "Every {J} is done on every {M} by the makespan.",
              (("j", "J"), ("m", "M")), V("s", "j", "m") + P("proc", "j", "m") - V("cmax"),
              "<=", 0.0, role="definition")
        b.objective("min", V("cmax"), "finishing time of the last {J} in {time}")


def _serial_schedule(rng: np.random.Generator, dur: np.ndarray, pred: np.ndarray,
                     use: np.ndarray, cap: np.ndarray) -> int:
    """The end of a feasible schedule: activities taken in a random precedence-feasible order,
    each started at the earliest period its predecessors and the free capacity allow."""
    nA = dur.size
    horizon = int(dur.sum()) + 1
    free = np.repeat(cap[:, None], horizon, axis=1).astype(float)
    finish = np.zeros(nA, dtype=int)
    done: set[int] = set()
    while len(done) < nA:
        ready = [a for a in range(nA) if a not in done and
                 all(b in done for b in np.flatnonzero(pred[:, a]))]
        a = int(ready[int(rng.integers(len(ready)))])
        t = max((int(finish[b]) for b in np.flatnonzero(pred[:, a])), default=0)
        d = int(dur[a])
        while not np.all(free[:, t:t + d] >= use[:, a:a + 1]):
            t += 1
        free[:, t:t + d] -= use[:, a:a + 1]
        finish[a] = t + d
        done.add(a)
    return int(finish.max())


def _earliest_starts(dur: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Each activity's earliest start from its predecessors alone (no crew limits)."""
    start = np.zeros(dur.size)
    for b in range(dur.size):  # predecessors come earlier in the list
        before = np.flatnonzero(pred[:, b])
        start[b] = max((start[a] + dur[a] for a in before), default=0.0)
    return start


@register
class ProjectScheduling(Family):
    """RCPSP: activities with durations, precedence and renewable crews (time-indexed),
    minimising the priority-weighted finishing times within a planning window."""

    name = "project_scheduling"
    classes = ("scheduling/project",)
    problem_class = "MILP"
    summary = "Schedule {A}s within precedence and {R} limits so that important {A}s finish " \
              "early."
    # Measured: with the makespan as goal the time-indexed relaxation is weak (about half
    # the optimum) and 2 in 60 large projects of 10-11 activities ran past 10 s in HiGHS;
    # weighted finishing times solve 12-activity projects in under 3 s.
    sizes = {"small": {"A": (5, 6), "R": (2, 2)}, "medium": {"A": (8, 9), "R": (2, 3)},
             "large": {"A": (11, 12), "R": (2, 2)}}
    vocabularies = (
        Vocabulary("construction", "House renovation",
                   "A builder plans the {A}s of a renovation, sharing its {R}s.",
                   {"A": ("work package", "list:job"), "R": ("crew", "list:trade"),
                    "T": ("day", "code:Day")},
                   {"time": "days", "org": "building firm", "staff": "workers",
                    "project": "renovation", "weight": "priority",
                    "why": "the owners can use each finished part of the house"}),
        Vocabulary("computing", "Software release",
                   "A software company plans the {A}s of a release, sharing its {R}s.",
                   {"A": ("work item", "codename"), "R": ("team", "list:team"),
                    "T": ("working day", "code:Day")},
                   {"time": "days", "org": "software company", "staff": "engineers",
                    "project": "release", "weight": "business value",
                    "why": "each finished item can ship to customers"}),
        Vocabulary("manufacturing", "Plant shutdown",
                   "A plant plans the {A}s of its maintenance shutdown, sharing its {R}s.",
                   {"A": ("maintenance task", "code:Task"), "R": ("crew", "list:plant_crew"),
                    "T": ("shift", "code:Shift")},
                   {"time": "shifts", "org": "chemical plant", "staff": "workers",
                    "project": "shutdown", "weight": "urgency",
                    "why": "each finished task lets a unit restart"}),
    )

    def trivial(self, sm: SemanticModel, values: Mapping[str, np.ndarray]) -> str | None:
        """Every activity starts as early as its predecessors allow: the crews never bind."""
        params = sm.param_map
        if "dur" not in params or "x" not in sm.var_map or "T" not in sm.set_map:
            return None  # a mutation changed what the bound is about
        dur = np.asarray(params["dur"].values, dtype=float)
        # Without its precedence rows (removed by a mutation) nothing waits for anything.
        pred = np.asarray(params["pred"].values, dtype=float) if "pred" in params and any(
            c.role == "logic" for c in sm.constraints) else np.zeros((dur.size, dur.size))
        x = np.asarray(values["x"], dtype=float)
        nT = len(sm.set_map["T"])
        if pred.shape != (dur.size, dur.size) or x.size != dur.size * nT:
            return None
        starts = np.argmax(x.reshape(dur.size, nT), axis=1)
        if np.array_equal(starts, _earliest_starts(dur, pred)):
            return "every activity starts as early as its predecessors allow: the crews " \
                   "never hold one back"
        return None

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        nA, nR = b.dims["A"], b.dims["R"]
        b.set("A")
        b.set("R")
        dur = rng.integers(1, 5, nA).astype(float)
        # A random precedence network in list order: most activities wait for one or two
        # earlier ones, a few can start at once.
        pred = np.zeros((nA, nA))
        for a in range(1, nA):
            k = int(rng.choice([0, 0, 1, 1, 2])) if a > 1 else int(rng.integers(0, 2))
            for p in rng.choice(a, size=min(k, a), replace=False):
                pred[int(p), a] = 1.0
        # Crews of 5 or more: a limit of 3 or 4 moved by a tenth rounds back to itself.
        cap = rng.integers(5, 9, nR).astype(float)
        # Every activity needs some crew; activities side by side often exceed a crew, and
        # one activity per crew needs all of it (with needs of at most 3 in crews of 4 to 6,
        # small projects left every crew at 75-83% in the optimum: limits that bound only by
        # excluding overlaps).
        use = np.zeros((nR, nA))
        for a in range(nA):
            need = rng.random(nR) < 0.7
            need[int(rng.integers(nR))] = True
            use[:, a] = np.where(need, rng.integers(1, 5, nR), 0)
        use = np.minimum(use, cap[:, None])
        for r in range(nR):
            use[r, int(rng.integers(nA))] = cap[r]
        weight = rng.integers(1, 6, nA).astype(float)
        # The window: the end of the best of a few serial passes (a schedule that exists).
        nT = min(_serial_schedule(rng, dur, pred, use, cap) for _ in range(8))
        b.set("T", nT)
        b.param("dur", ("A",), dur, "duration of each {A}", "{time}", integer=True)
        b.param("pred", ("A", "A"), pred, "1 if the first {A} must be finished before the "
                "second starts", "0/1", integer=True)
        b.param("use", ("R", "A"), use, "{staff} of each {R} each {A} needs while it runs",
                "{staff}", integer=True)
        b.param("cap", ("R",), cap, "{staff} in each {R}", "{staff}", integer=True)
        b.param("weight", ("A",), weight, "{weight} of each {A}", "{weight} points",
                integer=True)
        b.param("elapsed", ("T",), np.arange(nT, dtype=float), "{time} elapsed before each "
                "{T}", "{time}", integer=True)
        b.derive("elapsed", "[t for t in range(len(T))]")
        b.param("horizon", (), float(nT), "{time} in the planning window", "{time}",
                integer=True)
        b.derive("horizon", "len(T)")
        runs = np.zeros((nA, nT, nT))
        for a in range(nA):
            for s in range(nT):
                runs[a, s, s:s + int(dur[a])] = 1.0
        b.param("runs", ("A", "T", "T"), runs, "1 if {A} started in the first {T} is still "
                "running in the second", "0/1", integer=True)
        b.derive("runs", "[[[1 if s <= t < s + dur[a] else 0 for t in range(len(T))] for s in "
                         "range(len(T))] for a in range(len(A))]")
        b.var("x", (("a", "A"), ("t", "T")), "1 if {A} a starts at the beginning of {T} t",
              vtype="B", role="timing")
        b.var("end", (("a", "A"),), "{time} from the start until {A} a is finished",
              unit="{time}", role="timing")
        b.con("start_once", "Every {A} starts exactly once.", (("a", "A"),),
              total("t", "T", V("x", "a", "t")), "=", 1.0, role="assignment")
        b.con("finish", "{A} a is finished its duration after it starts.", (("a", "A"),),
              V("end", "a") - total("t", "T", (P("elapsed", "t") + P("dur", "a"))
                                    * V("x", "a", "t")), "=", 0.0, role="definition")
        # The window is what the crew rows count over (protected: an activity past it would
        # escape every crew limit).
        b.con("in_window", "Every {A} is finished within the window.", (("a", "A"),),
              V("end", "a"), "<=", P("horizon"), role="definition")
        # Only the arcs of the network hold a row (pred = 1); the others ground to nothing.
        b.con("precedence", "{A} b starts only after {A} a is finished, where a precedes b.",
              (("a", "A"), ("b", "A")),
              P("pred", "a", "b") * (total("t", "T", P("elapsed", "t") * V("x", "b", "t"))
                                     - V("end", "a")), ">=", 0.0,
              where=(Cond("ne", "a", "b"),), role="logic")
        b.con("crew_limit", "In every {T}, the {A}s running need no more {staff} than each "
              "{R} has.", (("r", "R"), ("t", "T")),
              total("a", "A", total("s", "T", P("use", "r", "a") * P("runs", "a", "s", "t")
                                    * V("x", "a", "s"))), "<=", P("cap", "r"), role="capacity")
        b.objective("min", total("a", "A", P("weight", "a") * V("end", "a")),
                    "total weighted finishing time in {time}")
