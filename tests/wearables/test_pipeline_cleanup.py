"""Zero-LLM cleanup (pure): fillers, stutters, garbage, fragment merging; digits never collapsed."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wearables.pipeline import Turn
from wearables.pipeline.cleanup import clean_text, is_garbage, merge_fragments


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("I I I think so", "I think so"),
        ("I finished the the insurance card step", "I finished the insurance card step"),
        ("Um so intake flow.", "So intake flow."),
        ("We're, uh, we're about two blocks away", "We're about two blocks away"),
        ("Yeah, you know, I think so", "Yeah, I think so"),
        ("in the in the park", "in the park"),
    ],
)
def test_cleanup_removes_fillers_and_stutters(raw, clean):
    assert clean_text(raw) == clean


@pytest.mark.parametrize(
    "text",
    [
        "So this is unit 1 1 0 4.",
        "3 1 2, 5 5 5, 0 1 4 4.",
        "The code is four four two one.",
        "I had had enough of it.",
        "Do you know Sam?",
    ],
)
def test_cleanup_keeps_read_out_numbers_and_real_repetitions(text):
    assert clean_text(text) == text


@given(st.lists(st.integers(min_value=0, max_value=9), min_size=2, max_size=20), st.sampled_from([" ", ", "]))
def test_digit_sequences_are_never_collapsed(digits, sep):
    spoken = sep.join(str(d) for d in digits)
    assert spoken in clean_text(f"The number is {spoken} okay")


@given(st.text(alphabet="0123456789 ,-", min_size=1, max_size=40))
def test_digits_survive_cleanup_in_order(text):
    before = "".join(c for c in text if c.isdigit())
    after = "".join(c for c in clean_text(text) if c.isdigit())
    assert after == before


@pytest.mark.parametrize("text", ["", "   ", "...", "Um.", "Uh, hmm.", "?!"])
def test_garbage_segments_are_recognised(text):
    assert is_garbage(clean_text(text))


def test_fragmented_same_speaker_turns_are_merged_but_not_across_speakers_or_long_gaps():
    t0 = datetime(2026, 6, 10, 12, tzinfo=UTC)

    def turn(label, text, start, end):
        return Turn(
            text=text,
            speaker_label=label,
            started_at=t0 + timedelta(seconds=start),
            ended_at=t0 + timedelta(seconds=end),
        )

    out = merge_fragments(
        [
            turn("0", "So I was", 0, 1),
            turn("0", "thinking about it.", 1.5, 3),
            turn("1", "Yes.", 4, 5),
            turn("1", "Much later.", 60, 61),
        ]
    )
    assert [t.text for t in out] == ["So I was thinking about it.", "Yes.", "Much later."]
    assert out[0].ended_at == t0 + timedelta(seconds=3)


def test_acronyms_that_look_like_fillers_are_kept():
    from wearables.pipeline.cleanup import clean_text

    assert clean_text("She works as an ER nurse, er, nights mostly.") == "She works as an ER nurse, nights mostly."
    assert "UM Health" in clean_text("Um, I got the letter from UM Health.")
