"""What an agent receives for a question about a person: the owner's own name is known, facts come with the
turns they rest on, a when-question finds the turn that places the event in time, chat turns get session
context and fact anchors. Sentences are from domains that appear in no development file (a choir, an
allotment, a bicycle workshop).
"""

from __future__ import annotations

import datetime as dt

import pytest

from chats.recall_provider import ChatTurnProvider
from chats.services.conversations import import_conversation
from ledger.recall import search, services
from ledger.recall.when import asks_when
from tests.factories import EvidenceInFactory, FactFactory

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _fresh(fresh_recall):
    """Corpus statistics and cached blocks start empty in every test."""


def chat(user, external_id: str, day: dt.date, lines: list[tuple[str, str]], owner: str = "Alice Example"):
    """One imported conversation (not distilled): its session and turns, in order."""
    at = dt.datetime.combine(day, dt.time(18), tzinfo=dt.UTC)
    names = sorted({who for who, _ in lines} | {owner})
    imported = import_conversation(
        owner=user,
        external_id=external_id,
        participants=[{"name": n, "is_owner": n == owner} for n in names],
        turns=[{"speaker": who, "text": text, "at": at} for who, text in lines],
        started_at=at,
        distill_now=False,
    )
    session = imported.session
    return session, list(session.turns.order_by("index"))


@pytest.mark.parametrize(
    "question",
    ["When did the choir start rehearsing Fauré?", "what year did Ines buy the lathe?", "How long ago was the move?"],
)
def test_questions_about_when_are_recognised(question):
    assert asks_when(question)


@pytest.mark.parametrize("question", ["Where does the choir rehearse?", "What did Ines say when she left?"])
def test_other_questions_are_not_when_questions(question):
    assert not asks_when(question)


def test_a_when_question_finds_the_turn_that_places_the_event_in_time(user):
    _, turns = chat(
        user,
        "allotment-1",
        dt.date(2025, 4, 2),
        [
            ("Oskar", "The allotment committee finally approved my greenhouse."),
            ("Oskar", "I put the greenhouse up yesterday with my brother."),
            ("Alice Example", "The committee is slow with everything."),
        ]
        + [("Oskar", f"The greenhouse plans had {n} drafts before the committee looked.") for n in range(3, 6)],
    )
    ranked = [
        r.ref_id for r in search.fulltext_ranking(ChatTurnProvider(), user, "When did Oskar put up the greenhouse?")
    ]
    assert ranked[0] == turns[1].pk


def test_the_turn_the_named_person_said_outranks_turns_said_to_them(user):
    _, turns = chat(
        user,
        "workshop-1",
        dt.date(2025, 5, 6),
        [
            ("Alice Example", "Thanks Bertil, the wheel truing stand was a great tip for the workshop."),
            ("Bertil", "I am rebuilding a wheel for the workshop this week."),
        ],
    )
    ranked = [
        r.ref_id for r in search.fulltext_ranking(ChatTurnProvider(), user, "What is Bertil doing in the workshop?")
    ]
    assert ranked[0] == turns[1].pk


def test_chat_turns_pass_their_score_to_the_turns_beside_them(user):
    _, turns = chat(
        user,
        "choir-1",
        dt.date(2025, 3, 1),
        [
            ("Alice Example", "How did the concert with the choir go?"),
            ("Marguerite", "Wonderful, we sang all of it without a single mistake."),
            ("Alice Example", "I repaired the gate today."),
        ],
    )
    neighbours = ChatTurnProvider().neighbours(user, [turns[1].pk])
    assert sorted(neighbours[turns[1].pk]) == sorted([turns[0].pk, turns[2].pk])
    ranked = [r.ref_id for r in search.contextual_ranking(ChatTurnProvider(), user, "How did the choir concert go?")]
    assert turns[1].pk in ranked[:2]


def test_a_fact_distilled_from_a_chat_turn_lifts_that_turn(user):
    session, turns = chat(
        user,
        "choir-2",
        dt.date(2025, 3, 8),
        [("Marguerite", "Every Tuesday I sing bass with the harbour singers."), ("Alice Example", "Lovely.")],
    )
    FactFactory(
        owner=user,
        content="Marguerite is a member of a choir",
        evidence=[EvidenceInFactory(source_type="chat", source_ref={"session": str(session.public_id), "turn": 0})],
    )
    assert services.index_anchors(owner=user) == 1
    assert services.index_anchors(owner=user) == 0  # idempotent
    ranked = [r.ref_id for r in search.contextual_ranking(ChatTurnProvider(), user, "Which choir is Marguerite in?")]
    assert ranked[0] == turns[0].pk


def test_evidence_naming_no_turn_of_the_owner_links_nothing(user, other_user):
    session, _turns = chat(user, "choir-3", dt.date(2025, 3, 9), [("Marguerite", "I sing bass.")])
    refs = [{"session": str(session.public_id), "turn": 0}, {"session": "not-a-uuid", "turn": 0}, {"turn": 1}]
    assert [len(r) for r in ChatTurnProvider().evidence_refs(user, refs)] == [1, 0, 0]
    assert ChatTurnProvider().evidence_refs(other_user, refs[:1]) == [[]]


def test_a_question_naming_the_owner_gets_a_block_with_their_words(user):
    _, turns = chat(
        user,
        "bike-1",
        dt.date(2025, 6, 1),
        [
            ("Alice Example", "I trued the rear wheel of the tandem on Sunday."),
            ("Bertil", "Did the spokes hold?"),
        ],
    )
    result = services.recall_context(owner=user, query="What did Alice Example fix on the tandem?", feedback=False)
    assert result.gate.route == "pinned" and "Alice Example" in result.gate.entities
    assert "## Transcript excerpts (uses: quote, answer)" in result.block
    assert "trued the rear wheel of the tandem" in result.block and turns[0].pk in {i.ref_id for i in result.items}


def test_a_block_about_a_person_holds_their_facts_first_then_the_turns(user):
    chat(
        user,
        "allotment-2",
        dt.date(2025, 7, 1),
        [("Oskar", "My leeks won second prize at the village show."), ("Alice Example", "Well done Oskar!")],
    )
    FactFactory(  # told to an agent: it rests on no turn
        owner=user,
        content="Oskar grows prize leeks",
        person="Oskar",
        subject="third_party",
        evidence=[EvidenceInFactory(source_type="agent", source_ref={"client": "cli"})],
    )
    services.index_anchors(owner=user)
    result = services.recall_context(owner=user, query="What does Oskar grow?", feedback=False)
    block = result.block
    assert "Oskar grows prize leeks" in block and "leeks won second prize" in block
    assert block.index("Oskar grows prize leeks") < block.index("## Transcript excerpts") < block.index("second prize")
    assert result.tokens <= 800


def test_a_fact_distilled_from_a_turn_is_shown_as_that_turn(user):
    session, turns = chat(
        user,
        "allotment-3",
        dt.date(2025, 7, 2),
        [("Oskar", "I keep four hives behind the shed now."), ("Alice Example", "Mind the stings.")],
    )
    FactFactory(
        owner=user,
        content="Oskar keeps bees",
        person="Oskar",
        subject="third_party",
        evidence=[EvidenceInFactory(source_type="chat", source_ref={"session": str(session.public_id), "turn": 0})],
    )
    services.index_anchors(owner=user)
    result = services.recall_context(owner=user, query="Does Oskar keep bees?", feedback=False)
    assert "four hives behind the shed" in result.block and "Oskar keeps bees" not in result.block
    assert turns[0].pk in {i.ref_id for i in result.items if i.kind == "chat_turn"}
