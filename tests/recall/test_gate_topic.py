"""The gate's cue words are not search terms: "remember when we talked about X" searches for X."""

from __future__ import annotations

import pytest

from ledger.recall.gate import heuristic_gate, topic_query


@pytest.mark.parametrize(
    ("query", "topic_words"),
    [
        ("remember when we talked about the tomatoes", {"tomatoes"}),
        ("what did we discuss about the Lisbon trip last time", {"lisbon", "trip"}),
        ("what exactly did Sam say about the lease", {"sam", "lease"}),
    ],
)
def test_cue_phrases_are_removed_from_the_search(query, topic_words):
    decision = heuristic_gate(query)
    topic = topic_query(query, decision).lower()
    assert topic_words <= set(topic.split())
    for cue in ("remember", "talked", "discuss", "last time"):
        assert cue not in topic


def test_a_query_that_is_only_cues_is_kept_whole():
    decision = heuristic_gate("do you remember what we talked about")
    assert decision.route == "episodes"
    assert topic_query("do you remember what we talked about", decision) != ""


def test_other_routes_search_the_question_as_asked():
    decision = heuristic_gate("Where does Maya live?", ["Maya"])
    assert topic_query("Where does Maya live?", decision) == "Where does Maya live?"
