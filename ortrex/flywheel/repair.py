"""The cleaner: a repair of a diagnosed answer, proposed deterministically from the semantic
model where the fix is mechanical, or by the served model given the diagnosis.

* **Deterministic** (classes in ``MECHANICAL``: a type, a bound, a sense, a units factor, the
  output contract): first the fix spliced into the answer's own program (``flywheel.splice``:
  the type, constant bound or sense the semantic model gives, at the family the program named);
  where that cannot be placed or does not validate, the program written from the semantic model
  (name-keyed where the model fits that style, index loops otherwise; ``data.json`` read where
  the problem has a data file).
* **Served**: the first answer, the diagnosis and the output contract, with the instruction to
  change only what the diagnosis names; later rounds add why the last repair was not accepted.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from ortrex.flywheel.answers import Problem, fenced
from ortrex.flywheel.diagnose import MECHANICAL, Diagnosis
from ortrex.flywheel.splice import Fix, apply
from ortrex.ir.semantic import SemanticModel
from ortrex.served.prompts import DATA_FILE_NOTE, SYSTEM

REPAIR = """A first answer to the problem below builds a model that the verifiers found wrong. \
Repair it.

Diagnosis (the model the program built, compared with the verified model):
{diagnosis}

Change only what the diagnosis names; keep every other variable, constraint, name and the \
way the data is read as they are.
{feedback}
Output contract:
- Reply with your reasoning, then exactly one fenced ```python code block (the last one counts).
- Build the model in a variable named `model`, call `model.optimize()`, and print the optimal \
objective as `OPTIMAL_OBJECTIVE: <value>`.{data}

First answer:
{program}

Problem:
{question}
"""


@dataclass
class Proposal:
    """A proposed repair: how it was made and its program (None: none could be made)."""

    method: str  # deterministic:patch | deterministic:ir | served
    program: str | None
    completion: str | None = None
    reasoning: str | None = None
    status: str = "proposed"  # proposed | no_program | error
    detail: str = ""


def actionable(diagnoses: list[Diagnosis]) -> list[Diagnosis]:
    """The diagnoses a repair can act on (``unknown`` and ``unaligned`` name nothing)."""
    return [d for d in diagnoses if d.mistake not in ("unknown", "unaligned")]


def mechanical(diagnoses: list[Diagnosis]) -> bool:
    """Whether every diagnosis has a mechanical fix."""
    acts = actionable(diagnoses)
    return bool(acts) and all(d.mistake in MECHANICAL for d in acts)


def ir_program(problem: Problem) -> str:
    """The program written from the semantic model (data from ``data.json`` when the problem
    has data files)."""
    from ortrex.render.program import gurobipy_program
    from ortrex.render.program_labels import labels_program, labels_style_fits

    sm = problem.sm
    mode = "json" if "data.json" in problem.files else "literal"
    if labels_style_fits(sm):
        return labels_program(sm, mode).code
    return gurobipy_program(sm, mode).code


def fixes(sm: SemanticModel, diagnoses: list[Diagnosis], names: dict[str, str]
          ) -> list[Fix] | None:
    """The splices that fix ``diagnoses`` in the answer's program (None: some have none)."""
    out: list[Fix] = []
    for d in actionable(diagnoses):
        if d.mistake == "objective_sense":
            out.append(Fix("sense", None, sm.objective.sense))
        elif d.mistake == "domain" and d.family in sm.var_map and \
                names.get(d.family, "(unnamed)") != "(unnamed)":
            out.append(Fix("vtype", names[d.family], sm.var_map[d.family].vtype))
        elif d.mistake == "bounds" and d.family in sm.var_map and \
                names.get(d.family, "(unnamed)") != "(unnamed)":
            v = sm.var_map[d.family]
            side = "lb" if d.details.get("side") == "lower" else "ub"
            b = v.lb if side == "lb" else v.ub
            if not isinstance(b, (int, float)):
                return None  # a bound from the data: the program from the model has it
            out.append(Fix("bound", names[d.family], float(b) if math.isfinite(b) else b, side))
        elif d.mistake == "constraint_sense" and d.details.get("answer_prefix"):
            c = next((c for c in sm.constraints if c.name == d.family), None)
            if c is None:
                return None
            out.append(Fix("compare", str(d.details["answer_prefix"]), c.sense))
        else:
            return None
    return out


def deterministic(problem: Problem, program: str | None, diagnoses: list[Diagnosis],
                  names: dict[str, str]) -> list[Proposal]:
    """The deterministic candidates, in order: the spliced fix (when every diagnosis has one),
    then the program written from the semantic model."""
    out = []
    fx = fixes(problem.sm, diagnoses, names) if program else None
    if fx and program:
        patched = apply(program, fx)
        if patched is not None and patched != program:
            out.append(Proposal("deterministic:patch", patched,
                                detail="; ".join(f"{f.kind} {f.name or ''} -> {f.value}"
                                                 for f in fx)))
    out.append(Proposal("deterministic:ir", ir_program(problem)))
    return out


def diagnosis_text(diagnoses: list[Diagnosis]) -> str:
    """The diagnosis as the repair and review prompts list it."""
    return "\n".join(f"- {d.mistake}" + (f" in {d.family}" if d.family else "") +
                     f": {d.evidence}" for d in diagnoses)


def repair_messages(problem: Problem, program: str | None, diagnoses: list[Diagnosis],
                    feedback: list[tuple[str, str | None]]) -> list[dict[str, Any]]:
    """The chat messages asking the served model for a repair (``feedback``: earlier rounds'
    (why not accepted, their program))."""
    notes = ""
    for why, prog in feedback:
        notes += f"\nA previous repair was not accepted: {why}\n"
        if prog:
            notes += fenced(prog) + "\n"
    user = REPAIR.format(diagnosis=diagnosis_text(diagnoses), feedback=notes,
                         data=DATA_FILE_NOTE if problem.files else "",
                         program=fenced(program) if program else "(no program)",
                         question=problem.question.strip())
    return [{"role": "system", "content": SYSTEM}, {"role": "user", "content": user}]


_DOMAIN = {"C": "continuous", "I": "integer", "B": "binary"}


def _bound_words(sm: SemanticModel, v: Any) -> str:
    from ortrex.ir.expr import Param, as_expr

    parts = []
    for side, b in (("at least", v.lb), ("at most", v.ub)):
        if isinstance(b, (int, float)):
            if math.isfinite(b):
                parts.append(f"{side} {b:g}")
            continue
        names = [x.name for x in as_expr(b).walk() if isinstance(x, Param)]
        parts += [f"{side} the {sm.param_map[n].description}" for n in names[:1]]
    return ", ".join(parts) or "none"


def caution(sm: SemanticModel, d: Diagnosis) -> str:
    """What a diagnosis teaches, as a sentence of Clean-CoT reasoning (in the model's terms)."""
    from ortrex.render.telling import plain

    fam = d.family or ""
    v = sm.var_map.get(fam)
    c = next((x for x in sm.constraints if x.name == fam), None)
    what = (plain(sm, v.description, v.dims) if v else c.meaning if c else "").rstrip(".")
    m = d.mistake
    if m == "domain" and v is not None:
        return (f"{fam} is {_DOMAIN[v.vtype]}: {what}; declaring it "
                f"{' or '.join(_DOMAIN.get(g, g) for g in d.details.get('got', []))} "
                "changes the problem.")
    if m == "bounds" and v is not None:
        return (f"{fam} ({what}) keeps exactly the bounds the data gives it: "
                f"{_bound_words(sm, v)}.")
    if m == "objective_sense":
        return (f"The goal is to {'minimise' if sm.objective.sense == 'min' else 'maximise'} "
                f"the {sm.objective.description}, not the opposite.")
    if m == "constraint_sense" and c is not None:
        return f"{fam} is a {c.sense} rule: {what}."
    if m == "missing_constraint":
        return f"Do not leave out {fam}: {what}."
    if m == "extra_constraint":
        return "Add no rule the statement does not give: an extra row cuts off valid plans."
    if m == "units":
        return ("Use every number in the units the data gives; no factor of 100, 1000 or 60 "
                f"belongs in {fam or 'the model'}.")
    if m == "objective_term":
        return (f"The objective counts every term of {fam} ({what})." if fam else
                "The objective has exactly the terms the statement prices.")
    if m == "ratio":
        return (f"{fam} bounds an average: the limit multiplies the total of the decisions, so "
                "each coefficient is the content minus the limit.")
    if m == "index_range":
        return f"{fam} covers every index the statement names, no fewer and no more."
    if m == "coefficients":
        return f"{fam} takes its numbers exactly as the data gives them."
    if m in ("missing_variable", "extra_variable"):
        return f"The decisions are exactly those the model needs{(': ' + fam) if fam else ''}."
    if m == "output_contract":
        return ("The program names its model `model`, calls optimize() and prints "
                "OPTIMAL_OBJECTIVE: <value>.")
    if m == "unsafe_data_access":
        return "Read only the data file given; open, write or import nothing else."
    if m == "gurobi_api":
        return ("Write each comparison as its own constraint and use only gurobipy's "
                "documented API.")
    if m in ("code_error", "timeout"):
        return "The program must run to the end: every name defined, no loop without an exit."
    return f"{m}: {d.evidence}"

