"""Structural equivalence of two models, as a library: ``check_equivalence``, ``check_certificate``.

The package holds the check (``check``), its prepared sides (``sides``), row matching
(``rowmatch``), the graph search (``isomorphism``), range encodings (``encodings``), the batch
job over pairs (``pairs``) and the labelled suite (``suite``). Until the re-housing this was
one module, ``ortrex.verifiers.equivalence``; its public names are still importable from here.
"""

from ortrex.verifiers.equivalence.check import (
    EQUIVALENT,
    NOT_EQUIVALENT,
    UNDECIDED,
    VERDICTS,
    Certificate,
    EquivalenceResult,
    as_model,
    check_certificate,
    check_equivalence,
)

__all__ = ["EQUIVALENT", "NOT_EQUIVALENT", "UNDECIDED", "VERDICTS", "Certificate",
           "EquivalenceResult", "as_model", "check_certificate", "check_equivalence"]
