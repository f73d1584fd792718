from __future__ import annotations

from typing import Literal

from ninja import Schema


class EvidenceOut(Schema):
    quote: str
    source_type: str
    source_label: str
    url: str
    observed_at: str | None


class ReviewItemOut(Schema):
    id: str
    content: str
    status: str
    subject: str
    subject_name: str
    importance: str
    veracity: float
    capture_confidence: float
    trust_score: float | None
    trust_components: dict
    band: str
    previously_rejected: bool
    disclaimers: list[str]
    permitted_uses: list[str]
    source_label: str
    evidence: list[EvidenceOut]


class ReviewQueueOut(Schema):
    count: int
    items: list[ReviewItemOut]


class DecisionIn(Schema):
    decision: Literal["accept", "reject"]
    content: str | None = None
    reason: str = ""
