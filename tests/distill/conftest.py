"""Fixtures for memory tests: a day transcript built from (speaker, is_wearer, text) turns."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from wearables.models import Conversation, DayTranscript, Source, Utterance
from wearables.services.sources import update_source

DAY = date(2026, 3, 2)
T0 = datetime(2026, 3, 2, 15, 0, tzinfo=UTC)


def build_day(owner, kind: str, turns, *, local_date=DAY, start=T0, conversation_id="c1", **source_settings):
    """Store one day transcript (one conversation) the way sync would, after the transcript pipeline."""
    source, _ = Source.objects.get_or_create(owner=owner, kind=kind, defaults={"enabled": True})
    if source_settings:
        # The Sources page's names for the device's gate policy (memory_mode -> mode, ...).
        update_source(owner=owner, kind=kind, **source_settings)
    transcript, _ = DayTranscript.objects.update_or_create(
        owner=owner,
        source=source,
        local_date=local_date,
        defaults={
            "timezone": "UTC",
            "content_hash": str(hash(tuple(turns))),
            "markdown": "",
            "utterance_count": len(turns),
            "conversation_count": 1,
        },
    )
    transcript.utterances.all().delete()
    transcript.conversations.all().delete()
    conv = Conversation.objects.create(
        owner=owner,
        transcript=transcript,
        external_id=conversation_id,
        started_at=start,
        ended_at=start + timedelta(minutes=10),
        title="",
    )
    for i, (speaker, is_wearer, text) in enumerate(turns):
        Utterance.objects.create(
            owner=owner,
            transcript=transcript,
            conversation=conv,
            index=i,
            speaker_label=speaker,
            speaker_name=speaker,
            is_wearer=is_wearer,
            text=text,
            started_at=start + timedelta(seconds=10 * i),
        )
    return transcript


@pytest.fixture
def make_day(user):
    """Build a day transcript for ``user``: make_day(kind, turns, **source_settings)."""
    return lambda kind, turns, **kw: build_day(user, kind, turns, **kw)
