"""Concurrent writers against real PostgreSQL (threads, each with its own connection): one row per claim and
one entity per person, however the passes interleave."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta

import pytest
from django.db import IntegrityError, connections

from distill.conversation import Conversation, Speaker, Turn
from distill.services import distill
from ledger import chain, services
from ledger.models import Entity, Fact
from tests.factories import EvidenceInFactory

pytestmark = pytest.mark.django_db(transaction=True)


def _race(n: int, work) -> list:
    barrier = threading.Barrier(n)
    results: list = [None] * n

    def run(i):
        try:
            barrier.wait(timeout=20)
            results[i] = work(i)
        except Exception as exc:  # noqa: BLE001 - recorded for the assertions
            results[i] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    return results


def test_concurrent_proposals_naming_a_new_person_create_one_entity_and_one_fact(user):
    def work(i):
        return services.propose_fact(
            owner=user,
            content="Ottilie Brandt repairs harpsichords in Ghent",
            subject="third_party",
            person="Ottilie Brandt",
            source_label=f"wearable:device{i}",
            evidence=EvidenceInFactory(source_label=f"wearable:device{i}"),
        )

    results = _race(4, work)
    assert not [r for r in results if isinstance(r, Exception)], results
    assert Entity.objects.filter(owner=user, name="Ottilie Brandt").count() == 1
    assert Fact.objects.filter(owner=user).count() == 1
    assert sorted(r.outcome for r in results) == ["admitted", "corroborated", "corroborated", "corroborated"]
    assert chain.verify(user).ok


def test_the_database_refuses_a_second_live_entity_with_the_same_name(user):
    services.ensure_entity(owner=user, name="Ottilie Brandt")
    ent = Entity.objects.get(owner=user)
    with pytest.raises(IntegrityError):
        Entity.objects.create(
            owner=user, public_id=ent.public_id.hex[::-1], name="ottilie brandt", recorded_at=ent.recorded_at
        )


def test_two_memory_passes_for_one_day_at_once_store_each_claim_once(user):
    me, friend = Speaker("Alice Example", is_owner=True), Speaker("Ottilie Brandt")
    start = datetime.fromisoformat("2026-10-02T18:00:00+00:00")
    lines = [
        (friend, "I finally finished restoring the Flemish harpsichord."),
        (me, "I have been playing the viola da gamba for nine years."),
        (friend, "Ottilie Brandt will tune it on Saturday morning."),
        (me, "I am allergic to cedar shavings."),
    ]
    turns = [Turn(i, s, text, at=start + timedelta(seconds=15 * i)) for i, (s, text) in enumerate(lines)]

    def work(_):
        conv = Conversation(
            source_key="wearable:limitless",
            source_type="transcript",
            scope_key="wearable:limitless:2026-10-02",
            day_key="2026-10-02",
            turns=list(turns),
            external_id="c-1",
            started_at=start,
        )
        return distill(owner=user, conversations=[conv], scope_key=conv.scope_key, source_key=conv.source_key)

    results = _race(3, work)
    assert not [r for r in results if isinstance(r, Exception)], results
    contents = list(Fact.objects.filter(owner=user).values_list("content", flat=True))
    assert contents and len(contents) == len(set(contents))
    names = list(Entity.objects.filter(owner=user).values_list("name", flat=True))
    assert len(names) == len({n.lower() for n in names})
    assert sum(len(r.facts) for r in results) == len(contents)  # accepted, asked or kept as dropped: once
    assert chain.verify(user).ok
