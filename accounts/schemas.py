"""Schemas shared by every router: the one error body, and the owner's settings."""

from __future__ import annotations

from typing import Annotated

from ninja import Schema
from pydantic import Field

# Paging bounds shared by every list route: a deeper offset is refused (422), never passed to SQL.
MAX_OFFSET = 10_000
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET, description=f"rows to skip, 0..{MAX_OFFSET}")]


def limit_type(maximum: int = 100):
    """``limit: limit_type(500) = 50``: a page size from 1 to ``maximum``."""
    return Annotated[int, Field(ge=1, le=maximum, description=f"page size, 1..{maximum}")]


class ErrorOut(Schema):
    detail: str


class SettingsOut(Schema):
    username: str
    display_name: str
    timezone: str


class SettingsIn(Schema):
    display_name: str | None = None
    timezone: str | None = None
