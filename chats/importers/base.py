"""Helpers shared by importers (pure)."""

from __future__ import annotations

from datetime import UTC, datetime


def parse_time(value) -> datetime | None:
    """ISO-8601 strings (with Z), or Unix seconds as int/float; None when unreadable."""
    if value is None or value == "":
        return None
    if isinstance(value, int | float):
        try:
            return datetime.fromtimestamp(float(value), tz=UTC)
        except (OverflowError, OSError, ValueError):
            return None
    try:
        dt = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=UTC)
