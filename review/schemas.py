from __future__ import annotations

from typing import Literal

from ninja import Schema

from accounts.schemas import IsoDate, schema_from
from review.queries import Stats


class ReviewEvidenceOut(Schema):
    quote: str
    source_type: str
    source_label: str
    url: str
    observed_at: str | None


class HeldOut(Schema):
    id: str
    content: str
    status: str
    evidence: list[ReviewEvidenceOut]


class ReviewItemOut(Schema):
    id: str
    content: str
    status: str
    band: str
    zone: str
    priority: float
    subject: str
    subject_name: str
    importance: str
    veracity: float
    capture_confidence: float
    trust_score: float | None
    trust_components: dict
    trust_in_words: list[str]
    why: list[str]
    previously_rejected: bool
    disclaimers: list[str]
    permitted_uses: list[str]
    permitted_uses_if_accepted: list[str]
    source_label: str
    evidence: list[ReviewEvidenceOut]
    conflict_with: HeldOut | None = None


class ReviewQueueOut(Schema):
    count: int
    band: str
    items: list[ReviewItemOut]
    next_cursor: str | None = None


class QueueFilter(Schema):
    band: str = "queue"
    source: str | None = None
    subject: str | None = None
    cursor: str | None = None
    limit: int = 50
    include_held_back: bool = False


class DecideIn(Schema):
    item: str
    action: str
    edit: str | None = None
    subject: str | None = None
    merge_into: str | None = None
    snooze_until: IsoDate | None = None


class DecideOut(Schema):
    action: str
    action_id: str
    item: ReviewItemOut


class UndoOut(Schema):
    undone: int
    items: list[str]


class BulkIn(Schema):
    band: str
    action: str
    expected: int
    source: str | None = None
    subject: str | None = None


class BulkOut(Schema):
    decided: int


StatsOut = schema_from(Stats, "StatsOut")


class ReviewDecisionIn(Schema):
    """The first API's decision body (kept for existing clients)."""

    decision: Literal["accept", "reject"]
    content: str | None = None
    reason: str = ""


class LearnedRuleOut(Schema):
    key: str
    pattern: str
    decisions: int
    accepted: int
    offset: float
    effect: str
    sentence: str


class LearnedOut(Schema):
    """What the gate has learned from this owner's decisions (``distill.learning.learned``)."""

    status: str
    examples: int
    floor: int
    decided_since_refit: int
    reason: str
    version: int
    fitted_at: str | None
    shipped_precision: float | None
    adjusted_precision: float | None
    rules: list[LearnedRuleOut]
