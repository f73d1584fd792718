"""Mechanisms behind the fifth round's failure classes, each on programs, sites and words no generated session
uses: a verb's noun followed by a state is a status line, every family takes the general words for its own
outcome, an activity that showed no outcome of its own is made by the answer that names it, and an activity keeps
its family when a later screen continues it."""

from __future__ import annotations

from datetime import timedelta

import pytest

from screen.events.families import family_outcome
from screen.events.outcomes import read_outcome
from screen.imitation import scripts
from tests.screen.conftest import DAY, collected_events
from tests.screen.test_span_tracking import _at

Seg = scripts.Segment


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("Download complete", "success"),
        ("Checkout successful", "success"),
        ("Share complete", "success"),
        ("Rerun unsuccessful", "declined"),
    ],
)
def test_a_verbs_noun_followed_by_a_state_is_a_status_line_not_a_button(line, word):
    got = read_outcome(line)
    assert got is not None and got.word == word


@pytest.mark.parametrize("line", ["Complete download", "Checkout now", "Share results", "Download receipt"])
def test_a_button_still_puts_its_verb_first(line):
    assert read_outcome(line) is None


@pytest.mark.parametrize(
    ("line", "family", "word"),
    [
        ("Your bid was accepted", "purchase.order", "confirmed"),
        ("Paid in full: kayak rental", "purchase.order", "confirmed"),
        ("Standing order accepted", "finance.transfer", "paid"),
        ("E-ticket sent to your inbox", "travel.check_in", "confirmed"),
        ("Referral letter sent to the clinic", "health.appointment", "confirmed"),
        ("Consignment in transit", "purchase.order", "shipped"),
        ("Delivery complete: 2 sacks of bark mulch", "purchase.order", "delivered"),
        ("Thanks for shopping with Tallowmere!", "purchase.order", "confirmed"),
    ],
)
def test_every_family_takes_the_general_words_for_its_own_outcome(line, family, word):
    got = read_outcome(line)
    assert got is not None and family_outcome(got.word, family) == word


NURSERY = {"app": "Fernhollow Nursery"}
POSTBIRD_LETTER = (
    "Inbox (2)\nFernhollow Nursery\nAbout your order KP-48213\nFrom: Fernhollow <hello@fernhollow.test>\n"
    "To: grower@post.test\nOrder KP-48213 delivered to your porch\nReply\nForward"
)


@pytest.mark.django_db
def test_an_order_whose_page_said_nothing_readable_is_made_by_the_answer_that_names_it(user, screen_client):
    segments = [
        Seg(
            **NURSERY,
            window="Your basket — Fernhollow Nursery",
            text="Your basket\nFig tree 3L\nSubtotal 41.00\nProceed to checkout",
            seconds=240,
        ),
        Seg(
            **NURSERY,
            window="Order KP-48213 — Fernhollow Nursery",
            text="We'll start packing order KP-48213\nOrder total 41.00",
            seconds=60,
        ),
        Seg(app="Notes", window="Notes", text="pruning notes\nline {n}", seconds=300, pause=5 * 3600),
        Seg(app="Postbird", window="About your order KP-48213 — Postbird", text=POSTBIRD_LETTER, seconds=90),
        Seg(app="Notes", window="Notes", text="pruning notes\nline {n}", seconds=300),
    ]
    (event,) = collected_events(user, screen_client, segments)
    assert (event.event_type, event.outcome, event.started_at) == ("purchase.order", "delivered", DAY)
    assert event.ended_at > DAY + timedelta(hours=5)


@pytest.mark.django_db
def test_an_order_keeps_its_family_when_a_status_screen_on_the_phone_continues_it(user, screen_client):
    phone = {"app": "Phone Screen", "window": "Pixel"}
    segments = [
        Seg(
            **phone, text="Tallowmere\nYour basket\nBeeswax wraps x3\nSubtotal 18.50\nProceed to checkout", seconds=240
        ),
        Seg(**phone, text="Tallowmere\nOrder QT-55012 placed\nOrder total 18.50", seconds=60),
        Seg(app="Notes", window="Notes", text="candle notes\nline {n}", seconds=300, pause=3 * 3600),
        Seg(**phone, text="Tallowmere\nQT-55012\nQT-55012 is on its way\nHelp", seconds=60),
        Seg(app="Notes", window="Notes", text="candle notes\nline {n}", seconds=300),
    ]
    (event,) = collected_events(user, screen_client, segments)
    assert (event.event_type, event.outcome) == ("purchase.order", "shipped")
    assert event.attributes["family"] == "purchase.order"  # what the API answers as the event's family


