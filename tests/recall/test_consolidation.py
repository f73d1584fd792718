"""Consolidation passes: decay, merge, promote, evict, retention, orphan vectors; the task and the schedule."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from ledger.models import Episode, PinnedFact
from ledger.recall import consolidation, services, tasks
from ledger.recall.consolidation import decay_factor
from ledger.recall.models import ConsolidationRun, Embedding
from ledger.services import layers
from memory_site.schedules import SCHEDULES
from tests.factories import DayTranscriptFactory, EpisodeFactory, FactFactory, UtteranceFactory
from wearables.models import DayTranscript
from wearables.recall_provider import TranscriptProvider

pytestmark = pytest.mark.django_db


def age(model, pk, days):
    model.objects.filter(pk=pk).update(created_at=timezone.now() - timedelta(days=days))


def test_decay_multiplies_salience_by_exp_of_elapsed_days(user):
    pinned = layers.pin_fact(owner=user, fact=FactFactory(owner=user), salience=0.8)
    age(PinnedFact, pinned.pk, 30)
    run = consolidation.consolidate(owner=user)
    pinned.refresh_from_db()
    assert pinned.salience == pytest.approx(0.8 * decay_factor(30), rel=1e-3)
    assert run.counts["decayed"] >= 1
    # A second pass right away decays only by the time since the first pass (not again from creation).
    consolidation.consolidate(owner=user)
    before = pinned.salience
    pinned.refresh_from_db()
    assert pinned.salience == pytest.approx(before, rel=1e-3)


def test_merge_keeps_the_older_of_near_duplicate_episodes(user):
    now = timezone.now()
    old = EpisodeFactory(
        owner=user,
        summary="Planned the kitchen renovation budget with Sam",
        topics=["kitchen"],
        started_at=now - timedelta(days=3),
    )
    EpisodeFactory(
        owner=user,
        summary="Planned the kitchen renovation budget with Sam.",
        topics=["kitchen"],
        started_at=now - timedelta(days=1),
    )
    other = EpisodeFactory(owner=user, summary="Went climbing at the gym", started_at=now)
    run = consolidation.consolidate(owner=user)
    assert run.counts["merged_episodes"] == 1
    assert set(Episode.objects.owned_by(user).values_list("pk", flat=True)) == {old.pk, other.pk}


def test_promote_pins_a_fact_that_recurs_in_three_recent_episodes(user):
    fact = FactFactory(owner=user, content="Sam is training for the Boston marathon", status="accepted")
    lone = FactFactory(owner=user, content="Alice bought a blue kettle", status="accepted")
    now = timezone.now()
    summaries = [
        "Sam talked about marathon training for Boston over lunch",
        "Long run with Sam; the Boston marathon is in April and his training is on track",
        "Sam trains every morning now, Boston marathon qualifying time reached",
    ]
    for d, summary in enumerate(summaries):
        EpisodeFactory(owner=user, summary=summary, started_at=now - timedelta(days=d))
    run = consolidation.consolidate(owner=user)
    assert run.counts["promoted"] == 1
    pinned = PinnedFact.objects.get(owner=user)
    assert (pinned.fact_id, pinned.pinned_by, pinned.source_count) == (fact.pk, "consolidation", 3)
    assert not PinnedFact.objects.filter(fact=lone).exists()


def test_evict_unpins_weak_idle_facts_only(user):
    weak_idle = layers.pin_fact(owner=user, fact=FactFactory(owner=user), salience=0.1)
    weak_used = layers.pin_fact(owner=user, fact=FactFactory(owner=user), salience=0.1)
    strong = layers.pin_fact(owner=user, fact=FactFactory(owner=user), salience=0.9)
    for p in (weak_idle, weak_used, strong):
        age(PinnedFact, p.pk, 40)
    PinnedFact.objects.filter(pk=weak_used.pk).update(last_used_at=timezone.now() - timedelta(days=2))
    run = consolidation.consolidate(owner=user)
    assert run.counts["evicted"] == 1
    assert set(PinnedFact.objects.owned_by(user).values_list("pk", flat=True)) == {weak_used.pk, strong.pk}


def test_retention_prunes_old_transcripts_and_episodes_and_their_vectors(user):
    today = timezone.now().date()
    old_day = DayTranscriptFactory(source__owner=user, local_date=today - timedelta(days=40))
    new_day = DayTranscriptFactory(source=old_day.source, local_date=today)
    UtteranceFactory(conversation__transcript=old_day, index=0)
    UtteranceFactory(conversation__transcript=new_day, index=0)
    services.embed_pending(owner=user, provider=TranscriptProvider())
    EpisodeFactory(owner=user, started_at=timezone.now() - timedelta(days=40))
    with override_settings(ALMANAC_TRANSCRIPT_RETENTION_DAYS=30, ALMANAC_EPISODE_RETENTION_DAYS=30):
        run = consolidation.consolidate(owner=user)
    assert run.counts["pruned_utterance"] == 1 and run.counts["pruned_episode"] == 1
    assert list(DayTranscript.objects.owned_by(user).values_list("pk", flat=True)) == [new_day.pk]
    assert run.counts["orphan_vectors"] == 1
    assert Embedding.objects.owned_by(user).count() == 1


def test_retention_zero_keeps_everything(user):
    DayTranscriptFactory(source__owner=user, local_date=timezone.now().date() - timedelta(days=4000))
    run = consolidation.consolidate(owner=user)
    assert "pruned_utterance" not in run.counts
    assert DayTranscript.objects.owned_by(user).count() == 1


def test_consolidation_only_touches_its_owner(user, other_user):
    theirs = layers.pin_fact(owner=other_user, fact=FactFactory(owner=other_user), salience=0.1)
    age(PinnedFact, theirs.pk, 60)
    consolidation.consolidate(owner=user)
    assert PinnedFact.objects.filter(pk=theirs.pk, salience=0.1).exists()


def test_tasks_run_consolidation_and_are_scheduled(user):
    assert tasks.consolidate_user(user.pk)["decayed"] == 0
    assert tasks.consolidate_user(10**9) is None
    assert tasks.consolidate_all() >= 1
    assert ConsolidationRun.objects.owned_by(user).filter(status="ok").count() == 2
    names = {s["func"] for s in SCHEDULES}
    assert {"ledger.recall.tasks.consolidate_all", "ledger.recall.tasks.reembed_all"} <= names


def test_consolidate_api_runs_now_for_the_caller(api, user):
    resp = api.post("/memory/consolidate")
    assert resp.status_code == 200
    assert resp.json()["status"] == "ok" and "decayed" in resp.json()["counts"]
