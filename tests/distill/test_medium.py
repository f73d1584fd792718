"""The gate's lines per medium: typed talk (a chat) and transcribed speech (a wearable's day) are decided by lines
chosen on their own training sets. The labelled wearable days hold no line at which accepted precision keeps
0.95, the typed persona chats do; one shared line left both with none, and the chats' high probabilities pushed
the review line above nearly every candidate of a day.

Sentences and names here appear in no development file."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bench import train_gate
from chats.conversation import to_conversation
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from distill import gate_model, services
from distill.conversation import Conversation, Medium, Speaker, Turn, medium_of
from ledger.models import Fact

STATEMENT = "I restore church organs around the fjords, mostly the old Hammond ones."


def _model(text_lines=(0.9, 0.6, 0.6)) -> gate_model.GateModel:
    """Every claim at p = sigmoid(3) ≈ 0.953: no line of speech accepts it, the text lines do."""
    return gate_model.GateModel(
        "gate-lr-medium-test",
        16,
        3.0,
        {},
        [],
        [],
        gate_model.NO_LINE,
        0.6,
        platt=(1.0, 0.0),
        capped_threshold=0.6,
        lines_by_medium={Medium.SPEECH: (gate_model.NO_LINE, 0.6, 0.6), Medium.TEXT: text_lines},
    )


def _row(p: float, label: int, name: str) -> tuple:
    record = {
        "set": name,
        "group": f"{name}:0",
        "label": label,
        "content": "Sunniva repairs harpsichords.",
        "attribution": "user",
        "subject": "user",
        "capture_confidence": 0.9,
        "ceiling": "",
        "features": {"subject_type": "owner"},
    }
    return (p, gate_model.view(record), label, name, True, "")


def test_each_medium_gets_the_lines_its_own_sets_hold():
    """Spoken claims at the top are half false; typed ones are all true above 0.9. One set of lines for both
    finds no accept line; lines per medium give the typed talk one and keep the spoken talk from having one."""
    rows = [_row(0.97, k % 2, "days") for k in range(40)] + [_row(0.7, 1, "days") for _ in range(5)]
    rows += [_row(0.95, 1, "persona") for _ in range(40)] + [_row(0.8, 0, "persona") for _ in range(20)]
    turns = {"days": {"days:0": 2000}, "persona": {"persona:0": 2000}}
    shared, _, _, _ = train_gate.choose_thresholds(rows, turns)
    lines = train_gate.choose_by_medium(rows, turns)
    assert shared == gate_model.NO_LINE
    assert lines[Medium.SPEECH][0] == gate_model.NO_LINE
    assert 0.8 < lines[Medium.TEXT][0] <= 0.95


def test_the_artifact_holds_each_mediums_lines_and_an_unknown_medium_decides_as_speech():
    artifact = {
        "format": gate_model.FORMAT,
        "version": "gate-lr-x",
        "hashing": {"bits": 16},
        "intercept": 0.0,
        "weights": [],
        "calibration": {"a": 1.0, "b": 0.0, "x": [], "y": []},
        "thresholds": {
            "accept": 1.0,
            "review": 0.7,
            "capped": 0.8,
            "by_medium": {
                "speech": {"accept": 1.0, "review": 0.7, "capped": 0.8},
                "text": {"accept": 0.88, "review": 0.85, "capped": 0.9},
            },
        },
    }
    model = gate_model.GateModel.from_dict(artifact)
    typed = model.for_medium(Medium.TEXT)
    assert (typed.accept_threshold, typed.review_threshold, typed.capped_line) == (0.88, 0.85, 0.9)
    assert model.for_medium("semaphore") is model and model.accept_threshold == gate_model.NO_LINE


def test_the_shipped_model_has_lines_for_both_media():
    model = gate_model.shipped()
    assert set(model.lines_by_medium) == set(Medium.VALUES)
    assert model.for_medium(Medium.SPEECH).accept_threshold == model.accept_threshold  # unknown: speech's


def _conversation(medium: str, scope: str) -> Conversation:
    owner = Speaker("Sunniva Dahl", is_owner=True)
    turns = [
        Turn(0, Speaker("Brage", owner_confidence=1.0), "What keeps you busy these days?"),
        Turn(1, owner, STATEMENT, at=datetime(2031, 5, 4, 10, 0, tzinfo=UTC)),
    ]
    return Conversation("test:talk", "test", scope, "2031-05-04", turns, medium=medium)


@pytest.mark.django_db
@pytest.mark.parametrize(("medium", "status"), [(Medium.TEXT, "accepted"), (Medium.SPEECH, "pending_review")])
def test_the_same_words_are_accepted_typed_and_asked_spoken(user, monkeypatch, medium, status):
    monkeypatch.setattr(gate_model, "shipped", _model)
    report = services.distill(
        owner=user,
        conversations=[_conversation(medium, f"test:{medium}")],
        scope_key=f"test:{medium}",
        source_key="test:talk",
    )
    facts = list(Fact.objects.owned_by(user))
    assert facts and {f.status for f in facts} == {status}, [f.evidence.get().details["components"] for f in facts]
    assert report.written.get(status) == len(facts)
    details = facts[0].evidence.get().details["components"]
    expected = _model().for_medium(medium)
    assert (details["accept_threshold"], details["review_threshold"]) == (expected.accept_threshold, 0.6)


def test_a_pass_mixing_typed_and_spoken_talk_decides_by_the_stricter_lines():
    assert medium_of([_conversation(Medium.TEXT, "a"), _conversation(Medium.TEXT, "b")]) == Medium.TEXT
    assert medium_of([_conversation(Medium.TEXT, "a"), _conversation(Medium.SPEECH, "b")]) == Medium.SPEECH
    assert medium_of([]) == Medium.SPEECH


@pytest.mark.django_db
def test_an_imported_chat_is_typed_talk_and_its_owners_statement_is_accepted(user, monkeypatch):
    monkeypatch.setattr(gate_model, "shipped", _model)
    turns = [
        TurnIn(role="user", text=STATEMENT + " It takes a whole summer to voice one rank of pipes properly."),
        TurnIn(role="assistant", text="That sounds like careful work. Which parish is next on your list?"),
    ]
    stored = store_session(owner=user, data=SessionIn(source_key="chat:import", external_id="organ-1", turns=turns))
    stored.session.refresh_from_db()
    session = stored.session
    assert to_conversation(user, session, list(session.turns.order_by("index"))).medium == Medium.TEXT
    assert distill_session(session=stored.session) == "distilled"
    accepted = Fact.objects.owned_by(user).filter(status="accepted", content__icontains="organ")
    assert accepted.exists()
    assert not Fact.objects.owned_by(user).filter(content__icontains="careful work").exists()  # the assistant's


@pytest.mark.django_db
def test_the_owners_learning_guards_the_medium_the_pass_decides_with(user):
    from distill import learning, policies

    policy = policies.as_trust_policy(policies.get_policy(user, "chat:import"))
    model = gate_model.shipped()
    assert learning.accept_threshold(policy, Medium.TEXT) == model.for_medium(Medium.TEXT).accept_threshold
    assert learning.accept_threshold(policy, Medium.SPEECH) == model.accept_threshold
