"""Situation statements: the problem as a client tells it, in one of several layouts.

The client describes the operation, its data, its rules and its goal in their own terms
(``ortrex.render.tellings``); how to model it is left to the reader. Data follows the form:
DP in the prose (every entry names its element before its value), DT in markdown tables with
business column labels, DPS in ``data.json`` described key by key. Rules are told in a seeded
order; rules that only make sense together are one telling. A family without a telling, or a
rule or objective a mutation rewrote, is told from the model's own one-sentence meanings.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import numpy as np

from ortrex.ir.semantic import Parameter, SemanticModel, VariableFamily
from ortrex.render.account import devices, settled
from ortrex.render.data import data_json, dumps_json, number
from ortrex.render.framing import (
    BACKGROUND,
    CLOSINGS,
    GOAL_WRAPS,
    GREETINGS,
    HEADING_STYLES,
    INTRODUCTIONS,
    LETTER_RULE_LEADS,
    ROLES,
    RULE_PREFIXES,
    RULE_WRAPS,
    SIGN_OFFS,
    SIGNATURES,
    TITLE_PREFIXES,
    dps_note,
    dt_note,
    field,
    heading,
)
from ortrex.render.language import (
    article,
    capital,
    fill_words,
    is_plural,
    join,
    plural,
    singular,
    unit,
)
from ortrex.render.names import element_names, person_name
from ortrex.render.telling import (
    GENERIC_ASKS,
    GENERIC_GOALS,
    Fact,
    Rule,
    Telling,
    Words,
    entity,
    fill,
    plain,
    with_unit,
)
from ortrex.render.tellings import TELLINGS

SITUATION_LAYOUTS = ("narrative", "letter", "brief", "question", "ticket")
_VERBAL = re.compile(r"\b(?:would|costs?|needs?|is|are|has|have|can|could|covers?|means|"
                     r"gives|takes|charges?|brings?|runs|holds?|uses?)\b")
_PERMISSIVE = re.compile(r"\b(?:need not|needn't|do(?:es)? not have to|don't have to|"
                         r"fractions?\b.{0,20}\b(?:fine|allowed|acceptable)|may be|can be|"
                         r"is allowed|are allowed|no need)\b", re.IGNORECASE)
_LISTED = re.compile(r"[:;] \{items\}|^\{items\}")  # a lead that lists its entries
_YES_NO = "0/1"  # the unit of a yes/no table (coverage, membership)
_LIST_LIMIT = 8  # sets up to this size are named in the opening
# A matrix of more cells than this is pasted into a DP text as a table: told in sentences,
# it reads as a data dump in one mould ("A needs Q1 (5), Q2 (7), ...; B needs Q1 (2), ...").
_PROSE_CELLS = 24


class Teller:
    """Seeded choices of wording for one statement."""

    def __init__(self, sm: SemanticModel, form: str, rng: np.random.Generator) -> None:
        self.sm, self.form, self.rng = sm, form, rng
        self.telling: Telling | None = TELLINGS.get(sm.family)
        self.labels = column_labels(sm)
        self.words = Words(sm, form, self.labels)
        for s in sm.sets:
            small = len(s) <= _LIST_LIMIT
            self.words[f"names_{s.name}"] = f" ({join(list(s.elements))})" if small else ""
        self.words["goal_noun"] = goal_noun(sm)
        self.words["a_goal_noun"] = article(goal_noun(sm))
        self.derived = sm.derived_params
        self.links = sm.position_params()
        self.proper = {e for st in sm.sets for e in st.elements}
        self.told: dict[str, str] = {}  # what was said about each rule and the objective
        self.whole: dict[str, str] = {}  # what was said about how whole each decision is

    def pick(self, options: tuple[str, ...] | list[str]) -> str:
        return options[int(self.rng.integers(len(options)))]

    def say(self, options: tuple[str, ...] | list[str]) -> str:
        """One of ``options`` filled in; options naming what this model no longer has (a
        set a mutation removed) are passed over."""
        first = int(self.rng.integers(len(options)))
        for k in range(len(options)):
            try:
                return fill(options[(first + k) % len(options)], self.words)
            except KeyError:
                continue
        raise KeyError(f"no wording fits {self.sm.family}: {options[first]!r}")

    def try_say(self, options: tuple[str, ...] | list[str]) -> str:
        """``say``, or nothing when no option fits this model."""
        try:
            return self.say(options)
        except KeyError:
            return ""

    # ------------------------------------------------------------------ parts
    def opening(self) -> str:
        t = self.telling
        if t is None:
            story = str(self.sm.descriptors.get("story", "")).strip()
            return story or f"We have a {self.sm.family.replace('_', ' ')} problem."
        # A mutation that changed the goal leaves the family's goal words behind ("covered at
        # the lowest cost" on a profit): only the openings and context that name no goal.
        own = self.own_goal
        openings = t.openings if own else tuple(o for o in t.openings if not GOAL_WORDS.search(o))
        context = t.context if own else tuple(c for c in t.context if not GOAL_WORDS.search(c))
        # A sentence that takes a rule for granted goes with the rule (a child without it).
        openings = tuple(o for o in openings if self.keeps(t.presumes.get(o, ())))
        context = tuple(c for c in context if self.keeps(t.presumes.get(c, ())))
        try:
            if not openings:
                raise KeyError("every opening names the family's goal")
            text = self.say(openings)
        except KeyError:  # the model lost what every opening names
            story = str(self.sm.descriptors.get("story", "")).strip()
            text = story or f"We have a {self.sm.family.replace('_', ' ')} problem."
        if self.rng.random() < 0.45:  # who writes, and from where
            place = element_names("town", 1, self.rng, set(self.proper))[0]
            first = person_name(self.rng).split()[0]
            frame = self.pick(INTRODUCTIONS).format(place=place, name=first)
            text = f"{frame} {text}" if frame.endswith((".", "!", ":")) else \
                frame + lower_first(text, self.proper)
        if context and self.rng.random() < 0.6:
            text = f"{text} {self.try_say(context)}".rstrip()
        if self.rng.random() < 0.35:
            text += " " + self.pick(BACKGROUND)
        return text

    def closing(self) -> str:
        """An optional last line."""
        return (" " + self.pick(CLOSINGS)) if self.rng.random() < 0.3 else ""

    def visible(self) -> list[Parameter]:
        return [p for p in self.sm.params if p.name not in self.derived]

    def keeps(self, rules: tuple[str, ...]) -> bool:
        """Whether the model still has every constraint family of ``rules`` in the
        family's own wording (a mutation neither removed nor rewrote it)."""
        t = self.telling
        present = {c.name: c for c in self.sm.constraints}
        if not all(name in present for name in rules):
            return False
        return t is None or all(self._unchanged(r, present) for r in t.rules
                                if set(r.covers) & set(rules))

    def fact(self, p: Parameter) -> Fact:
        t = self.telling
        if t is not None and p.name in t.facts:
            f = t.facts[p.name]
            kept = tuple(lead for lead in f.lead if self.keeps(t.presumes.get(lead, ())))
            if kept == f.lead:
                return f
            # Every lead states a rule the model lost ("We must supply ..." on a market):
            # the fact is told by its label alone.
            return replace(f, lead=kept or (f"{capital(f.label or p.description)}: {{items}}.",))
        noun = p.description
        return Fact((f"The {noun}: {{items}}.", f"{capital(noun)}: {{items}}."),
                    label=noun)

    def unit_note(self, p: Parameter) -> str:
        """How a parameter's unit is noted beside its name (a yes/no table says what 1
        means); empty for names and unitless figures."""
        if p.name in self.links or not p.unit:
            return ""
        return "1 means yes, 0 means no" if p.unit == _YES_NO else unit(p.unit)

    def value(self, p: Parameter, v: float) -> str:
        if p.name in self.links:
            return self.sm.set_map[self.links[p.name]].elements[int(v)]
        return number(v, p.integer)

    def entries(self, p: Parameter, f: Fact, elements: tuple[str, ...] | list[str],
                values: np.ndarray, item: str) -> list[str]:
        """One entry per element, all in one wording; after the first, the verb may be left
        out ("A has 5 tonnes, B 7 tonnes")."""
        # After the first entry the verb may go ("A has 5 tonnes, B 7 tonnes"), unless an
        # entry says more than one thing (an arc's two ends).
        bare = ("{e} {V}" if "{V}" in item else "{e} {v}") if self.rng.random() < 0.5 \
            and "{at_" not in item else item
        if any(str(e)[-1:].isdigit() for e in elements):
            # "WO1 1 priority point", "Q1 187 hours" read as one number: the value goes in
            # brackets after a name ending in digits (or after a colon, mid-entry).
            item, bare = _apart(item), _apart(bare)
        siblings = [q for q in self.sm.params if len(p.index) == 1 and q.index == p.index]
        out = []
        for k, (e, v) in enumerate(zip(elements, values, strict=True)):
            val = self.value(p, float(v))
            u = "" if p.name in self.links or p.unit == _YES_NO else unit(p.unit, float(v))
            # ``{at_q}``: another parameter of the same element (an arc's two ends).
            at = {f"at_{q.name}": self.value(q, float(q.values[k])) for q in siblings}
            out.append((item if k == 0 else bare).format_map(self.words.with_(
                e=e, v=val, u=u, V=f"{val} {u}".rstrip() if u else val, **at)))
        return out

    def fact_prose(self, p: Parameter) -> str:
        """One parameter told in sentences (DP); a fact without a lead is told by another's
        entries (an arc's head, with its tail)."""
        f = self.fact(p)
        if not f.lead:
            return ""
        arr = np.asarray(p.values, dtype=float)
        if len(p.index) >= 2 and arr.size > _PROSE_CELLS and not p.is_membership:
            return self.pasted_table(p)
        if not p.index:
            value = self.value(p, float(arr))
            items = value if p.name in self.links else with_unit(float(arr), p.unit, p.integer)
            return fill(self.pick(f.lead), self.words.with_(items=items, v=value, V=items))
        sets = self.sm.set_map
        item = self.pick(f.item)
        leads = f.lead
        composite = any("{at_" in x for x in f.item)  # an arc: its tail with its head
        if p.index and f.members < 0 and p.name in self.labels and not composite and \
                self.rng.random() < 0.4:
            leads = self._generic_leads(p)
        lead = self.pick(leads)
        group = self.pick(f.group)
        item, group = after_lead(lead, item), after_lead(lead, group)
        if self._unit_in_lead(p, lead):
            # "Prices (EUR per portion): Couscous 2.57, Noodles 2.76": the unit is said once.
            item = item.replace("{V}", "{v}")
        if not _LISTED.search(lead):
            # Entries inside a sentence ("we would pay {items}") carry no verb of their own.
            if _VERBAL.search(item):
                item = "{e} {V}" if any("{V}" in x for x in f.item) else "{e} {v}"
            if _VERBAL.search(group):
                group = "for {e}, {items}"
        leads = (lead,)
        if f.members in (0, 1) and len(p.index) == 2:
            outer, inner = (sets[p.index[f.members]], sets[p.index[1 - f.members]])
            rel = arr if f.members == 0 else arr.T
            lead = self.pick(f.lead)
            group = after_lead(lead, self.pick(f.group))
            lists = [group.format_map(self.words.with_(e=e, items=join(
                [inner.elements[j] for j in np.flatnonzero(rel[i] > 0.5)]) or f.empty))
                for i, e in enumerate(outer.elements)]
            return fill(lead, self.words.with_(items="; ".join(lists)))
        if len(p.index) == 1:
            entries = self.entries(p, f, sets[p.index[0]].elements, arr, item)
            return fill(self.pick(leads), self.words.with_(items=join(entries)))
        groups = [group.format_map(self.words.with_(e=e, items=self._inner(
            p, f, arr[i], p.index[1:], item))) for i, e in enumerate(sets[p.index[0]].elements)]
        return fill(self.pick(leads), self.words.with_(items="; ".join(groups)))

    def _unit_in_lead(self, p: Parameter, lead: str) -> bool:
        """Whether a lead already names the parameter's unit in brackets."""
        note = self.unit_note(p)
        if not note or note == "1 means yes, 0 means no":
            return False
        try:
            head = lead.format_map(self.words.with_(items="", v="", V="", e="", u=""))
        except (KeyError, IndexError, ValueError):
            return False
        return f"({note})" in head

    def _generic_leads(self, p: Parameter) -> tuple[str, ...]:
        """Lead sentences any fact can take, built from its label (business words)."""
        label = self.labels[p.name].replace("{", "{{").replace("}", "}}")
        per = _per(self.sm, p.index)
        u = f" ({self.unit_note(p)})" if self.unit_note(p) else ""
        return (f"{capital(label)}{u}: {{items}}.", f"As for the {label}{u}: {{items}}.",
                f"Here is the {label} per {per}{u}: {{items}}.",
                f"The {label}{u} is as follows: {{items}}.",
                f"By {per}, the {label}{u}: {{items}}.",
                f"We have the {label} for every {per}{u}: {{items}}.",
                f"For the record, the {label}{u}: {{items}}.")

    def _inner(self, p: Parameter, f: Fact, arr: np.ndarray, index: tuple[str, ...],
               item: str) -> str:
        s = self.sm.set_map[index[0]]
        if len(index) == 1:
            return join(self.entries(p, f, s.elements, arr, item))
        return "; ".join(f"{e}: ({self._inner(p, f, arr[k], index[1:], item)})"
                         for k, e in enumerate(s.elements))

    def data(self) -> str:
        if self.form == "DP":
            parts = [t for p in self._fact_order() if (t := self.fact_prose(p))]
            # A pasted grid stands in its own paragraph; sentences follow line by line.
            out = ""
            for k, t in enumerate(parts):
                grid = "\n|" in t
                out += ("" if not k else "\n\n" if grid or "\n|" in parts[k - 1] else "\n") + t
            return out
        if self.form == "DT":
            return self.note(dt_note(self.rng), "The figures are in the tables below.") + \
                "\n\n" + "\n\n".join(self.tables())
        return self.files()

    def note(self, frame: str, fallback: str) -> str:
        """A data note (``framing``) with the statement's largest set filled in ({big},
        {bigs}, {n_big}); ``fallback`` where the model cannot fill it."""
        big = max(self.sm.sets, key=len).name
        template = frame.replace("{big}", "{" + big + "}").replace(
            "{bigs}", "{" + big + "s}").replace("{n_big}", "{n_" + big + "}")
        return self.try_say((template,)) or fallback

    def _fact_order(self) -> list[Parameter]:
        ps = self.visible()
        if self.rng.random() < 0.5:  # data as it comes to hand, or in model order
            ps = [ps[int(k)] for k in self.rng.permutation(len(ps))]
        return ps

    def tables(self) -> list[str]:
        """Every visible parameter in markdown tables with business labels (DT)."""
        out: list[str] = []
        sets = self.sm.set_map
        by_set: dict[str, list[Parameter]] = {}
        scalars = []
        for p in self.visible():
            if not p.index:
                scalars.append(p)
            elif len(p.index) == 1:
                by_set.setdefault(p.index[0], []).append(p)
        for s, ps in by_set.items():
            header = [capital(entity(self.sm, s))] + [self._column(p) for p in ps]
            rows = [[e] + [self.value(p, p.values[i]) for p in ps]
                    for i, e in enumerate(sets[s].elements)]
            out.append(_table(header, rows))
        out += [self.matrix_table(p) for p in self.visible() if len(p.index) >= 2]
        if scalars:
            rows = [[self._column(p), self.value(p, float(p.values))] for p in scalars]
            out.append(_table(["figure", "value"], rows))
        return out

    def matrix_table(self, p: Parameter) -> str:
        """A parameter of two or more indices as one markdown table: rows by its first set
        and a column per element of its second, or one row per entry for more indices."""
        sets = self.sm.set_map
        arr = np.asarray(p.values, dtype=float)
        if len(p.index) == 2:
            rs, cs = sets[p.index[0]], sets[p.index[1]]
            header = [f"{self._column(p)}: {entity(self.sm, rs.name)} \\ "
                      f"{entity(self.sm, cs.name)}", *cs.elements]
            rows = [[r] + [self.value(p, arr[i, j]) for j in range(len(cs))]
                    for i, r in enumerate(rs.elements)]
        else:
            header = [*(capital(entity(self.sm, s)) for s in p.index), self._column(p)]
            rows = [[sets[s].elements[i] for s, i in zip(p.index, pos, strict=True)]
                    + [self.value(p, arr[pos])] for pos in np.ndindex(arr.shape)]
        return _table(header, rows)

    def pasted_table(self, p: Parameter) -> str:
        """DP: a matrix too large for a sentence, pasted into the text as a client pastes it
        from a spreadsheet, after a sentence that says what it holds."""
        label = self.labels[p.name].replace("{", "{{").replace("}", "}}")
        per = " and ".join(plural(entity(self.sm, s)) for s in p.index[:2])
        u = f" ({self.unit_note(p)})" if self.unit_note(p) else ""
        lead = self.pick((f"The {label}{u}, by {per}:", f"Here is the {label}{u}:",
                          f"I have pasted the {label}{u} from our sheet:",
                          f"{capital(label)}{u}, one row per {entity(self.sm, p.index[0])}:",
                          f"Our figures for the {label}{u}:",
                          f"The {label} is easier to read as a grid{u}:",
                          f"This grid gives the {label}{u}:",
                          f"For the {label}{u}, see the grid below."))
        return f"{lead}\n\n{self.matrix_table(p)}"

    def _column(self, p: Parameter) -> str:
        u = f" ({self.unit_note(p)})" if self.unit_note(p) else ""
        return capital(self.labels[p.name]) + u

    def files(self) -> str:
        """Where the data is and what each key means (DPS)."""
        lines = [self.note(dps_note(self.rng), "All the figures are in `data.json`.")]
        sets = join([f'"{s.name}" the {plural(entity(self.sm, s.name))}'
                     for s in self.sm.sets])
        lines.append(self.pick((f'Its "sets" part lists {sets}.',
                                f'The names are under "sets": {sets}.',
                                f'"sets" holds the names ({sets}).',
                                f'In "sets" you get the names: {sets}.',
                                f'Names come first, under "sets" ({sets}).',
                                f'The file names {sets} under "sets".')))
        lines.append(self.pick(('Under "parameters" you will find:', "The figures:",
                                'The "parameters" part has these entries:', "Key by key:",
                                'Then "parameters", with one entry per kind of figure:',
                                "What each entry means:", "The entries are these:",
                                'Under "parameters":', "In short, the file contains:")))
        if self.rng.random() < 0.5:
            lines[-1] = self._files_sentence(lines[-1])
            return "\n".join(lines)
        shapes = ('- "{k}": the {what}{keyed}{u}.', '- "{k}" gives the {what}{keyed}{u}.',
                  '- "{k}" holds the {what}{keyed}{u}.', '- {What}{keyed}{u}: "{k}".')
        shape = self.pick(shapes)
        for p in self.visible():
            keyed = ", per " + _per(self.sm, p.index) if p.index \
                else ""
            note = self.unit_note(p)
            # "in kg"; a unit that is no measure ("to 1", "per cent") goes in brackets.
            u = "" if not note else f", {note}" if p.unit == _YES_NO else \
                f" ({note})" if note.split(" ", 1)[0] in ("to", "per") else f", in {note}"
            what = self.labels[p.name] + (" (names, not numbers)" if p.name in self.links
                                          else "")
            phrase = self._lead_phrase(p)
            if phrase and self.rng.random() < 0.8:  # the client's own words for it
                lines.append(self.pick((f'- "{p.name}": {phrase}{u}.',
                                        f'- {capital(phrase)}{u}: "{p.name}".',
                                        f'- "{p.name}" tells {phrase}{u}.'
                                        if phrase.startswith(("what", "how", "which", "where"))
                                        else f'- "{p.name}" holds {phrase}{u}.')))
                continue
            lines.append(shape.format(k=p.name, what=what, What=capital(what), keyed=keyed,
                                      u=u))
        return "\n".join(lines)

    def _files_sentence(self, lead: str) -> str:
        """The parameters of ``data.json`` described in one running sentence."""
        verbs = ("is", "gives", "holds", "has", "lists")
        parts = []
        for p in self.visible():
            phrase = self._lead_phrase(p) or "the " + self.labels[p.name] + (
                ", per " + _per(self.sm, p.index) if p.index else "")
            u = f" ({self.unit_note(p)})" if self.unit_note(p) else ""
            names = " (names, not numbers)" if p.name in self.links else ""
            parts.append(f'"{p.name}" {self.pick(verbs)} {phrase}{u}{names}')
        if not parts:
            return "There are no figures besides the names."
        head = self.pick(("In the parameters, ", "As for the figures, ", "Among the entries, ",
                          "Under \"parameters\", ", "The file's entries: ", ""))
        body = "; ".join(parts[:-1]) + ("; and " if len(parts) > 2 else " and ") + parts[-1] \
            if len(parts) > 1 else parts[0]
        return capital(head + body) + "."

    def _lead_phrase(self, p: Parameter) -> str:
        """A noun phrase from the fact's own lead sentences (``What each mine can ship``
        from ``What each {S} can ship: {items}.``), lower-cased; empty when none fits."""
        f = self.fact(p)
        phrases = [ld[:-len(": {items}.")] for ld in f.lead if ld.endswith(": {items}.")
                   and "{items}" not in ld[:-len(": {items}.")] and "(" not in ld
                   and _noun_phrase(ld[:-len(": {items}.")])]
        if not phrases:
            return ""
        try:
            text = self.pick(phrases).format_map(self.words)
        except (KeyError, ValueError, IndexError):
            return ""
        return text[:1].lower() + text[1:] if not text[:2].isupper() else text

    def rules(self) -> list[str]:
        """Every rule the client states, in a seeded order: the telling's rules (a rule a
        mutation rewrote, or one whose variable types no longer hold, from the model's own
        meaning), then how whole the decisions are where the telling leaves it open. The
        account (``self.told``: constraint family -> sentence, ``self.whole``: variable ->
        sentence) is what the tests read."""
        t = self.telling
        present = {c.name: c for c in self.sm.constraints}
        vtypes = {v.name: v.vtype for v in self.sm.variables}
        out: list[str] = []
        if t is not None:
            for r in t.rules:
                if r.covers and not all(c in present for c in r.covers):
                    continue
                if r.covers and not self._unchanged(r, present):
                    continue
                if any(vtypes.get(v) != ty for v, ty in r.types.items()):
                    continue  # "fractions are fine" no longer holds
                said = self.vary(self.try_say(r.tellings))
                if not said:
                    continue  # a rule about what the model no longer has (told by meaning)
                out.append(said)
                self.told.update(dict.fromkeys(r.covers, said))
        hidden = devices(self.sm)
        for c in self.sm.constraints:
            if c.name not in self.told and c.name not in hidden:
                out.append(self.vary(capital(c.meaning)))
                self.told[c.name] = out[-1]
        whole = settled(self.sm)
        for v in self.sm.variables:
            if v.vtype in ("I", "B") and v.name not in whole:
                out.append(self.integrality(v))
                self.whole[v.name] = out[-1]
        paired: list[str] = []
        for r in out:  # an "Otherwise ..." stays with the rule it continues, in any order
            if r.startswith("Otherwise") and paired:
                paired[-1] += " " + r
            else:
                paired.append(r)
        order = self.rng.permutation(len(paired))
        rules = [paired[int(k)] for k in order]
        used: set[str] = set()  # a frame said twice repeats its sentence ("No exceptions.")
        for k in range(len(rules)):  # a connective or a frame now and then
            r = self.rng.random()
            if k and r < 0.25:
                rules[k] = self.fresh(RULE_PREFIXES, used) + lower_first(rules[k], self.proper)
            elif r > 0.87 and not _PERMISSIVE.search(rules[k]):
                # "The regulator insists on it." never follows what a rule allows.
                rules[k] = wrap(self.fresh(RULE_WRAPS, used), rules[k], self.proper)
        return rules

    def fresh(self, options: tuple[str, ...], used: set[str]) -> str:
        """One of ``options`` not yet in ``used`` (then in it); any once all are used."""
        left = [o for o in options if o not in used] or list(options)
        choice = self.pick(left)
        used.add(choice)
        return choice

    def vary(self, sentence: str) -> str:
        """Equivalent wordings swapped in ("must" / "will have to", "at most" / "no more
        than"): only phrases that agree with any subject, so grammar holds."""
        for rx, options in _VARIANTS:
            if self.rng.random() < 0.5:
                sentence = rx.sub(lambda m, o=options: _case_like(
                    m.group(0), o[int(self.rng.integers(len(o)))]), sentence)
        return sentence

    def integrality(self, v: VariableFamily) -> str:
        """That a decision comes in whole units, or is yes or no, in a client's words."""
        what = re.sub(r"^the ", "", plain(self.sm, v.description, v.dims))
        if v.vtype == "B":
            return self.pick((f"Whether {what} is a yes-or-no decision; there is no halfway.",
                              f"It is all or nothing whether {what}.",
                              f"There is no halfway on whether {what}."))
        u = v.unit if v.unit and v.unit.isascii() and " " not in v.unit.strip() \
            and v.unit[:1].isalpha() and v.unit.lower() == v.unit else ""
        if u:
            return self.pick((f"Only whole {plural(singular(u))} count: no fractions.",
                              f"We deal in whole {plural(singular(u))} only.",
                              f"A fraction of {article(singular(u))} is of no use to us."))
        return self.pick((f"The {what} must be a whole number.",
                          f"Only whole numbers make sense for the {what}."))

    def _unchanged(self, r: Rule, present: dict[str, object]) -> bool:
        if not r.meanings:
            return True
        want = {_filled(m, self.sm) for m in r.meanings}
        return all(getattr(present[c], "meaning", "") in want for c in r.covers)

    def goal(self) -> str:
        text = self._goal()
        self.told["objective"] = text
        return wrap(self.pick(GOAL_WRAPS), text, self.proper) if self.rng.random() < 0.3 \
            else text

    @property
    def own_goal(self) -> bool:
        """Whether the objective is still the family's own (no mutation changed it)."""
        t = self.telling
        return t is not None and _filled(t.objective, self.sm) == self.sm.objective.description

    def _goal(self) -> str:
        t, o = self.telling, self.sm.objective
        if t is not None and self.own_goal and self.rng.random() < 0.4:
            return self.try_say(t.goals) or self.say(GENERIC_GOALS[o.sense])
        # The generic wording follows the sense (a mutation may have turned it around).
        return self.say(GENERIC_GOALS[o.sense])

    def ask(self) -> str:
        t = self.telling
        own = t.asks if t is not None and self.own_goal else ()
        # The family's own requests name its decisions and what they achieve (only while the
        # objective is the family's); the generic ones keep variety.
        return (self.try_say(own) if own and self.rng.random() < 0.6 else "") or \
            self.say(GENERIC_ASKS)


