from __future__ import annotations

import datetime as dt
from typing import Literal

from ninja import Field, Schema

from distill.models import MinImportance


class GateThresholdsOut(Schema):
    """A gate policy's thresholds, as every API that shows a source's policy returns them."""

    source_trust: float
    auto_approve_trust: float
    review_trust: float
    min_importance: str
    max_memories_per_day: int
    min_confidence: float


class PolicyOut(GateThresholdsOut):
    source_key: str
    mode: str
    native_mode: str
    updated_at: dt.datetime


# The gate policy's input fields, declared once for every API that edits a source's policy: this app's
# ``PolicyIn`` and wearables' ``SourceIn`` (which names the two modes its own way: memory_mode,
# import_native_memories).
GateMode = Literal["smart", "review", "auto", "off"]
NativeMode = Literal["smart", "review", "off"]


class GateThresholdsIn(Schema):
    """The thresholds of a gate policy; every field optional (only what is sent changes)."""

    source_trust: float | None = Field(None, ge=0, le=1)
    auto_approve_trust: float | None = Field(None, ge=0, le=1)
    review_trust: float | None = Field(None, ge=0, le=1)
    min_importance: Literal[tuple(MinImportance.values)] | None = None
    max_memories_per_day: int | None = Field(None, ge=0, le=10000)
    min_confidence: float | None = Field(None, ge=0, le=1)


class _PolicyModeIn(Schema):
    mode: GateMode | None = None


class PolicyIn(GateThresholdsIn, _PolicyModeIn):
    # pydantic lists inherited fields from the last base to the first, so the documented order stays: mode, the
    # thresholds, native_mode.
    native_mode: NativeMode | None = None
