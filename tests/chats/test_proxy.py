"""The memory proxy against the local model imitation: recall block in the system prompt, streaming passed
through event by event, the exchange recorded through ingest, off unless an upstream is configured."""

from __future__ import annotations

import json

import pytest
from django.test import override_settings

from chats.models import ChatSession, ChatTurn
from tests.factories import FactFactory
from tests.support.openai_server import OpenAIImitation

pytestmark = pytest.mark.django_db


@pytest.fixture
def upstream():
    server = OpenAIImitation().start()
    server.chat_handler = lambda messages: "Pack your rain jacket for Bergen."
    with override_settings(ALMANAC_PROXY_UPSTREAM_URL=server.base_url, ALMANAC_PROXY_UPSTREAM_KEY="sk-upstream"):
        yield server
    server.stop()


def _post(client, token, body, **headers):
    return client.post("/v1/chat/completions", json.dumps(body), content_type="application/json",
                       HTTP_AUTHORIZATION=f"Bearer {token}", **headers)  # fmt: skip


BODY = {"model": "gpt-x", "messages": [{"role": "system", "content": "You are terse."},
                                       {"role": "user", "content": "What does Marcus keep on the roof?"}]}  # fmt: skip


def test_the_recall_block_goes_into_the_system_prompt_and_the_exchange_is_recorded(client, api, user, upstream):
    from ledger.services import ensure_entity

    ensure_entity(owner=user, name="Marcus", kind="person")
    FactFactory(owner=user, content="Marcus keeps bees on the roof", status="accepted")
    r = _post(client, api.token, BODY)
    assert r.status_code == 200, r.content
    assert r.json()["choices"][0]["message"]["content"] == "Pack your rain jacket for Bergen."
    sent = upstream.requests[-1]["body"]["messages"]
    assert sent[0]["role"] == "system" and sent[0]["content"].startswith("You are terse.")
    assert "bees" in sent[0]["content"] and len(sent) == 2
    session = ChatSession.objects.get(owner=user, source_key="chat:proxy")
    texts = list(ChatTurn.objects.filter(session=session).values_list("text", flat=True))
    assert texts == ["What does Marcus keep on the roof?", "Pack your rain jacket for Bergen."]
    assert "bees" not in " ".join(texts)  # the injected block is not recorded as something anyone said


def test_streaming_passes_events_through_and_records_the_joined_reply(client, api, user, upstream):
    r = _post(client, api.token, {**BODY, "stream": True, "stream_options": {"include_usage": True}},
              HTTP_X_ALMANAC_CONVERSATION="trip-1")  # fmt: skip
    assert r.status_code == 200 and r["Content-Type"].startswith("text/event-stream")
    raw = b"".join(r.streaming_content).decode()
    events = [e for e in raw.split("\n\n") if e.startswith("data: ")]
    assert events[-1] == "data: [DONE]"
    chunks = [json.loads(e[6:]) for e in events[:-1]]
    assert "".join(c["choices"][0]["delta"].get("content", "") for c in chunks if c["choices"]) == (
        "Pack your rain jacket for Bergen.")  # fmt: skip
    assert chunks[-1]["choices"] == [] and chunks[-1]["usage"]["total_tokens"] > 0
    session = ChatSession.objects.get(owner=user, external_id="trip-1")
    assert session.turns.get(role="assistant").text == "Pack your rain jacket for Bergen."


def test_a_follow_up_appends_to_the_same_conversation(client, api, user, upstream):
    _post(client, api.token, BODY)
    follow = {**BODY, "messages": [*BODY["messages"], {"role": "assistant", "content": "Pack your rain jacket for Bergen."},
                                   {"role": "user", "content": "And for Oslo?"}]}  # fmt: skip
    _post(client, api.token, follow)
    session = ChatSession.objects.get(owner=user, source_key="chat:proxy")
    assert session.turn_count == 4


def test_upstream_errors_pass_through_and_nothing_is_recorded(client, api, user, upstream):
    upstream.mode = "error"
    r = _post(client, api.token, BODY)
    assert r.status_code == 500 and "error" in r.json()
    assert not ChatSession.objects.filter(owner=user).exists()
    assert "sk-upstream" not in r.content.decode()


def test_the_proxy_needs_a_token_a_json_body_and_an_upstream(client, api, upstream):
    assert client.post("/v1/chat/completions", "{}", content_type="application/json").status_code == 401
    bad = client.post("/v1/chat/completions", "nope", content_type="application/json",
                      HTTP_AUTHORIZATION=f"Bearer {api.token}")  # fmt: skip
    assert bad.status_code == 400
    assert _post(client, api.token, {"model": "x", "messages": []}).status_code == 422
    with override_settings(ALMANAC_PROXY_UPSTREAM_URL=""):
        assert _post(client, api.token, BODY).status_code == 404
