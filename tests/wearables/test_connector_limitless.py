"""Limitless connector against the Limitless imitation server over real loopback HTTP."""

from __future__ import annotations

import logging
from datetime import UTC, date, datetime
from zoneinfo import ZoneInfo

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
from wearables.imitation import LimitlessServer

KEY = "ll-SECRET-key-0f9e8d7c"
CHICAGO = ZoneInfo("America/Chicago")
DAY = date(2026, 3, 10)
MORNING = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)  # 09:00 in Chicago


@pytest.fixture
def server():
    with LimitlessServer(api_key=KEY) as srv:
        yield srv


def connector(srv: LimitlessServer, sleeps=None, **creds):
    return get_connector(
        "limitless",
        base_url=srv.base_url,
        credentials={"api_key": KEY, **creds},
        sleep=sleeps if sleeps is not None else (lambda s: None),
    )


def test_fetch_day_follows_cursors_to_the_last_page(server):
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", many("limitless", 23, MORNING))])
    result = connector(server).fetch_day(DAY, CHICAGO)
    assert [c.external_id for c in result.conversations] == [f"c{i:03d}" for i in range(23)]
    assert result.pages == 3 and result.warnings == []
    first = server.requests_to("/v1/lifelogs")[0]
    assert first.headers["x-api-key"] == KEY
    assert {k: first.param(k) for k in ("date", "timezone", "limit", "direction")} == {
        "date": "2026-03-10",
        "timezone": "America/Chicago",
        "limit": "10",
        "direction": "asc",
    }
    assert (first.param("includeMarkdown"), first.param("includeHeadings"), first.param("includeContents")) == (
        "false",
        "false",
        "true",
    )


