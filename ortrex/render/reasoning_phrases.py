"""The phrasings of the clean_cot reasoning's sentences (``ortrex.render.reasoning``): several
per sentence, each weaving in the model's own words so that a corpus of reasoning does not
repeat one skeleton."""

from __future__ import annotations

# Several phrasings of every sentence, each weaving in the model's own words ({v}: the
# variable, {ent}: what it is indexed by, {unit}, {c}: the rule), so that phrasings stay
# distinct across a corpus.
PHRASES: dict[str, tuple[str, ...]] = {
    "goal": (
        "The goal is to {verb} the {what}.",
        "What has to be optimised for the {org}: {verb} the {what}.",
        "We are asked to {verb} the {what}.",
        "The request comes down to one number to {verb}: the {what}.",
        "The {org} wants the {what} {extreme}.",
        "First, the target: the {what}, which should be {extreme}.",
        "Reading the request, the {org} needs the {what} {extreme}.",
        "So the model has to {verb} the {what}.",
        "Objective first: {verb} the {what}, nothing else is scored.",
        "Everything is judged by the {what}; the model must {verb} it.",
        "The {org} cares about one figure, the {what}, and wants it {extreme}.",
        "Direction of optimisation: {verb}. Quantity: the {what}.",
        "To start, the objective: the {what}, to {verb}.",
        "This is a {sense} problem over the {what}."),
    "goal_said": (
        "The statement says so in its own words: {q}",
        "In the client's words: {q}",
        "That is what {q} asks for.",
        "The line {q} settles the direction.",
        "It is spelled out as {q}",
        "The text puts it as {q}",
        "Evidence for the sense: {q}",
        "The request reads {q}",
        "{q} makes it explicit."),
    "decide": (
        "The decisions are {what}: one {v} for each combination of {over}, {n} in all.",
        "We choose {what}. That is {v}, indexed by {over}: {n} variables.",
        "Decision {v}: {what}, over {over}; {n} variables.",
        "What the plan fixes is {what}, so {v} runs over {over} ({n} of them).",
        "Let {v} be {what}; with {over} that makes {n} variables.",
        "The unknowns {v} are {what}, one per entry of {over}: {n} values.",
        "Variable {v} stands for {what}. It ranges over {over}, {n} values.",
        "For {over} we need {what}: {n} variables named {v}.",
        "The plan is described by {what}; over {over} these are {n} variables {v}.",
        "{v} gives {what} ({over}, {n} entries).",
        "Decide {what}: variable {v} over {over}, {n} of them."),
    "decide_yn": (
        "For each {ent} we decide {what}: {n} {kind} variables named {v}.",
        "The yes/no decisions: {what}, one {v} per entry of {over} ({n} in all).",
        "Whether to act is itself a decision: {v} says {what}, over {over}; {n} variables.",
        "We must settle, for {over}, {what}. That is {v}, {n} variables.",
        "Decision {v} records {what} ({n} entries over {over})."),
    "decide_one": (
        "One more decision, {v}: {what}.",
        "A single variable {v} holds {what}.",
        "Add {v} for {what}, a single number.",
        "Variable {v} is one number: {what}."),
    "device": (
        "Variable {v} is a modelling device, not something the {org} decides: {what}.",
        "The statement never mentions {v} ({what}); the model needs it to state the rules.",
        "A helper {v} ({what}) makes the rules expressible; no {org} asked for it.",
        "The variable {v} ({what}) is bookkeeping the modeller adds."),
    "binary": (
        "Each {v} is a yes/no choice per {ent}, so it is binary.",
        "This is an on/off decision for every {ent}: {v} binary, 0 or 1.",
        "A choice about {a_ent} is made or not, so {v} is 0 or 1.",
        "Nothing in between makes sense for {v}: binary.",
        "Half a choice about {a_ent} is meaningless, so {v} lives in {{0, 1}}.",
        "All or nothing for each {ent}: {v} is binary.",
        "For {a_ent} the answer is yes or no, hence {v} binary."),
    "integer": (
        "The variable {v} counts whole {units}, so it is integer.",
        "Fractions of {units} make no sense here, so {v} is integer.",
        "Each {v} must be a whole number of {units}.",
        "Only whole {units} are possible: {v} is integer.",
        "A fractional {v} could not be carried out, so integer.",
        "{Units} come whole, which makes {v} an integer variable."),
    "continuous": (
        "Each {v} is an amount in {unit}, so continuous: nothing asks for whole numbers.",
        "Quantities in {unit} can take any value, so {v} is continuous.",
        "Nothing in the request needs whole {unit}: {v} is continuous.",
        "Amounts in {unit} divide freely, so no integrality is imposed on {v}.",
        "Partial {unit} are fine, which keeps {v} continuous.",
        "The statement never asks for whole {unit}: {v} continuous.",
        "The variable {v} measures {unit}; a fraction of one is meaningful, so continuous.",
        "Since {unit} are divisible, {v} stays continuous.",
        "{unit} need not be whole here, so {v} is a real number.",
        "Any fraction of {unit} can be planned: {v} continuous.",
        "Whole {unit} are not required, so {v} is not integer."),
    "share": (
        "Fractions are allowed (a share of the demand), so {v} is continuous.",
        "A share can be split between {ents}, so {v} is continuous.",
        "Splitting among {ents} is allowed, hence {v} continuous between 0 and 1."),
    "nonneg": (
        "No {v} can be negative (lower bound 0).",
        "A negative {v} would mean nothing: lower bound 0.",
        "Lower bound 0 on {v}.",
        "Below zero {unit} have no meaning, so {v} starts at 0.",
        "There are no negative {unit}: {v} >= 0.",
        "Each {v} is at least 0, as negative {unit} cannot happen.",
        "{v} >= 0: there is no such thing as negative {unit}.",
        "Sign: nonnegative, since {unit} cannot go below zero."),
    "ub_param": (
        "Its upper bound is the {desc}: {vals}.",
        "The variable {v} is capped by the {desc} ({vals}).",
        "The {desc} bounds {v} from above: {vals}.",
        "No more than the {desc}, which is {vals}.",
        "Every {v} stays below the {desc}: {vals}."),
    "rule": (
        "Rule {c}: {meaning}",
        "{meaning} This is {c}.",
        "Next, {c}. {meaning}",
        "Then {c}: {meaning}",
        "Constraint {c} says: {meaning}",
        "Constraint {c} covers this: {meaning}",
        "{meaning} Call it {c}.",
        "On to {c}. {meaning}",
        "{c}. {meaning}",
        "Another rule, {c}: {meaning}",
        "{meaning} ({c})",
        "The model also needs {c}: {meaning}"),
    "rule_said": (
        "The statement: {q}",
        "It comes from {q}",
        "Source sentence for {c}: {q}",
        "The client wrote {q}",
        "See {q}",
        "The words behind {c}: {q}",
        "In the text: {q}",
        "{q} is the sentence for {c}.",
        "Behind {c} is the sentence {q}"),
    "rows": (
        "One row per {each}{where} ({n} {rows}); for instance {r}: {text}.",
        "It holds for each {each}{where}, so {n} {rows}, such as {r}: {text}.",
        "That gives {n} {rows} of {c}, one per {each}{where}; written out, {r} is {text}.",
        "Per {each}{where} one row, {n} in total. With the data, {r} reads {text}.",
        "{N} {rows} ({each}{where}). Take {r}: {text}.",
        "Instantiated for every {each}{where} it makes {n} {rows}; {r} becomes {text}.",
        "Over each {each}{where}: {n} {rows}, the first being {r}: {text}.",
        "Rule {c} needs {n} {rows}, one for each {each}{where}; {r} is {text}.",
        "Indexed by {each}{where}: {n} {rows}. Plugging in the numbers, {r} is {text}.",
        "{r} shows the pattern ({n} {rows}, by {each}{where}): {text}.",
        "There are {n} such {rows} ({each}{where}); {r} reads {text}.",
        "Grounded, {c} has {n} {rows} by {each}{where}; {r} is {text}."),
    "capacity": (
        "A limit: the left side is what the {ents} use, the right side what is available.",
        "Use stays within what is available, so {c} is a less-or-equal row.",
        "This caps consumption; leaving slack is allowed, exceeding is not.",
        "Resources are finite: {c} bounds what the plan may draw on."),
    "demand": (
        "A requirement: at least the amount asked, more is allowed if it pays.",
        "Requirements are floors, so {c} reads greater-or-equal.",
        "Meeting the need is mandatory; overshooting is only a cost question.",
        "Rule {c} sets a floor the plan has to reach."),
    "assignment": (
        "Each {ent} is taken exactly as the rule says, so {c} is an equation (or at most one).",
        "The assignment rows make sure nothing is left over or given twice.",
        "Rule {c} ties every {ent} to its taker."),
    "covering": (
        "Covering means at least once: {c} is a greater-or-equal row over the chosen sets.",
        "Every element must be reached by some choice, hence {c}."),
    "packing": (
        "Conflicts exclude each other, so the chosen items in {c} sum to at most one.",
        "Packing rows keep incompatible choices apart."),
    "budget": (
        "Spending is capped: the total outlay in {c} may not exceed the budget.",
        "Money is the binding resource here; {c} limits it."),
    "linking": (
        "A quantity may be positive only when its switch is on: {c} links the two.",
        "Rule {c} couples the continuous amount to the yes/no choice."),
    "degree": (
        "Degree rows: every stop is left once and entered once.",
        "Rule {c} fixes how often each node is visited."),
    "spread": (
        "The {desc} ranges from {lo} ({elo}) to {hi} ({ehi}).",
        "Across the data, the {desc} goes from {lo} at {elo} up to {hi} at {ehi}.",
        "For the {desc}, the largest value is {hi} ({ehi}) and the smallest {lo} ({elo}).",
        "The {desc} lies between {lo} for {elo} and {hi} for {ehi}.",
        "The smallest {desc} is {elo}'s {lo}; the largest is {ehi}'s {hi}."),
    "example": (
        "For instance {r}: {text}.",
        "Written out for {r}: {text}.",
        "With the data, {r} reads {text}.",
        "Take {r}: {text}.",
        "The row {r} becomes {text}.",
        "In numbers, {r}: {text}."),
    "ratio": (
        "An average or share is a ratio of two sums; the total is positive, so multiplying "
        "both sides by it keeps {c} linear, and each coefficient becomes the content minus the "
        "limit ({coefs}).",
        "A ratio is not linear, but the denominator is a positive total: multiply it out and "
        "move everything left; the coefficients of {c} are the differences {coefs}.",
        "Dividing by the total would make {c} nonlinear, so the limit is multiplied into the "
        "total instead, which yields {coefs}."),
    "big_m": (
        "The constant {p} ({desc}) is a big-M: large enough never to cut off a real plan, and "
        "no larger, since a loose M weakens the relaxation. From the data, {p} = {expr}, "
        "which gives {vals}.",
        "{p} plays the big-M in {c}. Its value is not arbitrary: {p} = {expr} from the data "
        "({vals}), the most the quantity could ever need, so it is valid and tight.",
        "For the big-M of {c} use {p} = {expr}: {vals}. A larger constant would also be valid "
        "but would weaken the bound."),
    "derived": (
        "{p} is derived from the data as {expr}: {vals}.",
        "Here {p} ({desc}) = {expr}, that is {vals}.",
        "{p} is not given but follows from the data ({expr}): {vals}."),
    "balance": (
        "Nothing appears or vanishes in {c}: what comes in equals what goes out.",
        "Every unit is counted on both sides of {c}.",
        "Rule {c} is a conservation equation, so equality, not an inequality.",
        "Stock and flow must add up exactly, hence the equals sign in {c}."),
    "device_rule": (
        "The statement does not say it in so many words; the model needs {c} for {why}.",
        "No sentence states {c}; it is there for {why}.",
        "The client would not write {c} down, yet {why} depends on it."),
    "objective": (
        "In the objective each decision carries its own rate, the {rate}: {terms}.",
        "The objective coefficients come straight from the data ({rate}): {terms}.",
        "The objective weighs each decision by the {rate}: {terms}.",
        "Each objective term is the {rate} times a decision, for instance {terms}.",
        "Objective coefficients are the {rate}: {terms}.",
        "The {rate} prices every decision: {terms}.",
        "Summing the {rate} over the plan gives the goal's value; for example {terms}.",
        "Weights in the goal: {terms} (the {rate})."),
    "lp": (
        "Every variable is continuous and every term linear, so this is an LP and the solver's "
        "optimum is exact.",
        "No integrality and no products of variables: a plain LP over {vars}.",
        "With only continuous {vars} and linear rows and objective, this is an LP and solves "
        "exactly.",
        "An LP in {vars}: linear throughout, no branching needed.",
        "Since {vars} may take fractional values and everything is linear, a linear program "
        "suffices."),
    "qp": (
        "The objective holds {nq} products of two variables, so this is a quadratic program "
        "(QP) rather than a linear one; {vars} stay continuous.",
        "With {nq} quadratic terms this is a QP over {vars}: linear rows, a quadratic "
        "objective.",
        "No integrality, but {nq} products of variables: a quadratic program (QP) in {vars}, "
        "which a linear solver alone cannot take.",
        "A QP: {nq} quadratic terms over continuous {vars}."),
    "qcp": (
        "The rows hold {nq} products of two variables: a quadratically constrained model "
        "(QCP).",),
    "mip": (
        "Because {ints} {be} whole, this is a mixed-integer linear program (MILP) and the "
        "solver has to branch.",
        "With {ints} integral, this is a mixed-integer linear program: the relaxation is a "
        "bound, not the answer.",
        "The whole-number decisions ({ints}) make it a mixed-integer linear program (MILP); "
        "branching is necessary.",
        "Integrality of {ints} makes it a mixed-integer linear model (MILP); expect a search "
        "tree."),
    "miqp": (
        "With {ints} whole and products of variables in the objective, this is a mixed-integer "
        "quadratic program (MIQP).",
        "Integrality of {ints} on top of a quadratic objective: a mixed-integer quadratic "
        "program (MIQP), solved by branching."),
    "relax_lower": (
        "Dropping the integrality of {ints} gives the {relaxed} relaxation; its optimum is a "
        "lower bound on the minimum, which the whole-number plan can only match or exceed.",
        "The {relaxed} relaxation (integrality of {ints} dropped) can only do better, so on a "
        "minimisation its value is a lower bound.",
        "Relaxing {ints} to fractions gives a lower bound on the least value: the relaxation "
        "is at most the optimum."),
    "relax_upper": (
        "Dropping the integrality of {ints} gives the {relaxed} relaxation; its optimum is an "
        "upper bound on the maximum, which the whole-number plan can only match or fall "
        "below.",
        "The {relaxed} relaxation (integrality of {ints} dropped) can only do better, so on a "
        "maximisation its value is an upper bound.",
        "Relaxing {ints} to fractions gives an upper bound on the best value: the relaxation "
        "is at least the optimum."),
    "order": (
        "{V} can stay continuous: it is an MTZ position, and in the sub-tour rows only the "
        "order of the positions matters, not their values.",
        "Positions in the MTZ rows only need to be ordered along the tour, so {v} stays "
        "continuous.",
        "The MTZ rows compare positions pairwise; only their order counts, so {v} is "
        "continuous."),
    "epigraph": (
        "{V} is an epigraph variable: the objective is {v} alone, and every worst-case row "
        "holds it on the far side of one term, so at the optimum it equals the worst term.",
        "The min-max device: {v} is free and continuous, bounded by every term through the "
        "worst-case rows, and optimising {v} makes it the worst term exactly.",
        "{V} carries the worst case (an epigraph variable): continuous and free, pushed by "
        "the objective against the worst-case rows."),
    "slack": (
        "{V} is a slack: continuous, at least 0, one per row it loosens, and every unit is "
        "charged in the objective, so it is positive only where the rule cannot be kept.",
        "As a slack, {v} measures by how much a row is broken; it is continuous, and its "
        "penalty keeps it at 0 wherever the rule can hold.",
        "{V} is continuous and nonnegative: a slack that loosens its row at a penalty per "
        "unit."),
    "forced": (
        "{V} can stay continuous between 0 and 1: its rows hold it at or above a difference "
        "of yes/no choices and it is charged, so at an optimum it is forced to 0 or 1.",
        "No integrality is needed on {v}: each row bounds it from below by whole combinations "
        "of binaries and its cost pushes it down, which forces a whole value."),
    "network": (
        "{V} can stay continuous: every coefficient is 0 or +-1 with at most two per column "
        "(a network or bipartite matrix), which is totally unimodular, and with whole data the "
        "LP optimum at a vertex is already whole.",
        "The rows form a network matrix, totally unimodular; with whole right-hand sides and "
        "bounds a vertex optimum is whole, so {v} needs no integrality.",
        "No integrality on {v} is needed: the constraint matrix is totally unimodular (each "
        "column has at most one +1 and one -1, or two ones in the two sides of a bipartite "
        "split), so the simplex vertex is whole."),
    "tu_too": (
        "Whole data over a totally unimodular matrix would give a whole optimum anyway.",
        "Even so, the matrix is totally unimodular: with whole data the vertex optimum is "
        "whole."),
    "relaxed": (
        "The model keeps {v} continuous, so a fractional value is possible.",
        "{V} is continuous in this model, so it may take a fractional value."),
    "switch_off": (
        "With {y} at 0 the row forces the quantities to 0, and with {y} at 1, the row caps "
        "them; the coefficient of {y} is {what}: {vals}.",
        "The row switches the quantities off unless {y} is 1, and then caps them; the "
        "coefficient of {y} is {what}: {vals}.",
        "{Y} acts as a switch, nothing moves while it is 0; the coefficient of {y} is {what}: "
        "{vals}."),
    "switch_floor": (
        "Once {y} is 1, the quantity must reach its floor; the coefficient of {y} is {what}: "
        "{vals}.",
        "With {y} at 1, the quantity is held at or above a floor, and the coefficient of {y} "
        "is {what}: {vals}."),
    "edge": (
        "Edge check: the right-hand sides of {dn} add up to {dt} and those of {cn} to {ct}, "
        "{verdict}.",
        "A quick sanity check: {dn} asks for {dt} in total while {cn} allows {ct}, {verdict}.",
        "Totals: {dt} required ({dn}) against {ct} available ({cn}), {verdict}."),
    "units": (
        "Units: {pairs}{tail}.",
        "Checking units, {pairs}{tail}.",
        "The units agree: {pairs}{tail}.",
        "Dimensions check out: {pairs}{tail}.",
        "As for units, {pairs}{tail}."),
    "cautions": (
        "Checks against the slips a first attempt made: ",
        "Things to get right here: ",
        "Where a first model went wrong: ",
        "Mistakes to avoid on this problem: "),
}
