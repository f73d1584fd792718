"""Names, places and organisations never reach the turn reader: the same masking in training and at run time."""

from __future__ import annotations

import pytest

from distill.masking import OTHER, OWNER, mask_conversation, name_words

pytestmark = pytest.mark.django_db(databases=[])


def test_the_owner_and_the_other_speaker_become_roles_with_their_possessives():
    out = mask_conversation(
        ["How's the organ coming on, Oona?", "Oona's new pipes arrived, and Tomasz's van broke down."],
        owner_name="Oona Ballantyne",
        speaker_names=["Tomasz"],
    )
    assert out[0] == f"How's the organ coming on, {OWNER}?"
    assert out[1].startswith(f"{OWNER}'s new pipes") and f"{OTHER}'s van" in out[1]
    assert "Oona" not in " ".join(out) and "Tomasz" not in " ".join(out)


def test_a_lower_case_name_from_speech_recognition_is_masked_too():
    (out,) = mask_conversation(["yeah oona said she'd call"], owner_name="Oona Ballantyne")
    assert "oona" not in out.lower() and OWNER in out


def test_a_name_masked_once_is_masked_wherever_it_recurs_in_the_conversation():
    out = mask_conversation(
        ["My cousin Marguerite Duval moved to Lisbon last spring.", "Did Marguerite like it there?", "lisbon is hilly"],
        owner_name="Tevita Fonua",
    )
    joined = " ".join(out)
    assert "Marguerite" not in joined and "Duval" not in joined and "isbon" not in joined
    assert out[1].startswith("Did [") and out[2].startswith("[")


def test_people_are_numbered_by_first_mention():
    out = mask_conversation(["I told Barack Obama and then Angela Merkel."], owner_name="Tevita Fonua")
    assert "Obama" not in out[0] and "Merkel" not in out[0]


@pytest.mark.parametrize("label", ["SPEAKER_01", "0", "Unknown", "user", "speaker 2"])
def test_device_speaker_labels_are_not_names(label):
    assert name_words(label) == set()


def test_a_display_name_gives_its_words():
    assert name_words("Dr. Oona Fitzgerald") == {"dr", "oona", "fitzgerald"}
