"""Mechanisms behind the fourth round's held-out failures, each on programs, sites and words no generated session
uses: a remedy's name alone on a line is a label, a quantity is no identifier."""

from __future__ import annotations

import pytest

from screen.events.outcomes import read_outcome
from screen.events.reading import ids_in, read_span
from tests.screen.test_span_tracking import NOBODY, Feeder, _at


@pytest.mark.parametrize("line", ["Substitution", "Substitutions", "Refund", "Replacement"])
def test_a_remedys_name_alone_on_a_line_is_a_label_not_a_report(line):
    assert read_outcome(line) is None  # a ticker's event, a tab, a form's heading


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("2 items substituted", "substituted"),
        ("Refund issued", "cancelled"),
        ("Substitution: rye for spelt", "substituted"),
    ],
)
def test_a_remedy_reported_is_still_an_outcome(line, word):
    got = read_outcome(line)
    assert got is not None and got.word == word


def test_a_tickers_substitution_does_not_cut_a_fullscreen_match_short():
    play = "Harrow Hawks 12 - 9 Lowfield Lynx\n2nd half 41:10\nYou: Harrow Hawks"
    f = Feeder().repeat(0, 60, 10, "", "", "Handball Manager\nKick off\nTactics")
    f.repeat(60, 300, 10, "", "", play).repeat(300, 420, 10, "", "", play + "\nSubstitution")
    f.frames((420, "", "", "FINAL WHISTLE\nYou win 25-21\nContinue"), (440, "", "", "Handball Manager\nKick off"))
    (match,) = [s for s in f.spans() if s["anchors"]]
    assert match["start"] == _at(60)
    assert read_span(match, owner_names=NOBODY).outcome == "win"


@pytest.mark.parametrize(
    "text", ["Luggage: 2 x 23kg", "Dose 250mg", "Cable 3m", "Storage 512gb", "Finished 3rd", "Tiles 6x250ml"]
)
def test_a_quantity_with_its_unit_is_no_identifier(text):
    assert ids_in([text]) == set()


def test_codes_with_letters_and_digits_are_still_identifiers():
    assert ids_in(["Booking QK4T9Z", "Order 4471KD", "Ticket TX-20991"]) == {"QK4T9Z", "4471KD", "TX-20991"}


@pytest.mark.parametrize(
    "line",
    ["Error 17: uplink lost", "Stopped: GPS fix lost", "Fault: telemetry lost. Halted", "Upload failed: tie rod"],
)
def test_a_fault_that_heads_a_line_is_a_failure_whatever_its_cause_says(line):
    got = read_outcome(line)
    assert got is not None and got.word == "failure"


@pytest.mark.parametrize(("line", "word"), [("Defeat: connection error", "loss"), ("You won! Errors: 0", "win")])
def test_a_result_that_heads_a_line_stays_the_result(line, word):
    got = read_outcome(line)
    assert got is not None and got.word == word


def test_an_order_number_printed_in_groups_is_an_identifier_a_date_is_not():
    assert ids_in(["Order 402-771-958 has shipped"]) == {"402-771-958"}
    assert ids_in(["Delivered 2026-03-04", "Slot 10-12", "Row 12-40"]) == set()


def test_an_activity_that_showed_its_outcome_lends_no_words_to_the_next_one_on_the_same_phone():
    phone = ("Phone Screen", "Pixel")
    f = Feeder().repeat(0, 200, 10, *phone, "Brightwell Vets\nChoose a vet\nAvailable times\n9:10\nBook visit")
    f.repeat(200, 260, 10, *phone, "Brightwell Vets\nYour visit on Tue 4 May has been cancelled")
    f.repeat(260, 380, 10, "Notes", "Notes", "dog food list\nline 2")
    f.repeat(380, 900, 20, *phone, "Lantern Pages\nChapter 9\nThe tide came in slowly over the flats\n88% read")
    f.frames((900, *phone, "Lantern Pages\nFinished reading The Tidewatch\nRate this book"))
    book = next(s for s in f.spans() if s["start"] == _at(380))
    assert book["prelude"] == []
    assert read_span(book, owner_names=NOBODY).family == "reading.book"


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("Booking 7781 cancelled. Your refund is on its way", "cancelled"),
        ("Ticket voided. A new one is on its way", "cancelled"),
        ("Thank you! Your fee of 12.00 has been received", "confirmed"),
    ],
)
def test_the_first_sentence_that_reports_an_outcome_is_the_lines(line, word):
    got = read_outcome(line)
    assert got is not None and got.word == word


@pytest.mark.parametrize(
    "line", ["quarto 1.4.0 was successfully installed", "Firmware 2.0 installed", "Map pack 3.10.0 done"]
)
def test_the_zero_of_a_version_number_counts_nothing(line):
    got = read_outcome(line)
    assert got is not None and got.word == "success"


def test_a_count_of_zero_still_negates():
    assert read_outcome("0 failed") is None or read_outcome("0 failed").word != "failure"


def test_a_code_right_after_the_noun_that_labels_it_is_an_identifier_even_if_it_reads_like_a_word():
    assert ids_in(["Your parcel for order OAKUIE left the depot"]) == {"OAKUIE"}
    assert ids_in(["Reservation no. EIAUBA"]) == {"EIAUBA"}
    assert ids_in(["Order Confirmed", "Order total R$68.00", "Ticket CANCELLED"]) == set()


def test_a_match_in_a_game_named_like_a_notes_program_is_still_a_match():
    from tests.screen.test_families_and_reading import _span

    duel = _span(
        "Notes Duel",
        windows=["Notes Duel"],
        seen=["Riddle 4/12", "You: 30 pts", "Wilhelmina: 20 pts", "A. Copper", "B. Tin"],
        anchors=["Wilhelmina lost"],
    )
    got = read_span(duel, owner_names=NOBODY)
    assert (got.family, got.outcome) == ("game.match", "win")


def test_a_message_saying_we_won_is_still_no_match():
    from tests.screen.test_families_and_reading import _span

    seen = ["From: Coach <coach@rowclub.test>", "To: crew@rowclub.test", "Regatta results", "You: stroke seat"]
    mail = _span("Quillpost", windows=["Regatta — Quillpost"], seen=seen, anchors=["We won!"])
    assert read_span(mail, owner_names=NOBODY).family == "communication.email"


def test_words_said_as_a_banner_leaves_go_to_the_call_on_screen_next_not_the_banner():
    call = ("Huddlebox", "Rota planning — Huddlebox", "Rota planning\nParticipants (3)\nMute\nLeave")
    f = Feeder().repeat(0, 300, 10, *call).say(120, "Can you take Tuesdays?", "Noa Brill", "Output")
    f.frames((300, "Notification Center", "", "Calendar\nDentist tomorrow 9:00"))
    f.say(430, "Tuesdays it is then", "Tadeusz", "Input").repeat(430, 600, 10, *call)
    f.say(470, "Great, that's decided", "Noa Brill", "Output")
    (meeting,) = [s for s in f.spans() if s["app"] == "Huddlebox"]
    assert [s["text"] for s in meeting["speech"]] == [
        "Can you take Tuesdays?",
        "Tuesdays it is then",
        "Great, that's decided",
    ]


def test_a_race_won_in_a_game_named_like_a_notes_program_is_a_match():
    from tests.screen.test_families_and_reading import _span

    race = _span("Notes Drift", windows=["Notes Drift"], seen=["Lap 3/3", "Pos 2/8"], anchors=["1st place!"])
    got = read_span(race, owner_names=NOBODY)
    assert (got.family, got.outcome) == ("game.match", "win")
