"""Two workers running the same pass at once (threads, each with its own PostgreSQL connection)."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from django.db import connections

from distill import policies
from distill import services as distill
from distill.conversation import Conversation, Speaker, Turn
from distill.models import Claim
from ledger.models import Entity, Fact

pytestmark = pytest.mark.django_db(transaction=True)

T0 = datetime(2026, 5, 3, 18, 0, tzinfo=UTC)


def _conversation() -> Conversation:
    owner, priya = Speaker("Alice Example", is_owner=True), Speaker("Ragna Solheim")
    turns = [
        (owner, "Good to see you, Ragna."),
        (priya, "I work as a pharmacist at the children's hospital."),
        (owner, "I'm allergic to penicillin, as it happens."),
    ]
    return Conversation(
        source_key="chat:test",
        source_type="chat",
        scope_key="chat:race",
        day_key="2026-05-03",
        turns=[Turn(index=i, speaker=s, text=t, at=T0) for i, (s, t) in enumerate(turns)],
    )


def _race(user, runs: int = 2) -> list:
    barrier = threading.Barrier(runs)
    results: list = []

    def worker():
        try:
            barrier.wait(timeout=10)
            results.append(
                distill.distill(
                    owner=user, conversations=[_conversation()], scope_key="chat:race", source_key="chat:test"
                )
            )
        except Exception as exc:  # noqa: BLE001 - recorded for the assertions
            results.append(exc)
        finally:
            connections.close_all()

    threads = [threading.Thread(target=worker) for _ in range(runs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    return results


def test_the_same_pass_twice_at_once_writes_each_claim_once(user):
    policies.update_policy(owner=user, source_key="chat:test", mode="auto")
    results = _race(user)
    assert not [r for r in results if isinstance(r, Exception)], results
    facts = list(Fact.objects.owned_by(user))
    claims = list(Claim.objects.owned_by(user))
    assert facts and len(claims) == len(facts)
    assert len({c.claim_hash for c in claims}) == len(claims)
    # One pass wrote; the other waited, found every claim keyed and only re-scored it: no second evidence row.
    assert sorted(sum(r.written.values()) for r in results) == [0, len(facts)]
    assert sorted(r.unchanged for r in results) == [0, len(facts)]
    assert all(f.evidence.count() == 1 for f in facts)
    assert Entity.objects.owned_by(user).filter(name="Ragna Solheim").count() <= 1
    assert Entity.objects.owned_by(user).filter(name="Ragna Solheim").count() == len(
        {f.subject_entity_id for f in facts if f.subject_entity_id}
    )
