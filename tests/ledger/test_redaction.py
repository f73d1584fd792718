"""Redaction by structure (pure): secrets found from the words around them over a few turns, read back or not,
written or spoken; the plain numbers of everyday talk kept.

The phrasings come from domains no labelled day has (gym and parcel lockers, Wi-Fi, utilities, health insurance,
workplace doors, verification codes, tax, voicemail, bike locks, safes, storage units, school portals), plus a
few payments (sort code, routing number, debit card, IBAN) said in ways no labelled day says them.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ledger.redaction import REDACTED, redact_text, redact_turns

# (conversation, the secrets said in it, as said)
SECRETS = [
    (["Which locker did you get?", "Forty-one. The combination is 28 14 36, don't tell anyone."], ["28 14 36"]),
    (
        ["Your parcel's in the locker downstairs.", "What's the pickup code?", "Eight three five, two one nine."],
        ["Eight three five, two one nine"],
    ),
    (
        ["What's the Wi-Fi password here?", "It's bluewhale1987, all lower case.", "bluewhale1987, got it."],
        ["bluewhale1987", "bluewhale1987"],
    ),
    (
        ["I'm calling about my electricity bill.", "Can you give me your account number?", "Yes, 7 7 0 4 1 2 9 8 5 3."],
        ["7 7 0 4 1 2 9 8 5 3"],
    ),
    (
        ["For the claim I'll need your member ID.", "Sure, it's W 8 8 2 1 0 4 5 7.", "W88210457, thank you."],
        ["W 8 8 2 1 0 4 5 7", "W88210457"],
    ),
    (
        ["The server room keypad code changed on Monday.", "To what?", "Six nine six nine, then the pound key."],
        ["Six nine six nine"],
    ),
    (
        ["They texted me a verification code.", "Read it out.", "Four one nine, two eight eight.", "419288, done."],
        ["Four one nine, two eight eight", "419288"],
    ),
    (["My tax file number is 459 312 887, the accountant needs it."], ["459 312 887"]),
    pytest.param(
        ["I forgot my voicemail PIN again.", "It's your birthday backwards, 1 9 3 0."],
        ["1 9 3 0"],
        marks=pytest.mark.xfail(strict=True, reason="known limit: a plain word nearer the number (birthday) wins"),
    ),
    (
        ["Did you lock the bike?", "Yeah, combo's 0 4 7 2.", "Oh four seven two, okay."],
        ["0 4 7 2", "Oh four seven two"],
    ),
    (["The hotel safe wants a code.", "Use 583920, same as always."], ["583920"]),
    (["What's the gate code for the storage unit?", "It's star, 2 2 5 8, hash.", "2258, thanks."], ["2 2 5 8", "2258"]),
    (
        ["Can you log into the school portal for me?", "The password's Greenfinch!42 with a capital G."],
        ["Greenfinch!42"],
    ),
    (
        [
            "Pay the plumber from the joint account.",
            "What are the details?",
            "Sort code 30-94-57, account 41875520. Reference is his surname.",
        ],
        ["30-94-57", "41875520"],
    ),
    (
        ["Use my debit card, the number's 4000 0566 5566 5556.", "And the three digits on the back?", "It's 214."],
        ["4000 0566 5566 5556", "214"],
    ),
    (
        ["What's the routing number on the cheque?", "021000021.", "Zero two one zero zero zero zero two one."],
        ["021000021", "Zero two one zero zero zero zero two one"],
    ),
    (["Her insurance policy number is HX-4410-982."], ["HX-4410-982"]),
    (["The lockbox for the cabin key opens with forty-two seventeen."], ["forty-two seventeen"]),
    (["My new PIN for the card is double seven three one."], ["double seven three one"]),
    (["Send it to my IBAN, GB33 BUKB 2020 1555 5555 55."], ["GB33 BUKB 2020 1555 5555 55"]),
]


@pytest.mark.parametrize(("turns", "said"), SECRETS)
def test_every_secret_is_redacted_wherever_it_is_said(turns, said):
    out = redact_turns(turns)
    text = " ".join(out)
    for secret in said:
        assert secret not in text, (secret, out)
        digits = re.sub(r"\D", "", secret)
        if len(digits) >= 4:
            assert digits not in re.sub(r"\D", "", text), (secret, out)
    assert text.count(REDACTED) >= len(said)


# Plain numbers in talk that also names secrets: every one must survive.
PLAIN = [
    (["The gym's at 1450 Lakeshore Road, opposite the library.", "What's the locker code?", "5512."], "1450"),
    (["Parcel locker 12 was full so they used locker 31.", "And the code?", "880341."], "31"),
    (["The account was opened in 2017.", "Okay."], "2017"),
    (["My card expires in 11/28.", "Fine."], "11/28"),
    (["What's the door code?", "It's 4471.", "And what time does the cleaner come?", "Half past seven, 7 30."], "7 30"),
    (["What's the door code?", "It's 4471.", "How many people are coming?", "About 120."], "120"),
    (["What's the door code?", "It's 4471.", "And the address?", "2318 Birchwood Drive."], "2318"),
    (["The Wi-Fi password is on the fridge.", "It was 45 dollars for the router."], "45"),
    (["Our account manager called at 4:15.", "About the 3,200 invoice?"], "3,200"),
    (["Call me on 0161 496 0734 when you're outside the gym."], "0161 496 0734"),
    (["The security deposit was 950.", "We get it back in 30 days."], "950"),
    (["Flight 2291 lands at 6 50, gate 14."], "2291"),
    (["The PIN arrived in the post on the 14th.", "They charged 12 pounds for the new card."], "12"),
    (["I owe the gym 180 for the year.", "The membership runs until March 2027."], "180"),
    (["The unit is 4 1 7, second floor, code on the door is separate."], "4 1 7"),
    (["Bring 24 chairs and 3 tables to the hall.", "The alarm code is 9032."], "24"),
    (["My password manager has 312 entries now."], "312"),
    (["Room 1204 has the safe.", "Okay."], "1204"),
]


@pytest.mark.parametrize(("turns", "plain"), PLAIN)
def test_plain_numbers_survive_next_to_secrets(turns, plain):
    assert plain in " ".join(redact_turns(turns))


def test_a_code_read_back_by_the_listener_is_redacted_both_times():
    turns = ["The code for the bike shed is 6 1 8 3.", "Six one eight three?", "Yep. 6183."]
    out = redact_turns(turns)
    assert out == ["The code for the bike shed is [redacted].", "[redacted]?", "Yep. [redacted]."]


def test_a_number_said_alone_is_kept_when_the_question_asked_for_a_time():
    turns = ["What's the keypad code?", "2580.", "And what time do they open?", "Nine thirty."]
    assert redact_turns(turns)[3] == "Nine thirty."


def test_single_texts_with_no_conversation_around_them():
    assert redact_text("Locker combination 12-40-33, see you at 6.") == "Locker combination [redacted], see you at 6."
    assert redact_text("Meeting moved to 14:30 in room 2.04") == "Meeting moved to 14:30 in room 2.04"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=4))
def test_redaction_is_idempotent(turns):
    once = redact_turns(turns)
    assert redact_turns(once) == once


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["locker combination", "door code", "PIN", "member ID", "account number"]),
    st.text(alphabet="0123456789", min_size=4, max_size=8).filter(lambda d: len(set(d)) > 1),
    st.sampled_from(["{d}", "{spaced}", "{dashed}"]),
)
def test_any_code_named_and_read_back_is_redacted(cue, digits, style):
    said = style.format(d=digits, spaced=" ".join(digits), dashed="-".join([digits[:2], digits[2:]]))
    out = redact_turns([f"What's the {cue}?", f"It's {said}.", f"{digits}, got it."])
    assert digits not in re.sub(r"\D", "", " ".join(out))


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["The storage unit code is {c}.", "Her passport number: {c}", "Gate PIN {c}, don't share it."]),
    st.text(alphabet="ABCDEFGHJKLMNPQRSTUVWXYZ", min_size=2, max_size=5),
    st.text(alphabet="0123456789", min_size=4, max_size=6),
    st.sampled_from(["{d}-{w}", "{w}-{d}", "{w}-{d}-{w}"]),
)
def test_a_written_code_of_digits_and_capitals_is_redacted_whole(sentence, letters, digits, shape):
    """A code written as digits and capital letters joined by hyphens ("4777-NJUA") is one identifier: before,
    only its digits were redacted and its letters stayed on disk ("[redacted]-NJUA")."""
    code = shape.format(d=digits, w=letters)
    out = redact_text(sentence.format(c=code))
    assert REDACTED in out and letters not in out and digits not in out


def test_a_parcel_in_transit_keeps_its_tracking_code():
    """ "In transit" says where a parcel is; a bank's transit number is named by the noun, not the idiom."""
    assert redact_text("Kiln glaze order - In transit: 5530-QRTX") == "Kiln glaze order - In transit: 5530-QRTX"
    assert redact_text("Seed trays are in transit: 88214") == "Seed trays are in transit: 88214"
    assert redact_text("My transit number is 04512.") == "My transit number is [redacted]."


@pytest.mark.parametrize("text", ["COVID-19 closed the pool.", "The F-150 needs tyres.", "Route I-95 to exit 4410."])
def test_model_names_with_a_hyphen_stay(text):
    assert redact_text(text) == text


@pytest.mark.parametrize("letters", ["NAY", "BAT", "OWL", "CAP"])
def test_a_codes_letters_that_spell_a_noun_are_still_the_code(letters):
    """Hypothesis found "Gate PIN NAY-0000" kept whole: "PIN" was read as modifying the noun "nay" (as in "PIN
    pad"), so it was no cue. The letters of a written code are the code, whatever word they spell."""
    assert redact_text(f"Gate PIN {letters}-5521, don't share it.") == "Gate PIN [redacted], don't share it."
    assert redact_text("The PIN pad in room 5521 is broken.") == "The PIN pad in room 5521 is broken."
