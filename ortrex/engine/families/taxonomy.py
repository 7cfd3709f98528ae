"""The problem-class taxonomy: what kind of OR problem a family is, as ``area/class``.

Every family declares one or more classes (``Family.classes``); ``ortrex families --classes``
lists the taxonomy with the families in each class, and the corpus report counts instances by
class. A class with no family yet is listed too: the taxonomy says what the corpus should cover
(the classes the public benchmarks ask about), not only what it does.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# area/class -> what it means.
CLASSES: Mapping[str, str] = {
    "routing/tsp": "one closed tour through every stop",
    "routing/vrp": "several capacitated vehicle routes from a depot",
    "routing/vrptw": "vehicle routes with time windows at the stops",
    "routing/pickup_delivery": "routes that pick up before they deliver",
    "routing/location_routing": "open depots and route vehicles from them",
    "routing/shortest_path": "one cheapest path through a network",
    "scheduling/single_machine": "order jobs on one machine",
    "scheduling/parallel_machines": "jobs on identical or unrelated machines, makespan",
    "scheduling/job_shop": "jobs with machine routes, disjunctive sequencing",
    "scheduling/flow_shop": "jobs through the same machine sequence",
    "scheduling/project": "activities with precedence and resources (RCPSP)",
    "scheduling/timetabling": "events to slots and rooms without clashes",
    "scheduling/crew": "crew pairings or duties covering every task (set partitioning)",
    "scheduling/rostering": "staff shifts covering demand with days-off patterns",
    "inventory/lot_sizing": "production and stock over periods with set-ups",
    "inventory/backorders": "demand met late at a penalty, or lost",
    "inventory/multi_echelon": "stock at several stages of a supply chain",
    "inventory/safety_stock": "buffers against uncertain demand",
    "planning/production": "what to make per period within capacities",
    "planning/workforce": "hiring, firing and overtime over periods",
    "planning/bill_of_materials": "multi-stage production with components",
    "network/min_cost_flow": "cheapest flow meeting supplies and demands",
    "network/max_flow": "the most flow from a source to a sink",
    "network/multicommodity": "several commodities sharing arc capacities",
    "network/design": "which arcs to build, with fixed charges",
    "network/hub_location": "hubs that consolidate flows",
    "network/spanning_tree": "a cheapest connecting tree",
    "location/facility": "which sites to open and who they serve",
    "location/p_median": "p sites minimising total weighted distance",
    "location/p_center": "p sites minimising the worst distance",
    "location/covering": "sites covering demand within a distance",
    "transportation/transportation": "shipments from supplies to demands",
    "assignment/linear": "one-to-one assignment at least cost",
    "assignment/generalized": "tasks to agents with capacities",
    "assignment/quadratic": "assignment with pairwise interaction costs",
    "assignment/colouring": "graph colouring with the fewest colours",
    "assignment/matching": "pairs of a graph without shared ends",
    "packing/knapsack": "a most valuable selection within capacities",
    "packing/bin_packing": "items into the fewest bins",
    "packing/cutting_stock": "stock cut by patterns to meet orders",
    "covering/set_cover": "the cheapest sets covering every element",
    "covering/set_packing": "the best sets that never overlap",
    "covering/set_partitioning": "sets covering every element exactly once",
    "blending/blending": "a mix whose averages stay within ranges",
    "blending/diet": "amounts meeting nutrient requirements",
    "finance/portfolio": "asset weights trading return against risk",
    "finance/capital_budgeting": "projects within budgets and prerequisites",
    "energy/unit_commitment": "which generators run, and at what output",
    "cost/fixed_charge": "a cost paid once a quantity is positive",
    "cost/piecewise_linear": "costs with breakpoints, quantity discounts",
    "logic/implication": "if-then, either-or and at-least-k rules on yes/no decisions",
    "logic/indicator": "a quantity allowed only while a yes/no decision is on, within the "
                       "bounds that then hold (semi-continuous)",
    "logic/min_max": "a worst case or an absolute value, linearised",
    "nonlinear/qp": "a convex quadratic objective",
    "nonlinear/qcqp": "quadratic constraints (risk limits, square-root laws)",
    "nonlinear/bilinear": "products of decisions (pooling)",
    "uncertain/two_stage": "decisions now, recourse per scenario",
    "uncertain/robust": "rules that hold for every value in a set",
    "objective/goal_programming": "targets with weighted deviations",
    "objective/multi_objective": "several objectives, weighted or lexicographic",
    "word_problem/ratio": "a few decisions with ratio and percentage rules",
    "word_problem/integer": "a few whole-number decisions told in a paragraph",
}


class TaxonomyError(ValueError):
    """A family names a class the taxonomy does not have."""


def check_classes(family: str, classes: Iterable[str]) -> tuple[str, ...]:
    """``classes`` of ``family``, checked against the taxonomy (at least one)."""
    out = tuple(classes)
    if not out:
        raise TaxonomyError(f"family {family!r} declares no class; set classes = (...) from "
                            "ortrex.engine.families.taxonomy.CLASSES")
    unknown = [c for c in out if c not in CLASSES]
    if unknown:
        raise TaxonomyError(f"family {family!r}: unknown class {unknown[0]!r} (the taxonomy's "
                            f"areas: {', '.join(sorted({c.split('/')[0] for c in CLASSES}))})")
    return out


def area(cls: str) -> str:
    """The area of a class (``routing/vrp`` -> ``routing``)."""
    return cls.split("/", 1)[0]
