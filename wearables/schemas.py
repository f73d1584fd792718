from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema

from accounts.schemas import IsoDate
from distill.schemas import GateMode, GateThresholdsIn, GateThresholdsOut, NativeMode


class SourceOut(GateThresholdsOut):
    kind: str
    enabled: bool
    base_url: str
    has_credentials: bool
    credential_fields: list[str] = Field(description="Names of stored credential fields; values are never returned")
    memory_mode: str
    import_native_memories: str
    last_check_ok: bool | None
    last_check_message: str
    last_checked_at: dt.datetime | None


class _SourceConnectionIn(Schema):
    enabled: bool | None = None
    credentials: dict[str, str | None] | None = Field(None, description="Write-only; an empty value clears a field")
    base_url: str | None = Field(None, max_length=500)
    memory_mode: GateMode | None = None


class SourceIn(GateThresholdsIn, _SourceConnectionIn):
    # The gate-policy fields come from distill (declared once). pydantic lists inherited fields from the last base
    # to the first, so the documented order stays: connection, memory_mode, the thresholds, import_native_memories.
    import_native_memories: NativeMode | None = None


class WearablesSettingsOut(Schema):
    enabled: bool
    export_markdown: bool
    off_the_record: bool
    off_phrases: list[str]
    on_phrases: list[str]


class WearablesSettingsIn(Schema):
    enabled: bool | None = None
    export_markdown: bool | None = None
    off_the_record: bool | None = None
    off_phrases: list[str] | None = None
    on_phrases: list[str] | None = None


class SyncRunOut(Schema):
    source: str
    status: str
    trigger: str
    window_start: dt.date
    window_end: dt.date
    pages: int
    conversations: int
    utterances: int
    days_changed: int
    duration_ms: int
    warnings: list[str]
    errors: list[str]
    started_at: dt.datetime
    finished_at: dt.datetime | None


class SourceStatusOut(Schema):
    kind: str
    enabled: bool
    days: int
    latest_day: dt.date | None
    last_run: SyncRunOut | None


class StatusOut(Schema):
    enabled: bool
    timezone: str
    sources: list[SourceStatusOut]


class SyncIn(Schema):
    source: str | None = None
    date: IsoDate | None = None
    days: int = Field(2, ge=1, le=366)
    force_memories: bool = False


class UtteranceOut(Schema):
    index: int
    speaker: str
    speaker_label: str
    is_wearer: bool
    text: str
    started_at: dt.datetime | None


class ConversationOut(Schema):
    id: str
    external_id: str
    started_at: dt.datetime
    ended_at: dt.datetime | None
    title: str
    wearer_label: str
    wearer_method: str
    wearer_confidence: float
    also_recorded_by: list[str]
    utterances: list[UtteranceOut]


class TranscriptOut(Schema):
    source: str
    date: dt.date
    timezone: str
    content_hash: str
    conversation_count: int
    utterance_count: int
    updated_at: dt.datetime
    markdown: str
    conversations: list[ConversationOut]


class SearchHitOut(Schema):
    date: dt.date
    source: str
    conversation: str
    index: int
    speaker: str
    is_wearer: bool
    text: str
    snippet: str = Field(description="HTML-escaped text with <mark> around matches")
    started_at: str | None
    url: str


class TranscriptSearchOut(Schema):
    query: str
    mode: Literal["indexed", "scan"]
    hits: list[SearchHitOut]


class CorrectionIn(Schema):
    wrong: str = Field(..., min_length=1, max_length=200)
    right: str = Field(..., min_length=1, max_length=200)
    source: str | None = None


class CorrectionOut(Schema):
    id: int
    wrong: str
    right: str
    source: str | None


class RedactionRuleIn(Schema):
    pattern: str = Field(..., min_length=1, max_length=500)
    description: str = ""


class RedactionRuleOut(Schema):
    id: int
    pattern: str
    description: str


class SpeakerIn(Schema):
    label: str = Field(..., min_length=1, max_length=200)
    name: str = ""
    is_self: bool = False
