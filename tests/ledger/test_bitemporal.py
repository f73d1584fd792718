"""Valid time vs record time: "as known at T1, what was true at T2"."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from ledger import chain, queries, services

pytestmark = pytest.mark.django_db


def at(y, m, d=1):
    return datetime(y, m, d, tzinfo=UTC)


@pytest.fixture
def clock(monkeypatch):
    """Set the ledger's record time (commit time)."""

    class Clock:
        now = at(2025, 1, 1)

        def set(self, when):
            self.now = when

    c = Clock()
    monkeypatch.setattr(chain.timezone, "now", lambda: c.now)
    return c


def home(user, known_at, valid_at):
    return [v["content"] for v in queries.as_of(owner=user, known_at=known_at, valid_at=valid_at)]


@pytest.fixture
def moved(user, clock):
    """Learned Jan 2025 the user lives in Denver (since 2020); learned Jul 2025 they moved to Boston in May."""
    clock.set(at(2025, 1, 10))
    services.propose_fact(
        owner=user,
        content="Lives in Denver",
        predicate="lives_in",
        arguments={"city": "Denver"},
        valid_from=at(2020, 1),
        status="accepted",
        veracity=0.8,
    )
    clock.set(at(2025, 7, 1))
    services.propose_fact(
        owner=user,
        content="Lives in Boston",
        predicate="lives_in",
        arguments={"city": "Boston"},
        valid_from=at(2025, 5),
        status="accepted",
        veracity=0.8,
    )


def test_what_we_believed_in_june_about_june(user, moved):
    assert home(user, known_at=at(2025, 6), valid_at=at(2025, 6)) == ["Lives in Denver"]


def test_what_we_believe_now_about_june(user, moved):
    assert home(user, known_at=at(2025, 8), valid_at=at(2025, 6)) == ["Lives in Boston"]


def test_what_we_believe_now_about_march(user, moved):
    assert home(user, known_at=at(2025, 8), valid_at=at(2025, 3)) == ["Lives in Denver"]


def test_nothing_was_known_before_it_was_recorded(user, moved):
    assert home(user, known_at=at(2024, 12), valid_at=at(2024, 12)) == []


def test_the_update_closed_the_old_validity_interval(user, moved):
    denver = queries.facts(owner=user, q="Denver").get()
    assert denver.valid_to == at(2025, 5) and denver.status == "accepted"
    assert denver.superseded_by is not None


def test_a_contradiction_retires_the_old_belief_from_that_record_time(user, clock):
    clock.set(at(2025, 1, 10))
    old = services.propose_fact(owner=user, content="Birthday is March 3", status="accepted", veracity=0.8).fact
    clock.set(at(2025, 2, 10))
    new = services.propose_fact(owner=user, content="Birthday is March 4", status="accepted", veracity=0.9).fact
    services.supersede(owner=user, old=old, new=new, kind="contradict")
    assert home(user, known_at=at(2025, 2, 1), valid_at=at(2025, 2, 1)) == ["Birthday is March 3"]
    assert home(user, known_at=at(2025, 3, 1), valid_at=at(2025, 2, 1)) == ["Birthday is March 4"]
    history = queries.as_of(owner=user, known_at=at(2025, 3, 1), use="uncertainty_history")
    assert [v["content"] for v in history] == ["Birthday is March 3"]


def test_rejection_removes_a_fact_from_later_views_only(user, clock):
    clock.set(at(2025, 1, 10))
    fact = services.propose_fact(owner=user, content="Plays the oboe", status="pending_review").fact
    clock.set(at(2025, 2, 10))
    services.decide(owner=user, fact=fact, status="rejected")
    assert home(user, known_at=at(2025, 2, 1), valid_at=at(2025, 2, 1)) == ["Plays the oboe"]
    assert home(user, known_at=at(2025, 3, 1), valid_at=at(2025, 2, 1)) == []
    fact.refresh_from_db()
    assert fact.retired_at == at(2025, 2, 10)


def test_as_of_results_carry_the_policy(user, clock):
    services.propose_fact(owner=user, content="Is learning Portuguese", status="pending_review")
    [view] = queries.as_of(owner=user, known_at=at(2025, 1, 2))
    assert view["permitted_uses"] == ["answers_with_disclaimer"]
    assert view["disclaimers"]
    assert queries.as_of(owner=user, known_at=at(2025, 1, 2), use="answers") == []