def test_words_said_as_the_notification_centre_opens_wait_for_the_call_not_the_centre():
    from tests.screen.test_span_tracking import Feeder

    call = ("Moorline", "Allotment rota — Moorline", "Allotment rota\nParticipants (2)\nMute\nLeave")
    f = Feeder().repeat(0, 300, 10, *call).say(60, "Shall we split the plots?", "Ravi Tanaka", "Output")
    f.frames((300, "Notification Center", "", "Calendar\nSeed swap at noon"))
    f.say(305, "Can you hear the echo?", "Ravi Tanaka", "Output")  # after four silent minutes, the centre open
    f.frames((310, "Notification Center", "", "Calendar\nSeed swap at noon"))
    f.repeat(320, 500, 10, *call)
    (meeting,) = [s for s in f.spans() if s["app"] == "Moorline"]
    assert [s["text"] for s in meeting["speech"]] == ["Shall we split the plots?", "Can you hear the echo?"]


def test_a_caption_with_the_owners_first_name_is_read_only_once_the_call_has_ended():
    from screen.events.reading import read_span
    from tests.screen.test_families_and_reading import _span

    seen = ["Plot review", "Participants (3)", "Mute", "Leave call", "Mira: Shall we move the compost bins?"]
    heard = {"at": "2026-05-04T10:12:00+00:00", "text": "Shall we move the compost bins?", "speaker": "Mira Quell"}
    owner = frozenset({"mira", "holt"})  # the owner is Mira Holt; another Mira is on the call
    going = _span("Moorline", windows=["Plot review — Moorline"], seen=seen, reason=None)
    assert [s.role for s in read_span(going, owner_names=owner).speech] == []  # its audio has not arrived yet
    ended = _span("Moorline", windows=["Plot review — Moorline"], seen=seen, speech=[{**heard, "device": "Output"}])
    said = read_span(ended, owner_names=owner).speech
    assert [(s.text, s.role) for s in said] == [("Shall we move the compost bins?", "other_person")]


@pytest.mark.parametrize(
    "sentence",
    [
        "Fine, we'll proceed with the canvas awning.",
        "Let's stick with the current ferry operator.",
        "Done deal: the choir meets in the crypt.",
        "The barge trip is the plan then.",
    ],
)
def test_a_decision_closed_in_other_words_is_recognised(sentence):
    from screen.events.decisions import decides

    assert decides(sentence)


@pytest.mark.parametrize(
    "sentence",
    [
        "So what's the plan then",
        "Is that the plan",
        "We can't proceed with the awning until the council replies.",
        "Should we stick with the ferry?",
    ],
)
def test_a_question_or_a_put_off_is_still_no_decision(sentence):
    from screen.events.decisions import decides

    assert not decides(sentence)


def test_the_variety_probes_pools_hold_nothing_the_generator_draws():
    from bench._screen_variety import OVERRIDES
    from screen.imitation.generator import commerce, distractors, leisure, people, vocab, work

    drawn = {
        item
        for module in (commerce, distractors, leisure, people, vocab, work)
        for value in vars(module).values()
        if isinstance(value, tuple | list)
        for item in value
        if isinstance(item, str | tuple)
    }
    shared = {item for items in OVERRIDES.values() for item in items if item in drawn}
    assert len(OVERRIDES) >= 15 and shared <= {""}  # the empty ending: a call that just closes


GARDEN = {"app": "Phone Screen", "window": "Pixel"}  # a mirrored phone: its window names only the device
ANSWER = (
    "Inbox (3)\nHollyfield Allotments\nYour plot application (AUDELO)\nFrom: Hollyfield <plots@hollyfield.test>\n"
    "To: grower@post.test\nYour application has been approved\nReply\nForward"
)


