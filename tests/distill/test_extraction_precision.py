"""Precision on talk never seen: what smart mode (no LLM) accepts, queues and drops, on sentences written for these
tests in other domains than the development days (cooking, sailing, accounting, medicine, carpentry...).

Never accepted and not queued: figurative speech, fragments, passing actions, small offers, unresolved pronoun
objects, questions, hypotheticals, quotes of media. Accepted: durable, explicit statements by an identified
speaker, in a well-formed sentence, about a person the extractor can name. Pure: no database."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from distill.extraction import claims
from distill.extraction.base import ConversationIn, DayInput, UtteranceIn
from distill.extraction.deterministic import DeterministicExtractor
from distill.trust import Policy, decide, score

T0 = datetime(2026, 9, 14, 14, 0, tzinfo=UTC)


def extract(*turns, wearer="Noor Haddad"):
    utts = [
        UtteranceIn(index=i, speaker_name=s, is_wearer=w, text=t, started_at=T0 + timedelta(seconds=7 * i))
        for i, (s, w, t) in enumerate(turns)
    ]
    conv = ConversationIn(started_at=T0, utterances=utts)
    return DeterministicExtractor().extract(DayInput(wearer_name=wearer, conversations=[conv])).candidates


def decisions(*turns, **kw) -> list[tuple[str, str]]:
    policy = Policy()
    return [
        (decide(score(c, source_trust=policy.source_trust), policy).decision, c.content) for c in extract(*turns, **kw)
    ]


def kept(*turns, **kw) -> list[str]:
    """Contents accepted or queued."""
    return [text for d, text in decisions(*turns, **kw) if d != "dropped"]


def accepted(*turns, **kw) -> list[str]:
    return [text for d, text in decisions(*turns, **kw) if d == "accepted"]


# --- never accepted, never queued -------------------------------------------------------------------------
NEVER = {
    "figurative": [
        "I love sailing but this headwind is killing me.",
        "I hate tax season, it's literally the death of me.",
        "I'm allergic to spreadsheets, they're killing me.",
        "I could eat a whole cow after that shift, I'm starving.",
        "I've told the auditors a million times, I hate those ledgers.",
    ],
    "fragment": [
        "My cousin's christening.",
        "Her brother's regatta.",
        "The new payroll software.",
    ],
    "passing action": [
        "I'm just grabbing the sourdough from the oven.",
        "I'm just reefing the mainsail real quick.",
        "I'll finish the reconciliation tonight.",
        "I'm on my way, just parking the van.",
    ],
    "small offer": [
        "I'll send you one of those starters.",
        "I can bring you some of the pickled lemons.",
        "I'll grab you a coffee.",
        "Let me get that door for you.",
    ],
    "pronoun object": [
        "I'll tie them back.",
        "I'll sand it down.",
        "I'm allergic to it.",
        "I'll fold them in slowly.",
    ],
    "question": [
        "You're a pharmacist, right?",
        "I was wondering if I'm allergic to penicillin.",
        "Am I still on the rota for Thursday?",
        "I don't know whether I work Saturdays now.",
    ],
    "hypothetical": [
        "If I were a chef I'd live in Lyon.",
        "I wish I lived on a boat in Hydra.",
        "Imagine I was the treasurer of the yacht club.",
        "Someday I'll own a vineyard in Mendoza.",
    ],
    "media quote": [
        'In the show the captain goes "I\'m allergic to the sea" every episode.',
        "That podcast host is like, I work as a spy in Vienna.",
    ],
}


@pytest.mark.parametrize(
    "text", [t for texts in NEVER.values() for t in texts], ids=[k for k, v in NEVER.items() for _ in v]
)
def test_never_accepted_nor_queued_when_the_wearer_says_it(text):
    assert kept(("user", True, text)) == []


@pytest.mark.parametrize("text", [t for texts in NEVER.values() for t in texts])
def test_never_accepted_nor_queued_when_a_named_speaker_says_it(text):
    assert kept(("user", True, "Hi."), ("Tomasz Wren", False, text)) == []


# --- accepted: durable, explicit, identified, well-formed ----------------------------------------------------
DURABLE = [
    ("I'm allergic to shellfish.", "Noor is allergic to shellfish."),
    ("I don't eat pork.", "Noor doesn't eat pork."),
    ("I work as a bookkeeper for three dental clinics.", "Noor works as a bookkeeper for three dental clinics."),
    ("I've been vegan for six years.", "Noor has been vegan for six years."),
    ("My brother lives in Gdansk.", "Noor's brother lives in Gdansk."),
    ("I grew up in Valparaiso.", "Noor grew up in Valparaiso."),
    ("I'm a sous chef at a bistro in Leith.", "Noor is a sous chef at a bistro in Leith."),
]


@pytest.mark.parametrize("text,expected", DURABLE)
def test_durable_explicit_statements_of_the_wearer_are_accepted_as_correct_sentences(text, expected):
    assert expected in accepted(("user", True, text))


def test_a_provider_named_speakers_durable_statement_is_accepted_about_them():
    assert "Tomasz Wren is allergic to penicillin." in accepted(
        ("user", True, "Hi."), ("Tomasz Wren", False, "I'm allergic to penicillin.")
    )


def test_a_speaker_named_only_by_a_vocative_is_queued_not_accepted():
    turns = (("SPEAKER_01", False, "I'm allergic to penicillin."), ("SPEAKER_00", True, "Good to know, Tomasz!"))
    assert "Tomasz is allergic to penicillin." in kept(*turns)
    assert accepted(*turns) == []


def test_an_unidentified_speakers_claim_is_at_most_queued():
    assert accepted(("SPEAKER_03", False, "I work as a harbour pilot in Gothenburg.")) == []


# --- plausible, less certain: review ----------------------------------------------------------------------
def test_a_preference_about_something_at_hand_is_not_accepted():
    assert accepted(("user", True, "I love this marina.")) == []
    assert "Noor loves marinas." in accepted(("user", True, "I love marinas."))
    shape = claims.assess("I hate this weather", kind="preference")
    assert shape.verdict == claims.REVIEW


def test_a_promise_to_the_listener_with_a_day_is_kept_for_review():
    turns = (("Tomasz Wren", False, "Hi."), ("user", True, "I'll get the audit memo to you by Friday."))
    assert kept(*turns) and accepted(*turns) == []


def test_an_open_condition_waits_in_review():
    turns = (("user", True, "If the survey comes back clean, I'm buying the ketch on October 3rd."),)
    assert kept(*turns) and accepted(*turns) == []


# --- the claim-shape cues one by one (other domains) ------------------------------------------------------
@pytest.mark.parametrize(
    "clause",
    ["I'm a nurse", "Tom's moving to Perth", "my lease ends the thirtieth", "the clinic opened in May", "I sail"],
)
def test_clauses_with_a_tensed_verb_are_not_fragments(clause):
    assert claims.has_finite_verb(clause)


@pytest.mark.parametrize("clause", ["Her sister's wedding", "the quarterly numbers", "my uncle's sailboat"])
def test_verbless_phrases_are_fragments(clause):
    assert not claims.has_finite_verb(clause)


@pytest.mark.parametrize(
    "clause",
    ["I love it when the dough proofs overnight", "I hate that you moved", "I keep her recipes", "I love that bakery"],
)
def test_a_pronoun_followed_by_its_clause_or_noun_is_not_an_unresolved_object(clause):
    shape = claims.assess(clause)
    assert shape is None or "pronoun" not in shape.reason


def test_progressive_with_a_durable_marker_is_not_a_passing_action():
    assert claims.assess("I'm studying accountancy these days") is None
    assert claims.assess("I'm just stirring the risotto").reason == "passing action"


# --- more cues, more domains --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "text,reason",
    [
        ("I basically live at the boatyard", "figurative or joking speech"),
        ("this audit is going to kill me", "figurative or joking speech"),
        ("the twins drive me crazy", "figurative or joking speech"),
        ("that crème brûlée is to die for", "figurative or joking speech"),
        ("you're the best", "an opinion or compliment, not a fact"),
        ("your knots are perfect", "an opinion or compliment, not a fact"),
        ("I'll drop the invoices off", "small offer or pleasantry"),
        ("I'll fold the spinnaker", "small offer or pleasantry"),
        ("I'll miss you", "small offer or pleasantry"),
        ("I was just stirring the stock when the fire alarm went off", "passing action"),
        ("I'm doing the stocktake before ten", "passing action"),
    ],
)
def test_claim_shape_cues_on_unseen_sentences(text, reason):
    shape = claims.assess(text)
    assert shape is not None and shape.verdict == claims.DROP and shape.reason == reason


def test_a_quotative_makes_the_next_clause_quoted_speech():
    sentence = "And I was like, I'm quitting accountancy to become a pirate"
    assert claims.assess("I'm quitting accountancy to become a pirate", sentence=sentence).reason == "quoted speech"
    assert kept(("user", True, sentence + ".")) == []


def test_a_promise_with_a_day_or_a_memorable_kind_is_not_a_mere_gesture():
    assert claims.assess("I'll file the VAT return by the 30th", kind="commitment") is None
    assert claims.assess("I'll be moving to Gdansk", kind="place") is None


@pytest.mark.parametrize(
    "turns,expected",
    [
        ((("user", True, "I'm allergic to latex, is that on my chart?"),), "Noor is allergic to latex."),
        ((("user", True, "I quit sugar in January, remember?"),), "Noor quit sugar in January."),
    ],
)
def test_a_statement_before_a_question_or_a_confirmation_tag_is_still_a_statement(turns, expected):
    assert expected in kept(*turns)


def test_a_second_person_claim_with_a_tag_is_a_question():
    assert kept(("user", True, "Hi."), ("Tomasz Wren", False, "You're allergic to latex, right?")) == []
