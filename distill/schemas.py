from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema


class PolicyOut(Schema):
    source_key: str
    mode: str
    source_trust: float
    auto_approve_trust: float
    review_trust: float
    min_importance: str
    max_memories_per_day: int
    min_confidence: float
    native_mode: str
    updated_at: dt.datetime


class PolicyIn(Schema):
    mode: Literal["smart", "review", "auto", "off"] | None = None
    source_trust: float | None = Field(None, ge=0, le=1)
    auto_approve_trust: float | None = Field(None, ge=0, le=1)
    review_trust: float | None = Field(None, ge=0, le=1)
    min_importance: Literal["low", "normal", "high"] | None = None
    max_memories_per_day: int | None = Field(None, ge=0, le=10000)
    min_confidence: float | None = Field(None, ge=0, le=1)
    native_mode: Literal["smart", "review", "off"] | None = None
