"""Redaction (pure): SSNs and Luhn-valid cards however spoken, user patterns, idempotence."""

from __future__ import annotations

import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from wearables.pipeline.redaction import REDACTED, compile_user_pattern, luhn_valid, redact_text


def luhn_complete(prefix: str) -> str:
    for check in "0123456789":
        if luhn_valid(prefix + check):
            return prefix + check
    raise AssertionError


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("Okay, it's a Visa, 4242 4242 4242 4242.", "4242 4242 4242 4242"),
        ("Mastercard, 5555 5555 5555 4444, expires twelve", "5555 5555 5555 4444"),
        ("Amex 3782 822463 10005 please", "3782 822463 10005"),
        ("card 4242-4242-4242-4242", "4242-4242-4242-4242"),
        ("it's 4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1 thanks", "4 1 1 1 1 1 1 1 1 1 1 1 1 1 1 1"),
        ("4242 4242, 4242 4242 is the card", "4242 4242, 4242 4242"),
        ("Sure. It's 512-48-3307.", "512-48-3307"),
        ("my social security number is 5 1 2 4 8 3 3 0 7", "5 1 2 4 8 3 3 0 7"),
    ],
)
def test_sensitive_numbers_are_redacted(text, secret):
    out = redact_text(text)
    assert secret not in out and REDACTED in out


@pytest.mark.parametrize(
    "text",
    ["unit 1 1 0 4", "3 1 2, 5 5 5, 0 1 4 4.", "In 2026 we had 3 kids", "Invoice 4242 4242 4242 4241 is paid"],
)
def test_ordinary_numbers_and_luhn_invalid_numbers_stay(text):
    assert redact_text(text) == text


card_numbers = st.builds(
    lambda prefix, body: luhn_complete(prefix + body),
    st.sampled_from(["4", "51", "55", "37", "6011"]),
    st.text(alphabet="0123456789", min_size=11, max_size=13),
)


def spoken(number: str, style: int) -> str:
    if style == 0:
        return number
    if style == 1:
        return " ".join(number[i : i + 4] for i in range(0, len(number), 4))
    if style == 2:
        return "-".join(number[i : i + 4] for i in range(0, len(number), 4))
    return " ".join(number)


@given(card_numbers, st.integers(min_value=0, max_value=3), st.sampled_from(["", "My card is ", "ok "]))
def test_no_valid_card_survives_in_any_spoken_form(number, style, lead):
    out = redact_text(f"{lead}{spoken(number, style)}. Thanks")
    assert number not in re.sub(r"\D", "", out)


@given(st.text(max_size=120))
def test_redaction_is_idempotent(text):
    once = redact_text(text)
    assert redact_text(once) == once


def test_user_patterns_are_applied_and_validated():
    pattern = compile_user_pattern(r"project\s+falcon")
    assert redact_text("About Project Falcon today", [pattern]) == f"About {REDACTED} today"
    with pytest.raises(ValueError, match="invalid regular expression"):
        compile_user_pattern("(unclosed")
    with pytest.raises(ValueError, match="empty string"):
        compile_user_pattern("x*")
