"""Recall by what a turn means: date-aware matching, entity/topic expansion and fact-augmented keys (anchors).

Sentences here are from other domains than the development split (a workshop, a garden, a boat club).
"""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given
from hypothesis import strategies as st

from ledger.forget import services as forget_services
from ledger.recall import search, services
from ledger.recall.models import Anchor
from ledger.recall.when import date_windows, date_words, in_windows
from tests.factories import ConversationFactory, EvidenceInFactory, FactFactory, UtteranceFactory
from wearables.recall_provider import TranscriptProvider


# --- Date-aware matching, pure --------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("question", "first", "last"),
    [
        ("What did the plumber fix in March 2021?", dt.date(2021, 3, 1), dt.date(2021, 4, 7)),
        ("Which lathe broke on 14 Feb, 2024?", dt.date(2024, 2, 14), dt.date(2024, 2, 21)),
        ("Who repainted the hull on September 3rd, 2022?", dt.date(2022, 9, 3), dt.date(2022, 9, 10)),
        ("What was planted on 2025-04-30?", dt.date(2025, 4, 30), dt.date(2025, 5, 7)),
        ("How many regattas did the club hold in 2019?", dt.date(2019, 1, 1), dt.date(2020, 1, 7)),
    ],
)
def test_a_question_naming_a_period_gets_that_window_and_a_week_after(question, first, last):
    assert date_windows(question) == [(first, last)]
    assert in_windows(first, date_windows(question)) and not in_windows(last + dt.timedelta(days=1), [(first, last)])


@pytest.mark.parametrize(
    "question",
    ["May I borrow the drill?", "Which 2019 model is the boat?", "When did the workshop open?", "Order 20 bolts"],
)
def test_no_window_without_a_calendar_period(question):
    assert date_windows(question) == []


def test_the_words_that_named_a_period_are_not_searched_as_text():
    assert {"march", "2021"} <= date_words("What did the plumber fix in March 2021?")
    assert "plumber" not in date_words("What did the plumber fix in March 2021?")


@given(st.text(max_size=200))
def test_date_windows_never_fail_and_windows_are_ordered(text):
    for first, last in date_windows(text):
        assert first <= last


# --- On PostgreSQL --------------------------------------------------------------------------------------
@pytest.fixture(autouse=True)
def _fresh_stats(fresh_recall):
    """Corpus statistics and cached blocks start empty in every test of this module."""


def turns_on(user, day: dt.date, lines: list[tuple[str, str]]):
    conv = ConversationFactory(
        transcript__source__owner=user,
        transcript__local_date=day,
        started_at=dt.datetime.combine(day, dt.time(10), tzinfo=dt.UTC),
    )
    return [
        UtteranceFactory(
            conversation=conv,
            index=i,
            speaker_name=who,
            text=text,
            started_at=dt.datetime.combine(day, dt.time(10), tzinfo=dt.UTC),
        )
        for i, (who, text) in enumerate(lines)
    ]


@pytest.mark.django_db
def test_rows_dated_inside_the_named_period_rank_first(user):
    march = turns_on(user, dt.date(2021, 3, 9), [("Ola", "The plumber replaced the kitchen valve today.")])
    june = turns_on(user, dt.date(2021, 6, 2), [("Ola", "The plumber replaced the bathroom valve, finally.")])
    provider = TranscriptProvider()
    in_march = search.fulltext_ranking(provider, user, "What valve did the plumber replace in March 2021?")
    in_june = search.fulltext_ranking(provider, user, "What valve did the plumber replace in June 2021?")
    assert in_march[0].ref_id == march[0].pk and in_june[0].ref_id == june[0].pk
    # Without a period both stay found (a date boosts, it never filters).
    assert {r.ref_id for r in search.fulltext_ranking(provider, user, "plumber valve")} == {march[0].pk, june[0].pk}


