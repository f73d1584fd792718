"""The one ISO-8601 reader: what providers, importers and the ledger's records send comes back aware."""

from datetime import UTC, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from accounts.timestamps import parse_iso, parse_iso_utc, zone_or_utc


@pytest.mark.parametrize(
    "text",
    [
        "2026-03-04T05:06:07Z",
        "2026-03-04T05:06:07z",
        "2026-03-04T05:06:07+00:00",
        "2026-03-04T05:06:07",
        " 2026-03-04T05:06:07Z ",
    ],
)
def test_utc_spellings_read_as_the_same_moment(text):
    assert parse_iso(text) == datetime(2026, 3, 4, 5, 6, 7, tzinfo=UTC)


def test_an_offset_is_kept_and_utc_conversion_is_the_same_moment():
    moment = parse_iso("2026-03-04T23:30:00-08:00")
    assert moment.utcoffset() == timedelta(hours=-8)
    assert parse_iso_utc("2026-03-04T23:30:00-08:00") == datetime(2026, 3, 5, 7, 30, tzinfo=UTC)


def test_nanoseconds_from_a_screen_recorder_are_truncated_to_microseconds():
    assert parse_iso("2026-03-04T05:06:07.123456789Z").microsecond == 123456


@pytest.mark.parametrize("value", [None, "", "   ", "yesterday", 1700000000, "2026-13-40T00:00:00Z"])
def test_the_lenient_reader_answers_none_for_what_is_not_a_timestamp(value):
    assert parse_iso_utc(value) is None


def test_the_strict_reader_raises_on_what_is_not_a_timestamp():
    with pytest.raises(ValueError):
        parse_iso("next tuesday")


@given(
    st.datetimes(
        timezones=st.sampled_from([UTC, timezone(timedelta(hours=5, minutes=30)), timezone(-timedelta(hours=9))])
    )
)
def test_isoformat_round_trips(moment):
    assert parse_iso(moment.isoformat()) == moment
    assert parse_iso_utc(moment.isoformat()) == moment


def test_zone_or_utc_falls_back_to_utc_for_blank_or_unknown_names():
    assert zone_or_utc("Europe/Paris").key == "Europe/Paris"
    assert zone_or_utc("").key == "UTC"
    assert zone_or_utc(None).key == "UTC"
    assert zone_or_utc("Mars/Olympus_Mons").key == "UTC"
