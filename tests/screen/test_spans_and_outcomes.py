"""The general mechanisms behind screen events, on sentences, programs and sites that appear in no session:
outcome polarity and who it applies to, controls and compounds, history rows, families from data and cues,
and span boundaries (context, conclusion, regime, leaving, assistant text)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from screen.collector.client import Item
from screen.collector.signals import SignalDeriver
from screen.collector.spans import history_rows
from screen.events.families import classify, is_assistant, is_assistant_frame
from screen.events.outcomes import read_outcome, side_tokens


@pytest.mark.parametrize(
    ("line", "you", "word", "subject"),
    [
        ("Magenta conceded", {"cyan"}, "win", "other"),
        ("Cyan resigned", {"cyan"}, "loss", "you"),
        ("You ran out of time", set(), "loss", "you"),
        ("Yusuf wins on points", set(), "loss", "other"),
        ("Winner: Ilse", {"ilse"}, "win", "you"),
        ("Match drawn", set(), "draw", ""),
        ("Your parcel was delivered", set(), "delivered", ""),
        ("Refunded to your card", set(), "cancelled", ""),
        ("Card declined", set(), "declined", ""),
        ("Build 5123 succeeded", set(), "success", ""),
        ("Deploy to staging failed", set(), "failure", ""),
        ("7 passed, 0 failed", set(), "success", ""),
        ("Parcel not delivered", set(), "failure", ""),
        ("Your tickets are booked", set(), "confirmed", ""),
        ("Webinar ended", set(), "success", ""),
    ],
)
def test_outcome_lines_read_with_polarity_and_subject(line, you, word, subject):
    got = read_outcome(line, you=frozenset(you))
    assert got is not None and (got.word, got.subject) == (word, subject)


@pytest.mark.parametrize(
    "line",
    [
        "Propose draw",
        "Cancel booking",
        "Retry",
        "Concede?",
        "Victory points 9",
        "Win streak 4",
        "Draw two cards",
        "0 errors",
        "Lost connection to host",
        "Accept the terms",
        "no failures detected",
    ],
)
def test_controls_compounds_questions_and_negations_are_not_outcomes(line):
    assert read_outcome(line) is None


def test_the_users_side_comes_from_lines_that_name_them():
    assert side_tokens(["Cyan (you) 12:04", "Magenta: Yusuf"]) == {"cyan"}
    assert side_tokens(["Gold — Ilse Marenko"], frozenset({"ilse", "marenko"})) == {"gold"}


def test_rows_of_a_history_list_are_found_by_shape_or_relative_dates():
    lines = ["Build 5123 succeeded", "5122 release failed 3d ago", "5121 nightly passed", "5120 nightly passed"]
    assert history_rows(lines) == {"5122 release failed 3d ago", "5121 nightly passed", "5120 nightly passed"}


@pytest.mark.parametrize(
    ("app", "url", "windows", "lines", "family"),
    [
        (
            "Safari",
            "https://www.ferrolinea.example/checkin",
            ["Online check-in"],
            ["Passenger 1", "Select seat", "Boarding pass"],
            "travel.check_in",
        ),
        (
            "Edge",
            "https://portal.gridwell-energy.example/billing",
            ["Your bill"],
            ["Amount due 61.30", "Due date 3 July"],
            "finance.bill_payment",
        ),
        ("Orbita", "", ["Orbita"], ["Participants (6)", "Unmute", "Share screen"], "meeting.call"),
        ("Hexwright", "", ["Hexwright"], ["Your turn", "Opponent: Ilse"], "game.match"),
    ],
)
def test_families_come_from_cues_for_programs_and_sites_nobody_listed(app, url, windows, lines, family):
    assert classify(app=app, url=url, windows=windows, lines=lines, outcome_lines=[]) == family


def test_an_unknown_activity_gets_a_generic_family_that_is_not_the_program():
    family = classify(
        app="LoomPilot",
        url="",
        windows=["LoomPilot — Weaving loom"],
        lines=["Warp tension 4"],
        outcome_lines=["Pattern finished"],
    )
    assert family == "task.loom"


def test_assistant_programs_and_frames_are_recognised_whatever_their_name():
    assert is_assistant("Mentor AI", "Mentor AI", "")
    assert is_assistant_frame(["Plan the trip", "Mentor may make mistakes. Check important info."])
    assert not is_assistant("Ledgerly", "Invoices", "")


T0 = datetime(2026, 3, 2, 8, 0, tzinfo=UTC)


def _feed(deriver, frames):
    out = []
    for i, (sec, app, window, text) in enumerate(frames, start=1):
        out += deriver.feed(Item("OCR", i, T0 + timedelta(seconds=sec), text, app, window, ""))
    return [d for d in out if d.kind == "span_ended"]


def test_a_result_that_leaves_the_screen_concludes_the_span_and_a_lobby_starts_another():
    d = SignalDeriver()
    ended = _feed(
        d,
        [
            (0, "Hexwright", "Hexwright", "Lobby\nFind opponent\nQuick match"),
            (60, "Hexwright", "Hexwright", "Your turn\nOpponent: Ilse\nTiles 12"),
            (600, "Hexwright", "Hexwright", "Ilse resigned\nRating +9"),
            (640, "Hexwright", "Hexwright", "Lobby\nFind opponent\nQuick match"),
        ],
    )
    spans = [e.data["span"] for e in ended]
    # The lobby is only suspended (it may come back); the match concluded when its result left the screen.
    assert [s["reason"] for s in spans] == ["concluded"]
    (game,) = spans
    assert game["start"] == (T0 + timedelta(seconds=60)).isoformat() and [a["line"] for a in game["anchors"]] == [
        "Ilse resigned"
    ]


def test_a_context_left_for_good_ends_its_span_at_its_last_frame():
    d = SignalDeriver()
    ended = _feed(
        d,
        [
            (0, "Ledgerly", "Invoices", "Invoice 2231\nSent to client"),
            (120, "Ledgerly", "Invoices", "Invoice 2231\nSent to client\nPaid"),
            (300, "Scribe", "Notes", "notes"),
            (300 + 20 * 60, "Scribe", "Notes", "notes\nmore"),
        ],
    )
    (span,) = [e.data["span"] for e in ended if e.data["span"]["app"] == "Ledgerly"]
    assert span["app"] == "Ledgerly" and span["reason"] == "left"
    assert span["last"] == (T0 + timedelta(seconds=120)).isoformat()
