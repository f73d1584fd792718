"""Omi connector (Integration and Developer APIs) against the Omi imitation server over real loopback HTTP."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.wearables.connector_support import (
    Sleeps,
    conversation,
    day,
    many,
    no_credential_env,  # noqa: F401 - autouse fixture
)
from wearables.connectors import ProviderError, get_connector
from wearables.imitation import OmiServer

CHICAGO = ZoneInfo("America/Chicago")
DAY = date(2026, 3, 10)
MORNING = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
APP_KEY = "sk_SECRET_app_key_123456"
DEV_KEY = "omi_dev_SECRET_key_654321"


@pytest.fixture
def server():
    with OmiServer(
        app_key=APP_KEY, dev_key=DEV_KEY, app_id="app-1", user_id="uid-1", user_name="Dana Whitfield"
    ) as srv:
        yield srv


def integration(srv: OmiServer, sleep=None, **extra):
    creds = {"api_key": APP_KEY, "app_id": "app-1", "user_id": "uid-1", **extra}
    return get_connector(
        "omi", base_url=srv.base_url, credentials=creds, sleep=sleep if sleep is not None else (lambda s: None)
    )


def developer(srv: OmiServer, **extra):
    return get_connector("omi", base_url=srv.base_url, credentials={"api_key": DEV_KEY, **extra}, sleep=lambda s: None)


def test_integration_pages_by_offset_until_a_short_page(server):
    server.add_days([day("2026-03-10", "America/Chicago", "omi", many("omi", 12, MORNING))])
    result = integration(server, page_limit=5).fetch_day(DAY, CHICAGO)
    assert [c.utterances[0].text for c in result.conversations] == [f"c{i:03d} line 0" for i in range(12)]
    assert result.pages == 3 and result.warnings == []
    sent = server.requests_to("/v2/integrations/app-1/conversations")
    assert [r.param("offset") for r in sent] == ["0", "5", "10"]
    first = sent[0]
    assert first.headers["authorization"] == f"Bearer {APP_KEY}"
    assert {k: first.param(k) for k in ("uid", "statuses", "include_discarded", "max_transcript_segments")} == {
        "uid": "uid-1",
        "statuses": "completed",
        "include_discarded": "false",
        "max_transcript_segments": "-1",
    }


def test_a_long_transcript_is_never_cut_at_100_segments(server):
    server.add_days([day("2026-03-10", "America/Chicago", "omi", [conversation("long", MORNING, 150, source="omi")])])
    (got,) = integration(server).fetch_day(DAY, CHICAGO).conversations
    assert len(got.utterances) == 150 and got.utterances[-1].text == "long line 149"
    # The server really does truncate when the client does not ask for everything.
    plain = httpx.get(
        f"{server.base_url}/v2/integrations/app-1/conversations",
        params={"uid": "uid-1"},
        headers={"Authorization": f"Bearer {APP_KEY}"},
    ).json()
    assert len(plain["conversations"][0]["transcript_segments"]) == 100


@pytest.mark.parametrize("style", ["Z", "+00:00"])
def test_both_utc_spellings_are_read(server, style):
    server.datetime_style = style
    server.add_days([day("2026-03-10", "America/Chicago", "omi", [conversation("talk", MORNING, 3, source="omi")])])
    (got,) = integration(server).fetch_day(DAY, CHICAGO).conversations
    assert got.started_at == MORNING
    assert got.utterances[1].started_at == datetime(2026, 3, 10, 15, 0, 5, tzinfo=UTC)
    assert got.ended_at == datetime(2026, 3, 10, 15, 0, 15, tzinfo=UTC)


def test_segments_carry_the_wearer_flag_label_and_person_id(server):
    server.person_ids = {"SPEAKER_01": "p_3c9e1a7b"}
    server.add_days([day("2026-03-10", "America/Chicago", "omi", [conversation("talk", MORNING, 2, source="omi")])])
    (got,) = integration(server).fetch_day(DAY, CHICAGO).conversations
    assert [(u.speaker_label, u.is_wearer, u.person_id) for u in got.utterances] == [
        ("SPEAKER_00", True, None),
        ("SPEAKER_01", False, "p_3c9e1a7b"),
    ]


@pytest.mark.parametrize(
    ("tz_name", "local_date", "start_utc", "window"),
    [
        (
            "America/Chicago",
            date(2026, 3, 10),
            datetime(2026, 3, 11, 4, 30, tzinfo=UTC),  # 23:30 CDT
            ("2026-03-10T00:00:00-05:00", "2026-03-11T00:00:00-05:00"),
        ),
        (
            "Asia/Kolkata",
            date(2026, 3, 11),
            datetime(2026, 3, 10, 18, 45, tzinfo=UTC),  # 00:15 IST
            ("2026-03-11T00:00:00+05:30", "2026-03-12T00:00:00+05:30"),
        ),
    ],
)
def test_the_window_is_local_midnight_to_midnight_with_explicit_offsets(server, tz_name, local_date, start_utc, window):
    server.add_days([day(local_date.isoformat(), tz_name, "omi", [conversation("edge", start_utc, source="omi")])])
    tz = ZoneInfo(tz_name)
    result = integration(server).fetch_day(local_date, tz)
    assert [c.utterances[0].text for c in result.conversations] == ["edge line 0"]
    sent = server.requests[-1]
    assert (sent.param("start_date"), sent.param("end_date")) == window  # "+" survived URL encoding
    assert integration(server).fetch_day(date.fromordinal(local_date.toordinal() + 1), tz).conversations == []
    assert integration(server).fetch_day(date.fromordinal(local_date.toordinal() - 1), tz).conversations == []


def test_unfinished_and_discarded_conversations_are_left_out(server):
    server.add_days([day("2026-03-10", "America/Chicago", "omi", many("omi", 4, MORNING))])
    server.statuses["c001"] = "processing"
    server.discarded.add("c002")
    result = integration(server).fetch_day(DAY, CHICAGO)
    assert [c.utterances[0].text for c in result.conversations] == ["c000 line 0", "c003 line 0"]


def test_a_server_that_ignores_the_offset_is_stopped_with_a_warning(server):
    server.cursor_cycle = True
    server.add_days([day("2026-03-10", "America/Chicago", "omi", many("omi", 6, MORNING))])
    result = integration(server, page_limit=3).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 3 and result.pages == 2
    assert any("same conversations again" in w for w in result.warnings)


def test_retries_honour_retry_after_then_give_up_as_temporary(server):
    server.fail_next(429, retry_after=4)
    server.fail_next(500)
    sleeps = Sleeps()
    integration(server, sleeps).fetch_day(DAY, CHICAGO)
    assert sleeps == [4.0, 2.0]
    server.fail_next(503, count=9)
    with pytest.raises(ProviderError) as caught:
        integration(server, max_retries=1).fetch_day(DAY, CHICAGO)
    assert caught.value.permanent is False and caught.value.status == 503


def test_auth_failures_are_permanent_and_never_show_the_key(server, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "sk_WRONG_app_key_999999"
    texts = []
    for creds, expected in [
        ({"api_key": wrong}, "Omi rejected the API key (403): Invalid API key"),
        ({"user_id": "someone-else"}, "Omi rejected the API key (403): App is not enabled for this user"),
        ({"app_id": "no-such-app"}, "Omi returned 404 for /v2/integrations/no-such-app/conversations: App not found"),
    ]:
        conn = integration(server, **creds)
        with pytest.raises(ProviderError) as caught:
            conn.fetch_day(DAY, CHICAGO)
        assert caught.value.permanent is True and caught.value.message == expected
        texts += [str(caught.value), repr(conn), conn.check().message]
    joined = " ".join(texts) + caplog.text
    assert wrong not in joined and APP_KEY not in joined


def test_check_reports_the_surface_or_the_missing_setting(server):
    assert integration(server).check().message == "Connected to Omi (Integration API)"
    assert developer(server).check().message == "Connected to Omi (Developer API)"
    incomplete = get_connector("omi", base_url=server.base_url, credentials={"api_key": APP_KEY}).check()
    assert incomplete.ok is False and "app_id and user_id" in incomplete.message and APP_KEY not in incomplete.message


def test_developer_api_reads_bare_arrays_with_transcripts(server):
    server.datetime_style = "+00:00"
    server.add_days([day("2026-03-10", "America/Chicago", "omi", many("omi", 7, MORNING, lines=2))])
    server.statuses["c003"] = "processing"
    result = developer(server, page_limit=3).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 6 and result.pages == 3  # two full pages, then an empty one
    sent = server.requests_to("/v1/dev/user/conversations")
    assert sent[0].param("include_transcript") == "true" and sent[0].headers["authorization"] == f"Bearer {DEV_KEY}"
    first = result.conversations[0]
    assert [(u.speaker_label, u.speaker_name, u.is_wearer) for u in first.utterances] == [
        ("SPEAKER_00", "Dana Whitfield", None),
        ("SPEAKER_01", None, None),
    ]


def test_an_explicit_api_setting_chooses_the_surface(server):
    server.dev_key = "plainkey12345"
    conn = get_connector("omi", base_url=server.base_url, credentials={"api_key": "plainkey12345", "api": "developer"})
    assert conn.check().message == "Connected to Omi (Developer API)"


def test_memories_come_from_either_surface(server):
    server.add_days([day("2026-03-10", "America/Chicago", "omi", [conversation("talk", MORNING, source="omi")])])
    server.memories = [
        {
            "id": f"m{i}",
            "content": f"memory {i}",
            "tags": ["x"],
            "created_at": "2026-03-10T16:00:00Z",
            "conversation_id": "talk",
        }
        for i in range(5)
    ]
    via_app = integration(server, page_limit=2).fetch_native_memories()
    via_dev = developer(server, page_limit=2).fetch_native_memories()
    assert [m.text for m in via_app] == [m.text for m in via_dev] == [f"memory {i}" for i in range(5)]
    (conv,) = integration(server).fetch_day(DAY, CHICAGO).conversations
    assert via_app[0].conversation_external_id == conv.external_id
    assert via_app[0].created_at == datetime(2026, 3, 10, 16, 0, tzinfo=UTC) and via_app[0].source == "omi"


@pytest.fixture(scope="module")
def shared_server():
    with OmiServer(app_key=APP_KEY, app_id="app-1", user_id="uid-1") as srv:
        yield srv


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(min_value=0, max_value=25), page_limit=st.integers(min_value=1, max_value=12))
def test_any_page_size_yields_every_conversation_exactly_once(shared_server, count, page_limit):
    shared_server.conversations.clear()
    shared_server.add_days([day("2026-03-10", "America/Chicago", "omi", many("omi", count, MORNING, lines=1))])
    result = integration(shared_server, page_limit=page_limit).fetch_day(DAY, CHICAGO)
    assert [c.utterances[0].text for c in result.conversations] == [f"c{i:03d} line 0" for i in range(count)]
    assert result.pages == count // page_limit + 1
