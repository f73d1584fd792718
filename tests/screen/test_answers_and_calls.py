"""Proposals that rest on more than one screen: an answer that arrives by email the next morning, banners and
the notification centre reporting on something else, a call's every word and its own frame as evidence.
Served by the ScreenPipe imitation and collected in phases, on programs no generated session uses."""

from __future__ import annotations

from datetime import timedelta

import pytest

from screen.imitation import scripts
from screen.models import Assertion, EventEvidence, ScreenEvent
from tests.screen.conftest import DAY, run_collect, serve

pytestmark = pytest.mark.django_db
Seg = scripts.Segment
ALLOT = {"app": "Firefox", "url": "https://greenplots.test/apply"}


def _collect_at(user, server, client, *moments):
    for at in moments:
        server.now = at
        run_collect(user, server, client, now=at)


def test_an_answer_by_email_the_next_morning_revises_the_application_it_names(user, screen_client):
    segments = [
        Seg(**ALLOT, window="Allotment application — Greenplots", text="Step 1 of 2\nPersonal details\nSave and continue", seconds=300),
        Seg(**ALLOT, window="Allotment application — Greenplots", text="Step 2 of 2\nDeclaration\nSubmit application", seconds=200),
        Seg(**ALLOT, window="Received — Greenplots", text="Application received\nReference WQ-2231", seconds=60,
            pause=14 * 3600),
        Seg(app="Notes", window="Notes", text="seed list\nline {n}", seconds=300),
        Seg(app="Kmail", window="Your allotment application (WQ-2231) — Kmail",
            text="Inbox\nGreenplots\nYour allotment application (WQ-2231)\nFrom: Greenplots <hello@greenplots.test>\n"
            "Your application WQ-2231 was successful\nReply",
            seconds=90),
        Seg(app="Notes", window="Notes", text="seed list\nline {n}", seconds=300),
    ]
    server = serve(segments)
    client = screen_client(server)
    try:
        first_evening = DAY + timedelta(minutes=12)
        _collect_at(user, server, client, first_evening, server.session.end + timedelta(minutes=20))
    finally:
        server.stop()
    (event,) = ScreenEvent.objects.filter(owner=user).visible()
    assert (event.event_type, event.outcome) == ("forms.application", "accepted")
    assert event.local_date == DAY.date() and event.ended_at > DAY + timedelta(hours=14)
    outcome = event.evidence.filter(role=EventEvidence.Role.OUTCOME).order_by("-occurred_at").first()
    assert "was successful" in outcome.excerpt and outcome.image is not None


def test_a_mail_the_next_morning_whose_first_line_reads_like_a_receipt_answers_the_order_it_names(
    user, screen_client
):
    seeds = {"app": "Firefox", "url": "https://tuberworks.test/checkout"}
    segments = [
        Seg(**seeds, window="Basket — Tuberworks", text="Seed potatoes 2kg 6.40\nShallot sets 3.10\nCheckout", seconds=300),
        Seg(**seeds, window="Thanks — Tuberworks", text="Thanks, your order is placed\nOrder TBW-88213", seconds=60,
            pause=15 * 3600),
        Seg(app="Notes", window="Notes", text="bed rotation\nline {n}", seconds=300),
        Seg(app="Geary", window="Inbox — Geary",
            text="Inbox\nTuberworks\nAbout order TBW-88213\nFrom: Tuberworks <post@tuberworks.test>\n"
            "Delivered this morning at 07:12\nOrder TBW-88213\n1 item substituted: Shallot sets for Onion sets\nReply",
            seconds=90),
        Seg(app="Notes", window="Notes", text="bed rotation\nline {n}", seconds=300),
    ]
    server = serve(segments)
    client = screen_client(server)
    try:
        _collect_at(user, server, client, DAY + timedelta(minutes=7), server.session.end + timedelta(minutes=20))
    finally:
        server.stop()
    (event,) = ScreenEvent.objects.filter(owner=user).visible()
    assert (event.event_type, event.outcome, event.attributes["detail"]) == ("purchase.order", "delivered", "substituted")
    assert event.local_date == DAY.date() and event.ended_at > DAY + timedelta(hours=15)


