"""Bee connector against the Bee imitation server (proxy and direct modes) over real loopback HTTP."""

from __future__ import annotations

import logging
import socket
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
from wearables.connectors.bee.connector import normalize_label
from wearables.imitation import BeeServer

CHICAGO = ZoneInfo("America/Chicago")
DAY = date(2026, 3, 10)
MORNING = datetime(2026, 3, 10, 15, 0, tzinfo=UTC)
TOKEN = "bee-SECRET-token-77aa99"


@pytest.fixture
def server():
    with BeeServer() as srv:
        yield srv


def connector(srv: BeeServer, sleep=None, **creds):
    return get_connector(
        "bee", base_url=srv.base_url, credentials=creds, sleep=sleep if sleep is not None else (lambda s: None)
    )


def neighbours() -> list[dict]:
    """Conversations on the day before and after the target day, which must never be returned."""
    return [
        day(
            "2026-03-09",
            "America/Chicago",
            "bee",
            [conversation("before", datetime(2026, 3, 10, 4, 0, tzinfo=UTC), source="bee")],
        ),
        day(
            "2026-03-11",
            "America/Chicago",
            "bee",
            [conversation("after", datetime(2026, 3, 11, 5, 30, tzinfo=UTC), source="bee")],
        ),
    ]


def test_fetch_day_pages_the_list_and_reads_each_conversation(server):
    server.add_days([day("2026-03-10", "America/Chicago", "bee", many("bee", 11, MORNING)), *neighbours()])
    result = connector(server, page_limit=3).fetch_day(DAY, CHICAGO)
    assert [c.utterances[0].text for c in result.conversations] == [f"c{i:03d} line 0" for i in range(11)]
    assert result.pages == 5 and result.warnings == []
    details = [r for r in server.requests if r.path.startswith("/v1/conversations/")]
    assert len(details) == 11
    first = server.requests_to("/v1/conversations")[0]
    assert (first.param("limit"), first.param("from"), first.param("to")) == ("3", "2026-03-09", "2026-03-12")
    assert "authorization" not in first.headers  # the local proxy adds the token itself


def test_the_local_day_is_decided_on_our_side_even_without_a_date_filter(server):
    late = conversation("late", datetime(2026, 3, 11, 4, 30, tzinfo=UTC), source="bee")  # 23:30 CDT on the 10th
    server.add_days([day("2026-03-10", "America/Chicago", "bee", [late]), *neighbours()])
    for date_filter in (True, False):
        result = connector(server, date_filter=date_filter, page_limit=1).fetch_day(DAY, CHICAGO)
        assert [c.utterances[0].text for c in result.conversations] == ["late line 0"]
    kolkata = connector(server).fetch_day(date(2026, 3, 11), ZoneInfo("Asia/Kolkata"))
    # In Kolkata both 04:30Z (10:00 IST) and 05:30Z (11:00 IST) fall on the 11th; 04:00Z on the 10th does not.
    assert [c.utterances[0].text for c in kolkata.conversations] == ["late line 0", "after line 0"]


@pytest.mark.parametrize("style", ["0", "SPEAKER_1", "speaker_1"])
def test_every_speaker_label_form_reads_the_same(server, style):
    server.label_style = style
    server.add_days(
        [
            day(
                "2026-03-10",
                "America/Chicago",
                "bee",
                [conversation("talk", MORNING, 4, source="bee", wearer_first=False)],
            )
        ]
    )
    (got,) = connector(server).fetch_day(DAY, CHICAGO).conversations
    assert [u.speaker_label for u in got.utterances] == ["1", "0", "1", "0"]
    assert all(u.is_wearer is None for u in got.utterances)  # Bee has no wearer flag


def test_label_normalisation_keeps_unknown_forms():
    assert [normalize_label(v) for v in ("0", "SPEAKER_01", "speaker_1", " 2 ", "Alex", None)] == [
        "0",
        "1",
        "1",
        "2",
        "Alex",
        None,
    ]


def test_utterances_come_back_in_spoken_order_from_the_final_transcription(server):
    server.add_days([day("2026-03-10", "America/Chicago", "bee", [conversation("talk", MORNING, 5, source="bee")])])
    (got,) = connector(server).fetch_day(DAY, CHICAGO).conversations
    assert [u.text for u in got.utterances] == [f"talk line {i}" for i in range(5)]  # served reversed, draft first
    assert got.utterances[2].started_at == datetime(2026, 3, 10, 15, 0, 10, tzinfo=UTC)


