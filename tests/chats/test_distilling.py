"""Background distillation: retries then dead-letter against a failing local model imitation, pending signals
drained when a model appears, the idle sweeper, and the model-written digest."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from chats.models import ChatSession, ChatTurn
from chats.services import distilling
from ledger.models import Episode
from tests.support.openai_server import OpenAIImitation

pytestmark = pytest.mark.django_db

TURNS = [{"user": "Set up nightly backups of the Postgres database to the NAS, keep fourteen days.",
          "assistant": "Added a systemd timer running pg_dump at 02:00 into /mnt/nas/backups with 14-day pruning."}]  # fmt: skip


@pytest.fixture
def model():
    server = OpenAIImitation().start()
    with override_settings(ALMANAC_LLM_BASE_URL=server.base_url, ALMANAC_LLM_MODEL="imitation",
                           ALMANAC_CHATS_DISTILLER="llm", ALMANAC_LLM_TIMEOUT=5.0):  # fmt: skip
        yield server
    server.stop()


def _later(minutes=10):
    return timezone.now() + timedelta(minutes=minutes)


@override_settings(ALMANAC_CHATS_MAX_ATTEMPTS=3)
def test_a_failing_model_is_retried_then_dead_lettered(api, user, model):
    model.mode = "error"
    first = api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS, "flush": True}).json()
    assert first["outcome"] == "queued"  # attempt 1 failed; a retry is due later
    session = ChatSession.objects.get(owner=user)
    assert session.attempts == 1 and session.distill_due_at > timezone.now()
    distilling.drain_due(now=_later())
    outcomes = distilling.drain_due(now=_later(30))
    assert outcomes[-1][1] == "dead_letter:3"
    assert api.get("/memory/ingest/c1").json()["outcome"] == "dead_letter:3"
    assert ChatTurn.objects.filter(owner=user, distilled_at__isnull=True).count() == 2  # kept, not lost
    assert len([r for r in model.requests if r["path"].endswith("/chat/completions")]) == 3


def test_invalid_model_json_counts_as_a_failed_attempt(api, user, model):
    model.mode = "invalid_json"
    assert api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS, "flush": True}).json()[
        "outcome"] == "queued"  # fmt: skip
    assert ChatSession.objects.get(owner=user).attempts == 1


def test_pending_signals_are_drained_when_a_model_becomes_available(api, user):
    with override_settings(ALMANAC_CHATS_DISTILLER="llm", ALMANAC_LLM_BASE_URL="", ALMANAC_LLM_MODEL=""):
        r = api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS, "flush": True}).json()
        assert r["outcome"] == "skipped:llm_unavailable"
        assert distilling.drain_due(now=_later()) == []  # still no model: nothing to do
    server = OpenAIImitation().start()
    server.chat_handler = lambda messages: json.dumps(
        {
            "title": "Nightly NAS backups",
            "gist": "Backups of Postgres to the NAS every night, kept 14 days.",
            "topics": ["backups"],
            "entities": ["NAS"],
            "decisions": ["pg_dump at 02:00"],
            "action_items": [],
        }
    )
    try:
        with override_settings(ALMANAC_LLM_BASE_URL=server.base_url, ALMANAC_LLM_MODEL="imitation",
                               ALMANAC_CHATS_DISTILLER="llm"):  # fmt: skip
            assert distilling.drain_due(now=_later())[0][1] == "distilled"
    finally:
        server.stop()
    ep = Episode.objects.get(owner=user, key__endswith=str(ChatSession.objects.get(owner=user).public_id))
    assert ep.title == "Nightly NAS backups" and ep.decisions == ["pg_dump at 02:00"]
    # The transcript reached the model fenced as data.
    sent = server.requests[0]["body"]["messages"][1]["content"]
    assert sent.startswith("<transcript>") and "pg_dump" in sent


def test_the_idle_sweeper_distils_only_sessions_whose_time_has_come(api, user):
    api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS})
    assert distilling.drain_due(now=timezone.now()) == []  # not idle for 60 s yet
    assert distilling.drain_due(now=_later(2))[0][1] == "distilled"
    assert distilling.drain_due(now=_later(3)) == []  # claimed once


def test_memory_switched_off_for_the_source_is_skipped(api, user):
    from distill.policies import get_policy

    policy = get_policy(user, "chat:ingest")
    policy.mode = "off"
    policy.save()
    r = api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS})
    assert r.json()["outcome"] == "skipped:memory_disabled"
    assert not ChatTurn.objects.filter(owner=user).exists()


def test_an_unexpected_failure_is_an_error_token_and_nothing_half_written(api, user, monkeypatch):
    from chats.services import lessons

    def boom(**kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(lessons, "observe", boom)
    r = api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS, "flush": True}).json()
    assert r["outcome"] == "error:RuntimeError"
    assert not Episode.objects.filter(owner=user).exists()
    assert ChatTurn.objects.filter(owner=user, distilled_at__isnull=True).count() == 2


def test_a_long_debounce_is_handed_to_the_scheduler_not_slept_in_a_worker(api, user):
    from django_q.models import Schedule

    from chats import tasks

    api.post("/memory/ingest", {"conversation_id": "c1", "turns": TURNS})
    session = ChatSession.objects.get(owner=user)
    assert tasks.distill_when_idle(session.pk) == "rescheduled"
    once = Schedule.objects.get(func="chats.tasks.distill_when_idle")
    assert once.schedule_type == Schedule.ONCE and once.next_run == session.distill_due_at
    assert tasks.distill_when_idle(session.pk + 10_000) is None  # gone: returns quietly
