"""Ledger API schemas."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ninja import Schema
from pydantic import Field

from accounts.schemas import schema_from
from ledger.queries import RefusalEvent


class FactOut(Schema):
    id: str
    content: str
    status: str
    status_reason: str = ""
    permitted_uses: list[str]
    disclaimers: list[str]
    subject: str
    subject_entity: str | None = None
    subject_name: str = ""
    predicate: str = ""
    arguments: dict = {}
    importance: str
    tags: list[str] = []
    source_label: str = ""
    capture_confidence: float
    capture_band: str
    veracity: float
    veracity_band: str
    uncertainty_reasons: list[str] = []
    previously_rejected: bool = False
    valid_from: datetime | None = None
    valid_to: datetime | None = None
    recorded_at: datetime
    retired_at: datetime | None = None
    superseded_by: str | None = None
    supersedes: str | None = None
    version: int | None = None


class EvidenceOut(Schema):
    id: str
    source_type: str
    source_ref: dict
    source_label: str
    quote: str
    extractor_id: str
    extractor_version: str
    capture_confidence: float
    observed_at: datetime | None = None
    details: dict
    recorded_at: datetime
    tombstoned_at: datetime | None = None
    tombstone_reason: str = ""


class CommitOut(Schema):
    commit_id: str
    parent_commit_id: str
    seq: int
    author: str
    author_label: str
    committed_at: datetime
    mutation_types: list[str]


class FactDetailOut(FactOut):
    evidence: list[EvidenceOut]
    history: list[CommitOut]


class FactListOut(Schema):
    count: int
    items: list[FactOut]


class EntityOut(Schema):
    id: str
    kind: str
    name: str
    aliases: list[str]
    merged_into: str | None = None
    fact_count: int = 0


class CommitIn(Schema):
    expected_head: str | None = Field(None, description="The head you built on; '' for an empty chain")
    mutations: list[dict[str, Any]]
    author: str = "user"
    author_label: str = ""


class CommitResultOut(Schema):
    commit_id: str
    seq: int
    applied: bool
    created_ids: list[str | None]


class HeadConflictOut(Schema):
    detail: str
    expected: str
    current: str


class HeadOut(Schema):
    head: str
    length: int


class VerifyOut(Schema):
    ok: bool
    length: int
    head: str
    first_bad_seq: int | None = None
    first_bad_commit_id: str = ""
    problem: str = ""


class DecisionIn(Schema):
    status: str
    reason: str = ""


class IdentityIn(Schema):
    key: str = Field(..., min_length=1, max_length=100)
    value: str = Field(..., min_length=1)


class IdentityOut(Schema):
    key: str
    value: str
    updated_at: datetime


class RefusalOut(Schema):
    id: str
    kind: str
    decision_commit_id: str
    fact_id: str | None = None
    recorded_at: datetime
    lifted_at: datetime | None = None
    hit_count: int = 0
    url: str


class RefusalListOut(Schema):
    count: int
    refused_since: int = Field(0, description="Claims this refusal list kept out since `since` (default 7 days)")
    items: list[RefusalOut]


RefusalEventOut = schema_from(RefusalEvent, "RefusalEventOut")


class LiftIn(Schema):
    reason: str = Field("", max_length=200)


class ForgetOut(Schema):
    commit_id: str
    facts: int = 0
    evidence: int = 0
    entities: int = 0
    episodes: int = 0
    copies: dict[str, int] = {}
    verify_ok: bool


class LedgerSourceOut(Schema):
    id: str
    label: str
    facts: int
    evidence: int
