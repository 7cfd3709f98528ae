"""Scheduling: single machine with big-M disjunctions, and workforce shift scheduling."""

from __future__ import annotations

import numpy as np

from ortrex.engine.families.base import Builder, Family, Vocabulary, register, rounded
from ortrex.ir.expr import Cond, P, V, total


@register
class SingleMachine(Family):
    """Single-machine scheduling: minimise weighted completion time with release dates."""

    name = "machine_scheduling"
    classes = ("scheduling/single_machine",)
    problem_class = "MILP"
    summary = "Sequence {J}s on one {M}, minimising weighted completion time."
    sizes = {"small": {"J": (3, 4)}, "medium": {"J": (5, 6)}, "large": {"J": (6, 7)}}
    vocabularies = (
        Vocabulary("manufacturing", "CNC machine",
                   "A workshop sequences {J}s on its single {M}.",
                   {"J": ("work order", "code:WO"), "M": ("CNC machine", "code:CNC")},
                   {"time": "minutes", "weight": "priority", "org": "machine shop",
                    "machine": "CNC machine", "do": "machine"}),
        Vocabulary("healthcare", "Operating theatre",
                   "A hospital orders {J}s in its one {M}.",
                   {"J": ("operation", "surname"), "M": ("operating theatre", "code:OR")},
                   {"time": "minutes", "weight": "urgency", "org": "surgical unit",
                    "machine": "operating theatre", "do": "perform"}),
        Vocabulary("computing", "GPU queue",
                   "A lab queues {J}s on a single {M}.",
                   {"J": ("training job", "codename"), "M": ("GPU node", "code:GPU")},
                   {"time": "hours", "weight": "priority", "org": "research lab",
                    "machine": "GPU node", "do": "run"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["J"]
        b.set("J")
        proc = rounded(rng.uniform(2, 20, n), 0)
        release = rounded(rng.uniform(0, proc.sum() * 0.5, n), 0)
        weight = rounded(rng.uniform(1, 5, n), 0)
        b.param("proc", ("J",), proc, "processing time of each {J}", "{time}", integer=True)
        b.param("release", ("J",), release, "earliest start of each {J}", "{time}",
                integer=True)
        b.param("weight", ("J",), weight, "{weight} of each {J}", "{weight} points")
        b.param("big_m", (), release.max() + proc.sum(), "a time horizon longer than any "
                "schedule", "{time}")
        b.derive("big_m", "max(release) + sum(proc)")
        b.var("s", (("j", "J"),), "start time of {J} j", lb=P("release", "j"), unit="{time}",
              role="timing")
        b.var("y", (("i", "J"), ("j", "J")), "1 if {J} i comes before {J} j", vtype="B",
              where=(Cond("lt", "i", "j"),), role="ordering")
        b.con("i_before_j", "If {J} i comes first, {J} j starts after {J} i ends.",
              (("i", "J"), ("j", "J")),
              V("s", "i") + P("proc", "i") - V("s", "j") - P("big_m") * (1 - V("y", "i", "j")),
              "<=", 0.0, where=(Cond("lt", "i", "j"),), role="definition")
        b.con("j_before_i", "Otherwise {J} i starts after {J} j ends.", (("i", "J"), ("j", "J")),
              V("s", "j") + P("proc", "j") - V("s", "i") - P("big_m") * V("y", "i", "j"),
              "<=", 0.0, where=(Cond("lt", "i", "j"),), role="definition")
        b.objective("min", total("j", "J", P("weight", "j") * (V("s", "j") + P("proc", "j"))),
                    "weighted completion time in {time}")


@register
class ShiftScheduling(Family):
    """Workforce scheduling: staff shifts covering demand in every period (integer)."""

    name = "shift_scheduling"
    classes = ("scheduling/rostering",)
    problem_class = "MILP"
    summary = "Choose how many staff start each {S} so that every {T} is covered."
    sizes = {"small": {"T": (4, 6)}, "medium": {"T": (8, 12)}, "large": {"T": (24, 48)}}
    # Measured: over 200 draws per band, 75-95% of these rosters have an integral relaxation
    # whatever the needs (level, peaked, wide) or a second, shorter shift type.
    natural_integrality = ("cyclic consecutive-ones rows: the relaxation of a cyclic roster "
                           "is integral for most needs")
    vocabularies = (
        Vocabulary("healthcare", "Emergency department",
                   "An emergency department staffs nurses; a {S} covers consecutive {T}s, the "
                   "last {T} followed by the first again.",
                   {"T": ("time block", "hour"), "S": ("shift", "code:Shift")},
                   {"staff": "nurses", "money": "USD", "org": "emergency department",
                    "person": "nurse"}),
        Vocabulary("retail", "Call centre",
                   "A call centre rosters agents; a {S} spans consecutive {T}s, the last {T} "
                   "followed by the first again.",
                   {"T": ("hour slot", "hour"), "S": ("shift pattern", "code:Pattern")},
                   {"staff": "agents", "money": "EUR", "org": "call centre",
                    "person": "agent"}),
        Vocabulary("public_services", "Police patrols",
                   "A police district schedules officers; a {S} covers consecutive {T}s, the last "
                   "{T} followed by the first again.",
                   {"T": ("watch period", "hour"), "S": ("duty roster", "code:Roster")},
                   {"staff": "officers", "money": "USD", "org": "police district",
                    "person": "officer"}),
    )

    def build(self, b: Builder, rng: np.random.Generator) -> None:
        n = b.dims["T"]
        b.set("T")
        b.set("S", n)
        length = int(rng.integers(2, max(3, n // 2) + 1))
        cover = np.zeros((n, n))
        for s in range(n):
            cover[(s + np.arange(length)) % n, s] = 1.0  # shift s starts in block s (cyclic)
        # A level need with small ups and downs: with needs spread widely the LP relaxation of
        # this cyclic roster was integral almost always (it still often is).
        need = float(rng.integers(6, 20)) + rng.integers(0, 3, n).astype(float)
        premium = 1.0 + 0.5 * (rng.random(n) < 0.3)
        b.param("covers", ("T", "S"), cover, "1 if a {S} works in a {T}", "0/1",
                integer=True)
        b.param("need", ("T",), need, "{staff} needed in each {T}", "{staff}", integer=True)
        b.param("cost", ("S",), rounded(length * 100 * premium, 0), "cost of one person on "
                "each {S}", "{money}")
        b.var("x", (("s", "S"),), "{staff} starting {S} s", vtype="I", unit="{staff}",
              role="quantity")
        b.con("coverage", "Every {T} has enough {staff}.", (("t", "T"),),
              total("s", "S", P("covers", "t", "s") * V("x", "s")), ">=", P("need", "t"),
              role="covering")
        b.objective("min", total("s", "S", P("cost", "s") * V("x", "s")),
                    "staffing cost in {money}")
