"""A scope's talk is parsed once: the deterministic extractor's candidates are kept per (owner, scope) with a
hash of the input they came from, so a pass over unchanged talk (a sibling device's new day re-scoring this
one, a gate-policy change) only re-scores them: cross-check, model, decision and gates run again, the parse
does not. Any change to the talk, the owner's name, the extractor's version or the English model's changes the
hash and parses anew.

With an LLM configured the extractor is not a pure function of the input, so nothing is kept here; its own
answer cache (``ledger.llm``) spares the repeated calls instead.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from django.utils import timezone

from distill.extraction import nlp
from distill.extraction.base import Candidate, DayInput, ExtractionResult
from distill.extraction.deterministic import DeterministicExtractor
from distill.extraction.llm import CALL
from distill.models import StoredExtraction
from ledger import llm

_KEPT_FIELDS = ["input_hash", "extractor", "extractor_version", "candidates", "warnings", "updated_at"]


def input_hash(day: DayInput) -> str:
    payload = json.dumps(asdict(day), sort_keys=True, default=str)
    version = f"{DeterministicExtractor.ID}@{DeterministicExtractor.VERSION} {nlp.MODEL_PACKAGE}@{nlp.MODEL_VERSION}"
    return hashlib.sha256(f"{version}\n{payload}".encode()).hexdigest()


class Store:
    """The kept candidates of one (owner, scope): what the candidates step (``distill.steps.candidates``) asks
    before parsing, and where it keeps a fresh parse."""

    def __init__(self, owner, scope_key: str):
        self.owner, self.scope_key = owner, scope_key

    def load(self, day: DayInput) -> ExtractionResult | None:
        """The candidates kept for exactly this input (None: never parsed, changed since, or an LLM configured)."""
        if llm.llm_configured(CALL):
            return None
        stored = (
            StoredExtraction.objects.owned_by(self.owner)
            .filter(scope_key=self.scope_key, input_hash=input_hash(day))
            .first()
        )
        if stored is None:
            return None
        return ExtractionResult(
            candidates=[Candidate.from_dict(c) for c in stored.candidates],
            warnings=list(stored.warnings),
            extractor=stored.extractor,
            extractor_version=stored.extractor_version,
        )

    def keep(self, day: DayInput, result: ExtractionResult) -> None:
        if llm.llm_configured(CALL):
            return
        row = StoredExtraction(
            owner=self.owner,
            scope_key=self.scope_key,
            input_hash=input_hash(day),
            extractor=result.extractor,
            extractor_version=result.extractor_version,
            candidates=[c.as_dict() for c in result.candidates],
            warnings=list(result.warnings),
            updated_at=timezone.now(),
        )
        # One row per scope; two workers parsing the same scope at once both end with the newer input's row.
        StoredExtraction.objects.bulk_create(
            [row], update_conflicts=True, unique_fields=["owner", "scope_key"], update_fields=_KEPT_FIELDS
        )


def forget_for_owner(event) -> dict:
    """Forget handler: a forgotten person's or source's words may sit in kept candidates; drop the owner's
    kept extractions (the next pass parses the redacted talk again)."""
    deleted, _ = StoredExtraction.objects.owned_by(event.owner).delete()
    return {"stored_extractions_removed": deleted} if deleted else {}
