"""Reading one status line, on lines from domains no generated session uses: thanks that confirm, answers to
applications, negation that stops at the next word, counts reported after a colon, identifiers kept whole, a
place in a race, a step that is only progress, and names that begin with an outcome word."""

from __future__ import annotations

import pytest

from screen.events.outcomes import read_outcome


@pytest.mark.parametrize(
    ("line", "word"),
    [
        ("Thanks for your booking!", "confirmed"),  # no outcome word, a person reads a confirmation
        ("We have received your tax return", "confirmed"),
        ("Your transfer went through", "success"),
        ("The livestream is now live", "success"),
        ("Your planning permit has been approved", "accepted"),
        ("We'd like to invite you to an interview on Tuesday", "accepted"),
        ("Sadly we won't be progressing your tenancy request", "declined"),
        ("You have not been selected for the choir", "declined"),
        ("We are unable to offer you a plot this season", "declined"),
        ("Claim was not authorised: declined", "declined"),  # "not" negates "authorised", not "declined"
        ("Your renewal could not be completed", "failure"),
        ("Checks: 14, Failures: 0", "success"),  # none failed, said after a colon
        ("Fault F-07: lid sensor", "failure"),  # a code after the noun: a report, not a label
        ("Pickup XKTRWB is ready, order HR2J9Q placed", "confirmed"),  # identifiers stay one word each
        ("Seat 22F selected", "progress"),  # a step inside the activity
        ("Spare part dispatched", "shipped"),
    ],
)
def test_status_lines_read_as_a_person_would(line, word):
    got = read_outcome(line)
    assert got is not None and got.word == word, got


@pytest.mark.parametrize(
    ("line", "word"),
    [("You finished 1st", "win"), ("Final position: 7th", "loss"), ("3rd place!", "loss"), ("Race complete: P1", "win")],
)
def test_a_place_in_a_race_is_a_win_only_first(line, word):
    got = read_outcome(line)
    assert got is not None and (got.word, got.subject) == (word, "you")


@pytest.mark.parametrize("line", ["Broken Compass", "Lost Meridian", "Error handling guide", "Refund policy"])
def test_names_and_labels_are_not_outcomes(line):
    assert read_outcome(line) is None  # the outcome word describes the noun after it


def test_a_replacement_part_is_not_a_substitution():
    got = read_outcome("Replacement hinge shipped")
    assert got is not None and got.word == "shipped"


def test_someone_elses_place_is_not_the_owners_result():
    got = read_outcome("Mira finished 1st")
    assert got is None or not got.contest
