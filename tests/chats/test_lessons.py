"""Lessons: formation (correction once, error twice), decay and archive, merge into a theme, predictions,
the morning report, and the forget hook."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from chats.models import Lesson, Prediction, SleepReport
from chats.services import sleep
from chats.services.conversations import import_conversation
from chats.services.distilling import distill_session
from chats.services.store import store_session
from chats.text import SessionIn, TurnIn
from ledger.models import Fact, PinnedFact

pytestmark = pytest.mark.django_db


def _session(user, sid, turns, project="/home/dev/shop", when=None):
    data = SessionIn(source_key="chat:claude-code", external_id=sid, project=project, started_at=when,
                     turns=[TurnIn(role=r, text=t, tool_calls=c or []) for r, t, c in turns])  # fmt: skip
    stored = store_session(owner=user, data=data)
    stored.session.refresh_from_db()
    return distill_session(session=stored.session)


CORRECTION = [
    ("user", "Please add a changelog entry for the new export feature in this release.", None),
    ("assistant", "I've added the entry to CHANGELOG.md under a new 2.4.0 heading.", None),
    ("user", "No, we never bump the version ourselves; the entry goes under Unreleased.", None),
]


def _failing_tests(n):
    """The tests fail on a missing module; the agent installs it and the same command passes."""
    failed = {"id": f"t{n}", "name": "Bash", "input": {"command": "pytest"}, "is_error": True,
              "result": "E   ModuleNotFoundError: No module named 'yaml'"}  # fmt: skip
    install = {"id": f"i{n}", "name": "Bash", "input": {"command": "pip install pyyaml"}, "result": "Installed"}
    passed = {"id": f"p{n}", "name": "Bash", "input": {"command": "pytest"}, "result": "3 passed"}
    return [("user", f"Run the test suite for the parser module, attempt {n}, and report failures.", None),
            ("assistant", "Running the tests now.", [failed, install, passed])]  # fmt: skip


def test_a_correction_seen_once_becomes_a_pinned_lesson_fact(user):
    assert _session(user, "s1", CORRECTION) == "distilled"
    lesson = Lesson.objects.get(owner=user, status="active")
    assert lesson.kind == "correction"
    assert lesson.text.startswith("We never bump the version ourselves")
    fact = Fact.objects.get(owner=user, public_id=lesson.fact_public_id)
    assert "lesson" in fact.tags and fact.status == "accepted"
    assert fact.evidence.filter(source_ref__episode__startswith="chat:").exists()
    assert PinnedFact.objects.filter(owner=user, fact=fact).exists()


def test_an_error_becomes_a_lesson_only_when_it_recurs(user):
    _session(user, "s1", _failing_tests(1))
    assert not Lesson.objects.filter(owner=user, status="active", kind="error").exists()
    _session(user, "s2", _failing_tests(2))
    lesson = Lesson.objects.get(owner=user, status="active", kind="error")
    assert "ModuleNotFoundError: No module named 'yaml'" in lesson.text
    assert "`pip install pyyaml` first" in lesson.text  # what to do instead, not "check before running"
    assert lesson.seen_count == 2 and len(lesson.episode_keys) == 2


def test_redistilling_the_same_session_does_not_count_twice(user):
    _session(user, "s1", _failing_tests(1))
    from chats.models import ChatSession

    s = ChatSession.objects.get(owner=user)
    s.turns.update(distilled_at=None)
    distill_session(session=s)
    assert Lesson.objects.get(owner=user, kind="error").seen_count == 1


def test_strength_halves_in_45_idle_days_and_weak_lessons_are_archived(user):
    _session(user, "s1", CORRECTION)
    lesson = Lesson.objects.get(owner=user, status="active")
    start = lesson.strength
    sleep.sleep(owner=user, now=lesson.last_seen_at + timedelta(days=45))
    lesson.refresh_from_db()
    assert lesson.strength == pytest.approx(start / 2, rel=0.01)
    sleep.sleep(owner=user, now=lesson.last_seen_at + timedelta(days=120))
    lesson.refresh_from_db()
    assert lesson.status == "archived" and lesson.history[-1]["event"] == "archived"
    assert not PinnedFact.objects.filter(owner=user, fact__public_id=lesson.fact_public_id).exists()


def test_lessons_that_mean_the_same_merge_into_a_theme_with_aliases(user):
    _session(user, "s1", CORRECTION)
    other = [CORRECTION[0], CORRECTION[1],
             ("user", "No, don't bump the version ourselves, put the entry under Unreleased.", None)]  # fmt: skip
    _session(user, "s2", other)
    assert Lesson.objects.filter(owner=user, status="active").count() == 2
    report = sleep.sleep(owner=user)
    active = Lesson.objects.get(owner=user, status="active")
    merged = Lesson.objects.get(owner=user, status="merged")
    assert merged.theme == active and merged.text in active.aliases
    assert report.merged and report.merged[0]["aliases"]


def test_strong_lessons_get_a_prediction_confirmed_by_a_later_episode(user):
    _session(user, "s1", CORRECTION)
    lesson = Lesson.objects.get(owner=user, status="active")
    lesson.strength = 0.9
    lesson.save()
    now = timezone.now()
    sleep.sleep(owner=user, now=now)
    prediction = Prediction.objects.get(lesson=lesson, status="open")
    later = [("user", "Add the changelog entry for the CSV import under Unreleased, no version bump.", None),
             ("assistant", "Added under Unreleased; the version stays as it is.", None)]  # fmt: skip
    _session(user, "s3", later, when=now + timedelta(days=1))
    report = sleep.sleep(owner=user, now=now + timedelta(days=2))
    prediction.refresh_from_db()
    assert prediction.status == "confirmed"
    assert report.confirmed[0]["id"] == str(lesson.public_id)


def test_an_unverified_prediction_fails_after_14_days(user):
    _session(user, "s1", CORRECTION)
    lesson = Lesson.objects.get(owner=user, status="active")
    lesson.strength = 0.95
    lesson.save()
    now = timezone.now()
    sleep.sleep(owner=user, now=now)
    report = sleep.sleep(owner=user, now=now + timedelta(days=15))
    assert Prediction.objects.get(lesson=lesson).status == "failed"
    assert report.failed and "Failed" in sleep.report_markdown(report)


def test_surprises_in_two_sessions_consolidate_into_one_lesson(user):
    _session(user, "s1", [("user", "Turns out the staging database resets every Sunday night at midnight.", None),
                          ("assistant", "Noted, I will not schedule the load test on Sunday night.", None)])  # fmt: skip
    _session(user, "s2", [("user", "Surprisingly the staging database resets every Sunday night.", None),
                          ("assistant", "Good to know, the fixtures have to be reloaded on Mondays.", None)])  # fmt: skip
    sleep.sleep(owner=user)
    active = Lesson.objects.filter(owner=user, status="active", kind="surprise")
    assert active.count() == 1 and "staging database" in active.get().text
    assert SleepReport.objects.get(owner=user).learned


def test_a_forgotten_person_stays_forgotten_in_chats(user):
    from chats.models import ChatSession, ChatTurn
    from ledger.forget.services import forget_person_names

    convo = {
        "owner": user, "external_id": "x", "started_at": timezone.now(), "title": "Call with Marcus Webb",
        "participants": [{"name": "Alice Example", "is_owner": True}, {"name": "Marcus Webb"}],
        "turns": [{"speaker": "Marcus Webb", "text": "I moved to Lyon in October for the new job."},
                  {"speaker": "Alice Example", "text": "Say hi to Marcus Webb's sister for me when you see her."},
                  {"speaker": "Alice Example", "text": "I am off to the gym now, talk later."}],
    }  # fmt: skip
    import_conversation(**convo)
    forget_person_names(owner=user, names=["Marcus Webb"])
    texts = list(ChatTurn.objects.filter(owner=user).values_list("text", flat=True))
    assert len(texts) == 2 and not any("Marcus" in t or "Lyon" in t for t in texts)
    assert "Marcus" not in ChatSession.objects.get(owner=user).title
    again = import_conversation(**convo)  # the original export arrives again
    assert again.added == 0
    assert not ChatTurn.objects.filter(owner=user, text__icontains="Marcus").exists()
