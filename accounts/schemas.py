"""Schemas shared by every router: the one error body, the owner's settings, and schemas made from results."""

from __future__ import annotations

import dataclasses
import datetime as dt
import re
import typing
from typing import Annotated

from ninja import Schema
from pydantic import BeforeValidator, Field, create_model

# Paging bounds shared by every list route: a deeper offset is refused (422), never passed to SQL.
MAX_OFFSET = 10_000
Offset = Annotated[int, Field(ge=0, le=MAX_OFFSET, description=f"rows to skip, 0..{MAX_OFFSET}")]


def limit_type(maximum: int = 100):
    """``limit: limit_type(500) = 50``: a page size from 1 to ``maximum``."""
    return Annotated[int, Field(ge=1, le=maximum, description=f"page size, 1..{maximum}")]


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def _iso_only(value):
    """A date or time comes as ISO 8601 text. pydantic would also read a number as seconds since 1970, so
    ``valid_at=0.5`` meant 1970-01-01T00:00:00.5 and was answered as if asked (found by bench/fuzz.py)."""
    if isinstance(value, bool | int | float) or (isinstance(value, str) and _NUMBER.fullmatch(value.strip())):
        raise ValueError("expected an ISO 8601 date or time (YYYY-MM-DD, YYYY-MM-DDTHH:MM:SS+00:00), not a number")
    return value


# Every date and date-time an API client sends (query parameters and bodies) is one of these.
IsoDate = Annotated[dt.date, BeforeValidator(_iso_only)]
IsoDateTime = Annotated[dt.datetime, BeforeValidator(_iso_only)]


class ErrorOut(Schema):
    detail: str


class SettingsOut(Schema):
    username: str
    display_name: str
    timezone: str


class SettingsIn(Schema):
    display_name: str | None = None
    timezone: str | None = None


def schema_from(result: type, name: str) -> type[Schema]:
    """A ninja ``Schema`` called ``name`` with the fields of the dataclass ``result`` (same names, types, order
    and defaults), so a query's result is declared once and the API answers with exactly its fields."""
    hints = typing.get_type_hints(result)
    fields: dict[str, typing.Any] = {}
    for f in dataclasses.fields(result):
        if f.default is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], f.default)
        elif f.default_factory is not dataclasses.MISSING:
            fields[f.name] = (hints[f.name], Field(default_factory=f.default_factory))
        else:
            fields[f.name] = (hints[f.name], ...)
    return create_model(name, __base__=Schema, __module__=result.__module__, **fields)
