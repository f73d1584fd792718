"""An email read in a program nobody maps is a message: a booking confirmation it brings confirms the booking
it names instead of becoming a booking of its own (on programs and sites no generated session uses)."""

from __future__ import annotations

import pytest

from screen.events.families import classify, shows_message
from screen.imitation import scripts
from tests.screen.conftest import DAY, collected_events

pytestmark = pytest.mark.django_db
Seg = scripts.Segment
LETTER = (
    "Inbox (4)\nShelfmark Library\nRoom booking R-55120\nFrom: Shelfmark Library <desk@shelfmark.test>\n"
    "To: reader@post.test\nYour room booking R-55120 is confirmed\nReading room 2, 3 hours\nReply\nForward"
)


def test_a_screen_with_a_senders_address_and_a_recipient_shows_a_message():
    assert shows_message(LETTER.split("\n"))
    assert not shows_message(["Guest details", "Email reader@post.test", "Confirm and pay"])  # a form's field
    family = classify(app="Postbird", url="", windows=["Room booking R-55120 — Postbird"], lines=LETTER.split("\n"))
    assert family == "communication.email"


def test_a_confirmation_email_in_an_unmapped_mail_program_confirms_the_booking_it_names(user, screen_client):
    desk = {"app": "Shelfmark Library", "window": "Study rooms · Shelfmark Library"}
    segments = [
        Seg(**desk, text="Study rooms\nReading room 2 free 14:00\nGuests: 1\n3 hours\nReserve room", seconds=300),
        Seg(**{**desk, "window": "Reserved · Shelfmark Library"}, text="Your room is reserved\n3 hours", seconds=60),
        Seg(app="Postbird", window="Room booking R-55120 — Postbird", text=LETTER, seconds=90),
        Seg(app="Notes", window="Notes", text="thesis outline\nline {n}", seconds=300),
    ]
    (event,) = collected_events(user, screen_client, segments)
    assert event.outcome == "confirmed" and event.started_at == DAY