def test_the_notification_centre_reports_on_something_else_and_makes_no_event(user, screen_client):
    shop = {"app": "Safari", "url": "https://potterywheel.test/cart"}
    segments = [
        Seg(**shop, window="Cart — Potterywheel", text="Cart\nStoneware mug 18.00\nCheckout", seconds=240),
        Seg(app="Notification Center", window="", text="Kestrel Bank\nCard payment declined at Fernway", seconds=10),
        Seg(**shop, window="Cart — Potterywheel", text="Cart\nStoneware mug 18.00\nCheckout", seconds=120),
        Seg(**shop, window="Thanks — Potterywheel", text="Order PW-55812 placed\nThank you", seconds=60),
        Seg(app="Notes", window="Notes", text="glaze ideas\nline {n}", seconds=300),
    ]
    server = serve(segments)
    try:
        run_collect(user, server, screen_client(server), now=server.session.end + timedelta(minutes=20))
    finally:
        server.stop()
    (event,) = ScreenEvent.objects.filter(owner=user)
    assert (event.event_type, event.outcome) == ("purchase.order", "confirmed")


def test_a_banner_read_while_it_showed_is_withdrawn_once_it_leaves(user, screen_client):
    page = "Timesheet week 19\nMon 7.5\nTue 8\nSubmit timesheet"
    tool = {"app": "Hourglass", "window": "Timesheet — Hourglass"}
    segments = [
        Seg(**tool, text=page, seconds=300),
        Seg(**tool, text=page + "\nCalendar\nnow\nDentist appointment confirmed", seconds=60),
        Seg(**tool, text=page, seconds=300),
        Seg(app="Notes", window="Notes", text="todo\nline {n}", seconds=300),
    ]
    server = serve(segments)
    client = screen_client(server)
    try:
        during = DAY + timedelta(seconds=300 + 50)  # the banner has been on screen for 50 seconds
        _collect_at(user, server, client, during)
        assert ScreenEvent.objects.filter(owner=user).visible().count() == 1
        _collect_at(user, server, client, server.session.end + timedelta(minutes=20))
    finally:
        server.stop()
    assert not ScreenEvent.objects.filter(owner=user).visible().exists()
    assert ScreenEvent.objects.get(owner=user).status == ScreenEvent.Status.WITHDRAWN


def test_a_call_keeps_every_word_and_cites_its_own_frame(user, screen_client):
    ui = "Garden committee\nParticipants (3)\nMute\nShare screen\nLeave"
    call = {"app": "Palaver", "window": "Garden committee — Palaver"}
    talk = [(20 * i, f"about the water butts, point {i}", "Rosalind", "Output") for i in range(40)]
    talk.append((20 * 40, "I'll send the rota to everyone on Sunday", "", "Input"))
    segments = [
        Seg(**call, text=ui, seconds=400, audio=talk[:20]),
        Seg(app="Calendar", window="Calendar", text="Week 19\nBin day", seconds=60),
        Seg(**call, text=ui, seconds=500, audio=[(t - 460, *rest) for t, *rest in talk[20:]]),
        Seg(app="Notes", window="Notes", text="rota\nline {n}", seconds=600),
    ]
    server = serve(segments)
    client = screen_client(server)
    try:
        _collect_at(user, server, client, DAY + timedelta(minutes=5), server.session.end + timedelta(minutes=20))
    finally:
        server.stop()
    (event,) = ScreenEvent.objects.filter(owner=user)
    assert (event.event_type, event.outcome) == ("meeting.call", "no_decision")
    promise = event.assertions.get(text__contains="rota to everyone")
    assert promise.content_role == Assertion.ContentRole.USER_AUTHORED  # the owner's own commitment
    assert event.assertions.filter(content_role=Assertion.ContentRole.OTHER_PERSON).count() == 40
    outcome = event.evidence.filter(role=EventEvidence.Role.OUTCOME).order_by("-occurred_at").first()
    assert event.started_at <= outcome.occurred_at <= event.ended_at and "Garden committee" in outcome.excerpt
    assert outcome.image is not None
