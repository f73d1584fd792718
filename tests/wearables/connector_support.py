"""Helpers for the connector and imitation-server tests: compact labeled-days builders and a sleep recorder."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from wearables.connectors import CREDENTIAL_ENV


def stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def conversation(
    cid: str, start: datetime, lines: int = 4, *, source: str = "limitless", wearer_first: bool = True
) -> dict:
    """A labeled-days conversation of ``lines`` alternating utterances, 5 s apart, labels in ``source``'s style."""
    labels = {"limitless": ("user", "Unknown"), "bee": ("0", "1"), "omi": ("SPEAKER_00", "SPEAKER_01")}[source]
    if not wearer_first and source != "limitless":
        labels = (labels[1], labels[0])
    utterances = []
    for i in range(lines):
        wearer = i % 2 == 0
        begin = start + timedelta(seconds=5 * i)
        utterances.append(
            {
                "speaker": labels[0] if wearer else labels[1],
                "is_wearer": wearer,
                "start": stamp(begin),
                "end": stamp(begin + timedelta(seconds=4)),
                "text": f"{cid} line {i}",
            }
        )
    return {
        "id": cid,
        "started_at": stamp(start),
        "ended_at": stamp(start + timedelta(seconds=5 * lines)),
        "utterances": utterances,
    }


def day(local_date: str, timezone: str, source: str, conversations: list[dict]) -> dict:
    return {
        "date": local_date,
        "timezone": timezone,
        "wearer": "Test Wearer",
        "recordings": [{"source": source, "conversations": conversations}],
    }


def many(source: str, count: int, start: datetime, *, lines: int = 3, prefix: str = "c") -> list[dict]:
    """``count`` conversations one minute apart starting at ``start`` (aware)."""
    return [conversation(f"{prefix}{i:03d}", start + timedelta(minutes=i), lines, source=source) for i in range(count)]


class Sleeps(list):
    """A ``sleep`` replacement that records the delays instead of waiting."""

    def __call__(self, seconds: float) -> None:
        self.append(seconds)


@pytest.fixture(autouse=True)
def no_credential_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Keys a developer has exported must not leak into tests that build connectors."""
    for fields in CREDENTIAL_ENV.values():
        for names in fields.values():
            for name in names:
                monkeypatch.delenv(name, raising=False)
    for kind in ("LIMITLESS", "BEE", "OMI"):
        monkeypatch.delenv(f"ALMANAC_{kind}_BASE_URL", raising=False)
