from __future__ import annotations

from typing import Literal

from ninja import Field, Schema

from ledger.recall.planner import BUDGET_DEFAULT, BUDGET_MAX, BUDGET_MIN

ScopeName = Literal["auto", "pinned", "episodes", "transcript", "events", "facts", "all"]
SearchScope = Literal["pinned", "episodes", "transcript", "events", "facts", "all"]


class RecallIn(Schema):
    query: str = Field(..., min_length=1, max_length=2000)
    budget_tokens: int | None = Field(BUDGET_DEFAULT, ge=BUDGET_MIN, le=BUDGET_MAX, description="null = 800")
    scope: ScopeName | None = Field(None, description="Force a section instead of the gate's choice")


class GateOut(Schema):
    route: str
    reason: str
    method: str
    entities: list[str]


class RecallItemOut(Schema):
    id: str
    kind: str
    text: str
    score: float
    permitted_uses: list[str]
    disclaimers: list[str]
    source_ref: str


class RecallOut(Schema):
    gate: GateOut
    block: str
    items: list[RecallItemOut]
    tokens: int
    budget_tokens: int
    latency_ms: float


class SearchFilter(Schema):
    q: str = Field(..., min_length=1, max_length=2000)
    scope: SearchScope = "all"
    limit: int = Field(10, ge=1, le=50)


class SearchOut(Schema):
    query: str
    scope: str
    items: list[RecallItemOut]


class ConsolidationOut(Schema):
    status: str
    counts: dict
    started_at: str
    finished_at: str | None
