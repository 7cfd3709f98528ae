"""The structural diff of an answer's model against the verified instance, family by family,
read through the semantic model's families and roles.

The answer's variables are aligned with the semantic families (``ortrex.flywheel.align``); both
models are put in one column space, one-variable rows folded into bounds (the reference keeps
which constraint family a folded bound came from) and every row scaled so its first term is 1.
Then columns are compared (domain, bounds, objective coefficients), rows are matched exactly,
then by their terms (same terms, other numbers or sense), then by overlap, and what is left is
missing or extra. Each difference becomes a :class:`~ortrex.flywheel.diagnose.Diagnosis`: a
mistake class, the family it is in (with its role), and the evidence (counts and an example
with the numbers).
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

import numpy as np

from ortrex.flywheel.align import Alignment, align, family_of, parse_name
from ortrex.flywheel.diagnose import Diagnosis, ordered
from ortrex.ir.canonical import CanonicalModel
from ortrex.ir.semantic import SemanticModel

_UNITS = (60.0, 24.0, 3600.0, 12.0, 52.0, 365.0, 7.0)
_DOMAIN = {"C": "continuous", "I": "integer", "B": "binary", "S": "semi-continuous",
           "N": "semi-integer"}
EXAMPLES = 2


# ------------------------------------------------------------------ numbers
def _close(a: float, b: float, tol: float = 1e-6) -> bool:
    if math.isinf(a) or math.isinf(b):
        return a == b
    return abs(a - b) <= tol * max(1.0, abs(a), abs(b))


def _allclose(a: np.ndarray, b: np.ndarray) -> bool:
    return a.shape == b.shape and all(_close(float(x), float(y)) for x, y in zip(a, b,
                                                                              strict=True))


def units_factor(lam: float) -> bool:
    """Whether ``lam`` is a units factor: a power of ten or a time/calendar factor (or the
    inverse of one), not 1."""
    if lam <= 0 or _close(lam, 1.0):
        return False
    lg = math.log10(lam)
    if abs(lg - round(lg)) < 1e-9:
        return True
    return any(_close(lam, f) or _close(lam, 1 / f) for f in _UNITS)


def _num(v: float) -> str:
    if math.isinf(v):
        return "none"
    r = round(v)
    return str(int(r)) if abs(v - r) <= 1e-9 * max(1.0, abs(v)) else f"{v:.6g}"


# ------------------------------------------------------------------ one model in shared columns
@dataclass
class _Row:
    name: str
    key: tuple[tuple[int, int, int], ...]
    vals: np.ndarray
    lo: float
    hi: float
    raw: tuple[np.ndarray, float, float]  # as written (for the evidence)

    @property
    def sense(self) -> str:
        if self.lo == self.hi:
            return "="
        if math.isinf(self.hi):
            return ">="
        if math.isinf(self.lo):
            return "<="
        return "range"

    @property
    def rhs(self) -> float:
        return self.hi if self.sense == "<=" else self.lo

    def columns(self) -> set[int]:
        return {c for t in self.key for c in t[1:]}


@dataclass
class _Shared:
    """A model in the reference's column space: bounds, types, objective, rows."""

    lb: np.ndarray
    ub: np.ndarray
    kind: np.ndarray
    obj: np.ndarray
    rows: list[_Row]
    origin_lb: list[str | None]
    origin_ub: list[str | None]
    quad: dict[tuple[int, int], float]


