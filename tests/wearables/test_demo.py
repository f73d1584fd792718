"""The demo hook used by ``make up``."""

from __future__ import annotations

from io import StringIO

import pytest

from accounts.services import ensure_user
from wearables import demo
from wearables.models import Conversation, DayTranscript, Source

pytestmark = pytest.mark.django_db


def test_demo_start_configures_sources_and_syncs_a_week_on_first_run():
    user, _ = ensure_user(
        username="demo", password="almanac-demo", display_name="Dana Whitfield", timezone_name="America/Denver"
    )
    handles = demo.start(user=user, first_run=True, stdout=StringIO())
    try:
        assert {s.kind for s in Source.objects.filter(owner=user, enabled=True)} == {"limitless", "bee", "omi"}
        assert DayTranscript.objects.filter(owner=user).values("local_date").distinct().count() >= 7
        # The demo week has one conversation recorded by two devices.
        convs = list(Conversation.objects.filter(owner=user).select_related("transcript__source"))
        pairs = [
            (a, b)
            for a in convs
            for b in convs
            if a.transcript.source_id < b.transcript.source_id
            and abs((a.started_at - b.started_at).total_seconds()) < 120
        ]
        assert pairs
    finally:
        for h in handles:
            h.stop()