# Words that state a goal (what is kept low or high), which only the family's own goal may use.
GOAL_WORDS = re.compile(r"cheap|lowest|\bleast\b|fewest|minimi[sz]|maximi[sz]|greatest|"
                        r"shortest|as few|as little|as much|\bmost\b|at minimum", re.I)

_CLAUSE_START = re.compile(r"^(?:here|our|we|i|some|each|every|no|at|on|available|this|these)\b",
                           re.I)
_FINITE = re.compile(r" (?:is|are|has|have|was|were)\b")


def _noun_phrase(lead: str) -> bool:
    """Whether a fact's lead (before its items) reads as a noun phrase ("What each mine can
    ship", "Unit service costs"), not a clause ("Our network has these pipelines")."""
    if re.match(r"^(?:what|which|how|where|who)\b", lead, re.I):
        return True
    return not _CLAUSE_START.match(lead) and not _FINITE.search(lead)


# Number-neutral equivalents (they agree with a singular and a plural subject alike).
_VARIANTS = tuple((re.compile(rf"\b{a}", re.I), b) for a, b in (
    (r"must\b(?! not)", ("must", "will have to")),
    (r"cannot\b", ("cannot", "may not", "must not", "can never")),
    # Not before "as many ... as": "no more than as many" is no English.
    (r"at most\b(?! as\b)", ("at most", "no more than", "not more than")),
    (r"at least\b(?! as\b)", ("at least", "no less than", "not less than")),
    (r"every\b(?! other)", ("every", "each")),
    (r"exceed\b", ("exceed", "go beyond", "go over")),
))


