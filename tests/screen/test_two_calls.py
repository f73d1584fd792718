"""Two calls in the same program, one after the other with other work between: two events, each with its own
words and its own outcome. On a program and topics no generated session uses."""

from __future__ import annotations

import pytest

from screen.imitation import scripts
from tests.screen.conftest import collected_events

pytestmark = pytest.mark.django_db
Seg = scripts.Segment


def _call(topic: str, talk: list[str], *, decided: str = "") -> list[scripts.Segment]:
    where = {"app": "Kestrelmeet", "window": f"{topic} — Kestrelmeet"}
    ui = f"{topic}\nParticipants (3)\nMute\nCamera off\nShare screen\nLeave call"
    audio = [(20 + 40 * i, line, "Oona Vilja", "Output") for i, line in enumerate(talk)]
    if decided:
        audio.append((20 + 40 * len(talk), decided, "Oona Vilja", "Output"))
    return [Seg(**where, text=ui, seconds=60 + 40 * len(audio), every=10, audio=audio)]


def test_two_calls_in_one_program_with_work_between_are_two_events(user, screen_client):
    first = _call(
        "Choir rota",
        ["who can sing on the ninth", "I can do the morning slot"],
        decided="okay so we're going with the morning slot, that's settled",
    )
    notes = [Seg(app="Notes", window="Notes", text="hymn numbers\nline {n}", seconds=300, every=15)]
    second = _call("Hall repairs", ["the roof leaks again by the door", "let's get two quotes first"])
    events = collected_events(user, screen_client, [*first, *notes, *second, *notes])
    got = [(e.event_type, e.outcome) for e in events]
    assert got == [("meeting.call", "decided"), ("meeting.call", "no_decision")], [
        (e.title, e.started_at, e.ended_at, e.attributes["spans"]) for e in events
    ]
    assert "Hall repairs" not in events[0].title and "Hall repairs" in events[1].title