def _shared(m: CanonicalModel, colmap: np.ndarray, n: int) -> _Shared:
    lb = np.full(n, -math.inf)
    ub = np.full(n, math.inf)
    kind = np.full(n, "", dtype="<U1")
    obj = np.zeros(n)
    for c in range(m.num_vars):
        j = colmap[c]
        t = str(m.var_types[c])
        lb[j] = max(lb[j], m.lb[c]) if kind[j] else m.lb[c]
        ub[j] = min(ub[j], m.ub[c]) if kind[j] else m.ub[c]
        kind[j] = t
        obj[j] += m.obj[c]
    origin_lb: list[str | None] = [None] * n
    origin_ub: list[str | None] = [None] * n
    quad_rows: dict[int, dict[tuple[int, int, int], float]] = defaultdict(dict)
    rr, ri, rj, rv = m.qrows
    for r, i, j, v in zip(rr, ri, rj, rv, strict=True):
        a, b = sorted((int(colmap[i]), int(colmap[j])))
        quad_rows[int(r)][(1, a, b)] = quad_rows[int(r)].get((1, a, b), 0.0) + float(v)
    rows = []
    A = m.A.tocsr()
    for r in range(m.num_rows):
        terms: dict[tuple[int, int, int], float] = {}
        for c, v in zip(A.indices[A.indptr[r]:A.indptr[r + 1]],
                        A.data[A.indptr[r]:A.indptr[r + 1]], strict=True):
            k = (0, int(colmap[c]), int(colmap[c]))
            terms[k] = terms.get(k, 0.0) + float(v)
        terms.update(quad_rows.get(r, {}))
        terms = {k: v for k, v in terms.items() if v != 0.0}
        lo, hi = float(m.row_lower[r]), float(m.row_upper[r])
        if not terms:
            continue
        if len(terms) == 1 and next(iter(terms))[0] == 0:  # a bound written as a row
            (k, a), = terms.items()
            j = k[1]
            blo, bhi = (lo / a, hi / a) if a > 0 else (hi / a, lo / a)
            fam = family_of(m.row_names[r])
            if blo > lb[j]:
                lb[j], origin_lb[j] = blo, fam
            if bhi < ub[j]:
                ub[j], origin_ub[j] = bhi, fam
            continue
        key = tuple(sorted(terms))
        raw = np.array([terms[k] for k in key])
        s = 1.0 / raw[0]
        vals = raw * s
        nlo, nhi = (lo * s, hi * s) if s > 0 else (hi * s, lo * s)
        rows.append(_Row(m.row_names[r], key, vals, nlo + 0.0, nhi + 0.0, (raw, lo, hi)))
    # Binary is integer in [0, 1]; integer bounds round inward.
    for j in range(n):
        if kind[j] in ("I", "B"):
            lb[j] = max(lb[j], 0.0) if kind[j] == "B" else lb[j]
            ub[j] = min(ub[j], 1.0) if kind[j] == "B" else ub[j]
            lb[j] = math.ceil(lb[j] - 1e-9) if math.isfinite(lb[j]) else lb[j]
            ub[j] = math.floor(ub[j] + 1e-9) if math.isfinite(ub[j]) else ub[j]
            if lb[j] >= 0 and ub[j] <= 1:
                kind[j] = "B"
    quad = {}
    for i, j, v in zip(*m.qobj, strict=True):
        a, b = sorted((int(colmap[i]), int(colmap[j])))
        quad[(a, b)] = quad.get((a, b), 0.0) + float(v)
    return _Shared(lb, ub, kind, obj, rows, origin_lb, origin_ub, quad)


