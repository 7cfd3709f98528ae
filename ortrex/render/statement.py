"""Problem statements in three forms, told as a situation (the default) or as a specification.

* **DP**: every number in the prose.
* **DT**: the prose refers to markdown tables that hold the data.
* **DPS**: the prose describes ``data.json`` key by key; the file is returned with the
  statement (one data format: what an SFT prompt inlines is the data once).

*Situation* layouts (``ortrex.render.situation``: narrative, letter, brief, question, ticket)
are how a client describes the problem; the modelling is left to the reader. *Specification*
layouts (narrative, sections, memo, checklist, question) state the sets, the data, each decision
with its domain and bounds, every constraint family's meaning and the objective: a minority
style (``SPECIFICATION_SHARE``), labelled ``specification:<layout>`` in the document metadata.
Numbers are written so that they read back exactly (``ortrex.render.data.number``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ortrex.ir.expr import Const, Expr, Param
from ortrex.ir.semantic import IndexSet, Parameter, SemanticModel, VariableFamily
from ortrex.render.data import csv_columns, link_params, number
from ortrex.render.language import plural
from ortrex.render.language import unit as unit_text
from ortrex.render.names import person_name
from ortrex.render.situation import SITUATION_LAYOUTS, situation_files, tell
from ortrex.render.tellings import telling_of

FORMS = ("DP", "DT", "DPS")
SPEC_LAYOUTS = ("narrative", "sections", "memo", "checklist", "question")
LAYOUTS = (*(f"situation:{x}" for x in SITUATION_LAYOUTS),
           *(f"specification:{x}" for x in SPEC_LAYOUTS))
# Specification sheets declare the variables, which no client does: a small minority (issue 30:
# at most 5% of statements).
SPECIFICATION_SHARE = 0.04


@dataclass(frozen=True)
class Statement:
    """A rendered problem statement and the data files it names (DPS)."""

    form: str
    layout: str
    text: str
    files: dict[str, str] = field(default_factory=dict)
    account: dict[str, str] = field(default_factory=dict, compare=False)  # situation
    # statements: the sentence telling each rule, the objective and each decision's wholeness


def _cap(text: str) -> str:
    return text[:1].upper() + text[1:] if text else text


def _lower_first(text: str) -> str:
    first = text.split(" ", 1)[0]
    return text[:1].lower() + text[1:] if text and not (len(first) > 1 and first.isupper()) \
        else text


class _Writer:
    """Pieces of a statement for one model, with a seeded choice of wording."""

    def __init__(self, sm: SemanticModel, rng: np.random.Generator) -> None:
        self.sm, self.rng = sm, rng
        self.sets = sm.set_map
        self.links = link_params(sm)
        self.d = sm.descriptors

    def pick(self, *options: str) -> str:
        return options[int(self.rng.integers(len(options)))]

    # ------------------------------------------------------------------ words
    def entity(self, s: str) -> str:
        return self.sets[s].entity or s

    def unit(self, p: Parameter) -> str:
        return f" ({unit_text(p.unit)})" if p.unit and p.name not in self.links else ""

    def describe(self, p: Parameter) -> str:
        """The parameter's description (position parameters are shown as element names)."""
        text = p.description
        if p.name in self.links:
            text = text.replace("position of the ", "the ").replace("position of ", "")
        return text

    def value(self, p: Parameter, v: float) -> str:
        if p.name in self.links:
            return self.sets[self.links[p.name]].elements[int(v)]
        return number(v, p.integer)

    def set_sentence(self, s: IndexSet) -> str:
        n = len(s)
        noun = self.entity(s.name) if n == 1 else plural(self.entity(s.name))
        return f"{n} {noun}: {', '.join(s.elements)}"

    def sets_paragraph(self) -> str:
        parts = [self.set_sentence(s) for s in self.sm.sets]
        lead = self.pick("There are", "The problem involves", "We have")
        return f"{lead} " + "; ".join(parts) + "."

    # ------------------------------------------------------------------ data
    def param_prose(self, p: Parameter) -> str:
        """One parameter with all its values, as a sentence (DP)."""
        head = _cap(self.describe(p)) + self.unit(p)
        arr = np.asarray(p.values, dtype=float)
        if not p.index:
            return f"{head}: {self.value(p, float(arr))}."
        if len(p.index) == 1:
            items = ", ".join(_entry(e, self.value(p, arr[k]))
                              for k, e in enumerate(self.sets[p.index[0]].elements))
            return f"{head}: {items}."
        groups = []
        outer = self.sets[p.index[0]]
        for k, e in enumerate(outer.elements):
            groups.append(f"for {e}: " + self._inner(p, arr[k], p.index[1:]))
        return f"{head}, " + "; ".join(groups) + "."

    def _inner(self, p: Parameter, arr: np.ndarray, index: tuple[str, ...]) -> str:
        s = self.sets[index[0]]
        if len(index) == 1:
            return ", ".join(_entry(e, self.value(p, arr[k])) for k, e in enumerate(s.elements))
        return " / ".join(f"{e} ({self._inner(p, arr[k], index[1:])})"
                          for k, e in enumerate(s.elements))

    def tables(self) -> list[str]:
        """Markdown tables holding every parameter (DT)."""
        out: list[str] = []
        scalars = [p for p in self.shown() if not p.index]
        by_set: dict[str, list[Parameter]] = {}
        for p in self.shown():
            if len(p.index) == 1:
                by_set.setdefault(p.index[0], []).append(p)
        k = 1
        for s, ps in by_set.items():
            header = [_cap(self.entity(s))] + [f"{p.name}{self.unit(p)}" for p in ps]
            rows = [[e] + [self.value(p, p.values[i]) for p in ps]
                    for i, e in enumerate(self.sets[s].elements)]
            caption = "; ".join(f"{p.name}: {self.describe(p)}" for p in ps)
            out.append(_table(f"Table {k}: {caption}", header, rows))
            k += 1
        for p in self.shown():
            if len(p.index) < 2:
                continue
            arr = np.asarray(p.values, dtype=float)
            if len(p.index) == 2:
                rs, cs = self.sets[p.index[0]], self.sets[p.index[1]]
                header = [f"{p.name}: {self.entity(rs.name)} \\ {self.entity(cs.name)}",
                          *cs.elements]
                rows = [[r] + [self.value(p, arr[i, j]) for j in range(len(cs))]
                        for i, r in enumerate(rs.elements)]
            else:
                header = [*csv_columns(p, self.sm)]
                rows = [[self.sets[s].elements[i] for s, i in zip(p.index, pos, strict=True)]
                        + [self.value(p, arr[pos])] for pos in np.ndindex(arr.shape)]
            out.append(_table(f"Table {k}: {p.name}: {self.describe(p)}{self.unit(p)}", header,
                              rows))
            k += 1
        if scalars:
            rows = [[p.name, self.value(p, float(p.values)), self.describe(p) + self.unit(p)]
                    for p in scalars]
            out.append(_table(f"Table {k}: single values", ["parameter", "value", "meaning"],
                              rows))
        return out

    def files_paragraph(self) -> str:
        """Where the data is and what the file looks like (DPS)."""
        sets = ", ".join(f'"{s.name}" ({plural(self.entity(s.name))})' for s in self.sm.sets)
        lines = [
            self.pick("The data is provided in a separate file.",
                      "All numbers are in the attached data file.",
                      "The instance data comes in a file next to this statement."),
            f'`data.json` has two keys: "sets" maps each set ({sets}) to its list of element '
            'names, and "parameters" maps each parameter name to its value: a number, or '
            "nested objects keyed by element names in the order of the parameter's indices.",
        ]
        for p in self.shown():
            cols = ", ".join(csv_columns(p, self.sm)[:-1])
            keyed = f" (keyed by {cols})" if p.index else ""
            lines.append(f'- "{p.name}"{keyed}: {self.describe(p)}{self.unit(p)}')
        linked = [p for p in self.shown() if p.name in self.links]
        if linked:
            lines.append("Entries of " + ", ".join(f'"{p.name}"' for p in linked)
                         + " are element names, not numbers.")
        return "\n".join(lines)

    def shown(self) -> list[Parameter]:
        """The parameters a statement gives (not those a modeller derives)."""
        derived = self.sm.derived_params
        return [p for p in self.sm.params if p.name not in derived]

    # ------------------------------------------------------------------ model parts
    def decision(self, v: VariableFamily) -> str:
        desc = v.description
        quant = ", ".join(f"{self.entity(s)} {i}" for i, s in v.dims)
        head = f"for each {quant}, " if quant else ""
        dom = {"C": "a continuous quantity", "I": "a whole number", "B": "a yes/no (0/1) choice"}
        if v.vtype != "B" and desc.startswith("1 if "):
            # "1 if the lane is on the route" reads as a yes/no choice: a relaxed one says
            # that values in between are allowed, or it contradicts its own domain.
            desc += ", 0 if not, values in between allowed" if v.vtype == "C" else \
                ", 0 if not"
        text = f"{_cap(head)}{desc if head else _cap(desc)}: {dom[v.vtype]}"
        if v.vtype != "B":
            lo, hi = self._bound_text(v.lb), self._bound_text(v.ub)
            if lo == "0" and hi is None:
                text += ", not negative"
            elif lo is not None and hi is not None:
                text += f", between {lo} and {hi}"
            elif lo is not None:
                text += f", at least {lo}"
            elif hi is not None:
                text += f", at most {hi}" + (", possibly negative" if lo is None else "")
            else:
                text += ", free in sign"
        if v.where:
            text += " (defined only where it makes sense: " + self._where_text(v) + ")"
        return text + "."

    def _bound_text(self, b: Expr | float) -> str | None:
        if isinstance(b, Const):
            b = b.value
        if isinstance(b, (int, float)):
            return None if math.isinf(b) else number(b)
        if isinstance(b, Param):
            p = self.sm.param_map[b.name]
            return f"the {self.describe(p)}"
        return "the given limit"

    def _where_text(self, v: VariableFamily) -> str:
        words = {"ne": "different", "first": "not the first", "not_first": "not the first"}
        parts = []
        for c in v.where:
            if c.op == "ne":
                parts.append(f"{c.a} and {c.b} differ")
            elif c.op == "not_first":
                parts.append(f"{c.a} is not the first {self.entity(dict(v.dims)[c.a])}")
            elif c.op == "not_last":
                parts.append(f"{c.a} is not the last {self.entity(dict(v.dims)[c.a])}")
            else:
                parts.append(words.get(c.op, c.op))
        return ", ".join(parts)

    def constraints(self) -> list[str]:
        """Every rule's meaning in a seeded order; an "Otherwise ..." stays right after the
        rule it continues."""
        groups: list[list[str]] = []
        for c in self.sm.constraints:
            if c.meaning.startswith("Otherwise") and groups:
                groups[-1].append(c.meaning)
            else:
                groups.append([c.meaning])
        order = self.rng.permutation(len(groups))
        lead = self.pick("", "", "Make sure that ", "The plan must ensure that ")
        out = []
        for k in order:
            first, *rest = groups[int(k)]
            out.append(" ".join([lead + _lower_first(first) if lead else first, *rest]))
        return out

    def objective(self) -> str:
        o = self.sm.objective
        if self.rng.random() < 0.3:
            tail = "as low as possible" if o.sense == "min" else "as high as possible"
            return f"The {o.description} should be {tail}."
        verb = {"min": self.pick("minimize", "minimise"),
                "max": self.pick("maximize", "maximise")}[o.sense]
        return self.pick(f"The goal is to {verb} the {o.description}.",
                         f"Objective: {verb} the {o.description}.",
                         f"We {verb} the {o.description}.",
                         f"{_cap(verb)} the {o.description}.")

    def ask(self) -> str:
        o = self.sm.objective
        return self.pick(
            "Formulate this as an optimization model, solve it, and report the optimal "
            f"{o.description}.",
            f"Build a mathematical model, solve it, and give the best achievable {o.description}.",
            f"What is the optimal {o.description}? Formulate and solve the model.",
        )

    def story(self) -> str:
        d = self.d
        return f"{d.get('story', '')} {d.get('summary', '')}".strip()


