"""POST /api/v1/memory/ingest answers bad input at once: an oversized turn, a NUL byte, a bad session_date."""

from __future__ import annotations

import json
import time

import pytest

from chats.models import ChatSession
from chats.text import redact

pytestmark = pytest.mark.django_db


def _post(client, api, body):
    start = time.monotonic()
    r = client.post("/api/v1/memory/ingest", json.dumps(body), content_type="application/json",
                    HTTP_AUTHORIZATION=f"Bearer {api.token}")  # fmt: skip
    return r, time.monotonic() - start


@pytest.mark.parametrize(
    ("turn", "session_date", "statuses"),
    [
        ({"user": "x" * 100_000}, None, {413, 422}),
        ({"user": "see\u0000this"}, None, {400, 422}),
        ({"user": "hello"}, "2026-13-45", {422}),
        ({"user": "hello"}, "yesterday", {422}),
    ],
)
def test_bad_ingest_input_is_refused_at_once(client, api, user, turn, session_date, statuses):
    body = {"conversation_id": "c-1", "turns": [turn], **({"session_date": session_date} if session_date else {})}
    r, took = _post(client, api, body)
    assert r.status_code in statuses and "detail" in r.json()
    assert took < 1.0
    assert not ChatSession.objects.filter(owner=user).exists()


def test_a_long_turn_without_spaces_is_stored_quickly(client, api, user):
    r, took = _post(client, api, {"conversation_id": "c-2", "turns": [{"user": "y" * 49_000}]})
    assert r.status_code == 200 and took < 3.0


def test_redaction_in_pieces_masks_the_same_things():
    text = ("Reach Dana at dana.orchard@example.net or +44 20 7946 0958. " * 200) + "token sk-" + "b" * 40
    pieces = redact(text)
    assert "dana.orchard@example.net" not in pieces and "sk-" + "b" * 40 not in pieces
    assert pieces.count("[email]") == 200