# ------------------------------------------------------------------ the diff
class _Diff:
    def __init__(self, sm: SemanticModel, ref: CanonicalModel, cap: CanonicalModel,
                 al: Alignment) -> None:
        self.sm, self.ref, self.cap, self.al = sm, ref, cap, al
        n = ref.num_vars
        extra = np.flatnonzero(al.col < 0)
        self.colmap = al.col.copy()
        self.colmap[extra] = n + np.arange(extra.size)
        self.n, self.N = n, n + extra.size
        self.names = list(ref.var_names) + [cap.var_names[c] for c in extra]
        self.R = _shared(ref, np.arange(n), self.N)
        self.C = _shared(cap, self.colmap, self.N)
        self.var_fam = [family_of(x) for x in ref.var_names]
        self.roles = {v.name: v.role for v in sm.variables}
        self.roles.update({c.name: c.role for c in sm.constraints})
        self.what = {v.name: v.description for v in sm.variables}
        self.what.update({c.name: c.meaning for c in sm.constraints})
        self.out: list[Diagnosis] = []
        self.inv = al.inverse(n)

    def add(self, mistake: str, kind: str, family: str | None, evidence: str,
            **details: Any) -> None:
        role = self.roles.get(family or "") or None
        self.out.append(Diagnosis(mistake, kind, family, role, evidence, details))

    def label(self, fam: str) -> str:
        role, what = self.roles.get(fam), self.what.get(fam)
        inner = ": ".join(x for x in (role, what) if x)
        return f"{fam} ({inner})" if inner else fam

    def term_text(self, row: _Row, limit: int = 4) -> str:
        """The row as the model wrote it, its first ``limit`` terms."""
        from ortrex.render.data import row_text

        vals, lo, hi = row.raw
        terms = [(self.names[i] if q == 0 else f"{self.names[i]}*{self.names[j]}", float(v))
                 for (q, i, j), v in list(zip(row.key, vals, strict=True))[:limit]]
        return row_text(terms, lo, hi, " + ..." if len(row.key) > limit else "", fmt=_num)

    # -------------------------------------------------------------- columns
    def columns(self) -> None:
        fams: dict[str, list[int]] = defaultdict(list)
        for j, f in enumerate(self.var_fam):
            fams[f].append(j)
        for fam, cols in fams.items():
            have = [j for j in cols if self.inv[j] >= 0]
            missing = [j for j in cols if self.inv[j] < 0]
            if not have:
                self.add("missing_variable", "variable", fam,
                         f"{self.label(fam)} has no counterpart in the answer "
                         f"({len(cols)} variables, e.g. {self.names[cols[0]]})",
                         count=len(cols))
                continue
            if missing:
                ex = ", ".join(self.names[j] for j in missing[:EXAMPLES])
                self.add("index_range", "variable", fam,
                         f"the answer lacks {len(missing)} of the {len(cols)} variables of "
                         f"{self.label(fam)}, e.g. {ex}", missing=len(missing))
            self._domain(fam, have)
            self._bounds(fam, have)
        extra = range(self.n, self.N)
        if len(extra):
            by: dict[str, list[int]] = defaultdict(list)
            for j in extra:
                p = parse_name(self.names[j])
                by[p[0] if p else self.names[j]].append(j)
            for prefix, js in by.items():
                self.add("extra_variable", "variable", None,
                         f"{len(js)} variable{'s' if len(js) > 1 else ''} the verified model "
                         f"does not have, e.g. {self.names[js[0]]}", prefix=prefix,
                         count=len(js))

    def _domain(self, fam: str, cols: list[int]) -> None:
        bad = [j for j in cols if self.R.kind[j] != self.C.kind[j]]
        if not bad:
            return
        want = self.R.kind[bad[0]]
        got = sorted({str(self.C.kind[j]) for j in bad})
        self.add("domain", "variable", fam,
                 f"{self.label(fam)} is {_DOMAIN.get(want, want)} in the verified model, "
                 f"{' or '.join(_DOMAIN.get(g, g) for g in got)} in the answer "
                 f"({len(bad)} of {len(cols)} variables)",
                 expected=str(want), got=got, count=len(bad))

    def _bounds(self, fam: str, cols: list[int]) -> None:
        plain: dict[str, list[tuple[int, float, float]]] = defaultdict(list)
        from_rows: dict[str, list[int]] = defaultdict(list)
        for side, R, C, origin in (("lower", self.R.lb, self.C.lb, self.R.origin_lb),
                                   ("upper", self.R.ub, self.C.ub, self.R.origin_ub)):
            for j in cols:
                if self.R.kind[j] == "B" and self.C.kind[j] == "B":
                    continue
                if _close(float(R[j]), float(C[j])):
                    continue
                src = origin[j]
                looser = C[j] < R[j] if side == "lower" else C[j] > R[j]
                if src is not None and looser:
                    from_rows[src].append(j)
                else:
                    plain[side].append((j, float(R[j]), float(C[j])))
        for src, js in from_rows.items():
            total = sum(1 for o in self.R.origin_ub + self.R.origin_lb if o == src)
            mistake = "missing_constraint" if len(js) >= total else "index_range"
            self.add(mistake, "constraint", src,
                     f"{self.label(src)} bounds {self.names[js[0]]} in the verified model; "
                     f"the answer lacks it ({len(js)} of {total} rows)", count=len(js))
        for side, bad in plain.items():
            lams = {round(c / r, 9) if r and math.isfinite(r) and math.isfinite(c) else None
                    for _, r, c in bad}
            j, r, c = bad[0]
            if len(lams) == 1 and None not in lams and units_factor(next(iter(lams))):
                lam = next(iter(lams))
                self.add("units", "variable", fam,
                         f"{side} bounds of {self.label(fam)} are {_num(lam)} times the "
                         f"verified ones ({len(bad)} of {len(cols)} variables)", factor=lam)
                continue
            self.add("bounds", "variable", fam,
                     f"{self.label(fam)}: {side} bound {_num(r)} in the verified model, "
                     f"{_num(c)} in the answer, e.g. {self.names[j]} "
                     f"({len(bad)} of {len(cols)} variables)", side=side, count=len(bad))

    # -------------------------------------------------------------- objective
    def objective(self) -> None:
        rs, cs = str(self.ref.sense), str(self.cap.sense)
        sign = 1.0
        if rs != cs:
            same = sum(1 for a, b in zip(self.R.obj, self.C.obj, strict=True)
                       if a != 0 and _close(a, b))
            neg = sum(1 for a, b in zip(self.R.obj, self.C.obj, strict=True)
                      if a != 0 and _close(a, -b))
            if neg > same:
                sign = -1.0  # max -c is min c: the same objective written the other way
            else:
                verb = {"min": "minimises", "max": "maximises"}
                self.add("objective_sense", "objective", None,
                         f"the verified model {verb.get(rs, rs)} the "
                         f"{self.sm.objective.description or 'objective'}; the answer "
                         f"{verb.get(cs, cs)} it", expected=rs, got=cs)
        cobj = sign * self.C.obj
        fams: dict[str, list[int]] = defaultdict(list)
        for j, f in enumerate(self.var_fam):
            if self.inv[j] >= 0:
                fams[f].append(j)
        for fam, cols in fams.items():
            a, b = self.R.obj[cols], cobj[cols]
            if _allclose(a, b):
                continue
            if np.all(a == 0):
                self.add("objective_term", "objective", fam,
                         f"the objective has terms in {self.label(fam)} that the verified "
                         f"model does not, e.g. {self.names[cols[int(np.argmax(b != 0))]]}",
                         change="extra")
                continue
            if np.all(b == 0):
                k = int(np.argmax(a != 0))
                self.add("objective_term", "objective", fam,
                         f"the objective lacks the terms of {self.label(fam)}, e.g. "
                         f"{self.names[cols[k]]} with {_num(a[k])} in the verified model "
                         f"({int(np.sum(a != 0))} terms)", change="missing")
                continue
            nz = (a != 0) & (b != 0)
            lams = {round(float(y / x), 9) for x, y in zip(a[nz], b[nz], strict=True)}
            if len(lams) == 1 and np.array_equal(a != 0, b != 0) and \
                    units_factor(next(iter(lams))):
                lam = next(iter(lams))
                self.add("units", "objective", fam,
                         f"objective coefficients of {self.label(fam)} are {_num(lam)} times "
                         f"the verified ones ({int(nz.sum())} terms)", factor=lam)
                continue
            bad = [k for k in range(len(cols)) if not _close(float(a[k]), float(b[k]))]
            k = bad[0]
            self.add("objective_term", "objective", fam,
                     f"objective coefficients of {self.label(fam)} differ, e.g. "
                     f"{self.names[cols[k]]}: {_num(a[k])} in the verified model, "
                     f"{_num(b[k])} in the answer ({len(bad)} of {len(cols)})",
                     change="coefficients", count=len(bad))
        if not _close(self.ref.obj_constant, sign * self.cap.obj_constant):
            self.add("objective_term", "objective", None,
                     f"the objective constant is {_num(self.ref.obj_constant)} in the verified "
                     f"model, {_num(sign * self.cap.obj_constant)} in the answer",
                     change="constant")
        keys = set(self.R.quad) | set(self.C.quad)
        bad_q = sorted(k for k in keys if not _close(self.R.quad.get(k, 0.0),
                                                     sign * self.C.quad.get(k, 0.0)))
        if bad_q:
            i, j = bad_q[0]
            fam = self.var_fam[i] if i < self.n else None
            self.add("objective_term", "objective", fam,
                     f"{len(bad_q)} quadratic objective terms differ, e.g. "
                     f"{self.names[i]}*{self.names[j]}", change="quadratic")

    # -------------------------------------------------------------- rows
    def rows(self) -> None:
        ref_rows, cap_rows = self.R.rows, self.C.rows
        by_key: dict[tuple[Any, ...], list[int]] = defaultdict(list)
        for k, r in enumerate(ref_rows):
            by_key[r.key].append(k)
        fam_of = [family_of(r.name) for r in ref_rows]
        matched_ref: set[int] = set()
        seen_ref: set[int] = set()  # present in the answer, exactly or with other numbers
        left: list[int] = []
        for ci, c in enumerate(cap_rows):
            hit = None
            for k in by_key.get(c.key, ()):
                r = ref_rows[k]
                if _allclose(r.vals, c.vals) and _close(r.lo, c.lo) and _close(r.hi, c.hi):
                    hit = k
                    if k not in matched_ref:
                        break
            if hit is None:
                left.append(ci)
            else:
                matched_ref.add(hit)
        seen_ref |= matched_ref
        found: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
        # Same terms, other numbers or sense.
        still: list[int] = []
        for ci in left:
            c = cap_rows[ci]
            cands = [k for k in by_key.get(c.key, ()) if k not in seen_ref]
            cands.sort(key=lambda k: (fam_of[k] != family_of(c.name), k))
            if not cands:
                still.append(ci)
                continue
            k = cands[0]
            seen_ref.add(k)
            r = ref_rows[k]
            found[(self._row_mistake(r, c, fam_of[k]), fam_of[k])].append((
                f"{r.name}: {self.term_text(r)} in the verified model, {self.term_text(c)} "
                "in the answer", family_of(c.name)))
        # Other terms: the best overlapping row left.
        extra: list[int] = []
        for ci in still:
            c = cap_rows[ci]
            cc = c.columns()
            best, best_j = None, 0.0
            for k, r in enumerate(ref_rows):
                if k in seen_ref:
                    continue
                rc = r.columns()
                j = len(cc & rc) / len(cc | rc)
                j += 0.001 if fam_of[k] == family_of(c.name) else 0.0
                if j > best_j:
                    best, best_j = k, j
            if best is None or best_j < 0.5:
                extra.append(ci)
                continue
            seen_ref.add(best)
            r = ref_rows[best]
            fam = fam_of[best]
            mistake = "ratio" if self.roles.get(fam) == "ratio" else "coefficients"
            lack = sorted({self.var_fam[x] if x < self.n else self.names[x]
                           for x in r.columns() - cc})
            more = sorted({self.var_fam[x] if x < self.n else self.names[x]
                           for x in cc - r.columns()})
            what = "; ".join(x for x in (
                f"terms of {', '.join(lack)} missing" if lack else "",
                f"terms of {', '.join(more)} added" if more else "") if x)
            found[(mistake, fam)].append((f"{r.name}: {what or 'terms differ'}: "
                                          f"{self.term_text(r)} in the verified model, "
                                          f"{self.term_text(c)} in the answer",
                                          family_of(c.name)))
        totals: dict[str, int] = defaultdict(int)
        for f in fam_of:
            totals[f] += 1
        for (mistake, fam), ex in found.items():
            self.add(mistake, "constraint", fam,
                     f"{self.label(fam)}: {len(ex)} of its {totals[fam]} rows differ; "
                     f"for instance {ex[0][0]}", count=len(ex), answer_prefix=ex[0][1])
        # Rows the answer does not have.
        gone: dict[str, list[int]] = defaultdict(list)
        for k in range(len(ref_rows)):
            if k not in seen_ref:
                gone[fam_of[k]].append(k)
        for fam, ks in gone.items():
            r = ref_rows[ks[0]]
            if len(ks) == totals[fam]:
                self.add("missing_constraint", "constraint", fam,
                         f"{self.label(fam)} is missing: none of its {totals[fam]} rows, e.g. "
                         f"{r.name}: {self.term_text(r)}", count=len(ks))
            else:
                names = ", ".join(ref_rows[k].name for k in ks[:EXAMPLES])
                self.add("index_range", "constraint", fam,
                         f"{self.label(fam)}: the answer lacks {len(ks)} of its {totals[fam]} "
                         f"rows: {names}{', ...' if len(ks) > EXAMPLES else ''}",
                         count=len(ks))
        # Rows the verified model does not have.
        by_prefix: dict[str, list[int]] = defaultdict(list)
        for ci in extra:
            by_prefix[family_of(cap_rows[ci].name)].append(ci)
        for prefix, cis in by_prefix.items():
            c = cap_rows[cis[0]]
            if prefix in totals:
                self.add("index_range", "constraint", prefix,
                         f"{self.label(prefix)}: the answer has {len(cis)} rows beyond its "
                         f"range, e.g. {c.name}: {self.term_text(c)}", count=len(cis))
            else:
                fams = sorted({self.var_fam[x] if x < self.n else self.names[x]
                               for x in c.columns()})
                self.add("extra_constraint", "constraint", None,
                         f"{len(cis)} row{'s' if len(cis) > 1 else ''} the verified model "
                         f"does not have (over {', '.join(fams)}), e.g. {c.name}: "
                         f"{self.term_text(c)}", prefix=prefix, count=len(cis))

    def _row_mistake(self, r: _Row, c: _Row, fam: str) -> str:
        if _allclose(r.vals, c.vals):
            if r.sense != c.sense:
                return "constraint_sense"
            if r.rhs != 0 and c.rhs != 0 and units_factor(c.rhs / r.rhs):
                return "units"
            return "ratio" if self.roles.get(fam) == "ratio" else "coefficients"
        if self.roles.get(fam) == "ratio":
            return "ratio"
        lams = {round(float(y / x), 9) for x, y in zip(r.vals, c.vals, strict=True) if x}
        if len(lams) == 2:
            a, b = sorted(lams)
            if a > 0 and units_factor(b / a):
                return "units"
        return "coefficients"


def diagnose_models(sm: SemanticModel, ref: CanonicalModel, cap: CanonicalModel
                    ) -> tuple[list[Diagnosis], Alignment]:
    """The structural diff of ``cap`` (an answer's model) against ``ref`` (``sm`` grounded),
    as diagnoses in priority order; and the alignment it rests on."""
    al = align(sm, ref, cap)
    if al.coverage < 0.5:
        got = ", ".join(cap.var_names[:3]) + (" ..." if cap.num_vars > 3 else "")
        return [Diagnosis("unaligned", "variable", None, None,
                          f"only {al.coverage:.0%} of the verified model's variables could be "
                          f"matched to the answer's ({cap.num_vars} variables: {got})",
                          {"coverage": al.coverage})], al
    d = _Diff(sm, ref, cap, al)
    d.columns()
    d.objective()
    d.rows()
    return ordered(d.out), al
