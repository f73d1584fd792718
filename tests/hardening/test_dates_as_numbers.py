"""A number where the API expects a date or a time is refused (422), not read as seconds since 1970.

Found by ``bench/fuzz.py`` (schemathesis' negative-data check): ``GET /ledger/facts?valid_at=0.5`` answered 200
with the facts valid at 1970-01-01T00:00:00.5, and ``/wearables/memories?date=0`` the memories of 1970-01-01."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db

QUERIES = [
    ("/ledger/facts", "valid_at"),
    ("/ledger/facts", "known_at"),
    ("/ledger/refusals", "since"),
    ("/ledger/refusals/events", "since"),
    ("/wearables/memories", "date"),
    ("/wearables/transcript", "date"),
    ("/wearables/transcripts/search", "from"),
]


@pytest.mark.parametrize(("path", "name"), QUERIES)
@pytest.mark.parametrize("number", ["0", "0.5", "1780000000", "-3", "1e9"])
def test_a_number_as_a_date_or_time_query_parameter_is_refused(api, path, name, number):
    params = {name: number, **({"q": "tea"} if "search" in path else {})}

    response = api.get(path, params)

    assert response.status_code == 422, response.content
    assert "ISO 8601" in response.json()["detail"]


@pytest.mark.parametrize(
    ("path", "body"),
    [
        ("/memory/ingest", {"conversation_id": "c1", "turns": [], "session_date": 0}),
        ("/wearables/sync", {"date": 20260601}),
        ("/chats/conversations", {"external_id": "x", "started_at": 1780000000.5,
                                  "participants": [{"name": "me", "is_owner": True}]}),  # fmt: skip
    ],
)
def test_a_number_as_a_date_or_time_in_a_body_is_refused(api, path, body):
    response = api.post(path, body)

    assert response.status_code == 422 and "ISO 8601" in response.json()["detail"]


def test_iso_dates_and_times_are_still_read(api, user):
    assert api.get("/ledger/facts", {"valid_at": "2026-06-01T12:00:00+00:00"}).status_code == 200
    assert api.get("/ledger/refusals", {"since": "2026-06-01T12:00:00Z"}).status_code == 200
    assert api.get("/wearables/memories", {"date": "2026-06-01"}).status_code == 200
    body = {"conversation_id": "c2", "turns": [{"user": "hello", "assistant": "hi"}], "session_date": "2026-06-01"}
    assert api.post("/memory/ingest", body).status_code == 200


def test_the_document_still_says_date_time():
    from memory_site.api import api as ninja_api

    schema = ninja_api.get_openapi_schema()
    valid_at = next(p for p in schema["paths"]["/api/v1/ledger/facts"]["get"]["parameters"] if p["name"] == "valid_at")
    assert {"type": "string", "format": "date-time"} in valid_at["schema"]["anyOf"]
