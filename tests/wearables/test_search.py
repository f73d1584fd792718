"""Transcript search: indexed full-text with filters, and the labeled scan fallback."""

from __future__ import annotations

from datetime import date

import pytest

from tests.factories import ConversationFactory, DayTranscriptFactory, SourceFactory, UtteranceFactory
from wearables.queries import search_utterances

pytestmark = pytest.mark.django_db


@pytest.fixture
def corpus(user):
    lim = SourceFactory(owner=user, kind="limitless")
    bee = SourceFactory(owner=user, kind="bee")
    t1 = DayTranscriptFactory(source=lim, local_date=date(2026, 6, 8))
    t2 = DayTranscriptFactory(source=bee, local_date=date(2026, 6, 12))
    c1, c2 = ConversationFactory(transcript=t1), ConversationFactory(transcript=t2)
    UtteranceFactory(
        conversation=c1,
        index=0,
        speaker_name="Alice Example (you)",
        is_wearer=True,
        text="We are renting a cabin near the lake in August.",
    )
    UtteranceFactory(conversation=c1, index=1, speaker_name="Theo", text="The cabins were cheaper last year.")
    UtteranceFactory(
        conversation=c2, index=0, speaker_name="Speaker 0", text="Is the lake cabin booked? <script>x</script>"
    )
    return user


def test_indexed_search_stems_and_highlights(corpus):
    r = search_utterances(corpus, "cabins lake")
    assert r.mode == "indexed"
    assert {h["source"] for h in r.hits} == {"limitless", "bee"}
    assert all("<mark>" in h["snippet"] for h in r.hits)
    assert "<script>" not in next(h["snippet"] for h in r.hits if h["source"] == "bee")  # never raw HTML


def test_filters_narrow_by_source_dates_and_speaker(corpus):
    assert [h["source"] for h in search_utterances(corpus, "cabin", source="bee").hits] == ["bee"]
    assert {h["date"] for h in search_utterances(corpus, "cabin", date_from=date(2026, 6, 10)).hits} == {"2026-06-12"}
    assert [h["speaker"] for h in search_utterances(corpus, "cabin", speaker="Theo").hits] == ["Theo"]
    assert all(h["is_wearer"] for h in search_utterances(corpus, "cabin", speaker="me").hits)


def test_a_query_without_indexable_terms_runs_the_labeled_scan(corpus):
    r = search_utterances(corpus, "the")
    assert r.mode == "scan" and r.hits
    assert r.hits[0]["date"] == "2026-06-12"  # newest first


def test_no_matches_is_distinguishable_from_weaker_search(corpus):
    r = search_utterances(corpus, "volcano")
    assert r.mode == "scan" and r.hits == []


def test_search_never_crosses_owners(corpus, other_user):
    assert search_utterances(other_user, "cabin").hits == []
