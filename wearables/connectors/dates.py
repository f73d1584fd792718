"""Time helpers shared by the connectors: providers disagree on formats, we hand out aware UTC datetimes."""

from __future__ import annotations

from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo


def from_epoch_ms(value: object) -> datetime | None:
    """Epoch milliseconds (int, float or numeric string) as aware UTC, else None."""
    if value is None or isinstance(value, bool):
        return None
    try:
        millis = float(value)
    except (TypeError, ValueError):
        return None
    return datetime.fromtimestamp(millis / 1000.0, tz=UTC)


def local_day_bounds(local_date: date, tz: ZoneInfo) -> tuple[datetime, datetime]:
    """[local midnight, next local midnight) as aware datetimes in ``tz`` (23 or 25 hours long on DST days)."""
    start = datetime.combine(local_date, time.min, tzinfo=tz)
    end = datetime.combine(local_date + timedelta(days=1), time.min, tzinfo=tz)
    return start, end


def starts_on(moment: datetime, local_date: date, tz: ZoneInfo) -> bool:
    """Whether an aware ``moment`` falls on ``local_date`` in ``tz``; a 23:30 start stays on its local date."""
    return moment.astimezone(tz).date() == local_date
