"""The LLM extraction path against the local OpenAI-compatible imitation: one call per chunk of turns, the chunk
sent as fenced JSON data, answers validated (pydantic), cached by content hash, a daily call cap per owner."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from distill.extraction import llm as llm_extraction
from distill.extraction.base import ConversationIn, DayInput, UtteranceIn
from distill.extraction.llm import extract_day
from tests.support.openai_server import OpenAIImitation

T0 = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
pytestmark = pytest.mark.django_db


@pytest.fixture
def server(settings):
    s = OpenAIImitation(timeout_seconds=2).start()
    settings.ALMANAC_LLM_BASE_URL = s.base_url
    settings.ALMANAC_LLM_MODEL = "imitation-1"
    settings.ALMANAC_LLM_TIMEOUT = 0.5
    yield s
    s.stop()


def long_day(turns: int, owner_key="7") -> DayInput:
    utts = [
        UtteranceIn(
            index=i,
            speaker_name="user" if i % 2 == 0 else "Iker Solano",
            is_wearer=i % 2 == 0,
            text=f"The regatta leg {i} went fine." if i else "I skipper a Contessa 32 out of Falmouth.",
            started_at=T0 + timedelta(seconds=5 * i),
        )
        for i in range(turns)
    ]
    return DayInput(
        wearer_name="Lena Marsh", conversations=[ConversationIn(started_at=T0, utterances=utts)], owner_key=owner_key
    )


def answer_first_turn(messages):
    """Answer about turn 0 when the chunk holds it, nothing otherwise."""
    data = messages[1]["content"].split("<<<TRANSCRIPT_DATA\n", 1)[1].rsplit("\nTRANSCRIPT_DATA>>>", 1)[0]
    turns = json.loads(json.loads(data))
    items = [
        {
            "utterance_index": t["i"],
            "subject": "user",
            "person": None,
            "content": "Lena skippers a Contessa 32 out of Falmouth.",
            "kind": "identity",
            "importance": "normal",
            "confidence": 0.9,
        }
        for t in turns
        if t["i"] == 0
    ]
    return json.dumps({"candidates": items})


def test_one_call_per_chunk_of_turns_with_the_chunk_fenced_as_json(server):
    server.chat_handler = answer_first_turn
    result = extract_day(long_day(2 * llm_extraction.CHUNK_TURNS + 5))
    assert len(server.requests) == 3  # 85 turns → 3 chunks, not 85 calls
    assert [c.content for c in result.candidates] == ["Lena skippers a Contessa 32 out of Falmouth."]
    prompt = server.requests[0]["body"]["messages"][1]["content"]
    turns = json.loads(json.loads(prompt.split("<<<TRANSCRIPT_DATA\n", 1)[1].rsplit("\nTRANSCRIPT_DATA>>>", 1)[0]))
    assert turns[0] == {"i": 0, "speaker": "OWNER", "text": "I skipper a Contessa 32 out of Falmouth."}
    assert len(turns) == llm_extraction.CHUNK_TURNS


def test_answers_are_cached_by_content_hash(server):
    server.chat_handler = answer_first_turn
    extract_day(long_day(10))
    calls = len(server.requests)
    server.mode = "error"  # a second call would fail: the cache answers
    again = extract_day(long_day(10))
    assert again.extractor == "llm" and len(server.requests) == calls
    assert again.candidates[0].content.startswith("Lena skippers")


def test_an_answer_pointing_outside_its_chunk_is_ignored(server):
    server.chat_handler = lambda m: json.dumps(
        {
            "candidates": [
                {
                    "utterance_index": 999,
                    "subject": "user",
                    "content": "Lena owns a lighthouse.",
                    "kind": "place",
                    "importance": "low",
                    "confidence": 0.9,
                }
            ]
        }
    )
    assert extract_day(long_day(4)).candidates == []


def test_an_answer_failing_validation_falls_back_with_a_warning(server):
    bad = {
        "utterance_index": 0,
        "subject": "user",
        "content": "",
        "kind": "health",
        "importance": "high",
        "confidence": 1,
    }
    server.chat_handler = lambda m: json.dumps({"candidates": [bad]})
    result = extract_day(long_day(4))
    assert result.extractor == "deterministic"
    assert any("fell back to the deterministic extractor" in w for w in result.warnings)


def test_past_the_daily_cap_the_deterministic_extractor_runs_and_says_so(server, settings):
    settings.ALMANAC_LLM_DAILY_CALLS = 2
    server.chat_handler = answer_first_turn
    result = extract_day(long_day(3 * llm_extraction.CHUNK_TURNS, owner_key="capped"))
    assert len(server.requests) == 2
    assert result.extractor == "deterministic"
    assert any("daily call cap (2) reached" in w for w in result.warnings)
    # another owner has their own budget
    other = extract_day(long_day(5, owner_key="someone-else"))
    assert other.extractor == "llm"


def test_the_judge_counts_against_the_same_daily_cap(server, settings):
    from distill.judge import judge

    settings.ALMANAC_LLM_DAILY_CALLS = 1
    server.chat_handler = answer_first_turn
    cands = extract_day(long_day(4, owner_key="judge-owner")).candidates  # uses the one call
    verdicts, warnings = judge(cands, owner_key="judge-owner")
    assert set(verdicts.values()) == {None}
    assert "daily call cap (1) reached" in warnings[0]


def test_the_pass_counts_calls_per_owner_and_reports_the_cap_in_its_warnings(server, settings, user, other_user):
    """Through distill.services.distill: the owner's key reaches the extractor; past the cap the pass falls back."""
    from distill import services
    from distill.conversation import Conversation, Speaker, Turn

    settings.ALMANAC_LLM_DAILY_CALLS = 1
    server.chat_handler = lambda m: json.dumps({"candidates": []}) if "extract" in m[0]["content"] else "{}"

    def chat(scope: str) -> Conversation:
        me, other = Speaker("Lena Marsh", is_owner=True), Speaker("Iker Solano")
        turns = [Turn(0, me, "I skipper a Contessa 32 out of Falmouth."), Turn(1, other, f"Nice boat ({scope}).")]
        return Conversation("chat:import", "chat", scope, "2026-10-05", turns)

    first = services.distill(owner=user, conversations=[chat("chat:a")], scope_key="chat:a", source_key="chat:import")
    assert first.extractor == "llm"
    second = services.distill(owner=user, conversations=[chat("chat:b")], scope_key="chat:b", source_key="chat:import")
    assert second.extractor == "deterministic"
    assert any("daily call cap (1) reached" in w for w in second.warnings)
    other = services.distill(
        owner=other_user, conversations=[chat("chat:c")], scope_key="chat:c", source_key="chat:import"
    )
    assert other.extractor == "llm"
