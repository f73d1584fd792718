"""The database connection cut mid-sync and mid-distillation (``pg_terminate_backend``, what a PostgreSQL restart
does to every client): what was being written is rolled back whole, the rest carries on after a reconnect, and a
re-run stores everything exactly once."""

from __future__ import annotations

import importlib
from datetime import UTC, date, datetime, timedelta

import pytest
from django.db import DatabaseError, connection, connections
from django.db.models import Count
from django.utils import timezone

from ledger import chain
from ledger.models import Commit, Fact
from tests.reliability.dbfaults import cut_on_call
from tests.reliability.faults import KEY, fast_connectors
from tests.wearables.days import conversation, day
from wearables import services
from wearables.models import Conversation, DayTranscript, SyncRun, Utterance
from wearables.services.memories import run_memory_pass

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

transcripts = importlib.import_module("wearables.services.transcripts")
sync_module = importlib.import_module("wearables.services.sync")

DAYS = [date(2026, 6, 8), date(2026, 6, 9), date(2026, 6, 10)]
LINES = [
    ("Priya", False, "Did you sign the lease for the new apartment yet?"),
    ("user", True, "I signed it this morning, I live at the Marlow on Fifth Street now."),
    ("Priya", False, "Nice. Are you still allergic to peanuts? I'm baking for the party."),
    ("user", True, "Yes, I'm allergic to peanuts, and I started learning the cello last month."),
    ("Priya", False, "My sister Dana moves to Denver in August for her new job."),
]


def provider_days(server) -> None:
    for n, d in enumerate(DAYS):
        start = datetime(d.year, d.month, d.day, 15, 0, tzinfo=UTC)
        convs = [
            conversation(f"c-{d}-{i}", start + timedelta(minutes=20 * i), LINES[i:] + LINES[:i]) for i in range(2 + n)
        ]
        server.add_days([day(d.isoformat(), "UTC", {"limitless": convs})])


def stored(owner) -> list[tuple]:
    """Per day: (date, conversations, utterances, distinct indexes), plus no conversation stored twice."""
    dup_convs = Conversation.objects.values("transcript", "external_id").annotate(n=Count("pk")).filter(n__gt=1)
    assert not dup_convs.exists()
    out = []
    for t in DayTranscript.objects.filter(owner=owner).order_by("local_date"):
        indexes = list(Utterance.objects.filter(transcript=t).values_list("index", flat=True))
        out.append((t.local_date, t.conversations.count(), len(indexes), len(set(indexes))))
    return out


def test_connection_lost_while_writing_a_day_rolls_that_day_back_and_writes_it_again_once(
    user, other_user, limitless, monkeypatch
):
    fast_connectors(monkeypatch)
    provider_days(limitless)
    for owner in (user, other_user):
        services.update_source(
            owner=owner, kind="limitless", enabled=True, base_url=limitless.base_url, credentials={"api_key": KEY}
        )
    services.sync(owner=other_user, source="limitless", dates=DAYS)  # the reference: the same days, no fault
    reference = stored(other_user)
    state, wrapper = cut_on_call(transcripts, "_store_conversations", call=2)
    monkeypatch.setattr(transcripts, "_store_conversations", wrapper)

    run = services.sync(owner=user, source="limitless", dates=DAYS)

    assert state["cut"] and state["calls"] == 4  # the second day's write was cut, then written again
    assert run.status == SyncRun.Status.OK and run.finished_at is not None and run.days_changed == 3
    assert run.warnings == [f"2026-06-09: {sync_module.DB_LOST}; written again once the database was back"]
    assert stored(user) == reference and [row[1] for row in reference] == [2, 3, 4]

    monkeypatch.undo()
    fast_connectors(monkeypatch)
    again = services.sync(owner=user, source="limitless", dates=DAYS)
    assert again.status == SyncRun.Status.OK and again.days_changed == 0
    assert stored(user) == reference
    assert not SyncRun.objects.filter(status=SyncRun.Status.RUNNING).exists()


def test_a_run_left_open_by_a_dead_worker_is_closed_by_the_next_sync(user, limitless, monkeypatch):
    fast_connectors(monkeypatch)
    provider_days(limitless)
    source = services.update_source(
        owner=user, kind="limitless", enabled=True, base_url=limitless.base_url, credentials={"api_key": KEY}
    )
    window = {"owner": user, "source": source, "window_start": DAYS[0], "window_end": DAYS[-1]}
    old = SyncRun.objects.create(**window)
    crashed = SyncRun.objects.create(**window)
    live = SyncRun.objects.create(**window)
    SyncRun.objects.filter(pk=old.pk).update(started_at=timezone.now() - sync_module.INTERRUPTED_AFTER * 2)
    other_worker = connections.create_connection("default")  # a sync still going in another process
    try:
        with other_worker.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_lock(%s, %s)", [sync_module.RUN_LOCK_CLASS, live.pk])

        services.sync(owner=user, source="limitless", dates=DAYS)
    finally:
        other_worker.close()

    for run in (old, crashed, live):
        run.refresh_from_db()
    assert old.status == SyncRun.Status.FAILED and old.finished_at and "interrupted" in old.errors[0]
    assert crashed.status == SyncRun.Status.FAILED  # recent, but no process holds its lock: it died
    assert live.status == SyncRun.Status.RUNNING  # still running in another worker: left alone


def _memory_state(owner) -> tuple:
    facts = sorted(Fact.objects.filter(owner=owner).values_list("content", "status"))
    return Commit.objects.filter(owner=owner).count(), facts


def test_connection_lost_mid_distillation_writes_nothing_and_a_rerun_writes_it_once(user, limitless, monkeypatch):
    fast_connectors(monkeypatch)
    provider_days(limitless)
    services.update_source(
        owner=user, kind="limitless", enabled=True, base_url=limitless.base_url, credentials={"api_key": KEY}
    )
    services.sync(owner=user, source="limitless", dates=DAYS[:1])
    transcript = DayTranscript.objects.get(owner=user)
    state, wrapper = cut_on_call(chain, "_insert_commit", call=2)
    monkeypatch.setattr(chain, "_insert_commit", wrapper)

    with pytest.raises(DatabaseError):
        run_memory_pass(transcript=transcript)
    connection.close()  # what the worker does after a failed task: a fresh connection for the next one

    assert state["cut"] and state["calls"] >= 2
    assert _memory_state(user) == (0, [])  # the pass is one transaction: none of it survived
    monkeypatch.undo()

    run_memory_pass(transcript=transcript)
    after = _memory_state(user)
    assert after[0] >= 2 and after[1]
    run_memory_pass(transcript=transcript)  # the retry the broker would make: same scope, nothing new
    assert _memory_state(user) == after
    assert chain.verify(user).ok
    assert chain.rebuild(user, write=False).identical_before