@pytest.mark.django_db
def test_an_answer_naming_the_code_its_application_showed_settles_it_whatever_the_codes_letters(user, screen_client):
    segments = [
        Seg(
            **GARDEN,
            text="Hollyfield\nPlot application\nPersonal details\nDeclaration\nSubmit application",
            seconds=240,
        ),
        Seg(
            **GARDEN,
            text="Hollyfield\nApplication submitted\nReference AUDELO",
            seconds=60,
        ),
        Seg(app="Notes", window="Notes", text="seed list\nline {n}", seconds=300, pause=14 * 3600),
        Seg(app="Postbird", window="Your plot application (AUDELO) — Postbird", text=ANSWER, seconds=90),
        Seg(app="Notes", window="Notes", text="seed list\nline {n}", seconds=300),
    ]
    (event,) = collected_events(user, screen_client, segments)
    assert (event.event_type, event.outcome, event.started_at) == ("forms.application", "accepted", DAY)


@pytest.mark.parametrize(
    ("url", "site"),
    [
        ("https://shop.kelpandcoil.co.nz/basket", "kelpandcoil.co.nz"),
        ("https://tidewell.com.au/tides", "tidewell.com.au"),
        ("https://bookings.saltrow.co.uk/", "saltrow.co.uk"),
        ("https://www.brinehaven.org/", "brinehaven.org"),
        ("http://127.0.0.1:3030/search", "127.0.0.1"),
    ],
)
def test_a_site_is_its_registered_domain_under_a_two_label_public_suffix(url, site):
    from screen.events.families import site_of

    assert site_of(url) == site


def test_two_sites_under_the_same_country_suffix_are_two_activities_in_one_browser():
    from tests.screen.test_span_tracking import Feeder

    kelp = ("Lynx", "Basket — Kelp and Coil — Lynx")
    brine = ("Lynx", "Moorings — Brinehaven — Lynx")
    f = Feeder().repeat(0, 240, 10, *kelp, "Kelp and Coil\nYour basket\nSea salt 500g", "https://kelpandcoil.co.nz/b")
    f.frames((240, *kelp, "Kelp and Coil\nOrder KC-20931 placed", "https://kelpandcoil.co.nz/done"))
    f.repeat(250, 500, 10, *brine, "Brinehaven\nMoorings\nBerth 12 free", "https://brinehaven.co.nz/moor")
    f.frames((500, *brine, "Brinehaven\nBerth BH-55102 reserved", "https://brinehaven.co.nz/done")).settle(4000)
    assert [(s["start"], s["ctx"]) for s in f.spans()] == [
        (_at(0), "lynx|kelpandcoil.co.nz"),
        (_at(250), "lynx|brinehaven.co.nz"),
    ]


@pytest.mark.django_db
def test_an_answer_read_for_minutes_across_a_collect_extends_its_activity_to_the_last_moment_on_screen(
    user, screen_client
):
    from screen.models import ScreenEvent
    from tests.screen.conftest import run_collect, serve

    segments = [
        Seg(**GARDEN, text="Hollyfield\nPlot application\nDeclaration\nSubmit application", seconds=240),
        Seg(**GARDEN, text="Hollyfield\nApplication submitted\nReference AUDELO", seconds=60),
        Seg(app="Notes", window="Notes", text="seed list\nline {n}", seconds=300, pause=14 * 3600),
        Seg(app="Postbird", window="Your plot application (AUDELO) — Postbird", text=ANSWER, seconds=240),
        Seg(app="Notes", window="Notes", text="seed list\nline {n}", seconds=300),
    ]
    letter_at = DAY + timedelta(seconds=600 + 14 * 3600)
    server = serve(segments)
    try:
        client = screen_client(server)
        for now in (letter_at + timedelta(seconds=60), server.session.end + timedelta(minutes=20)):
            server.now = now
            run_collect(user, server, client, now=now)
    finally:
        server.stop()
    (event,) = ScreenEvent.objects.filter(owner=user).visible()
    assert event.outcome == "accepted"
    assert event.ended_at >= letter_at + timedelta(seconds=200)  # still on screen near its fourth minute