def _entry(element: str, value: str) -> str:
    """An element and its value; in brackets after a name ending in digits, where the two
    would read as one number ("FY2027 3.7", "Q1 187")."""
    return f"{element} ({value})" if element[-1:].isdigit() else f"{element} {value}"


def _table(caption: str, header: list[str], rows: list[list[str]]) -> str:
    lines = [caption, "", "| " + " | ".join(header) + " |",
             "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def _data(w: _Writer, form: str) -> str:
    if form == "DP":
        return "\n".join(w.param_prose(p) for p in w.shown())
    if form == "DT":
        lead = w.pick("The data is given in the tables below.",
                      "The tables below hold all the data.", "Data:")
        return lead + "\n\n" + "\n\n".join(w.tables())
    return w.files_paragraph()


def _sets(w: _Writer, form: str) -> str:
    if form == "DPS":
        return w.pick("The sets and their elements are listed in `data.json`.",
                      "`data.json` lists every set with its elements.",
                      f"Sets: {', '.join(s.name for s in w.sm.sets)} (elements in `data.json`).",
                      "See `data.json` for the sets and their members.")
    return w.sets_paragraph()


# ---------------------------------------------------------------- layouts
def _narrative(w: _Writer, form: str) -> str:
    parts = [_sets(w, form), w.story(), _data(w, form),
             "Decisions: " + " ".join(w.decision(v) for v in w.sm.variables),
             " ".join(w.constraints()), w.objective(), w.ask()]
    return "\n\n".join(parts)


def _sections(w: _Writer, form: str) -> str:
    title = w.d.get("title", w.sm.name)
    parts = [f"## {title}", "### Background", w.story(), "### Sets", _sets(w, form),
             "### Data", _data(w, form), "### Decisions",
             "\n".join(f"- {w.decision(v)}" for v in w.sm.variables),
             "### Constraints", "\n".join(f"- {c}" for c in w.constraints()),
             "### Objective", w.objective(), "### Task", w.ask()]
    return "\n\n".join(parts)


def _memo(w: _Writer, form: str) -> str:
    title = w.d.get("title", w.sm.name)
    head = (f"**To:** {person_name(w.rng)}, "
            f"{w.pick('operations research team', 'planning analyst', 'decision support')}"
            f"\n**From:** {person_name(w.rng)}, "
            f"{w.pick('head of operations', 'planning manager', 'chief engineer')}"
            f"\n**Subject:** {title}")
    parts = [head, w.story(), _sets(w, form), _data(w, form),
             w.pick("We need to decide the following.", "Please determine:") + "\n" +
             "\n".join(f"- {w.decision(v)}" for v in w.sm.variables),
             w.pick("Please respect these rules:", "The plan must satisfy the following:") +
             "\n" + "\n".join(f"- {c}" for c in w.constraints()),
             w.objective(), w.ask()]
    return "\n\n".join(parts)


def _checklist(w: _Writer, form: str) -> str:
    cons = w.constraints()
    parts = [_sets(w, form), w.story(), _data(w, form),
             "Decision variables:\n" + "\n".join(f"- {w.decision(v)}" for v in w.sm.variables),
             "Requirements:\n" + "\n".join(f"- {c}" for c in cons),
             w.objective(), w.ask()]
    return "\n\n".join(parts)


def _question(w: _Writer, form: str) -> str:
    o = w.sm.objective
    verb = "lowest" if o.sense == "min" else "highest"
    parts = [_sets(w, form), w.story(), _data(w, form),
             " ".join(w.decision(v) for v in w.sm.variables),
             "Note: " + " ".join(w.constraints()),
             f"Question: what is the {verb} possible {o.description}, and which decisions "
             "achieve it? Formulate the optimization model and solve it."]
    return "\n\n".join(parts)


_SPEC: dict[str, Callable[[_Writer, str], str]] = {
    "narrative": _narrative, "sections": _sections, "memo": _memo, "checklist": _checklist,
    "question": _question,
}


def render_statement(sm: SemanticModel, form: str, layout: str | None = None,
                     seed: int = 0) -> Statement:
    """The problem statement of ``sm`` in ``form`` (DP / DT / DPS). ``layout`` is
    ``situation:<name>`` or ``specification:<name>`` (a bare name: a specification layout);
    drawn from the seed when not given, a situation most of the time."""
    if form not in FORMS:
        raise ValueError(f"unknown form {form!r}; expected one of {', '.join(FORMS)}")
    # A family without a telling is an error, in either kind of layout: a statement recited
    # from the meanings instead would pass every check and read like no client.
    telling_of(sm.family)
    rng = np.random.default_rng([seed, sum(map(ord, form))])
    if layout is None:
        kind = "specification" if rng.random() < SPECIFICATION_SHARE else "situation"
        names = SPEC_LAYOUTS if kind == "specification" else SITUATION_LAYOUTS
        layout = f"{kind}:{names[int(rng.integers(len(names)))]}"
    elif ":" not in layout:
        layout = f"specification:{layout}"
    if layout not in LAYOUTS:
        raise ValueError(f"unknown layout {layout!r}; expected one of {', '.join(LAYOUTS)}")
    kind, name = layout.split(":")
    account: dict[str, str] = {}
    if kind == "situation":
        text, account = tell(sm, form, name, rng)
    else:
        text = _SPEC[name](_Writer(sm, rng), form).strip() + "\n"
    files = situation_files(sm) if form == "DPS" else {}
    return Statement(form, layout, text, files, account)
