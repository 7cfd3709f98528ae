"""The phrasings of the clean_cot reasoning's sentences (``ortrex.render.reasoning``): several
per sentence, each weaving in the model's own words so that a corpus of reasoning does not
repeat one skeleton."""

from __future__ import annotations

# Several phrasings of every sentence, each weaving in the model's own words ({v}: the
# variable, {ent}: what it is indexed by, {unit}, {c}: the rule), so that phrasings stay
# distinct across a corpus. A key starting with "@" is a part of a sentence: "{@milp}" in a
# template is one of its wordings, drawn apart from the rest of the sentence. Every wording is
# true of every model its key is said of (a relaxation's bound follows the sense; the class
# words are the class's), and names no domain a decision may not have.
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
        "This is a {sense} problem over the {what}.",
        "The figure to {verb} is the {what}.",
        "Our task: {verb} the {what}.",
        "Before anything else, the aim: the {what}, {extreme}.",
        "The one quantity that matters is the {what}, to {verb}."),
    "goal_said": (
        "The statement says so in its own words: {q}",
        "In the client's words: {q}",
        "That is what {q} asks for.",
        "The line {q} settles the direction.",
        "It is spelled out as {q}",
        "The text puts it as {q}",
        "Evidence for the sense: {q}",
        "The request reads {q}",
        "{q} makes it explicit.",
        "The sentence to go by: {q}",
        "Quoting the request: {q}",
        "Nothing is left to guess, since the text says {q}",
        "The direction comes from {q}",
        "As the text has it: {q}",
        "The statement leaves no doubt: {q}",
        "That matches {q}"),
    "decide": (
        "The decisions are {what}: one {v} for each combination of {over}, {n} in all.",
        "We choose {what}. That is {v}, indexed by {over}: {n} variables.",
        "Decision {v}: {what}, over {over}; {n} variables.",
        "What the plan fixes is {what}, so {v} runs over {over}, {n} of them.",
        "Let {v} be {what}; with {over} that makes {n} variables.",
        "The unknowns {v} are {what}, one per entry of {over}: {n} values.",
        "Variable {v} stands for {what}. It ranges over {over}, {n} values.",
        "For {over} we need {what}: {n} variables named {v}.",
        "The plan is described by {what}; over {over} these are {n} variables {v}.",
        "{v} gives {what}: {n} entries over {over}.",
        "Decide {what}: variable {v} over {over}, {n} of them.",
        "The quantities to set are {what}, written {v}; over {over} there are {n}.",
        "Next come {n} unknowns {v}, {what}, one for each entry of {over}.",
        "A plan has to say {what}. In the model that is {v}, over {over}: {n} numbers.",
        "The model's {v} holds {what}, {n} of them over {over}.",
        "The plan is written in {v}: {what}, over {over}, {n} values.",
        "Variables {v} carry {what}; there is one per entry of {over}, {n} in all."),
    "decide_yn": (
        "Over {over} we decide {what}: {n} {kind} variables named {v}.",
        "The yes/no decisions: {what}, {n} in all, one {v} per entry of {over}.",
        "Whether to act is itself a decision: {v} says {what}, over {over}; {n} variables.",
        "We must settle, for {over}, {what}. That is {v}, {n} variables.",
        "Decision {v} records {what}: {n} entries over {over}.",
        "The choice to make is {what}; {v} holds it for {over}, {n} variables.",
        "Each {v} answers one question, {what}, for {over}: {n} of them.",
        "The model asks, for {over}, {what}: {n} variables {v}.",
        "For {over}, {v} holds {what}; {n} such variables.",
        "The model needs to know {what}, so {v} is defined over {over}, {n} in all.",
        "Next, {what}: {n} {kind} variables {v} over {over}."),
    "decide_one": (
        "One more decision, {v}: {what}.",
        "A single variable {v} holds {what}.",
        "Add {v} for {what}, a single number.",
        "Variable {v} is one number: {what}.",
        "There is also {v}, a lone variable for {what}.",
        "One scalar, {v}, stands for {what}."),
    "device": (
        "Variable {v} is a modelling device, not something the {org} decides: {what}.",
        "The statement never mentions {v} ({what}); the model needs it to state the rules.",
        "A helper {v} ({what}) makes the rules expressible; no {org} asked for it.",
        "The variable {v} ({what}) is bookkeeping the modeller adds.",
        "To write the rules down, the model adds {v}: {what}.",
        "No one asked for {v}, which records {what}; the rules need it."),
    "exists": (
        "It exists {conds}: {n} of the {grid} combinations.",
        "Only {n} of the {grid} combinations are needed, {conds}.",
        "It is defined {conds}, so {n} of {grid} combinations remain.",
        "Of the {grid} combinations, {n} are kept: {conds}.",
        "Its entries exist {conds}: {n} out of {grid}.",
        "Not all {grid} combinations are used: {n} remain, {conds}.",
        "Defined {conds}, it has {n} of the {grid} combinations."),
    "binary": (
        "Each {v} is a yes/no choice per {ent}, so it is binary.",
        "This is an on/off decision for every {ent}: {v} binary, 0 or 1.",
        "A choice about {a_ent} is made or not, so {v} is 0 or 1.",
        "Nothing in between makes sense for {v}: binary.",
        "Half a choice about {a_ent} is meaningless, so {v} lives in {{0, 1}}.",
        "All or nothing for each {ent}: {v} is binary.",
        "For {a_ent} the answer is yes or no, hence {v} binary.",
        "No half measures here, so {v} is binary.",
        "{V} takes the value 1 for yes and 0 for no: a binary variable.",
        "A yes/no question calls for a binary {v}.",
        "{V} is binary: each answer is either yes or no.",
        "A yes/no decision per {ent}, so {v} is a binary variable.",
        "{V} can only be 0 or 1; it is binary.",
        "Binary, because {v} records a yes or a no."),
    "integer": (
        "The variable {v} counts whole {units}, so it is integer.",
        "Fractions of {units} make no sense here, so {v} is integer.",
        "Each {v} must be a whole number of {units}.",
        "Only whole {units} are possible: {v} is integer.",
        "A fractional {v} could not be carried out, so integer.",
        "{Units} come whole, which makes {v} an integer variable.",
        "Since {units} are counted, not measured, {v} is integer.",
        "Whole {units} only, so {v} is declared integer."),
    "continuous": (
        "Each {v} is an amount in {unit}, so continuous: nothing asks for whole numbers.",
        "Quantities in {unit} can take any value, so {v} is continuous.",
        "Nothing in the request needs whole numbers here: {v} is continuous.",
        "Amounts in {unit} divide freely, so no integrality is imposed on {v}.",
        "Partial amounts are fine in {unit}, which keeps {v} continuous.",
        "The statement never asks for whole {amounts}: {v} continuous.",
        "The variable {v} measures {unit}; a fraction of one is meaningful, so continuous.",
        "Since {amounts} are divisible, {v} stays continuous.",
        "Amounts in {unit} need not be whole here, so {v} is a real number.",
        "Any fraction of an amount can be planned: {v} continuous.",
        "Whole numbers are not required for {v}, so it is not integer.",
        "{V} is a measured quantity in {unit}, continuous rather than counted.",
        "A fractional {v} is meaningful, so it is continuous.",
        "Nothing forces whole {amounts}: {v} is continuous."),
    "share": (
        "Fractions are allowed (a share of the demand), so {v} is continuous.",
        "A share can be split between {ents}, so {v} is continuous.",
        "Splitting among {ents} is allowed, hence {v} continuous between 0 and 1.",
        "{V} is a share, so it is continuous and lies between 0 and 1."),
    "nonneg": (
        "No {v} can be negative (lower bound 0).",
        "A negative {v} would mean nothing: lower bound 0.",
        "Lower bound 0 on {v}.",
        "Below zero, {amounts} have no meaning, so {v} starts at 0.",
        "There are no negative {amounts}: {v} >= 0.",
        "Each {v} is at least 0, as negative {amounts} cannot happen.",
        "{v} >= 0: there is no such thing as negative {amounts}.",
        "Sign: nonnegative, since {amounts} cannot go below zero.",
        "Its lower bound is 0; a negative value of {v} has no meaning.",
        "{V} stays at or above zero.",
        "{V} has lower bound 0.",
        "Negative {amounts} are impossible, so {v} >= 0.",
        "Zero is the floor for {v}.",
        "A value of {v} below 0 would be meaningless, so it is bounded by 0."),
    "ub_param": (
        "Its upper bound is the {desc}: {vals}.",
        "The variable {v} is capped by the {desc}: {vals}.",
        "The {desc} bounds {v} from above: {vals}.",
        "No more than the {desc}, which is {vals}.",
        "Every {v} stays below the {desc}: {vals}.",
        "From above, {v} is held by the {desc}: {vals}.",
        "The cap on {v} is the {desc}, that is {vals}."),
    "rule": (
        "Rule {c}: {meaning}",
        "{meaning} This is {c}.",
        "Next, {c}. {meaning}",
        "Then {c}: {meaning}",
        "Constraint {c} says: {meaning}",
        "Constraint {c} covers this: {meaning}",
        "{meaning} Call it {c}.",
        "On to {c}. {meaning}",
        "Now {c}: {meaning}",
        "Another rule, {c}: {meaning}",
        "{bare} ({c}).",
        "The model also needs {c}: {meaning}",
        "The rule {c} reads: {meaning}",
        "{bare}, which is what {c} states.",
        "Moving on, {c}. {meaning}",
        "What {c} captures: {meaning}",
        "Rule {c} states: {meaning}",
        "There is also {c}. {meaning}",
        "{c} comes next: {meaning}",
        "Let {c} be the rule that says: {meaning}"),
    "rule_said": (
        "The statement: {q}",
        "It comes from {q}",
        "Source sentence for {c}: {q}",
        "The client wrote {q}",
        "See {q}",
        "The words behind {c}: {q}",
        "In the text: {q}",
        "{q} is the sentence for {c}.",
        "Behind {c} is the sentence {q}",
        "The request puts it this way: {q}",
        "This is the model's form of {q}",
        "Here the text asks {q}",
        "Where it comes from: {q}",
        "The sentence {q} asks for it.",
        "The client's sentence: {q}",
        "That is the model's reading of {q}",
        "The text behind it: {q}",
        "Its origin in the statement: {q}"),
    "rows": (
        "One row per {each} ({n} {rows}); for instance {r}: {text}.",
        "It holds for each {each}, so {n} {rows}, such as {r}: {text}.",
        "That gives {n} {rows} of {c}, one per {each}; written out, {r} is {text}.",
        "Per {each} one row, {n} in total. With the data, {r} reads {text}.",
        "{N} {rows}, one per {each}. Take {r}: {text}.",
        "Instantiated for every {each} it makes {n} {rows}; {r} becomes {text}.",
        "Over each {each}: {n} {rows}, the first being {r}: {text}.",
        "Rule {c} needs {n} {rows}, one for each {each}; {r} is {text}.",
        "Indexed by {each}: {n} {rows}. Plugging in the numbers, {r} is {text}.",
        "{r} shows the pattern ({n} {rows}, one per {each}): {text}.",
        "There {are} {n} such {rows}, one per {each}; {r} reads {text}.",
        "Grounded, {c} has {n} {rows} by {each}; {r} is {text}.",
        "Each {each} gets its own row, {n} in all; the first, {r}, is {text}.",
        "With one row for every {each} there are {n}; {r} comes out as {text}.",
        "Counting one per {each} gives {n} {rows}. As an example, {r}: {text}.",
        "{c} expands to {n} {rows}, one for each {each}; here is {r}: {text}.",
        "{c} has one row for every {each}, {n} in all, e.g. {r}: {text}.",
        "Writing it out once per {each} gives {n} {rows}; {r} is {text}.",
        "The rule repeats for each {each}: {n} {rows}. In numbers, {r} reads {text}.",
        "As a set of rows, one per {each}, {c} counts {n}; {r}: {text}."),
    "rows_some": (
        "It holds {scope} ({n} {rows}); for instance {r}: {text}.",
        "{N} {rows}, {scope}; written out, {r} is {text}.",
        "Rule {c} applies {scope}, which makes {n} {rows}; {r} reads {text}.",
        "Only some combinations get a row: {scope}, {n} in all. Take {r}: {text}.",
        "Grounded {scope}, {c} has {n} {rows}; {r} is {text}.",
        "Its rows exist {scope}: {N} in total. {r} reads {text}.",
        "Rule {c} has {n} {rows}, {scope}; with the data, {r} becomes {text}.",
        "Instantiated {scope}, it gives {n} {rows}, such as {r}: {text}.",
        "Not every combination has a row; it holds {scope}, {n} {rows}. With the data, {r} "
        "reads {text}.",
        "Restricted {scope}, {c} gives {n} {rows}; {r} is {text}.",
        "The rule is kept {scope}: {N} {rows}, such as {r}: {text}.",
        "Rows are written {scope}, {n} of them; {r} comes out as {text}."),
    "capacity": (
        "A limit: the left side is what the {ents} use, the right side what is available.",
        "Use stays within what is available, so {c} is a less-or-equal row.",
        "This caps consumption; leaving slack is allowed, exceeding is not.",
        "Resources are finite: {c} bounds what the plan may draw on.",
        "What is used may fall short of what is there, never go beyond it.",
        "The row is an upper limit on use: anything up to the available amount is fine.",
        "Whatever the plan draws may not exceed what is on hand.",
        "Rule {c} is a ceiling: the plan may use less, never more."),
    "demand": (
        "A requirement: at least the amount asked, more is allowed if it pays.",
        "Requirements are floors, so {c} reads greater-or-equal.",
        "Meeting the need is mandatory; overshooting is only a cost question.",
        "Rule {c} sets a floor the plan has to reach.",
        "Falling short is not allowed; going over is, at a price.",
        "The need is a minimum, hence the greater-or-equal sign in {c}."),
    "assignment": (
        "Each {ent} is taken exactly as the rule says, so {c} is an equation (or at most one).",
        "The assignment rows make sure nothing is left over or given twice.",
        "Rule {c} ties every {ent} to its taker.",
        "No {ent} may be left out or counted twice, which is what {c} guarantees.",
        "Exactly as many takers as the rule says, no more and no fewer: that is {c}.",
        "Rule {c} makes every {ent} count the right number of times."),
    "covering": (
        "Covering means at least once: {c} is a greater-or-equal row over the chosen sets.",
        "Every element must be reached by some choice, hence {c}.",
        "Being covered more than once is fine; not at all is not.",
        "Rule {c} asks that no element goes uncovered.",
        "At least one chosen set must reach each element: {c}."),
    "packing": (
        "Conflicts exclude each other, so the chosen items in {c} sum to at most one.",
        "Packing rows keep incompatible choices apart.",
        "Of the clashing choices in each row of {c}, at most one may be made."),
    "budget": (
        "Spending is capped: the total outlay in {c} may not exceed the budget.",
        "Money is the binding resource here; {c} limits it.",
        "What is spent in {c} stays within the money available."),
    "linking": (
        "A quantity may be positive only when its switch is on: {c} links the two.",
        "Rule {c} couples the continuous amount to the yes/no choice."),
    "degree": (
        "Degree rows: every stop is left once and entered once.",
        "Rule {c} fixes how often each node is visited.",
        "Each node gets exactly one way in and one way out."),
    "spread": (
        "The {desc} {ranges} from {lo} {elo} to {hi} {ehi}.",
        "Across the data, the {desc} {goes} from {lo} {elo} up to {hi} {ehi}.",
        "For the {desc}, the largest value is {hi} {ehi} and the smallest {lo} {elo}.",
        "The {desc} {lies} between {lo} {elo} and {hi} {ehi}.",
        "At the low end the {desc} {is_} {lo} {elo}; at the high end, {hi} {ehi}.",
        "The data put the {desc} between {lo} {elo} and {hi} {ehi}.",
        "Looking at the numbers, the {desc} {spans} {lo} {elo} to {hi} {ehi}.",
        "The lowest figure for the {desc} is {lo} {elo}, the highest {hi} {ehi}.",
        "In this instance the {desc} {is_} never below {lo} {elo} nor above {hi} {ehi}.",
        "The extremes of the {desc}: {lo} {elo} and {hi} {ehi}.",
        "Over the data, the {desc} {is_} as low as {lo} {elo} and as high as {hi} {ehi}.",
        "The numbers for the {desc} stretch from {lo} {elo} to {hi} {ehi}.",
        "A look at the {desc}: smallest {lo} {elo}, largest {hi} {ehi}.",
        "The {desc} {goes} no lower than {lo} {elo} and no higher than {hi} {ehi}."),
    "example": (
        "For instance {r}: {text}.",
        "Written out for {r}: {text}.",
        "With the data, {r} reads {text}.",
        "Take {r}: {text}.",
        "The row {r} becomes {text}.",
        "In numbers, {r}: {text}.",
        "It is a single row, {r}: {text}.",
        "Just one row here; {r} is {text}."),
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
        "no larger, since a loose M weakens the relaxation. From the data, {p} is {how}, "
        "which gives {vals}.",
        "{p} plays the big-M in {c}. Its value is not arbitrary but {how}, which is {vals}: "
        "the most the quantity could ever need, so it is valid and tight.",
        "For the big-M of {c} use {p}, which is {how}: {vals}. A larger constant would also "
        "be valid but would weaken the bound.",
        "The big-M {p} comes from the data rather than a guess: it is {how}, giving {vals}; that "
        "is enough for any real plan and keeps the bound tight."),
    "derived": (
        "{p} is derived from the data as {how}: {vals}.",
        "Here {p} ({desc}) is {how}, that is {vals}.",
        "{p} is not given but follows from the data; it is {how}: {vals}.",
        "The {desc} is computed, not read: {p} is {how}, giving {vals}.",
        "From the data, {p} is {how}: {vals}."),
    "derived_bare": (
        "{p} is derived from the data as {how}: {vals}.",
        "{p} is not given but follows from the data; it is {how}: {vals}.",
        "From the data, {p} is {how}: {vals}.",
        "The program computes {p} rather than reading it: {how}, giving {vals}."),
    "derived_again_bare": (
        "It uses {p} again: {vals}.",
        "{p} appears here too: {vals}."),
    "derived_again": (
        "{p} is the same {desc} as before: {vals}.",
        "It uses {p} again: {vals}.",
        "Again {p}, the {desc}: {vals}."),
    "balance": (
        "Nothing appears or vanishes in {c}: what comes in equals what goes out.",
        "Every unit is counted on both sides of {c}.",
        "Rule {c} is a conservation equation, so equality, not an inequality.",
        "Stock and flow must add up exactly, hence the equals sign in {c}.",
        "Inflow and outflow must match exactly, so {c} is an equation.",
        "In {c} nothing is lost on the way: an equation, not a limit.",
        "What enters must leave or stay, so {c} is an equality.",
        "Flows in {c} are conserved: the two sides match exactly.",
        "Conservation: {c} holds with an equals sign.",
        "Rule {c} balances its two sides exactly; a gap either way is not allowed."),
    "device_rule": (
        "The statement does not say it in so many words; the model needs {c} for {why}.",
        "No sentence states {c}; it is there for {why}.",
        "The client would not write {c} down, yet {why} depends on it.",
        "Rule {c} is the modeller's addition, for {why}."),
    "objective": (
        "In the objective each decision carries its own rate, the {rate}: {terms}.",
        "The objective coefficients come straight from the data ({rate}): {terms}.",
        "The objective weighs each decision by the {rate}: {terms}.",
        "Each objective term is the {rate} times a decision, for instance {terms}.",
        "Objective coefficients are the {rate}: {terms}.",
        "Every decision is priced by the {rate}: {terms}.",
        "Summing the {rate} over the plan gives the goal's value; for example {terms}.",
        "Weights in the goal, the {rate}: {terms}.",
        "The goal adds up the {rate} over the decisions: {terms}.",
        "To score a plan, multiply by the {rate}: {terms}.",
        "The data give the objective directly, through the {rate}: {terms}.",
        "As for the goal, it is built from the {rate}: {terms}.",
        "The coefficients of the goal are read off the {rate}: {terms}.",
        "Each decision contributes at the {rate}: {terms}.",
        "The {rate} fill in the objective, for example {terms}.",
        "Putting the data into the goal gives the {rate} as weights: {terms}."),
    "objective_q": (
        "The objective has no linear terms: it is {nq} products of two variables weighted "
        "by the {rate}{extra}.",
        "Only products of two variables appear in the goal, {nq} of them, each weighted by "
        "the {rate}{extra}.",
        "The goal is purely quadratic{extra}: {nq} products of two variables, with the "
        "{rate} as weights.",
        "There is no linear part in the objective; the {rate} weigh {nq} products of pairs of "
        "variables{extra}."),
    "@int_why": (
        "Because {ints} {be} whole",
        "With {ints} integral",
        "Since {ints} must take whole values",
        "As {ints} {be} restricted to whole numbers",
        "Given that {ints} {be} whole-valued",
        "With whole values required of {ints}",
        "Because {ints} cannot be fractional"),
    "@int_fact": (
        "{ints} {be} whole",
        "{ints} must take whole values",
        "{ints} cannot be fractional",
        "whole values are required of {ints}"),
    "@milp": (
        "this is a mixed-integer linear program (MILP)",
        "the model is a MILP",
        "the model is mixed-integer linear",
        "it is a mixed-integer linear program",
        "the problem is a MILP",
        "we are looking at a MILP",
        "the formulation is a mixed-integer linear model"),
    "@milp_then": (
        " and the solver has to branch",
        "; branching is necessary",
        ": expect a search tree",
        ", solved by branch and bound",
        "; a solver closes the gap by branching",
        ", which calls for branch and bound",
        ": the relaxation is a bound, not the answer",
        "; the solver has to search, not just solve one LP relaxation",
        ""),
    "@int_makes": (
        "Integrality of {ints} makes it",
        "The whole-number decisions ({ints}) make it",
        "Requiring whole values of {ints} makes it",
        "Whole values for {ints} make it"),
    "@milp_np": (
        "a mixed-integer linear program (MILP)",
        "a mixed-integer linear model (MILP)",
        "a MILP",
        "mixed-integer linear"),
    "@relax_act": (
        "Dropping the integrality of {ints}",
        "Treating {ints} as fractional",
        "Letting {ints} take fractional values",
        "Allowing fractions in {ints}"),
    "@relaxation_np": (
        "the {relaxed} relaxation",
        "a relaxation",
        "the relaxed model",
        "a relaxed problem"),
    "@its_lower": (
        "its optimum is a lower bound on the minimum",
        "its value is a lower bound",
        "it can only do better, so it gives a lower bound",
        "the value it reaches is a lower bound on the optimum"),
    "@its_upper": (
        "its optimum is an upper bound on the maximum",
        "its value is an upper bound",
        "it can only do better, so it gives an upper bound",
        "the value it reaches is an upper bound on the optimum"),
    "@relaxation": (
        "the {relaxed} relaxation",
        "the relaxation that lets {ints} be fractional",
        "the {relaxed} relaxation, with {ints} free to take fractions,",
        "a relaxation of {ints} to fractional values",
        "the relaxed model, {ints} allowed to be fractional,"),
    "@lower_is": (
        "gives a lower bound on the minimum",
        "is a lower bound on the best whole plan",
        "gives the optimum a lower bound",
        "can only do better, so its value is a lower bound",
        "yields a lower bound on the least value",
        "never exceeds the optimum and so is a lower bound"),
    "@lower_then": (
        ", which the whole-number plan can only match or exceed",
        "; no whole plan does better",
        ": the optimum is at or above it",
        "; the gap to it shows how good a plan is",
        ""),
    "@upper_is": (
        "gives an upper bound on the maximum",
        "is an upper bound on the best whole plan",
        "gives the optimum an upper bound",
        "can only do better, so its value is an upper bound",
        "yields an upper bound on the greatest value",
        "never falls below the optimum and so is an upper bound"),
    "@upper_then": (
        ", which the whole-number plan can only match or fall below",
        "; no whole plan does better",
        ": the optimum is at or below it",
        "; the gap to it shows how good a plan is",
        ""),
    "@lp_why": (
        "every variable is continuous and every term linear",
        "{vars} may take fractional values and everything is linear",
        "nothing is integral and nothing is quadratic",
        "the rows and the objective are linear in continuous {vars}",
        "there is no integrality and no product of variables"),
    "@lp_cls": (
        "this is an LP",
        "the model is a linear program",
        "a linear program suffices",
        "we have a plain LP",
        "it is a linear program (LP)"),
    "@lp_then": (
        " and the solver's optimum is exact",
        ", solved without branching",
        "; the simplex method settles it",
        ", with no search tree",
        "; one solve gives the optimum",
        ""),
    "@off_head": (
        "With {y} at 0 the row forces the quantities to 0, and with {y} at 1, the row caps "
        "them",
        "The row switches the quantities off unless {y} is 1, and then caps them",
        "{y} acts as a switch, nothing moves while it is 0",
        "While {y} is 0 nothing can be positive here; once it is 1 the cap applies",
        "Only with {y} at 1 may the quantities be positive, and then only up to the cap",
        "The quantities stay at 0 unless {y} = 1, and never pass the cap"),
    "@floor_head": (
        "Once {y} is 1, the quantity must reach its floor",
        "With {y} at 1, the quantity is held at or above a floor",
        "Setting {y} to 1 means the quantity has to reach a minimum",
        "If {y} is 1, the quantity cannot fall below its floor"),
    "@switch_coef": (
        "; the coefficient of {y} is {what}: {vals}",
        "; the coefficient of {y} in the row is {what}: {vals}",
        ". The coefficient of {y} there is {what}: {vals}",
        ", and the coefficient of {y} is {what}: {vals}"),
    "lp": (
        "Every variable is continuous and every term linear, so this is an LP and the solver's "
        "optimum is exact.",
        "No integrality and no products of variables: a plain LP over {vars}.",
        "With only continuous {vars} and linear rows and objective, this is an LP and solves "
        "exactly.",
        "An LP in {vars}: linear throughout, no branching needed.",
        "Since {vars} may take fractional values and everything is linear, a linear program "
        "suffices.",
        "Linear rows, a linear objective and fractional {vars}: a linear program, solved to "
        "optimality without any search tree.",
        "This is a linear program in {vars}; the simplex method settles it directly.",
        "Since {@lp_why}, {@lp_cls}{@lp_then}.",
        "{@lp_cls}{@lp_then}: {@lp_why}."),
    "qp": (
        "The objective holds {nq} products of two variables, so this is a quadratic program "
        "(QP) rather than a linear one; {vars} stay continuous.",
        "With {nq} quadratic terms this is a QP over {vars}: linear rows, a quadratic "
        "objective.",
        "No integrality, but {nq} products of variables: a quadratic program (QP) in {vars}, "
        "which a linear solver alone cannot take.",
        "A QP: {nq} quadratic terms over continuous {vars}.",
        "The {nq} products of variables in the goal make it a quadratic program (QP); the "
        "rows stay linear."),
    "qcp": (
        "The rows hold {nq} products of two variables: a quadratically constrained model "
        "(QCP).",
        "With {nq} products of variables inside the rows, the model is quadratically "
        "constrained (QCP)."),
    "mip": (
        "{@int_why}, {@milp}{@milp_then}.",
        "{@milp}{@milp_then}, since {@int_fact}.",
        "{@int_makes} {@milp_np}{@milp_then}.",
        "This is a MILP: every row and the objective are linear, but {ints} must take whole "
        "values.",
        "Linear rows with whole-valued {ints}: a MILP that the solver explores by "
        "branching."),
    "miqp": (
        "With {ints} whole and products of variables in the objective, this is a mixed-integer "
        "quadratic program (MIQP).",
        "Integrality of {ints} on top of a quadratic objective: a mixed-integer quadratic "
        "program (MIQP), solved by branching."),
    "relax_lower": (
        "{@relaxation} {@lower_is}{@lower_then}.",
        "On a minimisation, {@relaxation} {@lower_is}{@lower_then}.",
        "{@relax_act} gives {@relaxation_np}; {@its_lower}{@lower_then}.",
        "Relaxing {ints} to fractions gives a lower bound on the least value: the relaxation "
        "is at most the optimum.",
        "The {relaxed} relaxation (integrality of {ints} dropped) can only do better, so on a "
        "minimisation its value is a lower bound."),
    "relax_upper": (
        "{@relaxation} {@upper_is}{@upper_then}.",
        "On a maximisation, {@relaxation} {@upper_is}{@upper_then}.",
        "{@relax_act} gives {@relaxation_np}; {@its_upper}{@upper_then}.",
        "Relaxing {ints} to fractions gives an upper bound on the best value: the relaxation "
        "is at least the optimum.",
        "The {relaxed} relaxation (integrality of {ints} dropped) can only do better, so on a "
        "maximisation its value is an upper bound."),
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
        "{vals}.",
        "{@off_head}{@switch_coef}.",
        "{@off_head}{@switch_coef}.",
        "{@off_head}{@switch_coef}."),
    "switch_floor": (
        "Once {y} is 1, the quantity must reach its floor; the coefficient of {y} is {what}: "
        "{vals}.",
        "With {y} at 1, the quantity is held at or above a floor, and the coefficient of {y} "
        "is {what}: {vals}.",
        "{@floor_head}{@switch_coef}.",
        "{@floor_head}{@switch_coef}."),
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
        "As for units, {pairs}{tail}.",
        "Unit check: {pairs}{tail}.",
        "In units, {pairs}{tail}.",
        "The units are consistent: {pairs}{tail}.",
        "Keeping track of units, {pairs}{tail}.",
        "A look at the units: {pairs}{tail}."),
    "cautions": (
        "Checks against the slips a first attempt made: ",
        "Things to get right here: ",
        "Where a first model went wrong: ",
        "Mistakes to avoid on this problem: "),
}
