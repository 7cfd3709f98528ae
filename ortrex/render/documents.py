"""CPT documents and SFT examples built from a statement, the formulation and a program.

* **CPT** (continued pre-training) documents: the statement, a modelling walk-through, the LaTeX
  formulation, the program and the verified optimum with the decisions behind it, in three
  layouts.
* **SFT** examples in OpenAI messages form: the user turn is the statement (the DPS data file
  inlined when it fits a size budget); the assistant turn is one of four styles: ``code_only``,
  ``math_model`` (the walk-through and the formulation: it ends with the model, never with a
  number the prompt cannot produce), ``math_model_with_code`` (the model, the program, and
  what running it gives) or ``clean_cot`` (the program and what running it gives, with the
  modelling reasoning in the thinking channel: ``reasoning_content``).

Answers agree with their statements by construction: decisions are told with the statement's
own names and words (``Telling.report``), a list of decisions is complete or says it is not
("the 12 largest of 57"), and every constraint's quantifier is the same object in the bulleted
walk-through and in the aligned formulation.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ortrex.ir.semantic import SemanticModel
from ortrex.render.data import number, readable
from ortrex.render.language import plural, unit
from ortrex.render.reasoning import reasoning
from ortrex.render.statement import Statement
from ortrex.render.telling import Words, entity
from ortrex.render.tellings import TELLINGS

KINDS = ("cpt", "sft")
STYLES = ("code_only", "math_model", "math_model_with_code", "clean_cot")
CPT_LAYOUTS = ("textbook", "worked_example", "notes")
FILE_BUDGET = 6000  # characters of DPS files inlined into an SFT user turn


@dataclass(frozen=True)
class Solution:
    """The verified optimum and (up to a limit) the nonzero values behind it, by name."""

    objective: float
    values: dict[str, float] = field(default_factory=dict)
    total: int = 0  # nonzero values in the whole solution (``values`` may hold fewer)


@dataclass(frozen=True)
class Rendered:
    """A document ready to store: its text (CPT) or messages (SFT) and how it was made."""

    kind: str
    form: str
    template: str
    text: str
    messages: list[dict[str, str]] | None
    program: str
    solver: str
    style: str | None = None


def solution_from(var_names: list[str], x: np.ndarray | None, objective: float,
                  limit: int = 12) -> Solution:
    """The largest nonzero values of a solution (at most ``limit``), by name."""
    if x is None:
        return Solution(objective)
    nz = np.flatnonzero(np.abs(x) > 1e-9)
    order = nz[np.argsort(-np.abs(x[nz]), kind="stable")][:limit]
    return Solution(objective, {var_names[int(k)]: float(x[k]) for k in sorted(order)},
                    int(nz.size))


def own_names(sm: SemanticModel, instance: Any) -> list[str]:
    """The instance's variables named as this semantic model names them. A re-told child
    (other names, another domain) shares its parent's instance: its own grounding has the
    same variables in the same order, under its own names."""
    try:
        g = sm.ground()
    except Exception:  # a model that cannot be grounded keeps the instance's names
        return list(instance.var_names)
    same = g.num_vars == instance.num_vars and g.A.shape == instance.A.shape and \
        (g.A != instance.A).nnz == 0 and np.array_equal(g.obj, instance.obj) and \
        np.array_equal(g.lb, instance.lb) and np.array_equal(g.ub, instance.ub)
    return list(g.var_names) if same else list(instance.var_names)


_NAME = re.compile(r"^([A-Za-z_]\w*)(?:\[(.*)\])?$")
_VALUE_UNIT = re.compile(r"\{v\} \{(\w+)\}")


def decisions(sm: SemanticModel, sol: Solution) -> list[str]:
    """The solution's values as the statement would say them (its names, its words)."""
    telling = TELLINGS.get(sm.family)
    report = dict(telling.report) if telling is not None else {}
    words = Words(sm, "DP", {})
    out = []
    for name, v in sol.values.items():
        m = _NAME.match(name)
        fam = sm.var_map.get(m.group(1)) if m else None
        if fam is None or m is None:
            out.append(f"{name} = {_fmt(v)}")
            continue
        if report and fam.name not in report:
            continue  # an auxiliary the client never asked about (a tour position)
        labels = (m.group(2) or "").split(",") if fam.dims else []
        where = {i: lab for (i, _), lab in zip(fam.dims, labels, strict=False)}
        if fam.name in report:
            template = _agreeing(report[fam.name], words, v)
            out.append(template.format_map(words.with_(v=_fmt(v), **where)))
            continue
        text = fam.description
        for (i, s), lab in zip(fam.dims, labels, strict=False):
            text = re.sub(rf"\b{re.escape(entity(sm, s))} {re.escape(i)}\b",
                          f"{entity(sm, s)} {lab}", text)
        out.append(f"{text}: {_fmt(v)}")
    return out