def _case_like(found: str, new: str) -> str:
    return new[:1].upper() + new[1:] if found[:1].isupper() else new


def _per(sm: SemanticModel, index: tuple[str, ...]) -> str:
    """What a figure is given per: ``clinic and month``, ``pair of holes``."""
    if len(index) == 2 and index[0] == index[1]:
        return f"pair of {plural(entity(sm, index[0]))}"
    return " and ".join(entity(sm, s) for s in index)


_PREPOSITIONS = r"(?:for|in|of|to|at|on|by|with|from|per|into|during)"
_ENDS_IN_PREPOSITION = re.compile(rf"\b{_PREPOSITIONS} \{{items\}}")
_STARTS_WITH_PREPOSITION = re.compile(rf"^{_PREPOSITIONS} (?=\{{e\}})")
_NAME_THEN_VALUE = re.compile(r"\{e\} (\{[vV]\})")


def after_lead(lead: str, piece: str) -> str:
    """An entry or group template that follows ``lead``: without its opening preposition
    where the lead ends in one before ``{items}`` ("free for" + "in Q1" is "free for in")."""
    return _STARTS_WITH_PREPOSITION.sub("", piece) if _ENDS_IN_PREPOSITION.search(lead) \
        else piece


def _apart(item: str) -> str:
    """An entry template whose value cannot run into its element's name: ``{e} ({V})`` when
    the value ends the entry, ``{e}: {V} ...`` otherwise."""
    m = _NAME_THEN_VALUE.search(item)
    if m is None:
        return item
    if m.end() == len(item):
        return item[:m.start()] + "{e} (" + m.group(1) + ")"
    return item[:m.start()] + "{e}: " + m.group(1) + item[m.end():]


