"""POST /api/v1/memory/ingest `mode`: an agent that sends only the new turn pair each call (`append`) keeps the
whole history; a retried call adds nothing; the default (`auto`, the whole conversation so far) still replaces a
conversation that changed, and says so."""

from __future__ import annotations

import pytest

from chats.models import ChatSession, ChatTurn
from ledger.models import Episode

pytestmark = pytest.mark.django_db

PAIRS = [
    {"user": "Which bus goes from the harbour to the old observatory on Sundays?",
     "assistant": "Line 14 runs hourly on Sundays; the stop is opposite the ferry terminal."},
    {"user": "And how long is the ride, roughly, if I leave just after ten?",
     "assistant": "About thirty-five minutes; the 10:05 bus reaches the observatory at 10:40."},
    {"user": "Remind me to buy a day ticket at the kiosk before boarding.",
     "assistant": "Noted: buy a day ticket at the harbour kiosk before the 10:05 bus."},
]  # fmt: skip


def _send(api, pairs, **kw):
    r = api.post("/memory/ingest", {"conversation_id": "trip", "turns": pairs, **kw})
    assert r.status_code == 200, r.content
    return r.json()


def _texts(user) -> list[str]:
    return list(ChatTurn.objects.filter(owner=user).order_by("index").values_list("text", flat=True))


def test_one_pair_per_call_in_append_mode_keeps_every_turn(api, user):
    for n, pair in enumerate(PAIRS, start=1):
        body = _send(api, [pair], mode="append")
        assert (body["turns_added"], body["turns_total"], body["replaced"]) == (2, 2 * n, False)
    assert _texts(user) == [p[k] for p in PAIRS for k in ("user", "assistant")]
    assert list(ChatTurn.objects.filter(owner=user).values_list("index", flat=True)) == list(range(6))


def test_a_retried_append_adds_nothing(api, user):
    _send(api, PAIRS[:1], mode="append")
    _send(api, PAIRS[1:2], mode="append")
    again = _send(api, PAIRS[1:2], mode="append")  # the client did not see the answer and sent it again
    assert (again["turns_added"], again["turns_total"]) == (0, 4)
    assert ChatTurn.objects.filter(owner=user).count() == 4


def test_appended_turns_agree_with_a_later_whole_conversation_resend(api, user):
    """Appending then sending the whole conversation (auto) is recognised as the same conversation."""
    _send(api, PAIRS[:1], mode="append")
    _send(api, PAIRS[1:2], mode="append")
    whole = _send(api, PAIRS)  # auto: the stored four turns are a prefix of these six
    assert (whole["turns_added"], whole["turns_total"], whole["replaced"]) == (2, 6, False)
    assert len(set(_texts(user))) == 6


def test_append_after_a_distilled_session_requeues_it_and_the_episode_covers_all_turns(api, user):
    first = _send(api, PAIRS[:1], mode="append", flush=True)
    assert first["outcome"] == "distilled"
    second = _send(api, PAIRS[1:], mode="append", flush=True)
    assert second["outcome"] == "distilled" and second["turns_total"] == 6
    session = ChatSession.objects.get(owner=user)
    assert ChatTurn.objects.filter(session=session, distilled_at__isnull=True).count() == 0
    assert Episode.objects.filter(owner=user, public_id=session.episode_id_ref).exists()


def test_the_default_whole_conversation_mode_replaces_a_changed_conversation_and_reports_it(api, user):
    _send(api, PAIRS[:2])
    body = _send(api, PAIRS[2:])  # not a continuation of the stored turns: the conversation was replaced
    assert body["replaced"] is True and body["turns_total"] == 2
    assert _texts(user) == [PAIRS[2]["user"], PAIRS[2]["assistant"]]
    assert _send(api, PAIRS[2:])["replaced"] is False  # the same again: nothing changes


def test_an_unknown_mode_is_a_422_with_detail(api, user):
    r = api.post("/memory/ingest", {"conversation_id": "trip", "turns": PAIRS[:1], "mode": "merge"})
    assert r.status_code == 422 and "detail" in r.json()
    assert not ChatTurn.objects.filter(owner=user).exists()
