"""Build days in the labeled-days format for the imitation servers (tests and the benchmark)."""

from __future__ import annotations

from datetime import datetime, timedelta


def iso(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%dT%H:%M:%S.") + f"{dt.microsecond // 1000:03d}Z"


def conversation(conv_id: str, start: datetime, lines: list[tuple[str, bool, str]], *, gap: float = 4.0) -> dict:
    """``lines``: (speaker label, is_wearer, text); ``start`` is an aware UTC datetime."""
    utterances, t = [], start
    for speaker, is_wearer, text in lines:
        end = t + timedelta(seconds=gap - 0.5)
        utterances.append({"speaker": speaker, "is_wearer": is_wearer, "start": iso(t), "end": iso(end), "text": text})
        t = t + timedelta(seconds=gap)
    return {"id": conv_id, "started_at": iso(start), "ended_at": iso(t), "utterances": utterances}


def day(local_date: str, timezone: str, recordings: dict[str, list[dict]], wearer: str = "Alice Example") -> dict:
    return {
        "date": local_date,
        "timezone": timezone,
        "wearer": wearer,
        "recordings": [{"source": s, "conversations": convs} for s, convs in recordings.items()],
    }
