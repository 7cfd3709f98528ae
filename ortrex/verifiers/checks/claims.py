"""The claims of a document's modelling reasoning, re-derived from the model: a document whose
reasoning states what its model does not bear out is rejected (reason ``reasoning_claim``).

The reasoning (``ortrex.render.reasoning``: the ``clean_cot`` thinking and the CPT ``notes``)
is read back from the document: the text after the statement (and its inlined data files), up
to the first code block, formulation or walk-through. Each claim it can make is found by its
wording and checked against facts computed here, independently of the renderer, on the
verified instance (its structure) and the semantic model (its roles and descriptions):

* the direction of the objective, and the bound a relaxation gives (lower when minimising,
  upper when maximising; none without integrality to drop);
* the problem class (LP, MILP, QP, MIQP): integrality, quadratic objective or rows;
* a decision's domain (binary, integer, continuous) and why a continuous one may stay so: an
  MTZ position (only its order matters), a min-max epigraph variable, a slack, an indicator
  its rows force whole, a totally unimodular matrix with whole data (network flows), or a
  divisible amount (never a yes/no decision);
* the coefficient a linking row gives its switch (the big-M or the capacity it is);
* no internal name as a word of the prose (program names are set as code), and every number
  quoted is one of the model's (data, coefficients, bounds, counts, totals).
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.roles import INDICATORS
from ortrex.ir.semantic import SemanticModel
from ortrex.verifiers.checks.document import Check

REASON = "reasoning_claim"

_FILES = re.compile(r"File `[^`\n]+`:\n```json\n.*?\n```|Attached files \(not inlined[^\n]*",
                    re.S)
_END = re.compile(r"```|\$\$|\*\*Sets\.\*\*|^#+ ", re.M)
_QUOTE = re.compile(r"\u201c[^\u201d]*\u201d")
_CODE = re.compile(r"`[^`\n]*`")
_BRACKET = re.compile(r"\[[^\]\n]*\]")
_NUMBER = re.compile(r"(?<![\w.])[-\u2212]?\d+(?:\.\d+)?(?:e[-+]?\d+)?(?![\w])")
_SENTENCE = re.compile(r"(?<=[.!?])\s+")

# Claim wordings the renderer uses (and the false ones it used to), by what they assert.
_RELAX = re.compile(r"relax", re.I)
_LOWER = re.compile(r"\blower bound|\bbounds? (?:it |the optimum )?from below", re.I)
_UPPER = re.compile(r"\bupper bound|\bbounds? (?:it |the optimum )?from above", re.I)
_LP_CLASS = re.compile(r"(?<!not an )\bLP\b(?!\s+relaxation)|(?<!integer )\blinear program"
                       r"|\bthe model is linear\b")
_NO_INT = re.compile(r"\bNo integrality (?:anywhere|and no|, but)|\bEvery variable is "
                     r"continuous|\b[Ww]ith only continuous\b|\b[Nn]othing is integral\b|"
                     r"\b[Tt]here is no integrality\b")
_MILP = re.compile(r"\bMILP\b|mixed-integer linear|mixed-integer (?:program|model)\b")
_QP = re.compile(r"(?<!MI)\bQP\b(?!\s+relaxation)|(?<!integer )quadratic program")
_MIQP = re.compile(r"\bMIQP\b|mixed-integer quadratic")
_ORDER = re.compile(r"only (?:its|their) order (?:matters|counts)|\bMTZ\b|order of the "
                    r"positions")
_EPIGRAPH = re.compile(r"epigraph|min-max device|carries the worst case")
_SLACK = re.compile(r"\bslack\b")
_NETWORK = re.compile(r"totally unimodular|network matrix")
_FORCED = re.compile(r"forced to 0 or 1|forces a whole value")
_DIVISIBLE = re.compile(r"fraction of (?:one|an?\b)[^.]*meaningful|divide freely|are "
                        r"divisible|can take any value|\bPartial\b|\bAny fraction\b|need not "
                        r"be whole|are not required|fractional `[^`]*` is meaningful|"
                        r"\bNothing forces whole\b|\bmeasured quantity\b")
# A domain said of a decision (not denied: "is not integer").
_BINARY = re.compile(r"(?<!not )\bbinary\b(?! choices)(?!-)|lives in \{0, 1\}|"
                     r"\b(?:is|only be) 0 or 1\b|\b0 or 1\.")
_INTEGER = re.compile(r"(?<!-)(?<!not )\binteger\b(?! program)|\bmust be a whole number\b")
_CONTINUOUS = re.compile(r"(?<!not )\bcontinuous\b")
_SWITCH = re.compile(r"coefficient of `(\w+)`[^:]*?: (.*)|scaled by the given (\w+) "
                     r"\((.*)\)")
_SENSE = re.compile(r"\b(minimi[sz]e|maximi[sz]e)\b|\b(minimi[sz]ation|maximi[sz]ation) "
                    r"problem\b")


def reasoning_region(text: str, statement: str) -> str:
    """The reasoning of a document: after its statement and data files, before its first code
    block, formulation, walk-through or heading ("" where it has none)."""
    head = statement.rstrip()
    at = text.find(head) if head else -1
    rest = text[at + len(head):] if at >= 0 else text
    rest = _FILES.sub("", rest)
    end = _END.search(rest)
    return (rest[:end.start()] if end else rest).strip()


@dataclass
class _Facts:
    """What the model is, computed here from the instance and the semantic model."""

    sm: SemanticModel
    g: CanonicalModel

    def __post_init__(self) -> None:
        g = self.g
        self.sense = str(g.sense)
        self.cols: dict[str, list[int]] = {}
        for j, n in enumerate(g.var_names):
            self.cols.setdefault(n.split("[", 1)[0], []).append(j)
        self.rows: dict[str, list[int]] = {}
        for k, n in enumerate(g.row_names):
            self.rows.setdefault(n.split("[", 1)[0], []).append(k)
        self.ints = bool(np.isin(g.var_types, ("I", "B", "N")).any())
        self.qobj, self.qrows = bool(g.qobj[0].size), bool(g.qrows[0].size)
        quad = "QCP" if self.qrows else "QP" if self.qobj else ""
        self.cls = ("MI" if self.ints else "") + quad if quad else \
            ("MILP" if self.ints else "LP")
        self.csr, self.csc = g.A.tocsr(), g.A.tocsc()
        self.binary = g.var_types == "B"

    # -------------------------------------------------------------- structure
    def row(self, k: int) -> tuple[np.ndarray, np.ndarray]:
        """Columns and coefficients of row ``k``."""
        a = self.csr
        return a.indices[a.indptr[k]:a.indptr[k + 1]], a.data[a.indptr[k]:a.indptr[k + 1]]

    def col(self, j: int) -> tuple[np.ndarray, np.ndarray]:
        """Rows and coefficients of column ``j``."""
        a = self.csc
        return a.indices[a.indptr[j]:a.indptr[j + 1]], a.data[a.indptr[j]:a.indptr[j + 1]]

    def holds_up(self, k: int, coef: float) -> bool:
        """Row ``k`` keeps a variable of coefficient ``coef`` from going lower (only)."""
        lo, hi = self.g.row_lower[k], self.g.row_upper[k]
        return (coef > 0 and math.isfinite(lo) and math.isinf(hi)) or \
            (coef < 0 and math.isfinite(hi) and math.isinf(lo))

    def totally_unimodular(self) -> bool:
        """Heller and Tompkins, row by row: entries 0 or +-1, at most two per column, and a
        two-colouring of the rows that separates like signs and joins unlike ones (a search
        over the rows' parity graph)."""
        a = self.csc
        if a.nnz and not np.all(np.abs(a.data) == 1):
            return False
        edges: dict[int, list[tuple[int, int]]] = {}
        for j in range(self.g.num_vars):
            rr, vv = self.col(j)
            if len(rr) > 2:
                return False
            if len(rr) == 2:
                parity = 1 if vv[0] == vv[1] else 0  # like signs: opposite colours
                edges.setdefault(int(rr[0]), []).append((int(rr[1]), parity))
                edges.setdefault(int(rr[1]), []).append((int(rr[0]), parity))
        colour: dict[int, int] = {}
        for start in edges:
            if start in colour:
                continue
            colour[start] = 0
            todo = deque([start])
            while todo:
                r = todo.popleft()
                for s, parity in edges[r]:
                    want = colour[r] ^ parity
                    if s not in colour:
                        colour[s] = want
                        todo.append(s)
                    elif colour[s] != want:
                        return False
        return True

    def whole_data(self) -> bool:
        """Every finite right-hand side and bound is a whole number."""
        g = self.g
        vals = np.concatenate([g.row_lower, g.row_upper, g.lb, g.ub])
        vals = vals[np.isfinite(vals)]
        return bool(np.all(vals == np.round(vals)))

    def network_integral(self) -> bool:
        """An LP whose vertices are whole: totally unimodular rows, whole data."""
        return self.cls == "LP" and self.whole_data() and self.totally_unimodular()

    # -------------------------------------------------------------- roles
    def yes_no(self, var: str) -> bool:
        """The family means a yes/no choice (its role or its description says so)."""
        v = self.sm.var_map.get(var)
        return v is not None and (v.role in INDICATORS or v.description.startswith("1 if "))

    def is_order(self, var: str) -> bool:
        """MTZ positions: never in the objective, and each row holding them holds two (+1 and
        -1) beside a yes/no arc."""
        cols = self.cols.get(var, [])
        if not cols or np.any(self.g.obj[cols]):
            return False
        mine = set(cols)
        rows = {int(k) for j in cols for k in self.col(j)[0]}
        for k in rows:
            idx, val = self.row(k)
            own = sorted(float(v) for j, v in zip(idx, val, strict=True) if int(j) in mine)
            if own != [-1.0, 1.0] or not any(self.binary[int(j)] for j in idx):
                return False
        return bool(rows)

    def is_epigraph(self, var: str) -> bool:
        """A min-max bound: the objective is this one variable, and every row holding it keeps
        it on the far side of a term."""
        cols = self.cols.get(var, [])
        if len(cols) != 1:
            return False
        j = cols[0]
        sign = 1.0 if self.sense == "min" else -1.0
        if set(np.flatnonzero(self.g.obj).tolist()) != {j} or sign * self.g.obj[j] <= 0:
            return False
        rr, vv = self.col(j)
        return bool(len(rr)) and all(self.holds_up(int(k), sign * float(v))
                                     for k, v in zip(rr, vv, strict=True))

    def is_slack(self, var: str) -> bool:
        """A slack: nonnegative, one row per column which it loosens, charged per unit."""
        cols = self.cols.get(var, [])
        sign = 1.0 if self.sense == "min" else -1.0
        if not cols or np.any(self.g.lb[cols] != 0) or np.any(sign * self.g.obj[cols] <= 0):
            return False
        for j in cols:
            rr, vv = self.col(j)
            lo, hi = self.g.row_lower[int(rr[0])] if len(rr) else 0, \
                self.g.row_upper[int(rr[0])] if len(rr) else 0
            loosens = len(rr) == 1 and ((vv[0] > 0 and math.isinf(hi)) or
                                        (vv[0] < 0 and math.isinf(lo)))
            if not loosens:
                return False
        return True

    def is_forced(self, var: str) -> bool:
        """Continuous in [0, 1], charged, and held up only by rows of whole coefficients on
        binaries with whole right-hand sides: 0 or 1 at an optimum."""
        cols = self.cols.get(var, [])
        sign = 1.0 if self.sense == "min" else -1.0
        g = self.g
        if not cols or np.any(g.lb[cols] != 0) or np.any(g.ub[cols] != 1) or \
                np.any(sign * g.obj[cols] <= 0):
            return False
        mine = set(cols)
        for j in cols:
            rr, vv = self.col(j)
            if not len(rr):
                return False
            for k, v in zip(rr, vv, strict=True):
                k = int(k)
                idx, val = self.row(k)
                ends = [x for x in (g.row_lower[k], g.row_upper[k]) if math.isfinite(x)]
                if abs(v) != 1 or not self.holds_up(k, float(v)) or \
                        any(x != round(x) for x in ends) or \
                        any(not self.binary[int(i)] or x != round(x)
                            for i, x in zip(idx, val, strict=True) if int(i) not in mine):
                    return False
        return True

    # -------------------------------------------------------------- numbers
    def numbers(self) -> np.ndarray:
        """Every number the model holds or a reader derives by counting and adding: data,
        coefficients, bounds, right-hand sides, counts of sets, columns and rows, totals of a
        family's right-hand sides."""
        g, sm = self.g, self.sm
        vals: list[Iterable[float]] = [
            [0.0, 1.0, 2.0], g.A.data, g.lb, g.ub, g.row_lower, g.row_upper, g.obj,
            [g.obj_constant, g.num_vars, g.num_rows, g.qobj[0].size, g.qrows[0].size,
             g.qobj[0].size + g.qrows[0].size], g.qobj[2], g.qrows[3]]
        vals += [np.asarray(p.values, dtype=float).reshape(-1) for p in sm.params]
        vals.append([len(s) for s in sm.sets])
        vals.append([len(c) for c in self.cols.values()])
        vals.append([len(r) for r in self.rows.values()])
        vals.append([math.prod(len(sm.set_map[s]) for _, s in v.dims) for v in sm.variables])
        for rows in self.rows.values():
            for side in (g.row_lower[rows], g.row_upper[rows]):
                if np.all(np.isfinite(side)):
                    vals.append([float(side.sum())])
        out = np.concatenate([np.asarray(list(v), dtype=float) for v in vals])
        out = np.abs(out[np.isfinite(out)])
        return np.unique(out)


def _is_model_number(q: float, decimals: int, known: np.ndarray) -> bool:
    tol = 0.5 * 10.0 ** -decimals + 1e-9 * max(1.0, abs(q))
    at = int(np.searchsorted(known, abs(q) - tol))
    return at < known.size and known[at] <= abs(q) + tol


def _names(sm: SemanticModel) -> tuple[set[str], set[str], set[str]]:
    return ({v.name for v in sm.variables}, {c.name for c in sm.constraints},
            {p.name for p in sm.params})


def _subject(text: str, names: set[str], coded_text: bool) -> list[str]:
    """The families a sentence or paragraph names as code (or, in a text that sets no name as
    code, as a bare word)."""
    coded = [m.group(0)[1:-1].split("[", 1)[0] for m in _CODE.finditer(text)]
    got = [n for n in coded if n in names]
    if got or coded_text:
        return got
    return [n for n in names if re.search(rf"(?<![\w`]){re.escape(n)}(?![\w`\[])", text)]


def _values(text: str) -> list[float]:
    return [float(m.group(0).replace("\u2212", "-")) for m in _NUMBER.finditer(text)]


def claim_findings(sm: SemanticModel, g: CanonicalModel, text: str,
                   statement: str = "") -> list[str]:
    """The claims of ``text``'s reasoning that the model does not bear out (one line each)."""
    region = reasoning_region(text, statement)
    if not region:
        return []
    f = _Facts(sm, g)
    vars_, cons, params = _names(sm)
    out: list[str] = []
    known = f.numbers()
    tu: bool | None = None
    coded_text = "`" in region
    for para in region.split("\n\n"):
        prose = _QUOTE.sub("\u201c\u201d", para)
        first = _subject(prose, vars_ | cons, coded_text)
        about_var = bool(first) and first[0] in vars_
        con = next((n for n in first if n in cons), None)
        for sent in _SENTENCE.split(prose):
            low = sent.lower()
            # The objective's direction and the relaxation's bound.
            for m in _SENSE.finditer(sent):
                said = (m.group(1) or m.group(2)).lower()[:3]
                if said != f.sense:
                    out.append(f"says {m.group(0)!r} of a {f.sense}imisation model")
            if _RELAX.search(sent):
                if not f.ints and "integrality" in low:
                    out.append("speaks of relaxing integrality in a model without any")
                if _LOWER.search(sent) and f.sense == "max":
                    out.append("calls the relaxation a lower bound on a maximisation "
                               "(it is an upper bound)")
                if _UPPER.search(sent) and f.sense == "min":
                    out.append("calls the relaxation an upper bound on a minimisation "
                               "(it is a lower bound)")
                if re.search(r"\bLP relaxation", sent) and f.cls not in ("MILP", "LP"):
                    out.append(f"calls the relaxation of a {f.cls} an LP")
            # The problem class.
            if _LP_CLASS.search(sent) and f.cls != "LP":
                out.append(f"calls the model an LP; it is a {f.cls}")
            if _NO_INT.search(sent) and f.ints:
                out.append("says nothing is integral; the model has integer variables")
            if _MILP.search(sent) and f.cls != "MILP":
                out.append(f"calls the model a MILP; it is a{'n' if f.cls == 'LP' else ''} "
                           f"{f.cls}")
            if _QP.search(sent) and f.cls not in ("QP", "QCP"):
                out.append(f"calls the model a QP; it is a{'n' if f.cls == 'LP' else ''} "
                           f"{f.cls}")
            if _MIQP.search(sent) and f.cls not in ("MIQP", "MIQCP"):
                out.append(f"calls the model a MIQP; it is a{'n' if f.cls == 'LP' else ''} "
                           f"{f.cls}")
            if _NETWORK.search(sent):
                tu = f.network_integral() if tu is None else tu
                if not tu:
                    out.append("claims a totally unimodular matrix with whole data; the "
                               "model has none")
            # A decision's domain and its justification.
            subj = (_subject(sent, vars_, coded_text) or first[:1]) if about_var else []
            for v in subj:
                fam = sm.var_map[v]
                for rx, what, ok in (
                        (_ORDER, "an MTZ order variable", f.is_order),
                        (_EPIGRAPH, "a min-max epigraph variable", f.is_epigraph),
                        (_SLACK, "a slack", f.is_slack),
                        (_FORCED, "forced to 0 or 1", f.is_forced)):
                    if rx.search(sent) and not ok(v):
                        out.append(f"calls `{v}` {what}; the model does not make it one")
                if _DIVISIBLE.search(sent) and f.yes_no(v):
                    out.append(f"justifies `{v}` as a divisible amount; it is a yes/no "
                               f"decision")
                if _BINARY.search(sent) and fam.vtype != "B" and not _FORCED.search(sent):
                    out.append(f"calls `{v}` binary; it is {fam.vtype}")
                if _INTEGER.search(sent) and fam.vtype != "I":
                    out.append(f"calls `{v}` integer; it is {fam.vtype}")
                if _CONTINUOUS.search(sent) and fam.vtype != "C":
                    out.append(f"calls `{v}` continuous; it is {fam.vtype}")
            # A link's switch: its coefficient is what the sentence quotes.
            if con is not None:
                for m in _SWITCH.finditer(sent):
                    # The switch named, or (unnamed) the selection or on/off binaries.
                    y = m.group(1)
                    switches = {y} if y else {v.name for v in sm.variables if v.vtype == "B"
                                              and v.role in ("selection", "indicator")}
                    quoted = _values(_BRACKET.sub("", m.group(2) or m.group(4) or ""))
                    coefs = set()
                    for k in f.rows.get(con, []):
                        idx, val = f.row(k)
                        coefs |= {round(abs(float(x)), 6) for j, x in zip(idx, val, strict=True)
                                  if g.var_names[int(j)].split("[", 1)[0] in switches}
                    bad = [q for q in quoted if round(abs(q), 6) not in coefs]
                    if not quoted or bad:
                        out.append(f"gives the switch of `{con}` the coefficients "
                                   f"{m.group(2) or m.group(4)!r}; its rows have "
                                   f"{sorted(coefs)[:4]}")
        # No internal name as a word: program names are set as code.
        bare = _BRACKET.sub("", _CODE.sub("", prose))
        for n in sorted(vars_ | cons | params | {s.name for s in sm.sets}):
            if "_" in n and re.search(rf"(?<![\w`]){re.escape(n)}(?![\w`])", bare):
                out.append(f"uses the internal name {n!r} as a word")
        for m in re.finditer(r"\b(?:Values of|Rule|Constraint) (\w+)\b", bare):
            if m.group(1) in vars_ | cons | params:
                out.append(f"uses the internal name {m.group(1)!r} as a word "
                           f"({m.group(0)!r})")
        # Every number quoted is one of the model's.
        for m in _NUMBER.finditer(bare):
            txt = m.group(0).replace("\u2212", "-")
            dec = len(txt.split(".", 1)[1].split("e")[0]) if "." in txt else 0
            if not _is_model_number(float(txt), dec, known):
                out.append(f"quotes {txt}, which is none of the model's numbers")
    return list(dict.fromkeys(out))


def verify_claims(sm: SemanticModel, instance: CanonicalModel | None, text: str,
                  statement: str) -> Check:
    """The ``reasoning_claim`` verdict on one document."""
    t0 = time.perf_counter()
    g = instance if instance is not None else sm.ground()
    found = claim_findings(sm, g, text, statement)
    return Check(REASON, "fail" if found else "pass", runtime_s=time.perf_counter() - t0,
                 details={"why": "; ".join(found[:8])} if found else {})
