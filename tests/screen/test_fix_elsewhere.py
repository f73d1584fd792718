"""A failure and a later success of the same family on two other sites: two activities, not a problem and its
fix, though their pages share words and numbered slugs ("quiz-2", "result-2"). On sites no generated session
uses."""

from __future__ import annotations

import pytest

from screen.imitation import scripts
from tests.screen.conftest import collected_events

pytestmark = pytest.mark.django_db
Seg = scripts.Segment


def _course(site: str, topic: str, result: str) -> list[scripts.Segment]:
    url = f"https://{site.lower()}.test/course/"
    pages = [
        ("lesson-2", f"Lesson 2: {topic}", f"Lesson 2 of 9: {topic}\nReading time 6 min\nNext", 240),
        ("quiz-2", f"Quiz: {topic}", f"Quiz: {topic}\nQuestion 4 of 8\nSubmit answer", 240),
        ("result-2", f"Results: {topic}", f"{result}\nReview answers\nBack to course", 60),
    ]
    return [
        Seg(app="Firefox", url=url + slug, window=f"{title} · {site}", text=text, seconds=seconds, every=10)
        for slug, title, text, seconds in pages
    ]


def test_a_failed_quiz_and_another_courses_passed_quiz_are_two_events(user, screen_client):
    notes = [Seg(app="Notes", window="Notes", text="verbs to revise\nline {n}", seconds=400, every=20)]
    first = _course("Orchardly", "Grafting apple trees", "Not passed this time (2/8)")
    second = _course("Marlwick", "Dry stone walling", "Well done, you passed the quiz")
    events = collected_events(user, screen_client, [*first, *notes, *second, *notes])
    assert [(e.event_type, e.outcome) for e in events] == [
        ("learning.course", "failure"),
        ("learning.course", "success"),
    ], [(e.title, e.attributes.get("spans")) for e in events]
