"""Short habits and states, subjects that act on the speaker, the speaker's words in a named subject's sentence,
decisions agreed across two turns, and who a title or an order at the start of a turn names. Sentences written
for these tests (a climbing gym, a choir, a bakery, a sailing club: not the development data). Pure: no database."""

from __future__ import annotations

import pytest

from distill.extraction import claims, decisions
from tests.distill.test_extraction_context import decision, extract, kept, nothing_kept, one


def wearer_says(text):
    return extract(("Bram", False, "How's everything?"), ("Odile", True, text))


# --- short present-tense habits and states ------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("said", "content"),
    [
        ("I keep bees.", "Odile keeps bees."),
        ("I don't have a car.", "Odile doesn't have a car."),
        ("I speak Estonian.", "Odile speaks Estonian."),
        ("We never rent kayaks.", "Odile and others never rent kayaks."),
    ],
)
def test_a_two_word_habit_or_state_waits_in_review(said, content):
    cand = one(wearer_says(said), content.split()[-1].rstrip("."))
    assert cand.content == content and decision(cand) == "pending_review"


@pytest.mark.parametrize("said", ["I have to go.", "I need it.", "I see you.", "I have been."])
def test_a_short_clause_about_the_moment_or_a_pronoun_is_not_kept(said):
    assert kept(wearer_says(said)) == []


def test_habitual_present_needs_a_present_verb_and_a_noun_object():
    assert claims.habitual_present("I bake sourdough")
    assert claims.habitual_present("we don't own a boat")
    assert not claims.habitual_present("I baked sourdough")  # an event, not a habit
    assert not claims.habitual_present("I have been there")
    assert not claims.habitual_present("I like it")


# --- a subject that acts on the speaker -------------------------------------------------------------------------
def test_a_plural_subject_acting_on_the_speaker_is_a_statement_about_the_speaker():
    cand = one(wearer_says("Cold water and choir practice keep me calm."), "choir")
    assert cand.content == "Cold water and choir practice keep Odile calm." and decision(cand) == "pending_review"


def test_a_present_verb_before_an_object_pronoun_is_finite_but_not_after_please():
    assert claims.has_finite_verb("Choir rehearsals help me unwind")
    assert not claims.has_finite_verb("Please help me")


def test_an_unknown_ing_word_subject_is_an_activity_not_a_person():
    cand = one(wearer_says("Kitesurfing is my favourite sport."), "kitesurfing")
    assert cand.attribution == "user" and cand.person == ""
    assert cand.content == "Kitesurfing is Odile's favourite sport."


# --- the speaker's words inside a named subject's sentence -------------------------------------------------------
def test_my_in_a_named_subjects_sentence_is_the_speakers():
    cand = one(wearer_says("Lotte is my sister."), "Lotte")
    assert cand.person == "Lotte" and cand.content == "Lotte is Odile's sister."
    other = one(extract(("Bram", False, "Lotte is my sister."), ("Odile", True, "Oh nice.")), "Lotte")
    assert other.content == "Lotte is Bram's sister."


def test_my_in_a_named_subjects_sentence_from_an_unknown_speaker_is_not_kept():
    cands = extract(("Unknown", False, "Lotte is my sister."), ("Odile", True, "Oh nice."))
    assert nothing_kept(cands, "Lotte")
    assert not [c for c in cands if " my " in f" {c.content} "]


# --- decisions agreed across two turns ----------------------------------------------------------------------------
def test_a_proposal_the_other_speaker_agrees_to_is_a_decision_for_review():
    cands = extract(("Bram", False, "Let's move the regatta to the second weekend."), ("Odile", True, "Deal."))
    cand = one(cands, "regatta")
    assert cand.content == "Odile and Bram decided to move the regatta to the second weekend."
    assert cand.kind == "decision" and decision(cand) == "pending_review" and cand.ceiling_reason == decisions.AGREED


def test_the_wearers_proposal_agreed_by_the_other_is_the_wearers_decision():
    cands = extract(
        ("Odile", True, "So let's just, let's just drop the spring bake sale. Nobody signed up anyway."),
        ("Bram", False, "Okay. The bake sale is off."),
    )
    cand = one(cands, "bake sale")
    assert cand.content == "Odile and Bram decided to drop the spring bake sale." and cand.attribution == "user"


@pytest.mark.parametrize(
    ("proposal", "reply"),
    [
        ("Let's move the regatta to the second weekend.", "No, wait, the club is closed then."),
        ("Let's move the regatta to the second weekend.", "Sure, but ask the harbour master first."),
        ("Let's grab a coffee after the rehearsal.", "Sure."),
        ("Let's push it.", "Okay."),
        ("Let's order pizza tonight.", "Yes!"),
        ("Let's move the regatta to the second weekend?", "Yes."),
    ],
)
def test_a_refused_hedged_passing_or_vague_proposal_is_no_decision(proposal, reply):
    cands = extract(("Bram", False, proposal), ("Odile", True, reply))
    assert not [c for c in kept(cands) if c.kind == "decision"]


def test_a_decision_between_two_other_people_is_not_the_wearers():
    cands = extract(
        ("Bram", False, "Let's switch the choir to weekly rehearsals."), ("Cleo", False, "Agreed."), wearer="Odile"
    )
    assert not [c for c in cands if c.ceiling_reason == decisions.AGREED]


def test_a_media_word_used_as_a_verb_is_not_media():
    cand = one(wearer_says("I book the climbing wall every Thursday."), "climbing wall")
    assert "media mentioned nearby" not in cand.flags
    assert claims._MEDIA.search("we watched the show twice")


# --- who a turn names ------------------------------------------------------------------------------------------
def test_an_order_at_the_start_of_a_turn_is_not_a_name_but_a_title_is():
    cands = extract(
        ("Unknown", False, "Odile! You're moving out?"),
        ("Odile", True, "Mr. Haldane! Hi! Yes, this weekend."),
        ("Unknown", False, "I've run the bakery downstairs for thirty years."),
        ("Odile", True, "Stop, you'll make me cry."),
    )
    cand = one(cands, "bakery")
    assert cand.person == "Haldane" and cand.content.startswith("Haldane has run the bakery downstairs")


def test_a_comment_after_a_comma_is_its_own_clause():
    cands = extract(
        ("Bram", False, "I'm seventy and I'm retiring from the orchestra, that is a long career."),
        ("Odile", True, "Wow, Bram!"),
    )
    cand = one(cands, "retiring")
    assert cand.content == "Bram is retiring from the orchestra."
