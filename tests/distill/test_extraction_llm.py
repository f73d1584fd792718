"""The LLM extraction path against the local OpenAI-compatible imitation: one call per chunk of turns, the chunk
sent once as fenced data, answers validated, only useful answers cached, the deterministic extractor behind each
chunk, the daily call cap per owner, and LLM candidates through the same claim screen as every candidate."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from distill import pipeline, trust
from distill.extraction import llm as llm_extraction
from distill.extraction.base import ConversationIn, DayInput, TurnIn
from distill.steps import decision
from distill.steps.candidates import extract as extract_day
from ledger import llm
from ledger.llm import client
from ledger.llm.fencing import find_payload
from tests.support.openai_server import OpenAIImitation

T0 = datetime(2026, 10, 5, 9, 0, tzinfo=UTC)
pytestmark = pytest.mark.django_db


@pytest.fixture
def server(settings):
    s = OpenAIImitation(timeout_seconds=2).start()
    settings.ALMANAC_LLM_BASE_URL = s.base_url
    settings.ALMANAC_LLM_MODEL = "imitation-1"
    settings.ALMANAC_LLM_TIMEOUT = 0.5
    client._format_level.clear()
    yield s
    s.stop()


def long_day(turns: int, owner_key="") -> DayInput:
    utts = [
        TurnIn(
            index=i,
            speaker_name="user" if i % 2 == 0 else "Iker Solano",
            is_owner=i % 2 == 0,
            text=f"The regatta leg {i} went fine." if i else "I skipper a Contessa 32 out of Falmouth.",
            started_at=T0 + timedelta(seconds=5 * i),
        )
        for i in range(turns)
    ]
    return DayInput(
        owner_name="Lena Marsh", conversations=[ConversationIn(started_at=T0, turns=utts)], owner_key=owner_key
    )


def item(i=0, content="Lena skippers a Contessa 32 out of Falmouth.", **kw) -> dict:
    return {"turn_index": i, "subject": "user", "person": None, "content": content, "kind": "identity",
            "importance": "normal", "confidence": 0.9} | kw  # fmt: skip


# An item the claim screen lets through, beside one it stops: the chunk stays the model's.
USABLE = item(1, "Iker sails a Laser dinghy every weekend.", subject="third_party", person="Iker Solano", kind="other")


def with_a_usable_turn(day: DayInput) -> DayInput:
    day.conversations[0].turns[1].text = "I sail a Laser dinghy every weekend."
    return day


def answer_first_turn(messages):
    """Answer about turn 0 when the chunk holds it, nothing otherwise."""
    turns = find_payload(messages[1]["content"])["turns"]
    return json.dumps({"candidates": [item(t["i"]) for t in turns if t["i"] == 0]})


def test_one_call_per_chunk_of_turns_with_the_chunk_sent_once_as_fenced_json(server, user):
    server.chat_handler = answer_first_turn
    result = extract_day(long_day(2 * llm_extraction.CHUNK_TURNS + 5, owner_key=str(user.pk)))
    assert len(server.chat_requests()) == 3  # 85 turns → 3 chunks, not 85 calls
    assert [c.content for c in result.candidates if c.extractor == "llm"] == [
        "Lena skippers a Contessa 32 out of Falmouth."
    ]
    data = find_payload(server.chat_requests()[0]["messages"][1]["content"])
    assert data["owner"] == "Lena" and len(data["turns"]) == llm_extraction.CHUNK_TURNS
    assert data["turns"][0] == {"i": 0, "speaker": "Lena", "is_owner": True,
                                "text": "I skipper a Contessa 32 out of Falmouth."}  # fmt: skip


def test_the_prompt_lists_the_allowed_values_and_the_schema_goes_as_response_format(server, user):
    server.chat_handler = answer_first_turn
    extract_day(long_day(2, owner_key=str(user.pk)))
    body = server.chat_requests()[0]
    system = body["messages"][0]["content"]
    assert "one of: identity, preference, relationship" in system and "trivial, low, normal, high, critical" in system
    schema = body["response_format"]["json_schema"]["schema"]
    assert schema["properties"]["candidates"]["maxItems"] == llm_extraction.MAX_ITEMS
    assert "accept|reject" not in system


def test_useful_answers_are_cached_under_the_prompt_version(server, user):
    server.chat_handler = answer_first_turn
    extract_day(long_day(10, owner_key=str(user.pk)))
    calls = len(server.chat_requests())
    server.mode = "error"  # a second call would fail: the cache answers
    again = extract_day(long_day(10, owner_key=str(user.pk)))
    assert again.extractor == "llm" and len(server.chat_requests()) == calls
    assert again.candidates[0].content.startswith("Lena skippers")


def test_an_answer_pointing_outside_its_chunk_runs_the_deterministic_extractor_and_is_not_cached(server, user):
    server.chat_handler = lambda m: json.dumps({"candidates": [item(999, "Lena owns a lighthouse.", kind="place")]})
    day = long_day(4, owner_key=str(user.pk))
    result = extract_day(day)
    assert result.extractor == "deterministic"
    assert "Lena skippers a Contessa 32 out of Falmouth." in [c.content for c in result.candidates]
    assert any("nothing usable (1 items)" in w and "turns 0-3" in w for w in result.warnings)
    extract_day(day)
    assert len(server.chat_requests()) == 2  # the useless answer was not cached: asked again


def test_a_chunk_whose_every_candidate_fails_the_claim_screen_gets_the_parse_and_is_not_cached(server, user):
    # Two items, neither said in the turn it points to: the claim screen stops both, so the chunk is the parse's.
    server.chat_handler = lambda m: json.dumps({"candidates": [
        item(0, "Lena owns a vineyard in Mendoza.", kind="place"),
        item(1, "Iker breeds alpacas.", subject="third_party", person="Iker Solano", kind="work")]})  # fmt: skip
    day = long_day(4, owner_key=str(user.pk))
    result = extract_day(day)
    assert result.extractor == "deterministic"
    assert [c.content for c in result.candidates if c.evidence.first_index == 0] == [
        "Lena skippers a Contessa 32 out of Falmouth."
    ]
    assert not [c for c in result.candidates if c.extractor == "llm"]
    assert any("failed the claim screen (2 items)" in w and "turns 0-3" in w for w in result.warnings)
    extract_day(day)
    assert len(server.chat_requests()) == 2  # the screened-out answer was not cached: asked again


def test_a_screened_out_answer_leaves_the_pass_what_it_is_without_the_model(server, settings, user, other_user):
    """Through the whole pass: what the gate writes when the model's every claim is screened out is what it writes
    with the model off."""
    from accounts.services import update_settings
    from distill import services
    from distill.conversation import Conversation, Speaker, Turn
    from ledger.models import Fact

    server.chat_handler = lambda m: (
        json.dumps({"candidates": [item(0, "Lena owns a vineyard in Mendoza.", kind="place")]})
        if "extract" in m[0]["content"]
        else "{}"
    )

    def written(owner) -> list[tuple[str, str]]:
        update_settings(user=owner, display_name="Lena Marsh")
        me, other = Speaker("Lena Marsh", is_owner=True), Speaker("Iker Solano")
        turns = [Turn(0, me, "I've been allergic to penicillin since I was a child."), Turn(1, other, "Noted.")]
        chat = Conversation("chat:import", "chat", "chat:a", "2026-10-05", turns)
        services.distill(owner=owner, conversations=[chat], scope_key="chat:a", source_key="chat:import")
        return sorted((f.content, f.status) for f in Fact.objects.owned_by(owner))

    with_model = written(user)
    settings.ALMANAC_LLM_BASE_URL = ""
    without_model = written(other_user)
    assert with_model and with_model == without_model


def test_an_empty_answer_runs_the_deterministic_extractor_for_that_chunk(server, user):
    server.chat_handler = lambda m: "{}"
    result = extract_day(long_day(4, owner_key=str(user.pk)))
    assert result.extractor == "deterministic" and result.candidates
    assert any("fell back to the deterministic extractor" in w for w in result.warnings)


def test_an_answer_failing_validation_falls_back_with_a_warning(server, user):
    server.chat_handler = lambda m: json.dumps({"candidates": [item(content="")]})
    result = extract_day(long_day(4, owner_key=str(user.pk)))
    assert result.extractor == "deterministic"
    assert any("schema" in w for w in result.warnings)


def test_only_the_failing_chunk_falls_back(server, user):
    def handler(messages):
        turns = find_payload(messages[1]["content"])["turns"]
        return answer_first_turn(messages) if turns[0]["i"] == 0 else "this is { not json"

    day = long_day(llm_extraction.CHUNK_TURNS + 2, owner_key=str(user.pk))
    day.conversations[0].turns[-1].text = "I'm allergic to shellfish."
    server.chat_handler = handler
    result = extract_day(day)
    by = {(c.extractor, c.content) for c in result.candidates}
    assert ("llm", "Lena skippers a Contessa 32 out of Falmouth.") in by
    assert any(e == "deterministic" and "shellfish" in c for e, c in by)
    assert result.extractor == "llm" and len(result.warnings) == 1


def test_past_the_daily_cap_the_deterministic_extractor_runs_and_says_so(server, settings, user, other_user):
    settings.ALMANAC_LLM_DAILY_CALLS = 2
    server.chat_handler = answer_first_turn
    result = extract_day(long_day(3 * llm_extraction.CHUNK_TURNS, owner_key=str(user.pk)))
    assert len(server.chat_requests()) == 2
    assert any("daily LLM call cap (2) reached" in w for w in result.warnings)
    assert extract_day(long_day(5, owner_key=str(other_user.pk))).extractor == "llm"  # their own budget


def test_a_greeting_question_is_dropped_by_the_claim_screen_whatever_the_models_confidence(server, user):
    turn = "Good morning, Bright Smile Dental. Are you checking in?"
    day = with_a_usable_turn(long_day(2, owner_key=str(user.pk)))
    day.conversations[0].turns[0].text = turn
    claim = item(content="Lena is checking in at Bright Smile Dental.", kind="plan", confidence=1.0)
    server.chat_handler = lambda m: json.dumps({"candidates": [claim, USABLE]})
    cand = extract_day(day).candidates[0]
    assert cand.ceiling == "dropped" and cand.features["llm_confidence"] == 1.0
    scored = decision.decide(pipeline.score(cand, source_trust=0.8, judge_verdict="accept"), trust.Policy())
    assert scored.decision == trust.DROPPED


def test_the_models_confidence_alone_never_accepts(server, user):
    # a passing moment the gate model does not take for a durable fact, however sure the LLM says it is
    day = long_day(2, owner_key=str(user.pk))
    day.conversations[0].turns[0].text = "I grabbed a coffee on the dock this morning."
    claim = item(content="Lena grabbed a coffee on the dock this morning.", kind="other", confidence=1.0)
    server.chat_handler = lambda m: json.dumps({"candidates": [claim]})
    cand = extract_day(day).candidates[0]
    assert cand.ceiling == "" and cand.features["llm_confidence"] == 1.0
    assert cand.features["tense"] == "past"  # the parse of the quoted turn: the gate model reads it
    alone = decision.decide(pipeline.score(cand, source_trust=0.8), trust.Policy())
    assert alone.decision != trust.ACCEPTED
    judged = pipeline.score(cand, source_trust=0.8, judge_verdict="accept")
    assert judged.score > alone.score  # a judge's accept is evidence; the model's own confidence is not enough


def test_a_claim_the_quoted_turn_does_not_say_is_dropped(server, user):
    server.chat_handler = lambda m: json.dumps({"candidates": [item(content="Lena owns a vineyard in Mendoza."), USABLE]})
    cand = extract_day(with_a_usable_turn(long_day(2, owner_key=str(user.pk)))).candidates[0]
    assert cand.ceiling == "dropped" and "does not say it" in cand.ceiling_reason


def test_a_third_party_not_named_in_the_turn_is_unknown_and_reviewed(server, user):
    day = long_day(2, owner_key=str(user.pk))
    day.conversations[0].turns[1].text = "She sails a Laser dinghy every weekend."
    server.chat_handler = lambda m: json.dumps({"candidates": [item(
        1, "Maren sails a Laser dinghy every weekend.", subject="third_party", person="Maren Quenby")]})  # fmt: skip
    cand = extract_day(day).candidates[0]
    assert cand.attribution == "unknown" and cand.ceiling == "pending_review"


def test_the_owner_attributed_from_someone_elses_words_waits_for_review(server, user):
    day = long_day(2, owner_key=str(user.pk))
    day.conversations[0].turns[1].text = "You skipper a Contessa 32 out of Falmouth."
    server.chat_handler = lambda m: json.dumps({"candidates": [item(1)]})
    cand = extract_day(day).candidates[0]
    assert cand.attribution == "user" and cand.ceiling == "pending_review"


def test_without_a_model_nothing_is_counted(settings, user):
    settings.ALMANAC_LLM_BASE_URL = ""
    result = extract_day(long_day(2, owner_key=str(user.pk)))
    assert result.extractor == "deterministic" and llm.calls_today(user) == 0