def lower_first(sentence: str, proper: set[str]) -> str:
    """A sentence's first letter lowered, unless its first word is a name in ``proper``, an
    acronym or the pronoun I."""
    first = sentence.split(" ", 1)[0].strip(",.;:'’")
    if first not in ("A", "An") and (first in proper or (len(first) > 1 and
                                                          first[:2].isupper())):
        return sentence
    if re.match(r"I(?:['’](?:m|ve|d|ll))?\b", sentence):  # the pronoun I stays upper-case
        return sentence
    return sentence[:1].lower() + sentence[1:]


def wrap(frame: str, sentence: str, proper: set[str]) -> str:
    """``sentence`` placed in ``frame`` (``{S}`` as is, ``{s}`` with its first letter lowered)."""
    return frame.replace("{S}", sentence).replace("{s}", lower_first(sentence, proper))


class _Fallback(dict):  # type: ignore[type-arg]
    """A format mapping that leaves an unknown key to the statement's words."""

    def __missing__(self, key: str) -> str:
        raise KeyError(key)


def _filled(template: str, sm: SemanticModel) -> str:
    """A family template filled as the family filled it (to tell an unchanged rule)."""
    try:
        return fill_words(template, dict(sm.descriptors.get("entities", {})),
                          dict(sm.descriptors.get("words", {})))
    except (KeyError, ValueError, IndexError):
        return template


