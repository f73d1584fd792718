"""One ISO-8601 reader for every app: providers, importers and the ledger's own records disagree on ``Z``,
offsets and naive stamps; this hands back aware datetimes (naive means UTC)."""

from __future__ import annotations

from datetime import UTC, datetime
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


def parse_iso(value: str) -> datetime:
    """An ISO-8601 string as an aware datetime in its own offset (naive → UTC). Raises ``ValueError``."""
    text = value.strip()
    if text.endswith("z"):  # fromisoformat takes "Z" since 3.11, not the lower-case form some providers send
        text = text[:-1] + "Z"
    parsed = datetime.fromisoformat(text)
    return parsed if parsed.tzinfo is not None else parsed.replace(tzinfo=UTC)


def parse_iso_utc(value: object) -> datetime | None:
    """Lenient: a string as aware UTC, or None for anything blank, not a string, or not ISO-8601."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        return parse_iso(value).astimezone(UTC)
    except ValueError:
        return None


def zone_or_utc(name: str | None) -> ZoneInfo:
    """The named time zone, or UTC for a blank or unknown name (a stored setting or a provider's field may name a
    zone this machine's tz database lacks: dates then fall back to UTC rather than failing)."""
    try:
        return ZoneInfo(name or "UTC")
    except (ValueError, ZoneInfoNotFoundError):
        return ZoneInfo("UTC")