def test_null_utterance_times_keep_id_order(server):
    server.null_times = True
    server.add_days([day("2026-03-10", "America/Chicago", "bee", [conversation("talk", MORNING, 5, source="bee")])])
    (got,) = connector(server).fetch_day(DAY, CHICAGO).conversations
    assert [u.text for u in got.utterances] == [f"talk line {i}" for i in range(5)]
    assert all(u.started_at is None and u.ended_at is None for u in got.utterances)
    assert got.started_at == MORNING


def test_top_level_detail_is_accepted(server):
    server.wrap_detail = False
    server.add_days([day("2026-03-10", "America/Chicago", "bee", [conversation("talk", MORNING, 3, source="bee")])])
    (got,) = connector(server).fetch_day(DAY, CHICAGO).conversations
    assert len(got.utterances) == 3


def test_conversations_still_capturing_are_skipped_with_a_warning(server):
    server.add_days([day("2026-03-10", "America/Chicago", "bee", many("bee", 3, MORNING))])
    server.states["c001"] = "CAPTURING"
    result = connector(server).fetch_day(DAY, CHICAGO)
    assert [c.utterances[0].text for c in result.conversations] == ["c000 line 0", "c002 line 0"]
    assert any("still being captured" in w for w in result.warnings)


def test_a_cursor_cycle_stops_paging_with_a_warning(server):
    server.cursor_cycle = True
    server.add_days([day("2026-03-10", "America/Chicago", "bee", many("bee", 7, MORNING))])
    result = connector(server, page_limit=3).fetch_day(DAY, CHICAGO)
    assert len(result.conversations) == 7
    assert any("repeated a pagination cursor" in w for w in result.warnings)


def test_a_direct_host_needs_the_bearer_token(caplog):
    caplog.set_level(logging.DEBUG)
    with BeeServer(token=TOKEN) as srv:
        assert connector(srv, api_token=TOKEN).check().message == "Connected to Bee"
        assert srv.requests[-1].headers["authorization"] == f"Bearer {TOKEN}"
        wrong = "bee-WRONG-token-1234"
        with pytest.raises(ProviderError) as caught:
            connector(srv, api_token=wrong).fetch_day(DAY, CHICAGO)
        assert caught.value.permanent is True
        assert caught.value.message == "Bee rejected the API key (401): Unauthorized"
        no_token = connector(srv).check()
        assert no_token.ok is False and "run `bee proxy`" in no_token.message
    assert wrong not in caplog.text + str(caught.value) and TOKEN not in caplog.text


def test_rate_limits_and_server_errors_are_retried(server):
    server.add_days([day("2026-03-10", "America/Chicago", "bee", many("bee", 2, MORNING))])
    server.fail_next(429, retry_after=5)
    server.fail_next(502)
    sleeps = Sleeps()
    assert len(connector(server, sleeps).fetch_day(DAY, CHICAGO).conversations) == 2
    assert sleeps == [5.0, 2.0]


def test_check_names_the_address_it_could_not_reach():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    result = get_connector("bee", base_url=f"http://127.0.0.1:{port}", credentials={}).check()
    assert (result.ok, result.message) == (False, f"Could not reach http://127.0.0.1:{port}: connection refused")


def test_bee_facts_become_native_memories(server):
    server.facts = [
        {"id": 10 + i, "text": f"fact {i}", "tags": ["t"], "created_at": 1773332200000 + i, "confirmed": i != 3}
        for i in range(5)
    ]
    server.default_limit = 2
    memories = connector(server).fetch_native_memories()
    assert [m.text for m in memories] == ["fact 0", "fact 1", "fact 2", "fact 4"]
    assert memories[0].external_id == "10" and memories[0].source == "bee" and memories[0].tags == ["t"]
    assert memories[0].created_at == datetime(2026, 3, 12, 16, 16, 40, tzinfo=UTC)
    assert all(r.param("confirmed") == "true" for r in server.requests_to("/v1/facts") if not r.param("cursor"))


@pytest.fixture(scope="module")
def shared_server():
    with BeeServer() as srv:
        yield srv


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(count=st.integers(min_value=0, max_value=25), page_limit=st.integers(min_value=1, max_value=12))
def test_any_page_size_yields_every_conversation_exactly_once(shared_server, count, page_limit):
    shared_server.conversations.clear()
    shared_server.add_days(
        [day("2026-03-10", "America/Chicago", "bee", many("bee", count, MORNING, lines=1)), *neighbours()]
    )
    result = connector(shared_server, page_limit=page_limit).fetch_day(DAY, CHICAGO)
    texts = [c.utterances[0].text for c in result.conversations]
    assert texts == [f"c{i:03d} line 0" for i in range(count)]
