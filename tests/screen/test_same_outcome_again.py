"""The same outcome line again in the same place: routine progress of one activity, unless the two name
different items (another booking reference, another ticket). On a phone mirrored on the desktop, where one
window shows every app, with a ferry operator and a theatre, domains no generated session uses."""

from __future__ import annotations

import pytest

from screen.imitation import scripts
from tests.screen.conftest import collected_events

pytestmark = pytest.mark.django_db
Seg = scripts.Segment
PHONE = {"app": "scrcpy", "window": "Pixel 8"}


def _booking(operator: str, route: str, ref: str, seconds: float = 200) -> list[scripts.Segment]:
    return [
        Seg(**PHONE, text=f"{operator}\nSailing {route}\nChoose a cabin\nDeck 4 or Deck 6", seconds=seconds),
        Seg(**PHONE, text=f"{operator}\nTicket confirmed\nReference {ref}\nShow this at the gate", seconds=60),
    ]


def test_a_second_booking_with_its_own_reference_minutes_later_is_its_own_event(user, screen_client):
    notes = [Seg(app="Notes", window="Packing", text="packing list\nsocks {n}", seconds=240)]
    first = _booking("Skerry Lines", "Oban to Craignure", "KX7QWD")
    second = _booking("Tidewell Ferries", "Largs to Cumbrae", "PL-40931")
    events = collected_events(user, screen_client, [*first, *notes, *second, *notes])
    assert len(events) == 2, [(e.event_type, e.title, e.started_at) for e in events]
    assert events[0].ended_at < events[1].started_at
    assert all(e.outcome == "confirmed" for e in events)


def test_the_same_booking_shown_again_minutes_later_is_still_one_event(user, screen_client):
    notes = [Seg(app="Notes", window="Packing", text="packing list\nsocks {n}", seconds=240)]
    first = _booking("Skerry Lines", "Oban to Craignure", "KX7QWD")
    again = first[1:]
    events = collected_events(user, screen_client, [*first, *notes, *again, *notes])
    assert len(events) == 1, [(e.event_type, e.title, e.started_at) for e in events]


def _letter(subject: str, body: str) -> list[scripts.Segment]:
    box = {"app": "Postbird"}
    compose = f"New message\nFrom: Reader <reader@post.test>\nTo: Ana Quill\nSubject: {subject}\n{body}\nSend"
    return [
        Seg(**box, window=f"{subject} — Postbird", text=compose, seconds=120),
        Seg(**box, window="Inbox — Postbird", text="Inbox\nMessage sent\nChoir rota\nAllotment news", seconds=20),
    ]


def test_a_second_message_under_another_subject_minutes_later_is_its_own_event(user, screen_client):
    notes = [Seg(app="Notes", window="Choir", text="hymn numbers\nline {n}", seconds=240)]
    first = _letter("Tenor line for Sunday", "I can cover the tenor line")
    second = _letter("Hall keys", "The keys are with the warden")
    events = collected_events(user, screen_client, [*first, *notes, *second, *notes])
    assert len(events) == 2, [(e.event_type, e.title, e.started_at) for e in events]
    assert all(e.event_type == "communication.email" and e.outcome == "confirmed" for e in events)


def test_a_second_course_done_on_the_same_phone_minutes_later_is_its_own_event(user, screen_client):
    def course(app: str, unit: str) -> list[scripts.Segment]:
        return [
            Seg(**PHONE, text=f"{app}\n{unit}\nFlashcard 12 of 40\nFlip card", seconds=300),
            Seg(**PHONE, text=f"{app}\nUnit complete\nKeep your streak", seconds=40),
        ]

    notes = [Seg(app="Notes", window="Words", text="verb list\nline {n}", seconds=200)]
    first, second = course("Lingofox", "Unit 3: Weather"), course("Kanjiwell", "Unit 9: Trains")
    events = collected_events(user, screen_client, [*first, *notes, *second, *notes])
    assert len(events) == 2, [(e.event_type, e.title, e.started_at) for e in events]
