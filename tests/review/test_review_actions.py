"""Each review action is a ledger commit by the reviewer; undo writes a new commit that reverts it."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from ledger.models import Commit, Entity, Fact, Refusal
from review import queries, services
from review.models import ReviewAction
from tests.factories import FactFactory

pytestmark = pytest.mark.django_db


def _reviewer_commits(owner) -> int:
    return Commit.objects.filter(owner=owner, author="reviewer").count()


def test_accept_and_reject_are_reviewer_commits(user, pending):
    a, r = pending(user, "Alice sings in a choir"), pending(user, "Alice hates music")
    services.act(owner=user, fact=a, action="accept")
    services.act(owner=user, fact=r, action="reject")
    assert _reviewer_commits(user) == 2
    last = Commit.objects.filter(owner=user).order_by("-seq").first()
    assert last.author == "reviewer" and last.mutation_types == ["set_status"]
    assert Fact.objects.get(pk=r.pk).status == "rejected"
    assert Refusal.objects.filter(owner=user, fact_public_id=r.public_id, lifted_at__isnull=True).exists()


def test_edit_refines_then_accepts(user, pending):
    fact = pending(user, "Alice has a dog named Rex")
    services.act(owner=user, fact=fact, action="edit", edit="Alice has a dog named Rufus")
    fact.refresh_from_db()
    assert (fact.content, fact.status) == ("Alice has a dog named Rufus", "accepted")
    types = [t for c in Commit.objects.filter(owner=user, author="reviewer") for t in c.mutation_types]
    assert types == ["refine_fact", "set_status"]  # one commit: the correction and the acceptance
    assert Commit.objects.filter(owner=user, author="reviewer").count() == 1


def test_unknown_action_and_missing_arguments_write_nothing(user, pending):
    fact = pending(user, "Alice knits")
    before = _reviewer_commits(user)
    for kwargs in (
        {"action": "maybe"},
        {"action": "edit", "edit": ""},
        {"action": "snooze"},
        {"action": "snooze", "snooze_until": date.today()},
        {"action": "merge"},
        {"action": "not_about_me"},
    ):
        with pytest.raises(services.InvalidAction):
            services.act(owner=user, fact=fact, **kwargs)
    assert _reviewer_commits(user) == before
    assert not ReviewAction.objects.exists()


def test_a_stale_item_is_refused(user, pending):
    fact = pending(user, "Alice is vegan")
    services.act(owner=user, fact=fact, action="accept")
    with pytest.raises(services.NotReviewable, match="already accepted"):
        services.act(owner=user, fact=fact, action="snooze", snooze_until=date.today() + timedelta(days=2))


def test_undo_of_a_rejection_brings_it_back_and_lifts_the_refusal(user, pending):
    fact = pending(user, "Alice owns a red bike")
    services.act(owner=user, fact=fact, action="reject")
    commits = _reviewer_commits(user)
    services.undo(owner=user)
    fact.refresh_from_db()
    assert fact.status == "pending_review"
    assert _reviewer_commits(user) == commits + 1  # a new commit, not a deleted one
    assert not Refusal.objects.filter(owner=user, fact_public_id=fact.public_id, lifted_at__isnull=True).exists()
    assert ReviewAction.objects.get().undone_at is not None
    with pytest.raises(services.NothingToUndo):
        services.undo(owner=user)


def test_undo_of_an_edit_restores_the_wording_and_the_queue(user, pending):
    fact = pending(user, "Alice drives a Volvo")
    services.act(owner=user, fact=fact, action="edit", edit="Alice drives a Saab")
    services.undo(owner=user)
    fact.refresh_from_db()
    assert (fact.content, fact.status) == ("Alice drives a Volvo", "pending_review")
    assert fact.pk in [r.pk for r in queries.queue_plan(user).rows]


def test_undo_reverts_only_the_last_action(user, pending):
    a, b = pending(user, "Alice jogs"), pending(user, "Alice reads sci-fi")
    services.act(owner=user, fact=a, action="accept")
    services.act(owner=user, fact=b, action="reject")
    services.undo(owner=user)
    assert Fact.objects.get(pk=a.pk).status == "accepted"
    assert Fact.objects.get(pk=b.pk).status == "pending_review"


def test_merge_moves_the_evidence_and_retires_the_duplicate(user, pending):
    held = FactFactory(owner=user, content="Alice works at the bakery on Main Street")
    dup = pending(user, "Alice works in the bakery on Main St")
    services.act(owner=user, fact=dup, action="merge", merge_into=str(held.public_id))
    dup.refresh_from_db()
    assert dup.status == "superseded" and dup.status_reason == f"merged-into:{held.public_id}"
    assert held.evidence.live().count() == 2
    commit = Commit.objects.filter(owner=user, author="reviewer").get()
    assert commit.mutation_types == ["add_evidence", "set_status"]
    services.undo(owner=user)
    dup.refresh_from_db()
    assert dup.status == "pending_review"
    assert held.evidence.count() == 1


def test_merge_into_itself_or_a_stranger_fact_is_refused(user, other_user, pending):
    fact = pending(user, "Alice plays chess")
    theirs = FactFactory(owner=other_user, content="Bob plays chess")
    for target in (fact.public_id, theirs.public_id, "not-a-uuid"):
        with pytest.raises(services.InvalidAction):
            services.act(owner=user, fact=fact, action="merge", merge_into=str(target))
    assert Fact.objects.get(pk=fact.pk).status == "pending_review"


def test_snooze_hides_until_the_date_then_returns(user, pending):
    fact = pending(user, "Alice might adopt a cat")
    until = queries.local_today(user) + timedelta(days=3)
    services.act(owner=user, fact=fact, action="snooze", snooze_until=until.isoformat())
    fact.refresh_from_db()
    assert fact.status == "pending_review" and fact.status_reason == f"snoozed-until:{until}"
    plan = queries.queue_plan(user)
    assert fact.pk not in [r.pk for r in plan.rows] and plan.snoozed == 1
    from django.utils import timezone

    later = queries.queue_plan(user, now=timezone.now() + timedelta(days=4))
    assert fact.pk in [r.pk for r in later.rows]
    services.undo(owner=user)
    assert fact.pk in [r.pk for r in queries.queue_plan(user).rows]


def test_not_about_me_reassigns_to_a_person_or_unknown(user, pending):
    fact = pending(user, "Has a flat in Porto")
    services.act(owner=user, fact=fact, action="not_about_me", subject="Priya Natarajan")
    fact.refresh_from_db()
    assert fact.subject_kind == "third_party" and fact.subject_entity.name == "Priya Natarajan"
    assert fact.status == "pending_review"  # still waits for a decision
    other = pending(user, "Likes loud music")
    services.act(owner=user, fact=other, action="not_about_me", subject="unknown")
    assert Fact.objects.get(pk=other.pk).subject_kind == "unknown"
    services.undo(owner=user)
    assert Fact.objects.get(pk=other.pk).subject_kind == "user"
    services.undo(owner=user)
    fact.refresh_from_db()
    assert fact.subject_kind == "user" and fact.subject_entity is None
    assert Entity.objects.filter(owner=user, name="Priya Natarajan").count() == 1


def test_rescue_puts_a_dropped_memory_back_in_the_queue(user):
    dropped = FactFactory(owner=user, content="Alice maybe moved to Bristol", status="dropped")
    services.act(owner=user, fact=dropped, action="rescue")
    dropped.refresh_from_db()
    assert dropped.status == "pending_review"
    assert dropped.pk in [r.pk for r in queries.queue_plan(user).rows]


def test_one_click_reject_of_an_auto_accepted_memory(user):
    fact = FactFactory(owner=user, content="Alice is a night owl", status="accepted")
    services.act(owner=user, fact=fact, action="reject")
    assert Fact.objects.get(pk=fact.pk).status == "rejected"


def test_bulk_accept_needs_the_confirmed_count_and_undo_reverts_the_batch(user, pending):
    facts = [pending(user, f"Alice visited museum {n}", source="wearable:limitless") for n in range(3)]
    pending(user, "Alice uses vim", source="chat:claude-code")
    with pytest.raises(services.NotReviewable, match="3 items match"):
        services.bulk(owner=user, band="queue", action="accept", source="wearable:limitless", expected=5)
    assert Fact.objects.filter(owner=user, status="accepted").count() == 0
    done = services.bulk(owner=user, band="queue", action="accept", source="wearable:limitless", expected=3)
    assert len(done) == 3
    assert sorted(Fact.objects.filter(owner=user, status="accepted").values_list("pk", flat=True)) == sorted(
        f.pk for f in facts
    )
    services.undo(owner=user)
    assert Fact.objects.filter(owner=user, status="accepted").count() == 0


def test_owners_never_see_or_undo_each_others_actions(user, other_user, pending):
    mine = pending(user, "Alice has a secret garden")
    theirs = pending(other_user, "Bob has a secret shed")
    assert [r.pk for r in queries.queue_plan(other_user).rows] == [theirs.pk]
    with pytest.raises(services.NotReviewable):
        services.act(owner=other_user, fact=mine, action="reject")
    services.act(owner=user, fact=mine, action="accept")
    with pytest.raises(services.NothingToUndo):
        services.undo(owner=other_user)
    assert Fact.objects.get(pk=mine.pk).status == "accepted"
    assert queries.stats(other_user).decided_today_by_person == 0
