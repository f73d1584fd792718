"""Background distillation: the idle sweeper, retries, switched-off sources, failures reported and never
half-written (the model-written digest and its fallback: tests/llm/test_chats_digest.py)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from chats.models import ChatSession, ChatTurn
from chats.services import distilling
from ledger.models import Episode

pytestmark = pytest.mark.django_db

TURNS = [{"user": "Set up nightly backups of the Postgres database to the NAS, keep fourteen days.",
          "assistant": "Added a systemd timer running pg_dump at 02:00 into /mnt/nas/backups with 14-day pruning."}]  # fmt: skip


def _later(minutes=10):
    return timezone.now() + timedelta(minutes=minutes)


# The model-written digest and its deterministic fallback (no dead-letter on a model failure): tests/llm/.


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


def test_writing_memories_returns_how_many_memories_distill_wrote(api, user):
    from distill.policies import update_policy
    from ledger.choices import Status
    from ledger.models import Fact

    said = "I am allergic to shellfish. My sister Priya lives in Lisbon and works as a pharmacist."
    api.post("/memory/ingest", {"conversation_id": "c2", "turns": [{"user": said, "assistant": "Noted."}]})
    session = ChatSession.objects.get(owner=user, external_id="c2")
    update_policy(owner=user, source_key=session.source_key, mode="review")  # every claim is written, asked
    written = distilling._write_memories(user, session, list(session.turns.order_by("index")))
    new = Fact.objects.filter(owner=user, status__in=[Status.ACCEPTED, Status.PENDING_REVIEW]).count()
    assert new > 0
    assert written == new
