"""A user's screen memory survives ``manage.py export`` → ``manage.py import`` into an empty instance: the source
settings, cursor and preferences, signals, and a day's events with their assertions, revisions, evidence and
notes come back with the same ids; the restored ledger still verifies with the same projection."""

from __future__ import annotations

import io
import json
import zipfile

import pytest
from django.contrib.auth import get_user_model
from django.core.management import call_command

from ledger import chain
from ledger.models import Commit
from screen import demo, queries
from screen.models import (
    Assertion,
    DayNote,
    EventEvidence,
    EventRevision,
    ScreenEvent,
    ScreenSource,
    Signal,
)

pytestmark = pytest.mark.django_db


def _screen(user) -> dict:
    source = ScreenSource.objects.get(owner=user)
    return {
        "source": (source.cursor_at, source.cursor_key, source.state, source.preferences, source.backfill_days),
        "signals": list(Signal.objects.filter(owner=user).order_by("pk").values_list("pk", "key", "processed")),
        "events": list(ScreenEvent.objects.filter(owner=user).order_by("pk").values_list("pk", "key", "status")),
        "assertions": Assertion.objects.filter(owner=user).count(),
        "revisions": EventRevision.objects.filter(owner=user).count(),
        "evidence": list(EventEvidence.objects.filter(owner=user).order_by("pk").values_list("event_id", "excerpt")),
        "notes": list(
            DayNote.objects.filter(owner=user).order_by("local_date").values_list("local_date", "lines", "rollup")
        ),
    }


def test_a_screen_day_round_trips_through_export_and_import(user, tmp_path):
    handles = demo.start(user=user, first_run=True, stdout=io.StringIO())
    for h in handles:
        h.stop()
    before = _screen(user)
    assert before["events"] and before["signals"] and before["evidence"] and before["source"][3]
    day = ScreenEvent.objects.filter(owner=user, event_type="game.match").first().local_date
    timeline = queries.events_timeline(user, day)
    assert timeline["events"]
    digest = chain.rebuild(user, write=False).digest

    path = tmp_path / "alice.zip"
    call_command("export", "alice", str(path))
    with zipfile.ZipFile(path) as archive:
        rows = json.loads(archive.read("manifest.json"))["rows"]
    assert rows["screen.ScreenEvent"] == len(before["events"]) and rows["screen.Signal"] == len(before["signals"])

    get_user_model().objects.filter(pk=user.pk).delete()  # an empty instance
    assert not ScreenEvent.objects.exists() and not Commit.objects.exists()
    out = io.StringIO()
    call_command("import", str(path), stdout=out)
    restored = get_user_model().objects.get(username="alice")
    assert "ledger verify: ok" in out.getvalue()
    assert chain.verify(restored).ok
    assert chain.rebuild(restored, write=False).digest == digest
    assert _screen(restored) == before
    assert queries.events_timeline(restored, day) == timeline
