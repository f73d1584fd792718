"""Bands from each source's gate policy, priority over the whole queue, the daily budget and timeout decisions."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from distill.models import GatePolicy
from ledger import services as ledger_services
from ledger.models import Fact
from review import queries, services
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def _zone(owner, fact) -> str:
    return next(r.zone for r in queries.queue_plan(owner).rows if r.pk == fact.pk)


def test_band_zone_follows_each_sources_policy_thresholds(user, pending):
    strict = pending(user, "Alice keeps bees", trust=0.6, source="wearable:strict")
    lenient = pending(user, "Alice keeps goats", trust=0.6, source="wearable:lenient")
    GatePolicy.objects.create(owner=user, source_key="wearable:strict", review_trust=0.5, auto_approve_trust=0.9)
    GatePolicy.objects.create(owner=user, source_key="wearable:lenient", review_trust=0.3, auto_approve_trust=0.55)
    assert _zone(user, strict) == "borderline"
    assert _zone(user, lenient) == "above"
    GatePolicy.objects.filter(source_key="wearable:strict").update(review_trust=0.65, auto_approve_trust=0.9)
    assert _zone(user, strict) == "below"


def test_a_source_without_a_policy_uses_the_gate_defaults(user, pending):
    fact = pending(user, "Alice sails", trust=0.5, source="chat:import")
    assert _zone(user, fact) == "borderline"  # defaults: review 0.45, auto-approve 0.7


def test_policy_thresholds_change_the_order_not_a_constant(user, pending):
    a = pending(user, "Alice climbs", trust=0.62, source="src:a")
    b = pending(user, "Alice rows", trust=0.62, source="src:b")
    GatePolicy.objects.create(owner=user, source_key="src:a", review_trust=0.6, auto_approve_trust=0.64)
    GatePolicy.objects.create(owner=user, source_key="src:b", review_trust=0.1, auto_approve_trust=0.2)
    order = [r.pk for r in queries.queue_plan(user).rows]
    assert order == [a.pk, b.pk]  # a sits in the middle of its band; b is far above b's auto-approve line


def test_queue_is_ordered_over_the_whole_queue_not_the_newest_slice(user, pending):
    old_critical = pending(user, "Alice is allergic to penicillin", trust=0.575, importance="critical")
    Fact.objects.filter(pk=old_critical.pk).update(recorded_at=timezone.now() - timedelta(days=3))
    for n in range(60):
        pending(user, f"Alice mentioned topic number {n} once", trust=0.9, importance="low")
    body = queries.band_page(user, queries.Band.QUEUE, limit=5, show_all=True)
    assert body.items[0].fact.pk == old_critical.pk
    assert body.total == 61


def test_priority_weighs_importance_uncertainty_and_recency(user, pending):
    now = timezone.now()
    fresh = pending(user, "Alice starts a new job Monday", trust=0.575, importance="high")
    stale = pending(user, "Alice started a pottery class", trust=0.575, importance="high")
    Fact.objects.filter(pk=stale.pk).update(recorded_at=now - timedelta(days=30))
    trivial = pending(user, "Alice said hmm", trust=0.575, importance="trivial")
    order = [r.pk for r in queries.queue_plan(user, now=now).rows]
    assert order.index(fresh.pk) < order.index(stale.pk)
    assert order.index(fresh.pk) < order.index(trivial.pk)


def test_cursor_pages_walk_the_whole_queue_once(user, pending):
    facts = [pending(user, f"Alice item {n} on the list", trust=0.5 + n / 100) for n in range(7)]
    seen, cursor = [], None
    while True:
        page = queries.band_page(user, queries.Band.QUEUE, cursor=cursor, limit=3, show_all=True)
        seen += [i.fact.pk for i in page.items]
        cursor = page.next_cursor
        if not cursor:
            break
    assert sorted(seen) == sorted(f.pk for f in facts)
    assert len(seen) == 7


def test_daily_budget_caps_what_is_surfaced_and_counts_the_rest_as_held_back(user, pending):
    services.set_daily_budget(owner=user, daily_budget=3)
    facts = [pending(user, f"Alice thing {n} to check", trust=0.55 + n / 100) for n in range(5)]
    plan = queries.queue_plan(user)
    assert len(plan.surfaced) == 3
    assert plan.held_back == 2
    services.act(owner=user, fact=Fact.objects.get(public_id=next(iter(plan.surfaced))), action="accept")
    stats = queries.stats(user)
    assert (stats.budget_used, stats.queue_size, stats.held_back) == (1, 2, 2)
    assert queries.queue_size(owner=user) == 2
    assert len(facts) == 5


def test_snooze_and_subject_fixes_do_not_spend_the_budget(user, pending):
    services.set_daily_budget(owner=user, daily_budget=2)
    a = pending(user, "Alice swims", trust=0.575)
    pending(user, "Alice bakes", trust=0.575)
    services.act(owner=user, fact=a, action="not_about_me", subject="unknown")
    assert queries.stats(user).budget_used == 0


def test_timeout_decisions_are_counted_on_the_page(user, pending, auth_client):
    sure = pending(user, "Alice speaks Dutch", trust=0.9)
    Fact.objects.filter(pk=sure.pk).update(veracity=0.9)
    pending(user, "Alice maybe likes opera", trust=0.3)
    report = ledger_services.decide_timeouts(
        owner=user, older_than=timedelta(seconds=1), now=timezone.now() + timedelta(seconds=5)
    )
    assert report.decided == 2
    stats = queries.stats(user)
    assert stats.decided_today_by_timeout == 2
    assert stats.queue_size == 0
    page = auth_client.get("/review/").content.decode()
    assert "decided by timeout: 2 today" in page


def test_dropped_and_auto_accepted_bands(user, pending):
    auto = FactFactory(owner=user, content="Alice drinks coffee", status="accepted", author="extractor")
    by_person = pending(user, "Alice drinks tea")
    services.act(owner=user, fact=by_person, action="accept")
    dropped = FactFactory(owner=user, content="Alice maybe owns a boat", status="dropped")
    auto_ids = [i.fact.pk for i in queries.band_page(user, queries.Band.AUTO_ACCEPTED).items]
    assert auto_ids == [auto.pk]
    assert [i.fact.pk for i in queries.band_page(user, queries.Band.DROPPED).items] == [dropped.pk]


def test_conflicts_show_the_held_fact_beside_the_new_claim(user, auth_client):
    held = FactFactory(
        owner=user, content="Alice lives in Leeds", predicate="lives_in", arguments={"place": "Leeds"}, veracity=0.9
    )
    new = FactFactory(
        owner=user,
        content="Alice lives in York",
        predicate="lives_in",
        arguments={"place": "York"},
        veracity=0.3,
        importance="high",
    )
    assert new.status == "pending_review" and new.status_reason == "conflict-escalated"
    page = queries.band_page(user, queries.Band.CONFLICTS)
    assert [i.fact.pk for i in page.items] == [new.pk]
    assert page.items[0].held.pk == held.pk
    assert queries.band_page(user, queries.Band.QUEUE).total == 0
    html = auth_client.get("/review/?band=conflicts").content.decode()
    assert "You hold" in html and "Alice lives in Leeds" in html and "Alice lives in York" in html
    services.act(owner=user, fact=new, action="accept")
    held.refresh_from_db()
    assert held.status == "contradicted"
    services.undo(owner=user)
    held.refresh_from_db()
    new.refresh_from_db()
    assert (held.status, new.status) == ("accepted", "pending_review")


def test_dashboard_digest_counts_new_memories_and_what_needs_you(auth_client, user, pending):
    FactFactory(owner=user, content="Alice ate ramen", status="accepted")
    pending(user, "Alice may visit Oslo")
    html = auth_client.get("/").content.decode()
    assert "Today: 2 new memories" in html
    assert "1 needs you" in html


def test_a_claim_the_gate_dropped_shows_in_the_dropped_band_and_can_be_rescued(user):
    from distill.policies import update_policy
    from tests.distill.conftest import build_day
    from wearables.services.memories import run_memory_pass

    update_policy(owner=user, source_key="wearable:limitless", source_trust=0.1)
    transcript = build_day(user, "limitless", [("user", True, "Oh and I'm allergic to peanuts, so be careful.")])
    run_memory_pass(transcript=transcript)
    page = queries.band_page(user, queries.Band.DROPPED)
    assert page.total == 1
    item = page.items[0]
    assert "peanuts" in item.fact.content and item.zone == "below"
    assert any("below review" in w for w in item.why)
    services.act(owner=user, fact=item.fact, action="rescue")
    assert [r.pk for r in queries.queue_plan(user).rows] == [item.fact.pk]
