"""Candidates for facts said the way people say them: an answer without a verb whose meaning is in the question,
a speaker the device knows only by a number, "he" or "she" a few turns after the person was named.

Every sentence was written for this file, from domains no labelled development file has (a choir, a ferry crew,
a beekeepers' co-op, an allotment, a bike repair shop); ``tests/distill/development_overlap.py`` checks it."""

from __future__ import annotations

from distill import pipeline, trust
from distill.extraction.base import ConversationIn, DayInput, TurnIn
from distill.extraction.deterministic import DeterministicExtractor

OWNER = "Ilse Brandvold"


def day(*turns: tuple[str, str]) -> DayInput:
    """A conversation; "me" is the owner, any other label a speaker as the device names them."""
    return DayInput(
        owner_name=OWNER,
        conversations=[
            ConversationIn(
                started_at=None,
                turns=[
                    TurnIn(index=i, speaker_name="user" if who == "me" else who, is_owner=who == "me", text=text)
                    for i, (who, text) in enumerate(turns)
                ],
            )
        ],
    )


def candidates(*turns):
    return DeterministicExtractor().extract(day(*turns)).candidates


# --- an answer without a verb -----------------------------------------------------------------------------------
def test_an_answer_without_a_verb_is_a_candidate_about_the_answerer():
    got = candidates(("Birgitta Holm", "What's your shoe size, for the waders?"), ("me", "Forty-three. Wide fit."))
    answers = [c for c in got if "answer to a question" in c.flags]
    assert [(c.attribution, c.content) for c in answers] == [("user", "Forty-three. Wide fit.")]


def test_another_speakers_verbless_answer_is_about_them():
    got = candidates(("me", "How long have you sung with the choir?"), ("Birgitta Holm", "Eleven years. Alto."))
    answers = [c for c in got if "answer to a question" in c.flags]
    assert [(c.person, c.content) for c in answers] == [("Birgitta Holm", "Eleven years. Alto.")]


def test_the_memory_of_a_verbless_answer_quotes_it_with_the_question():
    ctx = pipeline.run(
        pipeline.PassContext(
            policy=trust.Policy(),
            use_judge=False,
            day=day(("Birgitta Holm", "And which ferry are you crewing this season?"), ("me", "The night boat.")),
        )
    )
    texts = [s.candidate.content for s in ctx.scored]
    assert 'Birgitta Holm asked: "And which ferry are you crewing this season?" Ilse said: "The night boat."' in texts


def test_no_answer_candidate_for_a_yes_a_courtesy_a_question_about_someone_else_or_an_answer_with_a_verb():
    for question, answer in [
        ("Do you want a coffee?", "Yes please."),
        ("What time does the shop open?", "Nine, I think."),
        ("How's your allotment?", "It's doing great, the beans came up."),
        ("Where are the spare tubes?", "Top shelf."),
    ]:
        got = candidates(("Birgitta Holm", question), ("me", answer))
        assert not [c for c in got if c.predicate.endswith(":answer") and c.content == answer.rstrip(".")], question


# --- speakers a device knows only by a number -------------------------------------------------------------------
def test_a_numbered_speaker_called_by_one_name_twice_is_that_person_for_sure():
    got = candidates(
        ("me", "Morning, Halvard! Is the chain done?"),
        ("1", "Morning. I trued the back wheel as well."),
        ("me", "Thanks, Halvard. What do I owe you?"),
        ("1", "Call it forty. I've fixed bikes here for thirty years."),
    )
    mine = [c for c in got if c.evidence.first_index == 3 and "fixed bikes" in c.content]
    assert [(c.attribution, c.person) for c in mine] == [("third_party", "Halvard")]
    assert mine[0].features["attribution_confidence"] >= 0.6  # called by name twice: sure


def test_another_speaker_naming_a_numbered_speaker_counts_too():
    got = candidates(
        ("0", "Right, Oddvar, you tell her about the hives."),
        ("1", "I keep forty hives up the valley."),
        ("me", "Forty! That's a lot of bees."),
    )
    mine = [c for c in got if c.evidence.first_index == 1]
    assert [c.person for c in mine] == ["Oddvar"]


def test_an_interjection_or_a_place_said_like_a_name_names_nobody():
    got = candidates(
        ("me", "Shh, the choir's starting."),
        ("1", "I sing bass in the second row."),
        ("me", "Bergen! You went to Bergen?"),
    )
    mine = [c for c in got if c.evidence.first_index == 1]
    assert mine and all(c.person not in ("Shh", "Bergen") for c in mine)
    assert [c.attribution for c in mine] == ["unknown"] * len(mine)


# --- he or she a few turns on -----------------------------------------------------------------------------------
def test_he_or_she_a_few_turns_on_is_the_person_last_named():
    got = candidates(
        ("me", "Did you meet Torvald at the co-op?"),
        ("Birgitta Holm", "Briefly, yes."),
        ("me", "He ran the extraction room for years."),
        ("Birgitta Holm", "I didn't know."),
        ("me", "Yes. Anyway, he restores old accordions now."),
    )
    about = [(c.person, c.content) for c in got if c.evidence.first_index == 4]
    assert about == [("Torvald", "Torvald restores old accordions now.")]


def test_she_is_the_relation_of_her_gender_even_after_another_name():
    got = candidates(
        ("me", "My sister finally got an allotment."),
        ("Birgitta Holm", "Next to Anders's plot?"),
        ("me", "Two down. She grows nothing but garlic."),
    )
    about = [c.person for c in got if c.evidence.first_index == 2 and "garlic" in c.content]
    assert about == ["Ilse's sister"]