def _agreeing(template: str, words: Words, v: float) -> str:
    """``template`` with the unit word right after ``{v}`` agreeing with the value (``1
    tonne``, ``3 tonnes``)."""
    def agree(m: re.Match[str]) -> str:
        try:
            word = str(words[m.group(1)])
        except KeyError:
            return m.group(0)  # a per-entry key, filled later
        return "{v} " + unit(word, v).replace("{", "{{").replace("}", "}}")

    return _VALUE_UNIT.sub(agree, template)


def _fmt(v: float) -> str:
    """A value as a reader wants it: solver noise gone (``45.999999`` is ``46``)."""
    return readable(v, 4, 1e-6)


def walkthrough(sm: SemanticModel) -> str:
    """How the model is built, family by family, in words and LaTeX."""
    lines = ["**Sets.** " + "; ".join(
        f"${s.name}$: the {plural(s.entity or s.name)} ({len(s)})" for s in sm.sets) + "."]
    if sm.params:
        lines.append("**Parameters.** " + "; ".join(
            f"${_sym(p.name)}$: {p.description}" + (f" ({unit(p.unit)})" if p.unit else "")
            for p in sm.params) + ".")
    dom = {"C": "continuous", "I": "integer", "B": "binary"}
    lines.append("**Decision variables.** " + "; ".join(
        f"${_sym(v.name)}" + (f"_{{{','.join(i for i, _ in v.dims)}}}" if v.dims else "")
        + f"$ ({dom[v.vtype]}): {v.description}" for v in sm.variables) + ".")
    o = sm.objective
    lines.append(f"**Objective.** {'Minimize' if o.sense == 'min' else 'Maximize'} the "
                 f"{o.description}: ${o.expr.latex()}$.")
    lines.append("**Constraints.**")
    for c in sm.constraints:
        quant = c.quantifier_latex()  # the same quantifier as the aligned formulation
        rel = {"<=": r"\le", ">=": r"\ge", "=": "="}[c.sense]
        rhs = c.rhs.latex() if hasattr(c.rhs, "latex") else number(float(c.rhs))
        lines.append(f"- {c.meaning} ${c.lhs.latex()} {rel} {rhs}$"
                     + (f" for all ${quant}$." if quant else "."))
    return "\n".join(lines)


def _sym(name: str) -> str:
    from ortrex.ir.expr import symbol

    return symbol(name)


def thinking(sm: SemanticModel, st: Statement) -> str:
    """Clean-CoT reasoning: derived from the model, the statement's account and the data
    (``ortrex.render.reasoning``), its wording drawn from the statement's identity."""
    seed = int(hashlib.sha256(f"{sm.content_id}:{st.form}:{st.layout}".encode()
                              ).hexdigest()[:8], 16)
    return reasoning(sm, st.account, seed=seed)


