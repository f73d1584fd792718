"""Re-syncing unchanged provider data writes nothing, for every provider, whatever order the sources synced in.

Names and sentences are not from the development data.
"""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from ledger.models import Commit, Fact
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services
from wearables.models import DayTranscript
from wearables.services.memories import run_memory_pass

pytestmark = pytest.mark.django_db

DAY = date(2026, 7, 21)
START = datetime(2026, 7, 21, 9, 30, tzinfo=UTC)
LINES = [
    ("Rafael", False, "Morning Alice, did the ferry timetable change again this week?"),
    ("user", True, "It did, the first ferry now leaves at six forty instead of six."),
    ("Rafael", False, "Then I will pick you up at the pier at six thirty."),
    ("user", True, "Perfect, and I am bringing the spare oars for the rowing club."),
    ("Rafael", False, "Great, the regatta committee meets on Thursday evening."),
]


def _day(*kinds):
    return day(DAY.isoformat(), "UTC", {k: [conversation(f"{k}-1", START, LINES)] for k in kinds})


def _state(user):
    return (
        sorted(DayTranscript.objects.filter(owner=user).values_list("source__kind", "content_hash", "updated_at")),
        Commit.objects.filter(owner=user).count(),
        Fact.objects.filter(owner=user).count(),
    )


def _passes(user):
    for t in DayTranscript.objects.filter(owner=user).select_related("source"):
        run_memory_pass(transcript=t)


@pytest.mark.parametrize("kind", ["limitless", "omi", "bee"])
def test_unchanged_resync_writes_nothing_for_each_provider(user, serve, kind):
    servers = serve([_day(kind)])
    connect(user, servers, kind)
    first = services.sync(owner=user, source=kind, dates=[DAY])
    assert first.days_changed == 1
    _passes(user)
    before = _state(user)
    again = services.sync(owner=user, source=kind, dates=[DAY])
    _passes(user)
    assert again.days_changed == 0
    assert _state(user) == before


@pytest.mark.parametrize("order", [("bee", "limitless"), ("limitless", "bee")])
def test_bee_found_from_another_device_does_not_depend_on_which_source_synced_first(user, serve, order):
    servers = serve([_day("limitless", "bee")])
    connect(user, servers, "limitless", "bee")
    for kind in order:
        services.sync(owner=user, source=kind, dates=[DAY])
    bee = DayTranscript.objects.get(owner=user, source__kind="bee")
    assert bee.conversations.get().wearer_method == "other_device"
    _passes(user)
    before = _state(user)
    for kind in ("bee", "limitless", "bee"):
        assert services.sync(owner=user, source=kind, dates=[DAY]).days_changed == 0, kind
    _passes(user)
    assert _state(user) == before
