"""Generic conversation import between named people (JSON and JSONL), owner = the is_owner participant."""

from __future__ import annotations

import json

import pytest

from chats.models import ChatSession, ChatTurn
from ledger.models import Episode, Fact

pytestmark = pytest.mark.django_db

CONVERSATION = {
    "external_id": "dinner-2026-11-20",
    "title": "Dinner planning",
    "started_at": "2026-11-20T18:00:00Z",
    "participants": [{"name": "Alice Example", "is_owner": True}, {"name": "Marcus Webb"}],
    "turns": [
        {"speaker": "Marcus Webb", "text": "Are we still doing the dinner at my place on Saturday?"},
        {"speaker": "Alice Example", "text": "Yes! I'm vegetarian now, so I'll bring a lentil dish for everyone."},
        {"speaker": "Marcus Webb", "text": "Perfect. I just started a new job at the hospital, so I'll be late."},
    ],
}


def test_a_conversation_is_stored_distilled_and_written_through_distill(api, user):
    r = api.post("/chats/conversations", CONVERSATION)
    assert r.status_code == 200, r.content
    body = r.json()
    assert body["outcome"] == "distilled" and body["turns_added"] == 3
    session = ChatSession.objects.get(owner=user)
    assert session.source_key == "chat:import"
    owners = dict(ChatTurn.objects.filter(owner=user).values_list("speaker", "is_owner"))
    assert owners == {"Alice Example": True, "Marcus Webb": False}
    assert Episode.objects.filter(owner=user, public_id=body["episode_id"]).exists()
    contents = list(Fact.objects.filter(owner=user).values_list("content", flat=True))
    assert contents, "distill wrote no memory from the conversation"


def test_reimport_is_idempotent(api, user):
    api.post("/chats/conversations", CONVERSATION)
    facts = Fact.objects.filter(owner=user).count()
    again = api.post("/chats/conversations", CONVERSATION).json()
    assert again["turns_added"] == 0
    assert ChatTurn.objects.filter(owner=user).count() == 3
    assert Fact.objects.filter(owner=user).count() == facts


def test_jsonl_form_imports_each_line(api, user, client):
    second = {**CONVERSATION, "external_id": "call-2", "turns": CONVERSATION["turns"][:2]}
    body = "\n".join(json.dumps(c) for c in (CONVERSATION, second)) + "\n\n"
    r = client.post("/api/v1/chats/conversations/jsonl", body, content_type="application/x-ndjson",
                    HTTP_AUTHORIZATION=f"Bearer {api.token}")  # fmt: skip
    assert r.status_code == 200, r.content
    assert [c["external_id"] for c in r.json()["conversations"]] == ["dinner-2026-11-20", "call-2"]


def test_bad_conversations_are_422_with_a_reason(api, client):
    unknown = {**CONVERSATION, "turns": [{"speaker": "Zed", "text": "hi"}]}
    r = api.post("/chats/conversations", unknown)
    assert r.status_code == 422 and "Zed" in r.json()["detail"]
    two_owners = {**CONVERSATION, "participants": [{"name": "A", "is_owner": True}, {"name": "B", "is_owner": True}]}
    assert api.post("/chats/conversations", two_owners).status_code == 422
    r = client.post("/api/v1/chats/conversations/jsonl", '{"external_id": "x"}\nnot json',
                    content_type="application/x-ndjson", HTTP_AUTHORIZATION=f"Bearer {api.token}")  # fmt: skip
    assert r.status_code == 422 and "line 2" in r.json()["detail"]


def test_a_relative_day_in_a_memory_is_dated_on_the_owners_local_day(api, user):
    from accounts.services import update_settings

    update_settings(user=user, timezone_name="America/Chicago")
    evening = {  # Friday 21:30 in Chicago is already Saturday in UTC
        "external_id": "call-2027-03-12",
        "started_at": "2027-03-13T03:30:00Z",
        "participants": [{"name": "Alice Example", "is_owner": True}, {"name": "Marcus Webb"}],
        "turns": [
            {"speaker": "Marcus Webb", "text": "Are you around this weekend?"},
            {"speaker": "Alice Example", "text": "No, I'm driving to Duluth tomorrow for my cousin's wedding."},
        ],
    }
    assert api.post("/chats/conversations", evening).status_code == 200
    contents = list(Fact.objects.filter(owner=user).values_list("content", flat=True))
    assert any("tomorrow (March 13)" in c for c in contents), contents