def _result(sm: SemanticModel, sol: Solution) -> str:
    o = sm.objective
    lines = [f"The optimal {o.description} is {_fmt(sol.objective)}."]
    told = decisions(sm, sol)
    if told:
        shown = len(sol.values)
        head = "An optimal plan: " if sol.total <= shown else \
            f"The {shown} largest of the {sol.total} nonzero decisions of an optimal plan: "
        lines.append(head + "; ".join(told) + ".")
    return " ".join(lines)


def _lower(text: str) -> str:
    return text[:1].lower() + text[1:]


def _code(program: str) -> str:
    return f"```python\n{program.rstrip()}\n```"


def user_turn(st: Statement) -> str:
    """The user turn of a statement: its text, and its data file inlined when small."""
    text = st.text.rstrip()
    if not st.files:
        return text
    total = sum(len(v) for v in st.files.values())
    if total > FILE_BUDGET:
        names = ", ".join(f"`{k}`" for k in st.files)
        return f"{text}\n\nAttached files (not inlined, {total} characters): {names}."
    blocks = [f"File `{name}`:\n```json\n{body.rstrip()}\n```" for name, body in st.files.items()]
    return text + "\n\n" + "\n\n".join(blocks)


def sft_example(sm: SemanticModel, st: Statement, program: str, solver: str, style: str,
                sol: Solution) -> Rendered:
    """An SFT example (user statement, assistant answer in ``style``)."""
    if style not in STYLES:
        raise ValueError(f"unknown style {style!r}; expected one of {', '.join(STYLES)}")
    formulation = f"$$\n{sm.latex()}\n$$"
    answer = {
        "code_only": _code(program),
        # The model only: no number the prompt alone cannot produce.
        "math_model": f"{walkthrough(sm)}\n\n{formulation}",
        "math_model_with_code": f"{walkthrough(sm)}\n\n{formulation}\n\n{_code(program)}"
                                f"\n\nRunning it gives: {_lower(_result(sm, sol))}",
        # Clean-CoT: the reasoning goes in the thinking channel (reasoning_content).
        "clean_cot": f"{_code(program)}\n\nRunning it gives: {_lower(_result(sm, sol))}",
    }[style]
    messages: list[dict[str, str]] = [{"role": "user", "content": user_turn(st)},
                                      {"role": "assistant", "content": answer}]
    if style == "clean_cot":
        messages[1]["reasoning_content"] = thinking(sm, st)
    text = "\n\n".join(m.get("reasoning_content", "") + ("\n\n" if m.get(
        "reasoning_content") else "") + m["content"] for m in messages)
    return Rendered("sft", st.form, st.layout, text, messages, program, solver, style)


def cpt_document(sm: SemanticModel, st: Statement, program: str, solver: str, layout: str,
                 sol: Solution) -> Rendered:
    """A CPT document in one of three layouts."""
    title = sm.descriptors.get("title", sm.name)
    statement = user_turn(st)
    formulation = f"$$\n{sm.latex()}\n$$"
    lib = "Gurobi (gurobipy)" if solver == "gurobipy" else "HiGHS (highspy)"
    if layout == "textbook":
        parts = [f"# {title}", "## Problem", statement, "## Modelling", walkthrough(sm),
                 "## Formulation", formulation, f"## Implementation with {lib}",
                 _code(program), "## Result", _result(sm, sol)]
    elif layout == "worked_example":
        parts = [f"Worked example: {title}.", statement,
                 "We write the model directly:", formulation,
                 f"In code, with {lib}:", _code(program),
                 "Running it gives the answer. " + _result(sm, sol)]
    elif layout == "notes":
        parts = [f"Modelling notes: {title}", statement,
                 thinking(sm, st), walkthrough(sm), _code(program), _result(sm, sol)]
    else:
        raise ValueError(f"unknown CPT layout {layout!r}; expected one of "
                         f"{', '.join(CPT_LAYOUTS)}")
    return Rendered("cpt", st.form, f"{st.layout}/{layout}", "\n\n".join(parts) + "\n", None,
                    program, solver)
