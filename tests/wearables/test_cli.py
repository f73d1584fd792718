"""manage.py wearables, through call_command."""

from __future__ import annotations

from datetime import UTC, datetime
from io import StringIO

import pytest
from django.core.management import CommandError, call_command

from tests.factories import UserFactory
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables.models import Correction, Person, SpeakerIdentity

pytestmark = pytest.mark.django_db

LINES = [
    ("Marcus", False, "Did you book the flight to Atlanta for August?"),
    ("user", True, "I booked it last night, August seventh through the tenth."),
]


def run(*args) -> str:
    out = StringIO()
    call_command("wearables", *args, stdout=out, stderr=StringIO())
    return out.getvalue()


@pytest.fixture
def synced(user, serve, django_capture_on_commit_callbacks):
    servers = serve(
        [day("2026-06-10", "UTC", {"limitless": [conversation("ll-1", datetime(2026, 6, 10, 15, tzinfo=UTC), LINES)]})]
    )
    connect(user, servers, "limitless")
    with django_capture_on_commit_callbacks(execute=True):
        out = run("sync", "--source", "limitless", "--date", "2026-06-10", "--days", "1")
    return out


def test_sync_shows_progress_and_a_summary(synced):
    assert "limitless 2026-06-10: 1 conversations, changed" in synced
    assert "limitless: ok · 1 conversations, 2 utterances, 1 days changed" in synced


def test_status_transcript_and_search(synced):
    assert "limitless  on   1 days stored" in run("status")
    assert "**Alice Example (you)**" in run("transcript", "--date", "2026-06-10")
    out = run("search", "Atlanta flight", "--source", "limitless", "--from", "2026-06-01", "--to", "2026-06-30")
    assert out.startswith("1 hits (indexed search)") and "Marcus: Did you book the flight" in out


def test_speakers_set_maps_a_display_name_everywhere(user, synced, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        out = run("speakers", "set", "limitless", "Marcus", "Marcus Bell")
    assert "(everywhere)" in out
    assert SpeakerIdentity.objects.get(owner=user).person.name == "Marcus Bell"
    assert "**Marcus Bell**" in run("transcript", "--date", "2026-06-10")


def test_speakers_set_refuses_a_per_conversation_label_without_a_conversation(synced):
    with pytest.raises(CommandError, match="per-conversation label on bee"):
        run("speakers", "set", "bee", "0", "Sam")


def test_speakers_self_records_the_users_name(user, synced):
    assert "You are Ally." in run("speakers", "self", "Ally")
    assert Person.objects.get(owner=user, is_self=True).name == "Ally"


def test_corrections_add_list_remove(user, synced, django_capture_on_commit_callbacks):
    with django_capture_on_commit_callbacks(execute=True):
        run("corrections", "add", "Atlanta", "Savannah", "--source", "limitless")
    assert "Atlanta → Savannah (limitless)" in run("corrections", "list")
    assert "Savannah" in run("transcript", "--date", "2026-06-10")
    pk = Correction.objects.get(owner=user).pk
    assert f"Removed correction #{pk}" in run("corrections", "remove", str(pk))
    with pytest.raises(CommandError, match="No correction"):
        run("corrections", "remove", str(pk))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (("transcript", "--date", "June"), "Not a date"),
        (("transcript", "--date", "2026-01-01"), "No transcript for 2026-01-01"),
        (("check", "fitbit"), "Unknown source"),
        (("sync", "--source", "omi"), "disabled"),
        (("sync", "--days", "0"), "days must be between"),
    ],
)
def test_errors_are_one_readable_line(user, args, message):
    with pytest.raises(CommandError, match=message):
        run(*args)


def test_several_users_need_user(user):
    UserFactory(username="carol")
    with pytest.raises(CommandError, match="pass --user"):
        run("status")
    assert "wearables: disabled" in run("--user", "alice", "status")


def test_check_reports_a_bad_key_without_showing_it(user, serve):
    servers = serve([])
    from wearables import services

    services.update_source(
        owner=user, kind="limitless", base_url=servers.base_urls["limitless"], credentials={"api_key": "bad-key-999"}
    )
    with pytest.raises(CommandError) as exc:
        run("check", "limitless")
    assert "bad-key-999" not in str(exc.value)
