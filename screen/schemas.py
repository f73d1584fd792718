"""JSON shapes of the screen API (``/api/v1/screen/``)."""

from __future__ import annotations

from datetime import datetime
from uuid import UUID

from ninja import Field, Schema


class ScreenSourceOut(Schema):
    enabled: bool
    base_url: str
    effective_url: str
    backfill_days: int
    frame_budget: int
    cursor_at: datetime | None
    last_collect_at: datetime | None
    last_error: str
    gaps: int
    missing_frames: int
    restarts: int
    preferences: list[dict]


class ScreenSourceIn(Schema):
    enabled: bool | None = None
    base_url: str | None = Field(None, max_length=300)
    backfill_days: int | None = None
    frame_budget: int | None = None
    preferences: list[str] | None = Field(
        None, description="Replaces the preference phrases, e.g. 'track all ranked matches'"
    )


class ScreenEvidenceOut(Schema):
    role: str
    occurred_at: datetime
    frame_id: int | None
    excerpt: str
    app_name: str
    window_name: str
    image_url: str | None = None


class AssertionOut(Schema):
    text: str
    confidence: float
    content_role: str
    evidence: list[dict]


class RevisionOut(Schema):
    number: int
    status: str
    reason: str
    author: str
    created_at: datetime
    snapshot: dict


class EventOut(Schema):
    id: UUID
    type: str
    title: str
    summary: str
    outcome: str
    family: str  # the activity family (``travel.check_in``); the event type is the family
    polarity: str  # positive | negative | neutral | mixed | "" (no outcome yet)
    outcome_subject: str  # contests: "you" | "other"
    status: str
    started_at: datetime
    ended_at: datetime | None
    local_date: str
    entities: list
    attributes: dict
    user_actions: list
    confidence: float
    sensitivity: str
    durability: str
    important: bool | None
    revision: int
    related_events: list
    related_conversations: list
    proposer: str
    created_at: datetime
    revised_at: datetime


class EventDetailOut(EventOut):
    assertions: list[AssertionOut]
    evidence: list[ScreenEvidenceOut]
    revisions: list[RevisionOut]


class CorrectIn(Schema):
    action: str = Field(..., description="rename | important | unimportant | reject | confirm")
    title: str = Field("", max_length=200)


class SignalStatsOut(Schema):
    total: int
    unprocessed: int
    by_kind: dict[str, int]
    events: int
    frames_fetched: int


class CollectOut(Schema):
    status: str
    items: int
    signals: int
    events_created: int
    events_revised: int
    frames_fetched: int
    gaps: int
    error: str
    curated: int = 0
