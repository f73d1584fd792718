"""Two real concurrent writers (threads, each with its own PostgreSQL connection)."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from ledger import chain, services
from ledger.exceptions import HeadConflict
from ledger.models import Commit, Fact

pytestmark = pytest.mark.django_db(transaction=True)


def _add(content: str) -> list[dict]:
    return [
        {
            "type": "add_fact",
            "subject_kind": "user",
            "status": "accepted",
            "capture_confidence": 0.8,
            "veracity": 0.8,
            "payload": {"content": content},
        }
    ]


def _race(user, contents: list[str], head: str) -> dict[str, object]:
    barrier = threading.Barrier(len(contents))
    outcome: dict[str, object] = {}

    def writer(content: str):
        try:
            barrier.wait(timeout=10)
            outcome[content] = services.commit(owner=user, mutations=_add(content), expected_head=head)
        except Exception as exc:  # noqa: BLE001 - recorded for the assertions
            outcome[content] = exc
        finally:
            connections.close_all()

    threads = [threading.Thread(target=writer, args=(c,)) for c in contents]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    return outcome


def test_two_concurrent_writers_on_the_same_head_have_exactly_one_winner(user):
    head = services.commit(owner=user, mutations=_add("base")).commit_id
    outcome = _race(user, ["writer A", "writer B"], head)
    winners = [c for c, r in outcome.items() if not isinstance(r, Exception)]
    losers = [r for r in outcome.values() if isinstance(r, Exception)]
    assert len(winners) == 1 and len(losers) == 1
    assert isinstance(losers[0], HeadConflict)
    assert losers[0].expected == head and losers[0].current == outcome[winners[0]].commit_id


def test_the_loser_retries_on_the_new_head_and_no_mutation_is_lost(user):
    head = services.commit(owner=user, mutations=_add("base")).commit_id
    outcome = _race(user, ["writer A", "writer B"], head)
    for content, result in outcome.items():
        if isinstance(result, HeadConflict):
            services.commit(owner=user, mutations=_add(content), expected_head=result.current)
    contents = set(Fact.objects.filter(owner=user).values_list("content", flat=True))
    assert contents == {"base", "writer A", "writer B"}
    assert Commit.objects.filter(owner=user).count() == 3
    assert chain.verify(user).ok


def test_writers_without_an_expected_head_are_serialised_not_lost(user):
    outcome = _race(user, [f"writer {i}" for i in range(6)], head=None)
    assert not [r for r in outcome.values() if isinstance(r, Exception)]
    assert Fact.objects.filter(owner=user).count() == 6
    assert sorted(Commit.objects.filter(owner=user).values_list("seq", flat=True)) == [1, 2, 3, 4, 5, 6]
    assert chain.verify(user).ok
    assert connection.is_usable()
