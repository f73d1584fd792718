"""Sync end to end against the imitation servers: storage, idempotence, timezones, SyncRun, failures."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
from django_q.models import OrmQ

from accounts.services import update_settings
from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import queries, services
from wearables.models import Conversation, DayTranscript, NativeMemoryImport, SyncRun, Utterance

pytestmark = pytest.mark.django_db

LINES = [
    ("Priya", False, "Um, did you sign the the lease yet?"),
    ("user", True, "I I I signed it this morning, unit 1 1 0 4 at the Marlow."),
    ("Priya", False, "Off the record, I'm applying to the Denver office."),
    ("user", True, "Wow. Back on the record. When do you move the piano?"),
    ("Priya", False, "Saturday, uh, after the farmers market."),
]


def one_day(local="2026-06-10", tz="UTC", start=datetime(2026, 6, 10, 15, 0, tzinfo=UTC), lines=LINES, conv_id="ll-1"):
    return day(local, tz, {"limitless": [conversation(conv_id, start, lines)]})


def test_sync_stores_a_clean_day_transcript_that_search_finds(user, serve):
    servers = serve([one_day()])
    connect(user, servers, "limitless")
    run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])

    assert run.status == SyncRun.Status.OK and run.days_changed == 1 and run.pages >= 1
    t = DayTranscript.objects.get(owner=user, source__kind="limitless", local_date=date(2026, 6, 10))
    texts = list(t.utterances.order_by("index").values_list("text", flat=True))
    assert texts[0] == "Did you sign the lease yet?"
    assert "I signed it this morning, unit 1 1 0 4 at the Marlow." in texts
    assert not any("Denver" in x for x in texts)  # off the record
    assert t.markdown.startswith("---\nsource: limitless\ndate: '2026-06-10'")
    assert "**Alice Example (you)**" in t.markdown
    assert t.utterance_count == len(texts) and t.conversation_count == 1

    result = queries.search_utterances(user, "signed lease")
    assert result.mode == "indexed" and result.hits
    assert "<mark>" in result.hits[0]["snippet"]


def test_resync_of_unchanged_data_writes_nothing_and_queues_no_memory_pass(
    user, serve, django_capture_on_commit_callbacks
):
    servers = serve([one_day()])
    connect(user, servers, "limitless")
    with django_capture_on_commit_callbacks(execute=True):
        services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    t = DayTranscript.objects.get(owner=user)
    queued = OrmQ.objects.count()
    first_ids = set(Utterance.objects.values_list("pk", flat=True))
    assert queued == 1  # the memory pass for the new day

    with django_capture_on_commit_callbacks(execute=True):
        run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])

    t2 = DayTranscript.objects.get(pk=t.pk)
    assert run.days_changed == 0
    assert t2.updated_at == t.updated_at and t2.content_hash == t.content_hash
    assert set(Utterance.objects.values_list("pk", flat=True)) == first_ids
    assert OrmQ.objects.count() == queued


def test_force_memories_queues_a_pass_for_an_unchanged_day(user, serve, django_capture_on_commit_callbacks):
    servers = serve([one_day()])
    connect(user, servers, "limitless")
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    before = OrmQ.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)], force_memories=True)
    assert OrmQ.objects.count() == before + 1


def test_changed_provider_data_rewrites_the_day_and_keeps_conversation_ids(
    user, serve, django_capture_on_commit_callbacks
):
    servers = serve([one_day()])
    connect(user, servers, "limitless")
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    conv = Conversation.objects.get(owner=user)
    servers.stop()
    changed = serve([one_day(lines=[*LINES, ("user", True, "And the movers come at nine.")])])
    connect(user, changed, "limitless")
    with django_capture_on_commit_callbacks(execute=True):
        run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    assert run.days_changed == 1
    assert Conversation.objects.get(owner=user).public_id == conv.public_id
    assert Utterance.objects.filter(text__icontains="movers").exists()
    assert OrmQ.objects.count() == 1


@pytest.mark.parametrize(
    ("tz", "start", "expected"),
    [
        # 23:30 in Kolkata (UTC+5:30) is 18:00 UTC the same date; 00:30 the next local day is 19:00 UTC.
        ("Asia/Kolkata", datetime(2026, 6, 10, 18, 0, tzinfo=UTC), date(2026, 6, 10)),
        ("Asia/Kolkata", datetime(2026, 6, 10, 19, 0, tzinfo=UTC), date(2026, 6, 11)),
        # 23:30 in Chicago (CDT, UTC-5) is already 04:30 UTC on the next date.
        ("America/Chicago", datetime(2026, 6, 11, 4, 30, tzinfo=UTC), date(2026, 6, 10)),
        ("America/Chicago", datetime(2026, 6, 11, 5, 30, tzinfo=UTC), date(2026, 6, 11)),
    ],
)
def test_days_follow_the_users_local_date(user, serve, tz, start, expected):
    update_settings(user=user, timezone_name=tz)
    servers = serve([one_day(local=expected.isoformat(), tz=tz, start=start)])
    connect(user, servers, "limitless")
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10), date(2026, 6, 11)])
    t = DayTranscript.objects.get(owner=user)
    assert t.local_date == expected and t.timezone == tz


def test_bee_wearer_is_found_through_the_limitless_recording_of_the_same_conversation(user, serve):
    start = datetime(2026, 6, 10, 15, 0, tzinfo=UTC)
    talk = [
        ("Priya", False, "Are you still planning the housewarming party for July with everyone?"),
        ("user", True, "Yes, the twelfth of July, I already invited my whole design team."),
        ("Priya", False, "Then I will bring the lemon cake everybody liked last summer."),
        ("user", True, "Perfect, Theo will handle the grill and the music playlist that night."),
    ]
    # Bee diarized the wearer as "1" here: "0" is not always the wearer.
    bee_talk = [("1" if w else "0", w, text) for _, w, text in talk]
    days = [
        day(
            "2026-06-10",
            "UTC",
            {
                "limitless": [conversation("ll-7", start, talk)],
                "bee": [conversation("bee-7", start.replace(second=3), bee_talk)],
            },
        )
    ]
    servers = serve(days)
    connect(user, servers, "limitless", "bee")
    services.sync_enabled_sources(owner=user, dates=[date(2026, 6, 10)])
    conv = Conversation.objects.get(owner=user, transcript__source__kind="bee")
    assert (conv.wearer_method, conv.wearer_label) == ("other_device", "1")
    wearer_lines = Utterance.objects.filter(conversation=conv, is_wearer=True).values_list("speaker_name", flat=True)
    assert set(wearer_lines) == {"Alice Example (you)"}


def test_a_disabled_source_is_refused(user):
    with pytest.raises(services.WearablesError, match="disabled"):
        services.sync(owner=user, source="omi", dates=[date(2026, 6, 10)])


def test_provider_auth_failure_is_recorded_without_the_key(user, serve):
    servers = serve([one_day()])
    services.update_source(
        owner=user, kind="limitless", enabled=True, base_url=servers.base_urls["limitless"],
        credentials={"api_key": "sk-super-secret-value"},
    )  # fmt: skip
    run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 9), date(2026, 6, 10)])
    assert run.status == SyncRun.Status.FAILED
    assert run.errors and "sk-super-secret-value" not in " ".join(run.errors)
    assert not DayTranscript.objects.exists()


def test_server_errors_are_retried_and_the_sync_completes(user, serve):
    servers = serve([one_day()])
    servers.limitless.fail_next(500, 1)
    connect(user, servers, "limitless")
    run = services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    assert run.status == SyncRun.Status.OK and DayTranscript.objects.count() == 1


def test_export_writes_markdown_under_almanac_home(user, serve, settings, tmp_path, django_capture_on_commit_callbacks):
    settings.ALMANAC_HOME = tmp_path
    services.update_wearables_settings(owner=user, export_markdown=True)
    servers = serve([one_day()])
    connect(user, servers, "limitless")
    with django_capture_on_commit_callbacks(execute=True):
        services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    path = tmp_path / "wearables" / "limitless" / "2026-06-10.md"
    assert path.read_text() == DayTranscript.objects.get(owner=user).markdown


def test_native_memories_are_stored_redacted_once_and_queued_for_the_trust_area(
    user, serve, django_capture_on_commit_callbacks
):
    facts = [
        {
            "id": 1,
            "text": "Alice's card is 4242 4242 4242 4242",
            "confirmed": True,
            "created_at": "2026-06-10T12:00:00Z",
        }
    ]
    servers = serve([one_day()], bee_facts=facts)
    connect(user, servers, "bee")
    with django_capture_on_commit_callbacks(execute=True):
        services.sync(owner=user, source="bee", dates=[date(2026, 6, 10)])
    rows = list(NativeMemoryImport.objects.filter(owner=user))
    assert len(rows) == 1 and "4242" not in rows[0].text and "[redacted]" in rows[0].text
    queued = OrmQ.objects.count()
    with django_capture_on_commit_callbacks(execute=True):
        services.sync(owner=user, source="bee", dates=[date(2026, 6, 10)])
    assert NativeMemoryImport.objects.filter(owner=user).count() == 1
    assert OrmQ.objects.count() == queued  # nothing new to import


@pytest.mark.parametrize("bee_first", [True, False])
def test_a_span_one_device_elided_is_removed_from_the_other_devices_day(user, serve, bee_first):
    start = datetime(2026, 6, 10, 15, 0, tzinfo=UTC)
    heard = [
        ("user", True, "Okay, quick question before the meeting starts."),
        ("Priya", False, "Sure. Off the record?"),
        ("Priya", False, "I'm interviewing with Northwind next week."),
        ("user", True, "Got it. Back on the record. So, the budget."),
    ]
    misheard = [(("1" if w else "0"), w, t.replace("the record", "the wreck hurt")) for _, w, t in heard]
    servers = serve(
        [
            day(
                "2026-06-10",
                "UTC",
                {
                    "limitless": [conversation("ll-1", start, heard, gap=5)],
                    "bee": [conversation("b-1", start, misheard, gap=5)],
                },
            )
        ]
    )
    connect(user, servers, "limitless", "bee")
    order = ["bee", "limitless"] if bee_first else ["limitless", "bee"]
    for kind in order:
        services.sync(owner=user, source=kind, dates=[date(2026, 6, 10)])
    assert not Utterance.objects.filter(owner=user, text__icontains="Northwind").exists()
    assert Utterance.objects.filter(
        owner=user, transcript__source__kind="bee", text__icontains="quick question"
    ).exists()
