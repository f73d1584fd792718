"""Curation: a separate, later decision per stable revision; concurrent runs; content roles; preferences."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from django.db import connection

from screen import services
from screen.models import Assertion, Curation, DayNote, EntityNote, ScreenEvent
from screen.services import curate
from screen.services.store import AssertionDraft, EventDraft, create_event, revise

AT = datetime(2026, 6, 8, 18, 30, tzinfo=UTC)


def _event(user, key="k1", **kw):
    fields = {
        "key": key,
        "event_type": "game.match_completed",
        "started_at": AT,
        "ended_at": AT,
        "title": "Riftfall ranked match: victory",
        "outcome": "victory",
        "entities": ["Riftfall"],
        "attributes": {"mode": "ranked", "score": "13-7"},
        "user_actions": ["played a ranked match of Riftfall"],
        "status": ScreenEvent.Status.CONFIRMED,
        "confidence": 0.85,
        "app_name": "Riftfall",
        "assertions": [AssertionDraft("Result shown: VICTORY", Assertion.ContentRole.SYSTEM_OUTPUT, 0.9)],
    }
    fields.update(kw)
    event, _ = create_event(owner=user, draft=EventDraft(**fields))
    return event


@pytest.mark.django_db(transaction=True)
def test_two_concurrent_curation_runs_give_one_winner_and_a_retried_loser(user):
    event = _event(user)
    barrier = threading.Barrier(2)
    results = []
    real_claimed = curate._curate_claimed

    def slow_claimed(*args, **kwargs):
        barrier.wait(timeout=5)  # the loser tries to claim while the winner holds the claim
        import time

        time.sleep(0.3)
        return real_claimed(*args, **kwargs)

    def run(first: bool):
        try:
            if not first:
                barrier.wait(timeout=5)
            results.append(curate.curate_event(event_id=event.pk))
        finally:
            connection.close()

    curate._curate_claimed = slow_claimed
    try:
        threads = [threading.Thread(target=run, args=(i == 0,)) for i in range(2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=20)
    finally:
        curate._curate_claimed = real_claimed
    outcomes = sorted((r.outcome, r.retried) for r in results)
    assert outcomes == [("already_curated", True), ("curated", False)]
    assert Curation.objects.filter(event=event).count() == 1
    note = DayNote.objects.get(owner=user)
    assert [line["event"] for line in note.lines] == [str(event.public_id)]


@pytest.mark.django_db
def test_curation_works_on_a_stable_revision_and_a_new_revision_is_curated_again(user):
    event = _event(user)
    assert curate.curate_event(event_id=event.pk).decision == Curation.Decision.DAY_NOTE
    assert curate.curate_event(event_id=event.pk).outcome == "already_curated"
    revise(event=event, changes={"title": "Ranked match won 13-7"}, reason="user: rename", author="user")
    assert curate.curate_event(event_id=event.pk).outcome == "curated"
    assert list(Curation.objects.filter(event=event).order_by("revision").values_list("revision", flat=True)) == [1, 2]
    note = DayNote.objects.get(owner=user)
    assert len(note.lines) == 1 and "Ranked match won 13-7" in note.lines[0]["text"]


@pytest.mark.django_db
def test_a_provisional_event_is_not_curated_yet(user):
    event = _event(user, status=ScreenEvent.Status.PROVISIONAL, event_type="software.problem")
    assert curate.curate_event(event_id=event.pk).outcome == "not_ready"
    assert not Curation.objects.exists()


@pytest.mark.django_db
def test_declining_a_note_never_deletes_the_event(user):
    event = _event(user)
    services.correct_event(owner=user, event=event, correction=services.Correction("unimportant"))
    result = curate.curate_event(event_id=event.pk)
    assert result.decision == Curation.Decision.IGNORE
    assert ScreenEvent.objects.filter(pk=event.pk).exists()
    assert not DayNote.objects.filter(owner=user).exclude(lines=[]).exists()


@pytest.mark.django_db
def test_a_resolved_problem_updates_the_entity_note(user):
    event = _event(
        user,
        event_type="kilnlink.problem_resolved",
        outcome="resolved",
        entities=["KilnLink"],
        status=ScreenEvent.Status.REVISED,
        title="Resolved: Fault E-1: thermocouple open",
    )
    assert curate.curate_event(event_id=event.pk).decision == Curation.Decision.ENTITY_NOTE
    note = EntityNote.objects.get(owner=user, name="KilnLink")
    assert "thermocouple" in note.lines[0]["text"]


@pytest.mark.django_db
def test_do_not_retain_preference_ignores_the_event_and_drops_its_screen_text(user):
    services.add_preference(owner=user, text="Do not retain shopping research")
    event = _event(
        user,
        event_type="purchase.action_confirmed",
        title="Order placed",
        outcome="confirmation",
        entities=["Safari"],
        attributes={},
    )
    from screen.services.store import attach_evidence

    attach_evidence(event=event, role="outcome", at=AT, excerpt="Order total $139.95")
    result = curate.curate_event(event_id=event.pk)
    assert result.decision == Curation.Decision.IGNORE and "shopping" in result.curation.reason
    assert event.evidence.get().excerpt == ""
    assert ScreenEvent.objects.filter(pk=event.pk).exists()


@pytest.mark.django_db
def test_track_preference_makes_a_durable_memory_through_distill_with_the_event_as_evidence(user):
    from distill.policies import update_policy
    from ledger.models import Evidence, Fact

    update_policy(owner=user, source_key="screen", mode="review")
    services.add_preference(owner=user, text="track all ranked matches")
    event = _event(
        user,
        assertions=[
            AssertionDraft("Result shown: VICTORY", Assertion.ContentRole.SYSTEM_OUTPUT, 0.9),
            AssertionDraft(
                "I love playing support, you should main healer", Assertion.ContentRole.ASSISTANT_OUTPUT, 0.9
            ),
        ],
    )
    result = curate.curate_event(event_id=event.pk)
    assert result.decision == Curation.Decision.MEMORY
    facts = Fact.objects.filter(owner=user, source_label="screen")
    assert facts.count() >= 1, result.curation.result
    contents = " | ".join(facts.values_list("content", flat=True))
    assert "riftfall" in contents.lower()
    assert "healer" not in contents.lower() and "support" not in contents.lower()
    for fact in facts:
        ev = Evidence.objects.filter(fact=fact).first()
        assert ev.source_ref.get("screen_event") == str(event.public_id)
    assert sorted(result.curation.result["facts"]) == sorted(str(f.public_id) for f in facts)


@pytest.mark.django_db
def test_conversation_roles_keep_app_and_assistant_text_from_being_beliefs(user):
    from distill.conversation import Role

    event = _event(
        user,
        assertions=[
            AssertionDraft("$ pip install transformers", Assertion.ContentRole.USER_AUTHORED, 0.8),
            AssertionDraft("Successfully installed", Assertion.ContentRole.SYSTEM_OUTPUT, 0.8),
            AssertionDraft("You should use conda", Assertion.ContentRole.ASSISTANT_OUTPUT, 0.8),
            AssertionDraft("Trailer: a hero rises", Assertion.ContentRole.MEDIA, 0.8),
        ],
    )
    conv = curate.conversation_for(event)
    roles = [(t.speaker.role, t.speaker.is_owner) for t in conv.turns]
    assert roles == [
        (Role.PERSON, True),
        (Role.PERSON, True),
        (Role.SYSTEM, False),
        (Role.ASSISTANT, False),
        (Role.SYSTEM, False),
    ]
    assert conv.scope_key == f"screen:event:{event.public_id}" and conv.source_type == "screen_event"


@pytest.mark.django_db
def test_forgetting_a_curated_memory_removes_it_from_the_curation_result(user):
    from distill.policies import update_policy
    from ledger.forget import services as forget_services
    from ledger.models import Fact

    update_policy(owner=user, source_key="screen", mode="review")
    services.add_preference(owner=user, text="track all ranked matches")
    event = _event(user)
    result = curate.curate_event(event_id=event.pk)
    facts = list(Fact.objects.filter(owner=user, source_label="screen"))
    assert facts and len(result.curation.result["facts"]) == len(facts)
    forget_services.forget(owner=user, fact=facts[0])
    result.curation.refresh_from_db()
    assert str(facts[0].public_id) not in result.curation.result["facts"]
    assert result.curation.result["forgotten"] == 1
