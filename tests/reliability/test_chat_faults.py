"""Chat distillation under faults: the database connection cut mid-pass (retried, nothing half-written) and a worker
that dies after claiming a session (the claim is a lease: the session becomes due again, nothing is stuck)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from chats.models import ChatSession, ChatTurn
from chats.services import distilling
from chats.services import ingest as ingest_services
from ledger import chain
from ledger.models import Commit, Episode
from tests.reliability.dbfaults import cut_on_call

TURNS = [
    {
        "user": "Set up nightly backups of the Postgres database to the NAS, keep fourteen days of them.",
        "assistant": "Added a systemd timer running pg_dump at 02:00 into /mnt/nas/backups with 14-day pruning.",
    },
    {
        "user": "I prefer restic over rsync for anything offsite, and my NAS is the Synology in the hall closet.",
        "assistant": "Noted: restic for offsite copies; the Synology stays the local target.",
    },
]


def later(minutes: float) -> timezone.datetime:
    return timezone.now() + timedelta(minutes=minutes)


def pending(owner) -> int:
    return ChatTurn.objects.filter(owner=owner, distilled_at__isnull=True).count()


@pytest.mark.django_db(transaction=True)
@pytest.mark.slow
def test_connection_lost_mid_distillation_is_retried_and_lands_once(user, monkeypatch):
    ingest_services.ingest(owner=user, agent_id="t", conversation_id="c1", turns=TURNS)
    state, wrapper = cut_on_call(distilling, "_write_memories", call=1)
    monkeypatch.setattr(distilling, "_write_memories", wrapper)

    ((_, outcome),) = distilling.drain_due(now=later(2))

    assert state["cut"] and outcome == "queued"  # a retry is due, not an error nobody picks up
    session = ChatSession.objects.get(owner=user)
    assert session.attempts == 1 and session.distill_due_at is not None
    assert not Episode.objects.filter(owner=user).exists() and not Commit.objects.filter(owner=user).exists()
    assert pending(user) == 4
    monkeypatch.undo()

    assert [o for _, o in distilling.drain_due(now=later(30))] == ["distilled"]
    episodes, commits = Episode.objects.filter(owner=user).count(), Commit.objects.filter(owner=user).count()
    assert episodes >= 1 and pending(user) == 0
    assert distilling.drain_due(now=later(90)) == []  # nothing left to do, nothing written twice
    assert (Episode.objects.filter(owner=user).count(), Commit.objects.filter(owner=user).count()) == (
        episodes,
        commits,
    )
    assert chain.verify(user).ok and chain.rebuild(user, write=False).identical_before


@pytest.mark.django_db
def test_a_worker_dying_after_its_claim_leaves_the_session_due_again(user, monkeypatch):
    ingest_services.ingest(owner=user, agent_id="t", conversation_id="c1", turns=TURNS)

    def killed(**kwargs):
        raise SystemExit(137)  # the process ends here, as SIGKILL would end it

    monkeypatch.setattr(distilling, "distill_session", killed)
    with pytest.raises(SystemExit):
        distilling.drain_due(now=later(2))
    monkeypatch.undo()

    assert distilling.drain_due(now=later(10)) == []  # the claim still holds: no second worker doubles up
    assert [o for _, o in distilling.drain_due(now=later(2) + distilling.CLAIM_LEASE)] == ["distilled"]
    assert pending(user) == 0 and ChatSession.objects.get(owner=user).distill_due_at is None
