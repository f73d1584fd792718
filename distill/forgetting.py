"""How the gate's stored text joins a forget (``ledger.forget.coverage``): kept candidates are dropped whole by
``distill.stored_extraction.forget_for_owner`` (the next pass parses the redacted talk again); claims, review
examples and the owner's adjustment hold keys and hashes, and review patterns are redacted in place."""

from __future__ import annotations

from ledger.forget.coverage import declare

SETTING = "the owner's gate settings"
KEY = "a source, scope or day key, or a hash"
VOCAB = "a vocabulary value (family, decision, subject type)"

declare(
    "distill.GatePolicy",
    exempt={"source_key": KEY, "mode": SETTING, "min_importance": SETTING, "native_mode": SETTING},
)
declare(
    "distill.Claim",
    exempt={"source_key": KEY, "scope_key": KEY, "day_key": KEY, "claim_hash": KEY, "origin": VOCAB},
)
declare(
    "distill.ReviewExample",
    redacted=("pattern",),
    exempt={"decision": VOCAB, "family": VOCAB, "subject_type": VOCAB, "source_key": KEY},
)
declare(
    "distill.OwnerAdjustment",
    redacted=("families",),
    exempt={"status": VOCAB, "offsets": "numbers keyed by family", "reason": "the fitter's message"},
)
declare(
    "distill.StoredExtraction",
    scrubbed={"candidates": "distill.stored_extraction.forget_for_owner: dropped", "warnings": "dropped with them"},
    exempt={"scope_key": KEY, "input_hash": KEY, "extractor": VOCAB, "extractor_version": VOCAB},
)
