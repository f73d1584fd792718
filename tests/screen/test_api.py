"""The screen API: source, events of a local day, one event in full, corrections, stats, collect."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from accounts import services as account_services
from screen.models import Assertion, ScreenEvent
from screen.services.store import AssertionDraft, EventDraft, attach_evidence, create_event
from tests.screen.conftest import serve

pytestmark = pytest.mark.django_db


def _event(user, key="a", at=datetime(2026, 6, 8, 18, 40, tzinfo=UTC), **kw):
    draft = EventDraft(
        key=key,
        event_type=kw.pop("event_type", "game.match_completed"),
        started_at=at,
        ended_at=at,
        title=kw.pop("title", "Riftfall ranked match: victory"),
        outcome="victory",
        status=ScreenEvent.Status.CONFIRMED,
        assertions=[
            AssertionDraft(
                "Result shown: VICTORY", Assertion.ContentRole.SYSTEM_OUTPUT, 0.9, [{"kind": "ocr", "frame_id": 7}]
            )
        ],
        **kw,
    )
    event, _ = create_event(owner=user, draft=draft)
    attach_evidence(event=event, role="outcome", at=at, excerpt="VICTORY\nFinal score 13-7", frame_id=7)
    return event


def test_source_get_and_put(api):
    got = api.get("/screen/source").json()
    assert got["enabled"] is False and got["effective_url"] == "http://127.0.0.1:3030" and got["backfill_days"] == 2
    resp = api.put(
        "/screen/source",
        {
            "enabled": True,
            "base_url": "http://127.0.0.1:3999",
            "preferences": ["track all ranked matches", "do not retain shopping research"],
        },
    )
    assert resp.status_code == 200
    body = resp.json()
    assert body["enabled"] and body["effective_url"] == "http://127.0.0.1:3999"
    assert [p["action"] for p in body["preferences"]] == ["track", "exclude"]
    assert body["preferences"][0]["subject"] == ["ranked", "match"]


@pytest.mark.parametrize("payload", [{"base_url": "ftp://x"}, {"backfill_days": 99}, {"preferences": ["hello"]}])
def test_source_put_rejects_bad_input_with_422(api, payload):
    resp = api.put("/screen/source", payload)
    assert resp.status_code == 422 and resp.json()["detail"]


def test_events_of_a_day_with_filters(api, user):
    _event(user, key="a")
    _event(user, key="b", event_type="software.task_completed", title="14 passed")
    day = api.get("/screen/events", {"date": "2026-06-08"}).json()
    assert [e["type"] for e in day] == ["game.match_completed", "software.task_completed"]
    assert [e["type"] for e in api.get("/screen/events", {"date": "2026-06-08", "type": "game"}).json()] == [
        "game.match_completed"
    ]
    assert api.get("/screen/events", {"date": "2026-06-08", "status": "rejected"}).json() == []
    assert api.get("/screen/events", {"date": "2026-06-09"}).json() == []


@pytest.mark.parametrize("params", [{"date": "June 8"}, {"status": "maybe"}])
def test_events_rejects_bad_filters_with_422(api, params):
    resp = api.get("/screen/events", params)
    assert resp.status_code == 422 and resp.json()["detail"]


def test_event_detail_has_assertions_evidence_and_revisions(api, user):
    event = _event(user)
    body = api.get(f"/screen/events/{event.public_id}").json()
    assert body["assertions"][0]["content_role"] == "system_output"
    assert body["evidence"][0]["excerpt"].startswith("VICTORY") and body["evidence"][0]["frame_id"] == 7
    assert [r["number"] for r in body["revisions"]] == [1]


def test_correct_renames_rejects_and_records_revisions(api, user):
    event = _event(user)
    body = api.post(f"/screen/events/{event.public_id}/correct", {"action": "rename", "title": "Won 13-7"}).json()
    assert body["title"] == "Won 13-7" and body["revision"] == 2
    body = api.post(f"/screen/events/{event.public_id}/correct", {"action": "reject"}).json()
    assert body["status"] == "rejected" and [r["reason"] for r in body["revisions"]][-1] == "user: reject"
    assert api.get("/screen/events", {"date": "2026-06-08"}).json() == []
    again = api.post(f"/screen/events/{event.public_id}/correct", {"action": "reject"}).json()
    assert again["revision"] == 3  # idempotent: rejecting twice is one revision


def test_correct_validates_input(api, user):
    event = _event(user)
    assert api.post(f"/screen/events/{event.public_id}/correct", {"action": "explode"}).status_code == 422
    assert api.post(f"/screen/events/{event.public_id}/correct", {"action": "rename", "title": ""}).status_code == 422


def test_other_users_events_are_404(api, other_api, other_user):
    event = _event(other_user)
    assert api.get(f"/screen/events/{event.public_id}").status_code == 404
    assert api.post(f"/screen/events/{event.public_id}/correct", {"action": "reject"}).status_code == 404
    assert api.get("/screen/events", {"date": "2026-06-08"}).json() == []


def test_api_requires_a_token(client):
    assert client.get("/api/v1/screen/events").status_code == 401


def test_collect_and_signal_stats(api, user):
    from screen.imitation import scripts

    server = serve(scripts.kiln_segments())
    try:
        api.put("/screen/source", {"base_url": server.base_url})
        from unittest import mock

        with mock.patch("django.utils.timezone.now", return_value=server.now):
            resp = api.post("/screen/collect")
        assert resp.status_code == 200, resp.content
        body = resp.json()
        assert body["status"] == "ok" and body["events_created"] == 1 and body["curated"] == 1
        stats = api.get("/screen/signals/stats").json()
        assert stats["total"] > 0 and stats["unprocessed"] == 0 and stats["events"] == 1
    finally:
        server.stop()


def test_collect_against_an_unreachable_source_is_a_502(api):
    api.put("/screen/source", {"base_url": "http://127.0.0.1:9"})
    from screen.collector import client as client_module

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(
            client_module.ScreenPipeClient, "__init__", lambda self, base_url, **kw: _init_no_backoff(self, base_url)
        )
        resp = api.post("/screen/collect")
    assert resp.status_code == 502 and "unreachable" in resp.json()["detail"]


def _init_no_backoff(self, base_url):
    import httpx

    self.base_url, self.timeout, self.retries, self.backoff, self.requests = base_url, 2, 1, 0.0, 0
    self._http = httpx.Client(timeout=2)


def test_local_day_follows_the_users_timezone_after_midnight(api, user):
    account_services.update_settings(user=user, timezone_name="Asia/Kolkata")
    # 19:00 UTC on June 8 is 00:30 on June 9 in Kolkata: the event belongs to June 9 there.
    event = _event(user, at=datetime(2026, 6, 8, 19, 0, tzinfo=UTC))
    assert event.local_date.isoformat() == "2026-06-09"
    assert [e["id"] for e in api.get("/screen/events", {"date": "2026-06-09"}).json()] == [str(event.public_id)]
    assert api.get("/screen/events", {"date": "2026-06-08"}).json() == []


def test_an_event_crossing_midnight_follows_its_start(user):
    account_services.update_settings(user=user, timezone_name="Asia/Kolkata")
    start = datetime(2026, 6, 8, 18, 10, tzinfo=UTC)  # 23:40 local
    draft = EventDraft(
        key="x",
        event_type="game.match_completed",
        started_at=start,
        ended_at=datetime(2026, 6, 8, 18, 55, tzinfo=UTC),
        title="late match",
    )  # ends 00:25 local
    event, _ = create_event(owner=user, draft=draft)
    assert event.local_date.isoformat() == "2026-06-08"


def test_events_timeline_for_agents_uses_local_times_and_the_rollup(user):
    from screen.queries import events_timeline

    account_services.update_settings(user=user, timezone_name="Asia/Kolkata")
    _event(user, at=datetime(2026, 6, 8, 19, 0, tzinfo=UTC))
    day = events_timeline(user, "2026-06-09")
    assert day["timezone"] == "Asia/Kolkata"
    assert day["events"][0]["started_at"].startswith("2026-06-09T00:30:00+05:30")
    assert day["events"][0]["evidence"].startswith("VICTORY")
    assert day["rollup"] == ["game.match_completed: 1–0"]


@pytest.mark.parametrize(
    "payload",
    [
        {"base_url": "http://[::1"},
        {"base_url": "http://x:99999"},
        {"base_url": "http://a\x00b"},
        {"preferences": ["track \x00 games"]},
    ],
)
def test_source_put_never_500s_on_odd_input(api, payload):
    resp = api.put("/screen/source", payload)
    assert resp.status_code in (400, 422) and resp.json()["detail"]  # NUL bytes are refused (400) before us


def test_odd_filters_and_titles_are_422(api, user):
    event = _event(user)
    assert api.get("/screen/events", {"type": "game\x01"}).status_code == 422
    assert api.get("/screen/events", {"type": "g" * 101}).status_code == 422
    resp = api.post(f"/screen/events/{event.public_id}/correct", {"action": "rename", "title": "a\x01b"})
    assert resp.status_code == 422