@pytest.mark.django_db
def test_expansion_finds_the_turn_about_the_thing_the_first_hit_names(user):
    lines = [
        ("Tomasz", "My neighbour lent me his old sailboat, she is called Kestrel."),
        ("Rui", "The harbour fees went up again this year."),
        ("Rui", "I planted tulips along the fence."),
        ("Rui", "The bakery on the corner closed for good."),
        ("Rui", "I saw Kestrel at the dock, her rigging looks frayed."),
    ]
    turns = turns_on(user, dt.date(2025, 5, 5), lines)
    for i in range(6):  # unrelated talk so that rare words stand out
        turns_on(user, dt.date(2025, 6, 1 + i), [("Rui", f"We discussed the garden plan number {i} at length.")])
    provider = TranscriptProvider()
    question = "What is wrong with the sailboat the neighbour lent Tomasz?"
    plain = [r.ref_id for r in search.contextual_ranking(provider, user, question, expand=False)]
    expanded = [r.ref_id for r in search.contextual_ranking(provider, user, question, expand=True)]
    assert plain[0] == turns[0].pk and turns[4].pk not in plain  # the answer shares no word with the question
    assert turns[4].pk in expanded[:3]


@pytest.mark.django_db
def test_a_fact_distilled_from_a_turn_makes_the_turn_findable_by_its_meaning(user):
    turns = turns_on(
        user,
        dt.date(2025, 8, 1),
        [
            ("Noor", "Every Saturday I walk the rescue dogs out by the quarry."),
            ("Leif", "Sounds muddy."),
            ("Leif", "I finished the bookshelf for the hallway."),
        ],
    )
    transcript = turns[0].transcript
    fact = FactFactory(
        owner=user,
        content="Noor volunteers at the animal shelter",
        evidence=[EvidenceInFactory(source_ref={"transcript_id": transcript.pk, "utterances": [0, 0]})],
    )
    provider = TranscriptProvider()
    question = "Where does Noor volunteer?"
    assert turns[0].pk not in [r.ref_id for r in search.fulltext_ranking(provider, user, "volunteer shelter")]
    assert services.index_anchors(owner=user) == 1
    assert services.index_anchors(owner=user) == 0  # idempotent
    ranked = [r.ref_id for r in search.contextual_ranking(provider, user, question, expand=False)]
    assert ranked[0] == turns[0].pk
    # Forgetting the fact removes the link with it: the turn is no longer found by the fact's words.
    forget_services.forget(owner=user, fact=fact)
    assert not Anchor.objects.filter(owner=user).exists()
    search.forget_stats()
    ranked = [r.ref_id for r in search.contextual_ranking(provider, user, "volunteer shelter", expand=False)]
    assert turns[0].pk not in ranked


@pytest.mark.django_db
def test_anchors_never_cross_owners(user, other_user):
    mine = turns_on(user, dt.date(2025, 8, 1), [("Noor", "I walk the rescue dogs on Saturdays.")])
    FactFactory(
        owner=other_user,
        content="Noor volunteers at the animal shelter",
        evidence=[EvidenceInFactory(source_ref={"transcript_id": mine[0].transcript.pk, "utterances": [0, 0]})],
    )
    assert services.index_anchors(owner=other_user) == 0
    assert search.contextual_ranking(TranscriptProvider(), user, "volunteer shelter", expand=False) == []


@pytest.mark.django_db
def test_large_tables_score_with_precomputed_statistics_and_still_rank_rare_words_first(user, monkeypatch):
    from django.db import connection

    turns = turns_on(
        user,
        dt.date(2025, 9, 1),
        [("Ava", f"The weather was fine on day {i} of the survey.") for i in range(12)]
        + [("Ava", "The theodolite tripod snapped on the ridge, weather was fine.")],
    )
    with connection.cursor() as cur:
        cur.execute("ANALYZE wearables_utterance")
    monkeypatch.setattr(search, "ESTIMATE_FROM", 0)  # treat this small table as a large one
    search.forget_stats()
    assert search._estimated_frequencies(TranscriptProvider(), user) is not None
    ranked = search.fulltext_ranking(
        TranscriptProvider(), user, "What happened to the tripod when the weather was fine?"
    )
    assert ranked[0].ref_id == turns[-1].pk
