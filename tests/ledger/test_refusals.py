"""Refusals that last: re-extraction, paraphrase, other sources, forgotten people, no time window."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ledger import queries, services
from ledger.forget import services as forget_services
from ledger.models import Fact, Refusal, RefusalHit
from tests.factories import EvidenceInFactory

pytestmark = pytest.mark.django_db


def propose(user, content, source="wearable:1", **kw):
    kw.setdefault("status", "pending_review")
    return services.propose_fact(
        owner=user, content=content, source_label=source, evidence=EvidenceInFactory(source_label=source), **kw
    )


def test_rejected_claim_is_refused_when_the_same_source_re_extracts_it(user):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected", reason="misheard")
    again = propose(user, "Dana is allergic to peanuts")
    assert again.outcome == "refused" and again.fact is None
    decision = Fact.objects.get(pk=first.fact.pk).last_commit_id
    assert again.refusal.decision_commit_id == decision
    hit = RefusalHit.objects.get(owner=user)
    assert hit.decision_commit_id == decision and hit.matched_on in ("proposition", "text")
    assert Fact.objects.filter(owner=user).count() == 1


@pytest.mark.parametrize(
    "paraphrase",
    [
        "dana is ALLERGIC to peanuts!",
        "Apparently Dana is allergic to peanuts",
        "Dana has a peanut allergy",
        "Dana's allergic to peanuts, she said",
    ],
)
def test_paraphrases_of_a_rejected_claim_are_refused(user, paraphrase):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected")
    assert propose(user, paraphrase).outcome == "refused"


def test_a_different_claim_about_the_same_subject_is_not_refused(user):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected")
    assert propose(user, "Dana is allergic to penicillin").outcome == "admitted"


def test_a_different_source_is_refused_too(user):
    first = propose(user, "Dana is allergic to peanuts", status="accepted")
    services.decide(owner=user, fact=first.fact, status="rejected")
    again = propose(user, "Dana is allergic to peanuts", source="chat", status="accepted")
    assert again.outcome == "refused" and not again.refusal.same_source
    assert again.refusal.decision_commit_id == Fact.objects.get(pk=first.fact.pk).last_commit_id


def test_a_change_stated_after_the_rejection_comes_back_for_review_only(user):
    first = propose(user, "Dana is allergic to peanuts", status="accepted")
    services.decide(owner=user, fact=first.fact, status="rejected")
    later = timezone.now() + timedelta(minutes=1)
    back = services.propose_fact(
        owner=user,
        content="Dana is now allergic to peanuts",
        source_label="chat",
        evidence=EvidenceInFactory(source_label="chat", quote="Dana is now allergic to peanuts", observed_at=later),
        status="accepted",
    )
    assert back.outcome == "admitted" and back.previously_rejected
    assert back.fact.status == "pending_review"
    assert back.fact.previously_rejected and "previously_rejected" in back.fact.uncertainty_reasons
    assert back.fact.refusal_commit_id == Fact.objects.get(pk=first.fact.pk).last_commit_id
    earlier = back.fact.evidence.get().details["previous_rejection"]
    assert earlier["fact_id"] == str(first.fact.public_id) and earlier["kind"] == "rejected"
    assert any("Previously rejected" in d for d in queries.fact_view(back.fact)["disclaimers"])


def test_retraction_is_a_lasting_refusal_too(user):
    fact = propose(user, "I am moving to Lisbon", status="accepted").fact
    services.retract(owner=user, fact=fact, reason="not true")
    assert propose(user, "I'm moving to Lisbon").outcome == "refused"


def test_refusals_have_no_time_window(user):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected")
    Refusal.objects.filter(owner=user).update(recorded_at=timezone.now() - timedelta(days=3650))
    assert propose(user, "Dana is allergic to peanuts").outcome == "refused"


def test_accepting_a_rejected_fact_lifts_its_refusal(user):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected")
    services.decide(owner=user, fact=first.fact, status="accepted", reason="user changed their mind")
    assert not queries.check_refusal(owner=user, content="Dana is allergic to peanuts", source_label="wearable:1")
    assert propose(user, "Dana is allergic to peanuts").outcome == "corroborated"


def test_refusals_are_scoped_to_the_subject(user):
    maya = propose(user, "She is pregnant", subject="third_party", person="Maya Lopez").fact
    services.decide(owner=user, fact=maya, status="rejected")
    other = propose(user, "She is pregnant", subject="third_party", person="Priya Shah")
    assert other.outcome == "admitted"


def test_refusals_are_per_owner(user, other_user):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected")
    assert propose(other_user, "Dana is allergic to peanuts").outcome == "admitted"


def test_forgotten_person_is_refused_from_every_source(user):
    fact = propose(user, "Maya is pregnant", subject="third_party", person="Maya Lopez").fact
    forget_services.forget_entity(owner=user, entity=fact.subject_entity)
    for source in ("wearable:1", "chat", "screen"):
        assert (
            propose(user, "Maya got a new job", subject="third_party", person="maya lopez", source=source).outcome
            == "refused"
        )
    assert propose(user, "Had lunch with Maya Lopez today", source="chat").outcome == "refused"
    assert propose(user, "Had lunch with Sam today", source="chat").outcome == "admitted"


def test_dropping_is_not_a_refusal(user):
    fact = propose(user, "Dana likes jazz").fact
    services.decide(owner=user, fact=fact, status="dropped")
    assert propose(user, "Dana likes jazz").outcome == "admitted"


def test_the_denial_of_a_rejected_claim_is_admitted(user):
    first = propose(user, "Dana is allergic to peanuts")
    services.decide(owner=user, fact=first.fact, status="rejected")
    assert propose(user, "Dana is not allergic to peanuts").outcome == "admitted"
