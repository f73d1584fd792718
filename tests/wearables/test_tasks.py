"""Scheduled and queued sync tasks."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django_q.models import OrmQ

from memory_site.schedules import SCHEDULES
from tests.factories import SourceFactory
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services, tasks
from wearables.models import DayTranscript, SyncRun

pytestmark = pytest.mark.django_db


def test_schedules_are_declared():
    names = {s["name"]: s for s in SCHEDULES}
    assert names["wearables-sync-recent"]["minutes"] == 15
    assert names["wearables-deep-sync"]["func"] == "wearables.tasks.deep_sync_due"


def test_sync_recent_only_queues_enabled_sources_of_users_who_turned_the_feature_on(user, other_user):
    SourceFactory(owner=user, kind="limitless", enabled=True)
    SourceFactory(owner=user, kind="bee", enabled=False)
    SourceFactory(owner=other_user, kind="omi", enabled=True)  # feature still off for bob
    services.update_wearables_settings(owner=user, enabled=True)
    assert tasks.sync_recent() == 1
    assert OrmQ.objects.count() == 1


def test_nothing_is_queued_while_the_feature_is_off(user):
    SourceFactory(owner=user, kind="limitless", enabled=True)
    services.update_wearables_settings(owner=user, enabled=False)
    assert tasks.sync_recent() == 0


def test_sync_source_task_syncs_today_and_yesterday_in_the_users_timezone(user, serve):
    now = datetime.now(UTC).replace(microsecond=0)
    servers = serve(
        [
            day(
                now.date().isoformat(),
                "UTC",
                {
                    "omi": [
                        conversation(
                            "omi-1",
                            now.replace(hour=0, minute=5),
                            [("SPEAKER_00", True, "Morning notes about the garden plan.")],
                        )
                    ]
                },
            )
        ]
    )
    sources = connect(user, servers, "omi")
    assert tasks.sync_source(sources["omi"].pk) == "ok"
    run = SyncRun.objects.get()
    assert (run.window_end - run.window_start).days == 1 and run.trigger == "schedule"
    assert DayTranscript.objects.filter(owner=user).count() == 1


def test_sync_source_task_returns_quietly_for_a_missing_or_disabled_source(user):
    source = SourceFactory(owner=user, kind="bee", enabled=False)
    assert tasks.sync_source(source.pk) == "skipped"
    assert tasks.sync_source(999999) == "skipped"