def goal_noun(sm: SemanticModel) -> str:
    """What the objective measures, as a noun phrase without its unit: ``total shipping
    cost``; ``largest total cost of any clinic`` keeps what follows the unit."""
    d = sm.objective.description
    money = str(sm.descriptors.get("words", {}).get("money", ""))
    if money and f" in {money}" in d:
        noun = d.replace(f" in {money}", "", 1)
    else:  # the unit: "total flow in Gbit/s", "tour distance in km plus fixed costs"
        noun = re.sub(r" in \S+(?=$| plus | net of | of any )", "", d, count=1)
    # A count of things ("stock bars used") is measured by their number: "the stock bars
    # used as low as it can be" would say "it" of a plural.
    if not _plural_head(noun):
        return noun
    return f"total number of {noun[6:]}" if noun.startswith("total ") else f"number of {noun}"


_PHRASE_END = re.compile(r" (?:of|per|in|for|from|on|at|plus|net|over|across|to|by|with) ")


def _plural_head(phrase: str) -> bool:
    """Whether a noun phrase's head is plural (``stock bars used``, not ``cost of trips``)."""
    words = _PHRASE_END.split(phrase, maxsplit=1)[0].split()
    while len(words) > 1 and words[-1].endswith("ed"):
        words.pop()  # a participle after the head: "bars used", "hosts opened"
    return bool(words) and is_plural(words[-1])



