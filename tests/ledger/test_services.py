"""Admission (dedup, corroboration, conflicts), evidence, entities, timeouts and memory layers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.exceptions import DomainError
from ledger import permitted_uses, queries, services, tasks
from ledger.exceptions import InvalidMutation
from ledger.forget import services as forget_services
from ledger.models import Entity, Fact, PinnedFact
from ledger.services import layers
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db


def test_propose_fact_stores_the_proposition_evidence_and_both_confidences(user):
    ev = EvidenceInFactory(
        quote="I work at Acme", extractor_id="deterministic", extractor_version="3", details={"trust_score": 0.74}
    )
    r = services.propose_fact(
        owner=user,
        content="Works at Acme",
        predicate="works_at",
        arguments={"org": "Acme"},
        evidence=ev,
        capture_confidence=0.7,
        veracity=0.65,
        importance="high",
        tags=["wearable"],
        source_label="wearable:1",
        status="accepted",
    )
    f = r.fact
    assert r.outcome == "admitted"
    assert (f.predicate, f.arguments, f.importance, f.tags) == ("works_at", {"org": "Acme"}, "high", ["wearable"])
    assert (f.capture_confidence, f.veracity, f.capture_band, f.veracity_band) == (0.7, 0.65, "medium", "medium")
    [stored] = f.evidence.all()
    assert (stored.quote, stored.extractor_version, stored.details) == ("I work at Acme", "3", {"trust_score": 0.74})
    assert "single_source" in f.uncertainty_reasons


def test_rejects_bad_input_with_a_message(user):
    with pytest.raises(InvalidMutation, match="content"):
        services.propose_fact(owner=user, content="  ")
    with pytest.raises(InvalidMutation, match="importance"):
        services.propose_fact(owner=user, content="x", importance="huge")
    with pytest.raises(InvalidMutation, match="person"):
        services.propose_fact(owner=user, content="x", subject="third_party")
    with pytest.raises(InvalidMutation, match="between 0 and 1"):
        services.propose_fact(owner=user, content="x", veracity=1.5)


def test_the_same_claim_from_another_source_corroborates_and_raises_veracity(user):
    first = FactFactory(owner=user, content="Drinks oat milk", veracity=0.6, on_duplicate="corroborate")
    again = services.propose_fact(
        owner=user, content="drinks oat milk", source_label="chat", evidence=EvidenceInFactory(source_label="chat")
    )
    assert again.outcome == "corroborated" and again.fact.pk == first.pk
    assert again.fact.veracity > 0.6 and again.fact.evidence.count() == 2
    assert "single_source" not in again.fact.uncertainty_reasons


def test_same_source_repetition_does_not_inflate_veracity(user):
    first = FactFactory(owner=user, content="Drinks oat milk", veracity=0.6)
    fact = services.propose_fact(
        owner=user, content="Drinks oat milk", source_label="wearable:1", evidence=EvidenceInFactory()
    ).fact
    assert fact.pk == first.pk and fact.veracity == 0.6


def test_skip_duplicates_writes_nothing(user):
    FactFactory(owner=user, content="Drinks oat milk")
    r = services.propose_fact(owner=user, content="Drinks oat milk", on_duplicate="skip", evidence=EvidenceInFactory())
    assert r.outcome == "duplicate" and r.commit_id == ""


def _home(user, city, veracity, importance="high", **kw):
    return services.propose_fact(
        owner=user,
        content=f"Lives in {city}",
        predicate="lives_in",
        arguments={"city": city},
        veracity=veracity,
        importance=importance,
        status="accepted",
        **kw,
    )


def test_an_ambiguous_material_conflict_is_escalated_to_review(user):
    held = _home(user, "Denver", 0.85).fact
    r = _home(user, "Boston", 0.3)
    assert r.outcome == "escalated" and r.conflict_with.pk == held.pk
    assert r.fact.status == "pending_review" and r.fact.status_reason == "conflict-escalated"
    assert Fact.objects.get(pk=held.pk).status == "accepted"


def test_a_confident_conflict_supersedes_by_policy(user):
    held = _home(user, "Denver", 0.8).fact
    r = _home(user, "Boston", 0.8)
    assert r.outcome == "admitted" and r.conflict_with.status == "contradicted"
    assert r.fact.supersedes == held.public_id


def test_a_weak_immaterial_conflict_is_kept_as_contradicted(user):
    _home(user, "Denver", 0.9, importance="trivial")
    r = _home(user, "Boston", 0.3, importance="trivial")
    assert r.outcome == "contradicted" and r.fact.status == "contradicted"


def test_tombstoning_one_support_keeps_the_fact_and_the_last_one_tombstones_it(user):
    fact = FactFactory(owner=user, content="Runs on Sundays")
    services.add_evidence(owner=user, fact=fact, evidence=EvidenceInFactory(source_label="chat"))
    first, second = fact.evidence.order_by("recorded_at")
    services.tombstone_evidence(owner=user, evidence=first, reason="wrong speaker")
    assert Fact.objects.get(pk=fact.pk).status == "accepted"
    services.tombstone_evidence(owner=user, evidence=second, source_deleted=True)
    fact.refresh_from_db()
    assert fact.status == "source_tombstoned" and fact.permitted_uses == []
    assert first.__class__.objects.get(pk=first.pk).tombstone_reason == "wrong speaker"


def test_third_party_facts_attach_to_a_person_found_by_alias(user):
    a = services.propose_fact(
        owner=user,
        content="Maya runs marathons",
        subject="third_party",
        person={"name": "Maya Lopez", "aliases": ["Maya"]},
    ).fact
    b = services.propose_fact(owner=user, content="Maya has a cat", subject="third_party", person="maya").fact
    assert a.subject_entity_id == b.subject_entity_id
    assert Entity.objects.filter(owner=user).count() == 1
    assert "About Maya Lopez, not you." in queries.fact_view(b)["disclaimers"]


def test_merge_and_split_entities(user):
    a = services.propose_fact(owner=user, content="Sam plays chess", subject="third_party", person="Sam Ortiz").fact
    b = services.propose_fact(owner=user, content="Sammy likes sushi", subject="third_party", person="Sammy").fact
    sam, sammy = a.subject_entity, b.subject_entity
    merged = services.merge_entities(owner=user, target=sam, others=[sammy])
    assert "Sammy" in merged.aliases
    assert Fact.objects.get(pk=b.pk).subject_entity_id == sam.pk
    assert queries.find_entity(owner=user, name="sammy").pk == sam.pk
    new = services.split_entity(owner=user, entity=merged, name="Sammy", fact_ids=[b.public_id])
    assert Fact.objects.get(pk=b.pk).subject_entity_id == new.pk
    assert "Sammy" not in Entity.objects.get(pk=sam.pk).aliases


def test_reassign_fact_subject(user):
    fact = FactFactory(owner=user, content="Is training for a triathlon")
    fact = services.reassign_fact_subject(owner=user, fact=fact, subject="third_party", person="Priya")
    assert fact.subject_kind == "third_party" and fact.subject_entity.name == "Priya"
    assert "third_party_subject" in fact.uncertainty_reasons


def test_timeout_decisions_are_made_and_counted(user, other_user):
    strong = FactFactory(owner=user, content="Prefers window seats", status="pending_review", veracity=0.8)
    weak = FactFactory(owner=other_user, content="Might like opera", status="pending_review", veracity=0.5)
    fresh = FactFactory(owner=user, content="Likes hiking", status="pending_review", veracity=0.8)
    Fact.objects.filter(pk__in=[strong.pk, weak.pk]).update(updated_at=timezone.now() - timedelta(days=30))
    report = services.decide_timeouts(older_than=timedelta(days=14))
    assert (report.decided, report.accepted, report.dropped, report.owners) == (2, 1, 1, 2)
    assert Fact.objects.get(pk=strong.pk).status_reason == "accepted-by-timeout"
    assert Fact.objects.get(pk=weak.pk).status == "dropped"
    assert Fact.objects.get(pk=fresh.pk).status == "pending_review"
    assert tasks.decide_timeouts() == {"decided": 0, "accepted": 0, "dropped": 0}


def test_services_refuse_objects_of_another_owner(user, other_user):
    theirs = FactFactory(owner=other_user, content="Bob's secret")
    with pytest.raises(DomainError, match="not found"):
        services.decide(owner=user, fact=theirs, status="rejected")
    with pytest.raises(DomainError, match="not found"):
        forget_services.forget(owner=user, fact=theirs)


def test_memory_layers(user):
    layers.set_identity_override(owner=user, key="name", value="Dana")
    layers.set_identity_override(owner=user, key="name", value="Dana W.")
    assert user.ledger_identityoverride_set.get().value == "Dana W."
    with pytest.raises(DomainError):
        layers.set_identity_override(owner=user, key="", value="x")
    fact = FactFactory(owner=user, content="Allergic to shellfish")
    pinned = layers.pin_fact(owner=user, fact=fact, salience=0.7, source_count=2)
    layers.record_usage(owner=user, pinned_ids=[pinned.public_id])
    pinned.refresh_from_db()
    assert pinned.use_count == 1 and pinned.last_used_at is not None
    ep = layers.upsert_episode(
        owner=user, key="day:1", summary="Planned the offsite", topics=["offsite"], decisions=["Lisbon"]
    )
    again = layers.upsert_episode(owner=user, key="day:1", summary="Planned the offsite in Lisbon")
    assert ep.pk == again.pk and again.summary.endswith("Lisbon")
    assert list(queries.episodes_for_use(owner=user)) == [again]
    layers.update_episode(owner=user, episode=again, status="rejected")
    assert list(queries.episodes_for_use(owner=user)) == []
    assert PinnedFact.objects.filter(owner=user).count() == 1


def test_find_helpers_for_dedup_and_support(user):
    fact = FactFactory(owner=user, content="Works at Globex as a designer")
    key, _ = queries.keys_for(owner=user, content="Works at Globex as a designer")
    assert queries.find_by_proposition_key(owner=user, key=key) == fact
    assert queries.find_by_text(owner=user, content="works at globex as a designer!") == fact
    assert queries.find_similar(owner=user, content="She works as a designer at Globex")[0][0] == fact
    assert queries.find_supporting(owner=user, content="designer at Globex") == fact
    assert queries.find_supporting(owner=user, content="Owns a sailboat") is None


def test_naive_datetimes_are_refused_with_a_message(user):
    from datetime import datetime

    with pytest.raises(InvalidMutation, match="timezone-aware"):
        services.propose_fact(owner=user, content="Started yoga", valid_from=datetime(2025, 1, 1))


def test_facts_for_use_returns_only_licensed_currently_valid_facts(user):
    from datetime import UTC, datetime

    FactFactory(owner=user, content="Accepted now")
    FactFactory(owner=user, content="Pending", pending=True)
    FactFactory(owner=user, content="Rejected", status="rejected")
    services.propose_fact(
        owner=user, content="Lived in Rome", status="accepted",
        valid_from=datetime(2010, 1, 1, tzinfo=UTC), valid_to=datetime(2012, 1, 1, tzinfo=UTC),
    )  # fmt: skip
    assert [f.content for f in queries.facts_for_use(owner=user, use="answers")] == ["Accepted now"]
    assert {f.content for f in queries.facts_for_use(owner=user, use="answers_with_disclaimer")} == {
        "Accepted now",
        "Pending",
    }
    assert [f.content for f in queries.facts_for_use(owner=user, use="audit_debug")] == ["Rejected"]
    assert queries.facts_for_use(owner=user, use="actions").count() == 1
    for view in queries.fact_views(queries.facts(owner=user)):
        assert view["permitted_uses"] == permitted_uses.permitted_uses(view["status"])
