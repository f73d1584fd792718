"""/api/v1/wearables/: sources (credentials write-only), validation, sync, transcripts, search, isolation."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from tests.wearables.conftest import connect
from tests.wearables.days import conversation, day
from wearables import services

pytestmark = pytest.mark.django_db

LINES = [
    ("Priya", False, "Did you sign the lease for the apartment yet?"),
    ("user", True, "Signed it this morning, the movers come Saturday."),
]


def synced(user, serve):
    servers = serve(
        [day("2026-06-10", "UTC", {"limitless": [conversation("ll-1", datetime(2026, 6, 10, 15, tzinfo=UTC), LINES)]})]
    )
    connect(user, servers, "limitless")
    services.sync(owner=user, source="limitless", dates=[date(2026, 6, 10)])
    return servers


def test_sources_lists_all_three_disabled_by_default(api):
    r = api.get("/wearables/sources")
    assert r.status_code == 200
    assert [(s["kind"], s["enabled"]) for s in r.json()] == [("limitless", False), ("bee", False), ("omi", False)]


def test_credentials_are_write_only(api):
    r = api.put("/wearables/sources/limitless", {"enabled": True, "credentials": {"api_key": "ll-secret-123"}})
    assert r.status_code == 200
    assert "ll-secret-123" not in r.content.decode()
    assert r.json()["has_credentials"] is True and r.json()["credential_fields"] == ["api_key"]
    listed = api.get("/wearables/sources").content.decode()
    assert "ll-secret-123" not in listed


@pytest.mark.parametrize(
    ("payload", "message"),
    [
        ({"source_trust": 1.5}, "source_trust"),
        ({"memory_mode": "sometimes"}, "memory_mode"),
        ({"base_url": "ftp://x"}, "base_url must start with http"),
        ({"review_trust": 0.9, "auto_approve_trust": 0.5}, "review_trust must not be above"),
        ({"credentials": {"token": "x"}}, "unknown field"),
        ({"max_memories_per_day": -1}, "max_memories_per_day"),
    ],
)
def test_bad_source_settings_get_a_422_with_a_message(api, payload, message):
    r = api.put("/wearables/sources/limitless", payload)
    assert r.status_code == 422
    assert message in r.json()["detail"]


def test_unknown_source_is_a_400(api):
    r = api.put("/wearables/sources/fitbit", {"enabled": True})
    assert r.status_code == 400 and "Unknown source" in r.json()["detail"]


def test_transcript_and_search_after_sync(user, api, serve):
    synced(user, serve)
    r = api.get("/wearables/transcript", {"date": "2026-06-10", "source": "limitless"})
    assert r.status_code == 200
    body = r.json()[0]
    assert (
        body["utterance_count"] == 2 and body["conversations"][0]["utterances"][1]["speaker"] == "Alice Example (you)"
    )

    r = api.get(
        "/wearables/transcripts/search",
        {"q": "movers", "source": "limitless", "from": "2026-06-01", "to": "2026-06-30"},
    )
    assert r.status_code == 200 and r.json()["mode"] == "indexed"
    assert "<mark>movers</mark>" in r.json()["hits"][0]["snippet"]

    r = api.get("/wearables/transcripts/search", {"q": "zzzqqq"})
    assert r.json() == {"query": "zzzqqq", "mode": "scan", "hits": []}


def test_search_and_transcript_validate_their_input(api):
    assert api.get("/wearables/transcript", {"date": "yesterday"}).status_code == 422
    assert api.get("/wearables/transcript", {"date": "2026-06-10"}).status_code == 404
    r = api.get("/wearables/transcripts/search", {"q": "x", "from": "2026-06-10", "to": "2026-06-01"})
    assert r.status_code == 400 and "from" in r.json()["detail"]
    assert api.get("/wearables/transcripts/search", {"q": "x", "source": "fitbit"}).status_code == 400


def test_another_user_cannot_read_my_transcripts(user, api, other_api, serve):
    synced(user, serve)
    assert other_api.get("/wearables/transcript", {"date": "2026-06-10"}).status_code == 404
    assert other_api.get("/wearables/transcripts/search", {"q": "movers"}).json()["hits"] == []
    assert all(not s["enabled"] for s in other_api.get("/wearables/sources").json())


def test_sync_endpoint_runs_and_reports(user, api, serve):
    servers = serve(
        [day("2026-06-10", "UTC", {"limitless": [conversation("ll-1", datetime(2026, 6, 10, 15, tzinfo=UTC), LINES)]})]
    )
    connect(user, servers, "limitless")
    r = api.post("/wearables/sync", {"source": "limitless", "date": "2026-06-10", "days": 1})
    assert r.status_code == 200
    assert r.json()[0]["status"] == "ok" and r.json()[0]["days_changed"] == 1
    status = api.get("/wearables/status").json()
    assert status["enabled"] is True
    assert next(s for s in status["sources"] if s["kind"] == "limitless")["days"] == 1


def test_sync_provider_failure_is_a_502_without_the_key(user, api, serve):
    servers = serve([])
    services.update_source(
        owner=user,
        kind="limitless",
        enabled=True,
        base_url=servers.base_urls["limitless"],
        credentials={"api_key": "wrong-key-777"},
    )
    r = api.post("/wearables/sync", {"source": "limitless", "days": 1})
    assert r.status_code == 502 and "wrong-key-777" not in r.content.decode()


def test_sync_with_nothing_enabled_is_a_400(api):
    r = api.post("/wearables/sync", {})
    assert r.status_code == 400 and "No source is enabled" in r.json()["detail"]


def test_redaction_rules_validate_and_scrub_stored_days(user, api, serve, django_capture_on_commit_callbacks):
    synced(user, serve)
    assert api.post("/wearables/redaction-rules", {"pattern": "(unclosed"}).status_code == 422
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post("/wearables/redaction-rules", {"pattern": r"movers?"})
    assert r.status_code == 201
    hit = api.get("/wearables/transcripts/search", {"q": "Saturday"}).json()["hits"][0]
    assert "movers" not in hit["text"] and "[redacted]" in hit["text"]


def test_corrections_api_round_trip(user, api, serve, django_capture_on_commit_callbacks):
    synced(user, serve)
    with django_capture_on_commit_callbacks(execute=True):
        r = api.post("/wearables/corrections", {"wrong": "Saturday", "right": "Sunday", "source": "limitless"})
    assert r.status_code == 201
    assert api.get("/wearables/corrections").json()[0]["right"] == "Sunday"
    assert api.get("/wearables/transcripts/search", {"q": "Sunday"}).json()["hits"]
    assert api.delete(f"/wearables/corrections/{r.json()['id']}").status_code == 204


def test_memories_endpoint_delegates(api):
    r = api.get("/wearables/memories", {"date": "2026-06-10"})
    assert r.status_code == 200 and isinstance(r.json(), list)