def column_labels(sm: SemanticModel) -> dict[str, str]:
    """Business labels of the parameters (table columns, data-file keys): the family telling's
    label, else the parameter's description. Deterministic: fidelity reads tables by them."""
    t = TELLINGS.get(sm.family)
    words = Words(sm, "DT", {})
    out = {}
    for p in sm.params:
        label = ""
        if t is not None and p.name in t.facts and t.facts[p.name].label:
            try:
                label = t.facts[p.name].label.format_map(words)
            except (KeyError, ValueError, IndexError):
                label = ""
        out[p.name] = label or p.description
    return out


def _table(header: list[str], rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    lines += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


# ---------------------------------------------------------------- layouts
def _narrative(t: Teller) -> str:
    return "\n\n".join([t.opening(), t.data(), " ".join(t.rules()),
                        t.goal() + " " + t.ask() + t.closing()])


def _letter(t: Teller) -> str:
    rules = t.rules()
    greeting = t.pick(GREETINGS).format(name=person_name(t.rng).split()[0])
    body = [greeting, t.opening(), t.data(),
            t.pick(LETTER_RULE_LEADS) + "\n" + "\n".join(f"- {r}" for r in rules),
            t.goal() + " " + t.ask() + t.closing(),
            f"{t.pick(SIGN_OFFS)}\n" + t.pick(SIGNATURES).format(
                name=_person(t), role=t.pick(ROLES))]
    return "\n\n".join(body)


def _title(t: Teller) -> str:
    """A heading that names what the statement is about (two elements of its largest set,
    drawn, not always the first)."""
    title = str(t.sm.descriptors.get("title", "")).strip() or "Planning question"
    s = max(t.sm.sets, key=len)
    names = list(s.elements) if len(s) <= 2 else \
        [s.elements[int(k)] for k in sorted(t.rng.choice(len(s), 2, replace=False))]
    noun = plural(entity(t.sm, s.name))
    low = title[:1].lower() + title[1:]
    text = t.pick((f"{title}: {names[0]}, {names[-1]} and more",
                   f"{title} for {len(s)} {noun}", f"{title} ({names[0]} and others)",
                   f"Request: {low} with {names[0]}",
                   f"{names[0]}, {names[-1]} and the rest: {low}",
                   f"Planning {len(s)} {noun} ({low})",
                   f"{title} — question about {names[0]}",
                   f"Help needed: {low}, {len(s)} {noun}",
                   f"{title}, {len(s)} {noun}", f"Our {low} question",
                   f"{title}: what is the best plan?", f"About our {len(s)} {noun}",
                   f"{title} (including {names[-1]})"))
    if not text.startswith(("Request:", "Help needed:")) and t.rng.random() < 0.35:
        text = t.pick(TITLE_PREFIXES) + text  # a title already led by a label keeps it alone
    return text


def _brief(t: Teller) -> str:
    style = t.pick(HEADING_STYLES)  # one style of heading through the brief
    return "\n\n".join([f"## {_title(t)}", heading(t.rng, "situation", style), t.opening(),
                        heading(t.rng, "data", style), t.data(), heading(t.rng, "rules", style),
                        "\n".join(f"- {r}" for r in t.rules()), heading(t.rng, "ask", style),
                        t.goal() + " " + t.ask()])


def _question(t: Teller) -> str:
    return "\n\n".join([t.opening() + " " + " ".join(t.rules()), t.data(),
                        t.goal() + " " + t.ask() + t.closing()])


def _ticket(t: Teller) -> str:
    return "\n\n".join([f"{field(t.rng, 'subject')} {_title(t)}",
                        f"{field(t.rng, 'context')} {t.opening()}",
                        f"{field(t.rng, 'request')} {t.ask()}", t.data(),
                        field(t.rng, "rules") + "\n" + "\n".join(f"- {r}" for r in t.rules()),
                        f"{field(t.rng, 'goal')} {t.goal()}"])


def _person(t: Teller) -> str:
    return person_name(t.rng)


SITUATIONS: dict[str, Callable[[Teller], str]] = {
    "narrative": _narrative, "letter": _letter, "brief": _brief, "question": _question,
    "ticket": _ticket,
}


def tell(sm: SemanticModel, form: str, layout: str,
         rng: np.random.Generator) -> tuple[str, dict[str, str]]:
    """A situation statement of ``sm`` in ``form`` and ``layout``, and its account: the
    sentence that tells each constraint family, the objective (``objective``) and how whole
    each decision is (the variable's name)."""
    teller = Teller(sm, form, rng)
    text = SITUATIONS[layout](teller).strip() + "\n"
    return text, {**teller.told, **teller.whole}


def situation_files(sm: SemanticModel) -> dict[str, str]:
    """The DPS data file: the client's data, without what a modeller derives."""
    data = data_json(sm)
    for name in sm.derived_params:
        data["parameters"].pop(name, None)
    return {"data.json": dumps_json(data)}
