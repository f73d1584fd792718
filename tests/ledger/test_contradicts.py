"""``hashing.contradicts``: two claims about one subject that say opposite things, told from their hashed words.
Pure (no database). Sentences from several domains, none from the development data."""

from __future__ import annotations

import pytest

from ledger.hashing import contradicts, token_signature


def sig(text: str) -> list[str]:
    return token_signature(text, ["Marta"])


@pytest.mark.parametrize(
    ("held", "claim"),
    [
        ("Marta is allergic to peanuts", "Marta is not allergic to peanuts"),
        ("Marta drinks coffee every morning", "Marta never drinks coffee"),
        ("Marta lives in Lisbon", "Marta lives in Porto"),
        ("Marta has two daughters", "Marta has three daughters"),
        ("The ferry to the island leaves at 7 am", "The ferry to the island leaves at 9 am"),
        ("Marta's rent is 900 euros a month", "Marta's rent is 1200 euros a month"),
        ("Marta's choir rehearses on Tuesdays", "Marta's choir rehearses on Fridays"),
        ("Marta does not own a car", "Marta owns a car"),
    ],
)
def test_opposite_polarity_or_another_value_in_the_same_words_contradicts(held, claim):
    assert contradicts(sig(claim), sig(held)) and contradicts(sig(held), sig(claim))


@pytest.mark.parametrize(
    ("held", "claim"),
    [
        ("Marta is allergic to peanuts", "Marta is allergic to peanuts"),
        ("Marta lives in Lisbon", "Marta works in Porto"),
        ("Marta has two daughters", "Marta has two cats"),
        ("Marta plays the cello", "Marta plays the cello in a string quartet"),
        ("Marta drinks coffee every morning", "Marta drinks green tea in the evening"),
        ("Marta does not live in Lisbon", "Marta lives in Porto"),
        ("Marta is vegetarian", "Marta runs a marathon every spring"),
        ("Marta is allergic to peanuts", "Marta's brother is not allergic to anything at all these days"),
    ],
)
def test_different_topics_added_details_and_compatible_claims_do_not_contradict(held, claim):
    assert not contradicts(sig(claim), sig(held))
