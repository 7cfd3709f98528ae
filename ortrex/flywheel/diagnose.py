"""What is wrong with an answer: the mistake classes, a :class:`Diagnosis` (class, the family
it is in with its role, the evidence), and the program-level mistakes (output contract, unsafe
data access, Gurobi API misuse, errors, time) read from the static checks and the sandbox run.
The model-level ones come from the structural diff (``ortrex.flywheel.diff``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

# The mistake classes, in priority order (an answer's class is its first).
MISTAKES: dict[str, str] = {
    "output_contract": "the reply breaks the output contract (no code block, no model named "
                       "model, no optimize, no OPTIMAL_OBJECTIVE line, no model left)",
    "unsafe_data_access": "the program opens, writes or imports what it may not",
    "tampering": "the program imitates a solver model or types in its answer",
    "gurobi_api": "gurobipy misused (Python and/or or chained comparisons in a constraint, an "
                  "API error)",
    "code_error": "the program does not run (syntax, undefined name, an exception)",
    "timeout": "the program runs out of time",
    "unaligned": "the model's variables cannot be matched to the families",
    "missing_variable": "a variable family is missing",
    "objective_sense": "minimises what should be maximised, or the reverse",
    "domain": "a variable family is continuous, integer or binary where the verified model "
              "says otherwise",
    "missing_constraint": "a constraint family is missing",
    "constraint_sense": "a constraint family has the wrong sense (<=, >=, =)",
    "ratio": "a ratio, share or average is linearised wrongly",
    "index_range": "a family covers too few or too many indices",
    "objective_term": "an objective term is missing, extra or has other coefficients",
    "units": "numbers off by a units factor (x100, x1000, x60, ...)",
    "bounds": "a variable family's bounds differ",
    "coefficients": "a constraint family's terms or numbers differ otherwise",
    "extra_constraint": "rows the verified model does not have",
    "extra_variable": "variables the verified model does not have",
    "unknown": "not equivalent, and the diff names no family",
}
PRIORITY = {m: k for k, m in enumerate(MISTAKES)}
# Mistakes whose fix the semantic model dictates locally (a type, a sense, a bound, a factor,
# the contract): repaired deterministically; the others need a modeller (the served model).
MECHANICAL = frozenset({"domain", "bounds", "objective_sense", "constraint_sense", "units",
                        "output_contract"})


@dataclass(frozen=True)
class Diagnosis:
    """One mistake of an answer."""

    mistake: str
    kind: str  # variable | constraint | objective | program
    family: str | None
    role: str | None
    evidence: str
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> tuple[str, str | None]:
        """(mistake, family): what a repair may change."""
        return self.mistake, self.family

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly."""
        return {"mistake": self.mistake, "kind": self.kind, "family": self.family,
                "role": self.role, "evidence": self.evidence, "details": self.details}

    @staticmethod
    def from_dict(d: dict[str, Any]) -> Diagnosis:
        """Inverse of :meth:`to_dict`."""
        return Diagnosis(d["mistake"], d["kind"], d.get("family"), d.get("role"),
                         d["evidence"], dict(d.get("details") or {}))


def ordered(found: list[Diagnosis]) -> list[Diagnosis]:
    """Diagnoses in priority order, one per (mistake, family)."""
    seen: dict[tuple[str, str | None], Diagnosis] = {}
    for d in found:
        seen.setdefault(d.key, d)
    return sorted(seen.values(), key=lambda d: (PRIORITY.get(d.mistake, 99), d.family or ""))


# ------------------------------------------------------------------ program level
_STATIC = {"file-access": "unsafe_data_access", "file-write": "unsafe_data_access",
           "import": "unsafe_data_access", "import-stdlib": "unsafe_data_access",
           "import-local": "unsafe_data_access", "import-plot": "output_contract",
           "call": "unsafe_data_access",
           "gurobi-boolop": "gurobi_api", "gurobi-chained": "gurobi_api",
           "code-blocks": "output_contract", "no-model": "output_contract",
           "model-name": "output_contract", "no-optimize": "output_contract",
           "read-before-optimize": "output_contract", "syntax": "code_error",
           "undefined": "code_error"}
_FAILURE = {"no_code": "output_contract", "no_model": "output_contract", "syntax": "code_error",
            "gurobi_api": "gurobi_api", "timeout": "timeout", "forged_capture": "tampering",
            "trivial_model": "tampering", "ungrounded_model": "tampering",
            "bad_capture": "output_contract"}


def program_diagnoses(findings: list[tuple[str, int, str]], failure: str | None,
                      detail: str, printed: bool) -> list[Diagnosis]:
    """Mistakes of the program itself: static findings ``(code, line, message)``, the scoring
    failure class (None: it ran and left a model) and whether it printed its
    ``OPTIMAL_OBJECTIVE`` line."""
    out = [Diagnosis(_STATIC.get(code, "code_error"), "program", None, None,
                     f"line {line}: {msg}", {"finding": code}) for code, line, msg in findings]
    if failure is not None:
        mistake = _FAILURE.get(failure)
        if mistake is None and failure.startswith("runtime:"):
            mistake = "code_error"
        if mistake is not None:
            out.append(Diagnosis(mistake, "program", None, None, detail or failure,
                                 {"failure": failure}))
    if not printed and failure is None:  # it ran to the end and printed no optimum
        out.append(Diagnosis("output_contract", "program", None, None,
                             "the program does not print OPTIMAL_OBJECTIVE: <value>",
                             {"finding": "no-print"}))
    return out