@pytest.fixture(scope="module")
def shared_server():
    with LimitlessServer(api_key=KEY) as srv:
        yield srv


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(min_value=0, max_value=35), page_limit=st.integers(min_value=1, max_value=10))
def test_any_page_size_yields_every_lifelog_exactly_once(shared_server, count, page_limit):
    shared_server.conversations.clear()
    shared_server.add_days([day("2026-03-10", "America/Chicago", "limitless", many("limitless", count, MORNING))])
    result = connector(shared_server, page_limit=page_limit).fetch_day(DAY, CHICAGO)
    ids = [c.external_id for c in result.conversations]
    assert sorted(ids) == [f"c{i:03d}" for i in range(count)] and len(set(ids)) == len(ids)
    assert result.pages == max(1, -(-count // page_limit))


def test_dialogue_comes_from_blockquotes_with_the_wearer_flagged(server):
    conv = conversation("talk", MORNING, 4)
    conv["utterances"][1]["speaker"] = "Marcus Reyes"
    conv["utterances"][3]["speaker"] = "Speaker 2"
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", [conv])])
    (got,) = connector(server).fetch_day(DAY, CHICAGO).conversations
    assert [(u.speaker_label, u.speaker_name, u.is_wearer) for u in got.utterances] == [
        ("user", None, True),
        ("Marcus Reyes", "Marcus Reyes", False),
        ("user", None, True),
        ("Speaker 2", None, False),
    ]
    assert got.utterances[1].text == "talk line 1"
    assert got.utterances[1].started_at == datetime(2026, 3, 10, 15, 0, 5, tzinfo=UTC)
    assert got.started_at == MORNING and got.title


def test_blockquotes_nested_under_headings_are_read(server):
    server.nested_contents = True
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", [conversation("nested", MORNING, 5)])])
    (got,) = connector(server).fetch_day(DAY, CHICAGO).conversations
    assert [u.text for u in got.utterances] == [f"nested line {i}" for i in range(5)]


def test_contents_dropped_on_big_pages_are_read_one_by_one(server):
    server.max_limit = 100
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", many("limitless", 30, MORNING, lines=3))])
    result = connector(server, page_limit=50).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 30
    assert all(len(c.utterances) == 3 for c in result.conversations)
    assert len(server.requests_to("/v1/lifelogs/")) == 30


@pytest.mark.parametrize(
    ("tz_name", "local_date", "start_utc"),
    [
        ("America/Chicago", date(2026, 3, 10), datetime(2026, 3, 11, 4, 30, tzinfo=UTC)),  # 23:30 CDT on the 10th
        ("Asia/Kolkata", date(2026, 3, 11), datetime(2026, 3, 10, 18, 45, tzinfo=UTC)),  # 00:15 IST on the 11th
        ("Asia/Kolkata", date(2026, 3, 10), datetime(2026, 3, 10, 18, 0, tzinfo=UTC)),  # 23:30 IST on the 10th
    ],
)
def test_a_conversation_belongs_to_its_local_date_not_its_utc_date(server, tz_name, local_date, start_utc):
    server.add_days([day(local_date.isoformat(), tz_name, "limitless", [conversation("edge", start_utc)])])
    tz = ZoneInfo(tz_name)
    conn = connector(server)
    assert [c.external_id for c in conn.fetch_day(local_date, tz).conversations] == ["edge"]
    for other in (date.fromordinal(local_date.toordinal() - 1), date.fromordinal(local_date.toordinal() + 1)):
        assert conn.fetch_day(other, tz).conversations == []


def test_a_429_waits_for_the_body_retry_after_then_succeeds(server):
    sleeps = Sleeps()
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", many("limitless", 2, MORNING))])
    server.fail_next(429, retry_after=7)
    result = connector(server, sleeps).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 2
    assert sleeps == [7.0]
    assert [r.status for r in server.requests] == [429, 200]


def test_a_429_honours_the_retry_after_header(server):
    sleeps = Sleeps()
    server.retry_after_in = "header"
    server.fail_next(429, retry_after=3)
    connector(server, sleeps).fetch_day(DAY, CHICAGO)
    assert sleeps == [3.0]


def test_a_huge_retry_after_is_capped(server):
    sleeps = Sleeps()
    server.fail_next(429, retry_after=3600)
    connector(server, sleeps).fetch_day(DAY, CHICAGO)
    assert sleeps == [30.0]


def test_server_errors_are_retried_with_backoff(server):
    sleeps = Sleeps()
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", many("limitless", 1, MORNING))])
    server.fail_next(503, count=2)
    result = connector(server, sleeps).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 1 and sleeps == [1.0, 2.0]


def test_exhausted_retries_raise_a_temporary_error(server):
    sleeps = Sleeps()
    server.fail_next(500, count=10)
    with pytest.raises(ProviderError) as caught:
        connector(server, sleeps).fetch_day(DAY, CHICAGO)
    assert caught.value.permanent is False and caught.value.status == 500
    assert "after 4 attempts" in caught.value.message
    assert len(server.requests) == 4 and sleeps == [1.0, 2.0, 4.0]


def test_a_cursor_cycle_stops_paging_with_a_warning(server):
    server.cursor_cycle = True
    server.add_days([day("2026-03-10", "America/Chicago", "limitless", many("limitless", 15, MORNING))])
    result = connector(server).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 15
    assert len({c.external_id for c in result.conversations}) == 15
    assert any("repeated a pagination cursor" in w for w in result.warnings)
    assert len(server.requests) < 10


def test_a_wrong_key_fails_permanently_without_showing_the_key(server, caplog):
    caplog.set_level(logging.DEBUG)
    wrong = "ll-WRONG-key-5a4b3c2d"
    conn = get_connector("limitless", base_url=server.base_url, credentials={"api_key": wrong})
    with pytest.raises(ProviderError) as caught:
        conn.fetch_day(DAY, CHICAGO)
    assert caught.value.permanent is True and caught.value.status == 401
    assert caught.value.message.startswith("Limitless rejected the API key (401)")
    text = " ".join([str(caught.value), repr(caught.value), repr(conn), caplog.text])
    assert wrong not in text and KEY not in text
    assert len(server.requests) == 1  # no retries on a bad key


def test_check_says_connected_or_what_is_wrong(server):
    assert connector(server).check().message == "Connected to Limitless"
    assert connector(server).check().ok is True
    bad = get_connector("limitless", base_url=server.base_url, credentials={"api_key": "nope-nope"}).check()
    assert (bad.ok, bad.message) == (False, "Limitless rejected the API key (401): Invalid API key")
    missing = get_connector("limitless", base_url=server.base_url, credentials={}).check()
    assert missing.ok is False and "api_key" in missing.message
    assert server.requests[0].param("limit") == "1"
