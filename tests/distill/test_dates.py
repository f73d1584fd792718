"""Relative days in a claim are anchored to the local day they were said (``distill.extraction.dates``)."""

from datetime import UTC, date, datetime

import pytest

from distill.extraction.base import ConversationIn, DayInput, TurnIn
from distill.extraction.dates import anchor, said_on
from distill.steps.candidates import extract as extract_day

WEDNESDAY = date(2027, 3, 10)
FRIDAY = date(2027, 3, 12)


@pytest.mark.parametrize(
    "content,said,tense,expected",
    [
        # "next <weekday>" is that weekday of next week, whichever day it is said
        (
            "Ines is driving to Porto next Saturday.",
            FRIDAY,
            "future",
            "Ines is driving to Porto next Saturday (March 20).",
        ),
        (
            "Ines is driving to Porto next Saturday.",
            WEDNESDAY,
            "future",
            "Ines is driving to Porto next Saturday (March 20).",
        ),
        ("The audit ended last Thursday.", FRIDAY, "past", "The audit ended last Thursday (March 4)."),
        # a bare weekday in a plan is the coming one
        ("Ines is flying on Monday.", FRIDAY, "future", "Ines is flying on Monday (March 15)."),
        (
            "Ines will call the plumber tomorrow morning.",
            FRIDAY,
            "future",
            "Ines will call the plumber tomorrow morning (March 13).",
        ),
        ("Ines sold the piano yesterday.", FRIDAY, "past", "Ines sold the piano yesterday (March 11)."),
        ("Ines will pay it tomorrow.", date(2027, 12, 31), "future", "Ines will pay it tomorrow (January 1, 2028)."),
    ],
)
def test_a_relative_day_gets_its_date(content, said, tense, expected):
    assert anchor(content, said, tense) == expected


@pytest.mark.parametrize(
    "content,tense",
    [
        ("Ines swims on Saturdays.", "future"),  # a habit
        ("Ines booked Monday the twenty-second.", "future"),  # dated already
        ("Ines flies out Friday, April 2nd.", "future"),
        ("Ines flies out Friday April second.", "future"),
        ("Friday's rehearsal is off.", "future"),  # a possessive names the event, not a day to anchor
        ("Ines got a call about a gig, Friday night.", "past"),  # the Friday may be the gig's, still to come
        ("Ines is moving to Leeds next month.", "future"),  # names no one day
        ("Ines will call on Monday.", ""),  # no tense known: left as said
    ],
)
def test_what_names_no_single_day_for_sure_is_left_as_said(content, tense):
    assert anchor(content, FRIDAY, tense) == content


@pytest.mark.parametrize(
    "content,said",
    [
        # said on a Sunday, "next Monday" is tomorrow to some and in 8 days to others (where the week starts)
        ("Ines starts the night shift next Monday.", date(2027, 3, 14)),
        ("Ines is repainting the boat next Sunday.", WEDNESDAY),
        ("Ines lost her keys last Sunday.", FRIDAY),
    ],
)
def test_next_or_last_weekday_is_left_as_said_when_the_weeks_start_disagrees(content, said):
    assert anchor(content, said, "future") == content


def test_the_day_is_the_owners_local_day_not_the_utc_one():
    late = datetime(2027, 3, 13, 3, 30, tzinfo=UTC)  # Friday 21:30 in Chicago
    assert said_on(late, "America/Chicago") == FRIDAY
    assert said_on(late, "") == date(2027, 3, 13)
    assert said_on(late, "Not/AZone") == date(2027, 3, 13)


def test_a_claim_extracted_from_a_turn_carries_the_date_of_its_local_day():
    late = datetime(2027, 3, 13, 3, 30, tzinfo=UTC)  # Friday evening in Chicago
    turns = [TurnIn(0, "user", True, "I'm starting at the bakery on Monday.", late)]
    day = DayInput(
        owner_name="Ines Duarte",
        conversations=[ConversationIn(started_at=late, turns=turns)],
        timezone="America/Chicago",
    )
    contents = [c.content for c in extract_day(day).candidates]
    assert contents == ["Ines is starting at the bakery on Monday (March 15)."]
